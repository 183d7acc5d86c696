"""The crate's banding choice (``rust/lsh/choose.rs``, ``rust/lsh/sample.rs``) through
``neardup._core``, against numpy references of what ``neardup.banding`` computed before it
moved: the recall-first search, the bottom-k sample's keys and the cost model."""

from __future__ import annotations

import math

import numpy as np
import pytest

import neardup
from neardup import _core, banding

from reference import mix64

M64 = (1 << 64) - 1


def _fewest_bands(threshold: float, rows: int, recall: float, most: int) -> int | None:
    """The old numpy-side search: the first b <= most with 1 - (1 - T^r)^b >= recall."""

    def collision(per_band: float, bands: int) -> float:
        return -math.expm1(bands * math.log1p(-per_band))

    per_band = threshold**rows
    if per_band >= 1.0:
        return 1
    if collision(per_band, most) < recall:
        return None
    low, high = 1, most
    while low < high:
        middle = (low + high) // 2
        if collision(per_band, middle) >= recall:
            high = middle
        else:
            low = middle + 1
    return low


@pytest.mark.parametrize("num_perm", [1, 5, 64, 128, 200, 256])
def test_recall_bandings_are_the_reference_search(num_perm):
    for threshold in (0.05, 0.3, 0.5, 0.77, 0.95, 1.0):
        for recall in (0.5, 0.9, 0.99, 0.9999):
            want = []
            for rows in range(num_perm, 0, -1):
                bands = _fewest_bands(threshold, rows, recall, num_perm // rows)
                if bands is not None:
                    want.append((bands, rows))
            assert _core.lsh_recall_bandings(threshold, num_perm, recall) == want
            first = want[0] if want else (num_perm, 1)
            assert _core.lsh_recall_params(threshold, num_perm, recall) == first


def test_sample_keys_mix_both_lanes():
    digests = np.random.default_rng(0).integers(0, 2**64, size=(50, 2), dtype=np.uint64)
    keys = _core.sample_keys(digests).tolist()
    want = [mix64(int(lo) ^ mix64(int(hi))) & M64 for lo, hi in digests.tolist()]
    assert keys == want


def _predict(signatures, sizes, n, bands, rows, threshold, bucket_limit):
    """The old numpy cost model: (candidates, excess work) of the whole sample."""
    pairs = _core.lsh_candidate_search(signatures, bands, rows, threshold, bucket_limit, True, 1)[0]
    m = len(signatures)
    scale = 1.0 if m >= n or m < 2 else n * (n - 1) / (m * (m - 1))
    above = _core.estimate_jaccard(signatures, pairs) >= threshold
    work = banding.CANDIDATE_COST + banding.MERGE_COST * (sizes[pairs[:, 0]] + sizes[pairs[:, 1]])
    return round(len(pairs) * scale), float(work[~above].sum()) * scale


@pytest.mark.parametrize("seed", range(6))
def test_the_cost_model_is_the_reference_model(seed):
    rng = np.random.default_rng(seed)
    texts = list(neardup.synth.generate(bases=40, singles=150, seed=seed).texts)
    signatures = neardup.minhash(texts, seed=seed)
    m = len(signatures)
    sizes = rng.uniform(0, 2000, size=m)
    threshold = float(rng.choice([0.3, 0.5, 0.7, 0.9]))
    n = m + int(rng.integers(0, 50 * m))
    sign_pass = (n + 17, int(rng.integers(0, 10**8)))
    bucket_limit = int(rng.choice([2, 8, 32]))
    got = _core.choose_banding(
        threshold, 128, True, 0.99, bucket_limit, signatures, None, sizes, sign_pass, n
    )
    bands, rows = 128 // banding.lsh_params(threshold, 128, recall=0.99)[1], got[1]
    assert got[:3] == (bands, rows, neardup.lsh_probability(threshold, bands, rows))
    candidates, excess = _predict(signatures, sizes, n, bands, rows, threshold, bucket_limit)
    sign_work = banding.DOCUMENT_COST * sign_pass[0] + float(sign_pass[1])
    assert got[3] == candidates
    assert got[4] == (
        f"{banding.STEEPEST}; predicted verification work beyond the duplicate pairs "
        f"{excess / max(sign_work, 1.0):.2g}x the sign pass's"
    )


def test_positions_pick_the_rows_the_model_bands():
    signatures = neardup.minhash(list(neardup.synth.generate(bases=30, singles=60).texts))
    rows = np.arange(0, len(signatures), 2, dtype=np.uint64)
    by_position = _core.choose_banding(0.5, 128, True, 0.99, 32, signatures, rows)
    gathered = np.ascontiguousarray(signatures[rows.astype(np.int64)])
    # the gathered rows as a sample of a corpus of every row: scaled alike
    n = len(signatures)
    as_sample = _core.choose_banding(0.5, 128, True, 0.99, 32, gathered, None, None, None, n)
    assert by_position == as_sample
    alone = _core.choose_banding(0.5, 128, True, 0.99, 32, gathered)
    assert alone[3] is not None and alone[3] < by_position[3]


def test_a_huge_corpus_predicts_past_2_to_the_64():
    # n(n-1)/2 of four billion sets passes 2**64 pairs: the count stays exact, as Python's int.
    signatures = np.zeros((10, 8), np.uint32) + np.arange(1, 9, dtype=np.uint32)
    n = 2**40
    got = _core.choose_banding(0.5, 8, True, 0.99, None, signatures, None, None, None, n)
    assert got[3] == round(45 * (n * (n - 1) / 90))
    assert got[3] > 2**64


def test_the_crate_constants_are_the_modules():
    assert banding.SAMPLE_SIZE == _core.SAMPLE_SIZE == 1000
    assert banding.BUCKET_LIMIT == 32 and banding.DEFAULT_RECALL == 0.99
    assert banding.STEEPEST.startswith("recall-first")
