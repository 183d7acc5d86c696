"""``neardup dedup``: remove exact and near-duplicate documents from files.

    neardup dedup corpus.jsonl.gz -o kept.jsonl.gz --threshold 0.3 --clusters dups.csv \\
        --report report.md
    neardup dedup corpus.parquet --annotate annotated.parquet --keep-priority quality

Argument parsing only: the options are :func:`neardup.make_plan`'s (``commands/_args.py``)
and the work is :func:`neardup.dedup.dedup_files`.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from neardup.commands._args import add_plan_args, add_text_args, guarded, plan_options
from neardup.commands._summary import dedup_summary, print_summary
from neardup.commands._summary import summary as summary_of
from neardup.errors import InvalidArgumentError
from neardup.html_report import is_html

__all__ = ["add_paragraph_args", "add_parser", "run", "run_paragraphs"]


def add_parser(subparsers: Any) -> None:
    """Register ``dedup`` on the ``neardup`` argument parser.

    >>> ap = argparse.ArgumentParser(); add_parser(ap.add_subparsers())
    """
    p = subparsers.add_parser(
        "dedup",
        help="remove exact and near-duplicate documents from JSONL/Parquet/CSV/text folders",
        description="Remove exact and near-duplicate documents. The kept documents are written "
        "in the input's format with all fields and the input order preserved; they are the "
        "documents neardup.find_duplicates(texts, ...).keep keeps with the same options.",
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
        metavar="OUTPUT",
        help="where to write the kept documents (- = stdout, JSONL only); never an input "
        "(required unless --annotate is given)",
    )
    p.add_argument(
        "--annotate",
        metavar="FILE",
        help="also write every input row with columns cluster, keep, duplicate_of, similarity, "
        "reason (.jsonl[.gz], .parquet, .csv; default: the input's format; - = stdout)",
    )
    add_text_args(p)
    add_plan_args(p)
    p.add_argument(
        "--keep-priority",
        metavar="COLUMN",
        help="keep the document with the highest number in COLUMN in each cluster "
        "(ties: first in input order); read for the members of duplicate clusters",
    )
    p.add_argument(
        "--within",
        metavar="FIELD",
        help="compare only rows with the same value in FIELD (per dump, per language): each "
        "partition's result as if run alone, one plan for all",
    )
    p.add_argument(
        "--unit-key",
        metavar="FIELD",
        help="rows with the same value in FIELD are one document (a repository's files, a "
        "conversation's turns), joined in row order; kept or removed whole",
    )
    p.add_argument(
        "--clusters",
        metavar="FILE",
        help="write one row per document in a duplicate cluster (.csv, .jsonl, .parquet)",
    )
    p.add_argument(
        "--groups",
        metavar="FILE",
        help="write the duplicate groups as JSONL, one group a line, largest first: kept id, "
        "size, lowest similarity to the kept document, member ids (from --id-field)",
    )
    p.add_argument(
        "--report",
        metavar="REPORT",
        help="write the summary and the plan as Markdown; a path ending in .html gets a "
        "self-contained page: the plan, every threshold's counts and plot, the largest "
        "groups, sample pairs around a threshold with the shared text highlighted",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print the summary and the plan as JSON on stdout (stderr when -o - or "
        "--annotate -); the schema every command shares is in docs/cli.md",
    )
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
    add_paragraph_args(p)
    # --threshold without a value: 0.3 for documents, exact (1) for paragraphs.
    p.set_defaults(run=run, threshold=None)


def add_paragraph_args(p: argparse.ArgumentParser) -> None:
    """Add ``--level`` and the options of ``--level paragraph``
    (:func:`neardup.paragraph_files.dedup_paragraph_files`).

    >>> p = argparse.ArgumentParser(); add_paragraph_args(p)
    >>> p.parse_args(["--level", "paragraph", "--split", "line"]).split
    'line'
    """
    g = p.add_argument_group("paragraph level (--level paragraph)")
    g.add_argument(
        "--level",
        choices=("document", "paragraph"),
        default="document",
        help="document (default): remove duplicate documents; paragraph: remove from each "
        "document the paragraphs that occur earlier in the corpus, write every row as JSONL",
    )
    g.add_argument(
        "--split",
        choices=("paragraph", "line"),
        default="paragraph",
        help="paragraph (default): blank lines separate units; line: each line is a unit",
    )
    g.add_argument(
        "--min-words",
        type=int,
        default=1,
        metavar="N",
        help="report documents left with fewer words (default 1: empty ones)",
    )
    g.add_argument(
        "--drop-short",
        action="store_true",
        help="leave out the documents below --min-words (default: kept, counted)",
    )
    g.add_argument(
        "--bloom-bits",
        type=int,
        default=None,
        metavar="M",
        help="keep the paragraphs seen in a Bloom filter of M bits instead of a table of "
        "128-bit keys (for paragraph sets that do not fit; the false-positive rate is reported)",
    )
    g.add_argument(
        "--bloom-hashes",
        type=int,
        default=7,
        metavar="K",
        help="probes of the Bloom filter (default 7)",
    )


def run_paragraphs(args: argparse.Namespace) -> int:
    """Run ``neardup dedup --level paragraph``; returns the exit code.

    >>> run_paragraphs(argparse.Namespace(...))                        # doctest: +SKIP
    0
    """
    from neardup.paragraph_files import dedup_paragraph_files

    def work() -> int:
        refused = {
            "--annotate": args.annotate,
            "--clusters": args.clusters,
            "--keep-priority": args.keep_priority,
            "--within": args.within,
            "--unit-key": args.unit_key,
            "--engine ray": args.engine == "ray" or None,
            "an HTML --report": is_html(args.report) or None,
        }
        given = [name for name, value in refused.items() if value is not None]
        if given:
            raise InvalidArgumentError(f"--level paragraph does not take {', '.join(given)}")
        if args.output is None:
            raise InvalidArgumentError("--level paragraph needs -o/--output OUTPUT")
        near = (
            {}
            if args.threshold is None or args.threshold == 1.0
            else {
                "num_perm": args.num_perm,
                "k": args.k,
                "seed": args.seed,
                "bands": args.bands,
                "rows": args.rows,
                "algorithm": args.algorithm,
                "bucket_limit": args.bucket_limit,
            }
        )
        summary = dedup_paragraph_files(
            args.inputs,
            args.output,
            text_field=args.text_field,
            id_field=args.id_field or "id",
            id_required=args.id_field is not None,
            report=args.report,
            batch_size=args.batch_size,
            split=args.split,
            memory="exact" if args.bloom_bits is None else "bloom",
            bloom_bits=args.bloom_bits or 2**30,
            bloom_hashes=args.bloom_hashes,
            min_words=args.min_words,
            drop_short=args.drop_short,
            hash_version=args.hash_version,
            threads=args.threads,
            threshold=1.0 if args.threshold is None else args.threshold,
            **near,
        )
        if not args.quiet:
            print(summary.text(), file=sys.stderr)
        if args.json:
            print_summary(
                summary_of(
                    "dedup",
                    params=summary.params,
                    inputs=summary.inputs,
                    outputs={"kept": summary.output, "report": summary.report},
                    counts=summary.counts(),
                    seconds=summary.seconds,
                    result={"bloom_false_positive_rate": summary.bloom_false_positive_rate},
                ),
                args.output == "-",
            )
        return 0

    return guarded("dedup", work)


def run(args: argparse.Namespace) -> int:
    """Run ``neardup dedup``; returns the exit code (0 ok, 1 bad input, 2 bad arguments).

    >>> run(argparse.Namespace(...))                                   # doctest: +SKIP
    0
    """
    from neardup._progress import progress_reporter, want_progress
    from neardup.dedup import dedup_files

    if getattr(args, "level", "document") == "paragraph":
        return run_paragraphs(args)
    if args.threshold is None:
        args.threshold = 0.3

    engine: Any = dedup_files
    if getattr(args, "engine", "local") == "ray":
        from neardup.ray._cli import dedup_files_ray

        def engine(*a: Any, **kw: Any) -> Any:
            return dedup_files_ray(*a, ray_address=args.ray_address, **kw)

    def work() -> int:
        options = plan_options(args)
        if args.output is None and args.annotate is None:
            raise InvalidArgumentError("give -o/--output OUTPUT, --annotate FILE, or both")
        if args.keep_priority is not None:
            if args.keep != "first":
                raise InvalidArgumentError("give --keep or --keep-priority, not both")
            options.update(keep="priority", priority_field=args.keep_priority)
        if args.annotate is not None:
            options["annotate"] = args.annotate
        if args.within is not None:
            options["within_field"] = args.within
        if args.unit_key is not None:
            options["unit_field"] = args.unit_key
        if getattr(args, "groups", None) is not None:
            options["groups"] = args.groups
        if getattr(args, "engine", "local") == "ray" and (
            "annotate" in options
            or "priority_field" in options
            or "groups" in options
            or is_html(args.report)
        ):
            raise InvalidArgumentError(
                "--annotate, --groups, --keep-priority and an HTML --report run on the local "
                "engine (--engine local)"
            )
        try:
            with progress_reporter(want_progress(args.quiet)) as tick:
                summary = engine(
                    args.inputs,
                    args.output,
                    text_field=args.text_field,
                    id_field=args.id_field or "id",
                    id_required=args.id_field is not None,
                    clusters=args.clusters,
                    report=args.report,
                    batch_size=args.batch_size,
                    progress=tick,
                    **options,
                )
        except KeyboardInterrupt:
            print("neardup dedup: interrupted; no output written", file=sys.stderr)
            return 130
        if not args.quiet:
            print(summary.text(), file=sys.stderr)
        if args.json:
            to_stderr = "-" in (args.output, args.annotate)
            print_summary(dedup_summary(summary), to_stderr)
        return 0

    return guarded("dedup", work)
