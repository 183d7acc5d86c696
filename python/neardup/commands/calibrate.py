"""``neardup calibrate``: measure unrelated documents' Jaccard and recommend a threshold (argument
parsing only; the work is :func:`neardup.calibrate.calibrate_files`).

neardup calibrate corpus.jsonl --sample-pairs 10000 --plot calibration.png
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from neardup.commands._args import add_text_args, guarded
from neardup.commands._summary import print_summary, summary
from neardup.plan import UNITS

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Register ``calibrate`` on the ``neardup`` argument parser.

    >>> ap = argparse.ArgumentParser(); add_parser(ap.add_subparsers())
    """
    p = subparsers.add_parser(
        "calibrate",
        help="measure the Jaccard distribution of unrelated documents and recommend a threshold",
        description="Sample pairs of presumed-unrelated documents (random pairs, or --pairs of "
        "known non-duplicates), compute their exact Jaccard, and recommend a threshold above "
        "the chosen percentile with LSH bands/rows whose S* sits just below it.",
    )
    p.add_argument(
        "inputs", nargs="+", metavar="INPUT", help="JSONL/Parquet/CSV files or text folders"
    )
    add_text_args(p)
    p.add_argument(
        "--pairs", metavar="FILE", help="known non-duplicate pairs: CSV or JSONL, two ids per row"
    )
    p.add_argument(
        "--sample-pairs",
        type=int,
        default=10_000,
        metavar="N",
        help="random pairs to measure (default 10000)",
    )
    p.add_argument(
        "--sample-docs",
        type=int,
        default=20_000,
        metavar="N",
        help="documents sampled (reservoir, seeded) before pairing (default 20000)",
    )
    p.add_argument(
        "--percentile",
        type=float,
        default=99.0,
        help="percentile the threshold must exceed (default 99)",
    )
    p.add_argument(
        "--margin",
        type=float,
        default=0.05,
        help="added to the percentile before rounding up (default 0.05)",
    )
    p.add_argument(
        "--num-perm",
        type=int,
        default=128,
        metavar="P",
        help="MinHash permutations the recommended banding is for (default 128)",
    )
    p.add_argument("--k", type=int, default=5, help="shingle size (default 5)")
    p.add_argument("--unit", choices=UNITS, default="word", help="shingle unit (default word)")
    p.add_argument("--seed", type=int, default=0, help="seed of the pair sample (default 0)")
    p.add_argument(
        "--strip-boilerplate",
        action="store_true",
        help="strip shingles in more than --max-df of the sampled documents first",
    )
    p.add_argument(
        "--max-df",
        type=float,
        default=0.1,
        metavar="SHARE",
        help="with --strip-boilerplate: drop shingles in more than this share of the "
        "documents (default 0.1)",
    )
    p.add_argument("--plot", metavar="PNG", help="save a histogram with threshold and S-curve")
    p.add_argument(
        "--json",
        action="store_true",
        help="print the result as JSON (the summary schema every command shares)",
    )
    p.set_defaults(run=run)


def _dedup_command(args: argparse.Namespace, threshold: float) -> str:
    """The ``neardup dedup`` options that reproduce what was measured (dedup picks the same
    banding by the same rule, so bands and rows are not repeated)."""
    words = ["neardup dedup ...", f"--threshold {threshold:.2f}"]
    if args.strip_boilerplate:
        words.append("--strip-boilerplate")
        if args.max_df != 0.1:
            words.append(f"--max-df {args.max_df:g}")
    if args.k != 5:
        words.append(f"--k {args.k}")
    if args.unit != "word":
        words.append(f"--unit {args.unit}")
    if args.num_perm != 128:
        words.append(f"--num-perm {args.num_perm}")
    return " ".join(words)


def _summary(args: argparse.Namespace, cal: Any, n_docs: int, seconds: float) -> dict[str, Any]:
    found = cal.as_dict()
    params = {
        "num_perm": args.num_perm,
        "k": args.k,
        "unit": args.unit,
        "seed": args.seed,
        "percentile": args.percentile,
        "margin": args.margin,
        "sample_pairs": args.sample_pairs,
        "sample_docs": args.sample_docs,
        "strip_boilerplate": args.max_df if args.strip_boilerplate else None,
        "pairs_file": args.pairs,
    }
    counts = {
        "documents": n_docs,
        "sampled_documents": found["documents"],
        "pairs": found["pairs"],
        "skipped_empty": found["skipped_empty"],
    }
    result = {k: v for k, v in found.items() if k not in counts and k not in params}
    result["dedup_command"] = _dedup_command(args, cal.threshold)
    return summary(
        "calibrate",
        params=params,
        inputs=args.inputs,
        outputs={"plot": args.plot},
        counts=counts,
        seconds={"total": seconds},
        result=result,
    )


def run(args: argparse.Namespace) -> int:
    """Run ``neardup calibrate``; returns the exit code.

    >>> run(argparse.Namespace(...))                                   # doctest: +SKIP
    0
    """
    from neardup.calibrate import calibrate_files

    def work() -> int:
        started = time.perf_counter()
        cal, n_docs = calibrate_files(
            args.inputs,
            text_field=args.text_field,
            id_field=args.id_field or "id",
            id_required=args.id_field is not None,
            pairs_file=args.pairs,
            sample_docs=args.sample_docs,
            batch_size=args.batch_size,
            sample_pairs=args.sample_pairs,
            percentile=args.percentile,
            num_perm=args.num_perm,
            k=args.k,
            unit=args.unit,
            seed=args.seed,
            margin=args.margin,
            strip_boilerplate=args.max_df if args.strip_boilerplate else None,
        )
        if args.plot:
            try:
                cal.plot(args.plot)
            except ImportError as e:
                print(f"neardup calibrate: warning: {e}; no plot written", file=sys.stderr)
        if args.json:
            print_summary(_summary(args, cal, n_docs, time.perf_counter() - started))
        else:
            print(cal.table())
            print("\n" + _dedup_command(args, cal.threshold))
        for w in cal.warnings:
            print(f"neardup calibrate: warning: {w}", file=sys.stderr)
        return 0

    return guarded("calibrate", work)
