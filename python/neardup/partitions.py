"""Partitions (``within=``): only documents sharing a key are compared, in one run.

Each document's key is a 64-bit hash (:func:`neardup._validate.check_keys`), carried by the
document store. The engine mixes it into the exact-copy keys (:func:`salt_digests`) and into
every MinHash slot (:func:`salt_signatures`), so exact duplicates and LSH candidates are found
per partition by the one pass and the one LSH run; exact Jaccard and SimHash search each
partition alone (``rust/near/within.rs``). The Ray engine salts its blocks the same way.

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
