"""The pieces every format shares: :class:`Batch`, the reader and writer protocols, row checks.

A format is one module of ``neardup.io`` with a :class:`Reader` (streams batches of texts
and ids, copies kept rows unchanged, yields kept rows as records for conversion) and a
:class:`Writer` (writes kept rows of any source it can hold faithfully).

>>> b = Batch(texts=["a", "b"], ids=[0, 1], start=0)
>>> len(b), b.start
(2, 0)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, overload

import numpy as np

from neardup.errors import InputError

DEFAULT_BATCH = 8192


class TextBuffer(tuple):
    """Texts as (UTF-8 bytes uint8[], offsets int64[n + 1]): what the core borrows, one buffer
    for a batch instead of a str per row (the JSONL reader's batches). ``to_pylist`` gives the
    strs, as on an Arrow array. It stays a 2-tuple (``len`` is 2), so everything taking the
    core's ``(data, offsets)`` takes it; :attr:`rows` is the number of texts.

    >>> t = TextBuffer(np.frombuffer("aé".encode(), np.uint8), np.array([0, 1, 3]))
    >>> t.to_pylist(), t.rows
    (['a', 'é'], 2)
    """

    def __new__(cls, data: np.ndarray, offsets: np.ndarray) -> TextBuffer:
        return super().__new__(cls, (data, np.asarray(offsets, dtype=np.int64)))

    @property
    def rows(self) -> int:
        """The number of texts."""
        return len(self[1]) - 1

    def to_pylist(self) -> list[str]:
        """The texts as a list of str."""
        raw = self[0].tobytes()
        bounds = self[1].tolist()
        return [raw[a:b].decode("utf-8") for a, b in itertools.pairwise(bounds)]


class LazyIds(Sequence[Any]):
    """A batch's ids, built on first use: most runs never look at them (``neardup dedup``
    without ``--clusters``), and building a Python object per row costs as much as reading it.

    >>> ids = LazyIds(3, lambda: [7, 8, 9])
    >>> len(ids), ids[1], list(ids)
    (3, 8, [7, 8, 9])
    """

    def __init__(self, n: int, build: Callable[[], list[Any]]) -> None:
        self._n = n
        self._build: Callable[[], list[Any]] | None = build
        self._values: list[Any] = []

    def values(self) -> list[Any]:
        """The ids as a list (built once)."""
        if self._build is not None:
            self._values, self._build = self._build(), None
        return self._values

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> Any: ...
    @overload
    def __getitem__(self, i: slice) -> list[Any]: ...
    def __getitem__(self, i: int | slice) -> Any:
        return self.values()[i]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.values())

    def __eq__(self, other: object) -> bool:
        return self.values() == (other.values() if isinstance(other, LazyIds) else other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.values())


@dataclass
class Batch:
    """A batch of documents: the text column, the ids and the global position of the first row.

    ``texts`` is a ``list[str]``, a :class:`TextBuffer` (JSONL) or a pyarrow string array
    (Parquet), which the core accepts without creating per-row Python objects; ``ids`` a list
    or a :class:`LazyIds`.

    >>> len(Batch(texts=["a", "b"], ids=[0, 1], start=0))
    2
    """

    texts: Any
    ids: Sequence[Any]
    start: int

    def __len__(self) -> int:
        return len(self.ids)


class Input(Protocol):
    """An opened input as readers and writers see it: :class:`neardup.io.source.Source` is
    the one implementation (readers take it as this protocol, so no reader imports source.py,
    which imports the readers to register them).

    >>> from neardup.io.source import Source
    >>> sorted(set(Input.__annotations__) - set(dir(Source)))[:3]
    ['fmt', 'id_field', 'id_required']
    """

    #: The input's name as given (``"-"`` for stdin).
    path: str
    #: The format name (``"jsonl"``, ``"csv"``, ``"parquet"``, ``"folder"``).
    fmt: str
    #: The name errors show (``"<stdin>"`` for stdin).
    label: str
    text_field: str
    id_field: str | None
    id_required: bool
    #: Threads the reader may parse on; the rows do not depend on it.
    threads: int
    #: Parquet schema or CSV header, as the reader's ``check`` returned it.
    schema: Any
    #: The reader of this format.
    reader: Reader

    @property
    def read_path(self) -> str:
        """The file to read: the input itself, or the stdin spool."""
        ...

    def row_id(self, where: str, obj: dict[str, Any], pos: int) -> Any:
        """The id of a record: its id field, else its global position."""
        ...


class Reader(Protocol):
    """What a format offers for reading (one instance per format, stateless).

    >>> from neardup.io.jsonl import READER
    >>> READER.name
    'jsonl'
    """

    #: The name :func:`neardup.io.detect_format` returns for this format.
    name: str

    def check(self, src: Input) -> Any:
        """Fail early on an unreadable input or a missing column; return its schema or None."""
        ...

    def batches(self, src: Input, batch_size: int, start: int) -> Iterator[Batch]:
        """Batches of (texts, ids); ``start`` is the global position of the first row."""
        ...

    def records(self, src: Input, keep: np.ndarray) -> Iterator[tuple[str, dict[str, Any]]]:
        """(where, every field as a dict) of each row where ``keep`` is true (for conversion);
        ``where`` names the file and line or row for error messages."""
        ...


class Writer(Protocol):
    """An open output of one format; :func:`neardup.io.write_kept` drives it.

    >>> from neardup.io.jsonl import JsonlWriter
    >>> hasattr(JsonlWriter, "write")
    True
    """

    def write(self, parts: Sequence[tuple[Input, np.ndarray]]) -> int:
        """Write the rows of each source where its ``keep`` mask is true; return the count."""
        ...

    def close(self) -> None:
        """Flush and close the output."""
        ...


class Output(Protocol):
    """What a format offers for writing (one instance per format, stateless).

    >>> from neardup.io.csvfile import OUTPUT
    >>> OUTPUT.name
    'csv'
    """

    name: str

    def check(self, output: str, sources: Sequence[Input]) -> None:
        """Raise an :class:`InputError` when ``output`` cannot hold these inputs' rows."""
        ...

    def open(self, tmp: str, output: str, sources: Sequence[Input], batch_size: int) -> Writer:
        """A writer to the temporary path ``tmp`` that will become ``output``."""
        ...


def grouped(rows: Iterator[tuple[str, Any]], batch_size: int, start: int) -> Iterator[Batch]:
    """Batches of at most ``batch_size`` (text, id) rows; ``start`` is the first row's position.

    >>> [(b.texts, b.start) for b in grouped(iter([("a", 0), ("b", 1), ("c", 2)]), 2, 5)]
    [(['a', 'b'], 5), (['c'], 7)]
    """
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


def row_text(where: str, field: str, value: Any, present: bool, fields: Iterable[str]) -> str:
    """The text of one row, or an :class:`InputError` saying ``where`` what is wrong with it.

    >>> row_text("a.jsonl:3", "text", "hi", True, ["text"])
    'hi'
    >>> row_text("a.jsonl:3", "text", None, True, ["text"])
    Traceback (most recent call last):
    ...
    neardup.errors.InputError: a.jsonl:3: row without text ('text' is null)
    """
    if not present:
        raise InputError(f"{where}: no field {field!r} (fields: {shown_names(list(fields))})")
    if value is None:
        raise InputError(f"{where}: row without text ({field!r} is null)")
    if not isinstance(value, str):
        raise InputError(f"{where}: {field!r} is {type(value).__name__}, expected a string")
    return value


def check_no_surrogate(where: str, field: str, raw: bytes, text: str) -> None:
    """Raise an :class:`InputError` if ``text`` (parsed from ``raw``) holds a lone surrogate.

    A JSON ``\\uXXXX`` escape is the only way a surrogate, which UTF-8 cannot hold, gets into
    a string parsed from valid UTF-8; paired surrogates decode to one character and pass.
    ASCII texts cost nothing (``isascii`` is a flag in CPython); others one ``in`` scan and,
    with an escape present, one encode.

    >>> check_no_surrogate("a.jsonl:1", "text", rb'{"text": "\\ud83d\\ude00"}', "\\U0001f600")
    >>> check_no_surrogate("a.jsonl:2", "text", rb'{"text": "\\ud800"}', "\\ud800")
    Traceback (most recent call last):
    ...
    neardup.errors.InputError: a.jsonl:2: 'text' holds a lone surrogate (\\ud800), not valid Unicode
    """
    if text.isascii() or b"\\u" not in raw:
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        bad = text[e.start]
        raise InputError(
            f"{where}: {field!r} holds a lone surrogate (\\u{ord(bad):04x}), not valid Unicode"
        ) from None


def oneline(e: BaseException) -> str:
    """An exception's message on one line (pyarrow's span several).

    >>> oneline(ValueError("a\\n  b"))
    'a b'
    """
    return " ".join(str(e).split()) or type(e).__name__


def changed(src: Input) -> InputError:
    """The error for an input whose row count differs between two reads.

    >>> changed(type("S", (), {"label": "a.jsonl"})())
    InputError('a.jsonl: input changed while reading')
    """
    return InputError(f"{src.label}: input changed while reading")


def shown_names(names: Sequence[str], most: int = 8) -> str:
    """Field or column names for a one-line message: the first ``most``, escaped where they
    hold line breaks or other unprintable characters.

    >>> print(shown_names(["id", "te" + chr(10) + "xt"]))
    id, 'te\\nxt'
    >>> shown_names([])
    'none'
    """
    shown = [n if n.isprintable() else repr(n) for n in list(names)[:most]]
    return ", ".join(shown) or "none"


_JSON_SCALARS = ("is_null", "is_boolean", "is_integer", "is_floating", "is_string")


def json_unsafe_column(schema: Any) -> tuple[str, str] | None:
    """(name, type) of the first column whose values JSON cannot hold exactly, or None.

    JSON holds nulls, booleans, numbers, strings, lists and objects; bytes, timestamps,
    decimals, maps and the like would need a lossy or made-up encoding.

    >>> import pyarrow as pa                                           # doctest: +SKIP
    >>> json_unsafe_column(pa.schema([("t", pa.string()), ("b", pa.binary())]))  # doctest: +SKIP
    ('b', 'binary')
    """
    for f in schema:
        if not _json_safe(f.type):
            return f.name, str(f.type)
    return None


def _json_safe(t: Any) -> bool:
    import pyarrow as pa

    if any(getattr(pa.types, check)(t) for check in _JSON_SCALARS) or pa.types.is_large_string(t):
        return True
    if pa.types.is_dictionary(t):
        return _json_safe(t.value_type)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return _json_safe(t.value_type)
    if pa.types.is_struct(t):
        return all(_json_safe(t.field(i).type) for i in range(t.num_fields))
    return False
