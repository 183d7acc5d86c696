"""Boilerplate stripping: drop shingles that occur in too many documents.

Navigation, licence text and disclaimers put the same shingles into a large share of a corpus
and lift the Jaccard similarity of unrelated documents (the article's boilerplate experiment).
Dropping every shingle whose *document frequency* share exceeds ``max_df`` before MinHash,
SimHash or exact Jaccard pushes the usable threshold back down.

The counting and removal run in the crate (``rust/boilerplate.rs``, ``_core``); this module
checks arguments and builds the results.

>>> import neardup
>>> ss = neardup.shingles(["a b c d e f", "x y z w v u"], k=5)
>>> stripped, stats = strip_boilerplate(ss, max_df=0.5)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from neardup import _core
from neardup.errors import ArgumentTypeError, InvalidArgumentError
from neardup.stages import ShingleSets

__all__ = [
    "FrequencyCounter",
    "StripStats",
    "frequent_shingles",
    "remove_shingles",
    "strip_boilerplate",
]


@dataclass
class StripStats:
    """What stripping removed.

    * ``documents`` – number of documents,
    * ``max_df`` – the document-frequency share above which a shingle was dropped,
    * ``shingles_dropped`` – distinct shingles dropped,
    * ``occurrences_dropped`` – (document, shingle) memberships removed,
    * ``mean_share_stripped`` – mean over non-empty documents of the share of their shingles
      that were dropped,
    * ``documents_emptied`` – non-empty documents left with no shingle at all.

    >>> StripStats(2, 0.1, 0, 0, 0.0, 0).as_dict()["documents"]
    2
    """

    documents: int
    max_df: float
    shingles_dropped: int
    occurrences_dropped: int
    mean_share_stripped: float
    documents_emptied: int

    def as_dict(self) -> dict[str, Any]:
        """The statistics as a plain dict (for JSON reports).

        >>> StripStats(1, 0.1, 0, 0, 0.0, 0).as_dict()["max_df"]
        0.1
        """
        return asdict(self)

    def __str__(self) -> str:
        return (
            f"stripped {self.shingles_dropped:,} boilerplate shingles (df > {self.max_df:g}), "
            f"{self.mean_share_stripped:.1%} of the average document"
        )


def _check_max_df(max_df: float) -> float:
    max_df = float(max_df)
    if not 0.0 < max_df <= 1.0:
        raise InvalidArgumentError(f"max_df must be in (0, 1], got {max_df}")
    return max_df


def frequent_shingles(shinglesets: Any, max_df: float = 0.1) -> np.ndarray:
    """Sorted uint64 array of the shingles present in more than ``max_df`` of the documents
    (``df > floor(max_df * n + 1e-9)``, ``rust/boilerplate.rs``).

    >>> import neardup
    >>> hashes = np.array([1, 2, 2], dtype=np.uint64)  # document 0 has {1, 2}, document 1 {2}
    >>> ss = neardup.ShingleSets(np.array([0, 2, 3]), hashes, k=5, unit="word")
    >>> frequent_shingles(ss, 0.5)
    array([2], dtype=uint64)
    """
    return _core.frequent_shingles(shinglesets.offsets, shinglesets.hashes, _check_max_df(max_df))


def remove_shingles(shinglesets: Any, drop: Any) -> tuple[ShingleSets, np.ndarray]:
    """Return (new ShingleSets without the hashes in ``drop``, per-document count removed).

    >>> import neardup
    >>> hashes = np.array([1, 2, 2], dtype=np.uint64)
    >>> ss = neardup.ShingleSets(np.array([0, 2, 3]), hashes, k=5, unit="word")
    >>> new, removed = remove_shingles(ss, np.array([2], dtype=np.uint64))
    >>> new.hashes.tolist(), new.offsets.tolist(), removed.tolist()
    ([1], [0, 1, 1], [1, 1])
    """
    drop = np.ascontiguousarray(drop, dtype=np.uint64).reshape(-1)
    offsets, hashes, removed = _core.remove_shingles(shinglesets.offsets, shinglesets.hashes, drop)
    k, unit, version = shinglesets.k, shinglesets.unit, shinglesets.hash_version
    return ShingleSets(offsets, hashes, k=k, unit=unit, hash_version=version), removed


def _stats(sizes: np.ndarray, removed: np.ndarray, max_df: float, n_dropped: int) -> StripStats:
    nonempty = sizes > 0
    share = removed[nonempty] / sizes[nonempty] if nonempty.any() else np.zeros(0)
    return StripStats(
        documents=len(sizes),
        max_df=max_df,
        shingles_dropped=int(n_dropped),
        occurrences_dropped=int(removed.sum()),
        mean_share_stripped=float(share.mean()) if share.size else 0.0,
        documents_emptied=int(((removed == sizes) & nonempty).sum()),
    )


def strip_boilerplate(shinglesets: Any, max_df: float = 0.1) -> tuple[Any, StripStats]:
    """Drop every shingle whose document frequency exceeds ``max_df`` × (number of documents).

    Returns the stripped ``ShingleSets`` (same k and unit; feed it to ``minhash``, ``simhash``
    or ``jaccard``) and a :class:`StripStats`.

    >>> import neardup
    >>> footer = " licence text repeated on every page of the site"
    >>> texts = [f"document number {i} about topic {i * 7}" + footer for i in range(10)]
    >>> ss = neardup.shingles(texts, k=3)
    >>> stripped, stats = strip_boilerplate(ss, max_df=0.5)
    >>> stats.shingles_dropped > 0
    True
    """
    if not isinstance(shinglesets, ShingleSets):  # texts belong in neardup.shingles first
        raise ArgumentTypeError(
            "shinglesets must be a ShingleSets (see neardup.shingles), "
            f"got {type(shinglesets).__name__}"
        )
    max_df = _check_max_df(max_df)
    drop = _core.frequent_shingles(shinglesets.offsets, shinglesets.hashes, max_df)
    new, removed = remove_shingles(shinglesets, drop)
    return new, _stats(shinglesets.sizes(), removed, max_df, drop.size)


class FrequencyCounter:
    """Exact frequent-shingle detection over a stream of batches, in bounded memory.

    A shingle in more than ``max_df`` of all documents is in more than ``max_df`` of the
    documents of at least one batch (pigeonhole), so pass 1 (:meth:`add_candidates`) keeps
    only per-batch frequent shingles as candidates and pass 2 (:meth:`count`) counts the
    candidates exactly. :meth:`frequent` then returns precisely the shingles that
    :func:`strip_boilerplate` would drop on the whole corpus at once. The state lives in
    ``_core.FrequencyCounter`` (``rust/boilerplate.rs``); ``candidates`` and ``counts`` are
    pass 2's candidates and their counts so far.

    >>> import neardup
    >>> batches = [
    ...     neardup.shingles(["a b c d e f g", "a b c d e x y"], k=5),
    ...     neardup.shingles(["a b c d e q r", "u v w x y z"], k=5),
    ... ]
    >>> fc = FrequencyCounter(max_df=0.5)
    >>> for ss in batches: fc.add_candidates(ss)
    >>> for ss in batches: fc.count(ss)
    >>> fc.frequent().size, fc.counts.tolist(), fc.n_docs  # "a b c d e": 3 of the 4 documents
    (1, [3], 4)
    """

    def __init__(self, max_df: float = 0.1) -> None:
        self._counter = _core.FrequencyCounter(_check_max_df(max_df))

    def add_candidates(self, shinglesets: ShingleSets) -> None:
        """Pass 1: remember the shingles frequent within this batch."""
        self._counter.add_candidates(shinglesets.offsets, shinglesets.hashes)

    def count(self, shinglesets: ShingleSets) -> None:
        """Pass 2: count the candidates exactly in this batch (after pass 1 on every batch)."""
        self._counter.count(shinglesets.offsets, shinglesets.hashes)

    def frequent(self) -> np.ndarray:
        """The shingles (sorted uint64) whose document frequency share exceeds ``max_df``."""
        return self._counter.frequent()

    max_df = property(lambda self: self._counter.max_df)
    n_docs = property(lambda self: self._counter.n_docs)
    candidates = property(lambda self: self._counter.candidates)
    counts = property(lambda self: self._counter.counts)


def summarize(sizes: np.ndarray, removed: np.ndarray, max_df: float, n_dropped: int) -> StripStats:
    """The run's :class:`StripStats` from each document's set size before stripping and the
    shingles stripped from it (the sign pass's ``finish()["stripped"]``).

    >>> summarize(np.array([4]), np.array([1]), 0.1, 1).mean_share_stripped
    0.25
    """
    return _stats(
        np.asarray(sizes, dtype=np.int64), np.asarray(removed, dtype=np.int64), max_df, n_dropped
    )
