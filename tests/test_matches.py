"""One set against another (neardup.find_matches, Matcher): exactly the pairs of a plain-Python
brute force of containment and Jaccard on the reference shingles (tests/reference.py), on
planted short items inside long documents and on hypothesis-drawn texts; the same pairs
whatever the batching, the threads or the corpus's shape; bad input gets clear errors."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import neardup
from neardup.errors import InputError, InputTypeError, InvalidArgumentError, NeardupError

import reference as ref

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi".split()


def brute_force(queries, corpus, threshold, measure, k=5, unit="word", hash_version=2):
    """Every (i, j, score) with score >= threshold, from the reference shingle sets."""
    qs = [set(ref.shingle_set(q, k, unit, hash_version)) for q in queries]
    out = []
    for j, doc in enumerate(corpus):
        d = set(ref.shingle_set(doc, k, unit, hash_version))
        for i, q in enumerate(qs):
            shared = len(q & d)
            score = shared / len(q) if measure == "containment" else shared / len(q | d)
            if shared and score >= threshold:
                out.append((i, j, score))
    return sorted(out)


def as_triples(result):
    return [
        (i, j, s) for (i, j), s in zip(result.pairs.tolist(), result.score.tolist(), strict=True)
    ]


def assert_same(result, expected):
    got = as_triples(result)
    assert [(i, j) for i, j, _ in got] == [(i, j) for i, j, _ in expected]
    assert np.allclose([s for *_, s in got], [s for *_, s in expected], atol=1e-6)


def planted(seed=0, queries=30, docs=60):
    """Short items (20-60 words) inserted, some lightly edited, into documents of 300-800."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(3000)]
    items = [" ".join(rng.choices(vocab, k=rng.randint(20, 60))) for _ in range(queries)]
    corpus = []
    for _ in range(docs):
        words = rng.choices(vocab, k=rng.randint(300, 800))
        if rng.random() < 0.5:
            item = rng.choice(items).split()
            for _ in range(rng.randint(0, 3)):  # light edits
                item[rng.randrange(len(item))] = rng.choice(vocab)
            at = rng.randrange(len(words))
            words[at:at] = item
        corpus.append(" ".join(words))
    return items, corpus


@pytest.mark.parametrize("measure", ["containment", "jaccard"])
@pytest.mark.parametrize("threshold", [0.05, 0.5, 0.8, 1.0])
def test_planted_items_match_brute_force(measure, threshold):
    items, corpus = planted()
    result = neardup.find_matches(items, corpus, threshold, measure)
    expected = brute_force(items, corpus, threshold, measure)
    assert_same(result, expected)
    if measure == "containment" and threshold <= 0.8:
        assert len(expected) >= 15  # the planted items are found, edited or not
    assert result.queries == len(items) and result.documents == len(corpus)
    assert result.params["measure"] == measure and result.params["threshold"] == threshold


def test_real_text_quoted_passages():
    with open(ref.__file__, encoding="utf-8") as f:
        lines = [line.strip() for line in f if len(line.split()) > 6]
    corpus = [" ".join(lines[i : i + 40]) for i in range(0, len(lines) - 40, 20)]
    items = [" ".join(lines[i : i + 3]) for i in range(5, len(lines) - 3, 37)]
    for measure, threshold in (("containment", 0.7), ("jaccard", 0.02)):
        result = neardup.find_matches(items, corpus, threshold, measure, k=4)
        expected = brute_force(items, corpus, threshold, measure, k=4)
        assert_same(result, expected)
        assert len(expected) > len(items) // 2


@settings(max_examples=60)
@given(
    queries=st.lists(
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=12), min_size=1, max_size=6
    ),
    corpus=st.lists(st.lists(st.sampled_from(WORDS), max_size=40), max_size=8),
    k=st.integers(1, 4),
    threshold=st.sampled_from([0.1, 0.34, 0.5, 0.9, 1.0]),
    measure=st.sampled_from(["containment", "jaccard"]),
    unit=st.sampled_from(["word", "char"]),
    hash_version=st.sampled_from([1, 2]),
)
def test_property_equals_brute_force(queries, corpus, k, threshold, measure, unit, hash_version):
    qs = [" ".join(q) for q in queries]
    cs = [" ".join(c) for c in corpus]
    result = neardup.find_matches(
        qs, iter(cs), threshold, measure, k=k, unit=unit, hash_version=hash_version, batch_size=3
    )
    assert_same(result, brute_force(qs, cs, threshold, measure, k, unit, hash_version))


def test_streaming_batches_threads_and_shapes_agree():
    pa = pytest.importorskip("pyarrow")
    items, corpus = planted(seed=3)
    whole = as_triples(neardup.find_matches(items, corpus, 0.5, "containment"))
    for kwargs in ({"batch_size": 1}, {"batch_size": 7, "threads": 2}):
        streamed = neardup.find_matches(items, (t for t in corpus), 0.5, "containment", **kwargs)
        assert as_triples(streamed) == whole
    arrow = neardup.find_matches(pa.array(items), pa.array(corpus), 0.5, "containment")
    assert as_triples(arrow) == whole
    matcher = neardup.Matcher(items, 0.5, "containment")
    pairs = np.concatenate([matcher.add(corpus[:20])[0], matcher.add(corpus[20:])[0]])
    assert sorted(map(tuple, pairs.tolist())) == [(i, j) for i, j, _ in whole]


def test_result_helpers():
    r = neardup.find_matches(["a b c"], ["x a b c y", "q", "a b c"], 1.0, "containment", k=2)
    assert r.pairs.dtype == np.int64 and r.score.dtype == np.float32
    assert r.matched().tolist() == [0, 2]
    assert r.contaminated().tolist() == [True, False, True]
    assert len(r) == 2


def test_bad_inputs_get_clear_errors():
    with pytest.raises(InvalidArgumentError, match="queries is empty"):
        neardup.find_matches([], ["text"], 0.5)
    with pytest.raises(InputTypeError, match=r"queries\[1\] is int"):
        neardup.find_matches(["fine", 3], ["text"], 0.5)
    with pytest.raises(InputError, match=r"queries\[1\] has no words"):
        neardup.find_matches(["fine", " ... "], ["text"], 0.5)
    with pytest.raises(InputTypeError, match=r"corpus\[4\] is NoneType"):
        neardup.find_matches(["fine"], iter(["a", "b", "c", "d", None]), 0.5, batch_size=2)
    with pytest.raises(InputTypeError, match=r"corpus\[1\] is bytes|corpus\[1\] is float"):
        neardup.find_matches(["fine"], ["a", 1.5], 0.5)
    with pytest.raises(InputTypeError, match="not a single str"):
        neardup.find_matches("one query", ["text"], 0.5)
    for bad in (0, -0.1, 1.5, float("nan")):
        with pytest.raises(InvalidArgumentError, match="threshold"):
            neardup.find_matches(["a b"], ["a b"], bad)
    with pytest.raises(NeardupError, match="threshold"):
        neardup.find_matches(["a b"], ["a b"], "high")
    with pytest.raises(InvalidArgumentError, match="measure must be one of"):
        neardup.find_matches(["a b"], ["a b"], 0.5, measure="cosine")
    with pytest.raises(InvalidArgumentError, match="k must be"):
        neardup.find_matches(["a b"], ["a b"], 0.5, k=0)
    with pytest.raises(InvalidArgumentError, match="batch_size"):
        neardup.find_matches(["a b"], ["a b"], 0.5, batch_size=0)
    with pytest.raises(InputError, match=r"corpus\[1\] is not valid Unicode"):
        neardup.find_matches(["a b"], ["a b", "bad \ud800"], 0.5)


def test_index_query_containment_estimates(tmp_path):
    items, corpus = planted(seed=5, queries=40, docs=80)
    ids = [f"d{j}" for j in range(len(corpus))]
    with neardup.Index(tmp_path / "c.ndx", threshold=0.5) as ix:
        ix.add(ids, corpus)
        found = ix.query(items, measure="containment", threshold=0.8)
        top = ix.query(items, measure="containment", threshold=0.8, k=1)
        with pytest.raises(InvalidArgumentError, match="measure"):
            ix.query(items, measure="overlap")
    exact = {(i, j) for i, j, _ in brute_force(items, corpus, 0.8, "containment")}
    unrelated = {(i, j) for i, j, _ in brute_force(items, corpus, 1e-9, "containment")}
    got = {(i, int(m.id[1:])) for i, ms in enumerate(found) for m in ms}
    assert len(exact) >= 15
    # an estimate from 128 slots: most true pairs, and never a document sharing nothing
    assert len(got & exact) >= 0.5 * len(exact)  # 23 of 33 when written
    assert got <= unrelated
    for ms, best in zip(found, top, strict=True):
        assert best == ms[:1]
        assert all(a.similarity >= b.similarity for a, b in itertools.pairwise(ms))
