"""Recall of the default MinHash path on real text with planted near-duplicates, per seed and
threshold (issue 24: >= 0.995 at T = 0.3, 0.5 and 0.8 for every seed 0-7).

Documents are files this machine's packages installed (nothing written by this project),
read in sorted path order and sampled with a fixed seed:

- ``man``: manual pages as their raw roff source (/usr/share/man/man{1,5,8}, gzip'd), the
  template-heavy case: most pages share long option, author and licence sections;
- ``licences``: /usr/share/common-licenses and Debian /usr/share/doc/*/copyright files
  (the GPL and its relatives copied into hundreds of them);
- ``docstrings``: module docstrings of the Python standard library (``ast``, no import).

Every fifth document gets a planted copy edited at one of the rates of ``EDIT_RATES`` (a
share of its words substituted, deleted or duplicated, at random places) or cut (its first
half), placed at a random position, so pairs sit at every Jaccard from 0.2 to 1. The truth is
every pair at exact Jaccard >= T (``method="exact-jaccard"``: the same shingles, all pairs),
natural and planted alike (where the run answered with spanning pairs, ``pairs="auto"`` past
its limit, a true pair counts as found when its documents share a cluster); each run is
``find_duplicates(texts, threshold=T, method="minhash", seed=s)`` with every other setting at
its default (``method="minhash"`` because ``"auto"`` brute-forces exact Jaccard below 5,000
documents).

    python benches/realtext/planted.py --docs 2000           # up to 2,000 of each source
    python benches/realtext/planted.py --source man --docs 6000

Prints, per threshold and seed, the recall, the precision, the banding, the expected recall,
the bucket splits and the screened candidates, and for every missed pair its Jaccard and its
documents (which source, planted or natural), so a miss can be explained.
"""

from __future__ import annotations

import argparse
import ast
import glob
import gzip
import os
import random
import sysconfig
import time

import neardup

EDIT_RATES = (0.01, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5)
THRESHOLDS = (0.3, 0.5, 0.8)


def _text(path: str) -> str | None:
    try:
        if path.endswith(".gz"):
            with gzip.open(path, "rb") as handle:
                raw = handle.read(1 << 20)
        else:
            with open(path, "rb") as handle:
                raw = handle.read(1 << 20)
    except OSError:
        return None
    text = raw.decode("utf-8", errors="replace")
    return text if len(text.split()) >= 20 else None


def man_pages() -> list[tuple[str, str]]:
    """(path, roff source) of the manual pages of sections 1, 5 and 8 (links followed once)."""
    seen: set[str] = set()
    out = []
    for path in sorted(glob.glob("/usr/share/man/man[158]/*.gz")):
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        text = _text(real)
        if text is not None and not text.startswith(".so "):
            out.append((path, text))
    return out


def licences() -> list[tuple[str, str]]:
    paths = sorted(glob.glob("/usr/share/common-licenses/*"))
    paths += sorted(glob.glob("/usr/share/doc/*/copyright"))
    return [(p, t) for p in paths if os.path.isfile(p) and (t := _text(p)) is not None]


def docstrings() -> list[tuple[str, str]]:
    root = sysconfig.get_paths()["stdlib"]
    out = []
    for path in sorted(glob.glob(os.path.join(root, "**", "*.py"), recursive=True)):
        if "site-packages" in path or "/test" in path:
            continue
        try:
            with open(path, encoding="utf-8") as handle:
                doc = ast.get_docstring(ast.parse(handle.read()))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            continue
        if doc and len(doc.split()) >= 20:
            out.append((path, doc))
    return out


SOURCES = {"man": man_pages, "licences": licences, "docstrings": docstrings}


def edited(text: str, rate: float, rng: random.Random) -> str:
    """``text`` with a ``rate`` share of its words edited (substituted, deleted, duplicated),
    or, at rate 0.5, its first half only."""
    words = text.split()
    if rate >= 0.5:
        return " ".join(words[: len(words) // 2])
    out = []
    for w in words:
        if rng.random() >= rate:
            out.append(w)
            continue
        kind = rng.randrange(3)
        if kind == 0:
            out.append(rng.choice(words) + "x")
        elif kind == 2:
            out += [w, w]
    return " ".join(out)


def corpus(sources: list[str], docs: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """(texts, labels): up to ``docs`` sampled documents of each source and their planted
    copies, shuffled; a label says the source and, for a copy, the rate."""
    rng = random.Random(seed)
    items: list[tuple[str, str]] = []
    for name in sources:
        found = SOURCES[name]()
        rng.shuffle(found)
        items += [(f"{name}:{path}", text) for path, text in found[:docs]]
    texts, labels = [t for _, t in items], [label for label, _ in items]
    for i in range(0, len(items), 5):
        rate = EDIT_RATES[(i // 5) % len(EDIT_RATES)]
        texts.append(edited(items[i][1], rate, rng))
        labels.append(f"copy@{rate:g} of {labels[i]}")
    order = list(range(len(texts)))
    rng.shuffle(order)
    return [texts[i] for i in order], [labels[i] for i in order]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", nargs="+", choices=sorted(SOURCES), default=sorted(SOURCES))
    ap.add_argument("--docs", type=int, default=2000, help="most documents per source")
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--thresholds", type=float, nargs="+", default=list(THRESHOLDS))
    args = ap.parse_args()
    texts, labels = corpus(args.source, args.docs)
    print(
        f"{len(texts):,} documents ({', '.join(args.source)}), {sum(map(len, texts)) / 1e6:.1f} MB"
    )
    worst = 1.0
    for threshold in args.thresholds:
        t0 = time.perf_counter()
        exact = neardup.find_duplicates(texts, threshold=threshold, method="exact-jaccard")
        truth = {(int(i), int(j)) for i, j in exact.pairs.tolist()}
        pairs = map(tuple, exact.pairs.tolist())
        similarity = dict(zip(pairs, exact.similarity.tolist(), strict=True))
        seconds = time.perf_counter() - t0
        print(f"T={threshold:g}: {len(truth):,} pairs at exact J >= T ({seconds:.1f} s)")
        for seed in range(args.seeds):
            r = neardup.find_duplicates(texts, threshold=threshold, method="minhash", seed=seed)
            p = r.params
            if p.get("pairs_used") == "spanning":  # pairs enough to join each cluster
                labels_of = r.clusters
                connected = {pair for pair in truth if labels_of[pair[0]] == labels_of[pair[1]]}
                found = connected | {(int(i), int(j)) for i, j in r.pairs.tolist()}
            else:
                found = {(int(i), int(j)) for i, j in r.pairs.tolist()}
            hit = len(found & truth)
            recall = hit / max(len(truth), 1)
            worst = min(worst, recall)
            print(
                f"  seed {seed}: recall {recall:.4f}  precision {hit / max(len(found), 1):.4f}  "
                f"pairs {p['pairs_used']}  "
                f"banding {p['bands']}x{p['rows']}  expected {p['expected_recall']:.4f}  "
                f"candidates {p['candidates']:,}  splits {p.get('bucket_splits', 0):,}  "
                f"screened {p.get('screened', 0):,}",
                flush=True,
            )
            for i, j in sorted(truth - found)[:10]:
                print(f"    missed J={similarity[(i, j)]:.3f}: {labels[i]} | {labels[j]}")
    print(f"lowest recall: {worst:.4f}")


if __name__ == "__main__":
    main()
