"""``neardup decontaminate``: remove (or mark) the corpus documents that contain a test item.

    neardup decontaminate corpus.jsonl.gz --against test.jsonl -o clean.jsonl.gz \\
        --threshold 0.8 --report matches.jsonl

Argument parsing only: the work is :func:`neardup.decontaminate.decontaminate_files`, and the
matching is :func:`neardup.find_matches`'s (exact containment on the same shingles).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from neardup.commands._args import add_text_args, guarded
from neardup.commands._summary import print_summary, summary
from neardup.plan import HASH_VERSIONS, UNITS

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Register ``decontaminate`` on the ``neardup`` argument parser.

    >>> ap = argparse.ArgumentParser(); add_parser(ap.add_subparsers())
    """
    p = subparsers.add_parser(
        "decontaminate",
        help="remove the documents that contain a test item (exact containment)",
        description="Remove (or with --annotate mark) the corpus documents that contain an "
        "item of the test set: containment |T ∩ D| / |T| of the test item's shingles at "
        "least --threshold, computed exactly. The corpus is streamed; the test set is held.",
    )
    p.add_argument(
        "inputs",
        nargs="+",
        metavar="CORPUS",
        help=".jsonl, .jsonl.gz, .parquet, .csv, a folder of .txt/.md, or - (stdin JSONL)",
    )
    p.add_argument(
        "--against",
        nargs="+",
        required=True,
        metavar="TEST",
        help="the test set(s): same formats and fields as the corpus",
    )
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUTPUT",
        help="where to write the clean documents (- = stdout, JSONL); never an input",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=0.8,
        metavar="T",
        help="least score that makes a match, in (0, 1] (default 0.8)",
    )
    p.add_argument(
        "--measure",
        choices=("containment", "jaccard"),
        default="containment",
        help="containment |T ∩ D| / |T| (default) or jaccard |T ∩ D| / |T ∪ D|",
    )
    p.add_argument(
        "--annotate",
        action="store_true",
        help="write every row with columns contaminated, matches, max_score instead of "
        "removing the contaminated ones",
    )
    p.add_argument(
        "--report",
        metavar="MATCHES.jsonl",
        help="write every match (ids, score, matched spans of both texts, settings) as JSONL",
    )
    add_text_args(p)
    p.add_argument("--k", type=int, default=5, help="shingle size (default 5)")
    p.add_argument("--unit", choices=UNITS, default="word", help="shingle unit (default word)")
    p.add_argument(
        "--hash-version",
        type=int,
        choices=HASH_VERSIONS,
        default=None,
        help="shingle definition version (default: the newest)",
    )
    p.add_argument("--threads", type=int, default=1, metavar="N", help="threads (default 1)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary on stderr")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``neardup decontaminate``; returns the exit code (0 ok, 1 bad input, 2 bad
    arguments).

    >>> run(argparse.Namespace(...))                                   # doctest: +SKIP
    0
    """
    from neardup.decontaminate import decontaminate_files

    def work() -> int:
        done = decontaminate_files(
            args.inputs,
            args.against,
            args.output,
            threshold=args.threshold,
            measure=args.measure,
            annotate=args.annotate,
            report=args.report,
            text_field=args.text_field,
            id_field=args.id_field or "id",
            id_required=args.id_field is not None,
            k=args.k,
            unit=args.unit,
            hash_version=args.hash_version,
            threads=args.threads,
            batch_size=args.batch_size,
        )
        if not args.quiet:
            print(done.text(), file=sys.stderr)
        if args.json:
            print_summary(
                summary(
                    "decontaminate",
                    params=done.params,
                    inputs=done.inputs,
                    outputs=done.outputs,
                    counts=done.counts(),
                    seconds=done.seconds,
                ),
                args.output == "-",
            )
        return 0

    return guarded("decontaminate", work)
