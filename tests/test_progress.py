"""Progress from the crate: ``Run.near(progress=)`` hears each step of the near stage with what
it did (rust/progress.rs, read by the thread that waits for the work), and ``neardup dedup``
shows it beside the reading passes."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

import pytest

import neardup
from neardup import _core
from neardup.plan import make_plan
from neardup.spill import SetSpill


def _texts(n: int) -> list[str]:
    corpus = neardup.synth.generate(bases=n // 10, singles=n // 2, seed=4)
    return list(corpus.texts)[:n]


def _near(plan: Any, texts: list[str], progress: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    with SetSpill(plan.k, plan.unit) as spill:
        run = _core.Run(spill.core, plan.as_dict(), budget=1 << 24)
        run.sign(texts)
        collapsed = run.finish()
        return collapsed, run.near(verify_budget=1 << 20, progress=progress)


def _heard(calls: list[tuple[str, int, str]]) -> dict[tuple[str, str], int]:
    totals: dict[tuple[str, str], int] = defaultdict(int)
    for step, n, unit in calls:
        totals[(step, unit)] += n
    return dict(totals)


# 300 unique documents run on the calling thread; 12,000 on a worker, polled while it works
@pytest.mark.parametrize("n", [300, 12_000])
@pytest.mark.parametrize("pairs", ["all", "auto"])
def test_each_step_of_a_minhash_stage_is_heard_with_what_it_did(n, pairs):
    calls: list[tuple[str, int, str]] = []
    plan = make_plan(method="minhash", threshold=0.5, pairs=pairs)
    collapsed, found = _near(plan, _texts(n), lambda *call: calls.append(call))
    heard = _heard(calls)
    bands = found["banding"][0]
    steps = list(dict.fromkeys(step for step, _, _ in calls))
    if pairs == "auto":  # the first band decides whether all pairs are listed
        assert steps[0] == "LSH first band" and heard[("LSH first band", "bands")] == 1
    assert heard[("LSH search", "bands")] == bands
    assert heard[("verify", "pairs")] == found["candidates"] > 0
    assert heard[("cluster", "docs")] == len(collapsed["first"])
    assert steps[-3:] == ["LSH search", "verify", "cluster"]


@pytest.mark.parametrize(
    ("method", "threshold"), [("simhash", 0.9), ("simhash", 0.3), ("exact-jaccard", 0.5)]
)
def test_the_other_searches_are_heard_too(method, threshold):
    calls: list[tuple[str, int, str]] = []
    plan = make_plan(method=method, threshold=threshold)
    collapsed, found = _near(plan, _texts(2000), lambda *call: calls.append(call))
    heard = _heard(calls)
    m = len(collapsed["selected"])
    if method == "simhash":
        search, _, _, _, brute_force = found["simhash_plan"]
        assert (search == "brute force") == (threshold == 0.3)  # radius 22 of 64 bits
        if search == "brute force":  # every pair of distinct fingerprints compared
            assert heard[("SimHash brute force", "pairs")] == brute_force
        else:  # "index (T tables of ...)": each table heard once searched
            tables = int(re.search(r"\((\d+) tables", search).group(1))
            assert heard[("SimHash tables", "tables")] == tables
        assert heard[("verify", "pairs")] == found["candidates"]
    else:
        assert heard[("exact Jaccard", "docs")] == m
    assert heard[("cluster", "docs")] == len(collapsed["first"])


def test_an_exception_in_the_callback_stops_the_stage():
    def refuse(step: str, n: int, unit: str) -> None:
        if step == "verify":
            raise RuntimeError("enough")

    plan = make_plan(method="minhash", threshold=0.5)
    with SetSpill(plan.k, plan.unit) as spill:
        run = _core.Run(spill.core, plan.as_dict(), budget=1 << 24)
        run.sign(_texts(12_000))
        run.finish()
        with pytest.raises(RuntimeError, match="enough"):
            run.near(verify_budget=1 << 20, progress=refuse)
        with pytest.raises(neardup.errors.InvalidArgumentError, match="after near"):
            run.keep(report=False, max_pairs=1)  # nothing was decided


@pytest.mark.parametrize("units", [False, True])
def test_neardup_dedup_shows_the_near_stage_beside_its_reading(tmp_path, units):
    import json

    from neardup.dedup import dedup_files

    path = tmp_path / "in.jsonl"
    rows = [{"text": t, "repo": i // 2} for i, t in enumerate(_texts(500))]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    calls: list[tuple[str, int, str]] = []

    def progress(stage: str, n: int, unit: str = "docs") -> None:
        calls.append((stage, n, unit))

    options = {"unit_field": "repo"} if units else {}
    out = str(tmp_path / "kept.jsonl")
    dedup_files([str(path)], out, threshold=0.5, progress=progress, **options)
    heard = _heard(calls)
    assert heard[("read", "docs")] == 500  # rows read
    assert heard[("cluster", "docs")] == (250 if units else 500)  # units clustered
    assert [step for step, _, _ in calls][-1] == "cluster"


def test_the_terminal_display_counts_each_step_in_its_unit(capsys):
    pytest.importorskip("rich")
    from neardup._progress import progress_reporter

    with progress_reporter(True) as tick:
        tick("read", 10)
        tick("LSH search", 9, "bands")
    shown = capsys.readouterr()
    text = shown.out + shown.err
    assert "10 docs" in text and "9 bands" in text
