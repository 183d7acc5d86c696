"""Random Unicode, random bytes and random arrays thrown at every public function: each call
returns, or raises one of neardup's own exceptions — never a crash, never a builtin error that
escaped (bounded hypothesis runs)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import neardup
from neardup.errors import NeardupError

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)

documents = st.lists(
    st.one_of(
        st.text(max_size=60),
        st.binary(max_size=40),
        st.none(),
        st.integers(),
        st.floats(allow_nan=True),
    ),
    max_size=8,
)
texts = st.lists(st.text(max_size=80), max_size=8)
numbers = st.one_of(
    st.integers(-(2**70), 2**70), st.floats(allow_nan=True), st.none(), st.text(max_size=3)
)


def _arrays():
    dtypes = st.sampled_from([np.uint32, np.uint64, np.int64, np.float32, np.int8])
    shapes = st.one_of(
        st.tuples(st.integers(0, 6)), st.tuples(st.integers(0, 6), st.integers(0, 5))
    )
    return st.builds(
        lambda dtype, shape, seed: (
            np.random.default_rng(seed).integers(-3, 2**31, size=shape).astype(dtype)
        ),
        dtypes,
        shapes,
        st.integers(0, 2**32 - 1),
    )


def _call(function, *args, **kwargs):
    try:
        return function(*args, **kwargs)
    except NeardupError:
        return None


@SETTINGS
@given(documents, st.sampled_from(["auto", "minhash", "simhash", "sha256", "sha256-normalized"]))
def test_find_duplicates_on_any_documents(docs, method):
    result = _call(neardup.find_duplicates, docs, method=method, k=2)
    if result is not None:
        assert len(result.keep) == len(docs)


@SETTINGS
@given(documents, st.integers(1, 6), st.sampled_from([1, 2]), st.sampled_from(["word", "char"]))
def test_text_stages_on_any_documents(docs, k, version, unit):
    _call(neardup.shingles, docs, k=k, unit=unit, hash_version=version)
    _call(neardup.minhash, docs, num_perm=16, k=k, unit=unit, hash_version=version)
    _call(neardup.simhash, docs, k=k, unit=unit, hash_version=version)
    _call(neardup.exact_duplicates, docs, normalized=True)
    _call(neardup.word_counts, docs)


@SETTINGS
@given(st.text(max_size=200), st.sampled_from([1, 2]))
def test_normalize_any_unicode(text, version):
    _call(neardup.normalize, text, hash_version=version)


@SETTINGS
@given(_arrays(), _arrays(), numbers, numbers)
def test_array_stages_on_any_arrays(signatures, pairs, a, b):
    for function, args in [
        (neardup.band_hashes, (signatures, a, b)),
        (neardup.lsh_candidates, (signatures, a, b)),
        (neardup.lsh_candidate_rows, (signatures, a, b)),
        (neardup.lsh_duplicates, (signatures, a, b, 0.5)),
        (neardup.estimate_jaccard, (signatures, pairs)),
        (neardup.hamming, (signatures, pairs)),
        (neardup.hamming_within, (signatures, a)),
        (neardup.clusters, (pairs, a)),
        (neardup.lsh_params, (a, b)),
        (neardup.lsh_threshold, (a, b)),
        (neardup.lsh_probability, (0.5, a, b)),
    ]:
        _call(function, *args)


@SETTINGS
@given(texts, _arrays(), st.floats(allow_nan=True))
def test_set_stages_on_any_pairs(docs, pairs, threshold):
    sets = neardup.shingles(docs, k=2)
    _call(neardup.jaccard, sets, pairs)
    _call(neardup.verify_jaccard, sets, pairs, threshold)
    _call(neardup.all_pairs_jaccard, sets, threshold)
    _call(neardup.strip_boilerplate, sets, threshold)


@pytest.mark.parametrize("bad", [None, 3, 2.5, "text", b"bytes", object()])
def test_find_duplicates_on_non_collections(bad):
    with pytest.raises(NeardupError):
        neardup.find_duplicates(bad)


@pytest.mark.parametrize("huge", [2**32 + 1, 2**63, 2**70])
def test_huge_counts_are_refused_by_name(huge):
    signatures = np.zeros((3, 8), dtype=np.uint32)
    for function, args in [
        (neardup.lsh_threshold, (huge, 1)),
        (neardup.lsh_half_point, (1, huge)),
        (neardup.lsh_params, (0.5, huge)),
        (neardup.band_hashes, (signatures, huge, 1)),
        (neardup.hamming_within, (np.zeros(3, dtype=np.uint64), huge)),
        (neardup.minhash, (["a b c"], huge)),
    ]:
        with pytest.raises(NeardupError):
            function(*args)
