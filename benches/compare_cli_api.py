"""Side-by-side timing of ``find_duplicates`` (in memory) and ``dedup_files`` (streamed) on one
synthetic corpus written as JSONL; runs interleaved A/B so the ratio is fair on a busy machine.

    python benches/compare_cli_api.py --docs 100000 --repeat 2

Prints, per run, the seconds and the documents removed of each executor.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import neardup
from neardup.dedup import dedup_files


def corpus(n_docs: int) -> list[str]:
    """About ``n_docs`` synthetic documents (8 edited variants per original plus singles)."""
    bases = max(1, (n_docs * 11 // 100))
    texts = neardup.synth.generate(bases=bases, singles=max(0, n_docs - 8 * bases)).texts
    return list(texts)[:n_docs]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--threshold", type=float, default=0.5)
    args = ap.parse_args()
    texts = corpus(args.docs)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "c.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            for i, t in enumerate(texts):
                f.write(json.dumps({"id": i, "text": t}) + "\n")
        for run in range(args.repeat):
            t0 = time.perf_counter()
            r = neardup.find_duplicates(texts, threshold=args.threshold)
            t_api = time.perf_counter() - t0
            t0 = time.perf_counter()
            s = dedup_files([path], os.path.join(tmp, "kept.jsonl"), threshold=args.threshold)
            t_cli = time.perf_counter() - t0
            print(
                f"run {run}: n={len(texts)} find_duplicates {t_api:.2f}s removed {r.num_removed}"
                f" | dedup_files {t_cli:.2f}s removed {s.removed} | ratio cli/api "
                f"{t_cli / t_api:.2f}"
            )


if __name__ == "__main__":
    main()
