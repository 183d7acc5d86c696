"""Hash version 2 normalises to Unicode's NFKC_Casefold (issue 25): invisible format characters
no longer split words, case folding (not lowercasing) makes case variants equal, and ASCII
text keeps its words. Version 1 is unchanged."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import neardup

SENTENCE = "The quick brown fox jumps over the lazy dog near the river bank at dawn"
JOINERS = {
    "soft hyphen": "\u00ad",
    "zero width space": "\u200b",
    "zero width non-joiner": "\u200c",
    "zero width joiner": "\u200d",
    "word joiner": "\u2060",
    "variation selector 16": "\ufe0f",
    "zero width no-break space": "\ufeff",
    "combining grapheme joiner": "\u034f",
    "left-to-right mark": "\u200e",
}


@pytest.mark.parametrize("joiner", JOINERS.values(), ids=JOINERS.keys())
@pytest.mark.parametrize("method", ["exact-jaccard", "minhash"])
def test_format_characters_between_letters_do_not_split_words(joiner, method):
    texts = [joiner.join(SENTENCE), SENTENCE]
    result = neardup.find_duplicates(texts, threshold=0.9, method=method)
    assert result.pairs.tolist() == [[0, 1]]
    assert result.similarity.tolist() == [1.0]
    assert neardup.normalize(texts[0]) == neardup.normalize(SENTENCE)
    # Version 1 is frozen: there every letter stays a word of its own.
    letters = " ".join(c for c in SENTENCE.lower() if c != " ")
    assert neardup.normalize(texts[0], hash_version=1) == letters


CASE_VARIANTS = [
    ("STRASSE", "straße"),
    ("Straße", "STRASSE"),
    ("GROẞE", "große"),
    ("ΟΔΟΣ", "οδος"),
    ("ΟΔΥΣΣΕΥΣ", "οδυσσευς"),
    ("ǅemal", "DŽEMAL"),
    ("ﬃx", "FFIX"),
    ("ＡＢＣ１２３", "abc123"),
    ("ᏣᎳᎩ", "ꮳꮃꭹ"),  # Cherokee: capital and small letters
    ("ᾼ", "αι"),  # iota adscript folds to iota
]


@pytest.mark.parametrize(("a", "b"), CASE_VARIANTS)
def test_case_variants_are_duplicates(a, b):
    assert neardup.normalize(a) == neardup.normalize(b)
    texts = [f"{a} one two three four", f"{b} one two three four"]
    result = neardup.find_duplicates(texts, threshold=0.99, k=2)
    assert result.pairs.tolist() == [[0, 1]]


def test_version_1_still_lowercases_without_folding():
    assert neardup.normalize("STRASSE", hash_version=1) != neardup.normalize(
        "straße", hash_version=1
    )
    assert neardup.normalize("ΟΔΟΣ", hash_version=1) == "οδοσ"
    assert neardup.normalize("οδος", hash_version=1) == "οδος"


def test_dotted_capital_i_folds_without_the_turkic_rule():
    # Full case folding, not the Turkic one: İ keeps its dot as a combining mark, ı stays.
    assert neardup.normalize("İstanbul") == "i\u0307stanbul"
    assert neardup.normalize("ISPARTA ıspırta") == "isparta ıspırta"


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=200))
def test_ascii_text_is_its_lowercase_alphanumeric_runs(text):
    assert neardup.normalize(text) == " ".join(re.findall("[a-z0-9]+", text.lower()))
