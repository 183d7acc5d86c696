"""Argument helpers shared by the subcommands: input fields, the plan's options, errors.

Every option of :func:`neardup.make_plan` has one flag here (``--threshold`` for
``threshold=``, ``--num-perm`` for ``num_perm=``, ...), and :func:`plan_options` turns the
parsed flags back into ``make_plan`` keywords, so the command line and the API take the same
options with the same defaults and the same checks (the plan's, not argparse's).

>>> p = argparse.ArgumentParser(); add_plan_args(p)
>>> plan_options(p.parse_args(["--threshold", "0.5", "--unit", "char"]))["unit"]
'char'
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from neardup.errors import ArgumentTypeError, InvalidArgumentError, NeardupError
from neardup.plan import (
    ALGORITHMS,
    AUTO_EXACT_LIMIT,
    BUCKET_LIMIT,
    HASH_VERSIONS,
    KEEP,
    METHODS,
    PAIRS,
    SPANNING_LIMIT,
    UNITS,
    VERIFY,
)

#: Exit codes: 0 done, 1 bad input data or I/O, 2 bad arguments (argparse's own code).
EXIT_INPUT, EXIT_USAGE = 1, 2


def add_text_args(p: argparse.ArgumentParser) -> None:
    """Add ``--text-field``, ``--id-field`` and ``--batch-size`` to a subcommand parser.

    >>> p = argparse.ArgumentParser(); add_text_args(p)
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
        help="documents per batch, at least 1 (memory/speed; never changes the result)",
    )


def add_minhash_args(p: argparse.ArgumentParser, defaults: bool = True) -> None:
    """Add ``--num-perm --k --seed --bands --rows`` (defaults None when ``defaults`` is False:
    an existing index keeps its own).

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
        "--k", type=int, default=5 if defaults else None, help="shingle size (default 5)"
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


def add_shingle_args(p: argparse.ArgumentParser) -> None:
    """:func:`add_minhash_args` plus ``--unit --algorithm --hash-version``.

    >>> p = argparse.ArgumentParser(); add_shingle_args(p)
    >>> p.parse_args([]).algorithm
    'classic'
    """
    add_minhash_args(p)
    p.add_argument("--unit", choices=UNITS, default="word", help="shingle unit (default word)")
    p.add_argument(
        "--algorithm",
        choices=ALGORITHMS,
        default="classic",
        help="MinHash: classic (P hashes per shingle) or oph (one-permutation hashing)",
    )
    p.add_argument(
        "--hash-version",
        type=int,
        choices=HASH_VERSIONS,
        default=None,
        help="hash version of shingles and signatures (default: the newest)",
    )


def add_plan_args(p: argparse.ArgumentParser) -> None:
    """Add a flag for every option of :func:`neardup.make_plan`.

    >>> p = argparse.ArgumentParser(); add_plan_args(p)
    >>> p.parse_args([]).pairs
    'auto'
    """
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
        choices=METHODS,
        default="auto",
        help="auto = exact Jaccard of all pairs up to --auto-exact-limit unique documents, "
        "MinHash + LSH above",
    )
    add_shingle_args(p)
    p.add_argument(
        "--simhash-bits",
        type=int,
        choices=(64, 128),
        default=64,
        help="SimHash fingerprint width (default 64)",
    )
    p.add_argument(
        "--max-hamming",
        type=int,
        default=None,
        metavar="D",
        help="SimHash radius (default: the one matching --threshold)",
    )
    p.add_argument(
        "--pairs",
        choices=PAIRS,
        default="auto",
        help="all pairs, or only those that join clusters (spanning: m near-identical "
        "documents cost m-1 checks); auto picks spanning past --spanning-limit pairs",
    )
    p.add_argument(
        "--verify",
        choices=VERIFY,
        default="exact",
        help="check candidates with exact Jaccard (default) or the signatures' estimate",
    )
    p.add_argument(
        "--keep",
        choices=[k for k in KEEP if k != "priority"],
        default="first",
        help="which document of a cluster is kept (default: first in input order; "
        "longest = most characters); see also --keep-priority",
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
    p.add_argument("--threads", type=int, default=1, metavar="N", help="threads (default 1)")
    p.add_argument(
        "--auto-exact-limit",
        type=int,
        default=AUTO_EXACT_LIMIT,
        metavar="N",
        help=f"most unique documents --method auto brute-forces (default {AUTO_EXACT_LIMIT:,})",
    )
    p.add_argument(
        "--spanning-limit",
        type=int,
        default=SPANNING_LIMIT,
        metavar="N",
        help=f"--pairs auto switches to spanning past this many pairs (default {SPANNING_LIMIT:,})",
    )
    p.add_argument(
        "--bucket-limit",
        type=_bucket_limit,
        default=BUCKET_LIMIT,
        metavar="N|none",
        help="MinHash: LSH buckets of more documents are split by more slots unless mostly "
        f"duplicates, so shared boilerplate stays linear (default {BUCKET_LIMIT}; none: never)",
    )


def plan_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``make_plan`` keywords of parsed :func:`add_plan_args` flags.

    >>> p = argparse.ArgumentParser(); add_plan_args(p)
    >>> plan_options(p.parse_args(["--strip-boilerplate"]))["strip_boilerplate"]
    0.1
    """
    return {
        "threshold": args.threshold,
        "method": args.method,
        "num_perm": args.num_perm,
        "k": args.k,
        "unit": args.unit,
        "bands": args.bands,
        "rows": args.rows,
        "seed": args.seed,
        "verify": args.verify,
        "pairs": args.pairs,
        "strip_boilerplate": args.max_df if args.strip_boilerplate else None,
        "simhash_bits": args.simhash_bits,
        "max_hamming": args.max_hamming,
        "threads": args.threads,
        "algorithm": args.algorithm,
        "keep": args.keep,
        "hash_version": args.hash_version,
        "auto_exact_limit": args.auto_exact_limit,
        "spanning_limit": args.spanning_limit,
        "bucket_limit": args.bucket_limit,
    }


def _bucket_limit(value: str) -> int | None:
    """``--bucket-limit``: a whole number, or ``none`` (every bucket whole).

    >>> _bucket_limit("none"), _bucket_limit("64")
    (None, 64)
    """
    if value.strip().lower() == "none":
        return None
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number or none, got {value!r}"
        ) from None


def guarded(command: str, work: Callable[[], int]) -> int:
    """Run ``work()``; a neardup, I/O or value error becomes one line on stderr and exit code
    2 (bad arguments) or 1 (bad input, a damaged index, too little memory). A closed stdout
    pipe propagates to :func:`neardup.cli.main` (exit 141).

    >>> guarded("demo", lambda: 0)
    0
    """
    try:
        return work()
    except (InvalidArgumentError, ArgumentTypeError) as e:
        print(f"neardup {command}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # the reader of stdout left: the CLI's own handler (exit 141)
        raise
    except (ValueError, TypeError, OSError, NeardupError) as e:
        print(f"neardup {command}: error: {e}", file=sys.stderr)
        return EXIT_INPUT
