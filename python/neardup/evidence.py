"""What a run leaves of its unique documents for the similarities it reports: the
:class:`Evidence` (signatures, the shingle sets the run held or read back)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from neardup import _core, stages


@dataclass
class Evidence:
    """What a run's similarities to the kept documents are computed from, per unique
    document: ``selected`` (sorted input positions), ``signatures`` (MinHash uint32[m, P] or
    SimHash uint64[m, w]; None where the sets give every similarity exactly) and ``sets``
    (every set for exact Jaccard, the candidates' after exact verification, else None: also
    when they were verified in chunks, ``_core.Run.near``)."""

    selected: np.ndarray
    signatures: np.ndarray | None = None
    sets: stages.ShingleSets | None = None
    simhash_bits: int = 0

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
