"""Records the outputs of boilerplate stripping (``frequent_shingles``, ``remove_shingles``,
``strip_boilerplate``, ``FrequencyCounter`` over batches split many ways, ``summarize``, and the
engine's ``info["boilerplate"]`` and result through ``find_duplicates``) over many random
inputs, to check that a change of their implementation reproduces them bit for bit.

    python benches/boilerplate_record.py record OUT.json   # with the old code
    python benches/boilerplate_record.py check OUT.json    # with the new code: 1 on a difference
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sys
from typing import Any

import numpy as np

import neardup
from neardup import boilerplate
from neardup.engine import run
from neardup.plan import make_plan
from neardup.stores import MemoryStore

MAX_DFS = (1e-9, 0.01, 0.05, 0.1, 1 / 3, 0.25, 0.5, 0.999, 1.0)


def _h(array: Any) -> str:
    a = np.ascontiguousarray(array)
    return f"{a.dtype}{a.shape}:" + hashlib.sha256(a.tobytes()).hexdigest()[:16]


def _sets(rng: np.random.Generator) -> neardup.ShingleSets:
    """Random CSR shingle sets: shared shingles at several frequencies, empty documents,
    hashes from a small range or the whole uint64 range (0 and 2**64 - 1 included)."""
    n = int(rng.choice([0, 1, 2, 3, 5, 10, 37, 100, 250]))
    wide = rng.random() < 0.5
    vocab = int(rng.integers(1, 5000))
    shared = rng.integers(0, 2**64, size=int(rng.integers(1, 30)), dtype=np.uint64)
    if wide:
        shared[: min(2, shared.size)] = [0, 2**64 - 1][: min(2, shared.size)]
    share = rng.uniform(0, 1, size=shared.size)
    docs = []
    for _ in range(n):
        if rng.random() < 0.1:
            docs.append(np.zeros(0, np.uint64))
            continue
        size = int(rng.integers(0, 60))
        if wide:
            own = rng.integers(0, 2**64, size=size, dtype=np.uint64)
        else:
            own = rng.integers(0, vocab, size=size).astype(np.uint64)
        docs.append(np.unique(np.concatenate([own, shared[rng.random(shared.size) < share]])))
    offsets = np.zeros(n + 1, np.int64)
    offsets[1:] = np.cumsum([d.size for d in docs]) if docs else []
    hashes = np.concatenate(docs) if docs else np.zeros(0, np.uint64)
    return neardup.ShingleSets(offsets, hashes.astype(np.uint64), k=int(rng.integers(1, 9)))


def _slice(ss: neardup.ShingleSets, a: int, b: int) -> neardup.ShingleSets:
    o = ss.offsets[a : b + 1]
    return neardup.ShingleSets(o - o[0], ss.hashes[o[0] : o[-1]].copy(), k=ss.k, unit=ss.unit)


def _splits(rng: np.random.Generator, n: int) -> list[list[int]]:
    out = [[0, n], list(range(n + 1))]
    for size in (2, 3, 7, 50):
        out.append([*range(0, n, size), n])
    cuts = sorted(rng.integers(0, n + 1, size=int(rng.integers(0, 6))).tolist())
    out.append([0, *cuts, n])  # repeated cuts: empty batches
    return out


def _stats(s: boilerplate.StripStats) -> dict[str, Any]:
    return {k: repr(v) for k, v in s.as_dict().items()}


def cases() -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for seed in range(400):
        rng = np.random.default_rng(seed)
        ss = _sets(rng)
        n = len(ss)
        for max_df in (*MAX_DFS[seed % 3 :: 3], 0.1):
            key = f"{seed} {max_df!r}"
            drop = boilerplate.frequent_shingles(ss, max_df)
            out.append((f"frequent {key}", _h(drop)))
            new, stats = boilerplate.strip_boilerplate(ss, max_df)
            out.append(
                (f"strip {key}", [_h(new.offsets), _h(new.hashes), new.k, new.unit, _stats(stats)])
            )
            for cut in _splits(rng, n):
                fc = boilerplate.FrequencyCounter(max_df)
                parts = [_slice(ss, a, b) for a, b in itertools.pairwise(cut)]
                for p in parts:
                    fc.add_candidates(p)
                for p in parts:
                    fc.count(p)
                got = fc.frequent()
                out.append(
                    (
                        f"counter {key} {len(parts)}",
                        [_h(got), _h(fc.candidates), _h(fc.counts), fc.n_docs],
                    )
                )
                sizes, removed = [], []
                for p in parts:
                    q, r = boilerplate.remove_shingles(p, got)
                    sizes.append(p.sizes())
                    removed.append(r)
                    out.append((f"batch {key} {len(parts)}", [_h(q.offsets), _h(q.hashes), _h(r)]))
                summary = boilerplate.summarize(sizes, removed, max_df, got.size)
                out.append((f"summarize {key} {len(parts)}", _stats(summary)))
        extra = rng.integers(0, 2**64, size=int(rng.integers(0, 20)), dtype=np.uint64)
        if ss.hashes.size:
            picked = rng.choice(ss.hashes, size=int(rng.integers(1, 40)))
            extra = np.concatenate([extra, picked, picked[:3]])  # unsorted, repeated
        rng.shuffle(extra)
        for drop in (extra, extra.astype(np.int64), extra.tolist(), np.zeros(0, np.uint64)):
            q, r = boilerplate.remove_shingles(ss, drop)
            out.append(
                (f"remove {seed} {type(drop).__name__}", [_h(q.offsets), _h(q.hashes), _h(r)])
            )
    out.extend(_engine())
    return out


def _engine() -> list[tuple[str, Any]]:
    sys.path.insert(0, "benches")
    import article_corpus

    texts = article_corpus.generate(bases=60, singles=150)[0]
    out: list[tuple[str, Any]] = []
    for method in ("minhash", "simhash", "exact-jaccard", "auto"):
        for max_df in (0.02, 0.1, 0.5):
            for batch in (97, 8192):
                plan = make_plan(method=method, strip_boilerplate=max_df, threshold=0.5)
                o = run(plan, MemoryStore(texts, batch_size=batch))
                info = o.info.get("boilerplate")
                parts = [_h(a) for a in (o.pairs, o.similarity, o.labels, o.keep)]
                out.append((f"engine {method} {max_df} {batch}", [parts, info]))
    return out


def main() -> None:
    mode, path = sys.argv[1], sys.argv[2]
    got = json.loads(json.dumps(cases()))
    if mode == "record":
        with open(path, "w") as f:
            json.dump(got, f)
        print(f"recorded {len(got)} cases to {path}")
        return
    with open(path) as f:
        want = json.load(f)
    bad = [(w, g) for w, g in zip(want, got, strict=False) if w != g]
    if len(want) != len(got):
        bad.append((len(want), len(got)))
    print(f"{len(got)} cases, {len(bad)} differences")
    for w, g in bad[:10]:
        print("want", w, "\n got", g)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
