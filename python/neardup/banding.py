"""LSH banding: the S-curve maths and the choice of (bands, rows).

A pair of Jaccard s shares at least one of b bands of r MinHash slots with probability
P(s) = 1 - (1 - s^r)^b. Two rules pick (b, r) for a threshold T and P slots:

- **classic** (``recall=None``): the largest r whose S* = (1/b)^(1/r), b = P // r, is at or
  below T. Steep, few candidates, but a pair exactly at T is found with probability only
  ~0.63-0.74: right when candidates are kept on their MinHash estimate (``verify="estimate"``),
  where a flatter curve would let more estimate errors through.
- **recall-first** (``recall=ρ``): every (b, r) with P(T) >= ρ and b * r <= P is admissible;
  for each r the fewest bands that reach ρ. When verification is exact, precision is bought
  afterwards, so the candidate stage aims at recall and the only cost of a flatter curve is
  more candidates to verify. :func:`choose_banding` takes the steepest admissible r with bands
  over every slot, and a sample of the corpus predicts its candidates (the cost model). It
  never trades recall for work: large buckets are split (:data:`BUCKET_LIMIT`) and candidates
  that cannot reach the threshold are screened out by their signatures before exact
  verification, so the extra work of a flatter curve stays linear in n.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, overload

import numpy as np

from neardup import _core
from neardup._validate import check_choice, check_int, check_threshold
from neardup._validate import check_signatures as _signatures
from neardup.errors import ArgumentTypeError, InvalidArgumentError

# The constants below are the crate's (``rust/lsh/choose.rs``), read from it.

#: Recall at the threshold that :func:`choose_banding` guarantees when verification is exact.
DEFAULT_RECALL: float = _core.DEFAULT_RECALL

#: LSH buckets of more documents than this are looked at before they are paired: kept whole
#: when a sample of their pairs says they are mostly duplicates, else split by more signature
#: slots (``rust/lsh/groups.rs``), so text shared by many documents (a footer, a licence)
#: cannot make the candidates grow as n². None keeps every bucket whole.
BUCKET_LIMIT: int = _core.BUCKET_LIMIT

#: Documents whose signatures the cost model bands (a uniform sample, fixed seed).
SAMPLE_SIZE: int = _core.SAMPLE_SIZE

#: The reason :func:`choose_banding` gives for its recall-first banding.
STEEPEST: str = _core.STEEPEST

#: The cost model's work, in units of shingling and signing one shingle (P = 128), fitted to
#: ``time.process_time`` of ``find_duplicates`` with forced bandings against
#: ``verify="estimate"`` on the real-text corpora (benches/realtext: licence texts, ~1,500
#: shingles a document; template-family descriptions, ~60): a document's fixed work in the
#: sign pass (reading, hashing, the exact-duplicate collapse)...
DOCUMENT_COST: int = _core.DOCUMENT_COST
#: ...a candidate pair's (band bucketing, the pair list, looking its sets up)...
CANDIDATE_COST: float = _core.CANDIDATE_COST
#: ...and each shingle of the two sets that verifying a candidate intersects (an 8-wide
#: merge: a hundred of them cost what shingling and signing one shingle costs).
MERGE_COST: float = _core.MERGE_COST


def _positive(name: str, value: int) -> int:
    # the core counts bands, rows and slots in machine words: larger is never meaningful
    return check_int(name, value, low=1, high=2**32)


def _check_recall(recall: float) -> float:
    try:
        value = float(recall)
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"recall must be a number, got {type(recall).__name__}") from None
    if not 0.0 < value < 1.0:
        raise InvalidArgumentError(f"recall must be in (0, 1), got {recall}")
    return value


def lsh_threshold(bands: int, rows: int) -> float:
    """S* = (1/b)^(1/r), the landmark of the banding's S-curve (collision chance ≈ 0.63 there).

    >>> round(lsh_threshold(42, 3), 4)
    0.2877
    """
    return _core.lsh_s_star(_positive("bands", bands), _positive("rows", rows))


def lsh_half_point(bands: int, rows: int) -> float:
    """The similarity at which a pair becomes a candidate with probability exactly 1/2.

    >>> round(lsh_half_point(42, 3), 4)
    0.2539
    """
    return _core.lsh_half_point(_positive("bands", bands), _positive("rows", rows))


@overload
def lsh_probability(similarity: float, bands: int, rows: int) -> float: ...
@overload
def lsh_probability(similarity: np.ndarray, bands: int, rows: int) -> np.ndarray: ...
def lsh_probability(similarity: Any, bands: int, rows: int) -> Any:
    """Chance 1 - (1 - s^r)^b that a pair of Jaccard s shares at least one band.

    >>> round(lsh_probability(0.5, 42, 3), 4)
    0.9963
    """
    values = np.asarray(similarity, dtype=np.float64)
    flat = np.ascontiguousarray(values.reshape(-1))
    if np.any((flat < 0) | (flat > 1)) or np.any(np.isnan(flat)):
        raise InvalidArgumentError("similarity must lie in [0, 1]")
    out = _core.lsh_probability(flat, _positive("bands", bands), _positive("rows", rows)).reshape(
        values.shape
    )
    return float(out) if out.ndim == 0 else out


def recall_bandings(threshold: float, num_perm: int, recall: float) -> list[tuple[int, int]]:
    """Every admissible recall-first banding, steepest first: for each r the fewest bands b
    with P(T) >= recall and b * r <= num_perm.

    >>> recall_bandings(0.3, 128, 0.99)
    [(49, 2), (13, 1)]
    """
    threshold = check_threshold(threshold)
    num_perm = _positive("num_perm", num_perm)
    return _core.lsh_recall_bandings(threshold, num_perm, _check_recall(recall))


def lsh_params(
    threshold: float, num_perm: int = 128, recall: float | None = None
) -> tuple[int, int]:
    """The (bands, rows) banding for a Jaccard threshold and signature width.

    ``recall=None`` (classic rule): the largest r whose S* = (1/b)^(1/r), with b = num_perm // r,
    is still at or below the threshold: the steepest S-curve that keeps the threshold on its
    high-recall side. ``recall=ρ`` (recall-first): the largest r for which some b <= num_perm // r
    makes a pair exactly at the threshold a candidate with probability >= ρ, with the fewest such
    bands; falls back to (num_perm, 1), the flattest curve, when no banding reaches ρ.

    >>> lsh_params(0.3, 128)
    (42, 3)
    >>> lsh_params(0.3, 128, recall=0.99)
    (49, 2)
    """
    threshold = check_threshold(threshold)
    num_perm = _positive("num_perm", num_perm)
    if recall is None:
        return _core.lsh_params(threshold, num_perm)
    return _core.lsh_recall_params(threshold, num_perm, _check_recall(recall))


@dataclass(frozen=True)
class Banding:
    """The banding :func:`choose_banding` picked and why.

    ``expected_recall`` is P(T), the chance that a pair exactly at the threshold becomes a
    candidate; ``predicted_candidates`` the cost model's estimate of the number of candidate
    pairs (None when no signatures were given); ``reason`` one line for ``params``.
    """

    bands: int
    rows: int
    expected_recall: float
    predicted_candidates: int | None
    reason: str

    def as_params(self) -> dict[str, Any]:
        """The fields a result records in ``params``.

        >>> sorted(choose_banding(0.3, 128, "estimate").as_params())
        ['banding_reason', 'bands', 'expected_recall', 'predicted_candidates', 'rows']
        """
        return {
            "bands": self.bands,
            "rows": self.rows,
            "expected_recall": self.expected_recall,
            "predicted_candidates": self.predicted_candidates,
            "banding_reason": self.reason,
        }


def _sample_rows(n: int, size: int) -> np.ndarray | None:
    """A uniform sample by position (numpy's generator, seed 0) for callers that pass the
    whole corpus; None when it is every row."""
    if n <= size:
        return None
    rows = np.random.default_rng(0).choice(n, size=size, replace=False)
    return np.sort(rows).astype(np.uint64)


def sample_keys(digests: np.ndarray) -> np.ndarray:
    """uint64[n]: the rank of each set digest (uint64[n, 2]) in the banding sample, a mix of
    both lanes, so the rank is a function of the shingle set alone.

    >>> d = np.array([[1, 2], [1, 2], [1, 3]], dtype=np.uint64)
    >>> k = sample_keys(d)
    >>> bool(k[0] == k[1]), bool(k[0] == k[2])
    (True, False)
    """
    return _core.sample_keys(np.ascontiguousarray(digests, dtype=np.uint64).reshape(-1, 2))


def banding_sample(
    digests: np.ndarray,
    signatures: np.ndarray,
    size: int = SAMPLE_SIZE,
    sizes: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The bottom-``size`` sample of distinct shingle sets: (digests uint64[m, 2], signatures
    uint32[m, P], shingle counts int64[m]) of the ``size`` distinct digests with the smallest
    :func:`sample_keys`, in key order (ties broken by the digest). ``sizes`` are the rows'
    shingle counts (the cost model weighs candidates by them); zeros when not given.

    The sample depends only on the set of distinct sets, never on their order or on how
    they are partitioned, and is closed under merging: the sample of the concatenated samples
    of any partitioning is the sample of the whole, so the local engine (all unique documents
    at once) and the Ray engine (per partition, merged on the driver) draw the same rows. Rows
    with equal digests are copies of one set (equal signatures): one is kept. A hash of the
    set is independent of its neighbours' similarity, so the sample is uniform over the
    distinct sets, as :func:`choose_banding`'s scaling by ``n`` assumes. The crate draws it
    (``rust/lsh/sample.rs``).

    >>> d = np.array([[5, 1], [7, 2], [5, 1]], dtype=np.uint64)
    >>> s = np.arange(6, dtype=np.uint32).reshape(3, 2)
    >>> part = [banding_sample(d[:2], s[:2]), banding_sample(d[2:], s[2:])]
    >>> d2, s2, _ = (np.concatenate(x) for x in zip(*part, strict=True))
    >>> merged = banding_sample(d2, s2)
    >>> whole = banding_sample(d, s)
    >>> bool((merged[0] == whole[0]).all()), len(whole[0])
    (True, 2)
    """
    return planned_sample(digests, _signatures(signatures), sizes, check_int("size", size, low=1))


def choose_banding(
    threshold: float,
    num_perm: int,
    verify: Literal["exact", "estimate"],
    signatures: Any = None,
    recall: float = DEFAULT_RECALL,
    sizes: Any = None,
    sign_pass: tuple[int, int] | None = None,
    n: int | None = None,
    bucket_limit: int | None = BUCKET_LIMIT,
) -> Banding:
    """The banding the pipeline uses when none is given: the one place that decides it
    (``rust/lsh/choose.rs``).

    ``verify="estimate"``: the classic rule (:func:`lsh_params` without ``recall``). Exact
    verification, recall-first: the steepest r for which P(T) >= ``recall`` can be reached
    within ``num_perm`` slots, with bands over every slot (b = num_perm // r). Bands beyond the
    fewest that reach the target cost work linear in n, since the screen keeps their extra
    candidates cheap, and they buy recall where the collisions of a family's pairs are
    correlated (template text). The target is never lowered to save work: buckets larger than
    ``bucket_limit`` are split unless dense, and hopeless candidates screened out
    (:func:`neardup.stages.lsh_candidates`), which keeps the work of a flat curve linear.

    Given ``signatures`` (uint32[n, num_perm]), a sample of 1,000 of them predicts the
    candidates and their verification work (``predicted_candidates``; the work relative to the
    sign pass in ``reason``). With ``n``, ``signatures`` are taken as a uniform sample (e.g.
    :func:`banding_sample`) of a corpus of ``n`` distinct sets and the prediction is scaled to
    ``n``; without it they are the corpus, sampled by position. ``sizes`` (the documents'
    shingle counts, optional) weigh each predicted candidate by the sets its verification
    intersects; ``sign_pass`` (documents, shingles) is what the sign pass read when that was
    more than the signatures' documents.

    >>> b = choose_banding(0.3, 128, "exact")
    >>> (b.bands, b.rows), round(b.expected_recall, 4)
    ((64, 2), 0.9976)
    >>> choose_banding(0.3, 128, "estimate").reason
    'classic rule (S* at or below T): the estimate verifies the candidates'
    """
    threshold = check_threshold(threshold)
    num_perm = _positive("num_perm", num_perm)
    check_choice("verify", verify, ("exact", "estimate"))
    recall = _check_recall(recall)
    if bucket_limit is not None:
        bucket_limit = check_int("bucket_limit", bucket_limit, low=2)
    corpus: dict[str, Any] = {}
    if signatures is not None and verify == "exact":
        signatures = _signatures(signatures)
        m = len(signatures)
        if n is not None:
            n = check_int("n", n, low=m, high=2**64 - 1)
        corpus = {
            "signatures": signatures,
            "positions": _sample_rows(m, SAMPLE_SIZE) if n is None else None,
            "sizes": _set_sizes(sizes, m),
            "sign_pass": _sign_pass(sign_pass, m if n is None else n),
            "n": n,
        }
    chosen = _core.choose_banding(
        threshold, num_perm, verify == "exact", recall, bucket_limit, **corpus
    )
    return Banding(*chosen)


def banding_info(
    chosen: tuple[int, int, float, int | None, str], info: dict[str, Any]
) -> tuple[int, int]:
    """(bands, rows) of a run's banding as the crate decided it (``_core.decide_banding``'s
    tuple), with its expected recall, reason and (when the choice was made, not given or
    planned) its predicted candidates written to ``info``.

    >>> info = {}
    >>> banding_info((20, 5, 0.5, None, "given"), info), sorted(info)
    ((20, 5), ['banding_reason', 'expected_recall'])
    """
    bands, rows, recall, predicted, reason = chosen
    info["expected_recall"] = recall
    if reason not in ("given", "plan"):
        info["predicted_candidates"] = predicted
    info["banding_reason"] = reason
    return bands, rows


def planned_sample(
    digests: np.ndarray,
    signatures: np.ndarray,
    sizes: np.ndarray | None,
    size: int = SAMPLE_SIZE,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`banding_sample` of a run's own arrays (the engines' call, per run or per
    partition: the arrays are the sign pass's, so nothing is checked again).

    >>> d = np.array([[5, 1], [7, 2]], dtype=np.uint64)
    >>> s = np.arange(4, dtype=np.uint32).reshape(2, 2)
    >>> [x.tolist() for x in planned_sample(d, s, None)] == [
    ...     x.tolist() for x in banding_sample(d, s)]
    True
    """
    lanes = np.ascontiguousarray(digests, dtype=np.uint64).reshape(-1, 2)
    counts = None if sizes is None else np.ascontiguousarray(sizes, dtype=np.int64).reshape(-1)
    return _core.banding_sample(lanes, np.ascontiguousarray(signatures), size, counts)


def _sign_pass(sign_pass: Any, n: int) -> tuple[int, int] | None:
    if sign_pass is None:
        return None
    try:
        documents, shingles = (int(value) for value in sign_pass)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"sign_pass must be (documents, shingles), got {sign_pass!r}"
        ) from None
    if documents < n or shingles < 0:
        raise InvalidArgumentError(
            f"sign_pass must count at least the {n} signed documents and no negative shingles, "
            f"got {sign_pass!r}"
        )
    return documents, shingles


def _set_sizes(sizes: Any, n: int) -> np.ndarray | None:
    """The shingle counts as float64[n] (the crate checks that they are finite and
    non-negative)."""
    if sizes is None:
        return None
    values = np.asarray(sizes)
    if values.shape != (n,) or not (
        np.issubdtype(values.dtype, np.integer) or np.issubdtype(values.dtype, np.floating)
    ):
        raise InvalidArgumentError(
            f"sizes must be {n} shingle counts, one per signature, got shape {values.shape}"
        )
    return np.ascontiguousarray(values, dtype=np.float64)
