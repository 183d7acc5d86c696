"""The Ray engine's large LSH buckets: grouped by the crate's own rule (kept whole when
dense, else split by more signature slots, as the local engine groups them), and the recall
their splits cost summed per document. Plain functions over numpy; nothing here imports Ray.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from neardup import _core
from neardup.plan import Plan
from neardup.ray._steps import NO_PAIRS, _pairs_within


@dataclass
class Splits:
    """What splitting a bucket partition's large buckets found besides the pairs: buckets
    split, and per document charged (``positions``, ascending) its summed ``charges`` (the
    recall cost, in the units of the crate's ``SplitCost``)."""

    splits: int
    positions: np.ndarray
    charges: np.ndarray


def split_buckets(
    big: dict[str, np.ndarray], positions: np.ndarray, signatures: np.ndarray, plan: Plan
) -> tuple[np.ndarray, Splits]:
    """The candidate pairs (i < j) of the large buckets ``big`` of :func:`bucket_pairs`, each
    grouped by the crate's own rule (``_core.lsh_split_bucket``: kept whole when dense, else
    split by more slots) as the local engine groups it, from the signatures of their members
    (``signatures`` row for row with the sorted ``positions``)."""
    assert plan.bands is not None and plan.rows is not None
    chunks, charged, charges, splits = [], [], [], 0
    ends = np.cumsum(big["sizes"])
    for b in range(len(big["sizes"])):
        members = big["positions"][ends[b] - big["sizes"][b] : ends[b]]
        rows = np.ascontiguousarray(signatures[np.searchsorted(positions, members)])
        found, offsets, cost, split = _core.lsh_split_bucket(
            rows,
            int(big["band"][b]),
            plan.rows,
            int(big["key"][b]),
            plan.threshold,
            plan.bucket_limit,
        )
        chunks.append(_pairs_within(offsets[:-1], np.diff(offsets), members[found]))
        splits += split
        charged.append(members[cost != 0])
        charges.append(cost[cost != 0])
    pairs = np.concatenate(chunks) if chunks else NO_PAIRS
    return pairs, Splits(splits, *sum_by_position(charged, charges))


def sum_by_position(
    positions: Sequence[np.ndarray], values: Sequence[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """(distinct positions ascending, the int64 sum of the values of each), exact.

    >>> sum_by_position([np.array([5, 2]), np.array([5])], [np.array([1, 2]), np.array([4])])
    (array([2, 5]), array([2, 5]))
    """
    if not positions or not sum(len(p) for p in positions):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    pos = np.concatenate(positions)
    val = np.concatenate(values).astype(np.int64)
    order = np.argsort(pos, kind="stable")
    pos, val = pos[order], val[order]
    first = np.flatnonzero(np.r_[True, pos[1:] != pos[:-1]])
    return pos[first], np.add.reduceat(val, first)
