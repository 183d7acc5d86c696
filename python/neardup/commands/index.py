"""``neardup index add|query|remove|stats|check``: a persistent near-duplicate index in SQLite.

neardup index add corpus.ndx batch-001.jsonl --threshold 0.3 > new-matches.jsonl
neardup index add corpus.ndx batch-001.jsonl --skip-existing    # resume a killed ingest
neardup index query corpus.ndx incoming.jsonl --top-k 5
neardup index remove corpus.ndx doc-17 doc-18
neardup index stats corpus.ndx
neardup index check corpus.ndx

Output lines are JSON: ``{"id": "doc-1", "matches": [{"id": "doc-0", "similarity": 0.8}]}``.
Every id is a JSON string (the index stores ids as text), whatever the input held.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from neardup.commands._args import add_minhash_args, guarded
from neardup.commands._args import add_text_args as add_common_text_args
from neardup.commands._summary import print_summary, summary

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
    a.add_argument("index", metavar="INDEX", help="index file (created if missing)")
    a.add_argument("inputs", nargs="+", metavar="INPUT", help="JSONL/CSV/Parquet/text inputs")
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
    a.add_argument(
        "--json",
        action="store_true",
        help="print the summary as JSON on stderr (stdout holds the match lines)",
    )
    a.add_argument(
        "--skip-existing",
        action="store_true",
        help="skip ids already in the index with the same text (resume a killed ingest)",
    )

    q = acts.add_parser("query", help="print the indexed near-duplicates of documents")
    q.add_argument("index", metavar="INDEX", help="index file")
    q.add_argument("inputs", nargs="+", metavar="INPUT", help="JSONL/CSV/Parquet/text inputs")
    add_common_text_args(q)
    q.add_argument(
        "--threshold",
        type=float,
        default=None,
        metavar="T",
        help="minimum estimated similarity (default: the index's threshold; with --top-k: none)",
    )
    q.add_argument(
        "--top-k",
        type=int,
        default=None,
        metavar="K",
        help="print at most the K most similar indexed documents, best first",
    )
    q.add_argument(
        "--json",
        action="store_true",
        help="print a summary as JSON on stderr (stdout holds the match lines)",
    )

    r = acts.add_parser("remove", help="remove documents by id")
    r.add_argument("index", metavar="INDEX", help="index file")
    r.add_argument("ids", nargs="*", metavar="ID", help="ids to remove")
    r.add_argument("--ids-file", metavar="FILE", help="one id per line")

    s = acts.add_parser("stats", help="print counts and parameters")
    s.add_argument("index", metavar="INDEX", help="index file")
    s.add_argument(
        "--json",
        action="store_true",
        help="one JSON object (the summary schema every command shares) instead of a table",
    )
    c = acts.add_parser("check", help="verify the whole file (integrity, band rows, signatures)")
    c.add_argument("index", metavar="INDEX", help="the index file (SQLite)")
    p.set_defaults(run=run)


def _print_matches(ids: Sequence[Any], matches: list[list[Any]], everything: bool) -> int:
    n = 0
    out = sys.stdout
    for i, ms in zip(ids, matches, strict=True):
        if ms or everything:
            line = {
                "id": str(i),
                "matches": [{"id": m.id, "similarity": round(m.similarity, 6)} for m in ms],
            }
            out.write(json.dumps(line) + "\n")
            n += bool(ms)
    return n


def _summary(
    args: argparse.Namespace, ix: Any, counts: dict[str, int], started: float
) -> dict[str, Any]:
    """The ``--json`` summary of ``index add`` / ``index query``."""
    params = dict(ix.params)
    if args.action == "query":
        params.update(query_threshold=args.threshold, top_k=args.top_k)
    return summary(
        f"index {args.action}",
        params=params,
        inputs=[args.index, *args.inputs],
        outputs={"matches": "-"},
        counts=counts,
        seconds={"total": time.perf_counter() - started},
    )


def run(args: argparse.Namespace) -> int:
    """Run ``neardup index ACTION``; returns the exit code (0 ok, 1 bad input or a damaged
    index, 2 bad options; a closed stdout pipe is the CLI's 141), as every command does
    (:func:`neardup.commands._args.guarded`).

    >>> run(argparse.Namespace(...))                                   # doctest: +SKIP
    0
    """
    return guarded(f"index {args.action}", lambda: _act(args))


def _act(args: argparse.Namespace) -> int:
    from neardup._validate import MAX_BATCH, check_int
    from neardup.index import Index
    from neardup.io import iter_batches, open_sources

    started = time.perf_counter()
    if args.action in ("add", "query"):
        check_int("--batch-size", args.batch_size, low=1, high=MAX_BATCH)
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
            sources = open_sources(
                args.inputs, args.text_field, args.id_field or "id", id_required=True
            )
            try:
                for b in iter_batches(sources, args.batch_size):
                    ms = ix.add(b.ids, b.texts, skip_existing=args.skip_existing)
                    dup += _print_matches(b.ids, ms, args.all)
                    added += len(b)
            finally:
                for src in sources:
                    src.close()
            counts = {"documents": added, "matched": dup, "indexed": len(ix)}
            if args.json:
                print_summary(_summary(args, ix, counts, started), to_stderr=True)
            else:
                print(
                    f"read {added:,} documents ({dup:,} near-duplicate an indexed one); "
                    f"index holds {len(ix):,}",
                    file=sys.stderr,
                )
    elif args.action == "query":
        with Index(args.index, threshold=args.threshold, create=False) as ix:
            sources = open_sources(
                args.inputs, args.text_field, args.id_field or "id", args.id_field is not None
            )
            read = matched = 0
            try:
                for b in iter_batches(sources, args.batch_size):
                    matched += _print_matches(b.ids, ix.query(b.texts, k=args.top_k), True)
                    read += len(b)
            finally:
                for src in sources:
                    src.close()
            if args.json:
                counts = {"documents": read, "matched": matched, "indexed": len(ix)}
                print_summary(_summary(args, ix, counts, started), to_stderr=True)
    elif args.action == "remove":
        ids = list(args.ids)
        if args.ids_file:
            with open(args.ids_file, encoding="utf-8") as f:
                ids += [line.rstrip("\n") for line in f if line.strip()]
        with Index(args.index, create=False) as ix:
            n = ix.remove(ids)
            print(f"removed {n:,} of {len(ids):,} ids; index holds {len(ix):,}", file=sys.stderr)
    elif args.action == "stats":
        with Index(args.index, create=False) as ix:
            st = ix.stats()
            params = dict(ix.params)
        if args.json:
            names = ("documents", "empty_documents", "band_rows", "bytes")
            print_summary(
                summary(
                    "index stats",
                    params=params,
                    inputs=[args.index],
                    outputs={},
                    counts={k: st[k] for k in names},
                    result={k: v for k, v in st.items() if k not in {*names, *params, "path"}},
                )
            )
        else:
            for key, v in st.items():
                print(f"{key:>16}: {v}")
    elif args.action == "check":
        with Index(args.index, create=False) as ix:
            ix.check()
            print(f"{args.index}: ok ({len(ix):,} documents)", file=sys.stderr)
    return 0
