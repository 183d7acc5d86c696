"""Exact verification against the estimate, and one thread against two, on one corpus in one
process, runs interleaved so the ratios are fair on a busy machine (CPU seconds beside wall):

    python benches/exact_vs_estimate.py --docs 100000 --repeat 3

Prints, per configuration, the median wall and CPU seconds of ``find_duplicates`` and the
documents removed, then exact / estimate and threads=1 / threads=2 ratios.
"""

from __future__ import annotations

import argparse
import statistics
import time

from compare_cli_api import corpus

import neardup

CONFIGS = {
    "exact": {"verify": "exact"},
    "estimate": {"verify": "estimate"},
    "exact threads=2": {"verify": "exact", "threads": 2},
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threshold", type=float, default=0.5)
    args = ap.parse_args()
    texts = corpus(args.docs)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in CONFIGS}
    removed = {}
    for _ in range(args.repeat):
        for name, options in CONFIGS.items():
            wall, cpu = time.perf_counter(), time.process_time()
            result = neardup.find_duplicates(texts, threshold=args.threshold, **options)
            times[name].append((time.perf_counter() - wall, time.process_time() - cpu))
            removed[name] = result.num_removed
    median = {n: [statistics.median(t[i] for t in ts) for i in (0, 1)] for n, ts in times.items()}
    for name, (wall, cpu) in median.items():
        print(f"{name:16} wall {wall:6.2f} s  cpu {cpu:6.2f} s  removed {removed[name]}")
    exact, estimate, two = median["exact"], median["estimate"], median["exact threads=2"]
    wall_ratio, cpu_ratio = exact[0] / estimate[0], exact[1] / estimate[1]
    print(f"exact / estimate: wall {wall_ratio:.2f}x, cpu {cpu_ratio:.2f}x")
    print(f"threads=1 / threads=2 (exact), wall: {exact[0] / two[0]:.2f}x")


if __name__ == "__main__":
    main()
