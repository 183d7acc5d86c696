"""Tests of the synthetic corpus generator (neardup.synth)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from neardup import synth
from neardup.synth import EDITS, FOOTER, Corpus, generate


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return generate(bases=40, singles=30, seed=11)


def _sentences_by_paragraph(text: str) -> list[list[str]]:
    return [[s.strip() for s in re.findall(r"[^.]+\.", p)] for p in text.split("\n\n")]


def _variant(c: Corpus, name: str) -> list[tuple[str, str]]:
    """(original, variant) text pairs for one edit type."""
    k = 1 + EDITS.index(name)
    return [(c.texts[8 * b], c.texts[8 * b + k]) for b in range(c.bases)]


def test_vocabulary_is_fixed_and_well_formed() -> None:
    v = synth.vocabulary()
    assert len(v) == synth.VOCAB_SIZE == len(set(v))
    assert all(re.fullmatch(r"[a-z]+", w) for w in v)
    # pinned: the vocabulary must never change between releases (it defines the corpus)
    assert v[:4] == ("morkmem", "laimquu", "cigreand", "frimgendclerk")
    assert 7.5 < np.mean([len(w) for w in v]) < 9.5


def test_same_seed_same_bytes_other_seed_other_corpus() -> None:
    a = generate(bases=5, singles=5, seed=3, boilerplate_share=0.2)
    b = generate(bases=5, singles=5, seed=3, boilerplate_share=0.2)
    c = generate(bases=5, singles=5, seed=4, boilerplate_share=0.2)
    assert [t.encode() for t in a.texts] == [t.encode() for t in b.texts]
    assert np.array_equal(a.group, b.group) and np.array_equal(a.edit, b.edit)
    assert not set(a.texts) & set(c.texts)


def test_layout_and_labels(corpus: Corpus) -> None:
    n = 8 * 40 + 30
    assert len(corpus.texts) == n == corpus.group.size == corpus.edit.size
    assert corpus.edit[:8].tolist() == ["original", *EDITS]
    assert corpus.group[:16].tolist() == [0] * 8 + [1] * 8
    assert (corpus.edit[320:] == "single").all()
    assert corpus.group[320:].tolist() == [-1 - i for i in range(30)]
    pairs = corpus.duplicate_pairs()
    assert pairs.shape == (40 * 28, 2)
    assert (pairs[:, 0] < pairs[:, 1]).all()
    assert (corpus.group[pairs[:, 0]] == corpus.group[pairs[:, 1]]).all()
    assert len({tuple(p) for p in pairs.tolist()}) == pairs.shape[0]


def test_presets() -> None:
    assert synth.preset(3_100) == (300, 700)
    assert synth.preset(10_000) == (1_000, 2_000)
    assert synth.preset(100_000) == (10_000, 20_000)
    b, s = synth.preset(1234)
    assert 8 * b + s == 1234


def test_document_shape(corpus: Corpus) -> None:
    for i in np.flatnonzero(corpus.edit == "original").tolist() + list(range(320, 350)):
        text = corpus.texts[i]
        assert text.endswith("\n\n" + FOOTER)
        paras = _sentences_by_paragraph(text)[:-1]
        assert 3 <= len(paras) <= 5
        for sents in paras:
            assert 4 <= len(sents) <= 7
            for s in sents:
                assert 8 <= len(s.split()) <= 19
    lengths = [len(corpus.texts[i]) for i in np.flatnonzero(corpus.edit == "original")]
    assert 2000 < np.median(lengths) < 4500  # the article: median 2,957 characters


def test_whitespace_edit_only_changes_whitespace(corpus: Corpus) -> None:
    for orig, var in _variant(corpus, "whitespace"):
        assert var != orig
        assert var.split() == orig.split()
        assert "\n\n\n" in var and "  " in var


def test_one_char_edit(corpus: Corpus) -> None:
    changed = 0
    for orig, var in _variant(corpus, "one-char"):
        assert len(var) == len(orig)
        diff = [i for i, (x, y) in enumerate(zip(orig, var, strict=True)) if x != y]
        assert len(diff) <= 1
        if diff:
            changed += 1
            assert orig[diff[0]].islower() and var[diff[0]].islower()
    assert changed >= corpus.bases - 8  # a no-op only when the letter drew itself (1 in 26)


def test_one_word_edit(corpus: Corpus) -> None:
    for orig, var in _variant(corpus, "one-word"):
        a, b = orig.split(), var.split()
        assert len(a) == len(b)
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        assert len(diff) == 1
        assert a[diff[0]].strip(".") != b[diff[0]].strip(".")


def test_reorder_edit_permutes_sentences_within_paragraphs(corpus: Corpus) -> None:
    moved = 0
    for orig, var in _variant(corpus, "reorder-sentences"):
        po, pv = _sentences_by_paragraph(orig), _sentences_by_paragraph(var)
        assert len(po) == len(pv)
        for so, sv in zip(po, pv, strict=True):
            assert sorted(so) == sorted(sv)
            moved += so != sv
        assert po[-1] == pv[-1]  # the footer is not shuffled
    assert moved >= corpus.bases * 2


def test_replace_5pct_edit(corpus: Corpus) -> None:
    footer_words = len(FOOTER.split())
    for orig, var in _variant(corpus, "replace-5pct"):
        a, b = orig.split(), var.split()
        assert len(a) == len(b)
        body = len(a) - footer_words
        diff = sum(x != y for x, y in zip(a, b, strict=True))
        assert diff == max(1, round(0.05 * body))
        assert a[body:] == b[body:]


@pytest.mark.parametrize(("name", "share"), [("append-10pct", 0.10), ("append-50pct", 0.50)])
def test_append_edits(corpus: Corpus, name: str, share: float) -> None:
    ratios = []
    common = set(synth.vocabulary()[: synth.N_COMMON])
    others = [corpus.texts[8 * b] for b in range(1, corpus.bases)] + [corpus.texts[0]]
    for orig, var in _variant(corpus, name):
        assert var.startswith(orig + "\n\n")
        added = len(var) - len(orig)
        ratios.append(added / len(orig))
        assert added >= share * len(orig)
        # appended text stays on topic: its non-common words come from its own original's
        # topic, not from another group's
        new_words = set(var[len(orig) :].replace(".", " ").split()) - common
        own = len(new_words & set(orig.replace(".", " ").split()))
        other = len(new_words & set(others.pop(0).replace(".", " ").split()))
        assert own >= 0.5 * len(new_words) > 5 * other
    assert np.median(ratios) < share + 0.25


def test_singles_are_unrelated(corpus: Corpus) -> None:
    singles = [corpus.texts[i] for i in range(320, 350)]
    assert len(set(singles)) == len(singles)
    a = set(singles[0].split()[:200])
    b = set(singles[1].split()[:200])
    assert len(a & b) < 0.5 * len(a)


def test_boilerplate_share_adds_one_identical_block() -> None:
    plain = generate(bases=6, singles=6, seed=5)
    c = generate(bases=6, singles=6, seed=5, boilerplate_share=0.3)
    assert c.block and generate(bases=2, singles=2, seed=5).block == ""
    heads = []
    for t, p in zip(c.texts, plain.texts, strict=True):
        head, rest = t.split("\n\n", 1)
        assert rest == p
        assert c.block.startswith(head[:-1])  # a prefix of the one block (plus a full stop)
        heads.append(head)
        n_head, n_doc = len(head.split()), len(p.split())
        assert n_head / (n_head + n_doc) == pytest.approx(0.3, abs=0.005)
    # the block is shared text: two unrelated documents share their common prefix
    assert heads[-1][:200] == heads[-2][:200]


def test_pair_kind(corpus: Corpus) -> None:
    kinds = corpus.pair_kind(corpus.duplicate_pairs())
    values, counts = np.unique(kinds, return_counts=True)
    got = dict(zip(values.tolist(), counts.tolist(), strict=True))
    assert got == {**{e: 40 for e in EDITS}, "between-variants": 40 * 21}
    assert corpus.pair_kind([[0, 9], [320, 321]]).tolist() == ["", ""]


def test_edits_subset_and_bad_arguments() -> None:
    c = generate(bases=2, singles=1, seed=0, edits=["append-50pct", "one-word"])
    assert c.edit.tolist() == ["original", "one-word", "append-50pct"] * 2 + ["single"]
    assert c.duplicate_pairs().shape == (6, 2)
    with pytest.raises(ValueError, match="unknown edits"):
        generate(bases=1, singles=1, edits=["typo"])
    with pytest.raises(ValueError, match="boilerplate_share"):
        generate(bases=1, singles=1, boilerplate_share=1.0)


def test_group_pairs_generic_labels() -> None:
    assert synth.group_pairs([2, -1, 2, 5, 5, -1, 2]).tolist() == [[0, 2], [0, 6], [2, 6], [3, 4]]
    assert synth.group_pairs([-1, -2]).shape == (0, 2)
