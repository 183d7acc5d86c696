"""LSH candidates per document at 10 million and 1 billion documents sharing one footer, by
simulating the buckets (the corpus is never built).

Model. A document's slot p holds the footer's minimum when the footer's smallest hash under
slot p's function is below every hash of the document's own text; for unrelated documents of
the same length that happens independently per document with a probability ``share[p]`` that
depends on the slot (on where the footer's minimum fell) and otherwise the slot holds a value
no other document has. ``share`` is measured on real signatures of a footer corpus
(``benches/article_corpus.py``'s ``unrelated_with_footer``): the fraction of documents whose
slot equals the slot's most common value.

Band t's boilerplate bucket then holds Binomial(n, prod share[p] over its r slots) documents;
kept whole it gives m(m - 1)/2 pairs. Split as ``rust/lsh/groups.rs`` splits it (the parts are
never dense: the documents are unrelated), each split keeps Binomial(m, share[next slot]) of
the part together and leaves the rest alone, until a part has at most two documents. The
simulation is checked against the real grouper (``_core.lsh_bucket_pairs_bound``) at the
measured size.

    python benches/scale_simulation.py            # the table of docs/ray.md, "Scale"
"""

from __future__ import annotations

import argparse

import numpy as np

import neardup
from neardup import _core
from neardup.banding import BUCKET_LIMIT


def slot_shares(signatures: np.ndarray) -> np.ndarray:
    """float64[P]: per slot, the share of documents holding its most common value."""
    shares = np.empty(signatures.shape[1])
    for p in range(signatures.shape[1]):
        _, counts = np.unique(signatures[:, p], return_counts=True)
        shares[p] = counts.max() / len(signatures)
    return shares


def simulate(
    n: int, shares: np.ndarray, bands: int, rows: int, limit: int | None, rng: np.random.Generator
) -> float:
    """Pairs the boilerplate buckets of every band hold (split, or whole with ``limit`` None)."""
    width = len(shares)
    pairs = 0.0
    for band in range(bands):
        inside = float(np.prod(shares[band * rows : (band + 1) * rows]))
        m = int(rng.binomial(n, inside))
        if limit is None or m <= limit:
            pairs += m * (m - 1) / 2
            continue
        depth = 0
        while m > 2 and depth < width - rows:
            m = int(rng.binomial(m, shares[(band * rows + rows + depth) % width]))
            depth += 1
        pairs += m * (m - 1) / 2
    return pairs


def main() -> None:
    import article_corpus

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--measure", type=int, default=20_000, help="documents actually signed")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    texts = article_corpus.unrelated_with_footer(args.measure, args.seed)
    signatures = neardup.minhash(texts)
    shares = slot_shares(signatures)
    plan = neardup.make_plan().resolve(10**6)  # the default banding at scale
    bands, rows = plan.bands or 0, plan.rows or 0
    print(
        f"footer corpus: {args.measure:,} documents signed; slot shares of the footer: "
        f"median {np.median(shares):.3f}, max {shares.max():.3f}; banding {bands}x{rows}"
    )
    real = _core.lsh_bucket_pairs_bound(
        signatures, bands, rows, 2**62, 1, plan.threshold, BUCKET_LIMIT
    )
    whole = _core.lsh_bucket_pairs_bound(signatures, bands, rows, 2**62, 1, plan.threshold, None)
    rng = np.random.default_rng(args.seed)
    model = np.mean(
        [simulate(args.measure, shares, bands, rows, BUCKET_LIMIT, rng) for _ in range(20)]
    )
    model_whole = np.mean(
        [simulate(args.measure, shares, bands, rows, None, rng) for _ in range(20)]
    )
    print(
        f"check at {args.measure:,}: grouper {real / args.measure:.3f} bucket pairs a document "
        f"(model {model / args.measure:.3f}); whole buckets {whole / args.measure:.1f} "
        f"(model {model_whole / args.measure:.1f})"
    )
    print()
    print("| documents | bucket pairs per document, split (default) | kept whole |")
    print("|---:|---:|---:|")
    for n in (10**5, 10**6, 10**7, 10**8, 10**9):
        split = np.mean([simulate(n, shares, bands, rows, BUCKET_LIMIT, rng) for _ in range(20)])
        kept = simulate(n, shares, bands, rows, None, rng)
        print(f"| {n:,} | {split / n:.2e} | {kept / n:,.0f} |")


if __name__ == "__main__":
    main()
