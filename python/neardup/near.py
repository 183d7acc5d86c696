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

import contextlib
import warnings
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import numpy as np

from neardup import _core, stages
from neardup._buffer import trim_heap
from neardup.banding import DEFAULT_RECALL, planned_probability
from neardup.errors import NeardupWarning
from neardup.evidence import Evidence, subset_sets
from neardup.partitions import largest_partition, per_partition
from neardup.plan import Plan

if TYPE_CHECKING:
    from neardup.spill import SetSpill

#: Shingle hashes (8 bytes each, so 128 MB) of the candidates' sets verified at once when the
#: sign pass could not hold them (past ``engine.HOLD_SETS_BUDGET``): past it, the candidates'
#: sets are read back from the sign pass's spill file one chunk of whole connected components
#: of the candidate graph at a time, each chunk verified alone (a chunk is larger only when one
#: component is).
VERIFY_BUDGET = 1 << 24

#: How far below the recall target (or the banding's own P(T), if lower) the expected recall may
#: fall, because LSH buckets were split, before a :class:`NeardupWarning` says so.
RECALL_WARNING = 1e-3


def candidate_bound(
    signatures: np.ndarray,
    bands: int,
    rows: int,
    limit: int,
    threads: int = 1,
    threshold: float | None = None,
    bucket_limit: int | None = None,
) -> int:
    """An upper bound on LSH candidate pairs, counted band by band (stops past ``limit``),
    ``threads`` bands at a time (the same bound for every thread count), large buckets split
    as ``bucket_limit`` says (:func:`neardup.stages.lsh_candidates`).

    >>> sig = stages.minhash(["a b c"] * 4, num_perm=8, k=1)
    >>> candidate_bound(sig, 4, 2, 100)
    24
    """
    return _core.lsh_bucket_pairs_bound(
        np.ascontiguousarray(signatures), bands, rows, limit, threads, threshold, bucket_limit
    )


def candidate_sets(ev: Evidence, wanted: np.ndarray) -> stages.ShingleSets:
    """The (stripped) sets of the unique documents ``wanted`` (bool[m]), the others empty:
    all those held from the sign pass, else the wanted ones read back from its spill."""
    if ev.sets is not None:
        return ev.sets
    assert ev.spill is not None, "exact verification needs the sets held or spilled"
    want = np.flatnonzero(wanted)
    sets = ev.spill.read(want)
    sizes = np.zeros(len(ev.selected), dtype=np.int64)
    sizes[want] = sets.sizes()
    offsets = np.zeros(len(ev.selected) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return stages.ShingleSets(
        offsets, sets.hashes, k=sets.k, unit=sets.unit, hash_version=sets.hash_version
    )


def bucket_components(
    signatures: np.ndarray,
    bands: int,
    rows: int,
    threads: int = 1,
    threshold: float | None = None,
    bucket_limit: int | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """(int64[m] component labels: each one's lowest document, bool[m] in some bucket of two
    or more, the bucket pairs :func:`candidate_bound` counts, over every band) of the LSH
    bucket graph (documents sharing a band key are linked, the keys of
    ``stages.lsh_candidates``), one band at a time on ``threads`` threads: memory for a band's
    keys per thread, not for every band's (``stages.lsh_duplicates`` holds them all), and no
    candidate pairs listed.

    >>> sig = stages.minhash(["a b c d e f", "a b c d e f", "x y z"], num_perm=16, k=2)
    >>> labels, wanted, bucket_pairs = bucket_components(sig, 8, 2)
    >>> labels.tolist(), wanted.tolist(), bucket_pairs
    ([0, 0, 2], [True, True, False], 8)
    """
    return _core.lsh_bucket_components(
        np.ascontiguousarray(signatures), bands, rows, threads, threshold, bucket_limit
    )


def verify_chunks(
    labels: np.ndarray, wanted: np.ndarray, sizes: np.ndarray | None, budget: int
) -> np.ndarray | None:
    """int64[m]: the chunk of each ``wanted`` document (-1 for the others), whole components
    (``labels``: each one's lowest document) packed in order, a chunk starting at each
    multiple of ``budget`` shingles (``sizes``): it holds less than ``budget`` plus its last
    component. None when they all fit in one (or the sizes are unknown).

    >>> labels, wanted = np.array([0, 0, 2, 2, 4]), np.array([True] * 4 + [False])
    >>> verify_chunks(labels, wanted, np.array([4, 4, 4, 4, 9]), 8).tolist()
    [0, 0, 1, 1, -1]
    """
    n = len(wanted)
    if sizes is None or len(sizes) != n or int(sizes[wanted].sum()) <= budget:
        return None
    docs = np.flatnonzero(wanted)
    labels = labels[docs]
    weight = np.bincount(labels, weights=sizes[docs], minlength=n)
    components = np.unique(labels)
    before = np.cumsum(weight[components]) - weight[components]
    first = np.zeros(n, dtype=np.int64)
    first[components] = (before // budget).astype(np.int64)
    chunk = np.full(n, -1, dtype=np.int64)
    # chunk numbers made consecutive (a component past the budget skips some)
    chunk[docs] = np.unique(first[labels], return_inverse=True)[1]
    return chunk


def _read_chunks(
    spill: SetSpill, chunk: np.ndarray
) -> Generator[tuple[np.ndarray, stages.ShingleSets], None, None]:
    """(members, their sets) of each chunk in turn, read back from the sign pass's spill."""
    order = np.argsort(chunk, kind="stable")  # by chunk, each one's members increasing
    ends = np.cumsum(np.bincount(chunk[chunk >= 0]))
    skip = len(chunk) - (int(ends[-1]) if len(ends) else 0)  # the documents of no chunk
    for c in range(len(ends)):
        members = order[skip + (ends[c - 1] if c else 0) : skip + ends[c]]
        yield members, spill.read(members)


def _in_chunks(ev: Evidence, chunk: np.ndarray, verify: Any) -> tuple[np.ndarray, np.ndarray]:
    """``verify(members, sets)`` (pairs into ``members``, similarities) of every chunk, as pairs
    into ``ev.selected`` sorted (the order one call over all the sets gives); the chunks' sets
    read back from the sign pass's spill one chunk at a time."""
    found: list[np.ndarray] = [np.zeros((0, 2), dtype=np.int64)]
    found_sims: list[np.ndarray] = [np.zeros(0, dtype=np.float32)]
    assert ev.spill is not None, "chunks are read back from the spill"
    with contextlib.closing(_read_chunks(ev.spill, chunk)) as parts:
        for members, sets in parts:
            pairs, sims = verify(members, sets)
            found.append(members[pairs] if len(pairs) else pairs.reshape(0, 2))
            found_sims.append(sims)
            del sets
            trim_heap()
    pairs, sims = np.concatenate(found), np.concatenate(found_sims)
    order = np.lexsort((pairs[:, 1], pairs[:, 0]))
    return pairs[order], sims[order]


def verify_candidates(
    plan: Plan, ev: Evidence, candidates: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The ``candidates`` (sorted pairs into ``ev.selected``) whose exact Jaccard reaches the
    plan's threshold, with it: on the sets held from the sign pass, else on the candidates'
    sets read back from its spill (``ev.sets`` then holds them), in chunks read one at a time
    when they are more than :data:`VERIFY_BUDGET` (``ev.sets`` stays None: similarities to the
    kept document are then the signatures' estimate)."""
    m = len(ev.selected)
    chunk = None
    if ev.sets is None and ev.set_sizes is not None:
        labels = _core.clusters(candidates, m)
        chunk = verify_chunks(labels, _in_pairs(candidates, m), ev.set_sizes, VERIFY_BUDGET)
    if chunk is None:
        ev.sets = candidate_sets(ev, _in_pairs(candidates, m))
        return _verified(ev.sets, candidates, plan)
    at = np.zeros(m, dtype=np.int64)  # each document's row in its chunk
    of_pair = chunk[candidates[:, 0]]  # both ends are in one component, so in one chunk

    def verify(members: np.ndarray, sets: stages.ShingleSets) -> tuple[np.ndarray, np.ndarray]:
        at[members] = np.arange(len(members))
        c = chunk[members[0]]
        return _verified(sets, at[candidates[of_pair == c]], plan)

    return _in_chunks(ev, chunk, verify)


def _verified(
    sets: stages.ShingleSets, pairs: np.ndarray, plan: Plan
) -> tuple[np.ndarray, np.ndarray]:
    """The ``pairs`` whose exact Jaccard reaches the plan's threshold, with it (the crate's
    ``jaccard_at_least``: the arguments were checked once, in the plan)."""
    return _core.jaccard_at_least(sets.offsets, sets.hashes, pairs, plan.threshold, plan.threads)


def _in_pairs(pairs: np.ndarray, n: int) -> np.ndarray:
    rows = np.zeros(n, dtype=bool)
    rows[pairs.ravel()] = True
    return rows


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

        def brute(rows: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
            part = sets if rows is None else subset_sets(sets, rows)
            return _core.all_pairs_jaccard(part.offsets, part.hashes, threshold)

        pairs, sims, sizes = per_partition(partitions, m, brute)
        info["candidates"] = int((sizes * (sizes - 1) // 2).sum())
    elif plan.method == "minhash":
        pairs, sims = _minhash_pairs(plan, evidence, info)
    else:
        pairs, sims = _simhash_pairs(plan, evidence, info, partitions)
    if plan.method == "minhash" and "pairs_used" not in info:
        info["pairs_used"] = "all" if plan.pairs == "auto" else plan.pairs
    return pairs, sims, info


def _minhash_pairs(plan: Plan, ev: Evidence, info: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    sig = ev.signatures
    assert sig is not None and plan.bands is not None and plan.rows is not None
    bands, rows, threshold, threads = plan.bands, plan.rows, plan.threshold, plan.threads
    limit = plan.bucket_limit
    mode = plan.pairs
    candidates = None
    pair_limit = None
    # Exact verification of spilled sets in spanning mode needs the bucket components: where
    # the count may pass the limit, one grouping pass gives both (same count, same decision).
    components = None
    in_chunks = plan.verify == "exact" and ev.sets is None and ev.set_sizes is not None
    if mode == "auto":
        # Spanning pairs once the bucket pairs (candidate_bound's count) pass the limit. The
        # search counts them as it lists them and stops past the limit, so where the first
        # band's count says the total will stay well below it, one pass decides and lists;
        # where it may not, the count alone comes first (listing pairs that are then thrown
        # away costs more than counting). The decision is the count's either way.
        first_band = candidate_bound(sig, 1, rows, plan.spanning_limit, threads, threshold, limit)
        if first_band * bands <= plan.spanning_limit // 2:
            pair_limit = plan.spanning_limit
        elif in_chunks:
            components = bucket_components(sig, bands, rows, threads, threshold, limit)
            mode = "spanning" if components[2] > plan.spanning_limit else "all"
        else:
            bound = candidate_bound(
                sig, bands, rows, plan.spanning_limit, threads, threshold, limit
            )
            mode = "spanning" if bound > plan.spanning_limit else "all"
    if mode != "spanning":
        candidates = _search(plan, sig, info, screen=plan.verify == "exact", pair_limit=pair_limit)
        mode = "all" if candidates is not None else "spanning"
    if mode == "spanning" and plan.pairs == "auto":
        info["pairs_reason"] = f"LSH buckets hold more than {plan.spanning_limit:,} pairs"
    info["pairs_used"] = mode
    if plan.verify == "estimate":
        if mode == "spanning":
            pairs, sims = _core.lsh_duplicates(
                sig, bands, rows, threshold, None, None, True, threads, limit
            )
            info["candidates"] = len(pairs)
            return pairs, sims
        assert candidates is not None
        sims = _core.estimate_jaccard(sig, candidates)
        keep = sims.astype(np.float64) >= threshold
        return candidates[keep], sims[keep]
    if mode == "spanning":  # leaders chosen by exact Jaccard: the sets of bucket members
        chunk = None
        if in_chunks:
            labels, wanted, _ = components or bucket_components(
                sig, bands, rows, threads, threshold, limit
            )
            chunk = verify_chunks(labels, wanted, ev.set_sizes, VERIFY_BUDGET)
        if chunk is None:
            wanted = _core.lsh_rows_in_candidates(sig, bands, rows, threads, threshold, limit)
            ev.sets = sets = candidate_sets(ev, wanted)
            pairs, sims = _core.lsh_duplicates(
                sig, bands, rows, threshold, sets.offsets, sets.hashes, True, threads, limit
            )
        else:  # each chunk's buckets alone: whole components, so the same leaders

            def spanning(
                members: np.ndarray, sets: stages.ShingleSets
            ) -> tuple[np.ndarray, np.ndarray]:
                return _core.lsh_duplicates(
                    sig[members],
                    bands,
                    rows,
                    threshold,
                    sets.offsets,
                    sets.hashes,
                    True,
                    threads,
                    limit,
                )

            pairs, sims = _in_chunks(ev, chunk, spanning)
        info["candidates"] = len(pairs)
        if chunk is not None:
            return pairs, sims  # the signatures estimate kept similarities
    else:
        assert candidates is not None
        pairs, sims = verify_candidates(plan, ev, candidates)
        if ev.sets is None:  # verified in chunks: the signatures estimate kept similarities
            return pairs, sims
    ev.signatures = None  # exact Jaccard from here on: free the signatures
    return pairs, sims


def _search(
    plan: Plan, sig: np.ndarray, info: dict[str, Any], screen: bool, pair_limit: int | None
) -> np.ndarray | None:
    """The LSH candidates of the plan's banding (``screen``: only those whose signatures
    agree on enough slots for exact verification to be worth it), with what the search counted
    in ``info``: ``candidates``, ``screened``, ``bucket_splits`` and ``expected_recall`` (the
    banding's P(T), lowered where buckets were split; the banding's own in
    ``banding_recall``). Warns when splitting lowered it. None when the bucket pairs
    (:func:`candidate_bound`'s count) pass ``pair_limit``: the search stopped there."""
    assert plan.bands is not None and plan.rows is not None
    pairs, screened, splits, recall, _ = _core.lsh_candidate_search(
        np.ascontiguousarray(sig),
        plan.bands,
        plan.rows,
        plan.threshold,
        plan.bucket_limit,
        screen and plan.algorithm == "classic",
        plan.threads,
        pair_limit,
    )
    if pairs is None:
        return None
    banding_recall = float(
        info.get("expected_recall") or planned_probability(plan.threshold, plan.bands, plan.rows)
    )
    info.update(
        candidates=len(pairs),
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
    return pairs


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

    def within(rows: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        part = fingerprints if rows is None else fingerprints[rows]
        return _core.hamming_within(part, radius, np.ones(len(part), dtype=bool), plan.threads)

    candidates, distance, _ = per_partition(partitions, len(fingerprints), within)
    info["candidates"] = len(candidates)
    if plan.verify == "estimate":
        return candidates, (1.0 - distance / plan.simhash_bits).astype(np.float32)
    return verify_candidates(plan, ev, candidates)


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
