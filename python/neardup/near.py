"""Near-duplicate pairs among the unique documents: the one place the pipeline dispatches on
``method`` (exact Jaccard brute force, MinHash + LSH, SimHash).

Input is the :class:`Evidence` of the sign pass (signatures or fingerprints of the first
occurrences, or all their shingle sets for exact Jaccard); exact verification of LSH or
SimHash candidates takes the candidates' sets held from the sign pass or read back from its
spill file (:mod:`neardup.spill`): the store is never read again.
Pairs come back as indices into ``Evidence.selected`` (the sorted positions of the unique
documents), with their similarity.

>>> from neardup.plan import make_plan
>>> from neardup import stages
>>> plan = make_plan(method="exact-jaccard", k=1, threshold=0.5).resolve(3)
>>> ev = Evidence(np.arange(3), sets=stages.shingles(["a b c d", "a b c e", "x y z"], k=1))
>>> near_pairs(plan, ev)[0].tolist()
[[0, 1]]
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from neardup import _core, stages
from neardup.banding import DEFAULT_RECALL, planned_probability
from neardup.errors import NeardupWarning
from neardup.evidence import Evidence
from neardup.partitions import largest_partition
from neardup.plan import Plan

#: Shingle hashes (8 bytes each, so 128 MB) of the candidates' sets verified at once when the
#: sign pass could not hold them (past ``engine.HOLD_SETS_BUDGET``): past it, the candidates'
#: sets are read back from the sign pass's spill file one chunk of whole connected components
#: of the candidate graph at a time, each chunk verified alone (a chunk is larger only when one
#: component is).
VERIFY_BUDGET = 1 << 24

#: How far below the recall target (or the banding's own P(T), if lower) the expected recall may
#: fall, because LSH buckets were split, before a :class:`NeardupWarning` says so.
RECALL_WARNING = 1e-3


def _set_source(ev: Evidence) -> dict[str, Any]:
    """The sets exact verification reads (``_core.minhash_near_pairs`` /
    ``verify_candidates``): those the sign pass held, else its spill (or neither)."""
    if ev.sets is not None:
        return {"offsets": ev.sets.offsets, "hashes": ev.sets.hashes}
    if ev.spill is not None:
        return {"spill": ev.spill.core}
    return {}


def _verified(
    ev: Evidence, found: dict[str, Any], drop_signatures: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs the crate verified, with what the evidence keeps: the sets read back from the
    spill at once (``ev.sets``; the others' sets empty); ``drop_signatures`` (MinHash's exact
    verification) and not verified in chunks: no signatures (similarities to the kept document
    are then exact Jaccard; after chunks they stay the signatures' estimate)."""
    if found["sets_read"] is not None:
        assert ev.spill is not None
        offsets, hashes = found["sets_read"]
        unit: Any = ev.spill.unit
        ev.sets = stages.ShingleSets(
            offsets, hashes, k=ev.spill.k, unit=unit, hash_version=ev.spill.hash_version
        )
    if drop_signatures and not found["chunks"]:
        ev.signatures = None
    return found["pairs"], found["similarity"]


def _none() -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.float32)


def near_pairs(
    plan: Plan, evidence: Evidence, partitions: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """(pairs int64[m, 2] into ``evidence.selected``, similarity float32[m], info) by the
    plan's method; ``info`` records the candidates and (MinHash) the pairs mode used.
    ``partitions`` (uint64 per unique document, ``within=``): exact Jaccard and SimHash search
    each partition alone (MinHash gets its partitions from salted signatures, see
    :func:`neardup.partitions.salt_signatures`)."""
    m = len(evidence.selected)
    threshold = plan.threshold
    info: dict[str, Any] = {}
    if not plan.uses_shingles or m < 2:
        pairs, sims = _none()
        info["candidates"] = 0
    elif plan.method == "exact-jaccard":
        sets = evidence.sets
        assert sets is not None
        pairs, sims, sizes = _core.exact_jaccard_pairs(
            sets.offsets, sets.hashes, threshold, _keys(partitions)
        )
        info["candidates"] = int((sizes * (sizes - 1) // 2).sum())
    elif plan.method == "minhash":
        pairs, sims = _minhash_pairs(plan, evidence, info)
    else:
        pairs, sims = _simhash_pairs(plan, evidence, info, partitions)
    if plan.method == "minhash" and "pairs_used" not in info:
        info["pairs_used"] = "all" if plan.pairs == "auto" else plan.pairs
    return pairs, sims, info


def _minhash_pairs(plan: Plan, ev: Evidence, info: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """The crate's MinHash near pairs (``rust/near/``: the candidate search, all pairs or a
    spanning forest, verification on the held or spilled sets), with what it decided and
    counted in ``info``."""
    sig = ev.signatures
    assert sig is not None and plan.bands is not None and plan.rows is not None
    exact = plan.verify == "exact"
    found = _core.minhash_near_pairs(
        np.ascontiguousarray(sig),
        plan.bands,
        plan.rows,
        plan.threshold,
        bucket_limit=plan.bucket_limit,
        pairs=plan.pairs,
        spanning_limit=plan.spanning_limit,
        exact=exact,
        screen=plan.algorithm == "classic",
        threads=plan.threads,
        verify_budget=VERIFY_BUDGET,
        **(_set_source(ev) if exact else {}),
    )
    if found["search"] is not None:
        _search_info(plan, info, found["candidates"], *found["search"])
    mode = "spanning" if found["spanning"] else "all"
    if mode == "spanning" and plan.pairs == "auto":
        info["pairs_reason"] = f"LSH buckets hold more than {plan.spanning_limit:,} pairs"
    info["pairs_used"] = mode
    info["candidates"] = found["candidates"]
    info["lsh_passes"] = found["passes"]
    return _verified(ev, found, drop_signatures=exact)


def _search_info(
    plan: Plan, info: dict[str, Any], candidates: int, screened: int, splits: int, recall: float
) -> None:
    """What the candidate search counted, in ``info``: ``candidates``, ``screened``,
    ``bucket_splits`` and ``expected_recall`` (the banding's P(T), lowered where buckets were
    split; the banding's own in ``banding_recall``). Warns when splitting lowered it."""
    assert plan.bands is not None and plan.rows is not None
    banding_recall = float(
        info.get("expected_recall") or planned_probability(plan.threshold, plan.bands, plan.rows)
    )
    info.update(
        candidates=candidates,
        screened=screened,
        bucket_splits=splits,
        banding_recall=banding_recall,
        expected_recall=min(recall, banding_recall),
    )
    if recall < min(banding_recall, DEFAULT_RECALL) - RECALL_WARNING:
        warnings.warn(
            f"LSH buckets of more than {plan.bucket_limit} documents that were not mostly "
            f"duplicates (shared boilerplate?) were split to keep the work linear: expected "
            f"recall at threshold {plan.threshold:g} is {recall:.4f} instead of "
            f"{banding_recall:.4f}. bucket_limit=None (--bucket-limit none) keeps every bucket "
            "whole; strip_boilerplate=0.1 removes shared text first.",
            NeardupWarning,
            stacklevel=2,
        )


#: Predicted seconds (one thread) of the SimHash search past which the run warns first: brute
#: force where no index pays (a wide radius), or an index whose keys are too short to pay
#: much; either way the time grows with the square of the documents.
SIMHASH_WARN_SECONDS = 5.0


def _simhash_pairs(
    plan: Plan, ev: Evidence, info: dict[str, Any], partitions: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    fingerprints = ev.signatures
    radius = plan.max_hamming
    assert fingerprints is not None and radius is not None
    ev.simhash_bits = plan.simhash_bits
    largest = largest_partition(partitions, len(fingerprints))
    biggest = np.ascontiguousarray(fingerprints[largest])
    every = np.ones(len(biggest), dtype=bool)
    search = stages.HammingSearch(*_core.hamming_search_plan(biggest, radius, every, plan.threads))
    info["simhash_search"] = search.search
    info["simhash_predicted_comparisons"] = int(search.comparisons)
    _warn_quadratic(plan, search)
    exact = plan.verify == "exact"
    found = _core.simhash_near_pairs(
        np.ascontiguousarray(fingerprints),
        radius,
        plan.threshold,
        threads=plan.threads,
        exact=exact,
        verify_budget=VERIFY_BUDGET,
        partitions=_keys(partitions),
        **(_set_source(ev) if exact else {}),
    )
    info["candidates"] = found["candidates"]
    return _verified(ev, found)


def _keys(partitions: np.ndarray | None) -> np.ndarray | None:
    """The partition keys as the crate takes them (uint64 per unique document), or None."""
    return None if partitions is None else np.ascontiguousarray(partitions, dtype=np.uint64)


def _warn_quadratic(plan: Plan, search: stages.HammingSearch) -> None:
    """Warns, before the work, when the SimHash search is predicted to take more than
    :data:`SIMHASH_WARN_SECONDS`: brute force where no index pays (a wide radius), or an index
    whose short keys still leave a share of all pairs to compare."""
    if search.seconds < SIMHASH_WARN_SECONDS:
        return
    if search.search == "brute force":
        what = (
            f"no index pays at this radius, so all {search.brute_force_comparisons:,.0f} pairs "
            f"of the {search.distinct:,} distinct fingerprints will be compared"
        )
    else:
        what = (
            f"even the cheapest index ({search.search[7:-1]}) leaves about "
            f"{search.comparisons:,.0f} of the {search.brute_force_comparisons:,.0f} pairs of "
            f"the {search.distinct:,} distinct fingerprints to compare"
        )
    warnings.warn(
        f"SimHash at radius {plan.max_hamming} of {plan.simhash_bits} bits "
        f"(threshold {plan.threshold:g}): {what}, about {search.seconds:,.0f} s on one thread "
        "and growing with the square of the documents; method='minhash' (the default) suits "
        "this threshold, SimHash thresholds of about 0.8 and above",
        NeardupWarning,
        stacklevel=5,
    )
