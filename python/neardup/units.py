"""Units of many rows (``unit_of=``, ``--unit-key``): rows sharing a key are one document.

A repository's files, a conversation's turns or a book's chapters are deduplicated as one
unit: its rows' texts are joined in row order with :data:`UNIT_SEPARATOR` between them, the
run compares units, and each row then carries its unit's decision (kept or removed whole).
Units are numbered by their first row, so ``keep="first"`` keeps the unit that starts first
and cluster labels, representatives and pairs name units by their first row.

The separator is a word of three Runic letters (ᚠᚡᚢ) between two line breaks: it survives
normalisation as a word of its own in every hash version, so the shingles that cross a row
boundary hold it. Two units share such a shingle only where both have the same rows meeting
at a boundary; rows are never glued into words or shingles that a single row could hold
("the quick" + "brown fox" never matches a row "the quick brown fox").

>>> u = Units.from_keys(np.array([7, 9, 7], dtype=np.uint64))
>>> u.of_row.tolist(), u.first_row.tolist()
([0, 1, 0], [0, 1])
>>> data, offsets = u.join(["a", "b", "c"])
>>> bytes(data[offsets[0] : offsets[1]]).decode() == "a" + UNIT_SEPARATOR + "c"
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from neardup import _core
from neardup._texts import core_texts
from neardup.errors import InvalidArgumentError
from neardup.stores import Progress, TextBatch, slice_texts

#: What joins the rows of a unit (see the module docstring; the crate's, ``rust/units.rs``).
UNIT_SEPARATOR: str = _core.UNIT_SEPARATOR


@dataclass(frozen=True)
class Units:
    """Which rows form which unit: ``of_row`` int64[n] (units numbered by first row),
    ``first_row`` int64[u] (increasing), ``order`` (the rows grouped by unit, in row order)
    and ``bounds`` int64[u + 1] (unit ``i``'s rows are ``order[bounds[i]:bounds[i + 1]]``)."""

    of_row: np.ndarray
    first_row: np.ndarray
    order: np.ndarray
    bounds: np.ndarray

    @classmethod
    def from_keys(cls, keys: np.ndarray) -> Units:
        """The units of rows given their key hashes (:func:`neardup._validate.check_keys`).

        >>> Units.from_keys(np.array([5, 5, 3], dtype=np.uint64)).bounds.tolist()
        [0, 2, 3]
        """
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        rank = np.argsort(first, kind="stable")
        number = np.empty(len(first), dtype=np.int64)
        number[rank] = np.arange(len(first), dtype=np.int64)
        of_row = number[inverse.reshape(-1)]
        order = np.argsort(of_row, kind="stable").astype(np.int64)
        bounds = np.zeros(len(first) + 1, dtype=np.int64)
        np.cumsum(np.bincount(of_row, minlength=len(first)), out=bounds[1:])
        return cls(of_row, first[rank].astype(np.int64), order, bounds)

    def __len__(self) -> int:
        return len(self.first_row)

    @property
    def rows(self) -> int:
        """Rows in all units."""
        return len(self.of_row)

    def join(self, texts: Any) -> tuple[np.ndarray, np.ndarray]:
        """Each unit's text, as Arrow-style (UTF-8 bytes, offsets): its rows' texts (core
        texts of every row) in row order joined by :data:`UNIT_SEPARATOR`, in the crate
        (``_core.UnitJoiner``).

        >>> units = Units.from_keys(np.array([1, 2, 1], dtype=np.uint64))
        >>> data, offsets = units.join(["a", "b", "c"])
        >>> offsets.tolist(), bytes(data[offsets[1] : offsets[2]])
        ([0, 13, 14], b'b')
        """
        joiner = _core.UnitJoiner(self.of_row, len(self))
        joined = joiner.add(core_texts(texts))
        if joiner.units_left:
            raise InvalidArgumentError(f"{joiner.units_left} units have rows missing")
        return joined

    def partitions(self, salts: np.ndarray) -> np.ndarray:
        """The partition key of each unit (``within=`` with ``unit_of=``); a unit whose rows
        have different partition keys is refused.

        >>> u = Units.from_keys(np.array([1, 2, 1], dtype=np.uint64))
        >>> u.partitions(np.array([4, 4, 5], dtype=np.uint64))
        Traceback (most recent call last):
        ...
        neardup.errors.InvalidArgumentError: rows 0 and 2 are one unit but in two partitions ...
        """
        mine = salts[self.first_row]
        odd = np.flatnonzero(salts != mine[self.of_row])
        if len(odd):
            row = int(odd[0])
            raise InvalidArgumentError(
                f"rows {int(self.first_row[self.of_row[row]])} and {row} are one unit but in "
                "two partitions (within)"
            )
        return mine

    def priorities(self, values: np.ndarray) -> np.ndarray:
        """Each unit's priority: the highest of its rows' (``keep="priority"``).

        >>> Units.from_keys(np.array([1, 2, 1], dtype=np.uint64)).priorities(np.array([3, 9, 4]))
        array([4, 9])
        """
        out = np.full(len(self), np.iinfo(np.int64).min if values.dtype.kind in "iu" else -np.inf)
        out = out.astype(values.dtype, copy=False)
        np.maximum.at(out, self.of_row, values)
        return out

    def expand(self, outcome: Any) -> Any:
        """A run over the units (:class:`neardup.engine.Outcome`) as one over the rows: every
        row takes its unit's decision; clusters, representatives, first exact duplicates and
        pairs name units by their first row; ``info`` counts ``units`` and ``rows`` (and
        ``exact_duplicates`` in rows)."""
        f, of = self.first_row, self.of_row
        info = {**outcome.info, "units": len(self), "rows": self.rows}
        info["exact_duplicates"] = int(np.count_nonzero(outcome.first[of] != of))
        info["documents"] = self.rows
        return dataclasses.replace(
            outcome,
            pairs=f[outcome.pairs] if len(outcome.pairs) else outcome.pairs,
            labels=f[outcome.labels[of]],
            keep=outcome.keep[of],
            representative=f[outcome.representative[of]],
            first=f[outcome.first[of]],
            empty=outcome.empty[of],
            info=info,
            evidence=RowEvidence(outcome.evidence, of),
        )


class RowEvidence:
    """A units run's evidence asked about rows: ``similarity`` of rows is that of their
    units (what :func:`neardup.engine.kept_similarity` needs after :meth:`Units.expand`)."""

    def __init__(self, inner: Any, of_row: np.ndarray) -> None:
        self.inner, self.of_row = inner, of_row

    def similarity(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """float64[m]: the similarity of the units of rows ``a`` and ``b``."""
        return np.asarray(self.inner.similarity(self.of_row[a], self.of_row[b]))


class UnitTexts(Sequence[str]):
    """Each row's text in a units run: its unit's text (``joined``, Arrow-style), decoded when
    asked; the units' bytes are held once, not once per row.

    >>> u = Units.from_keys(np.array([1, 2, 1], dtype=np.uint64))
    >>> rows = UnitTexts(u.join(["a", "b", "c"]), u.of_row)
    >>> len(rows), rows[2] == rows[0] == "a" + UNIT_SEPARATOR + "c"
    (3, True)
    """

    def __init__(self, joined: tuple[np.ndarray, np.ndarray], of_row: np.ndarray) -> None:
        self.joined, self.of_row = joined, of_row

    def __len__(self) -> int:
        return len(self.of_row)

    def __getitem__(self, row: Any) -> Any:
        if isinstance(row, slice):
            return [self[r] for r in range(*row.indices(len(self)))]
        data, offsets = self.joined
        unit = int(self.of_row[row])
        return bytes(data[offsets[unit] : offsets[unit + 1]]).decode("utf-8")


class UnitStore:
    """The units of a store of rows (a :class:`neardup.stores.FileStore`), streamed: a unit
    is joined and passed on once its last row has been read and every unit starting before
    it has been, so memory holds the rows of the units still open (little when a unit's rows
    are close together, as in most files: a repository's files, a conversation's turns).

    Rows one a batch: unit 1 ("b") waits for unit 0, which its row "c" completes.

    >>> from neardup.stores import MemoryStore
    >>> u = Units.from_keys(np.array([1, 2, 1], dtype=np.uint64))
    >>> store = UnitStore(MemoryStore(["a", "b", "c"], 1), u, 8)
    >>> [(b.start, b.texts[1].tolist()) for b in store.batches("sign")]
    [(0, [0, 13, 14])]
    """

    def __init__(self, rows: Any, units: Units, batch_size: int) -> None:
        self.rows, self.units, self.batch_size = rows, units, batch_size
        self.partitions: np.ndarray | None = None

    @property
    def ids(self) -> Any:
        """The rows' ids (of the row store)."""
        return self.rows.ids

    @property
    def progress(self) -> Progress | None:
        """The row store's progress: the passes read rows, the near stage searches units."""
        return self.rows.progress

    def priorities(self, rows: np.ndarray) -> np.ndarray:
        """The priorities of the units at ``rows``: the highest of their rows'.

        >>> from neardup.stores import MemoryStore
        >>> u = Units.from_keys(np.array([1, 2, 1], dtype=np.uint64))
        >>> store = UnitStore(MemoryStore(["a", "b", "c"], priorities=[1, 5, 3]), u, 8)
        >>> store.priorities(np.array([0, 1])).tolist()
        [3, 5]
        """
        wanted = np.flatnonzero(np.isin(self.units.of_row, rows))
        values = self.rows.priorities(wanted)
        best = self.units.priorities(_spread(values, wanted, self.units.rows))
        return best[rows]

    def batches(self, pass_name: str) -> Iterator[TextBatch]:
        """The units' texts in unit order (Arrow-style), at most ``batch_size`` units a
        batch: each batch of rows joined in the crate (``_core.UnitJoiner``)."""
        joiner = _core.UnitJoiner(self.units.of_row, len(self.units))
        start = 0  # units passed on
        for batch in self.rows.batches(pass_name):
            joined = joiner.add(core_texts(batch.texts))
            ready = len(joined[1]) - 1
            for a in range(0, ready, self.batch_size):
                b = min(ready, a + self.batch_size)
                yield TextBatch(slice_texts(joined, a, b), start + a)
            start += ready
        if joiner.units_left:
            raise InvalidArgumentError(f"the rows changed: {joiner.units_left} units unread")


def _spread(values: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
    """``values`` of ``rows`` placed in an array over ``n`` rows (the lowest value elsewhere)."""
    low = np.iinfo(np.int64).min if values.dtype.kind in "iu" else -np.inf
    out = np.full(n, low).astype(values.dtype if len(values) else np.int64, copy=False)
    out[rows] = values
    return out
