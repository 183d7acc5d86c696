"""Read and write document collections: JSONL (optionally gzipped), Parquet, CSV, text folders.

Every reader streams in batches and yields only the text column and the id column; the
writers copy *kept* rows through unchanged (all original fields, original order) into a
temporary file that is renamed over the output only when everything succeeded, so a failed
run never leaves a partial output behind.

>>> src = open_source("corpus.jsonl", text_field="text")          # doctest: +SKIP
>>> for batch in src.batches(10_000):                             # doctest: +SKIP
...     print(batch.start, len(batch.texts))
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import json
import os
import shutil
import sys
import tempfile
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from neardup.errors import InputError

__all__ = [
    "Batch",
    "InputError",
    "Source",
    "atomic_path",
    "detect_format",
    "iter_batches",
    "open_source",
    "open_sources",
    "read_texts",
    "write_kept",
    "write_table",
]

TEXT_SUFFIXES = (".txt", ".md")
DEFAULT_BATCH = 8192


@dataclass
class Batch:
    """A batch of documents: the text column, the ids and the global position of the first row.

    ``texts`` is a ``list[str]`` or a pyarrow string array (Parquet), which the core accepts
    without creating per-row Python objects.

    >>> b = Batch(texts=["a", "b"], ids=[0, 1], start=0)
    >>> len(b)
    2
    """

    texts: Any
    ids: list[Any]
    start: int

    def __len__(self) -> int:
        return len(self.ids)


def detect_format(path: str | os.PathLike[str]) -> str:
    """Return the format of an input or output path: ``jsonl``, ``parquet``, ``csv`` or ``folder``.

    ``-`` (stdin) is JSONL; a directory is a folder of .txt/.md files.

    >>> detect_format("x.jsonl.gz"), detect_format("x.parquet"), detect_format("-")
    ('jsonl', 'parquet', 'jsonl')
    """
    p = str(path)
    if p == "-":
        return "jsonl"
    if os.path.isdir(p):
        return "folder"
    low = p.lower()
    if low.endswith(".gz"):
        low = low[:-3]
    for suffix, fmt in (
        (".jsonl", "jsonl"),
        (".ndjson", "jsonl"),
        (".json", "jsonl"),
        (".parquet", "parquet"),
        (".pq", "parquet"),
        (".csv", "csv"),
    ):
        if low.endswith(suffix):
            return fmt
    if not os.path.exists(p):
        raise InputError(f"{p}: no such file or directory")
    raise InputError(
        f"{p}: unknown input format (expected .jsonl, .jsonl.gz, .parquet, .csv, a folder or -)"
    )


def _require_pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise InputError("Parquet input needs pyarrow: pip install 'neardup[parquet]'") from e
    return sys.modules["pyarrow"]


class Source:
    """One input (file, folder or stdin) of a known format.

    Use :func:`open_source`; then :meth:`batches` streams ``Batch`` objects and
    :meth:`write_rows` copies the rows selected by a boolean mask to an open writer.

    >>> src = open_source("docs/", text_field="text")              # doctest: +SKIP
    >>> sum(len(b) for b in src.batches())                          # doctest: +SKIP
    42
    """

    def __init__(
        self,
        path: str,
        fmt: str,
        text_field: str = "text",
        id_field: str | None = "id",
        id_required: bool = False,
    ) -> None:
        self.path = path
        self.fmt = fmt
        self.text_field = text_field
        self.id_field = id_field
        self.id_required = id_required
        self.label = "<stdin>" if path == "-" else path
        self._spool: str | None = None
        self.n_rows: int | None = None
        self.schema: Any = None  # Parquet schema or CSV header
        if path == "-":
            fd, spool = tempfile.mkstemp(prefix="neardup-stdin-", suffix=".jsonl")
            with os.fdopen(fd, "wb") as out:
                shutil.copyfileobj(sys.stdin.buffer, out, 1 << 20)
            self._spool = spool
        elif not os.path.exists(path):
            raise InputError(f"{path}: no such file or directory")
        if fmt == "parquet":
            self._parquet_file()  # fail early on unreadable files / missing columns
        elif fmt == "csv":
            self._csv_header()

    # -- housekeeping ---------------------------------------------------------------------
    @property
    def _read_path(self) -> str:
        return self._spool if self._spool is not None else self.path

    def close(self) -> None:
        """Delete the stdin spool file, if any.

        >>> Source.close  # doctest: +ELLIPSIS
        <function Source.close at ...>
        """
        if self._spool is not None:
            with contextlib.suppress(OSError):
                os.unlink(self._spool)
            self._spool = None

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _default_id(self, pos: int) -> Any:
        return pos

    # -- batches ----------------------------------------------------------------------------
    def batches(self, batch_size: int = DEFAULT_BATCH, start: int = 0) -> Iterator[Batch]:
        """Yield batches of (texts, ids); ``start`` is the global position of the first row.

        >>> [len(b) for b in open_source("a.jsonl").batches(2)]        # doctest: +SKIP
        [2, 2, 1]
        """
        reader = {
            "jsonl": self._jsonl_batches,
            "parquet": self._parquet_batches,
            "csv": self._csv_batches,
            "folder": self._folder_batches,
        }[self.fmt]
        n = 0
        for b in reader(batch_size, start):
            n += len(b)
            yield b
        self.n_rows = n

    # JSONL ----------------------------------------------------------------------------------
    def _jsonl_lines(self) -> Iterator[tuple[int, bytes]]:
        """Yield (line number, raw line) for non-blank lines, with clear errors for bad gzip."""
        path = self._read_path
        opener: Any = gzip.open if path.lower().endswith(".gz") else open
        lineno = 0
        try:
            with opener(path, "rb") as f:
                for raw in f:
                    lineno += 1
                    if not raw.isspace():
                        yield lineno, raw
        except (OSError, EOFError, zlib.error) as e:
            raise InputError(f"{self.label}:{lineno + 1}: cannot read ({e})") from e

    def _parse_json(self, lineno: int, raw: bytes) -> dict[str, Any]:
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(f"{self.label}:{lineno}: invalid UTF-8 at byte {e.start}") from e
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{self.label}:{lineno}: invalid JSON ({e.msg})") from e
        if not isinstance(obj, dict):
            raise InputError(
                f"{self.label}:{lineno}: expected a JSON object, got {type(obj).__name__}"
            )
        return obj

    def _row_text(self, where: str, value: Any, present: bool, fields: Iterable[str]) -> str:
        if not present:
            shown = ", ".join(list(fields)[:8]) or "none"
            raise InputError(f"{where}: no field {self.text_field!r} (fields: {shown})")
        if value is None:
            raise InputError(f"{where}: row without text ({self.text_field!r} is null)")
        if not isinstance(value, str):
            raise InputError(
                f"{where}: {self.text_field!r} is {type(value).__name__}, expected a string"
            )
        return value

    def _row_id(self, where: str, obj: dict[str, Any], pos: int) -> Any:
        if self.id_field is not None and self.id_field in obj:
            return obj[self.id_field]
        if self.id_required:
            raise InputError(f"{where}: no field {self.id_field!r}")
        return self._default_id(pos)

    def _jsonl_rows(self, start: int) -> Iterator[tuple[str, Any]]:
        for pos, (lineno, raw) in enumerate(self._jsonl_lines(), start):
            obj = self._parse_json(lineno, raw)
            where = f"{self.label}:{lineno}"
            text = self._row_text(
                where, obj.get(self.text_field), self.text_field in obj, obj.keys()
            )
            yield text, self._row_id(where, obj, pos)

    def _jsonl_batches(self, batch_size: int, start: int) -> Iterator[Batch]:
        return _grouped(self._jsonl_rows(start), batch_size, start)

    # Parquet ----------------------------------------------------------------------------------
    def _parquet_file(self) -> Any:
        _require_pyarrow()
        import pyarrow.parquet as pq

        try:
            pf = pq.ParquetFile(self._read_path)
        except Exception as e:  # pyarrow raises several types for corrupt files
            raise InputError(f"{self.label}: unreadable Parquet file ({_oneline(e)})") from e
        names = pf.schema_arrow.names
        if self.text_field not in names:
            raise InputError(
                f"{self.label}: no column {self.text_field!r} (columns: {', '.join(names[:8])})"
            )
        if self.id_required and self.id_field not in names:
            raise InputError(f"{self.label}: no column {self.id_field!r}")
        self.schema = pf.schema_arrow
        return pf

    def _parquet_texts(self, col: Any, first_row: int) -> Any:
        import pyarrow as pa
        import pyarrow.compute as pc

        if isinstance(col, pa.ChunkedArray):
            col = col.combine_chunks()
        if pa.types.is_dictionary(col.type):
            col = col.dictionary_decode()
        if pa.types.is_binary(col.type) or pa.types.is_large_binary(col.type):
            bad = _first_invalid_utf8(col)
            if bad is not None:
                raise InputError(f"{self.label}: row {first_row + bad + 1}: invalid UTF-8")
            col = col.cast(pa.large_string() if pa.types.is_large_binary(col.type) else pa.string())
        if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
            raise InputError(
                f"{self.label}: column {self.text_field!r} has type {col.type}, expected strings"
            )
        if col.null_count:
            first_null = int(np.flatnonzero(pc.is_null(col).to_numpy(zero_copy_only=False))[0])
            raise InputError(
                f"{self.label}: row {first_row + first_null + 1}: row without text "
                f"({self.text_field!r} is null)"
            )
        try:
            col.validate(full=True)
        except pa.ArrowInvalid as e:
            bad = _first_invalid_utf8(
                col.cast(pa.binary() if pa.types.is_string(col.type) else pa.large_binary())
            )
            row = f"row {first_row + bad + 1}" if bad is not None else "a row"
            raise InputError(f"{self.label}: {row}: invalid UTF-8") from e
        if pa.types.is_large_string(col.type):
            col = col.cast(pa.string())
        return col

    def _parquet_batches(self, batch_size: int, start: int) -> Iterator[Batch]:
        pf = self._parquet_file()
        names = pf.schema_arrow.names
        has_id = self.id_field is not None and self.id_field in names
        cols = [self.text_field] + (
            [self.id_field] if has_id and self.id_field != self.text_field else []
        )
        pos = start
        try:
            for rb in pf.iter_batches(batch_size=batch_size, columns=cols):
                texts = self._parquet_texts(rb.column(self.text_field), pos - start)
                n = rb.num_rows
                if has_id:
                    ids = rb.column(self.id_field).to_pylist()
                else:
                    ids = list(range(pos, pos + n))
                yield Batch(texts, ids, pos)
                pos += n
        except InputError:
            raise
        except Exception as e:
            raise InputError(f"{self.label}: unreadable Parquet file ({_oneline(e)})") from e

    # CSV ----------------------------------------------------------------------------------------
    def _csv_open(self) -> IO[str]:
        csv.field_size_limit(2**31 - 1)
        return open(self._read_path, encoding="utf-8-sig", errors="surrogateescape", newline="")

    def _csv_header(self) -> list[str]:
        with self._csv_open() as f:
            try:
                header = next(csv.reader(f))
            except StopIteration:
                raise InputError(f"{self.label}: empty CSV file (no header row)") from None
            except csv.Error as e:
                raise InputError(f"{self.label}:1: invalid CSV ({e})") from e
        if self.text_field not in header:
            raise InputError(
                f"{self.label}: no column {self.text_field!r} (columns: {', '.join(header[:8])})"
            )
        if self.id_required and self.id_field not in header:
            raise InputError(f"{self.label}: no column {self.id_field!r}")
        self.schema = header
        return header

    def _csv_rows(self) -> Iterator[tuple[int, list[str]]]:
        with self._csv_open() as f:
            reader = csv.reader(f)
            try:
                next(reader)
                row_no = 0
                for row in reader:
                    row_no += 1
                    if not row:
                        row_no -= 1
                        continue
                    try:
                        "\x1f".join(row).encode("utf-8")
                    except UnicodeEncodeError as e:
                        raise InputError(f"{self.label}: row {row_no}: invalid UTF-8") from e
                    yield row_no, row
            except csv.Error as e:
                raise InputError(f"{self.label}: line {reader.line_num}: invalid CSV ({e})") from e

    def _csv_rows_with_ids(self, start: int) -> Iterator[tuple[str, Any]]:
        header = self._csv_header()
        ti = header.index(self.text_field)
        ii = header.index(self.id_field) if self.id_field in header else None
        for pos, (row_no, row) in enumerate(self._csv_rows(), start):
            if ti >= len(row):
                raise InputError(
                    f"{self.label}: row {row_no}: row without text "
                    f"({len(row)} fields, header has {len(header)})"
                )
            yield row[ti], (row[ii] if ii is not None and ii < len(row) else pos)

    def _csv_batches(self, batch_size: int, start: int) -> Iterator[Batch]:
        return _grouped(self._csv_rows_with_ids(start), batch_size, start)

    # Folder ---------------------------------------------------------------------------------------
    def files(self) -> list[Path]:
        """The .txt/.md files of a folder input, sorted by relative path.

        >>> open_source("docs/").files()[:1]                          # doctest: +SKIP
        [PosixPath('docs/a.txt')]
        """
        root = Path(self.path)
        return sorted(
            (p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in TEXT_SUFFIXES),
            key=lambda p: p.relative_to(root).as_posix(),
        )

    def _folder_rows(self) -> Iterator[tuple[str, Any]]:
        root = Path(self.path)
        for p in self.files():
            try:
                text = p.read_bytes().decode("utf-8")
            except UnicodeDecodeError as e:
                raise InputError(f"{p}: invalid UTF-8 at byte {e.start}") from e
            except OSError as e:
                raise InputError(f"{p}: cannot read ({e.strerror})") from e
            yield text, p.relative_to(root).as_posix()

    def _folder_batches(self, batch_size: int, start: int) -> Iterator[Batch]:
        return _grouped(self._folder_rows(), batch_size, start)

    # -- writing -------------------------------------------------------------------------------
    def write_rows(self, keep: np.ndarray, out: Any, batch_size: int = DEFAULT_BATCH) -> int:
        """Copy the rows where ``keep`` (this source's slice of the global mask) is true.

        ``out`` is the object made by :func:`_open_writer` for this format. Returns rows written.

        >>> src.write_rows(np.array([True, False]), writer)            # doctest: +SKIP
        1
        """
        written = 0
        if self.fmt == "jsonl":
            i = -1
            for i, (_, raw) in enumerate(self._jsonl_lines()):
                if i >= len(keep):
                    raise InputError(f"{self.label}: input changed while reading")
                if keep[i]:
                    out.write(raw if raw.endswith(b"\n") else raw + b"\n")
                    written += 1
            if i + 1 != len(keep):
                raise InputError(f"{self.label}: input changed while reading")
        elif self.fmt == "csv":
            i = -1
            for i, (_, row) in enumerate(self._csv_rows()):
                if i >= len(keep):
                    raise InputError(f"{self.label}: input changed while reading")
                if keep[i]:
                    out.writerow(row)
                    written += 1
            if i + 1 != len(keep):
                raise InputError(f"{self.label}: input changed while reading")
        elif self.fmt == "parquet":
            import pyarrow as pa

            pf = self._parquet_file()
            pos = 0
            for rb in pf.iter_batches(batch_size=batch_size):
                m = keep[pos : pos + rb.num_rows]
                pos += rb.num_rows
                if m.any():
                    t = pa.Table.from_batches([rb]).filter(pa.array(m))
                    out.write_table(t)
                    written += t.num_rows
            if pos != len(keep):
                raise InputError(f"{self.label}: input changed while reading")
        elif self.fmt == "folder":
            files = self.files()
            if len(files) != len(keep):
                raise InputError(f"{self.label}: input changed while reading")
            root = Path(self.path)
            for p, k in zip(files, keep, strict=False):
                if k:
                    dest = Path(out) / p.relative_to(root)
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(p, dest)
                    written += 1
        return written


def _grouped(rows: Iterator[tuple[str, Any]], batch_size: int, start: int) -> Iterator[Batch]:
    """Batches of at most ``batch_size`` (text, id) rows; ``start`` is the first row's position."""
    texts: list[str] = []
    ids: list[Any] = []
    for text, row_id in rows:
        texts.append(text)
        ids.append(row_id)
        if len(texts) >= batch_size:
            yield Batch(texts, ids, start)
            start += len(texts)
            texts, ids = [], []
    if texts:
        yield Batch(texts, ids, start)


def _oneline(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


def _first_invalid_utf8(binary_col: Any) -> int | None:
    for i, v in enumerate(binary_col.to_pylist()):
        if v is None:
            continue
        try:
            v.decode("utf-8")
        except UnicodeDecodeError:
            return i
    return None


def open_source(
    path: str | os.PathLike[str],
    text_field: str = "text",
    id_field: str | None = "id",
    id_required: bool = False,
) -> Source:
    """Open one input, checking that it exists and (for Parquet/CSV) has the text column.

    >>> src = open_source("corpus.parquet", text_field="content")    # doctest: +SKIP
    >>> src.fmt                                                       # doctest: +SKIP
    'parquet'
    """
    p = os.fspath(path)
    if p != "-" and not os.path.exists(p):
        raise InputError(f"{p}: no such file or directory")
    return Source(p, detect_format(p), text_field, id_field, id_required)


def open_sources(
    paths: Sequence[str | os.PathLike[str]],
    text_field: str = "text",
    id_field: str | None = "id",
    id_required: bool = False,
) -> list[Source]:
    """Open several inputs of one format (mixing formats is an error; so is ``-`` twice).

    >>> [s.fmt for s in open_sources(["a.jsonl", "b.jsonl.gz"])]  # doctest: +SKIP
    ['jsonl', 'jsonl']
    """
    if not paths:
        raise InputError("no input given")
    if sum(1 for p in paths if os.fspath(p) == "-") > 1:
        raise InputError("stdin (-) can be given only once")
    fmts = {detect_format(p) for p in paths}
    if len(fmts) > 1:
        raise InputError(
            f"inputs mix formats ({', '.join(sorted(fmts))}); give one format at a time"
        )
    sources: list[Source] = []
    try:
        for p in paths:
            sources.append(open_source(p, text_field, id_field, id_required))
    except BaseException:
        for s in sources:
            s.close()
        raise
    if sources[0].fmt in ("parquet", "csv"):
        first = sources[0].schema
        for s in sources[1:]:
            if s.schema != first:
                raise InputError(f"{s.label}: columns differ from {sources[0].label}")
    return sources


def iter_batches(sources: Sequence[Source], batch_size: int = DEFAULT_BATCH) -> Iterator[Batch]:
    """The batches of several sources in turn, each ``start`` the global position of its row.

    This is the one loop that numbers documents across inputs: every command and executor
    reads through it, so positions (and so ``keep="first"``) agree everywhere.

    >>> for b in iter_batches(open_sources(["a.jsonl", "b.jsonl"])):  # doctest: +SKIP
    ...     print(b.start, len(b))
    """
    pos = 0
    for s in sources:
        yield from s.batches(batch_size, start=pos)
        pos += s.n_rows or 0


def read_texts(
    paths: Sequence[str | os.PathLike[str]] | str,
    text_field: str = "text",
    id_field: str | None = "id",
) -> tuple[list[Any], list[Any]]:
    """Read all (ids, texts) of one or more inputs into memory (small corpora, notebooks).

    >>> ids, texts = read_texts("corpus.jsonl")                      # doctest: +SKIP
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    ids: list[Any] = []
    texts: list[Any] = []
    sources = open_sources(paths, text_field, id_field)
    try:
        for b in iter_batches(sources):
            ids.extend(b.ids)
            texts.extend(b.texts.to_pylist() if hasattr(b.texts, "to_pylist") else b.texts)
    finally:
        for s in sources:
            s.close()
    return ids, texts


@contextlib.contextmanager
def atomic_path(output: str | os.PathLike[str], directory: bool = False) -> Iterator[str]:
    """Yield a temporary path beside ``output``; rename it over ``output`` only on success.

    On any exception the temporary file (or folder) is removed and ``output`` is untouched.

    >>> with atomic_path("kept.jsonl") as tmp:                        # doctest: +SKIP
    ...     open(tmp, "w").write("{}\\n")
    """
    out = os.path.abspath(os.fspath(output))
    parent = os.path.dirname(out)
    if not os.path.isdir(parent):
        raise InputError(f"{output}: directory {parent} does not exist")
    name = os.path.basename(out)
    if directory:
        if os.path.isdir(out) and os.listdir(out):
            raise InputError(f"{output}: output folder exists and is not empty")
        tmp = tempfile.mkdtemp(prefix=f".{name}.", suffix=".tmp", dir=parent)
    else:
        if os.path.isdir(out):
            raise InputError(f"{output}: is a directory")
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=parent)
        os.close(fd)
    try:
        yield tmp
        if directory:
            if os.path.isdir(out):
                os.rmdir(out)
            os.replace(tmp, out)
        else:
            os.chmod(tmp, 0o644)
            os.replace(tmp, out)
    except BaseException:
        if directory:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise


def write_kept(
    sources: Sequence[Source],
    keep: np.ndarray,
    output: str | os.PathLike[str],
    batch_size: int = DEFAULT_BATCH,
) -> int:
    """Write the rows of ``sources`` where the global ``keep`` mask is true to ``output``.

    The output has the inputs' format (JSONL lines are copied byte for byte; ``.gz`` output
    is gzipped), is written to a temporary file and renamed at the end. ``-`` writes JSONL
    to stdout. Returns the number of rows written.

    >>> write_kept([src], np.array([True, False, True]), "kept.jsonl")  # doctest: +SKIP
    2
    """
    keep = np.asarray(keep, dtype=bool)
    fmt = sources[0].fmt
    sizes = [s.n_rows for s in sources]
    if any(n is None for n in sizes):
        raise RuntimeError("write_kept needs sources that were read once (n_rows unknown)")
    if sum(sizes) != len(keep):  # type: ignore[arg-type]
        raise ValueError(f"keep has {len(keep)} entries for {sum(sizes)} rows")  # type: ignore[arg-type]
    bounds = np.cumsum([0, *sizes])
    out_s = os.fspath(output)
    written = 0

    def _each(writer: Any) -> int:
        w = 0
        for s, a, b in zip(sources, bounds[:-1], bounds[1:], strict=False):
            w += s.write_rows(keep[a:b], writer, batch_size)
        return w

    if out_s == "-":
        if fmt != "jsonl":
            raise InputError(f"output to stdout (-) is JSONL only; the input is {fmt}")
        written = _each(sys.stdout.buffer)
        sys.stdout.buffer.flush()
        return written
    if fmt == "folder":
        with atomic_path(out_s, directory=True) as tmp:
            written = _each(tmp)
        return written
    with atomic_path(out_s) as tmp:
        if fmt == "jsonl":
            if out_s.lower().endswith(".gz"):
                with gzip.open(tmp, "wb", compresslevel=6) as gz:
                    written = _each(gz)
            else:
                with open(tmp, "wb") as raw:
                    written = _each(raw)
        elif fmt == "csv":
            with open(tmp, "w", encoding="utf-8", errors="surrogateescape", newline="") as text:
                writer = csv.writer(text, lineterminator="\n")
                writer.writerow(sources[0].schema)
                written = _each(writer)
        elif fmt == "parquet":
            import pyarrow.parquet as pq

            with pq.ParquetWriter(tmp, sources[0].schema) as pw:
                written = _each(pw)
        else:  # pragma: no cover
            raise AssertionError(fmt)
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
            _require_pyarrow()
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
