"""The near stage of a run, from the sign pass's arrays to the cluster labels: one crate call,
``_core.near_stage`` (``rust/near/stage.rs``), which decides a MinHash run's banding, salts
its signatures by partition, makes the one dispatch on ``method`` (exact Jaccard brute
force, MinHash + LSH, SimHash), verifies the candidates on the sets the sign pass held or
spilled (:mod:`neardup.spill`: the store is never read again), and clusters. This module
passes it the plan's options, writes what it decided into ``info`` and warns where the user
should know.

Pairs come back as indices into ``Evidence.selected`` (the sorted positions of the unique
documents), with their similarity.

>>> from neardup.plan import make_plan
>>> from neardup import stages
>>> plan = make_plan(method="exact-jaccard", k=1, threshold=0.5)
>>> sets = stages.shingles(["a b c d", "a b c e", "x y z"], k=1)
>>> ev = Evidence(np.arange(3), sets=sets)
>>> signed = (np.arange(3), np.arange(3), np.zeros((3, 2), np.uint64), sets.sizes(), 12)
>>> near_stage(plan, plan.resolve(3), signed, ev, None, {})[1].tolist()
[[0, 1]]
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np

from neardup import _core, stages
from neardup.banding import DEFAULT_RECALL, banding_info
from neardup.errors import NeardupWarning
from neardup.evidence import Evidence
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

#: Predicted seconds (one thread) of the SimHash search past which the run warns first: brute
#: force where no index pays (a wide radius), or an index whose keys are too short to pay
#: much; either way the time grows with the square of the documents.
SIMHASH_WARN_SECONDS = 5.0


def near_stage(
    plan: Plan,
    resolved: Plan,
    signed: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int],
    evidence: Evidence,
    partitions: np.ndarray | None,
    info: dict[str, Any],
) -> tuple[Plan, np.ndarray, np.ndarray, np.ndarray]:
    """(the plan with the banding used, pairs int64[k, 2] into ``evidence.selected``,
    similarity float32[k], cluster labels int64[n]) of the unique documents the sign pass left:
    ``signed`` is (first, selected, digests, set sizes, shingles read), ``partitions`` one key
    per unique document (``within=``) or None. What the stage decided and counted goes to
    ``info``; ``evidence`` keeps the sets read back for verification."""
    first, selected, digests, set_sizes, shingled = signed
    found = _core.near_stage(
        first,
        selected,
        digests,
        set_sizes,
        shingled,
        evidence.signatures,
        partitions=None if partitions is None else np.ascontiguousarray(partitions, np.uint64),
        before_search=lambda fields: _warn_quadratic(resolved, stages.HammingSearch(*fields)),
        **_options(plan, resolved),
        **_set_source(resolved, evidence),
    )
    if found["banding"] is not None:
        bands, rows = banding_info(found["banding"], info)
        resolved = dataclasses.replace(resolved, bands=bands, rows=rows)
    info["candidates"] = found["candidates"]
    if resolved.method == "minhash":
        _minhash_info(resolved, found, info)
    if found["simhash_plan"] is not None:
        search = stages.HammingSearch(*found["simhash_plan"])
        info["simhash_search"] = search.search
        info["simhash_predicted_comparisons"] = int(search.comparisons)
    if found["cross_partition_dropped"]:  # a chance collision of salted band keys
        info["cross_partition_dropped"] = found["cross_partition_dropped"]
    _keep_evidence(resolved, evidence, found)
    return resolved, found["pairs"], found["similarity"], found["labels"]


def _options(plan: Plan, resolved: Plan) -> dict[str, Any]:
    """The resolved plan's options as ``_core.near_stage`` takes them (checked once, by the
    plan)."""
    return {
        "method": resolved.method,
        "threshold": resolved.threshold,
        "bands": resolved.bands or 1,
        "rows": resolved.rows or 1,
        "given": plan.bands is not None,
        "bucket_limit": resolved.bucket_limit,
        "pairs": resolved.pairs,
        "spanning_limit": resolved.spanning_limit,
        "exact": resolved.verify == "exact",
        "screen": resolved.algorithm == "classic",
        "threads": resolved.threads,
        "verify_budget": VERIFY_BUDGET,
        "max_distance": resolved.max_hamming or 0,
        "simhash_bits": resolved.simhash_bits,
    }


def _set_source(resolved: Plan, ev: Evidence) -> dict[str, Any]:
    """The sets the stage reads (exact Jaccard; exact verification): those the sign pass
    held, else its spill (or neither)."""
    if resolved.verify != "exact" and resolved.method != "exact-jaccard":
        return {}
    if ev.sets is not None:
        return {"offsets": ev.sets.offsets, "hashes": ev.sets.hashes}
    if ev.spill is not None:
        return {"spill": ev.spill.core}
    return {}


def _keep_evidence(resolved: Plan, ev: Evidence, found: dict[str, Any]) -> None:
    """What the evidence keeps of the stage: the sets read back from the spill at once
    (``ev.sets``; the others' sets empty); MinHash verified exactly, not in chunks: no
    signatures (similarities to the kept document are then exact Jaccard; after chunks they
    stay the signatures' estimate)."""
    ev.simhash_bits = resolved.simhash_bits
    if found["sets_read"] is not None:
        assert ev.spill is not None
        offsets, hashes = found["sets_read"]
        unit: Any = ev.spill.unit
        ev.sets = stages.ShingleSets(
            offsets, hashes, k=ev.spill.k, unit=unit, hash_version=ev.spill.hash_version
        )
    searched = len(ev.selected) >= 2
    if resolved.method == "minhash" and resolved.verify == "exact" and searched:
        if not found["chunks"]:
            ev.signatures = None


def _minhash_info(resolved: Plan, found: dict[str, Any], info: dict[str, Any]) -> None:
    """What a MinHash search decided and counted, in ``info``: the pairs mode used, the
    grouping passes, and (a whole search) ``screened``, ``bucket_splits`` and
    ``expected_recall`` (the banding's P(T), lowered where buckets were split; the banding's
    own in ``banding_recall``). Warns when splitting lowered it."""
    if found["passes"]:
        mode = "spanning" if found["spanning"] else "all"
        if mode == "spanning" and resolved.pairs == "auto":
            info["pairs_reason"] = f"LSH buckets hold more than {resolved.spanning_limit:,} pairs"
        info["lsh_passes"] = found["passes"]
    else:  # nothing to search
        mode = "all" if resolved.pairs == "auto" else resolved.pairs
    info["pairs_used"] = mode
    if found["search"] is None:
        return
    screened, splits, recall = found["search"]
    banding_recall = float(info["expected_recall"])
    info.update(
        screened=screened,
        bucket_splits=splits,
        banding_recall=banding_recall,
        expected_recall=min(recall, banding_recall),
    )
    if recall < min(banding_recall, DEFAULT_RECALL) - RECALL_WARNING:
        warnings.warn(
            f"LSH buckets of more than {resolved.bucket_limit} documents that were not mostly "
            f"duplicates (shared boilerplate?) were split to keep the work linear: expected "
            f"recall at threshold {resolved.threshold:g} is {recall:.4f} instead of "
            f"{banding_recall:.4f}. bucket_limit=None (--bucket-limit none) keeps every bucket "
            "whole; strip_boilerplate=0.1 removes shared text first.",
            NeardupWarning,
            stacklevel=5,
        )


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
