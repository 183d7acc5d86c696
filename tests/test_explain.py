"""``neardup.explain`` / ``DuplicateResult.explain``: the figures and the spans of shared text,
checked against the pure-Python reference (tests/reference.py) on CJK, combining marks,
NFC/NFD and case-folded text."""

from __future__ import annotations

import unicodedata

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import neardup
from neardup import _core, stages
from neardup.errors import InputError, InputTypeError, InvalidArgumentError
from neardup.explain import ELIDE_OVER, merge_runs

import reference as ref

# Pieces that exercise every rule of the tokeniser: ASCII words and capitals, accents
# composed and decomposed, case folding that grows (ß, İ) and final sigma, CJK and kana
# (a token per character), Thai, full-width forms, ligatures, default ignorables (soft
# hyphen, zero width space, joiners) inside words, lone combining marks, punctuation.
PIECES = [
    "the",
    "Cat",
    "SAT",
    "on",
    "mat",
    "é",
    "e\u0301",
    "Straße",
    "STRASSE",
    "İstanbul",
    "ΣΟΦΟΣ",
    "東京",
    "都",
    "ひらがな",
    "กรุงเทพ",
    "ＡＢＣ",
    "ﬁne",
    "co\u00adop",
    "zero\u200bwidth",
    "a\u200db",
    "\u0301",
    "Ä",
    "A\u0308",
    "ǅ",
    " ",
    "  ",
    ", ",
    "! ",
    "-",
    "\n",
    "1",
    "42",
]

texts = st.lists(st.sampled_from(PIECES), max_size=14).map("".join)
UNITS = st.sampled_from(["word", "char"])


# Version 1's word characters are Rust's alphanumeric (Alphabetic, which takes Thai vowel
# signs), not ``str.isalnum`` as the reference has it: Thai is checked on version 2 only.
THAI = "กรุงเทพ"


def _inside(range_, spans):
    s, e = range_
    return bool(((spans[:, 0] <= s) & (e <= spans[:, 1])).any()) if len(spans) else False


@settings(max_examples=150, deadline=None)
@given(texts, st.integers(1, 3), UNITS, st.sampled_from([1, 2]))
def test_offsets_match_the_reference(text, k, unit, version):
    assume(version == 2 or THAI not in text)
    hashes, starts, ends = _core.shingle_offsets(text, k, unit, version)
    want = ref.shingle_offsets(text, k, unit, version)
    assert hashes.tolist() == [h for h, _, _ in want]
    # The core cuts the text only where NFKC_Casefold allows it, the reference wherever the
    # folds agree: each core range holds the reference's.
    for (_, s, e), start, end in zip(want, starts.tolist(), ends.tolist(), strict=True):
        assert start <= s and e <= end, (text, s, e, start, end)
        assert 0 <= start < end <= len(text)


@settings(max_examples=100, deadline=None)
@given(texts, texts, texts, st.integers(1, 3), UNITS, st.sampled_from([1, 2]))
def test_every_shared_shingle_lies_inside_a_span_of_both_texts(common, x, y, k, unit, version):
    assume(version == 2 or THAI not in common + x + y)
    a, b = x + " " + common + " " + y, unicodedata.normalize("NFD", y + " " + common.upper())
    e = neardup.explain(a, b, k=k, unit=unit, hash_version=version)
    ra, rb = ref.shingle_offsets(a, k, unit, version), ref.shingle_offsets(b, k, unit, version)
    shared = {h for h, _, _ in ra} & {h for h, _, _ in rb}
    assert e.shared == len(shared)
    for shingles, spans, text in ((ra, e.spans[0], a), (rb, e.spans[1], b)):
        for h, s, t in shingles:
            if h in shared and not (unit == "char" and k == 1 and ref.normalize(text[s:t]) == ""):
                assert _inside((s, t), spans), (text, s, t, spans)
        # Merged: sorted, disjoint, not touching.
        assert (spans[1:, 0] > spans[:-1, 1]).all()
    expected = ref.jaccard(
        ref.shingle_set(a, k, unit, version), ref.shingle_set(b, k, unit, version)
    )
    assert e.jaccard == pytest.approx(expected)


def test_figures():
    a, b = "one two three four five", "one two three four six seven"
    e = neardup.explain(a, b, k=2)
    assert (e.shingles, e.shared) == ((4, 5), 3)
    assert e.jaccard == pytest.approx(3 / 6)
    assert e.containment == pytest.approx((3 / 4, 3 / 5))
    assert e.estimate is None
    assert e.shared_text(0) == ["one two three four"]
    sets = stages.shingles([a, b], k=2)
    assert e.jaccard == pytest.approx(float(stages.jaccard(sets, [[0, 1]])[0]))


def test_nfc_and_nfd_and_case_explain_as_identical():
    a = "Ça a été l’été, ΣΟΦΟΣ 東京都"
    b = unicodedata.normalize("NFD", a).lower()
    e = neardup.explain(a, b, k=2)
    assert e.jaccard == 1.0
    # Every word is shared: the spans run from the first word to the last.
    assert e.spans[0].tolist() == [[0, len(a)]]
    assert e.spans[1].tolist() == [[0, len(b)]]


def test_cjk_spans_are_per_character():
    e = neardup.explain("我爱北京天安门", "他说北京天安门很好", k=2)
    assert e.shared_text(0) == ["北京天安门"]
    assert e.shared_text(1) == ["北京天安门"]


def test_minhash_estimate_is_the_signatures():
    a, b = "a b c d e f g h", "a b c d e f g x"
    e = neardup.explain(a, b, k=1, method="minhash", num_perm=64, seed=3)
    sig = stages.minhash(stages.shingles([a, b], k=1), num_perm=64, seed=3)
    assert e.estimate == pytest.approx(float(stages.estimate_jaccard(sig, [[0, 1]])[0]))


def test_result_explain_uses_the_runs_settings():
    docs = ["the quick brown fox jumps", "The quick brown fox jumped", "nothing alike here"]
    r = neardup.find_duplicates(docs, k=1, threshold=0.5, method="minhash", num_perm=64)
    e = r.explain(0, 1)
    assert e.settings["k"] == 1 and e.rows == (0, 1)
    assert e.jaccard == pytest.approx(4 / 6)
    # Exact verification frees the signatures: the two are signed again, to the same values
    # as a run that keeps them (verify="estimate" reports them as the similarity).
    kept = neardup.find_duplicates(
        docs, k=1, threshold=0.5, method="minhash", num_perm=64, verify="estimate"
    )
    assert e.estimate == kept.explain(0, 1).estimate == pytest.approx(float(kept.similarity[0]))
    exact = neardup.find_duplicates(docs, k=1, threshold=0.5).explain(0, 1)
    assert exact.estimate is None and exact.jaccard == e.jaccard
    with pytest.raises(InvalidArgumentError):
        r.explain(0, 3)
    with pytest.raises(InputTypeError):
        r.explain(0, "1")


def test_arrow_texts_explain():
    pa = pytest.importorskip("pyarrow")
    r = neardup.find_duplicates(pa.array(["naïve café", "Naïve café!", "x"]), k=1)
    assert r.explain(0, 1).jaccard == 1.0


def test_html_is_escaped_and_highlighted():
    e = neardup.explain("<b>bold</b> & more text", "bold & more text <i>", k=1)
    page = e._repr_html_()
    assert "<b>bold" not in page and "&lt;b&gt;" in page
    assert "<mark>" in page and "Jaccard" in page
    assert "[[" in str(e) and "Jaccard" in str(e)


def test_long_texts_are_elided_around_the_spans_without_splitting_marks():
    filler = "e\u0301" * ELIDE_OVER  # accents in NFD: a cut must keep each with its e
    a = filler + " shared words right here " + filler
    b = "shared words right here"
    e = neardup.explain(a, b, k=2)
    page = e._repr_html_()
    assert "…" in page and len(page) < len(a)
    pieces = str(e).split("\n")
    shown = pieces[pieces.index(next(p for p in pieces if p.startswith("--- a"))) + 1]
    assert "[[shared words right here]]" in shown
    for part in shown.split("…"):
        assert not part or not unicodedata.combining(part[0])


def test_merge_runs():
    assert merge_runs(np.array([], dtype=np.int64), np.array([], dtype=np.int64)).shape == (0, 2)
    got = merge_runs(np.array([10, 0, 3, 12]), np.array([12, 4, 6, 13]))
    assert got.tolist() == [[0, 6], [10, 13]]


def test_bad_input():
    with pytest.raises(InputTypeError):
        neardup.explain(b"bytes", "text")
    with pytest.raises(InvalidArgumentError):
        neardup.explain("a", "b", k=0)
    with pytest.raises(InputError, match="lone surrogate"):
        neardup.explain("a", "b \ud800")
    # Nothing in common, or nothing at all: zeros and no spans.
    e = neardup.explain("", "\u0301 !", k=2)
    assert (e.jaccard, e.shared, e.shingles) == (0.0, 0, (0, 1))  # a lone mark is a word
    assert e.spans[0].shape == (0, 2) and "<mark>" not in e._repr_html_()
