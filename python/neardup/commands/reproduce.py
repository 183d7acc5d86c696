"""``neardup reproduce``: regenerate the reference article's corpus and every one of its tables."""

from __future__ import annotations

import argparse
import sys

from neardup import reproduce


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Registers ``neardup reproduce``.

    >>> from neardup.cli import build_parser
    >>> args = build_parser().parse_args(["reproduce", "--quick", "--out", "x"])
    >>> args.quick, args.out, args.docs
    (True, 'x', None)
    """
    parser = subparsers.add_parser(
        "reproduce",
        help="reproduce every table of the reference article (writes DIR/REPORT.md)",
        description="Generates the article's synthetic corpus with its seven controlled edits, "
        "runs every experiment (exact hashing, exact Jaccard, MinHash, SimHash, LSH banding, "
        "costs, boilerplate and threshold calibration) single-threaded, and writes REPORT.md "
        "with the article's figure beside ours, results.json and, if matplotlib is installed, "
        "PNG plots.",
    )
    parser.add_argument(
        "--docs",
        type=int,
        default=None,
        help="documents of the at-scale LSH run (default 100000; 10000 with --quick)",
    )
    parser.add_argument("--out", default="reproduce-out", help="output directory")
    parser.add_argument(
        "--quick", action="store_true", help="reduced run (about a minute on two cores)"
    )
    parser.add_argument("--seed", type=int, default=20260831, help="corpus seed")
    parser.add_argument("--no-plots", action="store_true", help="do not write PNG plots")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Runs the reproduction; returns the exit code."""
    if args.docs is not None and args.docs < 100:
        print("neardup reproduce: --docs must be at least 100", file=sys.stderr)
        return 2
    if args.quick:
        config = reproduce.ReproConfig.quick(args.docs or 10_000)
    else:
        config = reproduce.ReproConfig(docs=args.docs or 100_000)
    config.seed = args.seed
    config.plots = not args.no_plots
    reproduce.run(args.out, config)
    return 0
