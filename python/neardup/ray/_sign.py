"""The Ray map's signing of one block (:func:`neardup.ray._steps.sign_partition`): signatures,
set digests and sizes in one core call (:func:`sign_texts`), and the partition keys of
``within=`` mixed into the digests (:func:`salt_digests`) and every MinHash slot
(:func:`salt_signatures`, ``rust/partitions.rs``), as a local run's sign pass and near stage
mix them, so exact duplicates and LSH candidates stay within partitions. Nothing here imports
Ray.

>>> from neardup.plan import make_plan
>>> _, digests, _, _ = sign_texts(make_plan(k=2), ["a b c", "a b c"])
>>> bool((digests[0] == digests[1]).all())
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from neardup import _core, stages
from neardup._texts import core_texts
from neardup.errors import InvalidArgumentError
from neardup.plan import Plan


def sign_texts(
    plan: Plan, texts: Any, keep_sets: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, stages.ShingleSets | None]:
    """(MinHash signatures uint32[n, P] or SimHash fingerprints uint64[n, w], set digests
    uint64[n, 2], set sizes int64[n], the shingle sets when ``keep_sets``) of one batch of a
    MinHash (``auto`` too) or SimHash plan, in one core call that shingles, digests and signs
    each document while it is in cache. (A local run's sign pass, which also strips
    boilerplate, collapses exact copies and keeps the sets for every method, is
    ``_core.Run.sign``.)

    >>> from neardup.plan import make_plan
    >>> sig, digests, sizes, _ = sign_texts(make_plan(k=2), ["a b c", "", "a b c"])
    >>> sig.shape, sizes.tolist(), bool((digests[0] == digests[2]).all())
    ((3, 128), [2, 0, 2], True)
    """
    if plan.method not in ("minhash", "auto", "simhash"):
        raise InvalidArgumentError(
            f"sign_texts signs MinHash or SimHash plans, not {plan.method!r}"
        )
    core = core_texts(texts)
    signatures: np.ndarray  # uint32 signatures or uint64 fingerprints
    if plan.method == "simhash":
        signatures, digests, offsets, hashes = _core.simhash_sign_texts(
            core, plan.k, plan.unit, plan.hash_version, plan.simhash_bits, plan.threads, keep_sets
        )
    else:
        signatures, digests, offsets, hashes = _core.sign_texts(
            core,
            plan.k,
            plan.unit,
            plan.hash_version,
            plan.num_perm,
            plan.seed,
            plan.algorithm,
            plan.threads,
            keep_sets,
        )
    unit: Any = plan.unit
    sets = None
    if hashes is not None:
        sets = stages.ShingleSets(
            offsets, hashes, k=plan.k, unit=unit, hash_version=plan.hash_version
        )
    return signatures, digests, np.diff(offsets), sets


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
