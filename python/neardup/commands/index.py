"""``neardup index add|query|remove|stats``: a persistent near-duplicate index in SQLite.

neardup index add corpus.ndx batch-001.jsonl --threshold 0.3 > new-matches.jsonl
neardup index query corpus.ndx incoming.jsonl
neardup index remove corpus.ndx doc-17 doc-18
neardup index stats corpus.ndx
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from neardup.commands._args import add_minhash_args
from neardup.commands._args import add_text_args as add_common_text_args

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Register ``index`` and its actions on the ``neardup`` argument parser.

    >>> ap = argparse.ArgumentParser(); add_parser(ap.add_subparsers())
    """
    p = subparsers.add_parser(
        "index",
        help="persistent, incremental near-duplicate index (SQLite): add, query, remove, stats",
    )
    acts = p.add_subparsers(dest="action", required=True, metavar="ACTION")

    a = acts.add_parser("add", help="add documents; print the existing ones each duplicates")
    a.add_argument("index", metavar="INDEX")
    a.add_argument("inputs", nargs="+", metavar="INPUT")
    add_common_text_args(a)
    a.add_argument(
        "--threshold",
        type=float,
        default=None,
        metavar="T",
        help="(new index) default 0.3; (existing) verification threshold",
    )
    add_minhash_args(a, defaults=False)
    a.add_argument(
        "--all",
        action="store_true",
        help="print a line for every document, not only those with matches",
    )

    q = acts.add_parser("query", help="print the indexed near-duplicates of documents")
    q.add_argument("index", metavar="INDEX")
    q.add_argument("inputs", nargs="+", metavar="INPUT")
    add_common_text_args(q)
    q.add_argument("--threshold", type=float, default=None, metavar="T")

    r = acts.add_parser("remove", help="remove documents by id")
    r.add_argument("index", metavar="INDEX")
    r.add_argument("ids", nargs="*", metavar="ID")
    r.add_argument("--ids-file", metavar="FILE", help="one id per line")

    s = acts.add_parser("stats", help="print counts and parameters")
    s.add_argument("index", metavar="INDEX")
    s.add_argument("--json", action="store_true")
    p.set_defaults(run=run)


def _print_matches(ids: list[Any], matches: list[list[Any]], everything: bool) -> int:
    n = 0
    out = sys.stdout
    for i, ms in zip(ids, matches, strict=True):
        if ms or everything:
            out.write(
                json.dumps(
                    {
                        "id": i,
                        "matches": [{"id": m.id, "similarity": round(m.similarity, 6)} for m in ms],
                    }
                )
                + "\n"
            )
            n += bool(ms)
    return n


def run(args: argparse.Namespace) -> int:
    """Run ``neardup index ACTION``; returns the exit code.

    >>> run(argparse.Namespace(...))                                   # doctest: +SKIP
    0
    """
    import os

    from neardup.index import Index, IndexMismatchError
    from neardup.io import InputError, open_sources

    try:
        if args.action == "add":
            with Index(
                args.index,
                threshold=args.threshold,
                num_perm=args.num_perm,
                k=args.k,
                seed=args.seed,
                bands=args.bands,
                rows=args.rows,
            ) as ix:
                added = dup = 0
                pos = 0
                for src in open_sources(
                    args.inputs, args.text_field, args.id_field or "id", id_required=True
                ):
                    with src:
                        for b in src.batches(args.batch_size, start=pos):
                            ms = ix.add(b.ids, b.texts)
                            dup += _print_matches(b.ids, ms, args.all)
                            added += len(b)
                        pos += src.n_rows or 0
                print(
                    f"added {added:,} documents ({dup:,} near-duplicate an indexed one); "
                    f"index holds {len(ix):,}",
                    file=sys.stderr,
                )
        elif args.action == "query":
            if not os.path.exists(args.index):
                raise InputError(f"{args.index}: no such index")
            with Index(args.index, threshold=args.threshold, create=False) as ix:
                pos = 0
                for src in open_sources(
                    args.inputs, args.text_field, args.id_field or "id", args.id_field is not None
                ):
                    with src:
                        for b in src.batches(args.batch_size, start=pos):
                            _print_matches(b.ids, ix.query(b.texts), True)
                        pos += src.n_rows or 0
        elif args.action == "remove":
            if not os.path.exists(args.index):
                raise InputError(f"{args.index}: no such index")
            ids = list(args.ids)
            if args.ids_file:
                with open(args.ids_file, encoding="utf-8") as f:
                    ids += [line.rstrip("\n") for line in f if line.strip()]
            with Index(args.index, create=False) as ix:
                n = ix.remove(ids)
                print(
                    f"removed {n:,} of {len(ids):,} ids; index holds {len(ix):,}", file=sys.stderr
                )
        elif args.action == "stats":
            if not os.path.exists(args.index):
                raise InputError(f"{args.index}: no such index")
            with Index(args.index, create=False) as ix:
                st = ix.stats()
            if args.json:
                print(json.dumps(st))
            else:
                for key, v in st.items():
                    print(f"{key:>16}: {v}")
    except BrokenPipeError:  # e.g. `| head`
        sys.stdout = open(os.devnull, "w")
        return 0
    except (InputError, IndexMismatchError, ValueError, TypeError, OSError) as e:
        print(f"neardup index {args.action}: error: {e}", file=sys.stderr)
        return 1
    return 0
