"""``neardup synth``: the corpus every README walkthrough starts from."""

from __future__ import annotations

import json

import pytest

import neardup
from neardup.cli import main


def _read_jsonl(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_writes_the_labelled_corpus(tmp_path):
    out = tmp_path / "corpus.jsonl"
    assert main(["synth", "-o", str(out), "--docs", "310", "--seed", "3"]) == 0
    rows = _read_jsonl(out)
    bases, singles = neardup.synth.preset(310)
    corpus = neardup.synth.generate(bases=bases, singles=singles, seed=3)
    assert [r["text"] for r in rows] == corpus.texts
    assert [r["group"] for r in rows] == corpus.group.tolist()
    assert len({r["id"] for r in rows}) == len(rows)


def test_holdout_splits_without_loss(tmp_path):
    out, held = tmp_path / "batch-001.jsonl", tmp_path / "incoming.jsonl"
    args = ["synth", "-o", str(out), "--docs", "500", "--holdout", str(held)]
    assert main([*args, "--holdout-share", "0.2"]) == 0
    kept, incoming = _read_jsonl(out), _read_jsonl(held)
    assert len(incoming) == 100 and len(kept) == 400
    ids = [r["id"] for r in kept + incoming]
    assert sorted(ids) == sorted(f"doc-{i}" for i in range(500))
    # Held-out documents have labelled duplicates left in the main file, to query for.
    groups = {r["group"] for r in kept}
    assert any(r["group"] in groups for r in incoming if r["group"] >= 0)


def test_parquet_output(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "corpus.parquet"
    assert main(["synth", "-o", str(out), "--docs", "100", "--boilerplate", "0.3"]) == 0
    table = pq.read_table(out)
    assert table.column_names == ["id", "text", "group", "edit"] and table.num_rows == 100


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--docs", "5"], "--docs must be at least 10"),
        (["--boilerplate", "1.0"], "--boilerplate must be in [0, 1)"),
        (["--holdout-share", "0"], "--holdout-share must be in (0, 1]"),
    ],
)
def test_bad_options_exit_2(tmp_path, capsys, option, message):
    assert main(["synth", "-o", str(tmp_path / "c.jsonl"), *option]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "c.jsonl").exists()
