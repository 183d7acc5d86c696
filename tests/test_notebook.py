"""Jupyter display of results and boilerplate stripping inside find_duplicates."""

from __future__ import annotations

import random

import numpy as np
import pytest

import neardup


def _texts(seed=0):
    rng = random.Random(seed)
    base = [" ".join(f"w{rng.randrange(10**6)}" for _ in range(80)) for _ in range(6)]
    return [*base, "<b>tagged</b> " + base[0], base[1].replace("w", "W", 3)]


def test_repr_html_shows_counts_and_pairs_side_by_side():
    texts = _texts()
    r = neardup.find_duplicates(texts, threshold=0.5)
    h = r._repr_html_()
    assert "<table" in h and f"<td>{r.n:,}</td>" in h and f"<td>{len(r.pairs)}</td>" in h
    assert texts[1][:60] in h  # the pair's text is shown
    assert "&lt;b&gt;tagged&lt;/b&gt;" in h and "<b>tagged</b>" not in h  # escaped
    assert f"{float(r.similarity.min()):.3f}" in h
    assert "DuplicateResult(" in repr(r)


def test_repr_html_with_arrow_texts():
    pa = pytest.importorskip("pyarrow")
    texts = _texts(1)
    r = neardup.find_duplicates(pa.array(texts), threshold=0.5)
    assert texts[0][:60] in r._repr_html_()


def test_plot_draws_a_histogram():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    r = neardup.find_duplicates(_texts(), threshold=0.5)
    ax = r.plot(bins=10)
    assert sum(p.get_height() for p in ax.patches) == len(r.pairs)


def test_find_duplicates_strip_boilerplate():
    rng = random.Random(2)
    footer = " ".join(f"f{i}" for i in range(80))
    texts = [
        " ".join(f"w{rng.randrange(10**6)}" for _ in range(80)) + " " + footer for _ in range(20)
    ]
    texts.append(texts[3] + " one more line")
    for method in ("exact-jaccard", "minhash", "simhash"):
        plain = neardup.find_duplicates(texts, threshold=0.3, method=method)
        clean = neardup.find_duplicates(texts, threshold=0.3, method=method, strip_boilerplate=0.5)
        assert plain.num_removed >= 15, method
        assert clean.pairs.tolist() == [[3, 20]], method
        assert clean.params["boilerplate"]["shingles_dropped"] >= 70
    est = neardup.find_duplicates(
        texts, threshold=0.3, method="minhash", verify="estimate", strip_boilerplate=0.5
    )
    assert est.pairs.tolist() == [[3, 20]]
    with pytest.raises(ValueError, match="sha256"):
        neardup.find_duplicates(texts, method="sha256", strip_boilerplate=0.5)
    assert np.array_equal(
        neardup.find_duplicates(texts, strip_boilerplate=None).clusters,
        neardup.find_duplicates(texts).clusters,
    )
