"""The SimHash search (multi-index hashing or brute force, rust/hamming/) against a brute force
written here, the warning before a hopeless radius, and ``method="auto"`` never picking SimHash.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import neardup
from neardup import _core, near, stages, synth
from neardup.errors import NeardupWarning
from neardup.plan import make_plan
from neardup.spill import SetSpill


def brute_force(fp: np.ndarray, d: int, active: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair i < j of active rows within ``d`` bits, compared one row at a time."""
    fp = fp.reshape(len(fp), fp.shape[1] if fp.ndim == 2 else 1)
    pairs, distances = [], []
    rows = np.flatnonzero(active)
    for at, i in enumerate(rows):
        later = rows[at + 1 :]
        delta = np.bitwise_count(fp[later] ^ fp[i]).sum(axis=1)
        near_ = delta <= d
        pairs.append(np.stack([np.full(near_.sum(), i), later[near_]], axis=1))
        distances.append(delta[near_])
    if not pairs:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int32)
    return np.concatenate(pairs).astype(np.int64), np.concatenate(distances).astype(np.int32)


def fingerprints(seed: int, n: int, words: int, fixed_bits: int, planted: int, d: int):
    """``n`` random fingerprints, ``fixed_bits`` of each word skewed (set in nine of ten),
    with ``planted`` near copies at distances 0..d+2 and a cluster of exact copies."""
    rng = np.random.default_rng(seed)
    fp = rng.integers(0, 2**64 - 1, (n, words), dtype=np.uint64, endpoint=True)
    if fixed_bits:
        skewed = (rng.random((n, words, fixed_bits)) < 0.9).astype(np.uint64)
        high = (skewed << np.arange(64 - fixed_bits, 64, dtype=np.uint64)).sum(axis=2)
        fp = (fp & np.uint64((1 << (64 - fixed_bits)) - 1)) | high.astype(np.uint64)
    bits = 64 * words
    for p in range(min(planted, n // 2)):
        source, target = rng.choice(n, 2, replace=False)
        fp[target] = fp[source]
        for b in rng.choice(bits, p % (d + 3), replace=False):
            fp[target, b // 64] ^= np.uint64(1 << (b % 64))
    if n >= 10:
        fp[rng.choice(n, 5, replace=False)] = fp[0]
    return fp


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**32),
    n=st.one_of(st.integers(0, 40), st.integers(500, 1500)),
    words=st.sampled_from([1, 2]),
    d=st.integers(0, 16),
    fixed_bits=st.sampled_from([0, 0, 24, 48]),
    threads=st.sampled_from([1, 2, 3]),
)
def test_the_search_finds_what_brute_force_finds(seed, n, words, d, fixed_bits, threads):
    fp = fingerprints(seed, n, words, fixed_bits, planted=60, d=d)
    active = np.random.default_rng(seed).random(n) > 0.05
    pairs, distances = stages.hamming_within(fp, d, active, threads=threads)
    want_pairs, want_distances = brute_force(fp, d, active)
    np.testing.assert_array_equal(pairs.reshape(-1, 2), want_pairs)
    np.testing.assert_array_equal(distances, want_distances)


def test_an_index_runs_where_it_pays_and_finds_the_planted_pairs():
    fp = fingerprints(7, 6000, 1, 0, planted=200, d=4)
    plan = stages.hamming_search_plan(fp, 4)
    assert plan.search.startswith("index ("), plan
    assert plan.distinct == len(np.unique(fp))
    assert plan.comparisons < plan.brute_force_comparisons / 10
    got = stages.hamming_within(fp, 4, threads=2)
    want = brute_force(fp, 4, np.ones(6000, dtype=bool))
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert len(want[0]) > 150
    assert stages.hamming_search_plan(fp, 22).search == "brute force"


def test_find_duplicates_records_the_search_it_ran():
    corpus = synth.generate(bases=80, singles=200, seed=3)
    result = neardup.find_duplicates(corpus.texts, threshold=0.9, method="simhash")
    search = result.params["simhash_search"]
    assert search == "brute force" or search.startswith("index ("), search
    assert result.params["simhash_predicted_comparisons"] > 0


def test_a_hopeless_radius_warns_with_the_predicted_cost(monkeypatch):
    texts = synth.generate(bases=30, singles=60, seed=1).texts
    # A corpus small enough to test, with the bar lowered to its predicted time: radius 22
    # of 64 bits is brute force, and the warning gives the pairs it compares and the time.
    monkeypatch.setattr(near, "SIMHASH_WARN_SECONDS", 0.0)
    with pytest.warns(NeardupWarning, match=r"radius 22 of 64 bits") as caught:
        result = neardup.find_duplicates(texts, threshold=0.3, method="simhash")
    assert result.params["simhash_search"] == "brute force"
    message = str(caught[0].message)
    found = re.search(r"all ([\d,]+) pairs of the ([\d,]+) distinct fingerprints", message)
    assert found, message
    pairs, distinct = (int(g.replace(",", "")) for g in found.groups())
    assert 200 < distinct <= result.params["unique"] and pairs == distinct * (distinct - 1) // 2
    assert " s on one thread" in message
    assert "method='minhash'" in message


def test_the_warning_comes_before_the_search():
    # The crate takes the GIL back between planning the search and running it: the plan is
    # handed over first, and a callback that raises stops the run before any search.
    texts = synth.generate(bases=10, singles=20, seed=2).texts
    plan = make_plan(method="simhash", threshold=0.3)
    planned: list[tuple[str, int, float, float, float]] = []

    def refuse(fields: tuple[str, int, float, float, float]) -> None:
        planned.append(fields)
        raise RuntimeError("not this search")

    with SetSpill(plan.k, plan.unit) as spill:
        run = _core.Run(spill.core, plan.as_dict(), budget=1 << 20)
        run.sign(texts)
        m = len(run.finish()["selected"])
        with pytest.raises(RuntimeError, match="not this search"):
            run.near(verify_budget=1 << 20, before_search=refuse)
        with pytest.raises(neardup.errors.InvalidArgumentError, match="after near"):
            run.keep(report=False, max_pairs=1)  # nothing was decided
    assert len(planned) == 1 and planned[0][0] == "brute force"
    distinct = planned[0][1]
    assert 1 < distinct <= m and planned[0][4] == distinct * (distinct - 1) / 2


def test_no_warning_where_the_search_is_cheap():
    texts = synth.generate(bases=10, singles=20, seed=2).texts
    with warnings.catch_warnings():
        warnings.simplefilter("error", NeardupWarning)
        neardup.find_duplicates(texts, threshold=0.3, method="simhash")


@pytest.mark.parametrize("n", [0, 2, 5_000, 5_001, 100_000, 10**7, 10**9])
@pytest.mark.parametrize("threshold", [0.1, 0.3, 0.5, 0.8, 0.9, 0.95, 1.0])
def test_auto_never_picks_simhash(n, threshold):
    for bits in (64, 128):
        plan = make_plan(threshold=threshold, simhash_bits=bits).resolve(n)
        assert plan.method in ("exact-jaccard", "minhash")


def test_an_index_predicted_slow_warns_too(monkeypatch):
    texts = synth.generate(bases=150, singles=1000, seed=4).texts
    monkeypatch.setattr(near, "SIMHASH_WARN_SECONDS", 0.0)
    with pytest.warns(NeardupWarning, match=r"even the cheapest index \(\d+ tables of"):
        result = neardup.find_duplicates(texts, threshold=0.95, method="simhash")
    assert result.params["simhash_search"].startswith("index (")
