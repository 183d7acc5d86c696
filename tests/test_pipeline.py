"""find_duplicates and the stage functions on small corpora with known duplicates."""

import pickle

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import neardup

import reference as ref


def make_corpus(
    seed: int = 1, originals: int = 40, unrelated: int = 40
) -> tuple[list[str], list[int]]:
    """Originals with a near copy each (a few words changed) plus unrelated documents."""
    rng = np.random.default_rng(seed)
    vocabulary = [f"w{i}" for i in range(3000)]
    texts, group = [], []
    for g in range(originals):
        words = list(rng.choice(vocabulary, size=120))
        texts.append(" ".join(words))
        group.append(g)
        for position in rng.choice(120, size=3, replace=False):
            words[position] = str(rng.choice(vocabulary))
        texts.append(" ".join(words).upper())
        group.append(g)
    for i in range(unrelated):
        texts.append(" ".join(rng.choice(vocabulary, size=120)))
        group.append(-1 - i)
    return texts, group


TEXTS, GROUP = make_corpus()
TRUE_PAIRS = sorted(
    (i, j) for i in range(len(TEXTS)) for j in range(i + 1, len(TEXTS)) if GROUP[i] == GROUP[j]
)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"method": "exact-jaccard"},
        {"method": "minhash"},
        {"method": "minhash", "verify": "estimate"},
        {"method": "minhash", "threads": 2},
        {"method": "simhash"},
        {"method": "simhash", "simhash_bits": 128},
        {"method": "auto"},
    ],
)
def test_every_method_finds_the_planted_pairs(kwargs):
    result = neardup.find_duplicates(TEXTS, threshold=0.5, **kwargs)
    assert [tuple(p) for p in result.pairs.tolist()] == TRUE_PAIRS
    assert result.pairs.dtype == np.int64 and result.similarity.dtype == np.float32
    assert result.clusters.tolist() == ref.connected_components(TRUE_PAIRS, len(TEXTS))
    assert result.keep.tolist() == [GROUP[i] < 0 or i % 2 == 0 for i in range(len(TEXTS))]
    assert result.num_removed == 40 and result.num_clusters == 40


def test_exact_verification_reports_exact_jaccard():
    sets = neardup.shingles(TEXTS)
    result = neardup.find_duplicates(TEXTS, threshold=0.5, method="minhash")
    np.testing.assert_array_equal(result.similarity, neardup.jaccard(sets, result.pairs))
    brute = neardup.find_duplicates(TEXTS, threshold=0.5, method="exact-jaccard")
    np.testing.assert_array_equal(result.similarity, brute.similarity)


@pytest.mark.parametrize("method", ["minhash", "simhash"])
@pytest.mark.parametrize("pairs", ["all", "spanning"])
def test_exact_verification_shingles_only_candidates_and_loses_nothing(method, pairs):
    # Exact verification builds the shingle sets of candidate documents only; the result must
    # equal verifying every candidate against the sets of all documents.
    texts, _ = make_corpus(seed=3, originals=60, unrelated=200)
    texts = [*texts, "", "short"]
    result = neardup.find_duplicates(texts, threshold=0.4, method=method, pairs=pairs)
    sets = neardup.shingles(texts)
    np.testing.assert_array_equal(result.similarity, neardup.jaccard(sets, result.pairs))
    assert (result.similarity >= 0.4).all()
    if method == "minhash" and pairs == "all":
        candidates = neardup.lsh_candidates(
            neardup.minhash(texts), result.params["bands"], result.params["rows"]
        )
        similarity = neardup.jaccard(sets, candidates)
        np.testing.assert_array_equal(result.pairs, candidates[similarity >= 0.4])


def test_verify_jaccard_keeps_the_given_order_and_checks_its_arguments():
    sets = neardup.shingles(["a b c", "a b d", "a b c"], k=1)
    pairs, similarity = neardup.verify_jaccard(sets, [[2, 0], [1, 0], [0, 2]], 0.5)
    assert pairs.tolist() == [[2, 0], [1, 0], [0, 2]]
    assert similarity.tolist() == [1.0, 0.5, 1.0]
    with pytest.raises(ValueError, match="threshold"):
        neardup.verify_jaccard(sets, [[0, 1]], 0.0)
    with pytest.raises(ValueError, match="out of range"):
        neardup.verify_jaccard(sets, [[0, 3]], 0.5)
    with pytest.raises(TypeError, match="ShingleSets"):
        neardup.verify_jaccard([[1, 2]], [[0, 1]], 0.5)


def test_shingles_only_takes_a_boolean_mask_of_every_document():
    with pytest.raises(TypeError, match="boolean mask"):
        neardup.shingles(["a b", "c d"], only=[0, 1])
    with pytest.raises(ValueError, match="2 documents"):
        neardup.shingles(["a b", "c d"], only=[True])


def test_sha256_methods():
    texts = ["Same text.", "same   TEXT", "Same text.", "other"]
    assert neardup.find_duplicates(texts, method="sha256").pairs.tolist() == [[0, 2]]
    normalized = neardup.find_duplicates(texts, method="sha256-normalized")
    assert normalized.pairs.tolist() == [[0, 1], [0, 2], [1, 2]]
    assert normalized.clusters.tolist() == [0, 0, 0, 3]


def test_minhash_recall_tracks_exact_jaccard_on_a_larger_corpus():
    texts, _ = make_corpus(seed=5, originals=300, unrelated=300)
    exact = neardup.find_duplicates(texts, threshold=0.3, method="exact-jaccard")
    lsh = neardup.find_duplicates(texts, threshold=0.3, method="minhash")
    found = {tuple(p) for p in lsh.pairs.tolist()}
    truth = {tuple(p) for p in exact.pairs.tolist()}
    assert found <= truth  # exact verification: no false positives
    assert len(found) / len(truth) >= 0.99


@pytest.mark.parametrize(
    "convert",
    [
        lambda t: np.array(t),
        lambda t: np.array(t, dtype=object),
        lambda t: tuple(t),
        lambda t: iter(t),
        lambda t: pa.array(t),
        lambda t: pa.array(t, type=pa.large_string()),
        lambda t: pa.chunked_array([t[:10], t[10:]]),
        lambda t: pa.array(["skip", *t])[1:],
    ],
)
def test_input_containers_give_identical_results(convert):
    want = neardup.minhash(TEXTS, num_perm=32)
    np.testing.assert_array_equal(neardup.minhash(convert(TEXTS), num_perm=32), want)
    np.testing.assert_array_equal(
        neardup.exact_duplicates(convert(TEXTS)), neardup.exact_duplicates(TEXTS)
    )


def test_pandas_series_and_arrow_nulls():
    pd = pytest.importorskip("pandas")
    np.testing.assert_array_equal(neardup.simhash(pd.Series(TEXTS)), neardup.simhash(TEXTS))
    with pytest.raises(TypeError, match=r"texts\[1\] is null"):
        neardup.minhash(pa.array(["a", None, "b"]))


def test_batched_iterables_match_lists(monkeypatch):
    monkeypatch.setattr(neardup.stages, "BATCH_SIZE", 7)
    np.testing.assert_array_equal(
        neardup.minhash(iter(TEXTS), num_perm=16), neardup.minhash(TEXTS, num_perm=16)
    )
    np.testing.assert_array_equal(neardup.simhash(iter(TEXTS)), neardup.simhash(TEXTS))


def test_threads_do_not_change_results():
    many = TEXTS * 20
    np.testing.assert_array_equal(
        neardup.minhash(many, threads=2), neardup.minhash(many, threads=1)
    )
    np.testing.assert_array_equal(
        neardup.simhash(many, bits=128, threads=2), neardup.simhash(many, bits=128)
    )


def test_signatures_from_texts_and_from_shingle_sets_agree():
    sets = neardup.shingles(TEXTS, k=3)
    np.testing.assert_array_equal(neardup.minhash(sets), neardup.minhash(TEXTS, k=3))
    np.testing.assert_array_equal(
        neardup.simhash(sets, bits=128), neardup.simhash(TEXTS, k=3, bits=128)
    )


def test_stage_by_stage_equals_find_duplicates():
    sig = neardup.minhash(TEXTS)
    bands, rows = neardup.lsh_params(0.5, 128)
    candidates = neardup.lsh_candidates(sig, bands, rows)
    keys = neardup.band_hashes(sig, bands, rows)
    # A candidate pair shares a band key; a non-candidate shares none.
    shares = (keys[candidates[:, 0]] == keys[candidates[:, 1]]).any(axis=1)
    assert shares.all()
    estimate = neardup.estimate_jaccard(sig, candidates)
    kept = candidates[estimate >= 0.5]
    result = neardup.find_duplicates(TEXTS, threshold=0.5, method="minhash", verify="estimate")
    np.testing.assert_array_equal(result.pairs, kept)


def test_hamming_and_simhash_radius():
    fp = neardup.simhash(TEXTS)
    pairs = np.array(TRUE_PAIRS[:5])
    distances = neardup.hamming(fp, pairs)
    want = [bin(int(fp[i, 0]) ^ int(fp[j, 0])).count("1") for i, j in TRUE_PAIRS[:5]]
    assert distances.tolist() == want
    assert neardup.simhash_max_hamming(1.0, 64) == 0
    assert neardup.simhash_max_hamming(0.3, 64) == 22


def test_result_to_pandas_and_repr():
    pytest.importorskip("pandas")
    result = neardup.find_duplicates(TEXTS, threshold=0.5)
    frame = result.to_pandas()
    assert list(frame.columns) == ["i", "j", "similarity"]
    assert len(frame) == len(result.pairs)
    assert "pairs=40" in repr(result) and "removed=40" in repr(result)


@pytest.mark.parametrize("method", ["minhash", "sha256"])
def test_spanning_pairs_give_the_same_clusters_with_fewer_pairs(method):
    texts = TEXTS + [TEXTS[0]] * 5
    every = neardup.find_duplicates(texts, threshold=0.5, method=method)
    spanning = neardup.find_duplicates(texts, threshold=0.5, method=method, pairs="spanning")
    np.testing.assert_array_equal(spanning.clusters, every.clusters)
    assert len(spanning.pairs) == len(texts) - len(np.unique(every.clusters))
    assert {tuple(p) for p in spanning.pairs.tolist()} <= {tuple(p) for p in every.pairs.tolist()}


def test_a_giant_bucket_of_identical_documents_stays_linear():
    texts = ["exactly the same boilerplate page, over and over again"] * 10_000 + TEXTS
    result = neardup.find_duplicates(texts, threshold=0.5, method="minhash", pairs="spanning")
    assert len(result.pairs) == 9_999 + 40  # a spanning tree of the copies + the planted pairs
    assert np.all(result.clusters[:10_000] == 0)
    assert result.num_removed == 9_999 + 40


@pytest.mark.parametrize("method", ["auto", "minhash"])
def test_default_pairs_switch_to_spanning_on_a_giant_cluster(method):
    # Issue 9 item 10: pairs="auto" (the default) answers with spanning pairs once all pairs
    # would pass spanning_limit; the clusters and the kept documents stay the same.
    copies = ["exactly the same page, over and over again, word for word"] * 300
    near = [f"{' '.join(f'w{i}' for i in range(60))} tail{j}" for j in range(60)]
    texts = copies + near + TEXTS
    every = neardup.find_duplicates(texts, threshold=0.5, method=method, pairs="all")
    assert every.params["pairs_used"] == "all"
    assert len(every.pairs) >= 300 * 299 // 2 + 60 * 59 // 2
    guarded = neardup.find_duplicates(texts, threshold=0.5, method=method, spanning_limit=2_000)
    assert guarded.params["pairs_used"] == "spanning" and guarded.params["pairs_reason"]
    np.testing.assert_array_equal(guarded.clusters, every.clusters)
    np.testing.assert_array_equal(guarded.keep, every.keep)
    assert len(guarded.pairs) < 300 + 60 * 59 // 2 + 40
    assert {tuple(p) for p in guarded.pairs.tolist()} <= {tuple(p) for p in every.pairs.tolist()}
    below = neardup.find_duplicates(texts, threshold=0.5, method=method, spanning_limit=10**6)
    assert below.params["pairs_used"] == "all" and len(below.pairs) == len(every.pairs)


def test_pairs_all_refuses_an_output_it_cannot_hold(monkeypatch):
    monkeypatch.setattr(neardup.engine, "MAX_REPORTED_PAIRS", 1_000)
    with pytest.raises(neardup.errors.ResourceError, match="pairs='spanning'"):
        neardup.find_duplicates(["one two three four five six"] * 100, pairs="all")


def test_keep_longest_and_params_report_the_plan_and_the_run():
    texts = ["a b c d e f g", "A b c d e f g, and more words here", "x y z"]
    result = neardup.find_duplicates(texts, threshold=0.3, k=2, keep="longest")
    assert result.keep.tolist() == [False, True, True]
    assert result.clusters.tolist() == [0, 0, 2]  # labels stay the lowest index
    params = result.params
    assert params["keep"] == "longest" and params["requested_method"] == "auto"
    assert params["method"] == "exact-jaccard" and params["unique"] == 3
    assert {"pairs_used", "candidates", "exact_duplicates", "pairs_reported"} <= params.keys()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=40), min_size=1, max_size=8))
def test_keep_longest_counts_characters_as_python_does(texts):
    # The sign pass counts each document's characters in the crate (code points, astral ones
    # once): the same numbers as len(), for a list and for Arrow buffers alike.
    texts = ["".join(c for c in t if not 0xD800 <= ord(c) <= 0xDFFF) for t in texts]
    expected = [len(t) for t in texts]
    assert neardup.stores.char_lengths(texts).tolist() == expected
    assert neardup.stores.char_lengths(pa.array(texts)).tolist() == expected


def test_keep_longest_keeps_the_document_with_the_most_characters_not_bytes():
    common = "alpha beta gamma delta epsilon zeta eta theta"
    more_bytes = common + " 日本語日本語日本語"  # 10 more characters, 28 more bytes
    more_chars = common + " abcdefghijkl"  # 13 more characters, 13 more bytes
    result = neardup.find_duplicates([more_bytes, more_chars], threshold=0.5, k=1, keep="longest")
    assert result.clusters.tolist() == [0, 0]
    assert result.keep.tolist() == [False, True]


def test_kept_similarity_is_computed_on_first_read(monkeypatch):
    from neardup import engine

    texts = ["a b c d e", "a b c d f", "a b c d e", "v w x y z", "a b c x y"]
    calls = []
    eager = engine.kept_similarity

    def spy(*args):
        calls.append(1)
        return eager(*args)

    monkeypatch.setattr(engine, "kept_similarity", spy)
    result = neardup.find_duplicates(texts, k=2, threshold=0.3)
    assert calls == []  # nothing computed by the search itself
    first, evidence = result._evidence
    want = eager(first, result.keep, result.representative, evidence)
    np.testing.assert_array_equal(result.kept_similarity, want)
    assert result.kept_similarity is result.kept_similarity and calls == [1]  # once, kept
    assert (result.kept_similarity[result.keep] == 1.0).all()
    # taken along by pickling before or after the first read
    again = pickle.loads(pickle.dumps(neardup.find_duplicates(texts, k=2, threshold=0.3)))
    np.testing.assert_array_equal(again.kept_similarity, want)
    # given when built: kept as given; unknown (NaN) for near-duplicates of a hand-built one
    clusters = np.array([0, 0, 2])
    empty = (np.zeros((0, 2), np.int64), np.zeros(0, np.float32))
    given = neardup.DuplicateResult(
        *empty, clusters, "minhash", 0.5, kept_similarity=np.array([1.0, 0.7, 1.0])
    )
    assert given.kept_similarity.tolist() == [1.0, 0.7, 1.0]
    by_hand = neardup.DuplicateResult(*empty, clusters, "minhash", 0.5)
    assert np.isnan(by_hand.kept_similarity[1]) and by_hand.kept_similarity[0] == 1.0
