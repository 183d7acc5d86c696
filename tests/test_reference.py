"""The Rust core against the pure-Python reference, on generated inputs (Unicode included)."""

import unicodedata

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import neardup

import reference as ref

# Letters, digits, punctuation, spaces and control characters. Combining marks and symbols are
# left out: Rust's Alphabetic property counts some of them (e.g. Devanagari vowel signs, circled
# letters) where Python's isalnum does not, so the reference cannot judge them; see
# test_unicode_marks_stay_inside_words for what the core does with them.
characters = st.characters(
    categories=[
        "Lu",
        "Ll",
        "Lt",
        "Lm",
        "Lo",
        "Nd",
        "Nl",
        "No",
        "Pc",
        "Pd",
        "Ps",
        "Pe",
        "Po",
        "Zs",
        "Cc",
    ],
)
ascii_words = st.text(alphabet="abcXYZ019 ,.!\n\t-'", max_size=80)
texts = st.one_of(st.text(alphabet=characters, max_size=60), ascii_words)
text_lists = st.lists(texts, min_size=0, max_size=12)

# Hash version 2 counts combining marks as word characters, so they join the alphabet, and so
# do format characters (Cf: the default ignorable ones are removed, the others separate); the
# text comes in every normalisation form, with CJK, kana, Thai, Vietnamese, full-width forms,
# letters whose case folding differs from their lowercase, final sigma and default ignorable
# characters between letters mixed in (symbols stay out for the reason above). The core's
# Unicode data is version 16.0.0, Python 3.11's unicodedata is 14.0.0: `st.characters` draws
# from the characters Python knows, so only characters assigned in Unicode 14 appear, and for
# those NFKC and case folding are stable (Unicode's stability policies) and the default
# ignorable ones are the same.
characters_v2 = st.characters(
    categories=[
        "Lu",
        "Ll",
        "Lt",
        "Lm",
        "Lo",
        "Mn",
        "Mc",
        "Me",
        "Nd",
        "Nl",
        "No",
        "Pd",
        "Po",
        "Zs",
        "Cf",
    ]
)
scripts = st.sampled_from(
    [
        *"日本語の中文字テキストカタカナひらがなภาษาไทยที่นี่Tiếng Việt ＡＢＣ１２ｶﾀ ﬁ é,.!。、 ",
        *"ßẞΣσςİıﬃÅǅⅫᎠꭰ\u0345ᾳΐ\u00ad\u200b\u200c\u200d\u2060\ufe0f\ufeff\u034f\u3164",
        "ΟΔΟΣ",
        "STRASSE",
        "e\u0301",
        "\u0301",
        "a\u0323\u0302",
        "\u0e35\u0e48",
        "ﾞ",
        "\U000e0100",
    ]
)
raw_v2 = st.one_of(
    st.text(alphabet=characters_v2, max_size=40),
    st.lists(scripts, max_size=30).map("".join),
    ascii_words,
)
texts_v2 = st.tuples(raw_v2, st.sampled_from(["NFC", "NFD", "NFKD", None])).map(
    lambda t: unicodedata.normalize(t[1], t[0]) if t[1] else t[0]
)
text_lists_v2 = st.lists(texts_v2, min_size=0, max_size=8)
TEXTS = {1: texts, 2: texts_v2}
TEXT_LISTS = {1: text_lists, 2: text_lists_v2}
both_versions = pytest.mark.parametrize("version", [1, 2])


@both_versions
def test_normalize_matches_reference(version):
    @given(TEXTS[version])
    def check(text):
        assert neardup.normalize(text, hash_version=version) == ref.normalize(text, version)

    check()


@both_versions
def test_shingle_sets_match_reference(version):
    @given(TEXTS[version], st.integers(1, 6), st.sampled_from(["word", "char"]))
    def check(text, k, unit):
        sets = neardup.shingles([text], k=k, unit=unit, hash_version=version)
        assert sets[0].tolist() == ref.shingle_set(text, k, unit, version)
        assert sets.hash_version == version

    check()


# Long ASCII stretches with other text between them: the core cuts such documents into
# pieces (ASCII ones hashed by the ASCII paths), which must give the whole text's shingles;
# "<" and "=" before U+0338 compose under NFKC, so they test the cuts beside separators.
long_ascii = st.text(alphabet="abcXYZ019 ,.!\n\t-'<=", min_size=30, max_size=160)
mixed_v2 = st.lists(st.one_of(long_ascii, texts_v2, st.just("\u0338")), max_size=10).map("".join)


@given(mixed_v2, st.integers(1, 5))
@settings(max_examples=300)
def test_mostly_ascii_text_with_other_characters_matches_reference(text, k):
    sets = neardup.shingles([text], k=k)
    assert sets[0].tolist() == ref.shingle_set(text, k, "word", 2)
    sig = neardup.minhash([text], num_perm=8, k=k)
    assert sig[0].tolist() == ref.minhash(ref.shingle_set(text, k, "word", 2), 8, 0)


@given(raw_v2, st.integers(1, 5), st.sampled_from(["word", "char"]))
# A half-width voiced sound mark after U+0345: a combining mark only under NFKD, where it
# goes before U+0345 (which folds to the letter iota); NFD alone kept the forms apart.
@example("\u0345\uff9e", 1, "word")
@example("\u0345\uff9e", 1, "char")
def test_every_normalisation_form_gives_the_same_version_2_shingles(text, k, unit):
    forms = [unicodedata.normalize(form, text) for form in ("NFC", "NFD", "NFKC", "NFKD")]
    sets = neardup.shingles(forms, k=k, unit=unit)
    assert all(sets[i].tolist() == sets[0].tolist() for i in range(4))
    assert len(set(neardup.exact_duplicates(forms, normalized=True).tolist())) == 1


@both_versions
def test_minhash_matches_reference(version):
    @given(TEXT_LISTS[version], st.integers(1, 40), st.integers(0, 2**64 - 1), st.integers(1, 5))
    @settings(max_examples=40)
    def check(docs, num_perm, seed, k):
        got = neardup.minhash(docs, num_perm=num_perm, seed=seed, k=k, hash_version=version)
        want = [
            ref.minhash(ref.shingle_hashes(d, k, hash_version=version), num_perm, seed, version)
            for d in docs
        ]
        assert got.shape == (len(docs), num_perm)
        assert got.tolist() == want

    check()


@both_versions
def test_simhash_matches_reference(version):
    @given(TEXT_LISTS[version], st.sampled_from([64, 128]), st.booleans(), st.integers(1, 4))
    @settings(max_examples=40)
    def check(docs, bits, tf, k):
        got = neardup.simhash(
            docs, bits=bits, weights="tf" if tf else None, k=k, hash_version=version
        )
        want = [ref.simhash(ref.shingle_hashes(d, k, hash_version=version), bits, tf) for d in docs]
        assert got.shape == (len(docs), bits // 64)
        assert got.tolist() == want

    check()


@given(
    st.lists(st.lists(st.integers(0, 6), min_size=12, max_size=12), min_size=0, max_size=15),
    st.sampled_from([(1, 12), (3, 4), (4, 3), (6, 2), (12, 1), (5, 2)]),
)
def test_banding_matches_reference(rows_of_slots, banding):
    bands, rows = banding
    signatures = np.array(rows_of_slots, dtype=np.uint32).reshape(-1, 12)
    keys = neardup.band_hashes(signatures, bands, rows)
    assert keys.tolist() == [ref.band_keys(s, bands, rows) for s in signatures.tolist()]
    got = neardup.lsh_candidates(signatures, bands, rows)
    want = ref.candidates(signatures.tolist(), bands, rows)
    assert [tuple(p) for p in got.tolist()] == want
    in_pairs = [any(i in pair for pair in want) for i in range(len(signatures))]
    assert neardup.lsh_candidate_rows(signatures, bands, rows).tolist() == in_pairs


@given(
    st.integers(0, 40).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(
                st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, max(n - 1, 0))), max_size=60
            )
            if n
            else st.just([]),
        )
    )
)
def test_clusters_match_connected_components(case):
    n, pairs = case
    labels = neardup.clusters(np.array(pairs, dtype=np.int64).reshape(-1, 2), n)
    assert labels.tolist() == ref.connected_components(pairs, n)


@given(text_lists, st.integers(1, 3), st.floats(0.05, 1.0))
@settings(max_examples=60)
def test_exact_jaccard_matches_python_sets(docs, k, threshold):
    sets = neardup.shingles(docs, k=k)
    pairs, similarity = neardup.all_pairs_jaccard(sets, threshold)
    reference_sets = [ref.shingle_set(d, k) for d in docs]
    want = [
        (i, j)
        for i in range(len(docs))
        for j in range(i + 1, len(docs))
        if ref.jaccard(reference_sets[i], reference_sets[j]) >= threshold
    ]
    assert [tuple(p) for p in pairs.tolist()] == want
    for (i, j), s in zip(want, similarity.tolist(), strict=True):
        assert s == np.float32(ref.jaccard(reference_sets[i], reference_sets[j]))


@given(
    text_lists,
    st.integers(1, 3),
    st.floats(0.05, 1.0),
    st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=40),
)
@settings(max_examples=60)
def test_exact_verification_matches_python_sets(docs, k, threshold, pairs):
    pairs = [(i, j) for i, j in pairs if i < len(docs) and j < len(docs)]
    reference_sets = [ref.shingle_set(d, k) for d in docs]
    want = [p for p in pairs if ref.jaccard(*(reference_sets[i] for i in p)) >= threshold]
    # Only the documents in pairs are shingled; the others get empty sets.
    only = np.zeros(len(docs), dtype=bool)
    only[[i for p in pairs for i in p]] = True
    sets = neardup.shingles(docs, k=k, only=only)
    sizes = [len(s) if o else 0 for s, o in zip(reference_sets, only, strict=True)]
    assert sets.sizes().tolist() == sizes
    kept, similarity = neardup.verify_jaccard(sets, np.array(pairs).reshape(-1, 2), threshold)
    assert [tuple(p) for p in kept.tolist()] == want
    for (i, j), s in zip(want, similarity.tolist(), strict=True):
        assert s == np.float32(ref.jaccard(reference_sets[i], reference_sets[j]))


@both_versions
def test_sha256_groups_match_reference(version):
    @given(TEXT_LISTS[version])
    def check(docs):
        assert neardup.exact_duplicates(docs, hash_version=version).tolist() == ref.sha256_groups(
            docs
        )
        got = neardup.exact_duplicates(docs, normalized=True, hash_version=version)
        assert got.tolist() == ref.sha256_groups(docs, normalized=True, hash_version=version)

    check()


def test_unicode_marks_stay_inside_words_in_version_1():
    def normalize(text):
        return neardup.normalize(text, hash_version=1)

    # Devanagari vowel signs are combining marks with the Unicode Alphabetic property.
    assert normalize("हिंदी भाषा") == "हिंदी भाषा"
    assert normalize("İstanbul’da") == "i\u0307stanbul da"
    assert normalize("ΟΔΥΣΣΕΥΣ") == "οδυσσευσ"  # per-character lowercasing, no final sigma


# Documents long and short in one batch, so the core's per-batch buffers (ASCII scratch, set
# sorter) are reused from a longer document to a shorter one, across 64-byte chunks and past
# the sizes where the set sort switches method; mixed ASCII/non-ASCII runs take the general
# path after ASCII documents took the fast one.
long_docs = st.lists(
    st.tuples(st.sampled_from([ascii_words, texts_v2]), st.integers(0, 40)),
    min_size=1,
    max_size=6,
).flatmap(lambda parts: st.tuples(*[piece.map(lambda t, n=n: (t + " ") * n) for piece, n in parts]))


@settings(max_examples=40, deadline=None)
@given(st.lists(long_docs.map("".join), min_size=1, max_size=6), st.integers(1, 5))
def test_batches_of_long_and_short_documents_match_the_reference(docs, k):
    sets = neardup.shingles(docs, k=k)
    for i, doc in enumerate(docs):
        assert sets[i].tolist() == ref.shingle_set(doc, k, "word", 2)
    # The one-pass sign call of the Ray map: the same sets, digests and signatures.
    from neardup.ray._sign import sign_texts

    plan = neardup.make_plan(method="minhash", k=k, num_perm=16)
    signatures, digests, sizes, kept = sign_texts(plan, docs, keep_sets=True)
    assert kept is not None
    np.testing.assert_array_equal(kept.offsets, sets.offsets)
    np.testing.assert_array_equal(kept.hashes, sets.hashes)
    np.testing.assert_array_equal(sizes, sets.sizes())
    np.testing.assert_array_equal(digests, neardup.sign.set_digests(sets))
    np.testing.assert_array_equal(signatures, neardup.minhash(sets, num_perm=16))
