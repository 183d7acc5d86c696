"""Parquet (needs pyarrow: ``pip install 'neardup[parquet]'``).

Reading streams record batches and hands the text column to the core as an Arrow string
array (no per-row Python objects). Writing Parquet from Parquet keeps the schema (every
column, its type and order, the metadata); from another format the schema is inferred from
the kept rows (two passes over them), so every field becomes a column.

>>> OUTPUT.name, READER.name
('parquet', 'parquet')
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from neardup.errors import InputError
from neardup.io.base import Batch, Input, Writer, changed, oneline, shown_names


def require_pyarrow() -> Any:
    """The pyarrow module, or an :class:`InputError` saying how to install it.

    >>> require_pyarrow().__name__                                     # doctest: +SKIP
    'pyarrow'
    """
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise InputError("Parquet needs pyarrow: pip install 'neardup[parquet]'") from e
    return sys.modules["pyarrow"]


class ParquetReader:
    """Reads one Parquet file in record batches.

    >>> READER.name
    'parquet'
    """

    name = "parquet"

    def open(self, src: Input) -> Any:
        """The ``pyarrow.parquet.ParquetFile``, with the text (and required id) column checked.

        >>> READER.open(src).metadata.num_rows                         # doctest: +SKIP
        4
        """
        require_pyarrow()
        import pyarrow.parquet as pq

        try:
            pf = pq.ParquetFile(src.read_path)
        except Exception as e:  # pyarrow raises several types for corrupt files
            raise InputError(f"{src.label}: unreadable Parquet file ({oneline(e)})") from e
        names = pf.schema_arrow.names
        if src.text_field not in names:
            raise InputError(
                f"{src.label}: no column {src.text_field!r} (columns: {shown_names(names)})"
            )
        if src.id_required and src.id_field not in names:
            raise InputError(f"{src.label}: no column {src.id_field!r}")
        return pf

    def check(self, src: Input) -> Any:
        """The Arrow schema (fails early on unreadable files and missing columns).

        >>> READER.check(src).names                                    # doctest: +SKIP
        ['id', 'text']
        """
        return self.open(src).schema_arrow

    def _texts(self, src: Input, col: Any, first_row: int) -> Any:
        import pyarrow as pa
        import pyarrow.compute as pc

        if isinstance(col, pa.ChunkedArray):
            col = col.combine_chunks()
        if pa.types.is_dictionary(col.type):
            col = col.dictionary_decode()
        if pa.types.is_binary(col.type) or pa.types.is_large_binary(col.type):
            bad = _first_invalid_utf8(col)
            if bad is not None:
                raise InputError(f"{src.label}: row {first_row + bad + 1}: invalid UTF-8")
            col = col.cast(pa.large_string() if pa.types.is_large_binary(col.type) else pa.string())
        if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
            raise InputError(
                f"{src.label}: column {src.text_field!r} has type {col.type}, expected strings"
            )
        if col.null_count:
            first_null = int(np.flatnonzero(pc.is_null(col).to_numpy(zero_copy_only=False))[0])
            raise InputError(
                f"{src.label}: row {first_row + first_null + 1}: row without text "
                f"({src.text_field!r} is null)"
            )
        try:
            col.validate(full=True)
        except pa.ArrowInvalid as e:
            bad = _first_invalid_utf8(
                col.cast(pa.binary() if pa.types.is_string(col.type) else pa.large_binary())
            )
            row = f"row {first_row + bad + 1}" if bad is not None else "a row"
            raise InputError(f"{src.label}: {row}: invalid UTF-8") from e
        if pa.types.is_large_string(col.type):
            col = col.cast(pa.string())
        return col

    def batches(self, src: Input, batch_size: int, start: int) -> Iterator[Batch]:
        """Batches of (Arrow texts, ids).

        >>> [len(b) for b in READER.batches(src, 3, 0)]                # doctest: +SKIP
        [3, 1]
        """
        pf = self.open(src)
        names = pf.schema_arrow.names
        has_id = src.id_field is not None and src.id_field in names
        cols = [src.text_field] + (
            [src.id_field] if has_id and src.id_field != src.text_field else []
        )
        pos = start
        try:
            for rb in pf.iter_batches(batch_size=batch_size, columns=cols, use_threads=_THREADS):
                texts = self._texts(src, rb.column(src.text_field), pos - start)
                n = rb.num_rows
                ids = rb.column(src.id_field).to_pylist() if has_id else list(range(pos, pos + n))
                yield Batch(texts, ids, pos)
                pos += n
        except InputError:
            raise
        except Exception as e:
            raise InputError(f"{src.label}: unreadable Parquet file ({oneline(e)})") from e

    def kept_tables(self, src: Input, keep: np.ndarray, batch_size: int) -> Iterator[Any]:
        """The kept rows as Arrow tables with every column; checks the count against ``keep``.

        >>> sum(t.num_rows for t in READER.kept_tables(src, keep, 8192))  # doctest: +SKIP
        2
        """
        import pyarrow as pa

        pos = 0
        for rb in self.open(src).iter_batches(batch_size=batch_size, use_threads=_THREADS):
            mask = keep[pos : pos + rb.num_rows]
            pos += rb.num_rows
            if mask.any():
                yield pa.Table.from_batches([rb.filter(_arrow_mask(mask))])
        if pos != len(keep):
            raise changed(src)

    def records(self, src: Input, keep: np.ndarray) -> Iterator[tuple[str, dict[str, Any]]]:
        """(where, row as a dict) of every kept row.

        >>> next(READER.records(src, keep))                            # doctest: +SKIP
        ('a.parquet: row 1', {'id': 'a', 'text': 'x'})
        """
        rows = np.flatnonzero(keep)
        done = 0
        for table in self.kept_tables(src, keep, 8192):
            for rec in table.to_pylist():
                yield f"{src.label}: row {int(rows[done]) + 1}", rec
                done += 1


def _arrow_mask(mask: np.ndarray) -> Any:
    """A bool numpy array as an Arrow boolean array, built from its bits: ``pa.array`` on a
    numpy array imports pandas (0.3 s) for nothing."""
    import pyarrow as pa

    bits = pa.py_buffer(np.packbits(mask, bitorder="little"))
    return pa.Array.from_buffers(pa.bool_(), len(mask), [None, bits])


READER = ParquetReader()

#: pyarrow's decoding threads: off, as the run is single-threaded unless asked (they cost 36 %
#: more CPU seconds to read 100k documents' text and ids: benches/compare_cli_api.py's corpus).
_THREADS = False


class _StreamedParquet:
    """A ``pyarrow.parquet.ParquetWriter`` on a file it does not own: a pipe or a device,
    which Arrow's own files would seek in; closing it closes the file too."""

    def __init__(self, path: str, schema: Any) -> None:
        import pyarrow.parquet as pq

        self.file = open(path, "wb")
        try:
            self.writer = pq.ParquetWriter(self.file, schema)
        except BaseException:
            self.file.close()
            raise

    def write_table(self, table: Any) -> None:
        self.writer.write_table(table)

    def close(self) -> None:
        try:
            self.writer.close()
        finally:
            self.file.close()


def parquet_writer(path: str, schema: Any) -> Any:
    """A ``pyarrow.parquet.ParquetWriter`` for ``path`` (written in place when it is a pipe
    or a device: :func:`neardup.io.atomic.output_target`).

    >>> parquet_writer("kept.parquet", schema)                          # doctest: +SKIP
    """
    from neardup.io.atomic import is_streamed

    if is_streamed(path):
        return _StreamedParquet(path, schema)
    import pyarrow.parquet as pq

    return pq.ParquetWriter(path, schema)


class ParquetWriter:
    """Writes kept rows to one Parquet file.

    >>> ParquetWriter("kept.parquet", batch_size=8192).close()         # doctest: +SKIP
    """

    def __init__(self, path: str, batch_size: int) -> None:
        self.path = path
        self.batch_size = batch_size
        self._writer: Any = None

    def _open(self, schema: Any) -> Any:
        if self._writer is None:
            self._writer = parquet_writer(self.path, schema)
        return self._writer

    def write(self, parts: Sequence[tuple[Input, np.ndarray]]) -> int:
        """Write every part's kept rows: Parquet tables as they are, other rows converted.

        >>> ParquetWriter(tmp, 8192).write([(src, keep)])              # doctest: +SKIP
        2
        """
        written = 0
        if all(src.fmt == "parquet" for src, _ in parts):
            for src, keep in parts:
                for table in READER.kept_tables(src, keep, self.batch_size):
                    self._open(table.schema).write_table(table)
                    written += table.num_rows
            if self._writer is None and parts:
                self._open(parts[0][0].schema)
            return written
        schema = self._infer_schema(parts)
        for chunk in self._chunks(parts):
            table = self._table(chunk, schema)
            self._open(schema).write_table(table)
            written += table.num_rows
        self._open(schema)
        return written

    def _chunks(
        self, parts: Sequence[tuple[Input, np.ndarray]]
    ) -> Iterator[list[tuple[str, dict[str, Any]]]]:
        chunk: list[tuple[str, dict[str, Any]]] = []
        for src, keep in parts:
            for item in src.reader.records(src, keep):
                chunk.append(item)
                if len(chunk) >= self.batch_size:
                    yield chunk
                    chunk = []
        if chunk:
            yield chunk

    def _table(self, chunk: list[tuple[str, dict[str, Any]]], schema: Any = None) -> Any:
        import pyarrow as pa

        rows = [rec for _, rec in chunk]
        try:
            if schema is not None:
                return pa.Table.from_pylist(rows, schema=schema)
            # from_pylist alone would take the columns of the first row only
            names = list(dict.fromkeys(k for rec in rows for k in rec))
            return pa.Table.from_pydict({k: [rec.get(k) for rec in rows] for k in names})
        except (pa.ArrowException, TypeError, ValueError, OverflowError) as e:
            where = _first_bad_row(chunk, schema)
            raise InputError(f"{where}: Parquet cannot hold this row ({oneline(e)})") from e

    def _infer_schema(self, parts: Sequence[tuple[Input, np.ndarray]]) -> Any:
        """One schema for every kept row: columns in order of first appearance, types
        widened across batches (int and float give float); fails on incompatible types."""
        import pyarrow as pa

        schemas = [self._table(chunk).schema for chunk in self._chunks(parts)]
        if not schemas:
            src = parts[0][0] if parts else None
            field = src.text_field if src is not None else "text"
            return pa.schema([pa.field(field, pa.string())])
        try:
            return pa.unify_schemas(schemas, promote_options="permissive")
        except (pa.ArrowException, TypeError) as e:
            raise InputError(
                f"{self.path}: the kept rows' fields have incompatible types ({oneline(e)})"
            ) from e

    def close(self) -> None:
        """Write the footer.

        >>> ParquetWriter(tmp, 8192).close()                           # doctest: +SKIP
        """
        if self._writer is not None:
            self._writer.close()
            self._writer = None


def _first_bad_row(chunk: list[tuple[str, dict[str, Any]]], schema: Any) -> str:
    import pyarrow as pa

    for where, rec in chunk:
        try:
            pa.Table.from_pylist([rec], schema=schema)
        except Exception:
            return where
    return chunk[0][0] if chunk else "?"


class ParquetOutput:
    """Parquet as an output format: any input converts.

    >>> OUTPUT.name
    'parquet'
    """

    name = "parquet"

    def check(self, output: str, sources: Sequence[Input]) -> None:
        """Parquet output needs pyarrow.

        >>> OUTPUT.check("kept.parquet", [])                           # doctest: +SKIP
        """
        require_pyarrow()

    def open(self, tmp: str, output: str, sources: Sequence[Input], batch_size: int) -> Writer:
        """A writer to ``tmp``.

        >>> OUTPUT.open(tmp, "kept.parquet", [src], 8192)              # doctest: +SKIP
        <neardup.io.parquet.ParquetWriter object at ...>
        """
        return ParquetWriter(tmp, batch_size)


OUTPUT = ParquetOutput()


def _first_invalid_utf8(binary_col: Any) -> int | None:
    for i, v in enumerate(binary_col.to_pylist()):
        if v is None:
            continue
        try:
            v.decode("utf-8")
        except UnicodeDecodeError:
            return i
    return None
