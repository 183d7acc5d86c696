"""JSONL (one JSON object a line; also ``.jsonl.gz``, ``.ndjson``, ``.json`` and stdin).

Reading yields the text field and the id field of each non-blank line; writing JSONL from
JSONL copies the kept lines byte for byte, and from any other input writes each kept row as
one JSON object with every field.

Both passes go through the core in blocks of whole lines (``rust/jsonl/mod.rs``): the sign pass
decodes each line's text field into one buffer per batch (:class:`~neardup.io.base.TextBuffer`)
and keeps the id's raw JSON, without a Python object per row; a line the core cannot read
exactly as ``json.loads`` would is read here, by :meth:`JsonlReader.parse`, which gives its
value or the error naming file and line. The texts are decoded into buffers reused across
batches (:class:`_TextPool`: only a buffer nothing else refers to). The write pass moves the
kept lines of each block to the read buffer's front, in place, and writes them from there.

>>> import io
>>> JsonlWriter(io.BytesIO()).write([])  # nothing to write
0
"""

from __future__ import annotations

import gzip
import json
import math
import sys
import zlib
from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any, Protocol

import numpy as np

from neardup import _core
from neardup.errors import InputError
from neardup.io.base import (
    Batch,
    Input,
    LazyIds,
    TextBuffer,
    Writer,
    changed,
    check_no_surrogate,
    grouped,
    json_unsafe_column,
    row_text,
)

#: Bytes of a JSONL input held at a time (the buffer grows for a longer line).
BLOCK = 1 << 24

#: Threads the core parses a block of JSONL on, whatever the run's ``threads``: on this
#: project's 2-core machine two threads made reading 100,000 rows (327 MB) slower, not
#: faster (0.18-0.29 s wall and twice the CPU against 0.16 s; the line scan and the join of
#: the parts are serial and a block's parts are small), so the other stages get the cores.
READ_THREADS = 1


class JsonlReader:
    """Reads JSONL files, gzipped JSONL and the stdin spool (see :class:`neardup.io.Source`).

    >>> READER.name
    'jsonl'
    """

    name = "jsonl"

    def check(self, src: Input) -> Any:
        """Nothing to check before the first line is read.

        >>> READER.check(None) is None
        True
        """
        return None

    def lines(self, src: Input) -> Iterator[tuple[int, bytes]]:
        """(line number, raw line) of every non-blank line, with clear errors for bad gzip.

        >>> next(READER.lines(src))                                    # doctest: +SKIP
        (1, b'{"text": "x"}\\n')
        """
        path = src.read_path
        opener: Any = gzip.open if path.lower().endswith(".gz") else open
        lineno = 0
        try:
            with opener(path, "rb") as f:
                for raw in f:
                    lineno += 1
                    if not raw.isspace():
                        yield lineno, raw
        except (OSError, EOFError, zlib.error) as e:
            raise InputError(f"{src.label}:{lineno + 1}: cannot read ({e})") from e

    def parse(self, src: Input, lineno: int, raw: bytes) -> dict[str, Any]:
        """One line as a JSON object, or an :class:`InputError` naming file and line.

        >>> READER.parse(src, 1, b'{"text": "x"}')                     # doctest: +SKIP
        {'text': 'x'}
        """
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(f"{src.label}:{lineno}: invalid UTF-8 at byte {e.start}") from e
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{src.label}:{lineno}: invalid JSON ({e.msg})") from e
        if not isinstance(obj, dict):
            raise InputError(
                f"{src.label}:{lineno}: expected a JSON object, got {type(obj).__name__}"
            )
        return obj

    def _rows(self, src: Input, start: int) -> Iterator[tuple[str, Any]]:
        field = src.text_field
        for pos, (lineno, raw) in enumerate(self.lines(src), start):
            obj = self.parse(src, lineno, raw)
            where = f"{src.label}:{lineno}"
            text = row_text(where, field, obj.get(field), field in obj, obj.keys())
            check_no_surrogate(where, field, raw, text)
            yield text, src.row_id(where, obj, pos)

    def batches(self, src: Input, batch_size: int, start: int) -> Iterator[Batch]:
        """Batches of (texts, ids) in line order: the core's fast path, or this module's
        parser alone when the text field is also the id field.

        >>> [len(b) for b in READER.batches(src, 2, 0)]                # doctest: +SKIP
        [2, 1]
        """
        if src.id_field is not None and src.id_field == src.text_field:
            return grouped(self._rows(src, start), batch_size, start)
        return self._scanned(src, batch_size, start)

    def _scanned(self, src: Input, batch_size: int, start: int) -> Iterator[Batch]:
        # A batch never spans two buffer fills (no copy to join them): batch_size rows at most.
        pos, lineno = start, 0  # lineno: lines before ``at``
        pool = _TextPool()
        with _Buffered(src) as buffered:
            consumed = 0
            while (view := buffered.fill(consumed, lineno)) is not None:
                at = 0
                while at < len(view):
                    text = pool.get(len(buffered.buf))
                    part = _Part(view, at, text, lineno, pos, src, batch_size, buffered.eof)
                    end, lines, rows = part.end, part.lines, part.rows
                    ids = LazyIds(rows, part.ids.values)  # not the part: ids hold no texts
                    batch = Batch(TextBuffer(part.data, part.offsets), ids, pos)
                    # Only the batch holds its texts: once the consumer lets it go, the pool
                    # reuses the buffer.
                    del text, part
                    if end == at:  # only the start of a line left: read on
                        del batch
                        break
                    at, lineno = end, lineno + lines
                    if rows:
                        yield batch
                        pos += rows
                    del batch
                consumed = at

    def copy_kept(self, src: Input, keep: np.ndarray, sink: _ByteSink) -> int:
        """Write the kept lines to ``sink`` byte for byte (a line break added to a last line
        without one); checks the count against ``keep``. Returns the lines written.

        >>> READER.copy_kept(src, np.array([False, True]), sink)       # doctest: +SKIP
        1
        """
        keep = np.ascontiguousarray(keep, dtype=bool)
        done, lineno = 0, 0
        with _Buffered(src) as buffered:
            consumed = 0
            while (view := buffered.fill(consumed, lineno)) is not None:
                rest = keep[min(done, len(keep)) :]
                # The kept lines move to the buffer's front (the unread rest stays put): one
                # write from the buffer, no copy of them made.
                size, newline, rows, consumed, lines = _core.jsonl_kept_lines(
                    view, buffered.eof, rest
                )
                if done + rows > len(keep):
                    raise changed(src)
                _write_all(sink, memoryview(view[:size]))  # type: ignore[arg-type]
                if newline:
                    _write_all(sink, b"\n")
                done, lineno = done + rows, lineno + lines
        if done != len(keep):
            raise changed(src)
        return int(np.count_nonzero(keep))

    def kept_lines(self, src: Input, keep: np.ndarray) -> Iterator[tuple[int, bytes]]:
        """(line number, raw line) of the kept lines; checks the count against ``keep``.

        >>> list(READER.kept_lines(src, np.array([False, True])))       # doctest: +SKIP
        [(2, b'{"text": "y"}\\n')]
        """
        i = -1
        for i, (lineno, raw) in enumerate(self.lines(src)):
            if i >= len(keep):
                raise changed(src)
            if keep[i]:
                yield lineno, raw
        if i + 1 != len(keep):
            raise changed(src)

    def records(self, src: Input, keep: np.ndarray) -> Iterator[tuple[str, dict[str, Any]]]:
        """(where, parsed JSON object) of every kept row.

        >>> list(READER.records(src, np.array([True])))                # doctest: +SKIP
        [('a.jsonl:1', {'id': 1, 'text': 'x'})]
        """
        for lineno, raw in self.kept_lines(src, keep):
            yield f"{src.label}:{lineno}", self.parse(src, lineno, raw)


READER = JsonlReader()


class _ByteSink(Protocol):
    def write(self, data: bytes | memoryview, /) -> int | None: ...
    def flush(self) -> None: ...
    def close(self) -> None: ...


class JsonlWriter:
    """Writes kept rows to a binary stream as JSONL.

    >>> import io
    >>> JsonlWriter(io.BytesIO()).close()
    """

    def __init__(self, sink: _ByteSink, own: bool = False) -> None:
        self.sink = sink
        self.own = own

    def write(self, parts: Sequence[tuple[Input, np.ndarray]]) -> int:
        """Write every part's kept rows; JSONL lines are copied unchanged.

        >>> JsonlWriter(io.BytesIO()).write([(src, keep)])             # doctest: +SKIP
        2
        """
        written = 0
        for src, keep in parts:
            if src.fmt == "jsonl":
                written += READER.copy_kept(src, keep, self.sink)
                continue
            for where, record in src.reader.records(src, keep):
                self.sink.write(_dumps(where, record) + b"\n")
                written += 1
        return written

    def close(self) -> None:
        """Flush, and close the stream if this writer opened it.

        >>> import io
        >>> JsonlWriter(io.BytesIO(), own=True).close()
        """
        self.sink.flush()
        if self.own:
            self.sink.close()


class JsonlOutput:
    """JSONL as an output format: any input converts (Parquet types JSON cannot hold refuse).

    >>> OUTPUT.name
    'jsonl'
    """

    name = "jsonl"

    def check(self, output: str, sources: Sequence[Input]) -> None:
        """Refuse, before anything is written, inputs whose rows JSON cannot hold exactly.

        >>> OUTPUT.check("kept.jsonl", [])
        """
        for src in sources:
            if src.fmt == "parquet":
                bad = json_unsafe_column(src.schema)
                if bad is not None:
                    name, typ = bad
                    raise InputError(
                        f"{output}: column {name!r} of {src.label} has type {typ}, which JSONL "
                        "cannot hold exactly; write Parquet output (.parquet) instead"
                    )

    def open(self, tmp: str, output: str, sources: Sequence[Input], batch_size: int) -> Writer:
        """A writer to ``tmp``; gzipped when ``output`` ends in ``.gz``.

        >>> OUTPUT.open(tmp, "kept.jsonl.gz", [src], 8192)             # doctest: +SKIP
        <neardup.io.jsonl.JsonlWriter object at ...>
        """
        if output.lower().endswith(".gz"):
            return JsonlWriter(gzip.open(tmp, "wb", compresslevel=6), own=True)
        return JsonlWriter(open(tmp, "wb"), own=True)


OUTPUT = JsonlOutput()


def _write_all(sink: _ByteSink, data: bytes | memoryview) -> None:
    """Write all of ``data``: a buffered stdout may take only part of a big write to a pipe
    whose reader left (and say so by its count alone); the next write raises
    BrokenPipeError, which the command line turns into exit 141."""
    view = memoryview(data)
    while view:
        n = sink.write(view)
        view = view[len(view) if n is None else n :]


class _RawIds:
    """The ids of some consecutive rows as the core kept them: each id's raw JSON followed by
    a comma (an empty span: no id field, or a row read here, whose id is in ``overrides``)."""

    def __init__(self, raw: np.ndarray, spans: np.ndarray, pos: int, src: Input) -> None:
        self.raw, self.spans, self.pos = raw, spans, pos
        self.named = src.id_field is not None
        self.overrides: dict[int, Any] = {}

    def values(self) -> list[Any]:
        """The id field's value of each row, else its global position."""
        n = len(self.spans) - 1
        if not self.named:
            return list(range(self.pos, self.pos + n))
        values = iter(json.loads(b"[" + self.raw.tobytes()[:-1] + b"]"))
        present = (self.spans[1:] > self.spans[:-1]).tolist()
        out = [next(values) if has else self.pos + i for i, has in enumerate(present)]
        for row, value in self.overrides.items():
            out[row] = value
        return out


class _TextPool:
    """The buffers the core decodes batches' texts into, each reused once nothing refers to it:
    a fresh buffer per batch is fresh pages to fault in (and zero) for every batch. A batch's
    texts are a view of its buffer, and every view, memoryview or array built on them refers to
    the buffer, so the pool's reference being the only one means no text of it is reachable.

    >>> pool = _TextPool()
    >>> a = pool.get(10)
    >>> texts = a[:4]           # a batch's texts, still held
    >>> b = pool.get(10)
    >>> b is a
    False
    >>> del texts, a
    >>> pool.get(10) is pool.buffers[0]
    True
    """

    #: Buffers kept (two alternate while a consumer holds one batch as the next is read).
    SIZE = 3

    def __init__(self) -> None:
        self.buffers: list[np.ndarray] = []
        self.buffers.append(np.empty(0, dtype=np.uint8))
        self._free = self._refs(0)  # the count of a buffer nothing else refers to
        self.buffers.clear()

    def _refs(self, i: int) -> int:
        return sys.getrefcount(self.buffers[i])

    def get(self, size: int) -> np.ndarray:
        """A buffer of at least ``size`` bytes that nothing else refers to."""
        for i in range(len(self.buffers)):
            if self._refs(i) <= self._free:
                if len(self.buffers[i]) >= size:
                    return self.buffers[i]
                self.buffers[i] = np.empty(size, dtype=np.uint8)  # outgrown: replaced
                return self.buffers[i]
        buf = np.empty(size, dtype=np.uint8)
        if len(self.buffers) < self.SIZE:
            self.buffers.append(buf)
        return buf


class _Part:
    """The rows the core read from ``view[at:]`` (at most ``most``; their texts decoded into
    ``into``, at least ``len(view) - at`` bytes), with the lines it could not read taken from
    :meth:`JsonlReader.parse` (their value, or their error)."""

    def __init__(
        self,
        view: np.ndarray,
        at: int,
        into: np.ndarray,
        lineno: int,
        pos: int,
        src: Input,
        most: int,
        last: bool,
    ) -> None:
        field, id_field = src.text_field, src.id_field
        size, offsets, raw_ids, id_offsets, fallback, self.end, self.lines = _core.jsonl_scan(
            view, at, into, last, field, id_field, src.id_required, most, READ_THREADS
        )
        data = into[:size]
        self.rows = len(offsets) - 1
        self.ids = _RawIds(raw_ids, id_offsets, pos, src)
        if len(fallback):
            texts: dict[int, bytes] = {}
            for row, a, b, line in fallback.tolist():
                raw = view[a:b].tobytes()
                where = f"{src.label}:{lineno + line + 1}"
                obj = READER.parse(src, lineno + line + 1, raw)
                text = row_text(where, field, obj.get(field), field in obj, obj.keys())
                check_no_surrogate(where, field, raw, text)
                self.ids.overrides[row] = src.row_id(where, obj, pos + row)
                texts[row] = text.encode("utf-8")
            data, offsets = _spliced(data, offsets, texts)
        self.data, self.offsets = data, offsets


class _Buffered:
    """A JSONL input read into one reused buffer: what the last call did not consume moves to
    its front and more is read behind it (the buffer doubles for a line longer than it).
    Read errors become :class:`InputError` naming the first line not read whole."""

    def __init__(self, src: Input, size: int | None = None) -> None:
        self.src = src
        self.buf = np.empty(size or BLOCK, dtype=np.uint8)
        self.end = 0
        self.eof = False
        self._file: Any = None

    def __enter__(self) -> _Buffered:
        path = self.src.read_path
        plain = not path.lower().endswith(".gz")
        opener: Any = open if plain else gzip.open
        self._file = self._reading(lambda: opener(path, "rb"), 0)
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()

    def _readinto(self, window: memoryview) -> int:
        """Bytes read into ``window`` by the file object (0 at the end)."""
        return self._file.readinto(window) or 0

    def _reading(self, read: Any, lineno: int) -> Any:
        try:
            return read()
        except (OSError, EOFError, zlib.error) as e:
            raise InputError(f"{self.src.label}:{lineno + 1}: cannot read ({e})") from e

    def fill(self, consumed: int, lineno: int) -> np.ndarray | None:
        """Drop the first ``consumed`` bytes, read until the buffer is full or the input ends;
        the bytes held, or None when none are left (``lineno``: lines consumed so far)."""
        rest = self.end - consumed
        if consumed:
            self.buf[:rest] = self.buf[consumed : self.end]
        elif rest == len(self.buf):
            self.buf = np.concatenate([self.buf, np.empty(len(self.buf), dtype=np.uint8)])
        self.end = rest
        while not self.eof and self.end < len(self.buf):
            window: Any = memoryview(self.buf)[self.end :]  # type: ignore[arg-type]
            got = self._reading(partial(self._readinto, window), lineno)
            self.eof = not got
            self.end += got
        return self.buf[: self.end] if self.end else None


def _spliced(data: np.ndarray, offsets: np.ndarray, texts: dict[int, bytes]) -> tuple[Any, Any]:
    """The text buffer with the (empty) texts of some rows replaced."""
    lengths = np.diff(offsets)
    for row, text in texts.items():
        lengths[row] = len(text)
    new_offsets = np.zeros(len(offsets), dtype=np.int64)
    np.cumsum(lengths, out=new_offsets[1:])
    out = np.empty(int(new_offsets[-1]), dtype=np.uint8)
    prev = 0  # rows before ``prev`` are copied
    for row in sorted(texts):
        a, b = int(offsets[prev]), int(offsets[row])
        out[new_offsets[prev] : new_offsets[prev] + (b - a)] = data[a:b]
        out[new_offsets[row] : new_offsets[row + 1]] = np.frombuffer(texts[row], np.uint8)
        prev = row + 1
    a = int(offsets[prev])
    out[new_offsets[prev] :] = data[a:]
    return out, new_offsets


def _dumps(where: str, record: dict[str, Any]) -> bytes:
    try:
        return json.dumps(record, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (ValueError, TypeError, UnicodeEncodeError) as e:
        what = "NaN or infinity" if _has_nonfinite(record) else str(e)
        raise InputError(f"{where}: JSONL cannot hold this row ({what})") from e


def _has_nonfinite(v: Any) -> bool:
    if isinstance(v, float):
        return not math.isfinite(v)
    if isinstance(v, dict):
        return any(_has_nonfinite(x) for x in v.values())
    if isinstance(v, list):
        return any(_has_nonfinite(x) for x in v)
    return False
