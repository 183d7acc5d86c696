"""One function per stage of near-duplicate detection, numpy in and numpy out.

Every function here is a thin, validated call into the Rust core (``neardup._core``), which
releases the GIL while it works. Stop after any stage, look at the arrays, and go on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sized
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from neardup import _core
from neardup._texts import as_core_texts, iter_batches, reindexed
from neardup._validate import check_active as _active_mask
from neardup._validate import check_banding as _banding
from neardup._validate import (
    check_bucket_rule,
    check_choice,
    check_count,
    check_hash_version,
    check_int,
    check_seed,
    check_threshold,
)
from neardup._validate import check_fingerprints as _fingerprints
from neardup._validate import check_pairs as _pairs
from neardup._validate import check_signatures as _signatures

# The S-curve maths and the banding rules live in neardup.banding; re-exported as stages.
from neardup.banding import (  # noqa: F401
    BUCKET_LIMIT,
    lsh_half_point,
    lsh_params,
    lsh_probability,
    lsh_threshold,
)
from neardup.errors import ArgumentTypeError, InputError, InvalidArgumentError

Unit = Literal["word", "char"]
UNITS: tuple[str, ...] = ("word", "char")

#: The hash version new signatures get: ``neardup.HASH_VERSION``.
HASH_VERSION: int = _core.HASH_VERSION

#: Documents per batch when ``texts`` is an iterable without a length (a generator, a file).
BATCH_SIZE = 10_000


class ShingleSets:
    """Shingle sets of many documents in two flat numpy arrays.

    Set ``i`` is ``hashes[offsets[i]:offsets[i + 1]]``: the sorted, unique 64-bit hashes of the
    document's k-shingles. Build one with :func:`shingles`; ``hash_version`` records the
    definition the hashes follow.

    The arrays :func:`shingles` gives are read-only, over memory the compiled core owns: the
    stages take them back as built, without checking every set's order again (a pass over
    every hash). Arrays of your own (a copy to change, or sets built by hand) are checked: a
    set that is not sorted and duplicate-free is an :class:`~neardup.errors.InputError`.

    >>> s = shingles(["a b c", "a b d"], k=2)
    >>> len(s), s.sizes().tolist(), s.hash_version
    (2, [2, 2], 2)
    """

    __slots__ = ("hash_version", "hashes", "k", "offsets", "unit")

    def __init__(
        self,
        offsets: np.ndarray,
        hashes: np.ndarray,
        k: int = 5,
        unit: Unit = "word",
        hash_version: int = HASH_VERSION,
    ):
        offsets = np.ascontiguousarray(offsets)
        hashes = np.ascontiguousarray(hashes)
        if offsets.dtype != np.int64 or offsets.ndim != 1 or len(offsets) < 1:
            raise InvalidArgumentError("offsets must be a 1-D int64 array of length n + 1")
        if hashes.dtype != np.uint64 or hashes.ndim != 1:
            raise InvalidArgumentError("hashes must be a 1-D uint64 array")
        if offsets[0] != 0 or offsets[-1] != len(hashes) or np.any(np.diff(offsets) < 0):
            raise InvalidArgumentError(
                "offsets must start at 0, never decrease, and end at len(hashes)"
            )
        self.offsets = offsets
        self.hashes = hashes
        self.k = k
        self.unit = unit
        self.hash_version = hash_version

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i: int) -> np.ndarray:
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"document index {i} out of range for {n} documents")
        i %= n
        return self.hashes[self.offsets[i] : self.offsets[i + 1]]

    def sizes(self) -> np.ndarray:
        """Number of distinct shingles of each document, int64[n]."""
        return np.diff(self.offsets)

    def __repr__(self) -> str:
        return (
            f"ShingleSets(n={len(self)}, shingles={len(self.hashes)}, "
            f"k={self.k}, unit={self.unit!r}, hash_version={self.hash_version})"
        )


def normalize(text: str, hash_version: int = HASH_VERSION) -> str:
    """The normalised text the shingler sees: case-folded words joined by single spaces.

    A word is a maximal run of Unicode alphanumeric characters (version 2: and combining
    marks, after Unicode's NFKC_Casefold, which folds case and compatibility forms and removes
    invisible format characters such as the soft hyphen; version 1: lowercased); anything else
    separates words. See README "Definitions".

    >>> normalize("Hello,   WORLD! It's 2024.")
    'hello world it s 2024'
    >>> normalize("Cafe\u0301 ＡＢＣ"), normalize("Cafe\u0301", hash_version=1)
    ('café abc', 'cafe')
    >>> normalize("STRASSE Stra\u00dfe hy\u00adphen")
    'strasse strasse hyphen'
    """
    if not isinstance(text, str):
        raise ArgumentTypeError(f"text must be str, got {type(text).__name__}")
    hash_version = check_hash_version(hash_version)
    try:
        return _core.normalize(text, hash_version)
    except UnicodeEncodeError:
        raise InputError("text is not valid Unicode (it holds a lone surrogate)") from None


def word_counts(texts: Any, hash_version: int = HASH_VERSION) -> np.ndarray:
    """Number of normalised words (version 2: tokens) of each document, int64[n]; 0 marks an
    empty document.

    >>> word_counts(["one two", " ... ", "", "日本語"]).tolist()
    [2, 0, 0, 3]
    """
    return _core.word_counts(as_core_texts(texts), check_hash_version(hash_version))


def _check_positive(name: str, value: int) -> int:
    return check_count(name, value)


def _check_seed(seed: int) -> int:
    return check_seed(seed)


def _check_unit(unit: str) -> str:
    return check_choice("unit", unit, UNITS)


def shingles(
    texts: Any,
    k: int = 5,
    unit: Unit = "word",
    only: Any = None,
    hash_version: int = HASH_VERSION,
) -> ShingleSets:
    """Shingle sets of documents: word k-shingles (default) or character k-grams.

    With hash version 2 (the default) a word shingle is k tokens: words, except that each
    character of a script written without spaces (Chinese, Japanese, Thai, ...) is a token.

    A document with fewer than ``k`` units but at least one word is a single shingle; an empty
    document has an empty set. ``only`` (a boolean mask, one entry per document) shingles just
    the documents where it is true and gives the others empty sets, keeping every document's
    index: exact verification needs only the sets of LSH candidates
    (:func:`lsh_candidate_rows`).

    >>> s = shingles(["The quick brown fox", "the QUICK brown dog"], k=3)
    >>> len(s[0]), len(s[1]), int(len(np.intersect1d(s[0], s[1])))
    (2, 2, 1)
    >>> shingles(["The quick brown fox", "the QUICK brown dog"], k=3, only=[False, True]).sizes()
    array([0, 2])
    """
    k = _check_positive("k", k)
    hash_version = check_hash_version(hash_version)
    selected = None
    if only is not None:
        selected = np.asarray(only)
        if selected.dtype != np.bool_ or selected.ndim != 1:
            raise ArgumentTypeError(
                f"only must be a 1-d boolean mask, got dtype {selected.dtype} and "
                f"shape {selected.shape}"
            )
        selected = np.ascontiguousarray(selected)
    offsets, hashes = _core.shingle_sets(
        as_core_texts(texts), k, _check_unit(unit), hash_version, selected
    )
    return ShingleSets(offsets, hashes, k=k, unit=unit, hash_version=hash_version)


def _batched(texts: Any, compute: Any, width: int, dtype: Any) -> np.ndarray:
    """Applies ``compute`` to converted texts; iterables without a length go in batches."""
    if isinstance(texts, Sized) or not isinstance(texts, Iterable):
        return compute(as_core_texts(texts))
    parts = []
    start = 0
    for batch in iter_batches(texts, BATCH_SIZE):
        try:
            parts.append(compute(batch))
        except (TypeError, ValueError) as error:
            raise reindexed(error, start) from None
        start += len(batch)
    return np.concatenate(parts) if parts else np.zeros((0, width), dtype=dtype)


def minhash(
    data: Any,
    num_perm: int = 128,
    seed: int = 0,
    k: int = 5,
    unit: Unit = "word",
    threads: int = 1,
    algorithm: Literal["classic", "oph"] = "classic",
    hash_version: int = HASH_VERSION,
) -> np.ndarray:
    """MinHash signatures, uint32[n, num_perm], of texts or of :class:`ShingleSets`.

    Slot p is min over shingles s of h_p(s), with x = s mod 2**32 and (a_p, b_p) drawn from
    SplitMix64(seed): hash version 2 h_p(s) = (a_p * x + b_p) mod 2**32 with a_p, b_p the low
    32 bits (a_p odd); version 1 h_p(s) = ((a_p * x + b_p) mod 2**64) >> 32. An empty
    document's slots are all 0xFFFFFFFF. Signatures are bit-identical on every platform and
    release for one ``hash_version`` (which picks the shingle definition and this family; of
    :class:`ShingleSets`, theirs is used).

    ``algorithm="oph"``: one-permutation hashing with optimal densification, one hash per
    shingle instead of ``num_perm`` (several times faster from shingle hashes; see
    ``rust/minhash/mod.rs``). Same shape, same use (LSH, :func:`estimate_jaccard`), as accurate
    on documents with more shingles than ``num_perm``, but different bits: compare only
    signatures made with the same algorithm.

    >>> sig = minhash(["a b c d e f", "a b c d e g"], num_perm=64, k=2)
    >>> sig.shape, sig.dtype.name
    ((2, 64), 'uint32')
    """
    num_perm = _check_positive("num_perm", num_perm)
    seed = _check_seed(seed)
    threads = _check_positive("threads", threads)
    if algorithm not in ("classic", "oph"):
        raise InvalidArgumentError(f"algorithm must be 'classic' or 'oph', got {algorithm!r}")
    hash_version = check_hash_version(hash_version)
    if isinstance(data, ShingleSets):
        return _core.minhash_sets(
            data.offsets, data.hashes, num_perm, seed, threads, algorithm, data.hash_version
        )
    k = _check_positive("k", k)
    _check_unit(unit)
    return _batched(
        data,
        lambda batch: _core.minhash_texts(
            batch, num_perm, seed, k, unit, threads, algorithm, hash_version
        ),
        num_perm,
        np.uint32,
    )


def simhash(
    data: Any,
    bits: int = 64,
    weights: Literal["tf"] | None = None,
    k: int = 5,
    unit: Unit = "word",
    threads: int = 1,
    hash_version: int = HASH_VERSION,
) -> np.ndarray:
    """SimHash fingerprints, uint64[n, bits // 64], of texts or of :class:`ShingleSets`.

    Every distinct shingle votes on each bit (weight 1, or its count with ``weights="tf"``);
    a bit is 1 where the vote is positive. An empty document's fingerprint is 0.

    >>> fp = simhash(["a b c d e f", "a b c d e g"], bits=128, k=2)
    >>> fp.shape, fp.dtype.name
    ((2, 2), 'uint64')
    """
    if bits not in (64, 128):
        raise InvalidArgumentError(f"bits must be 64 or 128, got {bits}")
    if weights not in (None, "tf"):
        raise InvalidArgumentError(f"weights must be None or 'tf', got {weights!r}")
    threads = _check_positive("threads", threads)
    hash_version = check_hash_version(hash_version)
    if isinstance(data, ShingleSets):
        if weights == "tf":
            raise InvalidArgumentError(
                "weights='tf' needs the texts: ShingleSets hold each shingle once"
            )
        return _core.simhash_sets(data.offsets, data.hashes, bits, threads)
    k = _check_positive("k", k)
    _check_unit(unit)
    tf = weights == "tf"
    return _batched(
        data,
        lambda batch: _core.simhash_texts(batch, bits, tf, k, unit, threads, hash_version),
        bits // 64,
        np.uint64,
    )


def band_hashes(signatures: Any, bands: int, rows: int, threads: int = 1) -> np.ndarray:
    """One 64-bit key per band, uint64[n, bands]: XXH3-64 of the band's r slots, seed = band.

    Documents sharing a key in some band are LSH candidates. The keys are the shared currency of
    in-memory LSH, a persistent index and a distributed shuffle.

    >>> band_hashes(minhash(["a b c"], num_perm=8, k=1), bands=4, rows=2).shape
    (1, 4)
    """
    sig = _signatures(signatures)
    return _core.band_hashes(sig, *_banding(sig, bands, rows), _check_positive("threads", threads))


def lsh_candidates(
    signatures: Any,
    bands: int,
    rows: int,
    threads: int = 1,
    *,
    threshold: float | None = None,
    bucket_limit: int | None = BUCKET_LIMIT,
) -> np.ndarray:
    """Candidate pairs int64[m, 2] (i < j, sorted, unique): documents sharing a band key.

    Empty documents (signature all 0xFFFFFFFF) are never candidates. ``threads`` splits the
    bands between threads; the pairs are the same for every thread count. A bucket of more
    than ``bucket_limit`` documents is paired whole only when at least 1/64 of a sample of its
    pairs have a MinHash estimate clearly above ``threshold`` (default: the banding's S*);
    else it is split by one more signature slot at a time, so a footer shared by many
    documents cannot make the pairs grow as n². ``bucket_limit=None``: every bucket whole.

    >>> sig = minhash(["a b c d e f", "a b c d e f", "x y z"], num_perm=16, k=2)
    >>> lsh_candidates(sig, bands=8, rows=2).tolist()
    [[0, 1]]
    """
    return _bucketed(
        _core.lsh_candidates, signatures, bands, rows, threads, threshold, bucket_limit
    )


def _bucketed(
    stage: Any, signatures: Any, bands: int, rows: int, threads: int, *rule: Any
) -> np.ndarray:
    """``stage`` (a crate LSH stage) called with its arguments checked."""
    sig = _signatures(signatures)
    bands, rows = _banding(sig, bands, rows)
    return stage(sig, bands, rows, _check_positive("threads", threads), *check_bucket_rule(*rule))


def lsh_candidate_rows(
    signatures: Any,
    bands: int,
    rows: int,
    threads: int = 1,
    *,
    threshold: float | None = None,
    bucket_limit: int | None = BUCKET_LIMIT,
) -> np.ndarray:
    """bool[n]: the documents that appear in some LSH candidate pair (:func:`lsh_candidates`,
    with the same ``threshold`` and ``bucket_limit``).

    Found bucket by bucket without listing pairs, so a bucket of m documents costs m, not
    m(m - 1)/2; the documents to shingle for exact verification (``shingles(..., only=)``).

    >>> sig = minhash(["a b c d e f", "a b c d e f", "x y z"], num_perm=16, k=2)
    >>> lsh_candidate_rows(sig, bands=8, rows=2).tolist()
    [True, True, False]
    """
    return _bucketed(
        _core.lsh_rows_in_candidates, signatures, bands, rows, threads, threshold, bucket_limit
    )


def lsh_duplicates(
    signatures: Any,
    bands: int,
    rows: int,
    threshold: float,
    shinglesets: ShingleSets | None = None,
    spanning: bool = False,
    threads: int = 1,
    *,
    bucket_limit: int | None = BUCKET_LIMIT,
) -> tuple[np.ndarray, np.ndarray]:
    """LSH candidates verified in one pass: (int64[m, 2] pairs i < j, float32[m] similarity).

    A candidate is kept when its exact Jaccard (given ``shinglesets``) or else its MinHash
    estimate reaches ``threshold``; no list of all candidates is built. With ``spanning=True``
    only the pairs that joined two clusters are returned, and a bucket's members are compared
    with its leaders only, so m identical documents cost m - 1 comparisons (clusters can come
    out finer than the components of all pairs, never coarser). ``threads``: the candidates
    (and estimates) are found on that many threads, with the same result for every count.
    Large buckets are split as :func:`lsh_candidates` says (``bucket_limit``, at
    ``threshold``); exact verification first drops candidates whose signatures agree on too
    few slots for J >= threshold (a chance below 1e-9 for a pair at the threshold).

    >>> sig = minhash(["a b c d e f", "a b c d e f", "x y z"], num_perm=16, k=2)
    >>> pairs, sim = lsh_duplicates(sig, 8, 2, threshold=0.9)
    >>> pairs.tolist(), sim.tolist()
    ([[0, 1]], [1.0])
    """
    sig = _signatures(signatures)
    bands, rows = _banding(sig, bands, rows)
    threshold = check_threshold(threshold)
    threads = _check_positive("threads", threads)
    _, bucket_limit = check_bucket_rule(threshold, bucket_limit)
    if shinglesets is None:
        return _core.lsh_duplicates(
            sig, bands, rows, threshold, None, None, bool(spanning), threads, bucket_limit
        )
    if not isinstance(shinglesets, ShingleSets):
        raise ArgumentTypeError("shinglesets must be a ShingleSets (see neardup.shingles)")
    if len(shinglesets) != len(sig):
        raise InvalidArgumentError(
            f"shinglesets hold {len(shinglesets)} documents but signatures {len(sig)}"
        )
    return _core.lsh_duplicates(
        sig,
        bands,
        rows,
        threshold,
        shinglesets.offsets,
        shinglesets.hashes,
        bool(spanning),
        threads,
        bucket_limit,
    )


def estimate_jaccard(signatures: Any, pairs: Any) -> np.ndarray:
    """MinHash estimate of each pair's Jaccard, float32[m]: the share of equal slots.

    A pair involving an empty document estimates 0.

    >>> sig = minhash(["a b c d", "a b c d"], num_perm=32, k=2)
    >>> estimate_jaccard(sig, [[0, 1]]).tolist()
    [1.0]
    """
    return _core.estimate_jaccard(_signatures(signatures), _pairs(pairs))


def jaccard(shinglesets: ShingleSets, pairs: Any, threads: int = 1) -> np.ndarray:
    """Exact Jaccard |A ∩ B| / |A ∪ B| of each pair of shingle sets, float32[m] (0 if both empty),
    on ``threads`` threads (the same values whatever their number).

    >>> jaccard(shingles(["a b c", "a b d"], k=1), [[0, 1]]).tolist()
    [0.5]
    """
    if not isinstance(shinglesets, ShingleSets):
        raise ArgumentTypeError("shinglesets must be a ShingleSets (see neardup.shingles)")
    threads = _check_positive("threads", threads)
    return _core.jaccard(shinglesets.offsets, shinglesets.hashes, _pairs(pairs), threads)


def verify_jaccard(
    shinglesets: ShingleSets, pairs: Any, threshold: float, threads: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs whose exact Jaccard reaches ``threshold``, in the order given, with it:
    (int64[m, 2], float32[m]). The exact verification of LSH candidates, compared in double
    precision (a pair is never kept or dropped by the rounding of its float32 similarity), on
    ``threads`` threads (the same pairs whatever their number).

    >>> sets = shingles(["a b c", "a b d", "x y z"], k=1)
    >>> pairs, sim = verify_jaccard(sets, [[0, 1], [0, 2]], 0.5)
    >>> pairs.tolist(), sim.tolist()
    ([[0, 1]], [0.5])
    """
    if not isinstance(shinglesets, ShingleSets):
        raise ArgumentTypeError("shinglesets must be a ShingleSets (see neardup.shingles)")
    threshold = check_threshold(threshold)
    threads = _check_positive("threads", threads)
    return _core.jaccard_at_least(
        shinglesets.offsets, shinglesets.hashes, _pairs(pairs), threshold, threads
    )


def all_pairs_jaccard(shinglesets: ShingleSets, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Every pair with exact Jaccard ≥ threshold: (int64[m, 2] sorted i < j, float32[m]).

    Brute force made cheap by prefix filtering: only pairs sharing a rare shingle are compared.

    >>> pairs, sim = all_pairs_jaccard(shingles(["a b c", "a b d", "x"], k=1), 0.5)
    >>> pairs.tolist(), sim.tolist()
    ([[0, 1]], [0.5])
    """
    if not isinstance(shinglesets, ShingleSets):
        raise ArgumentTypeError("shinglesets must be a ShingleSets (see neardup.shingles)")
    threshold = check_threshold(threshold)
    return _core.all_pairs_jaccard(shinglesets.offsets, shinglesets.hashes, threshold)


def hamming(fingerprints: Any, pairs: Any) -> np.ndarray:
    """Hamming distance between the fingerprints of each pair, int32[m].

    >>> fp = np.array([[0b1011], [0b0001]], dtype=np.uint64)
    >>> hamming(fp, [[0, 1]]).tolist()
    [2]
    """
    return _core.hamming(_fingerprints(fingerprints), _pairs(pairs))


def hamming_within(
    fingerprints: Any, max_distance: int, active: Any = None, threads: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """All pairs i < j within ``max_distance`` bits: (int64[m, 2] sorted, int32[m]).

    Exact (the pairs brute force finds), by multi-index hashing where the cost model of
    :func:`hamming_search_plan` predicts it cheaper than comparing every pair, else by brute
    force; identical fingerprints are collapsed first. ``active`` (bool[n]) leaves out rows
    marked False, e.g. empty documents. ``threads`` splits the work (the same pairs).

    >>> fp = np.array([1, 3, 255], dtype=np.uint64)
    >>> hamming_within(fp, 1)[0].tolist()
    [[0, 1]]
    """
    fp = _fingerprints(fingerprints)
    max_distance = check_int("max_distance", max_distance, low=0, high=128)
    threads = check_int("threads", threads, low=1, high=1024)
    mask = _active_mask(fp, active)
    return _core.hamming_within(fp, int(max_distance), mask, threads)


@dataclass(frozen=True)
class HammingSearch:
    """The search :func:`hamming_within` runs: ``search`` (``"brute force"`` or ``"index (K
    tables of B-bit keys)"``), ``distinct`` fingerprints searched, the pair ``comparisons``
    and ``seconds`` (one thread) it is predicted to cost, and the comparisons of brute force.
    """

    search: str
    distinct: int
    comparisons: float
    seconds: float
    brute_force_comparisons: float


def hamming_search_plan(
    fingerprints: Any, max_distance: int, active: Any = None, threads: int = 1
) -> HammingSearch:
    """The search :func:`hamming_within` would run on these fingerprints, decided the same
    way, without running it: multi-index hashing (Manku et al. 2007) when its tables are
    predicted cheaper than brute force, from the number of distinct fingerprints, the radius,
    the bits that vary and a sample of their pairwise distances.

    >>> fp = np.random.default_rng(0).integers(0, 2**63, 20_000, dtype=np.uint64)
    >>> hamming_search_plan(fp, 3).search
    'index (4 tables of 15-16-bit keys)'
    >>> hamming_search_plan(fp, 22).search
    'brute force'
    """
    fp = _fingerprints(fingerprints)
    max_distance = check_int("max_distance", max_distance, low=0, high=128)
    threads = check_int("threads", threads, low=1, high=1024)
    mask = _active_mask(fp, active)
    return HammingSearch(*_core.hamming_search_plan(fp, int(max_distance), mask, threads))


def exact_duplicates(
    texts: Any, normalized: bool = False, hash_version: int = HASH_VERSION, threads: int = 1
) -> np.ndarray:
    """Exact-duplicate groups, int64[n]: each document's label is the lowest index whose SHA-256
    matches (of the raw UTF-8 bytes, or with ``normalized=True`` of the normalised text). The
    digests are computed on ``threads`` threads (the same labels for every count).

    >>> exact_duplicates(["Hi there", "hi THERE!", "Hi there"]).tolist()
    [0, 1, 0]
    >>> exact_duplicates(["Hi there", "hi THERE!", "Hi there"], normalized=True).tolist()
    [0, 0, 0]
    """
    return _core.exact_duplicates(
        as_core_texts(texts),
        bool(normalized),
        check_hash_version(hash_version),
        _check_positive("threads", threads),
    )


def clusters(pairs: Any, n: int) -> np.ndarray:
    """Connected components of the pair graph on n documents, int64[n], labelled by the lowest
    document index in each cluster (union-find).

    >>> clusters([[3, 1], [1, 4]], 5).tolist()
    [0, 1, 2, 1, 1]
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise InvalidArgumentError(f"n must be a non-negative int, got {n!r}")
    return _core.clusters(_pairs(pairs), int(n))
