"""Index query throughput: single-document queries and batched queries, top-k and threshold.

Not collected by pytest (it asserts nothing about time; ``benches/test_index_query.py`` is the
pytest-benchmark entry). Run from the repository root:

    python benches/bench_index.py                 # 100,000-document index (synth corpus)
    python benches/bench_index.py --docs 20000    # smaller
    python benches/bench_index.py --baseline ../main/python   # A/B against another build

Builds a temporary index of the article's synthetic corpus (``neardup.synth``), then times, in
interleaved rounds (best of ``--rounds``): one ``query([text])`` call per document, ``query``
on batches of ``--batch`` documents (end to end, signatures included), and the lookup alone on
precomputed signatures. Queries are corpus documents (each finds itself and its variants)
and as many unrelated ones. Documents per CPU second is the figure to read on a shared machine.

``--baseline DIR`` loads a second ``neardup`` package from DIR (a folder holding ``neardup/``
with its compiled ``_core``) into the same process and runs every variant on both builds,
interleaved, against the same index file, so the ratio compares like with like.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np


def _package(folder: str | None) -> dict[str, ModuleType]:
    """The ``neardup`` modules imported from ``folder`` (None: the usual import path), as a
    snapshot of ``sys.modules``; restored by :func:`_use` before each timed call, so a
    function-level ``from neardup import ...`` finds its own build."""
    for name in [m for m in sys.modules if m == "neardup" or m.startswith("neardup.")]:
        del sys.modules[name]
    if folder is not None:
        sys.path.insert(0, folder)
    try:
        import neardup.index
        import neardup.synth  # noqa: F401
    finally:
        if folder is not None:
            sys.path.remove(folder)
    return {m: mod for m, mod in sys.modules.items() if m == "neardup" or m.startswith("neardup.")}


def _use(modules: dict[str, ModuleType]) -> None:
    sys.modules.update(modules)


def _best(
    rounds: int, fns: dict[str, tuple[dict[str, ModuleType], Callable[[], Any]]]
) -> dict[str, tuple[float, float]]:
    """Best (wall, CPU) seconds of each variant. CPU time is reported beside wall time because
    the machine is shared: on a loaded machine wall time mostly measures the others."""
    best = {name: (float("inf"), float("inf")) for name in fns}
    for _ in range(rounds):
        for name, (modules, fn) in fns.items():  # interleaved: all see the same machine load
            _use(modules)
            t, c = time.perf_counter(), time.process_time()
            fn()
            wall, cpu = time.perf_counter() - t, time.process_time() - c
            best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
    return best


def _variants(
    ix: Any, queries: list[str], single: list[str], k: int
) -> dict[str, Callable[[], Any]]:
    sig = ix._query_signatures(queries) if hasattr(ix, "_query_signatures") else None
    if sig is None:  # an older build
        sig = ix._signatures(queries)[0]
    return {
        "single, threshold": lambda: [ix.query([q]) for q in single],
        "single, top-k": lambda: [ix.query([q], k=k) for q in single],
        "batched, threshold": lambda: ix.query(queries),
        "batched, top-k": lambda: ix.query(queries, k=k),
        "lookup only, single top-k": lambda: [
            ix._lookup(sig[i : i + 1], 0.0, k) for i in range(len(single))
        ],
        "lookup only, batched top-k": lambda: ix._lookup(sig, 0.0, k),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--single", type=int, default=4000, help="single-document queries per round")
    ap.add_argument("--batch", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--top-k", type=int, default=10)
    ap.add_argument("--baseline", help="folder holding another build's neardup package")
    args = ap.parse_args()

    builds = {"": _package(None)}
    if args.baseline:
        builds["baseline "] = _package(os.path.abspath(args.baseline))
    _use(builds[""])
    from neardup import synth
    from neardup.index import Index

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
    single = queries[: args.single]
    k = args.top_k

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.ndx")
        t, c = time.perf_counter(), time.process_time()
        with Index(path, threshold=0.3) as ix:
            for s in range(0, len(texts), 10_000):
                ix.add(
                    [f"d{i}" for i in range(s, min(s + 10_000, len(texts)))], texts[s : s + 10_000]
                )
        ingest, ingest_cpu = time.perf_counter() - t, time.process_time() - c
        fns: dict[str, tuple[dict[str, ModuleType], Callable[[], Any]]] = {}
        opened = []
        for label, modules in builds.items():
            _use(modules)
            ix = modules["neardup.index"].Index(path)
            t, c = time.perf_counter(), time.process_time()
            ix.query(queries[:1])  # loads the in-memory mirror
            load, load_cpu = time.perf_counter() - t, time.process_time() - c
            answers = ix.query(queries, k=k)
            opened.append((label, ix, (load, load_cpu), answers))
            for name, fn in _variants(ix, queries, single, k).items():
                fns[label + name] = (modules, fn)
        best = _best(args.rounds, fns)
        for label, _ix, _, answers in opened[1:]:
            same = [list(map(tuple, a)) for a in answers] == [
                list(map(tuple, a)) for a in opened[0][3]
            ]
            print(f"{label.strip()} answers are {'identical' if same else 'DIFFERENT'}")
        found = np.mean([bool(m) for m in opened[0][3]])
        bands, rows = opened[0][1].bands, opened[0][1].rows
        load, load_cpu = opened[0][2]
        for _, ix, _, _ in opened:
            ix.close()
    print(
        f"index: {len(texts):,} documents of {mb:.1f} KB, bands x rows = {bands} x {rows}; "
        f"ingest {len(texts) / ingest:,.0f} docs/s ({len(texts) / ingest_cpu:,.0f} CPU), "
        f"mirror load {load:.2f} s ({load_cpu:.2f} s CPU); "
        f"{found:.0%} of queries match; top-k k = {k}"
    )
    head = f"  {'':<37} {'docs/s (wall)':>14} {'docs/s (CPU)':>14}"
    print(
        head
        + (f" {'CPU ratio':>10}" if args.baseline else "")
        + f"   load {os.getloadavg()[0]:.1f}"
    )
    for name, (wall, cpu) in best.items():
        n = len(single) if "single" in name else len(queries)
        line = f"  {name:<37} {n / wall:>14,.0f} {n / cpu:>14,.0f}"
        if args.baseline and not name.startswith("baseline"):
            line += f" {best['baseline ' + name][1] / cpu:>9.2f}x"
        print(line)


if __name__ == "__main__":
    main()
