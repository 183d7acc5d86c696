"""``neardup calibrate``: measure unrelated documents' Jaccard and recommend a threshold.

neardup calibrate corpus.jsonl --sample-pairs 10000 --plot calibration.png
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from typing import Any

import numpy as np

from neardup.commands._args import add_text_args as add_common_text_args

__all__ = ["add_parser", "read_pairs", "run", "sample_documents"]


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
    p.add_argument("inputs", nargs="+", metavar="INPUT")
    add_common_text_args(p)
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
    p.add_argument("--num-perm", type=int, default=128, metavar="P")
    p.add_argument("--k", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--strip-boilerplate",
        action="store_true",
        help="strip shingles in more than --max-df of the sampled documents first",
    )
    p.add_argument("--max-df", type=float, default=0.1, metavar="SHARE")
    p.add_argument("--plot", metavar="PNG", help="save a histogram with threshold and S-curve")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(run=run)


def sample_documents(
    sources: list[Any], max_docs: int, seed: int, batch_size: int
) -> tuple[list[Any], list[str], int]:
    """Reservoir-sample up to ``max_docs`` (ids, texts) from the sources; returns (ids, texts, n).

    The sample keeps input order and depends only on ``seed``, not on ``batch_size``.

    >>> ids, texts, n = sample_documents(srcs, 1000, seed=0, batch_size=8192)  # doctest: +SKIP
    """
    rng = np.random.default_rng(seed)
    res_pos: list[int] = []
    res_id: list[Any] = []
    res_txt: list[str] = []
    n = 0
    for s in sources:
        for b in s.batches(batch_size, start=n):
            texts = b.texts.to_pylist() if hasattr(b.texts, "to_pylist") else b.texts
            draws = rng.random(len(b))  # one draw per document -> batch-size independent
            for j, (i, t) in enumerate(zip(b.ids, texts, strict=True)):
                pos = b.start + j
                if len(res_pos) < max_docs:
                    res_pos.append(pos)
                    res_id.append(i)
                    res_txt.append(t)
                else:
                    slot = int(draws[j] * (pos + 1))
                    if slot < max_docs:
                        res_pos[slot], res_id[slot], res_txt[slot] = pos, i, t
        n += s.n_rows or 0
    order = np.argsort(res_pos, kind="stable")
    return [res_id[i] for i in order], [res_txt[i] for i in order], n


def read_pairs(path: str) -> list[tuple[str, str]]:
    """Read id pairs from CSV (header, first two columns) or JSONL (two-element lists or
    objects whose first two values are the ids).

    >>> read_pairs("nondups.csv")[:1]                                  # doctest: +SKIP
    [('a', 'b')]
    """
    from neardup.io import InputError

    if not os.path.exists(path):
        raise InputError(f"{path}: no such file or directory")
    out: list[tuple[str, str]] = []
    if path.lower().endswith(".csv"):
        with open(path, encoding="utf-8", newline="") as f:
            r = csv.reader(f)
            next(r, None)
            for n, row in enumerate(r, 2):
                if len(row) < 2:
                    raise InputError(f"{path}:{n}: expected two ids")
                out.append((row[0], row[1]))
        return out
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                v = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(f"{path}:{n}: invalid JSON ({e.msg})") from e
            vals = list(v.values()) if isinstance(v, dict) else v
            if not isinstance(vals, list) or len(vals) < 2:
                raise InputError(f"{path}:{n}: expected two ids")
            out.append((str(vals[0]), str(vals[1])))
    return out


def run(args: argparse.Namespace) -> int:
    """Run ``neardup calibrate``; returns the exit code.

    >>> run(argparse.Namespace(...))                                   # doctest: +SKIP
    0
    """
    import warnings

    from neardup.calibrate import calibrate
    from neardup.io import InputError, open_sources

    try:
        sources = open_sources(
            args.inputs, args.text_field, args.id_field or "id", args.id_field is not None
        )
        try:
            if args.pairs:
                pairs = read_pairs(args.pairs)
                wanted = {x for p in pairs for x in p}
                ids: list[str] = []
                texts: list[str] = []
                pos = 0
                for s in sources:
                    for b in s.batches(args.batch_size, start=pos):
                        tx = b.texts.to_pylist() if hasattr(b.texts, "to_pylist") else b.texts
                        for i, t in zip(b.ids, tx, strict=True):
                            if str(i) in wanted:
                                ids.append(str(i))
                                texts.append(t)
                    pos += s.n_rows or 0
                where = {i: n for n, i in enumerate(ids)}
                missing = sorted(wanted - where.keys())
                if missing:
                    raise InputError(f"{args.pairs}: id {missing[0]!r} not found in the input")
                idx = np.array([(where[a], where[b]) for a, b in pairs], dtype=np.int64)
                n_docs = len(texts)
            else:
                ids, texts, n_docs = sample_documents(
                    sources, args.sample_docs, args.seed, args.batch_size
                )
                idx = None
        finally:
            for s in sources:
                s.close()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # printed below from cal.warnings
            cal = calibrate(
                texts,
                sample_pairs=args.sample_pairs,
                percentile=args.percentile,
                num_perm=args.num_perm,
                k=args.k,
                seed=args.seed,
                pairs=idx,
                margin=args.margin,
                strip_boilerplate=args.max_df if args.strip_boilerplate else None,
            )
        if args.plot:
            try:
                cal.plot(args.plot)
            except ImportError as e:
                print(f"neardup calibrate: warning: {e}; no plot written", file=sys.stderr)
    except (InputError, ValueError, TypeError, OSError) as e:
        print(f"neardup calibrate: error: {e}", file=sys.stderr)
        return 1
    if args.json:
        d = cal.as_dict()
        d["documents_read"] = n_docs
        print(json.dumps(d))
    else:
        print(cal.table())
        print(
            f"\nneardup dedup ... --threshold {cal.threshold:.2f} "
            f"--bands {cal.bands} --rows {cal.rows}"
        )
    for w in cal.warnings:
        print(f"neardup calibrate: warning: {w}", file=sys.stderr)
    return 0
