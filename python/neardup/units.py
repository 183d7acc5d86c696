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
>>> u.join(["a", "b", "c"])[0] == "a" + UNIT_SEPARATOR + "c"
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from neardup.errors import InvalidArgumentError
from neardup.stores import TextBatch

#: What joins the rows of a unit (see the module docstring).
UNIT_SEPARATOR = "\n\u16a0\u16a1\u16a2\n"


def join_rows(texts: Sequence[str]) -> str:
    """One unit's text: its rows' texts (in row order) joined by :data:`UNIT_SEPARATOR`
    (the local engine and its streamed files join here; the Ray engine joins a partition's
    units at once in Arrow with the same separator, :mod:`neardup.ray._units`, tested equal).

    >>> join_rows(["a", "b"]) == "a" + UNIT_SEPARATOR + "b"
    True
    """
    return UNIT_SEPARATOR.join(texts)


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

    def join(self, texts: Sequence[str]) -> list[str]:
        """Each unit's text: its rows' texts in row order joined by :data:`UNIT_SEPARATOR`.

        >>> Units.from_keys(np.array([1, 2, 1], dtype=np.uint64)).join(["a", "b", "c"])[1]
        'b'
        """
        order, bounds = self.order.tolist(), self.bounds.tolist()
        return [
            join_rows([texts[r] for r in order[bounds[u] : bounds[u + 1]]])
            for u in range(len(self))
        ]

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


def as_strs(texts: Any) -> list[str]:
    """A batch's texts as a list of str (a list, a :class:`neardup.io.TextBuffer` or an
    Arrow array).

    >>> as_strs(["a"])
    ['a']
    """
    if isinstance(texts, list):
        return texts
    if hasattr(texts, "to_pylist"):
        return list(texts.to_pylist())
    from neardup._texts import as_core_texts

    core = as_core_texts(texts)
    if isinstance(core, list):
        return core
    data, offsets = core
    raw, bounds = bytes(data), np.asarray(offsets).tolist()
    return [raw[bounds[i] : bounds[i + 1]].decode("utf-8") for i in range(len(bounds) - 1)]


class UnitStore:
    """The units of a store of rows (a :class:`neardup.stores.FileStore`), streamed: a unit
    is joined and passed on once its last row has been read and every unit starting before
    it has been, so memory holds the rows of the units still open (little when a unit's rows
    are close together, as in most files: a repository's files, a conversation's turns).

    >>> from neardup.stores import MemoryStore
    >>> u = Units.from_keys(np.array([1, 2, 1], dtype=np.uint64))
    >>> [b.texts for b in UnitStore(MemoryStore(["a", "b", "c"], 1), u, 8).batches("sign")]
    [['a\\nᚠᚡᚢ\\nc', 'b']]
    """

    def __init__(self, rows: Any, units: Units, batch_size: int) -> None:
        self.rows, self.units, self.batch_size = rows, units, batch_size
        self.partitions: np.ndarray | None = None

    @property
    def ids(self) -> Any:
        """The rows' ids (of the row store)."""
        return self.rows.ids

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
        """The units' texts in unit order, ``batch_size`` units a batch."""
        units = self.units
        left = np.diff(units.bounds)  # rows of each unit not read yet
        parts: dict[int, list[str]] = {}
        ready: list[str] = []
        start = done = 0  # units passed on in batches / units joined
        for batch in self.rows.batches(pass_name):
            texts = as_strs(batch.texts)
            owners = units.of_row[batch.start : batch.start + len(texts)].tolist()
            for text, u in zip(texts, owners, strict=True):
                parts.setdefault(u, []).append(text)
                left[u] -= 1
            while done < len(units) and left[done] == 0:
                ready.append(join_rows(parts.pop(done)))
                done += 1
            while len(ready) >= self.batch_size:
                yield TextBatch(ready[: self.batch_size], start)
                start += self.batch_size
                ready = ready[self.batch_size :]
        if done != len(units):
            raise InvalidArgumentError(f"the rows changed: {len(units) - done} units unread")
        if ready:
            yield TextBatch(ready, start)


def _spread(values: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
    """``values`` of ``rows`` placed in an array over ``n`` rows (the lowest value elsewhere)."""
    low = np.iinfo(np.int64).min if values.dtype.kind in "iu" else -np.inf
    out = np.full(n, low).astype(values.dtype if len(values) else np.int64, copy=False)
    out[rows] = values
    return out
