"""Index query throughput: single-document queries and batched queries, top-k and threshold.

Not collected by pytest (it asserts nothing about time). Run from the repository root:

    python benches/bench_index.py                 # 100,000-document index (synth corpus)
    python benches/bench_index.py --docs 20000    # smaller

Builds a temporary index of the article's synthetic corpus (``neardup.synth``), then times, in
interleaved rounds (best of ``--rounds``): one ``query([text])`` call per document, ``query``
on batches of ``--batch`` documents (end to end, signatures included), and the lookup alone on
precomputed signatures. Queries are corpus documents (each finds itself and its variants)
and as many unrelated ones.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time

import numpy as np

from neardup import synth
from neardup.index import Index


def _best(rounds: int, fns: dict[str, object]) -> dict[str, tuple[float, float]]:
    """Best (wall, CPU) seconds of each variant. CPU time is reported beside wall time because
    the machine is shared: on a loaded machine wall time mostly measures the others."""
    best = {name: (float("inf"), float("inf")) for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():  # interleaved: every variant sees the same machine load
            t, c = time.perf_counter(), time.process_time()
            fn()  # type: ignore[operator]
            wall, cpu = time.perf_counter() - t, time.process_time() - c
            best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--single", type=int, default=4000, help="single-document queries per round")
    ap.add_argument("--batch", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--top-k", type=int, default=10)
    args = ap.parse_args()

    corpus = synth.generate(*synth.preset(args.docs))
    texts = list(corpus.texts)[: args.docs]
    rng = random.Random(0)
    order = rng.sample(range(len(texts)), len(texts))
    texts = [texts[i] for i in order]
    mb = sum(len(t.encode()) for t in texts) / len(texts) / 1e3
    vocab = synth.vocabulary()
    unrelated = [" ".join(rng.choice(vocab) for _ in range(400)) for _ in range(args.batch // 2)]
    queries = texts[: args.batch // 2] + unrelated
    rng.shuffle(queries)

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.ndx")
        t, c = time.perf_counter(), time.process_time()
        with Index(path, threshold=0.3) as ix:
            for s in range(0, len(texts), 10_000):
                ix.add(
                    [f"d{i}" for i in range(s, min(s + 10_000, len(texts)))], texts[s : s + 10_000]
                )
        ingest, ingest_cpu = time.perf_counter() - t, time.process_time() - c
        ix = Index(path)
        t, c = time.perf_counter(), time.process_time()
        ix.query(queries[:1])  # loads the in-memory mirror
        load, load_cpu = time.perf_counter() - t, time.process_time() - c
        sig = ix._signatures(queries)[0]
        single = queries[: args.single]
        k = args.top_k

        best = _best(
            args.rounds,
            {
                "single, threshold": lambda: [ix.query([q]) for q in single],
                "single, top-k": lambda: [ix.query([q], k=k) for q in single],
                "batched, threshold": lambda: ix.query(queries),
                "batched, top-k": lambda: ix.query(queries, k=k),
                "lookup only, single top-k": lambda: [
                    ix._lookup(sig[i : i + 1], 0.0, k) for i in range(len(single))
                ],
                "lookup only, batched top-k": lambda: ix._lookup(sig, 0.0, k),
            },
        )
        found = np.mean([bool(m) for m in ix.query(queries)])
        ix.close()
    print(
        f"index: {len(texts):,} documents of {mb:.1f} KB, bands x rows = {ix.bands} x {ix.rows}; "
        f"ingest {len(texts) / ingest:,.0f} docs/s ({len(texts) / ingest_cpu:,.0f} CPU), "
        f"mirror load {load:.2f} s ({load_cpu:.2f} s CPU); "
        f"{found:.0%} of queries match; top-k k = {k}"
    )
    print(f"  {'':<28} {'docs/s (wall)':>14} {'docs/s (CPU)':>14}   load {os.getloadavg()[0]:.1f}")
    for name, (wall, cpu) in best.items():
        n = len(single) if "single" in name else len(queries)
        print(f"  {name:<28} {n / wall:>14,.0f} {n / cpu:>14,.0f}")


if __name__ == "__main__":
    main()
