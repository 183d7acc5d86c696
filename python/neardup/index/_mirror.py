"""The in-memory mirror of an index: signatures, band keys and ids held by the Rust core
(``rust/lookup.rs``), looked up for a whole batch of queries in one call that also builds the
result lists (best first, equal similarity by id, cut at ``top_k``).

Rows are numbered in the order documents were read or added; a removed document's row is
marked dead and never found again (rows are never reused, and neither are document numbers,
so a new document can never inherit a removed one's state).

>>> import numpy as np
>>> m = Mirror(num_perm=4, bands=2, rows=2, version=0, threshold=0.5)
>>> sig = np.array([[1, 2, 3, 4]], np.uint32)
>>> m.append(np.array([5]), sig, ["doc-5"], np.array([40]))
>>> m.lookup(sig, threshold=0.5, top_k=None)
[[Match(id='doc-5', similarity=1.0)]]
"""

from __future__ import annotations

from typing import NamedTuple, cast

import numpy as np

from neardup import _core
from neardup.banding import BUCKET_LIMIT


class Match(NamedTuple):
    """An indexed document that near-duplicates a new or queried one.

    >>> Match("doc-1", 0.75).id
    'doc-1'
    """

    id: str
    similarity: float


class Mirror:
    """Stored rows (document number, id, signature, band keys) and their lookup tables, whose
    buckets of more than ``bucket_limit`` rows are split as ``find_duplicates`` splits them
    (``rust/lsh/groups.rs``, at ``threshold``) unless mostly duplicates: a footer every
    document shares cannot make each query's candidates grow with the index."""

    def __init__(
        self,
        num_perm: int,
        bands: int,
        rows: int,
        version: int,
        threshold: float,
        bucket_limit: int | None = BUCKET_LIMIT,
    ) -> None:
        self.core = _core.IndexMirror(num_perm, bands, rows, Match, threshold, bucket_limit)
        self.version = version
        self._docs: list[np.ndarray] = []
        self._doc_index: np.ndarray | None = np.zeros(0, np.int64)
        self._sizes: list[np.ndarray] = []

    def append(self, docs: np.ndarray, sigs: np.ndarray, ids: list[str], sizes: np.ndarray) -> None:
        """Add rows; ``docs`` are increasing and above every stored one; ``sizes`` their
        distinct shingles."""
        self.core.append(np.ascontiguousarray(sigs, dtype=np.uint32), ids)
        self._docs.append(np.asarray(docs, dtype=np.int64))
        self._sizes.append(np.asarray(sizes, dtype=np.int64))
        self._doc_index = None

    def forget(self, docs: list[int]) -> None:
        """Mark removed documents' rows dead."""
        if self._doc_index is None:
            self._doc_index = np.concatenate(self._docs) if self._docs else np.zeros(0, np.int64)
            self._docs = [self._doc_index]
        d = np.asarray(docs, dtype=np.int64)
        rows = np.searchsorted(self._doc_index, d)
        present = rows < len(self._doc_index)
        present[present] = self._doc_index[rows[present]] == d[present]
        self.core.forget(rows[present].astype(np.int64))

    def lookup(self, sigs: np.ndarray, threshold: float, top_k: int | None) -> list[list[Match]]:
        """For each query row, the live stored documents with estimate ≥ threshold, best
        first (equal similarity by id), at most ``top_k`` of them."""
        sigs = np.ascontiguousarray(sigs, dtype=np.uint32)
        # the core builds each match as Match(id, similarity) (the class given to it)
        return cast(list[list[Match]], self.core.lookup(sigs, threshold, top_k or 0))

    def containment(
        self, sigs: np.ndarray, sizes: np.ndarray, threshold: float, top_k: int | None
    ) -> list[list[Match]]:
        """For each query row (``sizes`` its distinct shingles), the live stored documents
        whose estimated containment of the query is ≥ threshold, best first."""
        if len(self._sizes) != 1:
            self._sizes = [np.concatenate(self._sizes) if self._sizes else np.zeros(0, np.int64)]
        sigs = np.ascontiguousarray(sigs, dtype=np.uint32)
        found = self.core.containment(
            sigs, np.ascontiguousarray(sizes, dtype=np.int64), self._sizes[0], threshold, top_k or 0
        )
        return cast(list[list[Match]], found)
