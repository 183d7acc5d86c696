"""After the pass, in the crate (rust/report.rs, keep.rs, cluster.rs through
``neardup._core``): reported pairs, their count, cluster labels, the keep policy and the pairs
sharing a label, against the pure-Python definitions of ``tests/reference.py``."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import neardup
from neardup import _core
from neardup.keep import keep_mask

import reference as ref


@st.composite
def groups_and_near_pairs(draw):
    """(first, near pairs, similarity): a canonical ``first`` (each document points at its
    group's first member) and distinct near pairs among the first members, either way round."""
    n = draw(st.integers(0, 30))
    first = np.arange(n, dtype=np.int64)
    for i in range(1, n):
        if draw(st.booleans()):
            first[i] = first[draw(st.integers(0, i - 1))]
    roots = np.flatnonzero(first == np.arange(n)).tolist()
    chosen = [p for p in itertools.combinations(roots, 2) if draw(st.integers(0, 3)) == 0]
    chosen = draw(st.permutations(chosen))
    pairs = [(b, a) if draw(st.booleans()) else (a, b) for a, b in chosen]
    sims = draw(
        st.lists(
            st.floats(0, 1, width=32, allow_nan=False), min_size=len(pairs), max_size=len(pairs)
        )
    )
    return first, np.array(pairs, np.int64).reshape(-1, 2), np.array(sims, np.float32)


@settings(max_examples=300, deadline=None)
@given(groups_and_near_pairs(), st.sampled_from(["all", "spanning"]))
def test_reported_pairs_are_the_definitions(case, mode):
    first, pairs, sims = case
    got, got_sims = _core.report_pairs(first, pairs, sims, mode)
    want = ref.reported_pairs(first.tolist(), [tuple(p) for p in pairs.tolist()], sims, mode)
    assert got.dtype == np.int64 and got.shape == (len(want), 2)
    assert got_sims.dtype == np.float32
    assert [(i, j, s) for (i, j), s in zip(got.tolist(), got_sims, strict=True)] == want
    if mode == "all":
        assert _core.all_pairs_count(first, pairs) == len(want)


@settings(max_examples=200, deadline=None)
@given(groups_and_near_pairs(), st.data())
def test_cluster_labels_are_the_components(case, data):
    first, _, _ = case
    roots = np.flatnonzero(first == np.arange(len(first)))
    selected = np.array(
        sorted(data.draw(st.sets(st.sampled_from(roots.tolist())))) if len(roots) else [], np.int64
    )
    local = (
        data.draw(st.lists(st.tuples(*[st.integers(0, len(selected) - 1)] * 2), max_size=8))
        if len(selected)
        else []
    )
    local = np.array(local, np.int64).reshape(-1, 2)
    got = _core.cluster_labels(first, selected, local)
    want = ref.cluster_labels(first.tolist(), selected.tolist(), [tuple(p) for p in local.tolist()])
    assert got.dtype == np.int64 and got.tolist() == want


MEASURES = {
    "int64": st.integers(-(2**63), 2**63 - 1),
    "uint64": st.integers(0, 2**64 - 1),
    "float64": st.sampled_from([-0.0, 0.0, 1.5, -2.0, 1e300, float("inf")]),
    "object": st.sampled_from([2**64 + 1, 2**64, 2.0**64, -(2**70), 0.5]),
}


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 6), min_size=0, max_size=30),
    st.sampled_from(sorted(MEASURES)),
    st.sampled_from(["first", "longest", "priority"]),
    st.data(),
)
def test_keep_mask_is_the_definition(raw, kind, policy, data):
    labels = np.array([raw.index(x) for x in raw], dtype=np.int64)  # lowest position
    values = data.draw(st.lists(MEASURES[kind], min_size=len(raw), max_size=len(raw)))
    measure = np.empty(len(values), dtype=object)
    measure[:] = values
    if kind != "object":
        measure = measure.astype(kind)
    keep, rep = keep_mask(labels, measure, policy)
    want_keep, want_rep = ref.keep_mask(labels.tolist(), None if policy == "first" else values)
    assert keep.dtype == np.bool_ and rep.dtype == np.int64
    assert keep.tolist() == want_keep and rep.tolist() == want_rep


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-3, 3) | st.just(2**63 - 1), max_size=30))
def test_pairs_within_groups_of_labels(labels):
    got = neardup.pairs_within_groups(np.array(labels, dtype=np.int64))
    want = [
        (i, j) for i, j in itertools.combinations(range(len(labels)), 2) if labels[i] == labels[j]
    ]
    assert got.dtype == np.int64 and [tuple(p) for p in got.tolist()] == want
    unsigned = neardup.pairs_within_groups(np.array(labels, dtype=np.int64).astype(np.uint64))
    np.testing.assert_array_equal(unsigned, got)
