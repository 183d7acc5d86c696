"""SimHash on the Ray executor: the local engine's search, table by table.

The local engine finds every pair of fingerprints within the radius by multi-index hashing
(``rust/hamming/``): the cost model picks ``m`` blocks of the varying bits and a table per
``(m - d)``-subset of them; every pair within ``d`` bits agrees on some table's key, and each
pair is reported by the first table it agrees on. The Ray engine runs that search spread out:

- each partition's distinct fingerprints go to a bounded sample (the bottom
  :data:`SAMPLE_SIZE` by a hash of the fingerprint, merged as a tree) and, by their hash, to a
  shuffle that counts them; the driver plans the search from the sample and the count with
  the crate's cost model (``_core.hamming_sample_plan``: below :data:`SAMPLE_SIZE` distinct
  fingerprints the sample is all of them, and the plan the local one);
- each document emits one record per table, (table, position, digest, fingerprint), shuffled
  by (table, hash of its key bits), like the MinHash band records;
- each shuffle partition collapses equal sets onto their first position (exact links from
  table 0, where every copy meets its first) and hands each table's distinct sets to the
  crate's own search of that table (``_core.hamming_table_within``: its buckets, large buckets
  searched again on their other bits), which keeps a pair only in the first table it agrees
  on: no pair is missed, none is found twice.

Where the cost model picks brute force (fewer than 512 distinct fingerprints, or a radius no
index pays for), the plan has one table with an empty key: every document in one bucket,
searched by the crate's brute force in one task. That is the local engine's choice, but it
does not spread, so past :data:`neardup.near.SIMHASH_WARN_SECONDS` of predicted search the
Ray engine refuses it (:func:`check_spreads`) rather than run a quadratic task.

>>> lanes = as_lanes(np.array([[3], [1], [3]], np.uint64))
>>> sorted(fingerprint_sample(lanes, 8).tolist()), len(fingerprint_sample(lanes, 1))
([[1, 0], [3, 0]], 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from neardup import _core
from neardup.banding import sample_keys
from neardup.errors import InvalidArgumentError
from neardup.plan import Plan
from neardup.ray._steps import NO_PAIRS, Signed, _mix, hash_partition, split_by, unique_rows

#: Distinct fingerprints the plan's sample holds at most (512 KiB of 64-bit fingerprints);
#: below it the sample is every distinct fingerprint and the plan is the local engine's.
SAMPLE_SIZE = 1 << 16


def as_lanes(fingerprints: np.ndarray) -> np.ndarray:
    """uint64[m, 2]: 64-bit fingerprints padded with a zero word, 128-bit ones as they are."""
    fingerprints = np.asarray(fingerprints, dtype=np.uint64)
    if fingerprints.shape[1] == 2:
        return fingerprints
    return np.concatenate([fingerprints, np.zeros_like(fingerprints)], axis=1)


def fingerprint_sample(lanes: np.ndarray, size: int = SAMPLE_SIZE) -> np.ndarray:
    """The ``size`` distinct fingerprints (uint64[m, 2] lanes) with the smallest hash, in
    the order of their hash: closed under merging (the sample of concatenated samples is the
    sample of the whole), so it does not depend on the partitioning."""
    distinct = unique_rows(lanes)
    if not len(distinct):
        return distinct
    keys = sample_keys(distinct)
    order = np.lexsort((distinct[:, 1], distinct[:, 0], keys))[:size]
    return distinct[order]


def merge_samples(*samples: np.ndarray) -> np.ndarray:
    """The sample of the union of several samples."""
    parts = [s for s in samples if len(s)]
    return fingerprint_sample(np.concatenate(parts)) if parts else np.zeros((0, 2), np.uint64)


def fingerprint_rows(lanes: np.ndarray, parts: int) -> list[np.ndarray]:
    """The distinct fingerprints split by their hash into ``parts`` groups: the shuffle that
    counts the distinct fingerprints of the corpus (16 bytes a document)."""
    distinct = unique_rows(lanes)
    return [d for (d,) in split_by(hash_partition(sample_keys(distinct), parts), parts, distinct)]


@dataclass
class TablePlan:
    """The search over the corpus's fingerprints: ``search`` (``"brute force"`` or ``"index
    (K tables of B-bit keys)"``), the cost model's figures, the index's varying bits ``free``
    (uint64[2]), ``blocks`` (0 for brute force) and each table's key mask ``keys``
    uint64[tables, 2] (one empty key for brute force)."""

    search: str
    distinct: int
    comparisons: float
    seconds: float
    brute_force_comparisons: float
    free: np.ndarray
    blocks: int
    keys: np.ndarray


def table_plan(sample: np.ndarray, plan: Plan, distinct: int) -> TablePlan:
    """The crate's plan for ``distinct`` fingerprints from their ``sample`` (lanes)."""
    assert plan.max_hamming is not None
    words = plan.simhash_bits // 64
    fingerprints = np.ascontiguousarray(sample[:, :words])
    figures, free, blocks, keys = _core.hamming_sample_plan(
        fingerprints, plan.max_hamming, distinct
    )
    return TablePlan(*figures, free=free, blocks=blocks, keys=keys)


def check_spreads(search: TablePlan, plan: Plan) -> None:
    """Refuses brute force predicted to take more than ``SIMHASH_WARN_SECONDS``: on Ray it
    would run in one task (the local engine runs it with a warning)."""
    from neardup.near import SIMHASH_WARN_SECONDS

    if search.blocks or search.seconds < SIMHASH_WARN_SECONDS:
        return
    raise InvalidArgumentError(
        f"SimHash at radius {plan.max_hamming} of {plan.simhash_bits} bits (threshold "
        f"{plan.threshold:g}): no index pays at this radius, so all "
        f"{search.brute_force_comparisons:,.0f} pairs of the {search.distinct:,} distinct "
        f"fingerprints would be compared in one Ray task (about {search.seconds:,.0f} s); the "
        "Ray engine runs only searches that spread over tasks. method='minhash' (the default) "
        "suits this threshold, SimHash thresholds of about 0.8 and above"
    )


def info(search: TablePlan) -> dict[str, Any]:
    """What the run reports of its search, under the local engine's names."""
    return {
        "simhash_search": search.search,
        "simhash_predicted_comparisons": int(search.comparisons),
    }


def table_rows(signed: Signed, search: TablePlan, parts: int) -> list[dict[str, np.ndarray]]:
    """The shuffle records of a partition, (table, position, digest, fingerprint) for every
    table of the search, split by (table, hash of the fingerprint's bits under its key)."""
    fingerprints = signed.signatures
    assert fingerprints is not None
    m, words = fingerprints.shape
    tables = len(search.keys)
    masked = fingerprints[:, None, :] & search.keys[None, :, :words]  # [m, tables, words]
    key = _mix(masked[:, :, 0].reshape(-1))
    if words == 2:
        key ^= _mix(masked[:, :, 1].reshape(-1))
    table = np.tile(np.arange(tables, dtype=np.int32), m)
    row = np.repeat(np.arange(m), tables)
    part = hash_partition(key ^ _mix(table.astype(np.uint64)), parts)
    return [
        {
            "table": t,
            "position": signed.positions[r],
            "digest": signed.digests[r],
            "fingerprint": fingerprints[r],
        }
        for t, r in split_by(part, parts, table, row)
    ]


def table_pairs(
    records: Sequence[dict[str, np.ndarray]], search: TablePlan, plan: Plan
) -> tuple[np.ndarray, np.ndarray]:
    """(candidates int64[c, 2], exact int64[e, 2]) of one shuffle partition's records, pairs
    (i, j) with i < j: documents with equal digests collapse onto their lowest position (an
    exact link each, from table 0), and each table's distinct sets are searched by the crate
    (``_core.hamming_table_within``), which keeps the pairs within the radius that this table
    finds first.

    >>> from neardup.plan import make_plan
    >>> plan = make_plan(method="simhash", threshold=0.9).resolve(3)
    >>> fp = np.array([[0], [1], [0xFF00]], np.uint64)
    >>> search = table_plan(as_lanes(fp), plan, 3)
    >>> rec = {"table": np.zeros(4, np.int32), "position": np.array([7, 2, 5, 9]),
    ...        "digest": np.array([[1, 1], [2, 2], [3, 3], [1, 1]], np.uint64),
    ...        "fingerprint": np.array([[0], [1], [0xFF00], [0]], np.uint64)}
    >>> candidates, exact = table_pairs([rec], search, plan)
    >>> candidates.tolist(), exact.tolist()
    ([[2, 7]], [[7, 9]])
    """
    assert plan.max_hamming is not None
    records = [r for r in records if len(r["position"])]
    if not records:
        return NO_PAIRS, NO_PAIRS
    table = np.concatenate([r["table"] for r in records])
    pos = np.concatenate([r["position"] for r in records])
    dig = np.concatenate([r["digest"] for r in records])
    fps = np.concatenate([r["fingerprint"] for r in records])
    order = np.lexsort((pos, dig[:, 1], dig[:, 0], table))
    table, pos, dig, fps = table[order], pos[order], dig[order], fps[order]
    fresh = np.ones(len(pos), dtype=bool)
    fresh[1:] = (table[1:] != table[:-1]) | (dig[1:] != dig[:-1]).any(axis=1)
    first_pos = pos[fresh][np.cumsum(fresh) - 1]
    copies = ~fresh & (table == 0)
    exact = np.stack([first_pos[copies], pos[copies]], axis=1).astype(np.int64)
    reps = np.flatnonzero(fresh)
    bounds = np.searchsorted(table[reps], np.arange(len(search.keys) + 1))
    found = [NO_PAIRS]
    for t in range(len(search.keys)):
        rows = reps[bounds[t] : bounds[t + 1]]
        if len(rows) < 2:
            continue
        pairs, _ = _core.hamming_table_within(
            np.ascontiguousarray(fps[rows]), plan.max_hamming, search.free, search.blocks, t
        )
        a, b = pos[rows[pairs[:, 0]]], pos[rows[pairs[:, 1]]]
        found.append(np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1).astype(np.int64))
    return np.concatenate(found), exact
