"""The sign pass of one batch (:func:`sign_batch`): shingle sets, their digests (the
exact-duplicate key), boilerplate stripping and MinHash signatures or SimHash fingerprints,
the per-partition map every executor runs (:mod:`neardup.engine` locally, :mod:`neardup.ray`
per Ray block).

>>> from neardup.plan import make_plan
>>> b = sign_batch(make_plan(k=2), ["a b c", "a b c"], np.zeros(0, np.uint64))
>>> bool((b.digests[0] == b.digests[1]).all())
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from neardup import _core, stages
from neardup._texts import as_core_texts, core_texts
from neardup.boilerplate import remove_shingles
from neardup.evidence import subset_sets
from neardup.plan import Plan
from neardup.stores import char_lengths


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


@dataclass
class SignedBatch:
    """What the sign pass keeps of one batch (per document unless said otherwise)."""

    digests: np.ndarray  # uint64[n, 2], the exact-duplicate key
    groupable: np.ndarray  # bool[n]: may join an exact group (empty documents may not)
    live: np.ndarray  # bool[n]: has shingles after stripping (takes part in near pairs)
    lengths: np.ndarray  # int64[n] characters (keep="longest"), else zeros
    sets: stages.ShingleSets | None  # the (stripped) sets of the batch, if kept
    sizes: np.ndarray | None = None  # set sizes before stripping (boilerplate statistics)
    removed: np.ndarray | None = None  # shingles stripped per document
    signatures: np.ndarray | None = None  # MinHash uint32[n, P] / SimHash uint64[n, w], one pass
    shingled: bool = True  # False for the SHA-256 methods (no sets, no signatures)
    set_sizes: np.ndarray | None = None  # int64[n] sizes of the sets signed, kept or not


def _signs_in_one_pass(plan: Plan, drop: np.ndarray) -> bool:
    """Whether :func:`sign_batch` signs too (MinHash or SimHash, no boilerplate to strip
    first): then one core call shingles, digests and signs each document while it is in
    cache."""
    return plan.method in ("minhash", "auto", "simhash") and not drop.size


def sign_batch(
    plan: Plan,
    texts: Any,
    drop: np.ndarray,
    keep_sets: bool = True,
) -> SignedBatch:
    """Shingle one batch, digest its sets, strip the ``drop`` shingles: the per-partition map.

    For MinHash or SimHash without boilerplate stripping the batch is also signed
    (``SignedBatch.signatures``: signatures or fingerprints), in the same core call; its sets
    are then returned only when ``keep_sets``. (The local engine's sign pass is
    ``_core.SignPass``, which also strips, collapses and keeps the sets, for every method;
    this is the Ray engine's map.)

    >>> from neardup.plan import make_plan
    >>> b = sign_batch(make_plan(k=2), ["a b c", "", "a b c"], np.zeros(0, np.uint64))
    >>> b.live.tolist(), b.groupable.tolist(), b.signatures.shape
    ([True, False, True], [True, False, True], (3, 128))
    """
    lengths = char_lengths(texts) if plan.keep == "longest" else None
    if not plan.uses_shingles:
        normalized = plan.method == "sha256-normalized"
        digests = sha256_digests(texts, normalized, plan.hash_version, plan.threads)
        n = len(digests)
        every = np.ones(n, dtype=bool)
        zeros = np.zeros(n, dtype=np.int64)
        return SignedBatch(
            digests, every, ~every, zeros if lengths is None else lengths, None, shingled=False
        )
    if _signs_in_one_pass(plan, drop):
        core = core_texts(texts)
        signatures, digests, offsets, hashes = (
            _core.simhash_sign_texts(
                core,
                plan.k,
                plan.unit,
                plan.hash_version,
                plan.simhash_bits,
                plan.threads,
                keep_sets,
            )
            if plan.method == "simhash"
            else _core.sign_texts(
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
        )
        sizes = np.diff(offsets)
        unit: Any = plan.unit
        kept = None
        if hashes is not None:
            kept = stages.ShingleSets(
                offsets, hashes, k=plan.k, unit=unit, hash_version=plan.hash_version
            )
        n = len(sizes)
        return SignedBatch(
            digests,
            sizes > 0,
            sizes > 0,
            np.zeros(n, dtype=np.int64) if lengths is None else lengths,
            kept,
            signatures=signatures,
            set_sizes=sizes,
        )
    sets = batch_shingles(plan, texts)
    n = len(sets)
    sizes = sets.sizes()
    digests = set_digests(sets)  # of the full sets: identical documents stay exact duplicates
    removed = None
    if drop.size:
        sets, removed = remove_shingles(sets, drop)
    return SignedBatch(
        digests,
        sizes > 0,
        sets.sizes() > 0,
        np.zeros(n, dtype=np.int64) if lengths is None else lengths,
        sets,
        sizes if drop.size else None,
        removed,
        set_sizes=sets.sizes(),
    )


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
