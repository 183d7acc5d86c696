"""``neardup synth``: write the labelled synthetic corpus to a file, to try every command on."""

from __future__ import annotations

import argparse
import sys

import numpy as np


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Registers ``neardup synth``."""
    parser = subparsers.add_parser(
        "synth",
        help="write the labelled synthetic corpus (JSONL, CSV or Parquet) to try neardup on",
        description="Writes the reference article's synthetic corpus: originals, seven "
        "controlled edits of each (the duplicates) and unrelated documents, one row per "
        "document with its id, text, group (equal groups = labelled duplicates) and edit. "
        "The format follows the output's extension (.jsonl, .jsonl.gz, .csv, .parquet).",
    )
    parser.add_argument("-o", "--output", required=True, help="file to write")
    parser.add_argument(
        "--docs", type=int, default=3_100, help="number of documents (default 3100)"
    )
    parser.add_argument(
        "--boilerplate",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of every document taken by one shared boilerplate block, in [0, 1) "
        "(default 0: none)",
    )
    parser.add_argument("--seed", type=int, default=20260831, help="corpus seed (default 20260831)")
    parser.add_argument(
        "--holdout",
        metavar="FILE",
        help="also write a random share of the documents (--holdout-share) to FILE instead "
        "of OUTPUT: documents arriving later, to query an index built from OUTPUT",
    )
    parser.add_argument(
        "--holdout-share",
        type=float,
        default=0.1,
        metavar="SHARE",
        help="share of the documents moved to --holdout (default 0.1)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Writes the corpus; returns the exit code."""
    from neardup import io as ndio
    from neardup import synth
    from neardup._validate import check_fraction
    from neardup.errors import InvalidArgumentError

    if args.docs < 10:
        raise InvalidArgumentError(f"--docs must be at least 10, got {args.docs}")
    if args.docs > synth.MAX_DOCS:
        raise InvalidArgumentError(f"--docs must be at most {synth.MAX_DOCS:,}, got {args.docs}")
    if not 0.0 <= args.boilerplate < 1.0:
        raise InvalidArgumentError(f"--boilerplate must be in [0, 1), got {args.boilerplate}")
    share = check_fraction("--holdout-share", args.holdout_share)
    bases, singles = synth.preset(args.docs)
    corpus = synth.generate(
        bases=bases, singles=singles, seed=args.seed, boilerplate_share=args.boilerplate
    )
    rows = [
        {"id": f"doc-{i}", "text": text, "group": int(group), "edit": str(edit)}
        for i, (text, group, edit) in enumerate(
            zip(corpus.texts, corpus.group.tolist(), corpus.edit.tolist(), strict=True)
        )
    ]
    held = np.zeros(len(rows), dtype=bool)
    if args.holdout:
        rng = np.random.default_rng(args.seed + 1)
        held[rng.choice(len(rows), size=round(share * len(rows)), replace=False)] = True
        ndio.write_table([r for r, h in zip(rows, held, strict=True) if h], args.holdout)
    ndio.write_table([r for r, h in zip(rows, held, strict=True) if not h], args.output)
    pairs = len(corpus.duplicate_pairs())
    print(
        f"wrote {int((~held).sum()):,} documents to {args.output}"
        + (f" and {int(held.sum()):,} to {args.holdout}" if args.holdout else "")
        + f" ({bases:,} originals x 8 versions + {singles:,} unrelated; {pairs:,} labelled "
        "duplicate pairs; equal 'group' = duplicates)",
        file=sys.stderr,
    )
    return 0
