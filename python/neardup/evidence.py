"""What the sign pass leaves for the near-duplicate stage, per unique document: the
:class:`Evidence` (signatures, the shingle sets held or spilled, their sizes), the
:class:`SetBuilder` that gathers the held sets batch by batch, and slices of a ShingleSets.

>>> sets = stages.shingles(["a b", "c", "d e f"], k=1)
>>> subset_sets(sets, np.array([0, 2])).sizes().tolist()
[2, 3]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from neardup import _core, stages
from neardup._buffer import empty_small_pages

if TYPE_CHECKING:
    from neardup.spill import SetSpill


def take_sets(sets: stages.ShingleSets, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sizes, concatenated hashes) of the given rows (increasing) of a ShingleSets, vectorised.

    >>> s = stages.shingles(["a b", "c", "d e f"], k=1)
    >>> sizes, hashes = take_sets(s, np.array([0, 2]))
    >>> sizes.tolist(), len(hashes)
    ([2, 3], 5)
    """
    if len(rows) == len(sets):  # every row, in order: the arrays as they are
        return sets.sizes(), sets.hashes
    every = sets.sizes()
    wanted = np.zeros(len(every), dtype=bool)
    wanted[rows] = True
    return every[rows], sets.hashes[np.repeat(wanted, every)]


class SetBuilder:
    """Collects the shingle sets of some unique documents into one ShingleSets over all of
    them (documents never added get an empty set), in increasing index order.

    The hashes are gathered straight into one buffer of ``capacity`` hashes (untouched pages
    of it cost no memory; small pages, :func:`neardup._buffer.empty_small_pages`), doubled
    when full, so building needs no concatenation: at 100,000 documents that copy of every
    held set cost about as much as verifying the candidates.

    >>> b = SetBuilder(1, "word")
    >>> b.add(stages.shingles(["a b", "c"], k=1), np.array([1]), np.array([2]))
    >>> b.build(3).sizes().tolist()
    [0, 0, 1]
    """

    def __init__(
        self, k: int, unit: str, hash_version: int = stages.HASH_VERSION, capacity: int = 0
    ) -> None:
        self.k, self.unit, self.hash_version = k, unit, hash_version
        self.capacity = capacity
        self.clear()

    def clear(self) -> None:
        """Forget everything added (``method="auto"`` found too many unique documents)."""
        self._at: list[np.ndarray] = []
        self._sizes: list[np.ndarray] = []
        self._buffer = np.zeros(0, dtype=np.uint64)
        self.hashes = 0  # shingle hashes held

    def free_room(self) -> tuple[np.ndarray, int]:
        """(buffer, first free slot): where the sign pass may write the next batch's sets in
        place (``_core.sign_texts(into=, at=)``); :meth:`add` then finds them there."""
        if len(self._buffer) < self.capacity:
            grown = empty_small_pages(self.capacity)
            grown[: self.hashes] = self._buffer[: self.hashes]
            self._buffer = grown
        return self._buffer, self.hashes

    def _in_place(self, hashes: np.ndarray) -> bool:
        """Whether ``hashes`` is the buffer from the first free slot on (written in place)."""
        if hashes.base is not self._buffer or not len(hashes):
            return False
        free = self._buffer[self.hashes :]
        return bool(hashes.ctypes.data == free.ctypes.data)

    def _room(self, more: int) -> np.ndarray:
        """The buffer's next ``more`` slots (the buffer grown first if needed)."""
        need = self.hashes + more
        if need > len(self._buffer):
            grown = empty_small_pages(max(need, 2 * len(self._buffer), self.capacity))
            grown[: self.hashes] = self._buffer[: self.hashes]
            self._buffer = grown
        return self._buffer[self.hashes : need]

    def add(
        self, sets: stages.ShingleSets, rows: np.ndarray, at: np.ndarray, only: bool = False
    ) -> None:
        """Add the sets of ``rows`` of a batch as unique documents ``at`` (increasing);
        ``only``: the batch's other sets are empty (``shingles(only=)``), so no gather."""
        sizes = sets.sizes()[rows]
        in_place = self._in_place(sets.hashes)
        if only or len(rows) == len(sets):  # the hashes as they are
            if not in_place:
                self._room(len(sets.hashes))[:] = sets.hashes
            added = len(sets.hashes)
        else:
            # The crate copies runs of consecutive rows as slices (a few per exact duplicate
            # left out); in place, each run moves towards the front.
            offsets = np.ascontiguousarray(sets.offsets, dtype=np.int64)
            rows = np.ascontiguousarray(rows, dtype=np.int64)
            if in_place:
                added = _core.gather_rows_in_place(offsets, rows, sets.hashes)
            else:
                added = int(sizes.sum())
                _core.gather_rows(offsets, rows, sets.hashes, self._room(added))
        self._at.append(np.asarray(at, dtype=np.int64))
        self._sizes.append(sizes)
        self.hashes += added

    def build(self, n: int) -> stages.ShingleSets:
        """One ShingleSets of ``n`` documents."""
        sizes = np.zeros(n, dtype=np.int64)
        if self._at:
            sizes[np.concatenate(self._at)] = np.concatenate(self._sizes)
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        hashes = self._buffer[: self.hashes]
        self.clear()
        unit: Any = self.unit
        return stages.ShingleSets(
            offsets, hashes, k=self.k, unit=unit, hash_version=self.hash_version
        )


@dataclass
class Evidence:
    """What the near-duplicate stage works from and leaves behind, per unique document:
    ``selected`` (sorted input positions), ``signatures`` (MinHash uint32[m, P] or SimHash
    uint64[m, w]), ``sets`` (all sets for exact Jaccard, the candidates' after exact
    verification, else None: also when they were verified in chunks), ``set_sizes`` (the
    sign pass's set sizes, which size the chunks) and ``spill`` (every unique document's set
    on disk when the sign pass could not hold them, which verification reads instead of
    a second pass over the store)."""

    selected: np.ndarray
    signatures: np.ndarray | None = None
    sets: stages.ShingleSets | None = None
    simhash_bits: int = 0
    set_sizes: np.ndarray | None = None  # int64[m] shingles per unique document, if known
    spill: SetSpill | None = None

    def similarity(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """float64[m]: similarity of unique documents at input positions ``a`` and ``b``, from
        the exact sets when both are held, else the signatures' estimate, else 1.0.

        >>> ev = Evidence(np.array([0, 5]), sets=stages.shingles(["a b", "a c"], k=1))
        >>> ev.similarity(np.array([0]), np.array([5])).round(4).tolist()
        [0.3333]
        """
        pairs = np.stack(
            [np.searchsorted(self.selected, a), np.searchsorted(self.selected, b)], axis=1
        ).astype(np.int64)
        out = np.ones(len(pairs), dtype=np.float64)
        if not len(pairs):
            return out
        held = np.zeros(len(pairs), dtype=bool)
        if self.sets is not None:
            sizes = self.sets.sizes()
            held = (sizes[pairs[:, 0]] > 0) & (sizes[pairs[:, 1]] > 0)
            out[held] = _core.jaccard(self.sets.offsets, self.sets.hashes, pairs[held], 1)
        rest = ~held
        if self.signatures is not None and rest.any():
            if self.signatures.dtype == np.uint32:
                out[rest] = _core.estimate_jaccard(self.signatures, pairs[rest])
            else:
                distance = _core.hamming(self.signatures, pairs[rest])
                out[rest] = 1.0 - distance / self.simhash_bits
        return out


def subset_sets(sets: stages.ShingleSets, rows: np.ndarray) -> stages.ShingleSets:
    """The sets of ``rows`` (increasing) as a ShingleSets of their own.

    >>> subset_sets(stages.shingles(["a b", "c", "d e f"], k=1), np.array([0, 2])).sizes()
    array([2, 3])
    """
    sizes, hashes = take_sets(sets, rows)
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    unit: Any = sets.unit
    return stages.ShingleSets(offsets, hashes, sets.k, unit, sets.hash_version)
