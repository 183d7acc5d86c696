"""Benchmark (not a test): one giant cluster of identical documents, default arguments.

    python benches/giant_cluster.py --docs 1000000 --words 300

Issue 9 item 10: the default ``find_duplicates`` must stay linear in time and bounded in
memory (O(n + pairs reported)) however big one cluster is; ``pairs="auto"`` answers with
spanning pairs once all pairs would exceed ``spanning_limit``. Prints the seconds, the peak
resident memory of the process and what the run decided.
"""

from __future__ import annotations

import argparse
import resource
import time

import neardup


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--docs", type=int, default=1_000_000)
    ap.add_argument("--words", type=int, default=300)
    args = ap.parse_args()
    text = " ".join(f"word{i % 997}x{i}" for i in range(args.words))
    texts = [text] * args.docs
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    result = neardup.find_duplicates(texts)
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    p = result.params
    print(
        f"{args.docs:,} identical {args.words}-word documents: {seconds:.2f} s, peak RSS "
        f"{peak / 1024:.0f} MiB (input list and text {before / 1024:.0f} MiB); "
        f"method {result.method}, pairs_used {p['pairs_used']}, pairs {len(result.pairs):,}, "
        f"kept {int(result.keep.sum())}"
    )


if __name__ == "__main__":
    main()
