"""JSONL (one JSON object a line; also ``.jsonl.gz``, ``.ndjson``, ``.json`` and stdin).

Reading yields the text field and the id field of each non-blank line; writing JSONL from
JSONL copies the kept lines byte for byte, and from any other input writes each kept row as
one JSON object with every field.

>>> import io
>>> JsonlWriter(io.BytesIO()).write([])  # nothing to write
0
"""

from __future__ import annotations

import gzip
import json
import math
import zlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from neardup.errors import InputError
from neardup.io.base import Batch, Writer, changed, check_no_surrogate, grouped, row_text

if TYPE_CHECKING:
    from neardup.io.source import Source


class JsonlReader:
    """Reads JSONL files, gzipped JSONL and the stdin spool (see :class:`neardup.io.Source`).

    >>> READER.name
    'jsonl'
    """

    name = "jsonl"

    def check(self, src: Source) -> Any:
        """Nothing to check before the first line is read.

        >>> READER.check(None) is None
        True
        """
        return None

    def lines(self, src: Source) -> Iterator[tuple[int, bytes]]:
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

    def parse(self, src: Source, lineno: int, raw: bytes) -> dict[str, Any]:
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

    def _rows(self, src: Source, start: int) -> Iterator[tuple[str, Any]]:
        field = src.text_field
        for pos, (lineno, raw) in enumerate(self.lines(src), start):
            obj = self.parse(src, lineno, raw)
            where = f"{src.label}:{lineno}"
            text = row_text(where, field, obj.get(field), field in obj, obj.keys())
            check_no_surrogate(where, field, raw, text)
            yield text, src.row_id(where, obj, pos)

    def batches(self, src: Source, batch_size: int, start: int) -> Iterator[Batch]:
        """Batches of (texts, ids) in line order.

        >>> [len(b) for b in READER.batches(src, 2, 0)]                # doctest: +SKIP
        [2, 1]
        """
        return grouped(self._rows(src, start), batch_size, start)

    def kept_lines(self, src: Source, keep: np.ndarray) -> Iterator[tuple[int, bytes]]:
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

    def records(self, src: Source, keep: np.ndarray) -> Iterator[tuple[str, dict[str, Any]]]:
        """(where, parsed JSON object) of every kept row.

        >>> list(READER.records(src, np.array([True])))                # doctest: +SKIP
        [('a.jsonl:1', {'id': 1, 'text': 'x'})]
        """
        for lineno, raw in self.kept_lines(src, keep):
            yield f"{src.label}:{lineno}", self.parse(src, lineno, raw)


READER = JsonlReader()


class _ByteSink(Protocol):
    def write(self, data: bytes, /) -> int: ...
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

    def write(self, parts: Sequence[tuple[Source, np.ndarray]]) -> int:
        """Write every part's kept rows; JSONL lines are copied unchanged.

        >>> JsonlWriter(io.BytesIO()).write([(src, keep)])             # doctest: +SKIP
        2
        """
        written = 0
        for src, keep in parts:
            if src.fmt == "jsonl":
                for _, raw in READER.kept_lines(src, keep):
                    self.sink.write(raw if raw.endswith(b"\n") else raw + b"\n")
                    written += 1
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

    def check(self, output: str, sources: Sequence[Source]) -> None:
        """Refuse, before anything is written, inputs whose rows JSON cannot hold exactly.

        >>> OUTPUT.check("kept.jsonl", [])
        """
        for src in sources:
            if src.fmt == "parquet":
                from neardup.io.parquet import json_unsafe_column

                bad = json_unsafe_column(src.schema)
                if bad is not None:
                    name, typ = bad
                    raise InputError(
                        f"{output}: column {name!r} of {src.label} has type {typ}, which JSONL "
                        "cannot hold exactly; write Parquet output (.parquet) instead"
                    )

    def open(self, tmp: str, output: str, sources: Sequence[Source], batch_size: int) -> Writer:
        """A writer to ``tmp``; gzipped when ``output`` ends in ``.gz``.

        >>> OUTPUT.open(tmp, "kept.jsonl.gz", [src], 8192)             # doctest: +SKIP
        <neardup.io.jsonl.JsonlWriter object at ...>
        """
        if output.lower().endswith(".gz"):
            return JsonlWriter(gzip.open(tmp, "wb", compresslevel=6), own=True)
        return JsonlWriter(open(tmp, "wb"), own=True)


OUTPUT = JsonlOutput()


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
