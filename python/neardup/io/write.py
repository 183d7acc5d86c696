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
import itertools
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from neardup.errors import InputError, InvalidArgumentError
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


class _Annotated:
    """A source seen with the annotate columns added to each row: the writers convert it
    like a source of another format (``records`` only)."""

    fmt = "annotated"

    def __init__(self, src: Source, columns: dict[str, np.ndarray]) -> None:
        self.src, self.columns = src, columns
        self.reader = self
        self.label, self.text_field, self.schema = src.label, src.text_field, None
        self.n_rows = src.n_rows

    def records(self, _: Any, keep: np.ndarray) -> Any:
        for row, (where, record) in enumerate(self.src.reader.records(self.src, keep)):
            clash = next((name for name in self.columns if name in record), None)
            if clash is not None:
                raise InputError(f"{where}: the row already has a field {clash!r} (--annotate)")
            for name, column in self.columns.items():
                record[name] = _plain(column[row])  # a Python value; no per-corpus lists
            yield where, record


def check_annotated_output(output: str | os.PathLike[str], sources: Sequence[Source]) -> str:
    """:func:`check_output` for ``--annotate``, which writes a table (never a folder).

    >>> check_annotated_output("all.jsonl", [])
    'jsonl'
    """
    out_s = os.fspath(output)
    fmt = check_output(out_s, sources)
    if fmt == "folder":
        raise InvalidArgumentError(
            f"{out_s}: --annotate writes a table: name a .jsonl, .parquet or .csv file"
        )
    return fmt


def write_annotated(
    sources: Sequence[Source],
    columns: dict[str, np.ndarray],
    output: str | os.PathLike[str],
    batch_size: int = DEFAULT_BATCH,
) -> int:
    """Write every row of ``sources`` with ``columns`` (one value per row, in order) added, in
    the format ``output`` names (else the inputs'), atomically; returns the rows written.

    Parquet input to Parquet output keeps its column types (the columns are appended to
    each table); other pairs convert like :func:`write_kept` does; CSV output needs CSV
    input. An input that already has one of the columns is refused.

    >>> write_annotated([src], {"keep": np.array([True, False])}, "all.jsonl")  # doctest: +SKIP
    2
    """
    out_s = os.fspath(output)
    fmt = check_annotated_output(out_s, sources)
    sizes = [s.n_rows or 0 for s in sources]
    bounds = np.cumsum([0, *sizes])
    for name, values in columns.items():
        if len(values) != bounds[-1]:
            raise InvalidArgumentError(f"{name} has {len(values)} values for {bounds[-1]} rows")
    for src in sources:  # a table's columns are known before anything is written
        names = list(src.schema.names) if src.fmt == "parquet" else src.schema or []
        clash = next((name for name in columns if name in names), None)
        if clash is not None and src.fmt in ("parquet", "csv"):
            raise InputError(f"{src.label}: already has a column {clash!r} (--annotate)")
    cut = [{k: v[a:b] for k, v in columns.items()} for a, b in itertools.pairwise(bounds.tolist())]
    everything = [np.ones(n, dtype=bool) for n in sizes]
    if out_s == "-":
        to_stdout = jsonl.JsonlWriter(sys.stdout.buffer)
        written = _annotated_jsonl(to_stdout, sources, cut)
        to_stdout.close()
        return written
    with atomic_path(out_s) as tmp:
        if fmt == "jsonl":
            writer: Any = jsonl.OUTPUT.open(tmp, out_s, sources, batch_size)
            try:
                return _annotated_jsonl(writer, sources, cut)
            finally:
                writer.close()
        if fmt == "csv":
            return _annotated_csv(tmp, sources, cut)
        if fmt == "parquet" and all(s.fmt == "parquet" for s in sources):
            return _annotated_parquet(tmp, sources, cut, batch_size)
        views: Any = [
            (_Annotated(s, c), k) for s, c, k in zip(sources, cut, everything, strict=True)
        ]
        writer = OUTPUTS[fmt].open(tmp, out_s, [v for v, _ in views], batch_size)
        try:
            return int(writer.write(views))
        finally:
            writer.close()


def _annotated_jsonl(
    writer: jsonl.JsonlWriter, sources: Sequence[Source], cut: list[dict[str, np.ndarray]]
) -> int:
    """JSONL out: a JSONL line gets the columns spliced in before its closing brace (no parse,
    unless the line may already hold one of them); other rows are converted."""
    names = list(cut[0])
    keys = [json.dumps(name).encode() for name in names]
    suspect = re.compile(b"|".join([*map(re.escape, keys), rb"\\u"]))  # one scan a line
    written = 0
    for src, columns in zip(sources, cut, strict=True):
        if src.fmt != "jsonl":
            view = _Annotated(src, columns)
            for where, record in view.records(src, np.ones(src.n_rows or 0, dtype=bool)):
                writer.sink.write(jsonl._dumps(where, record) + b"\n")
                written += 1
            continue
        formats = [_json_scalars(column) for column in columns.values()]
        everything = np.ones(src.n_rows or 0, dtype=bool)
        for row, (lineno, raw) in enumerate(jsonl.READER.kept_lines(src, everything)):
            # The sign pass parsed every line as an object, so it ends with "}". A key is
            # written literally or with \u escapes: only then can a field clash.
            line = raw.rstrip()
            if suspect.search(line):
                record = jsonl.READER.parse(src, lineno, raw)
                clash = next((name for name in names if name in record), None)
                if clash is not None:
                    raise InputError(
                        f"{src.label}:{lineno}: the row already has a field {clash!r} (--annotate)"
                    )
            body = line[:-1].rstrip()
            added = b", ".join(k + b": " + f(row) for k, f in zip(keys, formats, strict=True))
            writer.sink.write(body + (b"" if body.endswith(b"{") else b", ") + added + b"}\n")
            written += 1
    return written


def _json_scalars(column: np.ndarray) -> Callable[[int], bytes]:
    """The JSON text of ``column[i]`` (bool, integer, finite float or str), without
    json.dumps per row."""
    if column.dtype == np.bool_:
        return lambda i: b"true" if column[i] else b"false"
    if column.dtype.kind in "iu":
        return lambda i: b"%d" % column[i]
    if column.dtype.kind in "UO":  # a few distinct strings (reason): each encoded once
        values, codes = np.unique(column, return_inverse=True)
        texts = [json.dumps(str(v), ensure_ascii=False).encode() for v in values]
        return lambda i: texts[codes[i]]
    return lambda i: repr(float(column[i])).encode()


def _annotated_csv(tmp: str, sources: Sequence[Source], cut: list[dict[str, np.ndarray]]) -> int:
    written = 0
    with open(tmp, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        header = list(sources[0].schema)
        out.writerow(header + list(cut[0]))
        for src, columns in zip(sources, cut, strict=True):
            everything = np.ones(src.n_rows or 0, dtype=bool)
            for row, (line, fields) in enumerate(csvfile.READER.kept_rows(src, everything)):
                if len(fields) > len(header):  # the added columns would shift under them
                    raise InputError(
                        f"{src.label}:{line}: {len(fields)} fields, header has {len(header)}"
                    )
                padded = fields + [""] * (len(header) - len(fields))
                out.writerow(padded + [_csv_field(_plain(c[row])) for c in columns.values()])
                written += 1
    return written


def _plain(value: Any) -> Any:
    """A numpy scalar as its Python value (an object column's items already are)."""
    return value.item() if isinstance(value, np.generic) else value


def _csv_field(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def _annotated_parquet(
    tmp: str, sources: Sequence[Source], cut: list[dict[str, np.ndarray]], batch_size: int
) -> int:
    import pyarrow as pa

    writer: Any = None
    written = 0
    try:
        for src, columns in zip(sources, cut, strict=True):
            everything = np.ones(src.n_rows or 0, dtype=bool)
            at = 0
            for table in parquet.READER.kept_tables(src, everything, batch_size):
                for name, values in columns.items():
                    table = table.append_column(name, pa.array(values[at : at + table.num_rows]))
                at += table.num_rows
                if writer is None:
                    writer = parquet.parquet_writer(tmp, table.schema)
                writer.write_table(table)
                written += table.num_rows
        if writer is None:  # no rows: an empty file with the columns
            fields = list(sources[0].schema) + [
                pa.field(name, pa.array(values).type) for name, values in cut[0].items()
            ]
            writer = parquet.parquet_writer(tmp, pa.schema(fields))
    finally:
        if writer is not None:
            writer.close()
    return written


def write_table(rows: Sequence[dict[str, Any]], path: str | os.PathLike[str]) -> None:
    """Write a small table (list of dicts) as CSV, Parquet or JSONL (by suffix), atomically.

    >>> write_table([{"id": 1, "cluster": 0}], "clusters.csv")       # doctest: +SKIP
    """
    p = os.fspath(path)
    low = p.lower()
    bad = _not_unicode(rows)
    if bad is not None:  # refused before anything is written
        row, column, value = bad
        raise InputError(
            f"{p}: row {row + 1}: {column} {value!r} is not valid Unicode (a file name that is "
            "not UTF-8 decodes to such a str); rename the file, or leave out this output"
        )
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

            table = pa.Table.from_pylist(list(rows))
            writer = parquet.parquet_writer(tmp, table.schema)
            try:
                writer.write_table(table)
            finally:
                writer.close()
        else:
            opener: Any = gzip.open if low.endswith(".gz") else open
            with opener(tmp, "wt", encoding="utf-8") as f:
                for r in rows:
                    f.write(json.dumps(r, ensure_ascii=False, default=_json_default) + "\n")


def _not_unicode(rows: Sequence[dict[str, Any]]) -> tuple[int, str, str] | None:
    """The first (row, column, value) whose str cannot be written as UTF-8 (a lone
    surrogate), or None.

    >>> _not_unicode([{"id": "a"}, {"id": "b\\udcff.txt"}])
    (1, 'id', 'b\\udcff.txt')
    """
    for i, row in enumerate(rows):
        for column, value in row.items():
            if isinstance(value, str) and not value.isascii():
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    return i, column, value
    return None


def _json_default(o: Any) -> Any:
    if isinstance(o, np.generic):
        return o.item()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")
