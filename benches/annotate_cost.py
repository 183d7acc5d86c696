"""What ``--annotate``, ``--keep-priority`` and ``--report`` (Markdown, HTML) add to a
``neardup dedup`` run, in CPU seconds measured interleaved in one process (A/B), so the
ratios hold on a busy machine.

    python benches/annotate_cost.py --docs 20000 --repeat 3

Prints the median CPU seconds of each variant and its ratio to the plain run (kept rows only).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

from neardup.cli import main as cli
from neardup.dedup import dedup_files


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--docs", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="neardup-annotate-") as tmp:
        src = os.path.join(tmp, "corpus.jsonl")
        assert cli(["synth", "-o", src, "--docs", str(args.docs), "--seed", "2"]) == 0
        variants = {
            "kept rows only": {},
            "+ --annotate .jsonl": {"annotate": os.path.join(tmp, "all.jsonl")},
            "+ --annotate .parquet": {"annotate": os.path.join(tmp, "all.parquet")},
            "+ --keep-priority group": {"priority_field": "group"},
            "+ --report .md": {"report": os.path.join(tmp, "report.md")},
            "+ --report .html": {"report": os.path.join(tmp, "report.html")},
        }
        seconds: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(args.repeat):
            for name, extra in variants.items():
                t0 = time.process_time()
                kept = os.path.join(tmp, "kept.jsonl")
                dedup_files([src], kept, method="minhash", threshold=0.5, **extra)
                seconds[name].append(time.process_time() - t0)
        base = statistics.median(seconds["kept rows only"])
        for name, values in seconds.items():
            median = statistics.median(values)
            print(f"{name:26s} {median:6.2f} CPU s   x{median / base:.2f}")


if __name__ == "__main__":
    main()
