"""The per-partition steps of the Ray executor: plain functions over numpy and Arrow.

Nothing here imports Ray. Each function takes one partition's arrays and returns arrays, so
the steps can be tested (and routed through the single-machine stage sequence) without a
cluster; ``neardup.ray._engine`` only moves their inputs and outputs between tasks.

A partition is a contiguous slice of the input: ``start`` is the input position of its first
row, so a document's position (and so the canonical document of a cluster: the lowest
position) never depends on how the input was cut.

>>> import pyarrow as pa
>>> from neardup.plan import make_plan
>>> plan = make_plan(method="minhash", threshold=0.5, k=2).resolve(10_000)
>>> signed = sign_partition(pa.table({"text": ["a b c d", "a b c d", ""]}), "text", 0, plan)
>>> signed.empty.tolist(), len(signed.positions)
([False, False, True], 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from neardup import _core
from neardup._core import mix64
from neardup._texts import as_core_texts
from neardup.errors import InputError
from neardup.plan import Plan
from neardup.ray._sign import salt_digests, salt_signatures, sign_texts

#: Empty int64 pairs, the shape every step returns when it has nothing.
NO_PAIRS = np.zeros((0, 2), dtype=np.int64)


def _mix(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser of a copy: the shuffle's partitioning hash."""
    return mix64(x.astype(np.uint64, copy=True))


def hash_partition(keys: np.ndarray, parts: int) -> np.ndarray:
    """int64[n]: the shuffle partition (0 ≤ p < parts) of each uint64/int64 key.

    >>> hash_partition(np.arange(4, dtype=np.int64), 1).tolist()
    [0, 0, 0, 0]
    """
    return (
        _mix(keys.view(np.uint64) if keys.dtype == np.int64 else keys) % np.uint64(parts)
    ).astype(np.int64)


def partition_of(positions: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """int64[m]: the input partition holding each position (``starts`` = first positions).

    >>> partition_of(np.array([0, 4, 5, 9]), np.array([0, 5])).tolist()
    [0, 0, 1, 1]
    """
    return np.searchsorted(starts, positions, side="right").astype(np.int64) - 1


def split_by(part: np.ndarray, parts: int, *arrays: np.ndarray) -> list[tuple[np.ndarray, ...]]:
    """The rows of ``arrays`` grouped by ``part`` (0 ≤ part < parts), order kept in each group.

    >>> [a.tolist() for (a,) in split_by(np.array([1, 0, 1]), 2, np.array([7, 8, 9]))]
    [[8], [7, 9]]
    """
    order = np.argsort(part, kind="stable")
    bounds = np.searchsorted(part[order], np.arange(parts + 1))
    return [tuple(a[order[bounds[p] : bounds[p + 1]]] for a in arrays) for p in range(parts)]


def check_texts(
    column: Any, start: int, where: Sequence[tuple[int, str, int]] = (), field: str = "text"
) -> Any:
    """The partition's text column (``field``), or an :class:`InputError` naming the first bad
    row in the local readers' words.

    ``where`` lists ``(first row in partition, file, first row's number in the file)`` runs,
    so the error names the file and row; without it the error names the input position.

    >>> import pyarrow as pa
    >>> check_texts(pa.chunked_array([["a", None]]), 10)
    Traceback (most recent call last):
    ...
    neardup.errors.InputError: input position 11: row without text ('text' is null)
    """
    import pyarrow as pa

    t = column.type
    is_view = getattr(pa.types, "is_string_view", lambda _: False)
    if not (
        pa.types.is_string(t) or pa.types.is_large_string(t) or is_view(t) or pa.types.is_null(t)
    ):
        raise InputError(f"{_where(0, start, where)}: text column is {t}, expected strings")
    if column.null_count or pa.types.is_null(t):
        nulls = column.is_null()
        first = int(np.flatnonzero(nulls.to_numpy(zero_copy_only=False))[0])
        raise InputError(f"{_where(first, start, where)}: row without text ({field!r} is null)")
    return column


def _where(row: int, start: int, where: Sequence[tuple[int, str, int]]) -> str:
    """'file: row R' (R counts from 1 in that file, as the Parquet and CSV readers say it) or
    'input position P' (from 0)."""
    for first, path, file_row in reversed(list(where)):
        if row >= first:
            return f"{path}: row {file_row + row - first + 1}"
    return f"input position {start + row}"


@dataclass
class Signed:
    """One partition after the first step.

    ``empty`` bool[n] marks documents without shingles (never near-duplicates);
    ``positions`` int64[m] are the others, with their set digests ``digests`` uint64[m, 2]
    (equal sets, equal digests: the exact-duplicate collapse), their shingle counts ``sizes``
    int64[m] (the banding's cost model), their MinHash ``signatures``
    uint32[m, P] and, once the banding is chosen (:func:`with_band_keys`), LSH keys ``keys``
    uint64[m, bands]; from then on the signatures are kept only for ``verify="estimate"``
    and the screen before exact verification (:func:`screens`).
    """

    empty: np.ndarray
    positions: np.ndarray
    digests: np.ndarray
    keys: np.ndarray
    signatures: np.ndarray | None
    sizes: np.ndarray


def sign_partition(
    table: Any,
    text_column: str,
    start: int,
    plan: Plan,
    where: Sequence[tuple[int, str, int]] = (),
    within_column: str | None = None,
) -> Signed:
    """Set digests, shingle counts and MinHash signatures (SimHash fingerprints) of one
    partition, by :func:`neardup.ray._sign.sign_texts` (no band keys yet: the
    banding is chosen from a sample of every partition's signatures).

    The texts go to Rust as one Arrow array (no per-row Python object). ``within_column``
    (``within=``): each row's partition key is mixed into its digest and signature as the
    local engine mixes it (:func:`neardup.ray._sign.salt_digests`, ``salt_signatures``), so
    exact links and LSH buckets stay within partitions.
    """
    texts = check_texts(table.column(text_column), start, where, text_column)
    # sets, digests and signatures in one core call, the sets not kept
    signatures, digests, sizes, _ = sign_texts(plan, texts)
    live = np.flatnonzero(sizes > 0)
    digests = digests[live]
    signatures = signatures[live]
    if within_column is not None:
        from neardup._validate import check_keys

        keys = table.column(within_column).to_pylist()
        salts = check_keys(f"within column {within_column!r} (block row)", keys, len(keys))
        digests = salt_digests(digests, salts[live])
        signatures = np.ascontiguousarray(signatures)
        salt_signatures(signatures, salts[live])
    return Signed(
        empty=sizes == 0,
        positions=live.astype(np.int64) + start,
        digests=digests,
        keys=np.zeros((len(live), 0), np.uint64),
        signatures=signatures,
        sizes=sizes[live].astype(np.int64),
    )


def with_band_keys(signed: Signed, plan: Plan) -> Signed:
    """The partition with the band keys of ``plan``'s banding; the signatures are dropped
    unless the estimate verifies with them or the screen needs them (:func:`screens`).

    >>> import pyarrow as pa
    >>> from neardup.plan import make_plan
    >>> plan = make_plan(method="minhash", k=2, algorithm="oph").resolve(10)
    >>> signed = sign_partition(pa.table({"text": ["a b c", "d e f"]}), "text", 0, plan)
    >>> keyed = with_band_keys(signed, plan)
    >>> keyed.keys.shape == (2, plan.bands), keyed.signatures is None
    (True, True)
    """
    assert signed.signatures is not None
    assert plan.bands is not None and plan.rows is not None
    keys = _core.band_hashes(np.ascontiguousarray(signed.signatures), plan.bands, plan.rows, 1)
    return Signed(
        empty=signed.empty,
        positions=signed.positions,
        digests=signed.digests,
        keys=keys,
        signatures=signed.signatures if plan.verify == "estimate" or screens(plan) else None,
        sizes=signed.sizes,
    )


def screens(plan: Plan) -> bool:
    """Whether candidates are screened by their signatures before exact verification, as
    the local engine screens them (exact verification, classic MinHash).

    >>> from neardup.plan import make_plan
    >>> screens(make_plan(method="minhash"))
    True
    >>> screens(make_plan(method="minhash", verify="estimate"))
    False
    """
    return plan.method == "minhash" and plan.verify == "exact" and plan.algorithm == "classic"


#: Pairs whose signatures one step of :func:`screen` compares at once (memory: 2 · P · 4
#: bytes each).
SCREEN_CHUNK = 16_384


def screen(left: Payload, right: Payload, pairs: np.ndarray, plan: Plan) -> tuple[np.ndarray, int]:
    """(the pairs whose signatures agree on at least ``_core.lsh_screen_min_equal`` slots,
    how many were dropped): the local engine's screen, on the payloads' ``slots``; every pair
    when the plan does not screen."""
    if not screens(plan) or len(pairs) == 0:
        return pairs, 0
    assert left.slots is not None and right.slots is not None
    need = _core.lsh_screen_min_equal(plan.num_perm, plan.threshold)
    a = np.searchsorted(left.rows, pairs[:, 0])
    b = np.searchsorted(right.rows, pairs[:, 1])
    keep = np.empty(len(pairs), dtype=bool)
    for at in range(0, len(pairs), SCREEN_CHUNK):
        part = slice(at, at + SCREEN_CHUNK)
        equal = (left.slots[a[part]] == right.slots[b[part]]).sum(axis=1)
        keep[part] = equal >= need
    return pairs[keep], int(len(pairs) - keep.sum())


def digest_rows(signed: Signed, parts: int) -> list[np.ndarray]:
    """The partition's distinct set digests split by their hash into ``parts`` groups: the
    shuffle that counts the distinct sets of the whole corpus (16 bytes a document)."""
    from neardup.banding import sample_keys

    distinct = unique_rows(signed.digests)
    return [d for (d,) in split_by(hash_partition(sample_keys(distinct), parts), parts, distinct)]


def distinct_rows(chunks: Sequence[np.ndarray]) -> int:
    """How many distinct rows the uint64[m, 2] chunks hold together.

    >>> distinct_rows([np.array([[1, 2], [3, 4]], np.uint64), np.array([[1, 2]], np.uint64)])
    2
    """
    chunks = [c for c in chunks if len(c)]
    return len(unique_rows(np.concatenate(chunks))) if chunks else 0


def bucket_rows(signed: Signed, parts: int) -> list[dict[str, np.ndarray]]:
    """The shuffle records of a partition, (band, key, position, digest), split by (band, key).

    ``band_hashes`` is the shuffle currency: b keys of 8 bytes per document, plus its position
    and digest (so identical documents collapse inside their bucket, with no second shuffle).
    """
    m, bands = signed.keys.shape
    band = np.tile(np.arange(bands, dtype=np.int32), m)
    key = signed.keys.reshape(-1)
    row = np.repeat(np.arange(m), bands)
    part = hash_partition(key ^ _mix(band.astype(np.uint64)), parts)
    out = []
    for b, k, r in split_by(part, parts, band, key, row):
        out.append(
            {
                "band": b,
                "key": k,
                "position": signed.positions[r],
                "digest": signed.digests[r],
            }
        )
    return out


def _pairs_within(group_start: np.ndarray, sizes: np.ndarray, items: np.ndarray) -> np.ndarray:
    """All pairs (a, b), a before b, of items inside each group (groups given by start/size)."""
    as_i64 = [np.ascontiguousarray(a, dtype=np.int64) for a in (group_start, sizes, items)]
    return _core.pairs_within_groups(*as_i64)


def bucket_pairs(
    records: Sequence[dict[str, np.ndarray]], limit: int | None = None
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Candidate and exact-duplicate pairs of one shuffle partition's buckets, and the buckets
    too large to pair whole.

    Returns (candidates int64[c, 2], exact int64[e, 2], big), pairs (i, j) with i < j. Inside
    a bucket, documents with equal digests collapse onto the lowest position (identical sets
    share every bucket, so that is their global first occurrence): ``exact`` links each copy to
    it (from band 0 only, where every copy meets its first); ``candidates`` are all pairs of
    distinct first occurrences in each bucket of at most ``limit`` of them (every bucket when
    ``limit`` is None), as single-machine LSH lists them (pairs repeat across bands; the
    verification step drops the repeats). The larger buckets go to
    :func:`neardup.ray._split.split_buckets`, which needs their members' signatures: ``big``
    holds their ``band``, ``key``, ``sizes`` and members' ``positions`` (ascending within a
    bucket, bucket after bucket), and
    ``unique`` (int64[1]) counts the distinct sets met in band 0.

    >>> digests = np.array([[1, 1], [2, 2], [3, 3]], np.uint64)
    >>> rec = {"band": np.zeros(3, np.int32), "key": np.full(3, 7, np.uint64),
    ...        "position": np.array([4, 1, 9]), "digest": digests}
    >>> pairs, _, big = bucket_pairs([rec], limit=2)
    >>> len(pairs), big["positions"].tolist(), big["unique"].tolist()
    (0, [1, 4, 9], [3])
    """
    records = [r for r in records if len(r["position"])]
    if not records:
        return NO_PAIRS, NO_PAIRS, no_big()
    band = np.concatenate([r["band"] for r in records])
    key = np.concatenate([r["key"] for r in records])
    pos = np.concatenate([r["position"] for r in records])
    dig = np.concatenate([r["digest"] for r in records])
    order = np.lexsort((pos, dig[:, 1], dig[:, 0], key, band))
    band, key, pos, dig = band[order], key[order], pos[order], dig[order]
    new_bucket = np.ones(len(pos), dtype=bool)
    new_bucket[1:] = (band[1:] != band[:-1]) | (key[1:] != key[:-1])
    new_digest = new_bucket.copy()
    new_digest[1:] |= (dig[1:, 0] != dig[:-1, 0]) | (dig[1:, 1] != dig[:-1, 1])
    # exact duplicates: each copy to its digest's first position (band 0 buckets)
    digest_id = np.cumsum(new_digest) - 1
    first_pos = pos[new_digest][digest_id]
    copies = (~new_digest) & (band == 0)
    exact = np.stack([first_pos[copies], pos[copies]], axis=1)
    # candidates: all pairs of distinct first occurrences within a bucket, sorted by position
    reps = np.flatnonzero(new_digest)
    rep_bucket = (np.cumsum(new_bucket) - 1)[reps]
    rep_pos = pos[reps]
    order = np.lexsort((rep_pos, rep_bucket))
    rep_bucket, rep_pos = rep_bucket[order], rep_pos[order]
    starts = np.flatnonzero(np.r_[True, rep_bucket[1:] != rep_bucket[:-1]])
    sizes = np.diff(np.r_[starts, len(rep_pos)])
    large = sizes > limit if limit is not None else np.zeros(len(sizes), dtype=bool)
    within = np.repeat(~large, sizes)
    small = sizes[~large]
    pairs = _pairs_within((np.cumsum(small) - small).astype(np.int64), small, rep_pos[within])
    first = np.flatnonzero(new_bucket)[rep_bucket[starts[large]]]
    big = {
        "band": band[first].astype(np.int64),
        "key": key[first],
        "sizes": sizes[large].astype(np.int64),
        "positions": rep_pos[~within],
        "unique": np.array([int((new_digest & (band == 0)).sum())], np.int64),
    }
    return pairs, exact, big


def no_big() -> dict[str, np.ndarray]:
    none = np.zeros(0, np.int64)
    return {
        "band": none,
        "key": np.zeros(0, np.uint64),
        "sizes": none,
        "positions": none,
        "unique": np.zeros(1, np.int64),
    }


def member_signatures(signed: Signed, wanted: np.ndarray) -> np.ndarray:
    """uint32[len(wanted), P]: the signatures of the partition's documents at positions
    ``wanted`` (each one of its non-empty documents): what a large bucket needs to be split."""
    assert signed.signatures is not None
    return signed.signatures[np.searchsorted(signed.positions, wanted)]


def unique_sorted(values: np.ndarray) -> np.ndarray:
    """The distinct values of a 1-d array, sorted: ``np.unique`` by a sort and a mask (numpy
    2's ``np.unique`` is ~20x slower than a sort on millions of distinct integers).

    >>> unique_sorted(np.array([3, 1, 3, 2])).tolist()
    [1, 2, 3]
    """
    ordered = np.sort(values)
    if len(ordered) < 2:
        return ordered
    fresh = np.empty(len(ordered), dtype=bool)
    fresh[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=fresh[1:])
    return ordered[fresh]


def unique_rows(rows: np.ndarray) -> np.ndarray:
    """The distinct rows of an [m, 2] integer array in lexicographic order, as
    ``np.unique(rows, axis=0)`` gives them but by sorting (pairs of positions below 2**31 as
    one packed int64 key; other rows by a lexsort).

    >>> unique_rows(np.array([[1, 2], [0, 3], [1, 2]])).tolist()
    [[0, 3], [1, 2]]
    >>> unique_rows(np.array([[2**63, 1], [5, 2**64 - 1], [5, 2**64 - 1]], np.uint64)).tolist()
    [[5, 18446744073709551615], [9223372036854775808, 1]]
    """
    if len(rows) == 0:
        return rows.reshape(0, 2)
    if rows.dtype == np.int64 and rows.min() >= 0 and rows.max() < 2**31:
        keys = unique_sorted((rows[:, 0] << 32) | rows[:, 1])
        return np.stack([keys >> 32, keys & 0xFFFFFFFF], axis=1)
    ordered = rows[np.lexsort((rows[:, 1], rows[:, 0]))]
    fresh = np.ones(len(ordered), dtype=bool)
    fresh[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    return ordered[fresh]


def unique_pairs(chunks: Sequence[np.ndarray]) -> np.ndarray:
    """The distinct pairs of several int64[m, 2] arrays, sorted.

    >>> unique_pairs([np.array([[1, 2], [0, 3]]), np.array([[1, 2]])]).tolist()
    [[0, 3], [1, 2]]
    """
    chunks = [c for c in chunks if len(c)]
    if not chunks:
        return NO_PAIRS
    return unique_rows(np.concatenate(chunks))


@dataclass
class Payload:
    """What the verification join ships about the left documents of some pairs.

    ``rows`` int64[u] are their positions; ``sizes``/``hashes`` their shingle sets (exact
    verification) or ``signatures`` uint32[u, P] (estimate); ``extra`` per-row columns the
    receiving side wants (the canonical document's id and digest when labelling).
    """

    rows: np.ndarray
    sizes: np.ndarray | None = None
    hashes: np.ndarray | None = None
    signatures: np.ndarray | None = None
    extra: dict[str, Any] | None = None
    #: Signatures for the screen before exact verification (:func:`screen`).
    slots: np.ndarray | None = None


def local_payload(
    table: Any,
    text_column: str,
    start: int,
    signed: Signed,
    wanted: np.ndarray,
    plan: Plan,
    slots: bool = False,
) -> Payload:
    """The payload of the partition's documents at positions ``wanted`` (sorted, unique).

    Exact verification shingles only those documents again (as the local engine's second
    pass does); estimate verification reads the signatures kept by :func:`sign_partition`.
    """
    if plan.verify == "estimate":
        at = np.searchsorted(signed.positions, wanted)
        return Payload(rows=wanted, signatures=signed.signatures[at])  # type: ignore[index]
    only = np.zeros(table.num_rows, dtype=bool)
    only[wanted - start] = True
    offsets, hashes = _core.shingle_sets(
        as_core_texts(table.column(text_column)), plan.k, plan.unit, plan.hash_version, only
    )
    sizes, hashes = ragged_take(offsets, hashes, wanted - start)
    kept = None
    if slots and screens(plan):
        assert signed.signatures is not None
        kept = signed.signatures[np.searchsorted(signed.positions, wanted)]
    return Payload(rows=wanted, sizes=sizes, hashes=hashes, slots=kept)


def ragged_take(
    offsets: np.ndarray, values: np.ndarray, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(sizes, concatenated values) of the selected rows of a ragged array, vectorised.

    >>> ragged_take(np.array([0, 2, 2, 5]), np.arange(5), np.array([2, 0]))
    (array([3, 2]), array([2, 3, 4, 0, 1]))
    """
    begin, end = offsets[rows], offsets[np.asarray(rows) + 1]
    sizes = (end - begin).astype(np.int64)
    total = int(sizes.sum())
    if total == 0:
        return sizes, values[:0]
    shift = np.repeat(begin - (np.cumsum(sizes) - sizes), sizes)
    return sizes, values[shift + np.arange(total)]


def concat_payloads(payloads: Sequence[Payload]) -> Payload:
    """One payload of several (rows kept in the given order)."""
    payloads = [p for p in payloads if len(p.rows)] or list(payloads[:1])
    first = payloads[0]
    extra = None
    if all(p.extra is not None for p in payloads):
        extra = {
            k: _concat([p.extra[k] for p in payloads])  # type: ignore[index]
            for k in first.extra or {}
        }
    return Payload(
        rows=np.concatenate([p.rows for p in payloads]),
        sizes=None if first.sizes is None else np.concatenate([p.sizes for p in payloads]),  # type: ignore[misc]
        hashes=None if first.hashes is None else np.concatenate([p.hashes for p in payloads]),  # type: ignore[misc]
        signatures=None
        if first.signatures is None
        else np.concatenate([p.signatures for p in payloads]),  # type: ignore[misc]
        extra=extra,
        slots=None if first.slots is None else np.concatenate([p.slots for p in payloads]),  # type: ignore[misc]
    )


def _concat(parts: list[Any]) -> Any:
    if parts and isinstance(parts[0], np.ndarray):
        return np.concatenate(parts)
    out: list[Any] = []
    for p in parts:
        out.extend(p)
    return out


def take_payload(payload: Payload, rows: np.ndarray) -> Payload:
    """The payload restricted to positions ``rows`` (each must be in ``payload.rows``)."""
    at = np.searchsorted(payload.rows, rows)
    extra = None
    if payload.extra is not None:
        extra = {
            k: (v[at] if isinstance(v, np.ndarray) else [v[i] for i in at.tolist()])
            for k, v in payload.extra.items()
        }
    if payload.signatures is not None:
        return Payload(rows=rows, signatures=payload.signatures[at], extra=extra)
    assert payload.sizes is not None and payload.hashes is not None
    offsets = np.r_[0, np.cumsum(payload.sizes)].astype(np.int64)
    sizes, hashes = ragged_take(offsets, payload.hashes, at)
    slots = None if payload.slots is None else payload.slots[at]
    return Payload(rows=rows, sizes=sizes, hashes=hashes, extra=extra, slots=slots)


def compare(
    left: Payload, right: Payload, pairs: np.ndarray, plan: Plan, threshold: float | None
) -> tuple[np.ndarray, np.ndarray]:
    """Similarity of each pair (left position, right position), exact or estimated as the plan
    says; with ``threshold`` only the pairs reaching it (the stages' own comparison, so a
    pair is kept exactly when the single-machine run keeps it).

    Returns (pairs int64[m, 2], similarity float32[m]).
    """
    if len(pairs) == 0:
        return NO_PAIRS, np.zeros(0, dtype=np.float32)
    both = concat_payloads([left, right])
    local = np.stack(
        [
            np.searchsorted(left.rows, pairs[:, 0]),
            len(left.rows) + np.searchsorted(right.rows, pairs[:, 1]),
        ],
        axis=1,
    ).astype(np.int64)
    if both.signatures is not None and both.signatures.dtype == np.uint64:  # SimHash
        # as the local estimate: kept within the plan's radius
        assert plan.max_hamming is not None
        distance = _core.hamming(np.ascontiguousarray(both.signatures), local)
        ok = distance <= plan.max_hamming if threshold is not None else slice(None)
        return pairs[ok], (1.0 - distance[ok] / plan.simhash_bits).astype(np.float32)
    if both.signatures is not None:
        sim = _core.estimate_jaccard(np.ascontiguousarray(both.signatures), local)
        ok = sim.astype(np.float64) >= threshold if threshold is not None else slice(None)
        return pairs[ok], sim[ok]
    assert both.sizes is not None and both.hashes is not None
    offsets = np.r_[0, np.cumsum(both.sizes)].astype(np.int64)
    hashes = np.ascontiguousarray(both.hashes, dtype=np.uint64)
    if threshold is None:
        return pairs, _core.jaccard(offsets, hashes, local, 1)
    kept, sim = _core.jaccard_at_least(offsets, hashes, local, threshold, 1)
    back = np.stack([left.rows[kept[:, 0]], right.rows[kept[:, 1] - len(left.rows)]], axis=1)
    return back.astype(np.int64), sim
