"""Outputs: the kept rows of the inputs (:func:`write_kept`) and small tables
(:func:`write_table`), each written to a temporary file and renamed at the end.

The output's format is the one its extension names (``.jsonl[.gz]``, ``.parquet``, ``.csv``);
a name without a known extension (a folder, say) gets the inputs' format, and ``-`` is JSONL
on stdout. Same format in and out copies rows unchanged; across formats every field of a
row is kept (see each format module for what converts).

>>> output_format("kept.parquet", "jsonl"), output_format("kept", "folder")
('parquet', 'folder')
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from neardup.errors import InvalidArgumentError
from neardup.io import csvfile, folder, jsonl, parquet
from neardup.io.atomic import atomic_path
from neardup.io.base import DEFAULT_BATCH, Output
from neardup.io.source import Source, format_of_name

#: The output side of each format, by name.
OUTPUTS: dict[str, Output] = {
    "jsonl": jsonl.OUTPUT,
    "parquet": parquet.OUTPUT,
    "csv": csvfile.OUTPUT,
    "folder": folder.OUTPUT,
}


def output_format(output: str | os.PathLike[str], input_format: str) -> str:
    """The format to write ``output`` in: its extension's, else the inputs' (``-``: JSONL).

    >>> output_format("-", "csv"), output_format("k.jsonl.gz", "csv")
    ('jsonl', 'jsonl')
    """
    out = os.fspath(output)
    if out == "-":
        return "jsonl"
    return format_of_name(out) or input_format


def check_output(output: str | os.PathLike[str], sources: Sequence[Source]) -> str:
    """Refuse an output that cannot hold the inputs' rows faithfully; return its format.

    Call it right after opening the inputs so a refusal comes before any work;
    :func:`write_kept` calls it again.

    >>> check_output("kept.csv", open_sources(["a.jsonl"]))            # doctest: +SKIP
    Traceback (most recent call last):
    neardup.errors.InputError: kept.csv: CSV output needs CSV input ...
    """
    out_s = os.fspath(output)
    fmt = output_format(out_s, sources[0].fmt if sources else "jsonl")
    OUTPUTS[fmt].check(out_s, sources)
    return fmt


def write_kept(
    sources: Sequence[Source],
    keep: np.ndarray,
    output: str | os.PathLike[str],
    batch_size: int = DEFAULT_BATCH,
) -> int:
    """Write the rows of ``sources`` where the global ``keep`` mask is true to ``output``.

    Input rows are copied unchanged when the output has the inputs' format (JSONL lines byte
    for byte; ``.gz`` output is gzipped) and converted with every field otherwise. A
    conversion that cannot be faithful is refused before anything is written. Returns the
    number of rows written.

    >>> write_kept([src], np.array([True, False, True]), "kept.jsonl")  # doctest: +SKIP
    2
    """
    keep = np.asarray(keep, dtype=bool)
    sizes = [s.n_rows for s in sources]
    if not sources or any(n is None for n in sizes):
        raise InvalidArgumentError("write_kept needs sources that were read once")
    total = sum(n for n in sizes if n is not None)
    if total != len(keep):
        raise InvalidArgumentError(f"keep has {len(keep)} entries for {total} rows")
    bounds = np.cumsum([0, *sizes])
    parts = [(s, keep[a:b]) for s, a, b in zip(sources, bounds[:-1], bounds[1:], strict=True)]
    out_s = os.fspath(output)
    fmt = check_output(out_s, sources)
    if out_s == "-":
        to_stdout = jsonl.JsonlWriter(sys.stdout.buffer)
        written = to_stdout.write(parts)
        to_stdout.close()
        return written
    with atomic_path(out_s, directory=fmt == "folder") as tmp:
        writer = OUTPUTS[fmt].open(tmp, out_s, sources, batch_size)
        try:
            written = int(writer.write(parts))
        finally:
            writer.close()
    return written


def write_table(rows: Sequence[dict[str, Any]], path: str | os.PathLike[str]) -> None:
    """Write a small table (list of dicts) as CSV, Parquet or JSONL (by suffix), atomically.

    >>> write_table([{"id": 1, "cluster": 0}], "clusters.csv")       # doctest: +SKIP
    """
    p = os.fspath(path)
    low = p.lower()
    with atomic_path(p) as tmp:
        if low.endswith(".csv"):
            with open(tmp, "w", encoding="utf-8", newline="") as f:
                cols = list(rows[0].keys()) if rows else ["id"]
                w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
                w.writeheader()
                w.writerows(rows)
        elif low.endswith((".parquet", ".pq")):
            parquet.require_pyarrow()
            import pyarrow as pa
            import pyarrow.parquet as pq

            pq.write_table(pa.Table.from_pylist(list(rows)), tmp)
        else:
            opener: Any = gzip.open if low.endswith(".gz") else open
            with opener(tmp, "wt", encoding="utf-8") as f:
                for r in rows:
                    f.write(json.dumps(r, ensure_ascii=False, default=_json_default) + "\n")


def _json_default(o: Any) -> Any:
    if isinstance(o, np.generic):
        return o.item()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")
