"""Where the documents of a run live: the two document stores the engine reads through.

The engine (:mod:`neardup.engine`) never touches a list or a file itself; it asks its store
for the documents in batches, once per pass (``"sign"``, the boilerplate passes, and the
second pass that shingles only the candidates). A store is anything with
``batches(pass_name)`` yielding objects with ``.texts`` (what the core accepts) and
``.start`` (the global position of the batch's first document) and a length, and, for
``keep="priority"``, ``priorities(rows)`` (the numbers the keep policy compares).

* :class:`MemoryStore` — texts given to :func:`neardup.find_duplicates`, already converted
  once for the core; batches are slices, so a pass costs no copy of the corpus.
* :class:`FileStore` — the inputs of ``neardup dedup``, read through
  :func:`neardup.io.iter_batches` (the one loop numbering documents across files): bounded
  memory, the text never held, ids collected on the sign pass (built only when asked for);
  on more than one thread the next batch is read while the current one is signed
  (:func:`read_ahead`).

>>> store = MemoryStore(["a b", "c d", "e f"], batch_size=2)
>>> [(b.start, len(b)) for b in store.batches("sign")]
[(0, 2), (2, 1)]
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

import numpy as np

from neardup import _core
from neardup._texts import CoreTexts, as_core_texts, count
from neardup.errors import InvalidArgumentError
from neardup.keep import NO_PRIORITIES, check_priorities, exact_priorities, row_priority

if TYPE_CHECKING:
    from neardup import io as ndio

#: Documents per batch of an in-memory run (memory of one batch's shingle sets, not a result).
MEMORY_BATCH = 8192


class Progress(Protocol):
    """``progress(stage, n, unit)``: ``n`` more ``unit`` done in ``stage`` (the reading passes
    count documents; the near stage's steps count what they work through: LSH ``bands``,
    verified ``pairs``)."""

    def __call__(self, stage: str, n: int, unit: str = "docs") -> None: ...


def no_progress(stage: str, n: int, unit: str = "docs") -> None:
    """A :class:`Progress` that shows nothing (``neardup dedup -q``'s, a file store's default)."""


class Batch(Protocol):
    """One batch of a store: the texts for the core and the global position of the first."""

    texts: Any
    start: int

    def __len__(self) -> int: ...


class DocumentStore(Protocol):
    """What the engine needs from the documents: the same batches, in order, on every pass."""

    def batches(self, pass_name: str) -> Iterator[Batch]: ...

    def priorities(self, rows: np.ndarray) -> np.ndarray: ...

    @property
    def progress(self) -> Progress | None:
        """Hears each pass's batches and the near stage's steps (None: nothing to show)."""


@dataclass
class TextBatch:
    """A slice of an in-memory corpus.

    >>> len(TextBatch(["a", "b"], 0))
    2
    """

    texts: CoreTexts
    start: int

    def __len__(self) -> int:
        return count(self.texts)


def slice_texts(texts: CoreTexts, a: int, b: int) -> CoreTexts:
    """Documents ``a`` to ``b`` of core texts (Arrow-style offsets start again at 0).

    >>> slice_texts(["x", "y", "z"], 1, 3)
    ['y', 'z']
    """
    if isinstance(texts, list):
        return texts[a:b]
    data, offsets = texts
    return data[offsets[a] : offsets[b]], offsets[a : b + 1] - offsets[a]


class MemoryStore:
    """The texts of an in-memory run, converted once (errors name ``texts[i]``).

    >>> MemoryStore(["x", "y"]).n
    2
    """

    def __init__(
        self,
        texts: Any,
        batch_size: int = MEMORY_BATCH,
        priorities: Any = None,
        partitions: np.ndarray | None = None,
    ) -> None:
        self.texts: CoreTexts = as_core_texts(texts)
        self.n = count(self.texts)
        self.batch_size = batch_size
        #: uint64[n] partition keys (``within=``; :func:`neardup._validate.check_keys`).
        self.partitions = partitions
        #: An in-memory run shows no progress.
        self.progress: Progress | None = None
        #: The priorities for ``keep="priority"`` (checked here: one number per document),
        #: integers as integers (:func:`neardup.keep.check_priorities`).
        self._priorities = None if priorities is None else check_priorities(priorities, self.n)

    def text_size(self) -> int:
        """Characters (bytes for UTF-8 buffers) of the texts held: the engine holds their sets
        up to a share of it (:func:`neardup.engine.hold_budget`).

        >>> MemoryStore(["héllo", "ab"]).text_size()
        7
        """
        if isinstance(self.texts, list):
            chars = _core.str_chars(self.texts)
            return sum(map(len, self.texts)) if chars is None else chars
        return len(self.texts[0])

    def priorities(self, rows: np.ndarray) -> np.ndarray:
        """The priorities of ``rows`` (``keep="priority"``).

        >>> MemoryStore(["x", "y"], priorities=[2, 1]).priorities(np.array([1])).tolist()
        [1]
        """
        if self._priorities is None:
            raise InvalidArgumentError(NO_PRIORITIES)
        return self._priorities[rows]

    def batches(self, pass_name: str) -> Iterator[TextBatch]:
        """The corpus in slices of ``batch_size`` documents (one slice when it is smaller).

        >>> [len(b) for b in MemoryStore(["x"] * 5, batch_size=2).batches("sign")]
        [2, 2, 1]
        """
        if self.n <= self.batch_size:
            yield TextBatch(self.texts, 0)
            return
        for a in range(0, self.n, self.batch_size):
            yield TextBatch(slice_texts(self.texts, a, min(a + self.batch_size, self.n)), a)


class FileStore:
    """The inputs of ``neardup dedup``, streamed in batches; ids are gathered on the sign pass.

    >>> from neardup import io as ndio
    >>> store = FileStore(ndio.open_sources(["corpus.jsonl"]), 8192)
    """

    def __init__(
        self,
        sources: Sequence[ndio.Source],
        batch_size: int,
        progress: Progress | None = None,
        priority_field: str | None = None,
    ) -> None:
        self.sources = list(sources)
        self.batch_size = batch_size
        self.progress: Progress = progress or no_progress
        self._ids: list[Sequence[Any]] = []
        self.priority_field = priority_field
        #: uint64[n] partition keys (``--within``), read before the sign pass.
        self.partitions: np.ndarray | None = None
        #: Read the next batch on a thread of its own while the engine works on this one:
        #: with the run on several threads, reading would otherwise leave the others idle.
        self.read_ahead = any(s.threads > 1 for s in self.sources)

    @property
    def ids(self) -> list[Any]:
        """The ids of every document of the last sign pass, in order (built on first use:
        a JSONL batch keeps its ids as raw JSON until then).

        >>> from neardup import io as ndio
        >>> store = FileStore(ndio.open_sources(["corpus.jsonl"]), 4)
        >>> sum(len(b) for b in store.batches("sign")), store.ids[:2]
        (6, ['a', 'b'])
        """
        if len(self._ids) != 1 or not isinstance(self._ids[0], list):
            self._ids = [[i for part in self._ids for i in part]]
        ids = self._ids[0]
        assert isinstance(ids, list)
        return ids

    def priorities(self, rows: np.ndarray) -> np.ndarray:
        """The ``priority_field`` of the rows at the sorted positions ``rows``, read once
        more from the inputs (``--keep-priority``: only cluster members are read).

        >>> from neardup import io as ndio
        >>> store = FileStore(ndio.open_sources(["a.jsonl"]), 10, priority_field="id")
        >>> _ = list(store.batches("sign"))
        >>> store.priorities(np.array([1]))
        Traceback (most recent call last):
        ...
        neardup.errors.InputError: a.jsonl:2: 'id' is str, expected a number (priority)
        """
        if self.priority_field is None:
            raise InvalidArgumentError("keep='priority' needs a priority field (--keep-priority)")
        wanted = np.zeros(sum(s.n_rows or 0 for s in self.sources), dtype=bool)
        wanted[rows] = True
        out: list[int | float] = []
        start = 0
        for src in self.sources:
            part = wanted[start : start + (src.n_rows or 0)]
            start += len(part)
            if part.any():
                for where, record in src.reader.records(src, part):
                    out.append(row_priority(where, self.priority_field, record, src.fmt == "csv"))
        return exact_priorities(out)  # integers compared as integers, floats as floats

    def batches(self, pass_name: str) -> Iterator[ndio.Batch]:
        """Every batch of every input in turn, with a running position.

        >>> from neardup import io as ndio
        >>> batch = next(FileStore(ndio.open_sources(["corpus.jsonl"]), 10).batches("sign"))
        >>> batch.start, batch.ids
        (0, ['a', 'b', 'c', 'd', 'e', 'f'])
        """
        if pass_name == "sign":
            self._ids = []
        from neardup import io as ndio  # files only: `import neardup` does not load io

        batches = ndio.iter_batches(self.sources, self.batch_size)
        for batch in read_ahead(batches) if self.read_ahead else batches:
            if pass_name == "sign":
                self._ids.append(batch.ids)
            yield batch
            self.progress("read" if pass_name == "sign" else pass_name, len(batch))


T = TypeVar("T")

_END = object()


def read_ahead(items: Iterator[T]) -> Iterator[T]:
    """The items of ``items``, each next one taken on a worker thread while the caller works
    on the current one: the readers release the GIL while they parse, so reading overlaps the
    engine's work. Same items in the same order; an error of ``items`` is raised where it
    would be without reading ahead (after every item before it). ``items`` runs on the worker
    thread only, one step at a time, and is closed once its last step has finished.

    >>> list(read_ahead(iter(range(3))))
    [0, 1, 2]
    """
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="neardup-read") as pool:
        pending: concurrent.futures.Future[T | object] = pool.submit(next, items, _END)
        try:
            while True:
                item = pending.result()
                if item is _END:
                    return
                pending = pool.submit(next, items, _END)
                yield cast(T, item)
        finally:
            concurrent.futures.wait([pending])  # the step in flight ends before the close
            close = getattr(items, "close", None)
            if close is not None:
                pool.submit(close).result()


def char_lengths(texts: Any) -> np.ndarray:
    """Characters of each document, int64[n] (the ``keep="longest"`` policy's measure, counted
    by the crate as the sign pass counts them).

    >>> char_lengths(["héllo", ""]).tolist()
    [5, 0]
    """
    return _core.char_counts(as_core_texts(texts))
