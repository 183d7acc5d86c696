"""The banding sample (neardup.banding.banding_sample): bottom-k by a hash of the set digest,
so every executor draws the same documents whatever their order and partitioning."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import neardup
from neardup import banding, synth
from neardup.errors import InvalidArgumentError


def _digests(rng: np.random.Generator, distinct: int, copies: int) -> np.ndarray:
    """``distinct`` random digests, then ``copies`` extra rows repeating some of them."""
    base = rng.integers(0, 2**63, size=(distinct, 2), dtype=np.uint64)
    return np.concatenate([base, base[rng.integers(0, distinct, size=copies)]])


def _brute_force(digests: np.ndarray, size: int) -> list[tuple[int, int]]:
    """The ``size`` distinct digests with the smallest keys, ties by digest, in that order."""
    keys = banding.sample_keys(digests).tolist()
    ranked = sorted({(k, int(a), int(b)) for k, (a, b) in zip(keys, digests.tolist(), strict=True)})
    return [(a, b) for _, a, b in ranked[:size]]


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    distinct=st.integers(1, 300),
    copies=st.integers(0, 300),
    size=st.integers(1, 120),
    cuts=st.lists(st.floats(0, 1), max_size=6),
)
def test_the_sample_of_merged_partition_samples_is_the_sample_of_the_whole(
    seed, distinct, copies, size, cuts
):
    rng = np.random.default_rng(seed)
    digests = _digests(rng, distinct, copies)
    order = rng.permutation(len(digests))  # any input order
    digests = digests[order]
    # a set's signature is a function of the set: copies carry equal signatures
    signatures = (digests[:, :1] % np.uint64(2**32)).astype(np.uint32).repeat(3, axis=1)
    sizes = (digests[:, 1] % np.uint64(1000)).astype(np.int64)  # a function of the set too
    whole = banding.banding_sample(digests, signatures, size, sizes)
    assert [tuple(d) for d in whole[0].tolist()] == _brute_force(digests, size)
    assert (whole[1] == (whole[0][:, :1] % np.uint64(2**32)).astype(np.uint32)).all()
    assert (whole[2] == (whole[0][:, 1] % np.uint64(1000)).astype(np.int64)).all()
    bounds = sorted({0, len(digests), *(int(c * len(digests)) for c in cuts)})
    parts = [
        banding.banding_sample(digests[a:b], signatures[a:b], size, sizes[a:b])
        for a, b in itertools.pairwise(bounds)
    ]
    merged = banding.banding_sample(
        *(np.concatenate([p[i] for p in parts]) for i in range(2)),
        size,
        np.concatenate([p[2] for p in parts]),
    )
    assert all((m == w).all() for m, w in zip(merged, whole, strict=True))


def test_digests_and_signatures_must_pair_up():
    with pytest.raises(InvalidArgumentError, match="one digest per row"):
        banding.banding_sample(np.zeros((3, 2), np.uint64), np.zeros((2, 8), np.uint32))


def _signatures(texts: list[str]) -> np.ndarray:
    return neardup.minhash(texts, seed=0)


def test_choose_banding_scales_a_given_sample_by_n():
    texts = list(synth.generate(bases=60, singles=200, seed=5).texts)
    sample = _signatures(texts)
    m = len(sample)
    alone = neardup.choose_banding(0.5, 128, "exact", sample)
    assert neardup.choose_banding(0.5, 128, "exact", sample, n=m) == alone
    assert alone.predicted_candidates is not None and alone.predicted_candidates > 0
    n = 4 * m
    scaled = neardup.choose_banding(0.5, 128, "exact", sample, n=n)
    if (scaled.bands, scaled.rows) == (alone.bands, alone.rows):
        expected = alone.predicted_candidates * n * (n - 1) / (m * (m - 1))
        assert scaled.predicted_candidates == pytest.approx(expected, abs=1)
    with pytest.raises(InvalidArgumentError, match="n must be at least"):
        neardup.choose_banding(0.5, 128, "exact", sample, n=m - 1)


def test_the_local_engine_refines_the_banding_whatever_the_order():
    # more unique documents than the sample, with families and exact copies
    corpus = synth.generate(bases=150, singles=700, seed=11, boilerplate_share=0.2)
    texts = list(corpus.texts)
    texts += texts[:200]
    assert len(texts) > banding.SAMPLE_SIZE + 500
    permuted = [texts[i] for i in np.random.default_rng(1).permutation(len(texts))]
    runs = [
        neardup.find_duplicates(t, method="minhash", threshold=0.5, pairs="all")
        for t in (texts, permuted)
    ]
    keys = ("bands", "rows", "predicted_candidates", "banding_reason", "unique")
    first, second = ({k: r.params[k] for k in keys} for r in runs)
    assert first == second
    assert first["predicted_candidates"] is not None


@settings(max_examples=200, deadline=None)
@given(
    picks=st.lists(st.integers(0, 30), min_size=0, max_size=400),
    size=st.integers(1, 60),
)
def test_few_distinct_sets_with_many_copies_are_counted_once(picks, size):
    # Few sets, many copies: the crate's doubling search for the cut must count distinct
    # keys, not rows, or the sample comes out short.
    pool = np.random.default_rng(3).integers(0, 2**63, size=(31, 2), dtype=np.uint64)
    digests = pool[np.array(picks, dtype=np.int64)].reshape(-1, 2)
    signatures = np.zeros((len(digests), 2), np.uint32)
    got = banding.banding_sample(digests, signatures, size)[0]
    assert [tuple(d) for d in got.tolist()] == _brute_force(digests, size)
    assert len(got) == min(size, len(set(picks)))


def test_sample_size_must_be_positive():
    d = np.zeros((2, 2), np.uint64)
    with pytest.raises(InvalidArgumentError):
        banding.banding_sample(d, np.zeros((2, 4), np.uint32), size=0)
