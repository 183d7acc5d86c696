"""Score predicted duplicate pairs against known labels.

Works for the pairs of any method (neardup's, another library's, your own): all it needs
is an int array of pairs ``[m, 2]`` and a group label per document.

Labels: ``group[i] == group[j] >= 0`` means documents i and j are a labelled duplicate
pair; a negative label means "in no duplicate group" (the generator gives its singles
``-1 - i``, but ``-1`` for all of them works just as well).

Example:
    >>> from neardup.evaluate import evaluate
    >>> r = evaluate([[0, 1], [2, 3]], [7, 7, 7, -1])
    >>> r.tp, r.fp, r.positives, round(r.precision, 2), round(r.recall, 2)
    (1, 1, 3, 0.5, 0.33)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from neardup.errors import ArgumentTypeError, InvalidArgumentError

if TYPE_CHECKING:
    from neardup.synth import Corpus

__all__ = ["Evaluation", "KindScore", "evaluate", "normalize_pairs"]


@dataclass(frozen=True)
class KindScore:
    """Recall on the labelled pairs of one kind (edit type).

    Precision has no per-kind meaning (a false positive has no edit type), so only the
    labelled count, the true positives and the recall are given.
    """

    kind: str
    labelled: int
    tp: int

    @property
    def recall(self) -> float:
        """tp / labelled (nan when there is no labelled pair of this kind)."""
        return self.tp / self.labelled if self.labelled else math.nan


@dataclass(frozen=True)
class Evaluation:
    """Result of :func:`evaluate`.

    Attributes:
        flagged: distinct predicted pairs (after normalisation to i < j).
        tp, fp: flagged pairs that are / are not labelled duplicates.
        fn: labelled pairs not flagged.
        positives: labelled duplicate pairs in total.
        by_kind: per edit type (only when edit labels were given), in first-seen order of
            the labelled pairs; keys are edit names and ``"between-variants"``.
    """

    flagged: int
    tp: int
    fp: int
    positives: int
    by_kind: dict[str, KindScore] = field(default_factory=dict)

    @property
    def fn(self) -> int:
        """Labelled pairs that were not flagged."""
        return self.positives - self.tp

    @property
    def precision(self) -> float:
        """tp / flagged; nan when nothing was flagged."""
        return self.tp / self.flagged if self.flagged else math.nan

    @property
    def recall(self) -> float:
        """tp / positives; nan when there are no labelled pairs."""
        return self.tp / self.positives if self.positives else math.nan

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall, 2 tp / (flagged + positives)."""
        denom = self.flagged + self.positives
        return 2 * self.tp / denom if denom else math.nan

    @property
    def fp_per_tp(self) -> float:
        """False positives per true positive (inf when tp == 0 < fp)."""
        if self.tp == 0:
            return math.inf if self.fp else math.nan
        return self.fp / self.tp

    def as_dict(self) -> dict[str, Any]:
        """Plain dict of the overall figures plus ``recall_<kind>`` entries.

        Example:
            >>> evaluate([[0, 1]], [0, 0]).as_dict()["recall"]
            1.0
        """
        d: dict[str, Any] = {
            "flagged": self.flagged,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "positives": self.positives,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
        }
        for k, s in self.by_kind.items():
            d[f"recall_{k}"] = s.recall
        return d

    def __str__(self) -> str:
        return (
            f"precision {self.precision:.4f}  recall {self.recall:.4f}  F1 {self.f1:.4f}  "
            f"flagged {self.flagged}  TP {self.tp}  FP {self.fp}  (of {self.positives} labelled)"
        )


def normalize_pairs(pairs: npt.ArrayLike, n: int | None = None) -> npt.NDArray[np.int64]:
    """Pairs as int64[m, 2] with i < j, self-pairs dropped, duplicates removed, sorted.

    Raises ValueError for a wrong shape or (when ``n`` is given) an index outside [0, n).

    Example:
        >>> normalize_pairs([[3, 1], [1, 3], [2, 2], [0, 4]]).tolist()
        [[0, 4], [1, 3]]
    """
    p = np.asarray(pairs)
    if p.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if p.ndim != 2 or p.shape[1] != 2:
        raise InvalidArgumentError(f"pairs must have shape (m, 2), got {p.shape}")
    if not np.issubdtype(p.dtype, np.integer):
        raise ArgumentTypeError(f"pairs must be integers, got dtype {p.dtype}")
    p = p.astype(np.int64, copy=False)
    lo = np.minimum(p[:, 0], p[:, 1])
    hi = np.maximum(p[:, 0], p[:, 1])
    if lo.size and lo.min() < 0:
        raise InvalidArgumentError(f"pairs contain a negative index ({int(lo.min())})")
    if n is not None and hi.size and hi.max() >= n:
        raise InvalidArgumentError(
            f"pairs contain index {int(hi.max())} but there are only {n} documents"
        )
    keep = lo != hi
    lo, hi = lo[keep], hi[keep]
    width = int(hi.max()) + 1 if hi.size else 1
    key = np.unique(lo * width + hi)
    return np.stack([key // width, key % width], axis=1)


def _positives(group: npt.NDArray[np.int64]) -> int:
    _, counts = np.unique(group[group >= 0], return_counts=True)
    return int((counts * (counts - 1) // 2).sum())


def _count(values: npt.NDArray[np.str_]) -> dict[str, int]:
    keys, counts = np.unique(values, return_counts=True)
    return {str(k): int(c) for k, c in zip(keys.tolist(), counts.tolist(), strict=True)}


def evaluate(
    pred_pairs: npt.ArrayLike,
    labels: Corpus | npt.ArrayLike,
    edit: npt.ArrayLike | None = None,
) -> Evaluation:
    """Precision, recall, F1 and counts of predicted pairs, overall and per edit type.

    Args:
        pred_pairs: int[m, 2] predicted duplicate pairs, in any order and orientation;
            repeated pairs count once, (i, i) pairs are ignored.
        labels: a :class:`neardup.synth.Corpus`, or an int[n] array of group labels
            (see the module docstring).
        edit: str[n] edit label of each document (``"original"`` marks the original of a
            group); enables ``by_kind``. Taken from the corpus when ``labels`` is one.

    Example:
        >>> g = [0, 0, 0, 1, 1, -1]
        >>> e = ["original", "one-word", "append-10pct", "original", "one-word", "single"]
        >>> r = evaluate([[0, 1], [1, 2], [3, 5]], g, e)
        >>> r.tp, r.fp, r.positives
        (2, 1, 4)
        >>> {k: (s.tp, s.labelled) for k, s in r.by_kind.items()}
        {'one-word': (1, 2), 'append-10pct': (0, 1), 'between-variants': (1, 1)}
    """
    from neardup import synth

    corpus: Corpus | None = None
    if isinstance(labels, synth.Corpus):
        corpus = labels
        group = labels.group
        edit = labels.edit
    else:
        group = np.asarray(labels)
        if group.ndim != 1 or not np.issubdtype(group.dtype, np.integer):
            raise InvalidArgumentError(
                "labels must be a Corpus or a 1-d integer array of group labels"
            )
        group = group.astype(np.int64, copy=False)
    n = group.size
    p = normalize_pairs(pred_pairs, n)
    gi, gj = group[p[:, 0]], group[p[:, 1]]
    hit = (gi == gj) & (gi >= 0)
    tp = int(hit.sum())
    flagged = int(p.shape[0])
    by_kind: dict[str, KindScore] = {}
    if edit is not None:
        e = np.asarray(edit).astype(str)
        if e.shape != (n,):
            raise InvalidArgumentError(f"edit must have shape ({n},), got {e.shape}")
        if corpus is not None:
            lab = corpus.duplicate_pairs()
            lab_kind = corpus.pair_kind(lab)
        else:
            lab = synth.group_pairs(group)
            lab_kind = synth.pair_kinds(group, e, lab)
        tp_kind = synth.pair_kinds(group, e, p[hit])
        kinds, first = np.unique(lab_kind, return_index=True)
        kinds = kinds[np.argsort(first)]
        lab_counts = _count(lab_kind)
        tp_counts = _count(tp_kind)
        for k in kinds.tolist():
            by_kind[k] = KindScore(k, lab_counts[k], tp_counts.get(k, 0))
    return Evaluation(
        flagged=flagged, tp=tp, fp=flagged - tp, positives=_positives(group), by_kind=by_kind
    )
