"""Side-by-side timing of ``find_duplicates`` (in memory) and ``dedup_files`` (streamed) on one
synthetic corpus written as JSONL and as Parquet; runs interleaved A/B so the ratio is fair on
a busy machine.

    python benches/compare_cli_api.py --docs 100000 --repeat 2

Per run and executor: wall seconds, CPU seconds of this process (``time.process_time``: what
other tenants of the machine disturb least) and documents removed; then each file path's
ratio to ``find_duplicates`` on the list (the library), by CPU and by wall time. ``script`` is
what a user would write instead of the command line: ``json.loads`` per line,
``find_duplicates``, write the kept lines.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable

import neardup
from neardup.dedup import dedup_files


def corpus(n_docs: int) -> list[str]:
    """About ``n_docs`` synthetic documents (8 edited variants per original plus singles)."""
    bases = max(1, (n_docs * 11 // 100))
    texts = neardup.synth.generate(bases=bases, singles=max(0, n_docs - 8 * bases)).texts
    return list(texts)[:n_docs]


def _script(path: str, out: str, threshold: float) -> int:
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    texts = [json.loads(line)["text"] for line in lines]
    r = neardup.find_duplicates(texts, threshold=threshold)
    with open(out, "w", encoding="utf-8") as f:
        f.writelines(line for line, k in zip(lines, r.keep, strict=True) if k)
    return int(r.num_removed)


def _timed(fn: Callable[[], int]) -> tuple[float, float, int]:
    w0, c0 = time.perf_counter(), time.process_time()
    removed = fn()
    return time.perf_counter() - w0, time.process_time() - c0, removed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--threshold", type=float, default=0.5)
    ap.add_argument("--no-parquet", action="store_true", help="JSONL only (no pyarrow)")
    args = ap.parse_args()
    texts = corpus(args.docs)
    thr = args.threshold
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "c.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for i, t in enumerate(texts):
                f.write(json.dumps({"id": i, "text": t}) + "\n")
        runs: dict[str, Callable[[], int]] = {
            "find_duplicates": lambda: int(
                neardup.find_duplicates(texts, threshold=thr).num_removed
            ),
            "dedup jsonl": lambda: (
                dedup_files([path], os.path.join(tmp, "k.jsonl"), threshold=thr).removed
            ),
            "script jsonl": lambda: _script(path, os.path.join(tmp, "s.jsonl"), thr),
        }
        if not args.no_parquet:
            from cli_corpus import write_parquet

            pq_path = os.path.join(tmp, "c.parquet")
            write_parquet(pq_path, texts)
            runs["dedup parquet"] = lambda: (
                dedup_files([pq_path], os.path.join(tmp, "k.parquet"), threshold=thr).removed
            )
        mb = os.path.getsize(path) / 1e6
        print(f"n={len(texts)}, {mb:.1f} MB of JSONL, threshold {thr}")
        seen: dict[str, list[tuple[float, float]]] = {k: [] for k in runs}
        for run in range(args.repeat):
            for name, fn in runs.items():  # interleaved: every executor once per round
                wall, cpu, removed = _timed(fn)
                seen[name].append((wall, cpu))
                print(
                    f"run {run}: {name:<16} wall {wall:6.2f}s  cpu {cpu:6.2f}s  removed {removed}"
                )
        base_wall = statistics.median(w for w, _ in seen["find_duplicates"])
        base_cpu = statistics.median(c for _, c in seen["find_duplicates"])
        print("\n| path | median wall s | median CPU s | CPU ratio | wall ratio |")
        print("|---|---|---|---|---|")
        for name, values in seen.items():
            wall = statistics.median(w for w, _ in values)
            cpu = statistics.median(c for _, c in values)
            ratios = f"{cpu / base_cpu:.2f} | {wall / base_wall:.2f}"
            print(f"| {name} | {wall:.2f} | {cpu:.2f} | {ratios} |")


if __name__ == "__main__":
    main()
