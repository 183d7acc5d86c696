"""``neardup dedup``: remove exact and near-duplicate documents from files.

    neardup dedup corpus.jsonl.gz -o kept.jsonl.gz --threshold 0.3 --clusters dups.csv \\
        --report report.md
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

__all__ = ["add_common_text_args", "add_minhash_args", "add_parser", "run"]


def add_common_text_args(p: argparse.ArgumentParser) -> None:
    """Add ``--text-field`` and ``--id-field`` to a subcommand parser.

    >>> p = argparse.ArgumentParser(); add_common_text_args(p)
    >>> p.parse_args(["--text-field", "body"]).text_field
    'body'
    """
    p.add_argument(
        "--text-field",
        default="text",
        metavar="NAME",
        help="field/column holding the text (default: text)",
    )
    p.add_argument(
        "--id-field",
        default=None,
        metavar="NAME",
        help="field/column holding the document id (default: 'id' if present, "
        "else the row position; file path for folders)",
    )
    p.add_argument(
        "--batch-size",
        type=int,
        default=8192,
        metavar="N",
        help="documents per batch (memory/speed; never changes the result)",
    )


def add_minhash_args(p: argparse.ArgumentParser, defaults: bool = True) -> None:
    """Add ``--num-perm --k --seed --bands --rows`` (defaults None when ``defaults`` is False).

    >>> p = argparse.ArgumentParser(); add_minhash_args(p)
    >>> p.parse_args([]).num_perm
    128
    """
    p.add_argument(
        "--num-perm",
        type=int,
        default=128 if defaults else None,
        metavar="P",
        help="MinHash permutations (default 128)",
    )
    p.add_argument(
        "--k", type=int, default=5 if defaults else None, help="shingle size in words (default 5)"
    )
    p.add_argument(
        "--seed", type=int, default=0 if defaults else None, help="hash seed (default 0)"
    )
    p.add_argument(
        "--bands",
        type=int,
        default=None,
        metavar="B",
        help="LSH bands (default: derived from the threshold)",
    )
    p.add_argument("--rows", type=int, default=None, metavar="R", help="LSH rows per band")


def add_parser(subparsers: Any) -> None:
    """Register ``dedup`` on the ``neardup`` argument parser.

    >>> ap = argparse.ArgumentParser(); add_parser(ap.add_subparsers())
    """
    p = subparsers.add_parser(
        "dedup",
        help="remove exact and near-duplicate documents from JSONL/Parquet/CSV/text folders",
        description="Remove exact and near-duplicate documents. The kept documents are written "
        "in the input's format with all fields and the input order preserved.",
    )
    p.add_argument(
        "inputs",
        nargs="+",
        metavar="INPUT",
        help=".jsonl, .jsonl.gz, .parquet, .csv, a folder of .txt/.md, or - (stdin JSONL)",
    )
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUTPUT",
        help="where to write the kept documents (- = stdout, JSONL only)",
    )
    add_common_text_args(p)
    p.add_argument(
        "--threshold",
        type=float,
        default=0.3,
        metavar="T",
        help="Jaccard similarity at or above which two documents are duplicates "
        "(default 0.3; measure yours with `neardup calibrate`)",
    )
    p.add_argument(
        "--method",
        choices=("auto", "minhash", "simhash", "exact-jaccard"),
        default="auto",
        help="auto = exact Jaccard of all pairs up to 5,000 unique documents, MinHash + LSH above",
    )
    add_minhash_args(p)
    p.add_argument("--simhash-bits", type=int, choices=(64, 128), default=64)
    p.add_argument(
        "--max-hamming",
        type=int,
        default=None,
        metavar="D",
        help="SimHash radius (default: the one matching --threshold)",
    )
    p.add_argument(
        "--pairs",
        choices=("auto", "all", "spanning"),
        default="auto",
        help="MinHash: verify all LSH candidates, or only the edges that join clusters "
        "(spanning: m near-identical documents cost m-1 checks); auto picks spanning when the "
        "buckets would hold more than 20 million candidate pairs",
    )
    p.add_argument(
        "--verify",
        choices=("exact", "estimate"),
        default="exact",
        help="check LSH candidates with exact Jaccard (default) or the MinHash estimate",
    )
    p.add_argument(
        "--keep",
        choices=("first", "longest"),
        default="first",
        help="which document of a cluster is kept (default: first in input order)",
    )
    p.add_argument(
        "--strip-boilerplate",
        action="store_true",
        help="drop shingles present in more than --max-df of the documents first",
    )
    p.add_argument(
        "--max-df",
        type=float,
        default=0.1,
        metavar="SHARE",
        help="document-frequency share for --strip-boilerplate (default 0.1)",
    )
    p.add_argument(
        "--clusters",
        metavar="FILE",
        help="write one row per document in a duplicate cluster (.csv, .jsonl, .parquet)",
    )
    p.add_argument("--report", metavar="REPORT.md", help="write the summary as Markdown")
    p.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    p.add_argument(
        "-q", "--quiet", action="store_true", help="no progress and no summary on stderr"
    )
    p.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local (this process, default) or ray (Ray Data tasks; needs neardup[ray])",
    )
    p.add_argument(
        "--ray-address",
        metavar="ADDR",
        default=None,
        help="Ray cluster to join with --engine ray (default: start a local Ray)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``neardup dedup``; returns the exit code (0 ok, 1 bad input).

    >>> run(argparse.Namespace(...))                                   # doctest: +SKIP
    0
    """
    from neardup._progress import progress_reporter, want_progress
    from neardup.dedup import dedup_files
    from neardup.io import InputError

    engine = dedup_files
    if getattr(args, "engine", "local") == "ray":
        from neardup.ray._cli import dedup_files_ray

        def engine(*a: Any, **kw: Any) -> Any:
            return dedup_files_ray(*a, ray_address=args.ray_address, **kw)

    try:
        with progress_reporter(want_progress(args.quiet)) as tick:
            summary = engine(
                args.inputs,
                args.output,
                text_field=args.text_field,
                id_field=args.id_field or "id",
                id_required=args.id_field is not None,
                threshold=args.threshold,
                method=args.method,
                num_perm=args.num_perm,
                k=args.k,
                bands=args.bands,
                rows=args.rows,
                seed=args.seed,
                verify=args.verify,
                keep=args.keep,
                strip_boilerplate=args.max_df if args.strip_boilerplate else None,
                clusters=args.clusters,
                report=args.report,
                batch_size=args.batch_size,
                progress=tick,
                simhash_bits=args.simhash_bits,
                max_hamming=args.max_hamming,
                pairs=args.pairs,
            )
    except (InputError, ValueError, TypeError, OSError, ImportError) as e:
        print(f"neardup dedup: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("neardup dedup: interrupted; no output written", file=sys.stderr)
        return 130
    if not args.quiet:
        print(summary.text(), file=sys.stderr)
    if args.json:
        out = sys.stderr if args.output == "-" else sys.stdout
        print(json.dumps(summary.as_dict()), file=out)
    return 0
