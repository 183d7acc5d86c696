"""Every threshold from one run: :meth:`neardup.DuplicateResult.at`, ``sweep()`` and
``keep_at_most()``, from the pairs a run reported (nothing re-read, nothing re-signed).

A run at threshold T reports every pair at or above T; the pairs at or above a higher
threshold are among them, so the clusters, kept documents and counts there follow from
filtering them and clustering again (union-find in the core).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from neardup import engine, stages
from neardup.errors import InvalidArgumentError

#: Pairs this close to a threshold are compared again in float64 (the reported similarity
#: is float32) where the run holds the shingle sets.
BOUNDARY = 1e-6


def _check_threshold(result: Any, threshold: Any) -> float:
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.floating)):
        raise InvalidArgumentError(f"threshold must be a number, got {threshold!r}")
    t = float(threshold)
    if not result.threshold <= t <= 1.0:
        raise InvalidArgumentError(
            f"threshold={t:g}: a run at {result.threshold:g} answers thresholds from "
            f"{result.threshold:g} to 1 (a lower one needs a new run)"
        )
    if "units" in result.params:
        raise InvalidArgumentError(
            "this run compared units of rows (unit_of=): its pairs join units, not rows; "
            "run find_duplicates(..., unit_of=keys, threshold=t) at the new threshold"
        )
    if result.params.get("pairs_used") == "spanning":
        raise InvalidArgumentError(
            "this run reported spanning pairs only (params['pairs_used']), which cannot be "
            "filtered to a higher threshold; run find_duplicates(..., pairs='all')"
        )
    return t


def _exact(result: Any, rows: np.ndarray) -> np.ndarray:
    """float64 similarity of the reported pairs ``rows``: the exact Jaccard the run compared
    where it holds the shingle sets (recovered from the float32 value and the two set sizes:
    the shared count is the integer nearest J(|A| + |B|)/(1 + J)), else the float32 value."""
    sims = result.similarity[rows].astype(np.float64)
    if result._evidence is None or result._evidence[1].sets is None or not len(rows):
        return sims
    first, evidence = result._evidence
    pairs = result.pairs[rows]
    a, b = first[pairs[:, 0]], first[pairs[:, 1]]
    selected, sizes = evidence.selected, evidence.sets.sizes()
    at_a = np.minimum(np.searchsorted(selected, a), len(selected) - 1)
    at_b = np.minimum(np.searchsorted(selected, b), len(selected) - 1)
    total = (sizes[at_a] + sizes[at_b]).astype(np.float64)
    shared = np.rint(sims * total / (1.0 + sims))
    with np.errstate(divide="ignore", invalid="ignore"):
        exact = shared / (total - shared)
    ok = (selected[at_a] == a) & (selected[at_b] == b) & (np.abs(exact - sims) < 1e-6)
    sims[ok] = exact[ok]
    sims[a == b] = 1.0
    return sims


def _at_least(result: Any, t: float, sims: np.ndarray | None = None) -> np.ndarray:
    """bool[m]: the reported pairs whose similarity reaches ``t``: ``sims`` (float64) when
    given, else the float32 similarity, compared again in float64 near ``t``."""
    if sims is not None:
        return sims >= t
    reported = result.similarity.astype(np.float64)
    mask = reported >= t
    close = np.flatnonzero(np.abs(reported - t) <= BOUNDARY)
    if len(close):
        mask[close] = _exact(result, close) >= t
    return mask


def components(result: Any, mask: np.ndarray) -> np.ndarray:
    """Cluster labels (lowest position) of the documents joined by the pairs under ``mask``."""
    return stages.clusters(result.pairs[mask], result.n)


def result_at(result: Any, threshold: float, keep: Any = None) -> Any:
    """:meth:`neardup.DuplicateResult.at`."""
    from neardup.keep import check_priorities, keep_mask

    t = _check_threshold(result, threshold)
    mask = _at_least(result, t)
    labels = components(result, mask)
    policy = result.params.get("keep", "first")
    measure = None
    if keep is not None:
        measure, policy = check_priorities(keep, result.n), "priority"
    elif policy == "longest":
        from neardup.stores import char_lengths

        measure = char_lengths(result.texts)
    elif policy == "priority":
        raise InvalidArgumentError(
            "this run kept documents by priority: give them again, result.at(t, keep=priorities)"
        )
    kept, rep = keep_mask(labels, measure, policy)
    similarity = np.where(rep == result.representative, result.kept_similarity, np.nan)
    similarity[kept] = 1.0
    changed = np.flatnonzero(np.isnan(similarity))
    if result._evidence is not None and len(changed):
        first, evidence = result._evidence
        similarity[changed] = engine.kept_similarity(first, kept, rep, evidence)[changed]
    params = {**result.params, "threshold": t, "pairs_reported": int(mask.sum())}
    params["filtered_from"] = result.threshold
    return replace(
        result,
        pairs=result.pairs[mask],
        similarity=result.similarity[mask],
        clusters=labels,
        threshold=t,
        params=params,
        keep=kept,
        representative=rep,
        kept_similarity=similarity,
    )


@dataclass(frozen=True)
class Sweep:
    """Documents kept and removed, clusters of two or more and the largest cluster at each
    threshold (numpy arrays, one entry per threshold); :meth:`to_pandas`, :meth:`plot`."""

    threshold: np.ndarray
    kept: np.ndarray
    removed: np.ndarray
    clusters: np.ndarray
    largest: np.ndarray

    def to_pandas(self) -> Any:
        """A pandas DataFrame, one row per threshold.

        >>> import neardup
        >>> r = neardup.find_duplicates(["a b c d", "a b c e", "x"], k=1, threshold=0.5)
        >>> r.sweep([0.5, 0.7]).to_pandas()["kept"].tolist()
        [2, 3]
        """
        import pandas as pd

        return pd.DataFrame(
            {
                "threshold": self.threshold,
                "kept": self.kept,
                "removed": self.removed,
                "clusters": self.clusters,
                "largest": self.largest,
            }
        )

    def plot(self, ax: Any = None) -> Any:
        """Documents kept and the largest cluster against the threshold (needs matplotlib).

        >>> import neardup
        >>> neardup.find_duplicates(["a b", "a c"], k=1).sweep().plot()  # doctest: +SKIP
        """
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.5))
        ax.plot(self.threshold, self.kept, marker="o", label="documents kept")
        ax.plot(self.threshold, self.largest, marker=".", label="largest cluster")
        ax.set_xlabel("threshold")
        ax.set_ylabel("documents")
        ax.legend()
        return ax

    def _repr_html_(self) -> str:
        head = "".join(
            f"<th>{name}</th>" for name in ("threshold", "kept", "removed", "clusters", "largest")
        )
        rows = "".join(
            f"<tr><td>{t:.4g}</td><td>{k:,}</td><td>{r:,}</td><td>{c:,}</td><td>{g:,}</td></tr>"
            for t, k, r, c, g in zip(
                self.threshold.tolist(),
                self.kept.tolist(),
                self.removed.tolist(),
                self.clusters.tolist(),
                self.largest.tolist(),
                strict=True,
            )
        )
        return f"<table><tr>{head}</tr>{rows}</table>"


def _counts(result: Any, t: float, sims: np.ndarray | None = None) -> tuple[int, int, int]:
    labels = components(result, _at_least(result, t, sims))
    sizes = np.bincount(labels, minlength=result.n)
    return int(np.count_nonzero(sizes)), int(np.count_nonzero(sizes > 1)), int(sizes.max(initial=0))


def sweep(result: Any, thresholds: Any = None) -> Sweep:
    """:meth:`neardup.DuplicateResult.sweep`."""
    if thresholds is None:
        thresholds = np.unique(np.round(np.linspace(result.threshold, 1.0, 11), 4))
        thresholds = np.clip(thresholds, result.threshold, 1.0)
    ts = [_check_threshold(result, t) for t in np.asarray(thresholds, dtype=np.float64).tolist()]
    counts = np.array([_counts(result, t) for t in ts], dtype=np.int64).reshape(-1, 3)
    return Sweep(
        threshold=np.array(ts, dtype=np.float64),
        kept=counts[:, 0],
        removed=result.n - counts[:, 0],
        clusters=counts[:, 1],
        largest=counts[:, 2],
    )


def keep_at_most(result: Any, n: Any, keep: Any = None) -> Any:
    """:meth:`neardup.DuplicateResult.keep_at_most`."""
    total = result.n
    if isinstance(n, bool) or not isinstance(n, (int, float, np.integer, np.floating)):
        raise InvalidArgumentError(f"n must be a count or a fraction, got {n!r}")
    if isinstance(n, (float, np.floating)) and 0 < n < 1:
        limit = int(np.floor(n * total))
    elif float(n) == int(n) and n >= 0:
        limit = int(n)
    else:
        raise InvalidArgumentError(f"n must be a count (>= 0) or a fraction in (0, 1), got {n!r}")
    fewest, _, _ = _counts(result, _check_threshold(result, result.threshold))
    if fewest > limit:
        raise InvalidArgumentError(
            f"a run at threshold {result.threshold:g} keeps at least {fewest:,} of {total:,} "
            f"documents, more than {limit:,}: run again with a lower threshold"
        )
    # Kept documents only grow with the threshold and change only at a pair's similarity:
    # binary search over the distinct similarities for the highest that keeps <= limit.
    sims = _exact(result, np.arange(len(result.pairs)))
    steps = np.unique(sims[sims > result.threshold])
    low, high = -1, len(steps) - 1  # steps[low] (or the run's threshold) keeps <= limit
    while low < high:
        mid = (low + high + 1) // 2
        if _counts(result, float(steps[mid]), sims)[0] <= limit:
            low = mid
        else:
            high = mid - 1
    best = float(steps[low]) if low >= 0 else float(result.threshold)
    return result_at(result, best, keep)
