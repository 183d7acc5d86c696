"""One-permutation hashing (``algorithm="oph"``): same contract as classic MinHash, checked
against theory (estimator error) and against the labelled synthetic corpus (LSH recall)."""

import math

import numpy as np
import pytest
from test_statistics import pair_with_jaccard

import neardup
from neardup import synth

TEXTS = [
    "the quick brown fox jumps over the lazy dog again and again",
    "the quick brown fox jumps over the lazy cat again and again",
    "",
    "  ... ",
    "short",
]


def test_texts_sets_and_threads_agree():
    want = neardup.minhash(TEXTS, num_perm=64, k=3, algorithm="oph")
    assert want.shape == (5, 64) and want.dtype == np.uint32
    sets = neardup.shingles(TEXTS, k=3)
    assert np.array_equal(neardup.minhash(sets, num_perm=64, algorithm="oph"), want)
    threaded = neardup.minhash(TEXTS, num_perm=64, k=3, algorithm="oph", threads=2)
    assert np.array_equal(threaded, want)
    assert (want[2] == 0xFFFFFFFF).all() and (want[3] == 0xFFFFFFFF).all()
    assert not np.array_equal(want, neardup.minhash(TEXTS, num_perm=64, k=3))


def test_bad_algorithm_is_a_value_error():
    with pytest.raises(ValueError, match="algorithm"):
        neardup.minhash(TEXTS, algorithm="fast")


@pytest.mark.parametrize("jaccard", [0.2, 0.5, 0.8])
def test_estimator_error_is_within_five_percent_of_classic_theory(jaccard):
    # Sets larger than P (the documents this option is for): 400 distinct shingles in the union.
    sets = pair_with_jaccard(jaccard, 400, np.random.default_rng(11))
    p, trials = 128, 1000
    est = np.array(
        [
            neardup.estimate_jaccard(
                neardup.minhash(sets, num_perm=p, seed=seed, algorithm="oph"), [[0, 1]]
            )[0]
            for seed in range(trials)
        ],
        dtype=np.float64,
    )
    theory = math.sqrt(jaccard * (1 - jaccard) / p)
    rmse = math.sqrt(float(np.mean((est - jaccard) ** 2)))
    assert abs(est.mean() - jaccard) < 4 * theory / math.sqrt(trials)
    assert rmse <= 1.05 * theory


def test_lsh_recall_on_the_synthetic_corpus():
    corpus = synth.generate(*synth.preset(3_100))
    truth = {tuple(p) for p in corpus.duplicate_pairs().tolist()}
    for verify in ("estimate", "exact"):
        result = neardup.find_duplicates(
            corpus.texts, method="minhash", bands=42, rows=3, verify=verify, algorithm="oph"
        )
        found = {tuple(p) for p in result.pairs.tolist()}
        assert len(found & truth) / len(truth) >= 0.99
        assert found <= truth
        assert result.params["algorithm"] == "oph"
