"""The near stage of a run, from the sign pass's unique documents to the cluster labels: one
crate call, ``_core.Run.near`` (``rust/near/stage.rs``), which decides a MinHash run's
banding, salts its signatures by partition, makes the one dispatch on ``method`` (exact
Jaccard brute force, MinHash + LSH, SimHash), verifies the candidates on the sets the sign
pass held or spilled (:mod:`neardup.spill`: the store is never read again), and clusters. This
module writes what it decided into ``info`` and warns where the user should know.

Pairs come back as indices into the run's ``selected`` (the sorted positions of the unique
documents), with their similarity.

>>> from neardup import _core
>>> from neardup.plan import make_plan
>>> from neardup.spill import SetSpill
>>> plan = make_plan(method="exact-jaccard", k=1, threshold=0.5)
>>> with SetSpill(k=1, unit="word") as spill:
...     run = _core.Run(spill.core, plan.as_dict(), budget=1 << 20)
...     run.sign(["a b c d", "a b c e", "x y z"])
...     resolved = plan.resolve(len(run.finish()["selected"]))
...     near_stage(plan, resolved, run, {})[1]["pairs"].tolist()
[[0, 1]]
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

from neardup import _core, stages
from neardup.banding import DEFAULT_RECALL, banding_info
from neardup.errors import NeardupWarning
from neardup.plan import Plan
from neardup.stores import Progress

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
    run: _core.Run,
    info: dict[str, Any],
    progress: Progress | None = None,
) -> tuple[Plan, dict[str, Any]]:
    """(the plan with the banding used, what ``run.near`` found) for the unique documents of
    a finished run: ``pairs`` int64[k, 2] into its ``selected`` with their ``similarity``
    float32[k], the cluster ``labels`` int64[n], the ``sets`` and ``signatures`` the run
    kept. What the stage decided and counted goes to ``info``; a costly SimHash search is
    warned about before it starts; ``progress`` hears each step as it goes."""
    found = run.near(
        verify_budget=VERIFY_BUDGET,
        before_search=lambda fields: _warn_quadratic(resolved, stages.HammingSearch(*fields)),
        progress=progress,
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
    return resolved, found


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
