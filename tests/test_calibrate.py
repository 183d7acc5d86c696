"""Calibration on corpora whose pairwise Jaccard distribution is known by construction."""

from __future__ import annotations

import json
import random
import warnings

import numpy as np
import pytest

import neardup
from neardup.calibrate import calibrate


def _two_point_corpus(n=200, seed=0):
    """k=1 word shingles. Odd documents share a 20-word block and have 40 unique words each:
    two odd documents have Jaccard 20 / (20 + 80) = 0.2 exactly; every other pair has 0."""
    shared = " ".join(f"shared{i}" for i in range(20))
    docs = []
    for i in range(n):
        own = " ".join(f"d{i}u{j}" for j in range(40))
        docs.append(
            own + " " + shared if i % 2 else own + " " + " ".join(f"d{i}x{j}" for j in range(20))
        )
    return docs


def test_known_distribution_quantiles_and_recommendation():
    texts = _two_point_corpus()
    cal = calibrate(texts, sample_pairs=5000, k=1, percentile=99, margin=0.05)
    sims = cal.similarities
    assert set(np.round(sims, 6).tolist()) <= {0.0, 0.2}
    share = float(np.mean(sims > 0.1))
    assert 0.18 < share < 0.32  # P(both odd) ~ 1/4
    assert cal.quantiles["p50"] == 0.0
    assert cal.quantiles["p90"] == pytest.approx(0.2)
    assert cal.quantiles["p99"] == pytest.approx(0.2)
    assert cal.quantiles["max"] == pytest.approx(0.2)
    assert cal.threshold == pytest.approx(0.25)
    assert cal.bands * cal.rows <= 128
    assert cal.s_star < cal.threshold
    assert cal.s_star == pytest.approx(neardup.lsh_threshold(cal.bands, cal.rows))
    assert cal.n_pairs == 5000 and cal.warnings == []
    assert "p99" in cal.table() and "0.25" in cal.table()


def test_low_percentile_moves_threshold():
    cal = calibrate(_two_point_corpus(), sample_pairs=4000, k=1, percentile=50, margin=0.05)
    assert cal.threshold == pytest.approx(0.05)


def test_given_pairs_are_used_verbatim():
    texts = _two_point_corpus(20)
    pairs = np.array([[1, 3], [0, 2], [5, 7]])
    cal = calibrate(texts, pairs=pairs, k=1)
    assert sorted(np.round(cal.similarities, 6).tolist()) == [0.0, 0.2, 0.2]
    with pytest.raises(ValueError, match="out of range"):
        calibrate(texts, pairs=[[0, 99]], k=1)


def test_all_pairs_when_corpus_is_small_and_seeded_sampling():
    texts = _two_point_corpus(10)
    assert calibrate(texts, sample_pairs=10_000, k=1).n_pairs == 45
    a = calibrate(_two_point_corpus(), sample_pairs=300, k=1, seed=4).similarities
    b = calibrate(_two_point_corpus(), sample_pairs=300, k=1, seed=4).similarities
    assert np.array_equal(a, b)


def test_warns_when_sample_is_full_of_duplicates():
    rng = random.Random(1)
    base = [" ".join(f"w{rng.randrange(10**6)}" for _ in range(80)) for _ in range(3)]
    texts = [base[i % 3] + f" tail{i}" for i in range(60)]  # 1/3 of pairs have J ~ 0.97
    with pytest.warns(UserWarning, match="p99"):
        cal = calibrate(texts, sample_pairs=1000)
    assert cal.quantiles["p99"] > 0.5 and cal.warnings


def test_empty_documents_are_skipped():
    texts = [*_two_point_corpus(30), "", "   "]
    cal = calibrate(texts, sample_pairs=10_000, k=1)
    assert cal.n_pairs == 30 * 29 // 2 and cal.skipped_empty == 32 * 31 // 2 - 30 * 29 // 2


def test_recommended_banding_is_the_recall_first_banding_of_the_threshold():
    cal = calibrate(_two_point_corpus(40), k=1)
    chosen = neardup.choose_banding(cal.threshold, cal.num_perm, "exact")
    assert (cal.bands, cal.rows) == (chosen.bands, chosen.rows)


def test_plot_writes_png(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "cal.png"
    calibrate(_two_point_corpus(40), k=1, plot=path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_strip_boilerplate_option_lowers_p99():
    rng = random.Random(5)
    footer = " ".join(f"f{i}" for i in range(60))
    texts = [
        " ".join(f"w{rng.randrange(10**6)}" for _ in range(60)) + " " + footer for _ in range(80)
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = calibrate(texts, sample_pairs=500)
        stripped = calibrate(texts, sample_pairs=500, strip_boilerplate=0.1)
    assert plain.quantiles["p99"] > 0.3
    assert stripped.quantiles["p99"] < 0.05
    assert stripped.boilerplate and stripped.boilerplate["shingles_dropped"] >= 50


def test_cli_calibrate_json(tmp_path, capsys):
    from neardup.cli import main

    inp = tmp_path / "c.jsonl"
    inp.write_text(
        "".join(
            json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(_two_point_corpus(60))
        )
    )
    png = tmp_path / "h.png"
    args = ["calibrate", str(inp), "--k", "1", "--sample-pairs", "800", "--json"]
    if _has_mpl():
        args += ["--plot", str(png)]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["result"]["quantiles"]["p99"] == pytest.approx(0.2)
    assert out["result"]["threshold"] == pytest.approx(0.25) and out["counts"]["documents"] == 60
    if _has_mpl():
        assert png.exists()
    pairs = tmp_path / "p.csv"
    pairs.write_text("a,b\n1,3\n0,2\n")
    assert main(["calibrate", str(inp), "--k", "1", "--pairs", str(pairs), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["counts"]["pairs"] == 2 and out["result"]["quantiles"]["max"] == pytest.approx(0.2)
    pairs.write_text("a,b\n1,999\n")
    assert main(["calibrate", str(inp), "--pairs", str(pairs)]) == 1
    assert "'999' not found" in capsys.readouterr().err


def _has_mpl():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True
