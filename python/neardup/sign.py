"""Signing outside the engine's sign pass (``_core.SignPass``): one batch's signatures, set
digests and sizes in one core call (:func:`sign_texts`, the Ray engine's map per block), a
batch's shingle sets under a plan (the boilerplate counting passes), the signatures of chosen
rows (:func:`sign_rows`, for explain), and the digests that key exact duplicates.

>>> from neardup.plan import make_plan
>>> _, digests, _, _ = sign_texts(make_plan(k=2), ["a b c", "a b c"])
>>> bool((digests[0] == digests[1]).all())
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from neardup import _core, stages
from neardup._texts import as_core_texts, core_texts
from neardup.errors import InvalidArgumentError
from neardup.evidence import subset_sets
from neardup.plan import Plan


def set_digests(sets: stages.ShingleSets) -> np.ndarray:
    """A 128-bit digest of each shingle set, uint64[n, 2]: equal sets give equal digests.

    Order-independent: the sums of the (already uniform) shingle hashes and of their squares
    modulo 2**64, the mixed size folded into the first; empty sets give (0, 0)
    (``rust/signing/digest.rs``). Only compared within one run, never stored.

    >>> d = set_digests(stages.shingles(["a b c", "A b, c!", "a b d"], k=2))
    >>> bool((d[0] == d[1]).all()), bool((d[0] == d[2]).all())
    (True, False)
    """
    offsets = np.ascontiguousarray(sets.offsets, dtype=np.int64)
    return _core.set_digests(offsets, np.ascontiguousarray(sets.hashes, dtype=np.uint64))


def sha256_digests(
    texts: Any, normalized: bool, hash_version: int = _core.HASH_VERSION, threads: int = 1
) -> np.ndarray:
    """The first 128 bits of each document's SHA-256 (raw UTF-8, or the text normalised by
    ``hash_version``), uint64[n, 2], computed on ``threads`` threads (the same digests).

    >>> d = sha256_digests(["Hi there", "hi THERE!"], normalized=True)
    >>> bool((d[0] == d[1]).all())
    True
    """
    return _core.sha256_digests(core_texts(texts), bool(normalized), hash_version, threads)


def sign_texts(
    plan: Plan, texts: Any, keep_sets: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, stages.ShingleSets | None]:
    """(MinHash signatures uint32[n, P] or SimHash fingerprints uint64[n, w], set digests
    uint64[n, 2], set sizes int64[n], the shingle sets when ``keep_sets``) of one batch of a
    MinHash (``auto`` too) or SimHash plan, in one core call that shingles, digests and signs
    each document while it is in cache: the Ray engine's map. (The local engine's sign pass,
    which also strips boilerplate, collapses exact copies and keeps the sets for every
    method, is ``_core.SignPass``.)

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


def batch_shingles(plan: Plan, texts: Any) -> stages.ShingleSets:
    """A batch's shingle sets under the plan (its options were checked once, in the plan).

    >>> from neardup.plan import make_plan
    >>> batch_shingles(make_plan(k=2), ["a b c", "a"]).sizes().tolist()
    [2, 1]
    """
    unit: Any = plan.unit
    offsets, hashes = _core.shingle_sets(
        as_core_texts(texts), plan.k, plan.unit, plan.hash_version, None
    )
    return stages.ShingleSets(offsets, hashes, k=plan.k, unit=unit, hash_version=plan.hash_version)


def sign_rows(plan: Plan, sets: stages.ShingleSets, rows: np.ndarray) -> np.ndarray:
    """MinHash signatures (``auto`` too) or SimHash fingerprints of the given rows of a batch.

    When most rows are wanted, the whole batch is signed and the rows taken from the
    signatures (cheaper than gathering their shingles first).

    >>> from neardup.plan import make_plan
    >>> sets = stages.shingles(["a b c", "d e f", "a b c"], k=2)
    >>> sign_rows(make_plan(num_perm=8), sets, np.array([0, 1])).shape
    (2, 8)
    """
    if plan.method == "simhash":

        def sign(s: stages.ShingleSets) -> np.ndarray:
            return _core.simhash_sets(s.offsets, s.hashes, plan.simhash_bits, plan.threads)
    else:

        def sign(s: stages.ShingleSets) -> np.ndarray:
            return _core.minhash_sets(
                s.offsets,
                s.hashes,
                plan.num_perm,
                plan.seed,
                plan.threads,
                plan.algorithm,
                s.hash_version,
            )

    if 2 * len(rows) >= len(sets):
        return np.ascontiguousarray(sign(sets)[rows])
    return sign(_rows(sets, rows))


def _rows(sets: stages.ShingleSets, rows: np.ndarray) -> stages.ShingleSets:
    """The sets of ``rows`` only (the first occurrences: duplicates are signed once)."""
    return sets if len(rows) == len(sets) else subset_sets(sets, rows)
