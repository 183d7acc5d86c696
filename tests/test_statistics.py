"""Statistical behaviour with fixed seeds, tolerances derived from theory.

MinHash with P slots estimates Jaccard J with variance J(1 - J)/P; LSH banding makes a pair of
similarity s a candidate with probability 1 - (1 - s^r)^b.
"""

import math

import numpy as np
import pytest

import neardup

P = 128
TRIALS = 1000  # seed sets


def pair_with_jaccard(jaccard: float, union: int, rng: np.random.Generator) -> neardup.ShingleSets:
    """Two sets of random 64-bit hashes of equal size with |A ∩ B| / |A ∪ B| = jaccard exactly."""
    common = round(jaccard * union)
    each = (union + common) // 2
    assert 2 * each - common == union
    values = np.unique(rng.integers(0, 2**64 - 1, size=2 * union, dtype=np.uint64))
    values = rng.permutation(values)[:union]
    a = np.sort(values[:each])
    b = np.sort(values[each - common : 2 * each - common])
    return neardup.ShingleSets(
        np.array([0, each, 2 * each], dtype=np.int64), np.concatenate([a, b])
    )


def estimates(sets: neardup.ShingleSets, num_perm: int, trials: int) -> np.ndarray:
    return np.array(
        [
            neardup.estimate_jaccard(neardup.minhash(sets, num_perm=num_perm, seed=seed), [[0, 1]])[
                0
            ]
            for seed in range(trials)
        ],
        dtype=np.float64,
    )


@pytest.mark.parametrize("jaccard", [0.2, 0.6, 0.9])
def test_minhash_estimator_is_unbiased_with_the_theoretical_error(jaccard):
    sets = pair_with_jaccard(jaccard, union=500, rng=np.random.default_rng(12345))
    exact = neardup.jaccard(sets, [[0, 1]])[0]
    assert exact == pytest.approx(jaccard)
    est = estimates(sets, P, TRIALS)
    sigma = math.sqrt(jaccard * (1 - jaccard) / P)
    # Mean within 3 standard errors of the mean.
    assert abs(est.mean() - jaccard) < 3 * sigma / math.sqrt(TRIALS), est.mean()
    # RMSE within 10 % of sqrt(J (1 - J) / P) (the RMSE of 1,000 trials wobbles ~2.2 %).
    rmse = math.sqrt(np.mean((est - jaccard) ** 2))
    assert abs(rmse / sigma - 1) < 0.10, (rmse, sigma)


@pytest.mark.parametrize(("bands", "rows"), [(42, 3), (8, 4), (16, 8)])
def test_lsh_candidate_rate_follows_the_s_curve(bands, rows):
    rng = np.random.default_rng(7)
    trials = 400
    for similarity in (0.2, 0.4, 0.6, 0.8):
        sets = pair_with_jaccard(similarity, union=200, rng=rng)
        hits = 0
        for seed in range(trials):
            sig = neardup.minhash(sets, num_perm=bands * rows, seed=seed)
            hits += len(neardup.lsh_candidates(sig, bands, rows))
        expected = neardup.lsh_probability(similarity, bands, rows)
        # Binomial standard deviation of the hit rate, and 4.5 of them as the band.
        sd = math.sqrt(max(expected * (1 - expected), 1e-4) / trials)
        assert abs(hits / trials - expected) < 4.5 * sd + 1e-9, (
            similarity,
            hits / trials,
            expected,
        )


def test_banding_landmarks():
    assert neardup.lsh_params(0.3, 128) == (42, 3)
    assert neardup.lsh_threshold(42, 3) == pytest.approx((1 / 42) ** (1 / 3))
    half = neardup.lsh_half_point(42, 3)
    assert neardup.lsh_probability(half, 42, 3) == pytest.approx(0.5)
    curve = neardup.lsh_probability(np.linspace(0, 1, 11), 42, 3)
    assert np.all(np.diff(curve) >= 0) and np.all(np.diff(curve[:6]) > 0)
    assert curve[0] == 0 and curve[-1] == 1
