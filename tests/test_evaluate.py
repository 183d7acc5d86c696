"""Tests of neardup.evaluate against hand-computed cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from neardup.evaluate import evaluate, normalize_pairs
from neardup.synth import generate


def test_hand_computed_case() -> None:
    # groups {0,1,2} (3 pairs) and {4,5} (1 pair); 3 and 6 are singles -> 4 positives
    group = [0, 0, 0, -1, 9, 9, -7]
    pred = [[1, 0], [0, 1], [2, 1], [3, 4], [5, 4], [6, 6], [2, 6]]
    r = evaluate(pred, group)
    # distinct pairs: (0,1) (1,2) (3,4) (4,5) (2,6) -> 5 flagged, TP (0,1) (1,2) (4,5)
    assert (r.flagged, r.tp, r.fp, r.fn, r.positives) == (5, 3, 2, 1, 4)
    assert r.precision == pytest.approx(3 / 5)
    assert r.recall == pytest.approx(3 / 4)
    assert r.f1 == pytest.approx(2 * 0.6 * 0.75 / (0.6 + 0.75))
    assert r.fp_per_tp == pytest.approx(2 / 3)


def test_same_negative_label_is_not_a_pair() -> None:
    r = evaluate([[0, 1]], [-1, -1, 3, 3])
    assert (r.tp, r.fp, r.positives) == (0, 1, 1)


def test_empty_prediction() -> None:
    r = evaluate(np.zeros((0, 2), dtype=np.int64), [0, 0])
    assert (r.flagged, r.tp, r.recall, r.f1) == (0, 0, 0.0, 0.0)
    assert math.isnan(r.precision)


def test_per_kind_hand_computed() -> None:
    group = [0, 0, 0, 1, 1, 1]
    edit = ["original", "one-word", "append-50pct"] * 2
    r = evaluate([[0, 1], [1, 2], [3, 4], [0, 3]], group, edit)
    assert (r.tp, r.fp, r.positives) == (3, 1, 6)
    got = {k: (s.tp, s.labelled) for k, s in r.by_kind.items()}
    assert got == {"one-word": (2, 2), "append-50pct": (0, 2), "between-variants": (1, 2)}
    assert r.by_kind["one-word"].recall == 1.0 and r.by_kind["append-50pct"].recall == 0.0
    assert r.as_dict()["recall_between-variants"] == 0.5


def test_corpus_perfect_and_partial_predictions() -> None:
    c = generate(bases=5, singles=5, seed=2)
    truth = c.duplicate_pairs()
    r = evaluate(truth[:, ::-1], c)  # orientation does not matter
    assert (r.precision, r.recall, r.f1, r.fp) == (1.0, 1.0, 1.0, 0)
    assert all(s.recall == 1.0 for s in r.by_kind.values())
    # drop every pair involving a "one-word" variant, add two false pairs
    ow = np.flatnonzero(c.edit == "one-word")
    keep = ~np.isin(truth, ow).any(axis=1)
    r2 = evaluate(np.concatenate([truth[keep], [[0, 40], [1, 41]]]), c)
    assert r2.by_kind["one-word"].recall == 0.0
    assert r2.by_kind["one-char"].recall == 1.0
    assert r2.by_kind["between-variants"].tp == 5 * (21 - 6)
    assert (r2.fp, r2.tp) == (2, 5 * 21)


def test_normalize_pairs_and_errors() -> None:
    assert normalize_pairs([[5, 2], [2, 5], [1, 1]]).tolist() == [[2, 5]]
    with pytest.raises(ValueError, match="only 3 documents"):
        evaluate([[0, 3]], [0, 0, 0])
    with pytest.raises(ValueError, match="shape"):
        normalize_pairs([1, 2, 3])
    with pytest.raises(ValueError, match="negative"):
        normalize_pairs([[-1, 2]])
    with pytest.raises(ValueError, match="group labels"):
        evaluate([[0, 1]], [[0, 0]])


def test_large_input_is_vectorised() -> None:
    rng = np.random.default_rng(0)
    group = rng.integers(0, 50_000, 200_000)
    pred = rng.integers(0, 200_000, (2_000_000, 2))
    r = evaluate(pred, group)
    p = normalize_pairs(pred)
    expect = int((group[p[:, 0]] == group[p[:, 1]]).sum())
    assert r.tp == expect and r.flagged == p.shape[0]
