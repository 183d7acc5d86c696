"""The banding rules of neardup.banding: recall-first (b, r), the cost model, extra bands where
buckets will be split."""

import math

import numpy as np
import pytest

import neardup
from neardup import banding
from neardup.errors import InvalidArgumentError


@pytest.mark.parametrize("threshold", [0.05, 0.2, 0.3, 0.5, 0.8, 0.95, 0.99])
@pytest.mark.parametrize("num_perm", [16, 64, 128, 256])
@pytest.mark.parametrize("recall", [0.9, 0.99, 0.999])
def test_recall_first_banding_reaches_the_target_with_the_fewest_bands(threshold, num_perm, recall):
    admissible = banding.recall_bandings(threshold, num_perm, recall)
    for bands, rows in admissible:
        assert bands * rows <= num_perm
        assert neardup.lsh_probability(threshold, bands, rows) >= recall
        if bands > 1:  # one band fewer misses the target
            assert neardup.lsh_probability(threshold, bands - 1, rows) < recall
    admissible_rows = [rows for _, rows in admissible]
    assert admissible_rows == sorted(admissible_rows, reverse=True)
    # Every r missing from the list cannot reach the target within num_perm slots.
    for rows in set(range(1, num_perm + 1)) - set(admissible_rows):
        assert neardup.lsh_probability(threshold, num_perm // rows, rows) < recall
    expected = admissible[0] if admissible else (num_perm, 1)
    assert neardup.lsh_params(threshold, num_perm, recall=recall) == expected


def test_classic_rule_is_unchanged():
    assert neardup.lsh_params(0.3) == (42, 3)
    assert neardup.lsh_params(0.3, 128, recall=None) == (42, 3)
    chosen = neardup.choose_banding(0.3, 128, "estimate")
    assert (chosen.bands, chosen.rows, chosen.predicted_candidates) == (42, 3, None)
    assert chosen.expected_recall == pytest.approx(1 - (1 - 0.3**3) ** 42)


def test_stages_reexport_the_banding_maths():
    assert neardup.stages.lsh_params is banding.lsh_params
    assert neardup.stages.lsh_probability is banding.lsh_probability
    assert neardup.stages.lsh_threshold is banding.lsh_threshold


@pytest.mark.parametrize("recall", [0.0, 1.0, 1.5, float("nan")])
def test_recall_out_of_range_is_rejected(recall):
    with pytest.raises(InvalidArgumentError):
        neardup.lsh_params(0.3, 128, recall=recall)
    with pytest.raises(InvalidArgumentError):
        neardup.choose_banding(0.3, 128, "exact", recall=recall)


def test_choose_banding_checks_its_arguments():
    with pytest.raises(InvalidArgumentError):
        neardup.choose_banding(0.3, 128, "maybe")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        neardup.choose_banding(0.3, 128, "exact", np.zeros((3, 64), dtype=np.uint32))


def corpus(seed: int, families: int = 30, members: int = 6, words: int = 80) -> list[str]:
    """Families of documents sharing most words, plus unrelated ones."""
    rng = np.random.default_rng(seed)
    vocabulary = np.array([f"w{i}" for i in range(5000)])
    texts = []
    for _ in range(families):
        base = rng.choice(vocabulary, size=words)
        for _ in range(members):
            copy = base.copy()
            copy[rng.choice(words, size=words // 8, replace=False)] = rng.choice(vocabulary, 10)
            texts.append(" ".join(copy))
    texts += [" ".join(rng.choice(vocabulary, size=words)) for _ in range(200)]
    return texts


def screened(signatures: np.ndarray, bands: int, rows: int, threshold: float) -> np.ndarray:
    """The candidates exact verification sees: buckets split past BUCKET_LIMIT, screened."""
    return neardup._core.lsh_candidate_search(
        signatures, bands, rows, threshold, banding.BUCKET_LIMIT, True
    )[0]


def test_cost_model_is_exact_when_the_sample_is_the_corpus():
    signatures = neardup.minhash(corpus(1), seed=3)
    assert len(signatures) <= banding.SAMPLE_SIZE
    chosen = neardup.choose_banding(0.3, 128, "exact", signatures)
    actual = len(screened(signatures, chosen.bands, chosen.rows, 0.3))
    assert chosen.predicted_candidates == actual
    assert chosen.expected_recall >= 0.99
    # The steepest admissible r, bands over every slot.
    assert (chosen.bands, chosen.rows) == (64, 2)
    assert chosen.reason.startswith(banding.STEEPEST)


def test_cost_model_scales_a_sample_without_bias():
    texts = corpus(2, families=300, members=8)  # 2,600 documents, more than the sample
    signatures = neardup.minhash(texts, seed=0)
    chosen = neardup.choose_banding(0.3, 128, "exact", signatures)
    actual = len(screened(signatures, chosen.bands, chosen.rows, 0.3))
    assert chosen.predicted_candidates is not None
    # Candidates are 8-document families: the scaled count of the sample's pairs is unbiased,
    # its relative error ~ 1/sqrt(the sample's pairs); allow 4 of those.
    n, m = len(texts), banding.SAMPLE_SIZE
    sampled = chosen.predicted_candidates * m * (m - 1) / (n * (n - 1))
    assert sampled > 50
    assert abs(chosen.predicted_candidates - actual) <= 4 * actual / sampled**0.5


def footer_corpus(n: int, seed: int, words: int = 40, footer: int = 30) -> list[str]:
    """Unrelated documents that all end with the same ``footer``-word boilerplate."""
    rng = np.random.default_rng(seed)
    vocabulary = np.array([f"w{i}" for i in range(20_000)])
    tail = " ".join(f"boiler{i}" for i in range(footer))
    return [" ".join(rng.choice(vocabulary, size=words)) + " " + tail for _ in range(n)]


def test_boilerplate_never_lowers_the_recall_target():
    # Unrelated documents that are mostly one footer: many bands' buckets hold most of the
    # corpus. The banding stays recall-first (no fallback to a steeper curve), and the same
    # whatever the seed.
    for seed in range(3):
        signatures = neardup.minhash(footer_corpus(3_000, 4), seed=seed)
        chosen = neardup.choose_banding(0.3, 128, "exact", signatures)
        assert chosen.reason.startswith("recall-first")
        assert (chosen.bands, chosen.rows) == (64, 2)
        assert chosen.expected_recall >= 0.99


def test_cost_model_weighs_each_candidate_by_the_sets_it_intersects():
    signatures = neardup.minhash(corpus(6), seed=0)
    n = len(signatures)
    assert n <= banding.SAMPLE_SIZE  # the sample is the corpus: the prediction is exact
    sizes = np.random.default_rng(6).integers(10, 3000, size=n)
    chosen = neardup.choose_banding(0.2, 128, "exact", signatures, sizes=sizes)
    pairs = screened(signatures, chosen.bands, chosen.rows, 0.2)
    assert chosen.predicted_candidates == len(pairs)
    beyond = pairs[neardup.estimate_jaccard(signatures, pairs) < 0.2]
    assert len(beyond) > 0
    merged = sizes[beyond[:, 0]] + sizes[beyond[:, 1]]
    excess = (banding.CANDIDATE_COST + banding.MERGE_COST * merged).sum()
    sign_work = banding.DOCUMENT_COST * n + sizes.sum()
    assert chosen.reason.endswith(f" {excess / sign_work:.2g}x the sign pass's")
    # Exact duplicates are shingled by the sign pass though signed once: their work counts.
    read = (2 * n, 3 * int(sizes.sum()))
    again = neardup.choose_banding(0.2, 128, "exact", signatures, sizes=sizes, sign_pass=read)
    sign_work = banding.DOCUMENT_COST * 2 * n + 3 * sizes.sum()
    assert again.reason.endswith(f" {excess / sign_work:.2g}x the sign pass's")
    assert again.reason != chosen.reason


def test_choose_banding_checks_the_sizes_and_the_sign_pass():
    signatures = neardup.minhash(corpus(7), seed=0)
    for bad in (np.ones(3), np.full(len(signatures), -1), ["a"] * len(signatures)):
        with pytest.raises(InvalidArgumentError, match="sizes"):
            neardup.choose_banding(0.3, 128, "exact", signatures, sizes=bad)
    for wrong in ((1, 10), (len(signatures), -1), "ab", (1,)):
        with pytest.raises(InvalidArgumentError, match="sign_pass"):
            neardup.choose_banding(0.3, 128, "exact", signatures, sign_pass=wrong)  # type: ignore[arg-type]


def test_find_duplicates_records_the_banding_in_params():
    texts = corpus(5)
    result = neardup.find_duplicates(texts, threshold=0.3, method="minhash")
    params = result.params
    assert (params["bands"], params["rows"]) == (64, 2)  # the steepest r, over every slot
    assert params["expected_recall"] >= 0.99
    assert params["predicted_candidates"] == params["candidates"]
    assert params["banding_reason"].startswith("recall-first")
    estimate = neardup.find_duplicates(texts, threshold=0.3, method="minhash", verify="estimate")
    assert (estimate.params["bands"], estimate.params["rows"]) == (42, 3)
    given = neardup.find_duplicates(texts, threshold=0.3, method="minhash", bands=42, rows=3)
    assert given.params["banding_reason"] == "given"
    assert math.isclose(given.params["expected_recall"], neardup.lsh_probability(0.3, 42, 3))
