"""``neardup dedup --report report.html``: a self-contained page with the plan, the sweep, the
largest groups and sample pairs around a threshold, every text escaped, nothing re-read
beyond the one pass the reason column makes (tests/test_browser.py opens it in Chromium)."""

from __future__ import annotations

import html
import json
import re

import numpy as np
import pytest
from bad_input import cli

import neardup
from neardup import engine
from neardup.dedup import dedup_files, reasons_and_texts
from neardup.html_report import (
    LARGEST_GROUPS,
    MEMBERS_SHOWN,
    SAMPLE_PAIRS,
    plan_sample,
    render,
    sample_rows,
    sweep_svg,
)
from neardup.plan import make_plan
from neardup.stores import MemoryStore

CORPUS = neardup.synth.generate(bases=12, singles=20, seed=3)
HOSTILE = "<script>alert('x')</script> & \"quoted\" é\u0301 日本語のテキスト " * 3


def _texts():
    texts = list(CORPUS.texts)
    # the largest group's text is markup: it must come out escaped
    words = " ".join(f"w{i}" for i in range(60))
    texts += [f"{HOSTILE}{words} variant {v}" for v in range(9)]
    return texts


def _write(path, texts):
    rows = [{"id": f"doc-{i}", "text": t} for i, t in enumerate(texts)]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    where = tmp_path_factory.mktemp("report")
    _write(where / "c.jsonl", _texts())
    proc = cli("dedup", "c.jsonl", "-o", "k.jsonl", "--report", "r.html", "-q", cwd=where)
    assert proc.returncode == 0, proc.stderr
    return (where / "r.html").read_text(encoding="utf-8")


def test_page_is_self_contained_and_escaped(page):
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page  # the hostile text is there, escaped
    assert html.escape("<script>alert('x')</script>") in page
    assert not re.search(r"\b(src|href)\s*=", page)  # nothing to load
    assert "default-src 'none'" in page  # and the page forbids any load
    assert "<svg id='sweep-plot'" in page and page.count("<polyline") == 2
    assert "<mark>" in page


def test_page_shows_the_runs_groups_and_sweep(page):
    texts = _texts()
    r = neardup.find_duplicates(texts)
    groups, sweep = r.groups(), r.sweep()
    assert f"{len(groups):,} duplicate groups" in page
    for g in range(min(LARGEST_GROUPS, len(groups))):
        for m in groups[g]["members"][:MEMBERS_SHOWN].tolist():
            assert f"doc-{m} (#{m})" in page
    for t, kept in zip(sweep.threshold.tolist(), sweep.kept.tolist(), strict=True):
        assert f"<tr><td>{t:.4g}</td><td>{kept:,}</td>" in page


def test_sampled_pairs_are_the_closest_on_each_side():
    r = neardup.find_duplicates(_texts())
    s = plan_sample(r)
    sims = r.similarity.astype(np.float64)
    assert s.reference == float(r.sweep().threshold[1])
    lower, upper = sims[sims < s.reference], sims[sims >= s.reference]
    np.testing.assert_array_equal(np.sort(sims[s.below])[::-1], np.sort(lower)[::-1][:SAMPLE_PAIRS])
    np.testing.assert_array_equal(np.sort(sims[s.above]), np.sort(upper)[:SAMPLE_PAIRS])
    assert len(s.below) == min(SAMPLE_PAIRS, len(lower)) > 0
    assert len(s.above) == min(SAMPLE_PAIRS, len(upper)) > 0


def test_each_sampled_pair_is_explained_with_its_shared_text():
    texts = _texts()
    r = neardup.find_duplicates(texts)
    s = plan_sample(r)
    page = render(neardup.dedup.DedupSummary(), s, {i: texts[i] for i in sample_rows(s).tolist()})
    for p in [*s.below.tolist(), *s.above.tolist()]:
        i, j = r.pairs[p].tolist()
        e = r.explain(i, j)
        assert e._repr_html_() in page  # the notebook's renderer, not a second one
        assert f"{r.similarity[p]:.4f}" in page


class CountingStore(MemoryStore):
    def __init__(self, texts):
        super().__init__(texts, batch_size=7)
        self.passes = []

    def batches(self, pass_name):
        self.passes.append(pass_name)
        return super().batches(pass_name)


def test_texts_come_from_the_reason_pass_only():
    texts = _texts()
    store = CountingStore(texts)
    outcome = engine.run(make_plan(), store)
    before = list(store.passes)
    wanted = np.array([0, 5, len(texts) - 1])
    reason, shown = reasons_and_texts(outcome, store, wanted)
    assert store.passes == [*before, "reason"]  # one pass, shared with the reason column
    assert shown == {i: texts[i] for i in wanted.tolist()}
    assert reason.tolist() == neardup.find_duplicates(texts).reason.tolist()
    store.passes.clear()
    reasons_and_texts(engine.run(make_plan(), CountingStore(["a", "b"])), store)
    assert store.passes == []  # nothing to read: no pass


def test_group_previews_never_cut_a_character():
    base = "a" + "e\u0301" * 150  # position 80 is a combining mark
    texts = [base, base + " x"]
    r = neardup.find_duplicates(texts, k=1, threshold=0.5)
    shown = r.groups()._repr_html_(preview=80)
    assert "\u0301" in shown
    assert all(shown[m.start() - 1] == "e" for m in re.finditer("\u0301", shown))


def test_sweep_plot_follows_the_counts():
    r = neardup.find_duplicates(_texts())
    sweep = r.sweep([r.threshold, 0.9])
    svg = sweep_svg(sweep, width=400, height=200)
    lines = re.findall(r"<polyline class='series' points='([^']*)'", svg)
    kept = [tuple(map(float, p.split(","))) for p in lines[0].split()]
    removed = [tuple(map(float, p.split(","))) for p in lines[1].split()]
    # more kept at the higher threshold: its point is higher (smaller y)
    assert sweep.kept[1] > sweep.kept[0] and kept[1][1] < kept[0][1]
    assert sweep.removed[1] < sweep.removed[0] and removed[1][1] > removed[0][1]


def test_spanning_run_says_why_there_is_no_sweep(tmp_path):
    _write(tmp_path / "c.jsonl", _texts())
    dedup_files(
        [str(tmp_path / "c.jsonl")],
        None,
        report=str(tmp_path / "r.html"),
        method="minhash",
        pairs="spanning",
    )
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "No sweep:" in page and "spanning" in page and "<svg" not in page
    assert "<mark>" in page  # the pairs are still shown


def test_markdown_report_is_unchanged_and_html_refused_where_unsupported(tmp_path):
    _write(tmp_path / "c.jsonl", _texts())
    proc = cli("dedup", "c.jsonl", "-o", "k.jsonl", "--report", "r.md", "-q", cwd=tmp_path)
    assert proc.returncode == 0 and (tmp_path / "r.md").read_text().startswith("# Dedup")
    for extra in (["--engine", "ray"], ["--level", "paragraph"]):
        proc = cli("dedup", "c.jsonl", "-o", "k.jsonl", "--report", "r.html", *extra, cwd=tmp_path)
        assert proc.returncode == 2 and "HTML --report" in proc.stderr, proc.stderr
    assert not (tmp_path / "r.html").exists()
