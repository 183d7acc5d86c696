"""Bad input gets a clear error naming the argument (and the document index), or a documented
behaviour; nothing is dropped silently."""

import numpy as np
import pytest
from bad_input_core import ROWS as CORE_ROWS
from bad_input_core import UNSORTED

import neardup

GOOD = ["alpha beta gamma delta epsilon", "alpha beta gamma delta zeta"]


@pytest.mark.parametrize("bad", [None, 3, float("nan"), ["x"]])
@pytest.mark.parametrize(
    "call",
    [
        lambda t: neardup.minhash(t),
        lambda t: neardup.simhash(t),
        lambda t: neardup.shingles(t),
        lambda t: neardup.exact_duplicates(t),
        lambda t: neardup.find_duplicates(t),
    ],
)
def test_non_str_items_are_type_errors_naming_the_index(call, bad):
    with pytest.raises(TypeError, match=r"texts\[2\]"):
        call([*GOOD, bad])


def test_bytes_are_decoded_as_utf8_or_rejected_with_the_index():
    as_bytes = [t.encode() for t in GOOD]
    np.testing.assert_array_equal(neardup.minhash(as_bytes), neardup.minhash(GOOD))
    with pytest.raises(ValueError, match=r"texts\[1\] is not valid UTF-8"):
        neardup.minhash([b"fine", b"\xff\xfe broken"])


def test_lone_surrogates_are_value_errors_naming_the_index():
    with pytest.raises(ValueError, match=r"texts\[1\]"):
        neardup.minhash(["ok", "bad \udc80 text"])
    with pytest.raises(ValueError, match="surrogate"):
        neardup.normalize("bad \udc80")


def test_errors_in_batched_iterables_name_the_index_in_the_whole_stream(monkeypatch):
    monkeypatch.setattr(neardup.stages, "BATCH_SIZE", 2)
    stream = iter(["a", "b", "c", "d", None])
    with pytest.raises(TypeError, match=r"texts\[4\]"):
        neardup.minhash(stream)
    stream = iter(["a", "b", "c", "bad \udc80"])
    with pytest.raises(ValueError, match=r"texts\[3\]"):
        neardup.minhash(stream)


def test_a_single_string_is_not_a_corpus():
    with pytest.raises(TypeError, match="not a single str"):
        neardup.minhash("one document")


@pytest.mark.parametrize("threshold", [0, -0.1, 1.01, float("nan"), 2])
def test_threshold_outside_zero_one(threshold):
    with pytest.raises(ValueError, match="threshold"):
        neardup.find_duplicates(GOOD, threshold=threshold)
    with pytest.raises(ValueError, match="threshold"):
        neardup.lsh_params(threshold, 128)
    with pytest.raises(ValueError, match="threshold"):
        neardup.all_pairs_jaccard(neardup.shingles(GOOD), threshold)


def test_threshold_one_is_allowed():
    result = neardup.find_duplicates([GOOD[0], GOOD[0], GOOD[1]], threshold=1.0)
    assert result.pairs.tolist() == [[0, 1]]


def test_bands_times_rows_beyond_num_perm():
    sig = neardup.minhash(GOOD, num_perm=16)
    with pytest.raises(ValueError, match="bands \\* rows"):
        neardup.lsh_candidates(sig, 5, 4)
    with pytest.raises(ValueError, match="bands \\* rows"):
        neardup.band_hashes(sig, 17, 1)
    with pytest.raises(ValueError, match="bands \\* rows"):
        neardup.find_duplicates(GOOD, method="minhash", num_perm=16, bands=8, rows=3)
    with pytest.raises(ValueError, match="bands and rows"):
        neardup.find_duplicates(GOOD, method="minhash", bands=8)


@pytest.mark.parametrize("name", ["num_perm", "k"])
@pytest.mark.parametrize("value", [0, -3])
def test_num_perm_and_k_below_one(name, value):
    with pytest.raises(ValueError, match=name):
        neardup.minhash(GOOD, **{name: value})


def test_other_parameters():
    with pytest.raises(ValueError, match="bits"):
        neardup.simhash(GOOD, bits=32)
    with pytest.raises(ValueError, match="weights"):
        neardup.simhash(GOOD, weights="idf")
    with pytest.raises(ValueError, match="tf"):
        neardup.simhash(neardup.shingles(GOOD), weights="tf")
    with pytest.raises(ValueError, match="unit"):
        neardup.shingles(GOOD, unit="sentence")
    with pytest.raises(ValueError, match="seed"):
        neardup.minhash(GOOD, seed=-1)
    with pytest.raises(ValueError, match="threads"):
        neardup.minhash(GOOD, threads=0)
    with pytest.raises(ValueError, match="method"):
        neardup.find_duplicates(GOOD, method="bloom")
    with pytest.raises(ValueError, match="verify"):
        neardup.find_duplicates(GOOD, verify="maybe")


@pytest.mark.parametrize(
    "signatures",
    [
        np.zeros((2, 8), dtype=np.int64),
        np.zeros((2, 8), dtype=np.float32),
        np.zeros(8, dtype=np.uint32),
        np.zeros((2, 2, 2), dtype=np.uint32),
        np.zeros((2, 0), dtype=np.uint32),
    ],
)
def test_signatures_of_the_wrong_dtype_or_shape(signatures):
    with pytest.raises(ValueError, match="signatures"):
        neardup.lsh_candidates(signatures, 2, 2)
    with pytest.raises(ValueError, match="signatures"):
        neardup.estimate_jaccard(signatures, [[0, 1]])


def test_non_contiguous_signatures_are_copied_not_rejected():
    sig = neardup.minhash(GOOD * 2, num_perm=32)
    view = sig[::2]
    assert not view.flags.c_contiguous
    np.testing.assert_array_equal(
        neardup.band_hashes(view, 8, 4), neardup.band_hashes(np.ascontiguousarray(view), 8, 4)
    )
    fortran = np.asfortranarray(sig)
    np.testing.assert_array_equal(
        neardup.lsh_candidates(fortran, 8, 4), neardup.lsh_candidates(sig, 8, 4)
    )


def test_pairs_out_of_range_or_misshapen():
    sig = neardup.minhash(GOOD)
    with pytest.raises(ValueError, match=r"pairs\[1\]"):
        neardup.estimate_jaccard(sig, [[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="pairs"):
        neardup.estimate_jaccard(sig, [[0, 1, 1]])
    with pytest.raises(ValueError, match="pairs"):
        neardup.estimate_jaccard(sig, [[0.0, 1.0]])
    with pytest.raises(ValueError, match=r"pairs\[0\]"):
        neardup.clusters([[0, 5]], 3)
    with pytest.raises(ValueError, match="fingerprints"):
        neardup.hamming(np.zeros((2, 3), dtype=np.uint64), [[0, 1]])


def test_shinglesets_are_validated():
    with pytest.raises(ValueError, match="offsets"):
        neardup.ShingleSets(np.array([0, 3, 2], dtype=np.int64), np.zeros(2, dtype=np.uint64))
    with pytest.raises(ValueError, match="hashes"):
        neardup.ShingleSets(np.array([0, 2], dtype=np.int64), np.zeros(2, dtype=np.int64))
    with pytest.raises(TypeError, match="ShingleSets"):
        neardup.jaccard([[1, 2]], [[0, 1]])


def test_empty_input_gives_empty_correctly_shaped_outputs():
    assert neardup.minhash([], num_perm=16).shape == (0, 16)
    assert neardup.minhash(iter([]), num_perm=16).shape == (0, 16)
    assert neardup.simhash([], bits=128).shape == (0, 2)
    assert len(neardup.shingles([])) == 0
    sig = np.zeros((0, 16), dtype=np.uint32)
    assert neardup.band_hashes(sig, 4, 4).shape == (0, 4)
    assert neardup.lsh_candidates(sig, 4, 4).shape == (0, 2)
    assert neardup.estimate_jaccard(sig, np.zeros((0, 2), dtype=np.int64)).shape == (0,)
    assert neardup.exact_duplicates([]).shape == (0,)
    assert neardup.clusters(np.zeros((0, 2), dtype=np.int64), 0).shape == (0,)
    for method in ("exact-jaccard", "minhash", "simhash", "sha256"):
        result = neardup.find_duplicates([], method=method)
        assert result.pairs.shape == (0, 2) and result.pairs.dtype == np.int64
        assert result.similarity.shape == (0,) and result.clusters.shape == (0,)
        assert result.keep.shape == (0,)


def test_empty_and_short_documents_have_documented_behaviour():
    texts = ["", "   \n\t ", "...", "", "two words", "two words"]
    sets = neardup.shingles(texts, k=5)
    assert sets.sizes().tolist() == [0, 0, 0, 0, 1, 1]  # short documents are one shingle
    for method in ("exact-jaccard", "minhash", "simhash"):
        result = neardup.find_duplicates(texts, method=method, k=5)
        # Empty documents are never near-duplicates; the two short ones are.
        assert result.pairs.tolist() == [[4, 5]], method
    # SHA-256 still groups identical empty documents.
    assert neardup.find_duplicates(texts, method="sha256").pairs.tolist() == [[0, 3], [4, 5]]


def test_core_rows_are_in_the_matrix():
    # tests/test_bad_input.py runs every row of tests/bad_input_core.py; it must find them.
    assert len(CORE_ROWS) >= 25
    assert all(row.raises is not None and row.match for row in CORE_ROWS)


def test_core_error_kinds_map_to_the_builtins_callers_expect():
    # The kinds keep deriving from the builtin a caller would catch.
    with pytest.raises(MemoryError):
        neardup.minhash(GOOD, num_perm=2**40)
    with pytest.raises(ValueError):
        neardup.jaccard(UNSORTED, [[0, 1]])
    with pytest.raises(TypeError):
        neardup._core.word_counts(["a", None], 2)


def test_sorted_hand_built_sets_still_give_the_exact_jaccard():
    sets = neardup.ShingleSets(
        np.array([0, 3, 5], dtype=np.int64), np.array([10, 20, 30, 20, 40], dtype=np.uint64)
    )
    assert neardup.jaccard(sets, [[0, 1]]).tolist() == [0.25]
