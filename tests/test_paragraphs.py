"""Paragraph-level dedup (neardup.dedup_paragraphs): planted repeats all found and nothing
invented, against a plain-Python reference, on synthetic and real text; cuts only on line
breaks; the Bloom mode's false-positive rate measured against its formula; bad input."""

from __future__ import annotations

import json
import math
import random
import re
from pathlib import Path

import numpy as np
import pytest

import neardup
from neardup.errors import InputTypeError, InvalidArgumentError
from neardup.paragraphs import bloom_false_positive_rate

DATA = Path(__file__).parent / "data"


def reference_units(text: str, split: str) -> list[tuple[int, int]]:
    """(start, end) in characters of each paragraph (blank lines separate) or non-blank line."""
    units: list[tuple[int, int]] = []
    open_unit: tuple[int, int] | None = None
    start = 0
    for line in re.findall(r"[^\n]*\n|[^\n]+$", text):
        body = line.rstrip("\r\n")
        end = start + len(body)
        if not body.strip():
            if open_unit is not None:
                units.append(open_unit)
                open_unit = None
        elif split == "line":
            units.append((start, end))
        else:
            open_unit = (open_unit[0], end) if open_unit else (start, end)
        start += len(line)
    if open_unit is not None:
        units.append(open_unit)
    return units


def reference(texts: list[str], split: str = "paragraph") -> tuple[list[int], list[list[int]]]:
    """Removed count per document and the removed spans, by a set of normalised texts."""
    seen: set[str] = set()
    removed, spans = [], []
    for doc, text in enumerate(texts):
        count = 0
        for s, e in reference_units(text, split):
            key = neardup.normalize(text[s:e])
            if not key:
                continue
            if key in seen:
                count += 1
                spans.append([doc, s, e])
            seen.add(key)
        removed.append(count)
    return removed, spans


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(VOCAB) for _ in range(n))


VOCAB = [f"w{i}" for i in range(5000)] + ["Straße", "café", "日本語", "naïve", "ÉCOLE"]


def planted_corpus(seed: int = 3, n: int = 300) -> tuple[list[str], list[tuple[int, int]]]:
    """Documents of unique paragraphs with repeats of a pool planted (case and spacing
    changed); returns the texts and (document, paragraph index) of every planted repeat."""
    rng = random.Random(seed)
    pool = [words(rng, rng.randint(3, 40)) + "." for _ in range(40)]
    used: set[int] = set()
    texts, planted = [], []
    for doc in range(n):
        paragraphs = []
        for p in range(rng.randint(1, 8)):
            if rng.random() < 0.3:
                which = rng.randrange(len(pool))
                text = pool[which]
                if which in used:
                    planted.append((doc, p))
                    text = rng.choice([text.upper(), "  " + text.replace(" ", "  "), text + "!"])
                used.add(which)
            else:
                text = words(rng, rng.randint(5, 60)).replace(" w1 ", "\nw1 ")  # multi-line
            paragraphs.append(text)
        sep = rng.choice(["\n\n", "\n\n\n", "\n \n", "\r\n\r\n"])
        texts.append(rng.choice(["", "\n"]) + sep.join(paragraphs) + rng.choice(["", "\n"]))
    return texts, planted


def test_every_planted_repeat_found_and_none_invented() -> None:
    texts, planted = planted_corpus()
    r = neardup.dedup_paragraphs(texts)
    want_removed, want_spans = reference(texts)
    assert r.removed.tolist() == want_removed
    assert r.spans.tolist() == want_spans
    assert len(planted) > 50
    # Recall 1.0: every planted repeat's span is among those removed; precision: nothing else.
    removed_at = {(d, s) for d, s, _ in r.spans.tolist()}
    planted_at = {(d, reference_units(texts[d], "paragraph")[p][0]) for d, p in planted}
    assert removed_at == planted_at
    assert r.units.tolist() == [len(reference_units(t, "paragraph")) for t in texts]


def test_cleaned_texts_cut_only_between_units() -> None:
    texts, _ = planted_corpus(seed=5, n=200)
    r = neardup.dedup_paragraphs(texts)
    by_doc: dict[int, list[tuple[int, int]]] = {}
    for d, s, e in r.spans.tolist():
        by_doc.setdefault(d, []).append((s, e))
    for d, text in enumerate(texts):
        units = reference_units(text, "paragraph")
        gone = by_doc.get(d, [])
        for s, e in gone:  # a removed span is a whole unit: starts and ends at a line break
            assert (s, e) in units
            assert s == 0 or text[s - 1] == "\n"
            assert e == len(text) or text[e] in "\r\n"
        kept = [text[s:e] for s, e in units if (s, e) not in gone]
        cleaned = r.texts[d]
        if not gone:
            assert cleaned == text
        elif not kept:
            assert cleaned == ""
        else:  # the kept units, whole and in order, and only the original separators
            assert [cleaned[s:e] for s, e in reference_units(cleaned, "paragraph")] == kept
            assert "\n\n\n\n" not in cleaned.replace("\r", "")
            assert cleaned.startswith(text[: units[0][0]])
            assert cleaned.endswith(text[units[-1][1] :])
    # Every word of the cleaned text is a word of the original (no word cut in two).
    for text, cleaned in zip(texts, r.texts, strict=True):
        assert set(cleaned.split()) <= set(text.split())


def test_real_text_agrees_with_reference_and_planted_repeats_found() -> None:
    rows = [json.loads(line) for line in (DATA / "realtext_descriptions.jsonl").open()]
    rows += [json.loads(line) for line in (DATA / "realtext_cjk.jsonl").open()]
    texts = [row["text"] for row in rows]
    rng = random.Random(11)
    # Plant: a paragraph of an early document appended to a later one.
    planted = []
    for _ in range(100):
        src = rng.randrange(len(texts) // 2)
        units = reference_units(texts[src], "paragraph")
        dst = rng.randrange(len(texts) // 2, len(texts))
        s, e = units[rng.randrange(len(units))]
        planted.append((dst, len(texts[dst]) + 2))
        texts[dst] = texts[dst] + "\n\n" + texts[src][s:e]
    r = neardup.dedup_paragraphs(texts)
    want_removed, want_spans = reference(texts)
    assert r.removed.tolist() == want_removed
    assert r.spans.tolist() == want_spans
    starts = {(d, s) for d, s, _ in r.spans.tolist()}
    assert all(p in starts for p in planted)
    lines = neardup.dedup_paragraphs(texts, split="line")
    assert (lines.removed.tolist(), lines.spans.tolist()) == reference(texts, "line")


def test_batches_threads_and_iterables_give_the_same_result() -> None:
    texts, _ = planted_corpus(seed=7, n=120)
    whole = neardup.dedup_paragraphs(texts)
    streamed = neardup.dedup_paragraphs(iter(texts), batch_size=7, threads=2)
    assert streamed.texts == whole.texts
    assert streamed.spans.tolist() == whole.spans.tolist()
    assert streamed.removed.tolist() == whole.removed.tolist()
    deduper = neardup.ParagraphDeduper()
    parts = [deduper.add(texts[i : i + 50]) for i in range(0, len(texts), 50)]
    assert [t for p in parts for t in p.texts] == whole.texts
    assert deduper.paragraphs_removed == int(whole.removed.sum())


def test_line_mode_and_short_documents() -> None:
    texts = ["Header\nBody one\nFooter", "Header\nFooter", "Body two\n***\nHeader"]
    r = neardup.dedup_paragraphs(texts, split="line", min_words=2)
    assert r.texts == ["Header\nBody one\nFooter", "", "Body two\n***"]
    assert r.removed.tolist() == [0, 2, 1]
    assert r.words.tolist() == [4, 0, 2]
    assert r.short.tolist() == [False, True, False]
    dropped = neardup.dedup_paragraphs(texts, split="line", min_words=3, drop_short=True)
    assert dropped.kept.tolist() == [0] and dropped.texts == [texts[0]]
    assert dropped.summary()["documents_dropped"] == 2
    # The same text as one paragraph each: nothing repeats whole.
    assert neardup.dedup_paragraphs(texts).removed.tolist() == [0, 0, 0]


def test_hash_version_rules_apply() -> None:
    texts = ["Cafe\u0301 au lait", "Café au lait"]  # the same after NFKC (version 2 only)
    assert neardup.dedup_paragraphs(texts).removed.tolist() == [0, 1]
    assert neardup.dedup_paragraphs(texts, hash_version=1).removed.tolist() == [0, 0]


def test_bloom_false_positive_rate_matches_its_formula() -> None:
    bits, hashes, first, queries = 2**16, 4, 8000, 6000
    rng = random.Random(2024)
    distinct = rng.sample(range(10**9), first + queries)
    texts = [f"p{v}" for v in distinct]
    deduper = neardup.ParagraphDeduper(memory="bloom", bloom_bits=bits, bloom_hashes=hashes)
    head = deduper.add(texts[:first])
    tail = deduper.add(texts[first:])
    exact = neardup.dedup_paragraphs(texts)
    assert exact.removed.sum() == 0  # the texts are distinct: every removal is a false positive
    # The filter's own probes may collide while it is being filled (the head) as well.
    inserted_head = first - int(head.removed.sum())
    false_positives = int(tail.removed.sum())
    p = [bloom_false_positive_rate(inserted_head + i, bits, hashes) for i in range(queries)]
    expected = sum(p)
    sd = math.sqrt(sum(q * (1 - q) for q in p))
    assert expected > 100  # the measurement means something
    assert abs(false_positives - expected) < 5 * sd
    stated = bloom_false_positive_rate(inserted_head + queries - false_positives, bits, hashes)
    assert tail.bloom_false_positive_rate == pytest.approx(stated, rel=1e-9)
    # A repeat is always found (no false negatives).
    again = deduper.add(texts[first : first + 100])
    assert again.removed.tolist() == [1] * 100


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(InputTypeError, match=r"texts\[1\] is NoneType"):
        neardup.dedup_paragraphs(["a", None])
    with pytest.raises(InputTypeError, match=r"texts\[12\] is int"):
        neardup.dedup_paragraphs((t for t in ["a"] * 12 + [5]), batch_size=5)
    with pytest.raises(InputTypeError, match="not a single str"):
        neardup.dedup_paragraphs("one text")
    for bad in (
        {"split": "word"},
        {"memory": "disk"},
        {"threshold": 0.8, "memory": "bloom"},
        {"threshold": 0.8, "num_perms": 64},
        {"threshold": 0.0},
        {"threshold": 1.5},
        {"bloom_bits": 10, "memory": "bloom"},
        {"bloom_hashes": 0},
        {"min_words": -1},
        {"drop_short": "yes"},
        {"hash_version": 3},
    ):
        with pytest.raises(InvalidArgumentError):
            neardup.dedup_paragraphs(["a"], **bad)
    with pytest.raises(ValueError, match="surrogate"):
        neardup.dedup_paragraphs(["ok", "bad \ud800"])


def test_empty_inputs() -> None:
    r = neardup.dedup_paragraphs([])
    assert r.texts == [] and r.spans.shape == (0, 3) and r.removed.dtype == np.int64
    r = neardup.dedup_paragraphs(["", "\n\n", "  "])
    assert r.texts == ["", "\n\n", "  "] and r.short.tolist() == [True, True, True]


def near_corpus(seed: int = 9, n: int = 150) -> list[str]:
    """Documents of long unique paragraphs with copies of a pool planted, one word changed."""
    rng = random.Random(seed)
    pool = [words(rng, rng.randint(40, 70)) for _ in range(30)]
    texts = []
    for _ in range(n):
        paragraphs = []
        for _ in range(rng.randint(1, 6)):
            if rng.random() < 0.3:
                tokens = rng.choice(pool).split()
                tokens[rng.randrange(len(tokens))] = rng.choice(VOCAB)
                paragraphs.append(" ".join(tokens))
            else:
                paragraphs.append(words(rng, rng.randint(20, 60)))
        texts.append("\n\n".join(paragraphs))
    return texts


def test_near_mode_equals_brute_force_on_the_units() -> None:
    texts = near_corpus()
    units = [t[s:e] for t in texts for s, e in reference_units(t, "paragraph")]
    sets = neardup.shingles(units, k=5)
    pairs, _ = neardup.all_pairs_jaccard(sets, 0.7)
    labels = neardup.clusters(pairs, len(units))
    want = labels != np.arange(len(units))  # not the first of its cluster
    assert 20 < want.sum() < len(units) / 2
    r = neardup.dedup_paragraphs(texts, threshold=0.7)
    assert r.params["method"] == "minhash" and r.params["verify"] == "exact"
    got = np.zeros(len(units), dtype=bool)
    starts = np.cumsum([0, *r.units.tolist()])
    for d, s, _ in r.spans.tolist():
        got[starts[d] + [u[0] for u in reference_units(texts[d], "paragraph")].index(s)] = True
    assert got.tolist() == want.tolist()
    # Near mode removes every exact repeat too.
    texts, _ = planted_corpus(seed=13, n=150)
    exact = {tuple(x) for x in neardup.dedup_paragraphs(texts).spans.tolist()}
    near = {tuple(x) for x in neardup.dedup_paragraphs(texts, threshold=0.9).spans.tolist()}
    assert exact and exact <= near
