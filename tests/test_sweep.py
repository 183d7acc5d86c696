"""``DuplicateResult.at`` / ``sweep`` / ``keep_at_most``: every threshold from one run, compared
with fresh runs at those thresholds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import neardup
from neardup.errors import InvalidArgumentError

CORPORA = [neardup.synth.generate(bases=12, singles=15, seed=seed).texts for seed in (1, 2, 3)]
WORDS = ["a", "b", "c", "d", "e", "f", "g"]


@pytest.mark.parametrize("texts", CORPORA)
@pytest.mark.parametrize("keep", ["first", "longest"])
@pytest.mark.parametrize("threshold", [0.35, 0.5, 0.7, 0.9, 1.0])
def test_at_is_a_fresh_run_where_all_pairs_were_compared(texts, keep, threshold):
    run = neardup.find_duplicates(texts, threshold=0.3, k=2, keep=keep, pairs="all")
    assert run.params["method"] == "exact-jaccard"
    got = run.at(threshold)
    fresh = neardup.find_duplicates(texts, threshold=threshold, k=2, keep=keep, pairs="all")
    np.testing.assert_array_equal(got.pairs, fresh.pairs)
    np.testing.assert_array_equal(got.similarity, fresh.similarity)
    np.testing.assert_array_equal(got.clusters, fresh.clusters)
    np.testing.assert_array_equal(got.keep, fresh.keep)
    np.testing.assert_allclose(got.kept_similarity, fresh.kept_similarity)
    assert got.reason.tolist() == fresh.reason.tolist()
    assert got.threshold == threshold


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join), max_size=14),
    st.sampled_from([0.34, 0.5, 0.6, 2 / 3, 0.75]),
)
def test_at_on_exact_fractions(texts, threshold):
    # Small sets give similarities that are exact fractions, the thresholds sit on them.
    run = neardup.find_duplicates(texts, threshold=1 / 3, k=1, pairs="all")
    fresh = neardup.find_duplicates(texts, threshold=threshold, k=1, pairs="all")
    got = run.at(threshold)
    np.testing.assert_array_equal(got.pairs, fresh.pairs)
    np.testing.assert_array_equal(got.keep, fresh.keep)


def test_minhash_at_keeps_only_pairs_above():
    texts = CORPORA[0]
    run = neardup.find_duplicates(texts, threshold=0.3, method="minhash", k=2, pairs="all")
    got = run.at(0.6)
    assert (got.similarity >= 0.6).all()
    fresh = neardup.find_duplicates(texts, threshold=0.6, method="minhash", k=2, pairs="all")
    assert {tuple(p) for p in fresh.pairs.tolist()} <= {tuple(p) for p in got.pairs.tolist()}


def test_sweep_counts_are_fresh_runs():
    texts = CORPORA[1]
    run = neardup.find_duplicates(texts, threshold=0.3, k=2, pairs="all")
    table = run.sweep()
    assert table.threshold[0] == 0.3 and table.threshold[-1] == 1.0
    for t, kept, largest in zip(table.threshold, table.kept, table.largest, strict=True):
        fresh = neardup.find_duplicates(texts, threshold=float(t), k=2, pairs="all")
        assert kept == fresh.keep.sum()
        assert largest == np.bincount(fresh.clusters).max()
    assert (np.diff(table.kept) >= 0).all()
    frame = table.to_pandas()
    assert list(frame.columns) == ["threshold", "kept", "removed", "clusters", "largest"]
    assert "<table>" in table._repr_html_()


def test_keep_at_most_picks_the_highest_threshold():
    texts = CORPORA[2]
    run = neardup.find_duplicates(texts, threshold=0.3, k=2, pairs="all")
    fewest = int(run.keep.sum())
    target = fewest + (len(texts) - fewest) // 2
    got = run.keep_at_most(target)
    assert got.keep.sum() <= target
    higher = np.unique(run.similarity[run.similarity > got.threshold + 1e-6])
    if len(higher):
        assert run.at(float(higher[0])).keep.sum() > target
    assert run.keep_at_most(1.0 - 1e-9).keep.sum() <= len(texts) - 1 or fewest == len(texts)
    with pytest.raises(InvalidArgumentError, match=f"keeps at least {fewest:,}"):
        run.keep_at_most(fewest - 1)


def test_bad_thresholds_and_spanning_runs():
    run = neardup.find_duplicates(CORPORA[0], threshold=0.5, k=2)
    with pytest.raises(InvalidArgumentError, match="a lower one needs a new run"):
        run.at(0.4)
    with pytest.raises(InvalidArgumentError):
        run.at("0.6")
    spanning = neardup.find_duplicates(CORPORA[0], threshold=0.5, k=2, pairs="spanning")
    with pytest.raises(InvalidArgumentError, match="spanning"):
        spanning.at(0.6)
    scores = list(range(len(CORPORA[0])))
    prioritised = neardup.find_duplicates(CORPORA[0], threshold=0.5, k=2, keep=scores)
    with pytest.raises(InvalidArgumentError, match="priorit"):
        prioritised.at(0.6)


def test_thresholds_on_a_float32_boundary():
    # J = 7/10 exactly, which float32 rounds below 0.7: the run compared the exact value.
    a = "w1 w2 w3 w4 w5 w6 w7 a8"
    b = "w1 w2 w3 w4 w5 w6 w7 b8 b9"
    run = neardup.find_duplicates([a, b, "zz"], threshold=0.5, k=1)
    assert float(np.float32(0.7)) < 0.7 and run.similarity[0] == np.float32(0.7)
    assert run.at(0.7).pairs.tolist() == [[0, 1]]
    assert neardup.find_duplicates([a, b, "zz"], threshold=0.7, k=1).pairs.tolist() == [[0, 1]]
    assert run.keep_at_most(2).threshold == 0.7


def test_sweep_plot():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    run = neardup.find_duplicates(CORPORA[0], threshold=0.3, k=2, pairs="all")
    table = run.sweep()
    ax = table.plot()
    kept_line = ax.get_lines()[0]
    assert kept_line.get_ydata().tolist() == table.kept.tolist()
    assert ax.get_xlabel() == "threshold"
