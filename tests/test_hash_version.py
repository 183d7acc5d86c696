"""Hash version 2's behaviour: canonically equal text is equal, scripts without spaces get
shingles, and version 1 stays computable beside it."""

import unicodedata

import numpy as np
import pytest

import neardup
from neardup.errors import InvalidArgumentError

FRENCH = "L'été dernier, nous étions à Besançon où il pleuvait à verse chaque après-midi."
VIETNAMESE = "Tiếng Việt có nhiều dấu thanh, người học phải nghe và đọc thật kỹ mỗi ngày."


def _jaccard(a, b):
    a, b = set(a.tolist()), set(b.tolist())
    return len(a & b) / len(a | b)


@pytest.mark.parametrize("sentence", [FRENCH, VIETNAMESE])
def test_nfc_and_nfd_give_identical_shingles_and_digests(sentence):
    forms = [unicodedata.normalize(f, sentence) for f in ("NFC", "NFD")]
    assert forms[0] != forms[1]
    sets = neardup.shingles(forms, k=3)
    assert sets[0].tolist() == sets[1].tolist() and len(sets[0]) > 5
    assert neardup.exact_duplicates(forms, normalized=True).tolist() == [0, 0]
    result = neardup.find_duplicates(forms, method="sha256-normalized")
    assert result.pairs.tolist() == [[0, 1]]
    # Version 1 splits the decomposed accents off their letters: the forms share little.
    old = neardup.shingles(forms, k=3, hash_version=1)
    assert _jaccard(old[0], old[1]) < 0.5
    assert neardup.exact_duplicates(forms, normalized=True, hash_version=1).tolist() == [0, 1]


def test_full_width_forms_fold_to_ascii():
    assert neardup.normalize("ＮＥＡＲ－ＤＵＰ　２０２６") == "near dup 2026"
    assert neardup.normalize("ＮＥＡＲ", hash_version=1) == "ｎｅａｒ"


def test_chinese_paragraphs_differing_by_one_character_share_most_shingles():
    a = "我们今天去北京看长城然后吃烤鸭晚上回酒店休息明天早上坐高铁回上海"
    b = a.replace("烤鸭", "烤肉")
    sets = neardup.shingles([a, b], k=5)
    # 32 characters, one changed: 5 of the 28 5-grams contain it.
    assert len(sets[0]) == len(a) - 4
    assert _jaccard(sets[0], sets[1]) == pytest.approx(23 / 33)
    old = neardup.shingles([a, b], k=5, hash_version=1)
    assert len(old[0]) == 1 and _jaccard(old[0], old[1]) == 0.0
    found = neardup.find_duplicates([a, b, "完全不同的句子"], threshold=0.5, k=5)
    assert found.pairs.tolist() == [[0, 1]]


def test_mixed_scripts_count_tokens_per_script():
    assert neardup.word_counts(["東京タワーは333mです", "東京 tower", "ภาษาไทย"]).tolist() == [
        9,
        3,
        7,
    ]
    assert neardup.word_counts(["東京タワーは333mです"], hash_version=1).tolist() == [1]


def test_char_shingles_of_spaceless_text_need_no_spaces():
    sets = neardup.shingles(["日本語のテキスト"], k=2, unit="char")
    assert len(sets[0]) == 7


def test_versions_differ_and_each_is_deterministic():
    texts = ["the quick brown fox jumps over the lazy dog", "naïve café"]
    v1 = neardup.minhash(texts, num_perm=16, hash_version=1)
    v2 = neardup.minhash(texts, num_perm=16)
    assert not np.array_equal(v1, v2)
    np.testing.assert_array_equal(v2, neardup.minhash(texts, num_perm=16, hash_version=2))
    assert neardup.shingles(texts).hash_version == 2
    assert neardup.find_duplicates(texts, method="minhash").params["hash_version"] == 2
    assert (
        neardup.find_duplicates(texts, method="minhash", hash_version=1).params["hash_version"] == 1
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda v: neardup.normalize("x", hash_version=v),
        lambda v: neardup.word_counts(["x"], hash_version=v),
        lambda v: neardup.shingles(["x"], hash_version=v),
        lambda v: neardup.minhash(["x"], hash_version=v),
        lambda v: neardup.simhash(["x"], hash_version=v),
        lambda v: neardup.exact_duplicates(["x"], normalized=True, hash_version=v),
        lambda v: neardup.find_duplicates(["x"], hash_version=v),
    ],
)
def test_unknown_versions_are_refused(call):
    for bad in (0, 3):
        with pytest.raises(InvalidArgumentError, match="hash_version"):
            call(bad)
    with pytest.raises(TypeError, match="hash_version"):
        call("2")
