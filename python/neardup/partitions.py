"""Partitions (``within=``): only documents sharing a key are compared, in one run.

Each document's key is a 64-bit hash (:func:`neardup._validate.check_keys`), carried by the
document store. The engine mixes it into the exact-copy keys (:func:`salt_digests`) and into
every MinHash slot (:func:`salt_signatures`), so exact duplicates and LSH candidates are found
per partition by the one pass and the one LSH run; exact Jaccard and SimHash search each
partition alone (:func:`per_partition`). The Ray engine salts its blocks the same way.

>>> salt_digests(np.array([[1, 2]], dtype=np.uint64), np.array([3], dtype=np.uint64)).tolist()
[[2, 1]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from neardup import _core
from neardup.errors import InvalidArgumentError


def partition_salts(plan: Any, store: Any) -> np.ndarray | None:
    """The store's partition keys (uint64 per document, :func:`neardup._validate.check_keys`)
    when the plan runs within partitions, else None."""
    if not plan.within:
        return None
    salts = getattr(store, "partitions", None)
    if salts is None:
        raise InvalidArgumentError("within=True needs one partition key per document")
    return np.asarray(salts, dtype=np.uint64)


def salt_digests(digests: np.ndarray, salts: np.ndarray) -> np.ndarray:
    """The exact-copy keys of one batch with each row's partition key mixed in: identical
    documents of two partitions get different keys, so exact duplicates are found per
    partition (equality within one is unchanged: both halves are XORed with the same key).

    >>> d = np.array([[1, 2], [1, 2]], dtype=np.uint64)
    >>> salt_digests(d, np.array([5, 6], dtype=np.uint64)).tolist()
    [[4, 7], [7, 4]]
    """
    return digests ^ salts[:, None]


def salt_signatures(signatures: np.ndarray, partitions: np.ndarray) -> None:
    """XOR every slot of each non-empty MinHash signature with a 32-bit value drawn from its
    partition key and the slot (SplitMix64, ``rust/partitions.rs``), in place: within a
    partition, slots are equal exactly where they were (estimates, LSH buckets and the screen
    unchanged), while across two partitions a band collides only by chance (as unrelated
    documents do), so one LSH run makes every partition's candidates and no others. Empty
    signatures stay empty.

    >>> sig = np.array([[1, 2], [1, 2], [1, 2]], dtype=np.uint32)
    >>> salt_signatures(sig, np.array([7, 7, 8], dtype=np.uint64))
    >>> bool((sig[0] == sig[1]).all()), bool((sig[0] == sig[2]).any())
    (True, False)
    """
    _core.salt_signatures(signatures, np.ascontiguousarray(partitions, dtype=np.uint64))


def largest_partition(partitions: np.ndarray | None, m: int) -> Any:
    """The rows of the largest partition (every row without partitions): what the SimHash
    search plan is predicted on.

    >>> largest_partition(np.array([4, 9, 9], dtype=np.uint64), 3).tolist()
    [1, 2]
    """
    if partitions is None:
        return slice(None)
    values, inverse, counts = np.unique(partitions, return_inverse=True, return_counts=True)
    return np.flatnonzero(inverse.reshape(-1) == int(np.argmax(counts))) if len(values) else []


def per_partition(
    partitions: np.ndarray | None, m: int, search: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``search(rows)`` (pairs into ``rows`` and their values) run on the rows of each
    partition of two or more (``search(None)``, all ``m`` rows, when ``partitions`` is
    None): (pairs i < j in row numbers, sorted; their values; the partitions' sizes). The
    cost is the sum of the partitions' (one crate call each), with no pair across two.

    >>> def every(rows):
    ...     pairs = np.array([[0, 1]]) if len(rows) > 1 else np.zeros((0, 2), np.int64)
    ...     return pairs, np.ones(len(pairs))
    >>> per_partition(np.array([7, 9, 7, 9]), 4, every)[0].tolist()
    [[0, 2], [1, 3]]
    """
    if partitions is None:  # every row: ``search(None)``
        pairs, values = search(None)
        return pairs, values, np.array([m], dtype=np.int64)
    order = np.argsort(partitions, kind="stable")
    ordered = partitions[order]
    bounds = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1], True])
    sizes = np.diff(bounds)
    found, values = [np.zeros((0, 2), dtype=np.int64)], []
    for g in np.flatnonzero(sizes >= 2).tolist():
        rows = order[bounds[g] : bounds[g + 1]]  # increasing: the sort is stable
        pairs, value = search(rows)
        found.append(rows[np.asarray(pairs, dtype=np.int64).reshape(-1, 2)])
        values.append(value)
    pairs = np.concatenate(found)
    value = np.concatenate(values) if values else np.zeros(0, dtype=np.float32)
    sort = np.lexsort((pairs[:, 1], pairs[:, 0]))
    return pairs[sort], value[sort], sizes
