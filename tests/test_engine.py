"""The stages of neardup.engine as plain functions, against brute-force references."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import neardup
from neardup import _core, engine
from neardup.plan import make_plan
from neardup.spill import SetSpill


@st.composite
def groups_and_pairs(draw):
    """A canonical ``first`` array (each document points at its group's first member) and
    near pairs among the first members."""
    n = draw(st.integers(1, 25))
    first = np.arange(n)
    for i in range(1, n):
        if draw(st.booleans()):
            first[i] = first[draw(st.integers(0, i - 1))]
    reps = np.flatnonzero(first == np.arange(n)).tolist()
    chosen = [p for p in itertools.combinations(reps, 2) if draw(st.booleans())]
    return first, np.array(chosen, dtype=np.int64).reshape(-1, 2)


@settings(max_examples=150, deadline=None)
@given(groups_and_pairs())
def test_all_pairs_are_those_of_the_uncollapsed_corpus(case):
    first, pairs = case
    sims = np.linspace(0.3, 0.9, len(pairs)).astype(np.float32)
    got, got_sims = _core.report_pairs(first, pairs, sims, "all")
    near = {tuple(p): s for p, s in zip(pairs.tolist(), sims.tolist(), strict=True)}
    want = {}
    for x, y in itertools.combinations(range(len(first)), 2):
        a, b = sorted((int(first[x]), int(first[y])))
        if a == b:
            want[(x, y)] = 1.0
        elif (a, b) in near:
            want[(x, y)] = near[(a, b)]
    assert [tuple(p) for p in got.tolist()] == sorted(want)
    assert got_sims.tolist() == [np.float32(want[k]) for k in sorted(want)]
    assert _core.all_pairs_count(first, pairs) == len(want)
    spanning, _ = _core.report_pairs(first, pairs, sims, "spanning")
    labels = neardup.clusters(got, len(first))
    np.testing.assert_array_equal(neardup.clusters(spanning, len(first)), labels)
    assert {tuple(p) for p in spanning.tolist()} <= set(want)


def _collapse(texts, method="minhash", batch=None, **options):
    """A run's collapse over batches of ``batch`` documents (all at once: None), and its
    near stage's output (the signatures, with ``verify="estimate"``)."""
    plan = make_plan(method=method, k=2, verify="estimate", **options)
    with SetSpill(2, "word") as spill:
        run = _core.Run(spill.core, plan.as_dict(), budget=1 << 20)
        step = batch or max(1, len(texts))
        for a in range(0, len(texts), step):
            run.sign(texts[a : a + step])
        return {**run.finish(), **run.near(verify_budget=1 << 20)}


def test_collapse_keeps_first_occurrences_and_leaves_empty_documents_alone():
    texts = ["a b c", "", "A b, c!", "", "x y z", "a b c"]
    assert _collapse(texts)["first"].tolist() == [0, 1, 0, 3, 4, 0]
    assert _collapse(texts, "sha256")["first"].tolist() == [0, 1, 2, 1, 4, 0]


def test_collapse_across_batches_matches_one_collapse():
    rng = np.random.default_rng(3)
    texts = [" ".join(rng.choice(list("abcdé"), size=rng.integers(0, 4))) for _ in range(200)]
    lengths = [len(text) for text in texts]
    whole = _collapse(texts, num_perm=4, keep="longest")
    first = whole["first"]
    sets = neardup.shingles(texts, k=2)
    groupable = sets.sizes() > 0
    # against the definition: the lowest position with the same set, if both have shingles
    rows = [sets.hashes[sets.offsets[i] : sets.offsets[i + 1]].tobytes() for i in range(200)]
    for i in range(200):
        same = [j for j in range(i) if groupable[j] and rows[j] == rows[i]]
        same = same if groupable[i] else []
        assert first[i] == (same[0] if same else i)
    # the unique documents with shingles, with their digests and signatures, in order
    selected = np.flatnonzero(groupable & (first == np.arange(200)))
    assert 0 < len(selected) < 100
    for batch in (1, 37, 200):
        batched = _collapse(texts, batch=batch, num_perm=4, keep="longest")
        np.testing.assert_array_equal(batched["first"], first)
        np.testing.assert_array_equal(batched["selected"], selected)
        want = neardup.minhash(sets, num_perm=4)[selected]
        np.testing.assert_array_equal(batched["signatures"], want)
        np.testing.assert_array_equal(batched["lengths"], lengths)
        np.testing.assert_array_equal(batched["empty"], ~groupable)


def test_keep_longest_breaks_ties_by_position():
    keep, rep = engine.keep_mask(np.array([0, 0, 0, 3]), np.array([5, 9, 9, 1]), "longest")
    assert keep.tolist() == [False, True, False, True] and rep.tolist() == [1, 1, 1, 3]


def test_second_pass_over_the_store_gives_what_the_held_sets_give(monkeypatch):
    texts = list(neardup.synth.generate(bases=6, singles=20, seed=5).texts)
    cases = [
        {"method": "minhash", "pairs": "all"},
        {"method": "minhash", "pairs": "spanning"},
        {"method": "simhash"},
    ]
    held = [neardup.find_duplicates(texts, threshold=0.5, **c) for c in cases]
    monkeypatch.setattr(engine, "HOLD_SETS_BUDGET", 0)
    for case, want in zip(cases, held, strict=True):
        got = neardup.find_duplicates(texts, threshold=0.5, **case)
        np.testing.assert_array_equal(got.pairs, want.pairs)
        np.testing.assert_array_equal(got.similarity, want.similarity)
        np.testing.assert_array_equal(got.keep, want.keep)


def test_candidate_bound_counts_bucket_pairs_band_by_band():
    # Signatures with many equal bands (small slot alphabet): the bound is the sum over bands
    # of m(m - 1)/2 per bucket, and stops early once past the limit.
    candidate_bound = _core.lsh_bucket_pairs_bound

    rng = np.random.default_rng(11)
    for n, bands, rows in [(0, 4, 2), (1, 3, 3), (300, 8, 2), (5000, 16, 1)]:
        sig = rng.integers(0, 3, size=(n, bands * rows)).astype(np.uint32)
        want = 0
        for j in range(bands):
            _, counts = np.unique(sig[:, j * rows : (j + 1) * rows], axis=0, return_counts=True)
            want += int((counts * (counts - 1) // 2).sum())
        assert candidate_bound(sig, bands, rows, 2**62) == want
        if want:
            first_band = candidate_bound(sig, bands, rows, 0)
            assert 0 < first_band <= want


def test_sets_held_in_place_across_batches_match_one_batch_and_a_second_pass(monkeypatch):
    # Exact duplicates inside and across batches, so held sets are compacted in the buffer
    # the sign pass wrote them into. A budget of a few thousand hashes: MinHash stops holding
    # and shingles the candidates again; auto (exact Jaccard here) must hold everything, so
    # later batches overflow the buffer's room (their sets come back on their own, and the
    # buffer grows).
    from neardup.plan import make_plan
    from neardup.stores import MemoryStore

    base = list(neardup.synth.generate(bases=8, singles=30, seed=9).texts)
    texts = [t for i, t in enumerate(base) for _ in range(1 + (i % 3 == 0))]
    for method in ["minhash", "auto"]:
        plan = make_plan(method=method, threshold=0.5)
        want = engine.run(plan, MemoryStore(texts))
        assert want.evidence.sets is not None and want.info["exact_duplicates"] > 0
        for batch_size, budget in [(7, engine.HOLD_SETS_BUDGET), (5, 3000), (4, 0)]:
            monkeypatch.setattr(engine, "HOLD_SETS_BUDGET", budget)
            got = engine.run(plan, MemoryStore(texts, batch_size=batch_size))
            monkeypatch.undo()
            np.testing.assert_array_equal(got.pairs, want.pairs)
            np.testing.assert_array_equal(got.similarity, want.similarity)
            np.testing.assert_array_equal(got.keep, want.keep)
            if budget > 10**6 or method == "auto":
                held = got.evidence.sets
                assert held is not None
                np.testing.assert_array_equal(held.offsets, want.evidence.sets.offsets)
                np.testing.assert_array_equal(held.hashes, want.evidence.sets.hashes)


def test_a_run_without_reported_pairs_keeps_the_same_documents():
    """``report=False`` (paragraph near mode) skips the pairs, never the decisions."""
    from neardup import synth
    from neardup.engine import run
    from neardup.plan import make_plan
    from neardup.stores import MemoryStore

    texts = list(synth.generate(bases=60, singles=100, seed=3).texts)
    texts += texts[:50]
    plan = make_plan(method="minhash", threshold=0.5, k=3)
    full, bare = run(plan, MemoryStore(texts)), run(plan, MemoryStore(texts), report=False)
    assert (full.keep == bare.keep).all() and (full.labels == bare.labels).all()
    assert len(full.pairs) > 0 and len(bare.pairs) == 0 and bare.info["pairs_reported"] == 0
