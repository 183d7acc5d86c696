"""File-format rows of the bad-input matrix: each row is one bad (or borderline) input file
and the exact documented behaviour neardup.io has for it.

``IO_ROWS`` holds them as dicts: ``id``; ``file`` (the input's name; a name ending in ``/``
is a folder and ``content`` then maps file names to bytes); ``content`` (bytes, or a
callable writing the file, for Parquet); optional ``output`` (write the rows read to this
name instead of only reading); then either ``error`` + ``match`` (exception class and a
regex of its message) or ``rows`` (the number of documents read, when the input is fine).

``ROWS`` is the same list as matrix rows (tests/bad_input.py ``Row``), which
tests/test_bad_input.py collects with every ``bad_input_<area>.py`` module; each row's call
also checks that a failed read or write left no file behind.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bad_input import Row

from neardup import io as ndio
from neardup.errors import InputError


def _parquet(table: Callable[[Any], Any]) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        pa = pytest.importorskip("pyarrow")
        pq = pytest.importorskip("pyarrow.parquet")
        pq.write_table(table(pa), path)

    return write


def _gz(data: bytes) -> bytes:
    import gzip

    return gzip.compress(data)


JSONL_OK = b'{"id": 1, "text": "one"}\n{"id": 2, "text": "two"}\n'

IO_ROWS: list[dict[str, Any]] = [
    # -- CSV ---------------------------------------------------------------------------------
    {
        "id": "csv-unbalanced-quote",
        "file": "c.csv",
        "content": b'id,text\n1,"x\n2,ok\n',
        "error": InputError,
        "match": r"c\.csv:2: unbalanced quote",
    },
    {
        "id": "csv-unbalanced-quote-after-good-multiline-row",
        "file": "c.csv",
        "content": b'id,text\n1,"two\nlines"\n2,ok\n3,"open\n4,x\n',
        "error": InputError,
        "match": r"c\.csv:5: unbalanced quote",
    },
    {
        "id": "csv-text-after-closing-quote",
        "file": "c.csv",
        "content": b'id,text\n1,"a"b\n',
        "error": InputError,
        "match": r"c\.csv:2: invalid CSV",
    },
    {
        "id": "csv-invalid-utf8",
        "file": "c.csv",
        "content": b"id,text\n1,ok\n2,caf\xe9\n",
        "error": InputError,
        "match": r"c\.csv: row 2: invalid UTF-8",
    },
    {
        "id": "csv-empty-file",
        "file": "c.csv",
        "content": b"",
        "error": InputError,
        "match": r"c\.csv: empty CSV file",
    },
    {"id": "csv-header-only", "file": "c.csv", "content": b"id,text\n", "rows": 0},
    {
        "id": "csv-missing-text-column",
        "file": "c.csv",
        "content": b"id,body\n1,x\n",
        "error": InputError,
        "match": r"c\.csv: no column 'text' \(columns: id, body\)",
    },
    {
        "id": "csv-short-row",
        "file": "c.csv",
        "content": b"id,extra,text\n1,a,ok\n2,b\n",
        "error": InputError,
        "match": r"c\.csv: row 2: row without text",
    },
    {
        "id": "csv-that-is-parquet",
        "file": "c.csv",
        "content": _parquet(lambda pa: pa.table({"text": ["x"]})),
        "error": InputError,
        "match": r"c\.csv:1: not a UTF-8 CSV file",
    },
    {
        "id": "csv-bom-and-crlf",
        "file": "c.csv",
        "content": b'\xef\xbb\xbfid,text\r\n1,"a\r\nb"\r\n2,c\r\n',
        "rows": 2,
    },
    # -- JSONL -------------------------------------------------------------------------------
    {
        "id": "jsonl-invalid-utf8",
        "file": "bad.jsonl",
        "content": b'{"text": "ok"}\n\n{"text": "caf\xe9"}\n',
        "error": InputError,
        "match": r"bad\.jsonl:3: invalid UTF-8 at byte 13",
    },
    {
        "id": "jsonl-lone-surrogate",
        "file": "bad.jsonl",
        "content": b'{"text": "ok"}\n{"text": "a \\ud800 b"}\n',
        "error": InputError,
        "match": r"bad\.jsonl:2: 'text' holds a lone surrogate \(\\ud800\)",
    },
    {
        "id": "jsonl-lone-low-surrogate",
        "file": "bad.jsonl",
        "content": b'{"text": "\\uDC00"}\n',
        "error": InputError,
        "match": r"bad\.jsonl:1: 'text' holds a lone surrogate \(\\udc00\)",
    },
    {
        "id": "jsonl-surrogate-pair-is-fine",
        "file": "ok.jsonl",
        "content": b'{"text": "\\ud83d\\ude00"}\n',
        "rows": 1,
    },
    {
        "id": "jsonl-missing-text-field",
        "file": "bad.jsonl",
        "content": b'{"id": 1, "text": "ok"}\n{"id": 2, "body": "x"}\n',
        "error": InputError,
        "match": r"bad\.jsonl:2: no field 'text' \(fields: id, body\)",
    },
    {
        "id": "jsonl-null-text",
        "file": "bad.jsonl",
        "content": b'{"id": 1, "text": null}\n',
        "error": InputError,
        "match": r"bad\.jsonl:1: row without text",
    },
    {
        "id": "jsonl-number-text",
        "file": "bad.jsonl",
        "content": b'{"id": 1, "text": 5}\n',
        "error": InputError,
        "match": r"bad\.jsonl:1: 'text' is int, expected a string",
    },
    {
        "id": "jsonl-invalid-json",
        "file": "bad.jsonl",
        "content": b'{"text": "ok"}\n{"text": "unterminated\n',
        "error": InputError,
        "match": r"bad\.jsonl:2: invalid JSON",
    },
    {
        "id": "jsonl-not-an-object",
        "file": "bad.jsonl",
        "content": b'["not", "an", "object"]\n',
        "error": InputError,
        "match": r"bad\.jsonl:1: expected a JSON object, got list",
    },
    {"id": "jsonl-empty-file", "file": "e.jsonl", "content": b"", "rows": 0},
    {"id": "jsonl-blank-lines-only", "file": "e.jsonl", "content": b"\n \n\n", "rows": 0},
    {
        "id": "jsonl-that-is-csv",
        "file": "c.jsonl",
        "content": b"id,text\n1,x\n",
        "error": InputError,
        "match": r"c\.jsonl:1: invalid JSON",
    },
    {
        "id": "jsonl-gz-garbage",
        "file": "g.jsonl.gz",
        "content": b"this is not gzip data at all\n",
        "error": InputError,
        "match": r"g\.jsonl\.gz:1: cannot read",
    },
    {
        "id": "jsonl-gz-truncated",
        "file": "g.jsonl.gz",
        "content": _gz(JSONL_OK * 200)[:-30],
        "error": InputError,
        "match": r"g\.jsonl\.gz:\d+: cannot read",
    },
    {"id": "jsonl-gz-ok", "file": "g.jsonl.gz", "content": _gz(JSONL_OK), "rows": 2},
    # -- Parquet -----------------------------------------------------------------------------
    {
        "id": "parquet-garbage",
        "file": "p.parquet",
        "content": b"PAR1 this is not parquet at all",
        "error": InputError,
        "match": r"p\.parquet: unreadable Parquet file",
    },
    {
        "id": "parquet-that-is-jsonl",
        "file": "p.parquet",
        "content": JSONL_OK,
        "error": InputError,
        "match": r"p\.parquet: unreadable Parquet file",
    },
    {
        "id": "parquet-null-text",
        "file": "p.parquet",
        "content": _parquet(lambda pa: pa.table({"text": ["a", None]})),
        "error": InputError,
        "match": r"p\.parquet: row 2: row without text",
    },
    {
        "id": "parquet-invalid-utf8-binary",
        "file": "p.parquet",
        "content": _parquet(lambda pa: pa.table({"text": pa.array([b"ok", b"\xff"])})),
        "error": InputError,
        "match": r"p\.parquet: row 2: invalid UTF-8",
    },
    {
        "id": "parquet-integer-text-column",
        "file": "p.parquet",
        "content": _parquet(lambda pa: pa.table({"text": [1, 2]})),
        "error": InputError,
        "match": r"p\.parquet: column 'text' has type int64, expected strings",
    },
    {
        "id": "parquet-missing-text-column",
        "file": "p.parquet",
        "content": _parquet(lambda pa: pa.table({"body": ["x"]})),
        "error": InputError,
        "match": r"p\.parquet: no column 'text' \(columns: body\)",
    },
    # -- paths and folders -------------------------------------------------------------------
    {
        "id": "unknown-extension",
        "file": "x.xlsx",
        "content": b"?",
        "error": InputError,
        "match": r"x\.xlsx: unknown input format",
    },
    {
        "id": "missing-file",
        "file": "nope.jsonl",
        "content": None,
        "error": InputError,
        "match": r"nope\.jsonl: no such file or directory",
    },
    {
        "id": "folder-invalid-utf8-file",
        "file": "docs/",
        "content": {"a.txt": b"fine", "bad.md": b"ok \xc3\x28"},
        "error": InputError,
        "match": r"bad\.md: invalid UTF-8 at byte 3",
    },
    {"id": "folder-empty", "file": "docs/", "content": {}, "rows": 0},
    # -- outputs: the format the output's name asks for --------------------------------------
    {
        "id": "output-csv-from-jsonl",
        "file": "in.jsonl",
        "content": JSONL_OK,
        "output": "kept.csv",
        "error": InputError,
        "match": r"kept\.csv: CSV output needs CSV input .*the input is jsonl",
    },
    {
        "id": "output-csv-from-parquet",
        "file": "p.parquet",
        "content": _parquet(lambda pa: pa.table({"text": ["x"], "n": [1]})),
        "output": "kept.csv",
        "error": InputError,
        "match": r"kept\.csv: CSV output needs CSV input .*the input is parquet",
    },
    {
        "id": "output-jsonl-from-folder",
        "file": "docs/",
        "content": {"a.txt": b"one", "b.md": b"two"},
        "output": "kept.jsonl",
        "rows": 2,
    },
    {
        "id": "output-jsonl-from-parquet-bytes",
        "file": "p.parquet",
        "content": _parquet(lambda pa: pa.table({"text": ["x"], "blob": pa.array([b"\x00"])})),
        "output": "kept.jsonl",
        "error": InputError,
        "match": r"kept\.jsonl: column 'blob' of .*p\.parquet has type binary",
    },
    {
        "id": "output-jsonl-from-parquet-nan",
        "file": "p.parquet",
        "content": _parquet(lambda pa: pa.table({"text": ["x", "y"], "v": [1.0, float("nan")]})),
        "output": "kept.jsonl",
        "error": InputError,
        "match": r"p\.parquet: row 2: JSONL cannot hold this row \(NaN or infinity\)",
    },
    {
        "id": "output-parquet-from-jsonl-mixed-types",
        "file": "in.jsonl",
        "content": b'{"text": "a", "v": 1}\n{"text": "b", "v": "one"}\n',
        "output": "kept.parquet",
        "error": InputError,
        "match": r"Parquet cannot hold|incompatible types",
    },
    {
        "id": "output-parquet-from-jsonl",
        "file": "in.jsonl",
        "content": b'{"text": "a", "v": 1}\n{"text": "b", "w": [1, 2]}\n',
        "output": "kept.parquet",
        "rows": 2,
    },
]


def _make_input(row: dict[str, Any], tmp_path: Path) -> Path:
    name = row["file"]
    content = row["content"]
    path = tmp_path / name.rstrip("/")
    if name.endswith("/"):
        path.mkdir()
        for rel, data in content.items():
            (path / rel).write_bytes(data)
    elif callable(content):
        content(path)
    elif content is not None:
        path.write_bytes(content)
    return path


def run_io_row(row: dict[str, Any], tmp_path: Path) -> int:
    """Make the row's input, read it (and, with ``output``, write every row to the output);
    return the number of documents read. A failure leaves no new file behind (checked here,
    before the exception goes on)."""
    path = _make_input(row, tmp_path)
    out = tmp_path / row["output"].rstrip("/") if "output" in row else None
    before = {p.name for p in tmp_path.iterdir()}
    try:
        sources = ndio.open_sources([path])
        try:
            n = sum(len(b) for b in ndio.iter_batches(sources))
            if out is not None:
                ndio.write_kept(sources, np.ones(n, dtype=bool), out)
        finally:
            for s in sources:
                s.close()
    except Exception:
        assert {p.name for p in tmp_path.iterdir()} == before, "a failed run leaves no file"
        raise
    after = {p.name for p in tmp_path.iterdir()}
    assert after == before | ({out.name} if out is not None else set()), after - before
    return n


def check_io_row(row: dict[str, Any], tmp_path: Path) -> None:
    """Run one row and check its documented behaviour (one-line error, or the row count)."""
    if "error" in row:
        with pytest.raises(row["error"], match=row["match"]) as info:
            run_io_row(row, tmp_path)
        assert "\n" not in str(info.value), "error messages are one line"
    else:
        assert run_io_row(row, tmp_path) == row["rows"]


def _matrix_row(row: dict[str, Any]) -> Row:
    def call(tmp_path: Path) -> int:
        return run_io_row(row, tmp_path)

    if "error" in row:
        return Row(f"io: {row['id']}", call, row["error"], row["match"])
    return Row(f"io: {row['id']}", call, check=lambda n, want=row["rows"]: n == want)


ROWS = [_matrix_row(r) for r in IO_ROWS]
