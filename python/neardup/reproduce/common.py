"""Shared pieces of the experiments: timing, pair enumeration, table formatting, the
precision/recall sweep and the report being assembled.

>>> print(_table(["a", "b"], [[1, 2]]))
| a | b |
|---|---|
| 1 | 2 |
"""

from __future__ import annotations

import math
import resource
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from neardup import synth

T = TypeVar("T")


def _timed(fn: Callable[[], T], repeats: int = 1, warmup: bool = False) -> tuple[float, T]:
    """(median seconds, last result) of ``repeats`` calls."""
    if warmup:
        fn()
    times = []
    result: T
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), result


def _all_pairs(n: int) -> npt.NDArray[np.int64]:
    i, j = np.triu_indices(n, k=1)
    return np.stack([i, j], axis=1).astype(np.int64)


def _pair_chunks(n: int, chunk: int = 4_000_000) -> Iterator[npt.NDArray[np.int64]]:
    """All pairs i < j of n documents, in blocks of whole rows of about ``chunk`` pairs."""
    start = 0
    while start < n - 1:
        counts = n - 1 - np.arange(start, n - 1)
        rows = max(1, int(np.searchsorted(np.cumsum(counts), chunk, side="right")))
        r = np.arange(start, start + rows)
        c = n - 1 - r
        a = np.repeat(r, c)
        offs = np.concatenate([[0], np.cumsum(c)[:-1]])
        b = np.repeat(r + 1 - offs, c) + np.arange(int(c.sum()))
        yield np.stack([a, b], axis=1)
        start += rows


def _is_dup(group: npt.NDArray[np.int64], pairs: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    gi = group[pairs[:, 0]]
    return (gi == group[pairs[:, 1]]) & (gi >= 0)


def _label_pairs(labels: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Pairs of documents with the same exact-duplicate label."""
    return synth.group_pairs(labels)


def _f(x: float, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if isinstance(x, float) and math.isinf(x):
        return "∞"
    return f"{x:.{digits}f}"


def _n(x: float) -> str:
    return f"{int(x):,}"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms" if seconds < 10 else f"{seconds:,.1f} s"


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def _rss_mb() -> float:
    """Peak resident set size of this process so far, MB."""
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return r / 1024 if sys.platform != "darwin" else r / 1024 / 1024


@dataclass
class _Sweep:
    """Precision/recall of 'similarity >= t' over a set of pairs, for any t."""

    sim: npt.NDArray[np.floating[Any]]
    dup: npt.NDArray[np.bool_]
    positives: int

    def at(self, t: float) -> tuple[float, float, int, int]:
        """(precision, recall, flagged, tp) at threshold t."""
        m = self.sim >= t
        flagged = int(m.sum())
        tp = int((m & self.dup).sum())
        return (tp / flagged if flagged else math.nan), tp / self.positives, flagged, tp

    def best_f1(self, grid: npt.NDArray[np.floating[Any]]) -> tuple[float, float]:
        """(best F1, the lowest threshold of the grid reaching it)."""
        order = np.argsort(-self.sim, kind="stable")
        s = self.sim[order]
        cum_tp = np.cumsum(self.dup[order])
        best = (-1.0, math.nan)
        for t in grid:
            k = int(np.searchsorted(-s, -t, side="right"))  # number with sim >= t
            tp = int(cum_tp[k - 1]) if k else 0
            f1 = 2 * tp / (k + self.positives)
            if f1 > best[0] + 1e-12:
                best = (f1, float(t))
        return best


# ----------------------------------------------------------------------------- experiments


@dataclass
class _Report:
    sections: list[str] = field(default_factory=list)
    results: dict[str, Any] = field(default_factory=dict)
    plots: list[str] = field(default_factory=list)
    log: Callable[[str], None] = print

    def add(self, title: str, *parts: str) -> None:
        self.sections.append(f"## {title}\n\n" + "\n\n".join(p for p in parts if p))
        self.log(f"  done: {title}")
