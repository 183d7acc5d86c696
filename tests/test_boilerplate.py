"""Boilerplate stripping removes exactly the shingles above the document-frequency cut."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import neardup
from neardup.boilerplate import (
    FrequencyCounter,
    frequent_shingles,
    remove_shingles,
    strip_boilerplate,
)

import reference


def _sets(docs):
    offsets = np.zeros(len(docs) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(d) for d in docs])
    hashes = np.concatenate([np.array(sorted(d), dtype=np.uint64) for d in docs]) if docs else []
    return neardup.ShingleSets(offsets, np.asarray(hashes, dtype=np.uint64), k=5, unit="word")


def _random_docs(seed, n=60):
    rng = random.Random(seed)
    docs = []
    for _ in range(n):
        s = {rng.randrange(1, 400) for _ in range(rng.randrange(0, 30))}
        if rng.random() < 0.5:
            s |= {10_000, 10_001}  # frequent
        if rng.random() < 0.12:
            s.add(20_000)  # near the cut
        docs.append(s)
    return docs


@pytest.mark.parametrize("max_df", [0.05, 0.1, 0.3])
def test_strips_exactly_the_frequent_shingles(max_df):
    docs = _random_docs(1)
    n = len(docs)
    df: dict[int, int] = {}
    for d in docs:
        for h in d:
            df[h] = df.get(h, 0) + 1
    frequent = {h for h, c in df.items() if c / n > max_df}
    assert frequent, "the corpus must have something to strip"
    ss = _sets(docs)
    out, stats = strip_boilerplate(ss, max_df=max_df)
    assert len(out) == n and out.k == ss.k and out.unit == ss.unit
    for i, d in enumerate(docs):
        assert out[i].tolist() == sorted(d - frequent)
    assert set(frequent_shingles(ss, max_df).tolist()) == frequent
    assert stats.shingles_dropped == len(frequent)
    assert stats.occurrences_dropped == sum(len(d & frequent) for d in docs)
    shares = [len(d & frequent) / len(d) for d in docs if d]
    assert stats.mean_share_stripped == pytest.approx(np.mean(shares))
    assert stats.documents_emptied == sum(1 for d in docs if d and d <= frequent)


def test_share_exactly_at_cut_is_kept():
    docs = [{1, 2}, {1, 3}, {4}, {5}]  # shingle 1 in exactly half of the documents
    out, stats = strip_boilerplate(_sets(docs), max_df=0.5)
    assert out[0].tolist() == [1, 2] and stats.shingles_dropped == 0
    out, _ = strip_boilerplate(_sets(docs), max_df=0.49)
    assert out[0].tolist() == [2]


def test_empty_input_and_bad_max_df():
    out, stats = strip_boilerplate(_sets([set(), set()]), max_df=0.1)
    assert out.sizes().tolist() == [0, 0] and stats.shingles_dropped == 0
    with pytest.raises(ValueError, match="max_df"):
        strip_boilerplate(_sets([{1}]), max_df=0)


@pytest.mark.parametrize("batch", [1, 7, 25, 1000])
def test_streaming_counter_matches_in_memory(batch):
    docs = _random_docs(2, n=80)
    max_df = 0.1
    expected = frequent_shingles(_sets(docs), max_df)
    fc = FrequencyCounter(max_df)
    chunks = [docs[i : i + batch] for i in range(0, len(docs), batch)]
    for c in chunks:
        fc.add_candidates(_sets(c))
    for c in chunks:
        fc.count(_sets(c))
    assert fc.frequent().tolist() == expected.tolist()


def _corpus(n_docs=120, boiler_share=0.4, seed=3):
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(20000)]
    boiler = " ".join(rng.choice(vocab[:300]) for _ in range(int(200 * boiler_share)))
    return [
        " ".join(rng.choice(vocab) for _ in range(200 - int(200 * boiler_share))) + " " + boiler
        for _ in range(n_docs)
    ]


def test_stripping_pushes_unrelated_similarity_back_down():
    """The article's boilerplate experiment in small: 40% shared footer lifts the Jaccard of
    unrelated documents to ~0.25; stripping it brings their p99 back near zero."""
    texts = _corpus()
    ss = neardup.shingles(texts, k=5)
    pairs = np.array([(i, i + 1) for i in range(0, len(texts) - 1, 2)], dtype=np.int64)
    before = np.asarray(neardup.jaccard(ss, pairs))
    stripped, stats = strip_boilerplate(ss, max_df=0.1)
    after = np.asarray(neardup.jaccard(stripped, pairs))
    assert before.min() > 0.15
    assert after.max() < 0.05
    assert 0.3 < stats.mean_share_stripped < 0.5


# small hash alphabets (shared shingles are the point) at both ends of the uint64 range
_HASHES = st.sampled_from([0, 1, 2, 3, 5, 2**32, 2**63 - 1, 2**63, 2**64 - 2, 2**64 - 1])


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.lists(_HASHES, max_size=6).map(lambda s: sorted(set(s))), max_size=12),
    st.sampled_from([0.01, 0.1, 0.25, 0.5, 0.75, 1.0]),
    st.integers(1, 5),
)
def test_frequent_and_removed_shingles_match_the_reference(sets, max_df, batch):
    """The crate's document frequencies, cut and removal against Python sets, in memory and
    through the two-pass counter fed in batches."""
    offsets = np.cumsum([0] + [len(s) for s in sets]).astype(np.int64)
    hashes = np.array([h for s in sets for h in s], dtype=np.uint64)
    ss = neardup.ShingleSets(offsets, hashes, k=5, unit="word")
    want = reference.frequent_shingles(sets, max_df)
    assert frequent_shingles(ss, max_df).tolist() == want
    counter = FrequencyCounter(max_df)
    parts = [sets[i : i + batch] for i in range(0, len(sets), batch)]
    batches = [
        neardup.ShingleSets(
            np.cumsum([0] + [len(s) for s in part]).astype(np.int64),
            np.array([h for s in part for h in s], dtype=np.uint64),
            k=5,
            unit="word",
        )
        for part in parts
    ]
    for b in batches:
        counter.add_candidates(b)
    for b in batches:
        counter.count(b)
    assert counter.frequent().tolist() == want
    stripped, removed = remove_shingles(ss, np.array(want, dtype=np.uint64))
    kept, lost = reference.remove_shingles(sets, want)
    bounds = zip(stripped.offsets[:-1], stripped.offsets[1:], strict=True)
    assert [stripped.hashes[a:b].tolist() for a, b in bounds] == kept
    assert removed.tolist() == lost
