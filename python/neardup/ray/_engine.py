"""The Ray executor: the plan's MinHash (or SimHash) stages over the partitions of a
``ray.data.Dataset``. SimHash replaces the banding and the band records by the local
engine's search, table by table (:mod:`neardup.ray._simhash`); the joins are the same.

Data flow (every arrow is a Ray object moved between tasks; the driver holds partition sizes,
and the edges only when union-find on it is cheaper than distributed components)::

    partition ─sign─> signatures ─bottom-k sample, merged─> the banding (driver, as locally)
              ─digests, shuffled by hash─> the count of distinct sets (the sample's n)
    signatures ─band keys─> (band, key, position, digest) records ─shuffle by (band, key)─>
    buckets ──> candidate pairs (all pairs of distinct sets per bucket of at most
        bucket_limit of them) + exact-duplicate links
    larger buckets' members ─to their partition─> signatures ─back to the bucket's partition─>
        the bucket grouped by the crate's rule (whole when dense, else split by more slots,
        ``_core.lsh_split_bucket``: the local engine's own code) ──> more candidate pairs
    pairs ─to the partition of i─> i's shingle set and signature (or signature) ─to the
        partition of j─> screened by equal slots, then verified pairs (exact Jaccard or
        estimate ≥ threshold, the stages' own comparison)
    links + verified pairs ──> components (union-find on the driver, or large-star/small-star)
    (member, root) ─to root's partition─> root's id and set ─to member's partition─> output rows

The answer equals ``neardup.find_duplicates(texts, method="minhash", pairs="all", ...)``
(banding refined from the same sample, :func:`neardup.ray._banding.run_banding`, and the same
bucket groups) whatever the partitioning: documents are numbered by input position and
every cluster is labelled by its lowest position. Before exact verification, candidates whose
signatures agree on too few slots are dropped as the local engine drops them (the screen, on
the receiving side of the verification join: the left documents' signatures travel with
their shingle sets), so ``candidates`` are the local engine's too; ``screened`` counts pairs
of distinct sets (the local engine's, pairs of distinct signatures).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from neardup import _core
from neardup.banding import DEFAULT_RECALL, planned_sample
from neardup.errors import NeardupWarning
from neardup.groups import EXACT, KEPT, NEAR, NORMALIZED, reason_names
from neardup.near import RECALL_WARNING
from neardup.plan import Plan
from neardup.ray import _simhash, _split, _steps
from neardup.ray._banding import run_banding
from neardup.ray._components import DRIVER_EDGE_LIMIT, roots_distributed, roots_on_driver
from neardup.ray._lazy import LazyRemote
from neardup.ray._steps import Payload, Signed
from neardup.sign import sha256_digests

#: Test hook: when this environment variable names a missing file, the first signing task to
#: see it creates the file and kills its own worker process (Ray then retries the task).
FAULT_ENV = "NEARDUP_RAY_KILL_ONCE"


#: Documents whose bucket records one bucket task holds, about (b records of 36 bytes each).
BUCKET_PARTITION_DOCUMENTS = 20_000


@dataclass
class RayRun:
    """What one Ray run produced: the output blocks and the statistics of its stages."""

    tables: list[Any]
    members: list[Any]
    documents: int
    empty: int
    candidates: int
    exact_links: int
    verified: int
    components_on_driver: bool
    shuffle_bytes: int
    #: The plan run, with the banding chosen for this corpus.
    plan: Plan
    #: What the run decided: expected recall, predicted candidates, banding reason, unique.
    info: dict[str, Any] = field(default_factory=dict)
    #: Rows read from each file (when the dataset has a path column).
    rows_per_file: dict[str, int] = field(default_factory=dict)
    #: The exact-duplicate links (refs to int64[e, 2] (first occurrence, copy) arrays).
    exact_refs: list[Any] = field(default_factory=list)
    #: A run over units of rows: ``tables`` and ``members`` are the rows' (``_units``).
    units: bool = False


def _maybe_die() -> None:
    marker = os.environ.get(FAULT_ENV)
    if marker and not os.path.exists(marker):
        with open(marker, "w") as f:
            f.write(str(os.getpid()))
        os._exit(1)


def _list(refs: Any, n: int) -> list[Any]:
    return list(refs) if n > 1 else [refs]


def run(
    ray: Any,
    blocks: Sequence[Any],
    sizes: Sequence[int],
    where: Sequence[Sequence[tuple[int, str, int]]],
    plan: Plan,
    text_column: str,
    id_column: str | None,
    kept_rows_only: bool,
    driver_edge_limit: int = DRIVER_EDGE_LIMIT,
    shuffle_partitions: int | None = None,
    requested: Plan | None = None,
    within_column: str | None = None,
) -> RayRun:
    """Runs the plan over Arrow blocks (object refs, in input order) and returns output refs.

    ``requested`` is the plan before resolution: when it names no banding, the banding is
    refined from a sample of the signatures, as the local engine does."""
    nblocks = len(blocks)
    starts = np.r_[0, np.cumsum(np.asarray(sizes, dtype=np.int64))][:-1].astype(np.int64)
    # Bucket partitions: two per CPU, more when the corpus is large, so a bucket task holds
    # about 20,000 documents' records (memory per task stays bounded as the corpus grows).
    cpus = int(ray.cluster_resources().get("CPU", 1))
    wanted = max(2 * cpus, -(-int(sum(sizes)) // BUCKET_PARTITION_DOCUMENTS))
    parts = shuffle_partitions or max(1, min(nblocks, wanted))

    simhash = plan.method == "simhash"

    @ray.remote
    def sign(table: Any, start: int, where: Any) -> Any:
        _maybe_die()
        signed = _steps.sign_partition(table, text_column, start, plan, where, within_column)
        if simhash:  # the search's sample, and its count of distinct fingerprints
            lanes = _simhash.as_lanes(signed.signatures)  # type: ignore[arg-type]
            return (
                signed,
                _simhash.fingerprint_sample(lanes),
                *_simhash.fingerprint_rows(lanes, parts),
            )
        sample = planned_sample(signed.digests, signed.signatures, signed.sizes)  # type: ignore[arg-type]
        # what the sign pass read (exact duplicates included), as the local engine counts it
        read = (len(signed.empty), int(signed.sizes.sum()))
        return (signed, (sample, read), *_steps.digest_rows(signed, parts))

    @ray.remote
    def band(signed: Signed, banded: Plan, search: _simhash.TablePlan | None) -> Any:
        if search is not None:  # SimHash: a record per table of the search
            records = _simhash.table_rows(signed, search, parts)
            if plan.verify != "estimate":
                signed.signatures = None
        else:
            signed = _steps.with_band_keys(signed, banded)
            records = _steps.bucket_rows(signed, parts)
        nbytes = sum(sum(a.nbytes for a in r.values()) for r in records)
        signed.keys = np.zeros((0, 0), np.uint64)  # the shuffle carries them from here
        return (signed, (nbytes, int(signed.empty.sum())), *records)

    @ray.remote
    def buckets(search: _simhash.TablePlan | None, *records: dict[str, np.ndarray]) -> Any:
        if search is not None:  # each table's buckets searched by the crate
            candidates, exact = _simhash.table_pairs(records, search, plan)
            big = _steps.no_big()
        else:
            candidates, exact, big = _steps.bucket_pairs(records, plan.bucket_limit)
        split = _steps.split_by(_steps.partition_of(candidates[:, 0], starts), nblocks, candidates)
        # the members of buckets too large to pair whole: their signatures are asked for
        wanted = _steps.unique_sorted(big["positions"])
        asks = _steps.split_by(_steps.partition_of(wanted, starts), nblocks, wanted)
        counts = (len(big["sizes"]), int(big["unique"][0]))
        return (exact, len(exact), counts, big, *[s[0] for s in split], *[a[0] for a in asks])

    @ray.remote
    def fetch(signed: Signed, *asks: np.ndarray) -> Any:
        """The signatures each bucket partition asked this partition for."""
        out = [_steps.member_signatures(signed, wanted) for wanted in asks]
        return out[0] if len(out) == 1 else tuple(out)

    @ray.remote(num_returns=nblocks + 1)
    def split(big: dict[str, np.ndarray], banded: Plan, *answers: Any) -> Any:
        """A bucket partition's large buckets grouped as the local engine groups them."""
        positions = np.concatenate(answers[:nblocks])
        signatures = np.concatenate(answers[nblocks:])
        pairs, splits = _split.split_buckets(big, positions, signatures, banded)
        chunks = _steps.split_by(_steps.partition_of(pairs[:, 0], starts), nblocks, pairs)
        return (splits, *[c[0] for c in chunks])

    def send_left(
        table: Any, signed: Signed, start: int, pair_chunks: Sequence[np.ndarray], label: bool
    ) -> Any:
        """Pairs whose left document is here, with its payload, split by the right's partition."""
        pairs = _steps.unique_pairs(pair_chunks)
        wanted = _steps.unique_sorted(pairs[:, 0])
        payload = _steps.local_payload(
            table, text_column, start, signed, wanted, plan, slots=not label
        )
        if label:  # the canonical document's id and digest travel to its members
            local = wanted - start
            ids = (
                table.column(id_column).take(local).to_pylist() if id_column is not None else wanted
            )
            at = np.searchsorted(signed.positions, wanted)
            payload.extra = {
                "id": ids,
                "digest": signed.digests[at],
                "bytes": _byte_digests(table, text_column, local),
            }
        out = []
        for (sub,) in _steps.split_by(_steps.partition_of(pairs[:, 1], starts), nblocks, pairs):
            out.append((sub, _steps.take_payload(payload, _steps.unique_sorted(sub[:, 0]))))
        return out[0] if nblocks == 1 else tuple(out)

    @ray.remote
    def left_for_verify(table: Any, signed: Signed, start: int, *chunks: np.ndarray) -> Any:
        return send_left(table, signed, start, chunks, label=False)

    @ray.remote
    def left_for_label(table: Any, signed: Signed, start: int, *chunks: np.ndarray) -> Any:
        return send_left(table, signed, start, chunks, label=True)

    def receive(
        table: Any,
        signed: Signed,
        start: int,
        incoming: Sequence[tuple[np.ndarray, Payload]],
        slots: bool = False,
    ) -> tuple[np.ndarray, Payload, Payload]:
        incoming = [c for c in incoming if len(c[0])]
        if not incoming:
            empty = Payload(rows=np.zeros(0, np.int64))
            return _steps.NO_PAIRS, empty, empty
        pairs = np.concatenate([c[0] for c in incoming])
        # each left document lives in one partition, which sent it once: in partition order
        # the rows are unique and sorted, as the comparison's lookups need
        left = _steps.concat_payloads([c[1] for c in incoming])
        wanted = _steps.unique_sorted(pairs[:, 1])
        right = _steps.local_payload(table, text_column, start, signed, wanted, plan, slots)
        return pairs, left, right

    @ray.remote(num_returns=4)
    def verify(table: Any, signed: Signed, start: int, *incoming: Any) -> Any:
        pairs, left, right = receive(table, signed, start, incoming, slots=True)
        pairs, screened = _steps.screen(left, right, pairs, plan)
        kept, _ = _steps.compare(left, right, pairs, plan, plan.threshold)
        return kept, len(kept), len(pairs), screened

    @ray.remote(num_returns=2)
    def label(table: Any, signed: Signed, start: int, *incoming: Any) -> Any:
        pairs, left, right = receive(table, signed, start, incoming)
        pairs, sim = _steps.compare(left, right, pairs, plan, None)
        return _output_block(
            table, signed, start, pairs, sim, left, id_column, kept_rows_only, text_column
        )

    # 1. sign every partition; the banding from the merged sample (the local engine's rule)
    signed_out = [
        sign.options(num_returns=parts + 2).remote(block, start, list(where[b]))
        for b, (block, start) in enumerate(zip(blocks, starts.tolist(), strict=True))
    ]
    info: dict[str, Any] = {}
    sample: np.ndarray | None = None
    sample_sizes: np.ndarray | None = None
    sign_pass: tuple[int, int] | None = None
    unique = 0
    search = None
    if simhash:
        search = _plan_search(ray, plan, signed_out, parts, info)
    elif requested is not None and requested.bands is None:
        counts = [_distinct.remote(*[o[2 + p] for o in signed_out]) for p in range(parts)]
        merged = _merge_samples(ray, [o[1] for o in signed_out]) if signed_out else None
        unique = int(sum(ray.get(counts)))
        # no partition at all: the local engine's empty sample
        if merged is None:
            sample, sample_sizes, sign_pass = np.zeros((0, plan.num_perm), np.uint32), None, (0, 0)
        else:
            (_, sample, sample_sizes), sign_pass = ray.get(merged)
        info["unique"] = unique
    banded = (
        plan
        if simhash
        else run_banding(requested or plan, plan, sample, unique, info, sample_sizes, sign_pass)
    )
    # 2. band keys; shuffle records go straight to the bucket tasks
    signed_refs, record_refs, stat_refs = [], [], []
    banded_ref, search_ref = ray.put(banded), ray.put(search)
    for out in signed_out:
        keyed = band.options(num_returns=parts + 2).remote(out[0], banded_ref, search_ref)
        signed_refs.append(keyed[0])
        stat_refs.append(keyed[1])  # (shuffle bytes, empty documents)
        record_refs.append(keyed[2:])
    # the signatures are freed once the keys are made, unless large buckets may need them
    # (from the keyed partitions when those keep them for verification or the screen)
    signature_refs = []
    if plan.bucket_limit is not None and not simhash:
        keeps = plan.verify == "estimate" or _steps.screens(plan)
        signature_refs = signed_refs if keeps else [out[0] for out in signed_out]
    del signed_out
    # 3. buckets -> candidate pairs (split by the partition of their first document)
    bucket_out = [
        buckets.options(num_returns=2 * nblocks + 4).remote(
            search_ref, *[r[p] for r in record_refs]
        )
        for p in range(parts)
    ]
    exact_refs = [o[0] for o in bucket_out]
    exact_count_refs = [o[1] for o in bucket_out]
    # 3b. buckets larger than the limit: their members' signatures joined to their bucket
    # partition, then grouped there by the crate's rule (whole when dense, else split)
    counts = ray.get([o[2] for o in bucket_out])
    split_out: list[Any] = []
    if any(big for big, _ in counts):
        answers = [
            _list(
                fetch.options(num_returns=parts).remote(
                    signature_refs[b], *[o[4 + nblocks + b] for o in bucket_out]
                ),
                parts,
            )
            for b in range(nblocks)
        ]
        split_out = [
            split.remote(
                bucket_out[p][3],
                banded_ref,
                *[bucket_out[p][4 + nblocks + b] for b in range(nblocks)],
                *[answers[b][p] for b in range(nblocks)],
            )
            for p in range(parts)
            if counts[p][0]
        ]
    del signature_refs
    # 4. verification join: i's payload to j's partition, compared there
    sent = [
        _list(
            left_for_verify.options(num_returns=nblocks).remote(
                blocks[b],
                signed_refs[b],
                int(starts[b]),
                *[o[4 + b] for o in bucket_out],
                *[o[1 + b] for o in split_out],
            ),
            nblocks,
        )
        for b in range(nblocks)
    ]
    verified = [
        verify.remote(blocks[c], signed_refs[c], int(starts[c]), *[s[c] for s in sent])
        for c in range(nblocks)
    ]
    verified_refs = [v[0] for v in verified]
    # 5. components, by edge count
    exact_sizes = ray.get(exact_count_refs)
    verified_sizes = ray.get([v[1] for v in verified])
    edges = sum(exact_sizes) + sum(verified_sizes)
    on_driver = edges <= driver_edge_limit
    edge_refs = exact_refs + verified_refs
    if on_driver:
        all_edges = _steps.unique_pairs(ray.get(edge_refs))
        member, root = roots_on_driver(all_edges)
        root_refs = [ray.put((member, root))]
    else:
        root_refs = roots_distributed(ray, edge_refs, parts)
    by_root = [
        _list(_split_roots.options(num_returns=nblocks).remote(r, starts, nblocks), nblocks)
        for r in root_refs
    ]
    # 6. labelling join: the root's id and set to the member's partition, output built there
    sent = [
        _list(
            left_for_label.options(num_returns=nblocks).remote(
                blocks[b], signed_refs[b], int(starts[b]), *[s[b] for s in by_root]
            ),
            nblocks,
        )
        for b in range(nblocks)
    ]
    labelled = [
        label.remote(blocks[c], signed_refs[c], int(starts[c]), *[s[c] for s in sent])
        for c in range(nblocks)
    ]
    stats = ray.get(stat_refs)
    if _steps.screens(plan):
        info["screened"] = int(sum(ray.get([v[3] for v in verified])))
    if not simhash:
        _split_info(ray, [o[0] for o in split_out], sum(u for _, u in counts), banded, info)
    return RayRun(
        tables=[x[0] for x in labelled],
        members=[x[1] for x in labelled],
        documents=int(sum(sizes)),
        empty=int(sum(empty for _, empty in stats)),
        candidates=int(sum(ray.get([v[2] for v in verified]))),
        exact_links=int(sum(exact_sizes)),
        verified=int(sum(verified_sizes)),
        components_on_driver=on_driver,
        shuffle_bytes=int(sum(nbytes for nbytes, _ in stats)),
        plan=banded,
        info=info,
        exact_refs=exact_refs,
    )


def _plan_search(
    ray: Any, plan: Plan, signed_out: list[Any], parts: int, info: dict[str, Any]
) -> _simhash.TablePlan:
    """The SimHash search of the corpus: the crate's cost model on the merged sample of the
    partitions' fingerprints and the shuffled count of the distinct ones; refused when it
    would not spread over tasks (:func:`neardup.ray._simhash.check_spreads`)."""
    counts = [_distinct.remote(*[o[2 + p] for o in signed_out]) for p in range(parts)]
    refs = [o[1] for o in signed_out]
    while len(refs) > 1:
        refs = [
            _merge_fingerprints.remote(*refs[i : i + SAMPLE_FAN_IN])
            for i in range(0, len(refs), SAMPLE_FAN_IN)
        ]
    sample = ray.get(refs[0]) if refs else np.zeros((0, 2), np.uint64)
    search = _simhash.table_plan(sample, plan, int(sum(ray.get(counts))))
    _simhash.check_spreads(search, plan)
    info.update(_simhash.info(search))
    return search


def _split_info(
    ray: Any, split_refs: list[Any], unique: int, plan: Plan, info: dict[str, Any]
) -> None:
    """``bucket_splits``, ``banding_recall`` and ``expected_recall`` (lowered where buckets
    were split: each document's charges summed over the bucket partitions, exactly, then the
    crate's formula over the ``unique`` distinct sets), as the local engine reports them."""
    assert plan.bands is not None and plan.rows is not None
    found = ray.get(split_refs)
    _, charges = _split.sum_by_position([f.positions for f in found], [f.charges for f in found])
    banding_recall = float(info["expected_recall"])
    recall = _core.lsh_expected_recall_of(charges, unique, plan.bands, plan.rows, plan.threshold)
    info.update(
        bucket_splits=sum(f.splits for f in found),
        banding_recall=banding_recall,
        expected_recall=min(recall, banding_recall),
    )
    if recall < min(banding_recall, DEFAULT_RECALL) - RECALL_WARNING:  # as the local engine
        warnings.warn(
            f"LSH buckets of more than {plan.bucket_limit} documents that were not mostly "
            f"duplicates (shared boilerplate?) were split to keep the work linear: expected "
            f"recall at threshold {plan.threshold:g} is {recall:.4f} instead of "
            f"{banding_recall:.4f}. bucket_limit=None (--bucket-limit none) keeps every bucket "
            "whole.",
            NeardupWarning,
            stacklevel=4,
        )


def _output_block(
    table: Any,
    signed: Signed,
    start: int,
    pairs: np.ndarray,
    sim: np.ndarray,
    roots: Payload,
    id_column: str | None,
    kept_rows_only: bool,
    text_column: str = "text",
) -> tuple[Any, dict[str, Any]]:
    """The partition's output rows, and its members (for the clusters table and summary).

    ``reason`` is the local engine's (:attr:`neardup.DuplicateResult.reason`): a member with
    its canonical document's set digest is ``exact`` when its raw bytes' SHA-256 is the
    canonical one's (sent with the canonical id), else ``normalized``; other members ``near``.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    n = table.num_rows
    positions = np.arange(start, start + n, dtype=np.int64)
    member_local = pairs[:, 1] - start
    root_pos = pairs[:, 0]
    keep = np.ones(n, dtype=bool)
    keep[member_local] = False
    similarity = np.full(n, np.nan)
    similarity[member_local] = sim
    root_at = np.searchsorted(roots.rows, root_pos)
    exact = np.zeros(len(pairs), dtype=bool)
    if len(pairs):
        assert roots.extra is not None
        mine = signed.digests[np.searchsorted(signed.positions, pairs[:, 1])]
        theirs = roots.extra["digest"][root_at]
        exact = (mine == theirs).all(axis=1)
    codes = np.full(n, KEPT, dtype=np.int8)
    if len(pairs):
        assert roots.extra is not None
        same = np.zeros(len(pairs), dtype=bool)
        e = np.flatnonzero(exact)
        if len(e):
            ours = _byte_digests(table, text_column, member_local[e])
            same[e] = (ours == roots.extra["bytes"][root_at[e]]).all(axis=1)
        codes[member_local] = np.where(exact, np.where(same, EXACT, NORMALIZED), NEAR)
    members = {
        "position": pairs[:, 1].copy(),
        "root": root_pos.copy(),
        "similarity": sim.astype(np.float64),
        "exact": exact,
        "reason": codes[member_local],
        "empty": positions[signed.empty],
    }
    if kept_rows_only:
        return table.filter(pa.array(keep)), members
    if id_column is not None:
        ids = table.column(id_column).combine_chunks()
        root_ids = pa.array([roots.extra["id"][i] for i in root_at.tolist()], type=ids.type)  # type: ignore[index]
    else:
        ids = pa.array(positions)
        root_ids = pa.array(root_pos)
    dup = pa.nulls(n, type=ids.type)
    if len(pairs):
        index = np.full(n, -1, dtype=np.int64)
        index[member_local] = np.arange(len(pairs))
        dup = pc.take(root_ids, pa.array(index, mask=index < 0))
    cluster = pc.coalesce(dup, ids)
    return (
        pa.table(
            {
                "id": ids,
                "position": positions,
                "cluster": cluster,
                "keep": keep,
                "duplicate_of": dup,
                "similarity": pa.array(similarity, mask=keep),
                "exact_duplicate": pa.array(np.isin(positions, pairs[exact, 1])),
                "reason": pa.array(reason_names(codes), type=pa.string()),
            }
        ),
        members,
    )


def _byte_digests(table: Any, text_column: str, rows: np.ndarray) -> np.ndarray:
    """uint64[len(rows), 2]: the raw SHA-256 (first 128 bits) of the partition's texts at
    local ``rows``, as the local engine's reason column compares them."""
    import pyarrow as pa

    if not len(rows):
        return np.zeros((0, 2), dtype=np.uint64)
    texts = table.column(text_column).take(pa.array(rows, type=pa.int64())).combine_chunks()
    return sha256_digests(texts, False)


def _split_roots_fn(member_root: tuple[np.ndarray, np.ndarray], starts: np.ndarray, n: int) -> Any:
    member, root = member_root
    pairs = np.stack([root, member], axis=1).astype(np.int64)
    split = _steps.split_by(_steps.partition_of(root, starts), n, pairs)
    return split[0][0] if n == 1 else tuple(s[0] for s in split)


def _distinct_fn(*chunks: np.ndarray) -> int:
    return _steps.distinct_rows(chunks)


def _merge_samples_fn(*parts: tuple[tuple[np.ndarray, ...], tuple[int, int]]) -> Any:
    """Partitions' (sample, (documents, shingles read)): the sample of their union, the sums."""
    digests, signatures, sizes = (
        np.concatenate(x) for x in zip(*(p[0] for p in parts), strict=True)
    )
    read = (sum(p[1][0] for p in parts), sum(p[1][1] for p in parts))
    return planned_sample(digests, signatures, sizes), read


#: Partition samples one merge task combines (the tree's fan-in).
SAMPLE_FAN_IN = 32


def _merge_samples(ray: Any, refs: list[Any]) -> Any:
    """One ref to the bottom-k sample of all partitions' samples, merged as a tree (so the
    driver never holds more than one sample)."""
    while len(refs) > 1:
        refs = [
            _merge.remote(*refs[i : i + SAMPLE_FAN_IN]) for i in range(0, len(refs), SAMPLE_FAN_IN)
        ]
    return refs[0]


_distinct = LazyRemote(_distinct_fn)
_merge = LazyRemote(_merge_samples_fn)
_merge_fingerprints = LazyRemote(_simhash.merge_samples)
_split_roots = LazyRemote(_split_roots_fn)
