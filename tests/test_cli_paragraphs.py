"""``neardup dedup --level paragraph`` end to end: the rows written equal the API's result,
every field kept, options and refusals."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import neardup
from neardup.cli import main

DATA = Path(__file__).parent / "data"


def rows_of(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    rows = rows_of(DATA / "realtext_descriptions.jsonl")[:400]
    rows.append({"source": "planted", "text": rows[3]["text"]})  # a whole document again
    rows.append({"source": "short", "text": "x"})
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_rows_equal_the_api(corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "clean.jsonl.gz"
    code = main(["dedup", str(corpus), "-o", str(out), "--level", "paragraph", "--json", "-q"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    source = rows_of(corpus)
    want = neardup.dedup_paragraphs([r["text"] for r in source])
    got = rows_of(out)
    assert [r["text"] for r in got] == want.texts
    assert [r["source"] for r in got] == [r["source"] for r in source]  # every field kept
    assert got[-2]["text"] == ""  # the planted copy lost every paragraph
    assert summary["counts"]["paragraphs_removed"] == int(want.removed.sum()) > 0
    assert summary["counts"]["documents"] == len(source) == summary["counts"]["written"]
    assert summary["params"]["level"] == "paragraph"


def test_batches_lines_drop_and_bloom(corpus: Path, tmp_path: Path) -> None:
    texts = [r["text"] for r in rows_of(corpus)]
    out = tmp_path / "a.jsonl"
    args = ["dedup", str(corpus), "-o", str(out), "--level", "paragraph", "-q"]
    assert main([*args, "--split", "line", "--batch-size", "7", "--threads", "2"]) == 0
    want = neardup.dedup_paragraphs(texts, split="line")
    assert [r["text"] for r in rows_of(out)] == want.texts
    assert main([*args, "--min-words", "3", "--drop-short"]) == 0
    want = neardup.dedup_paragraphs(texts, min_words=3, drop_short=True)
    assert [r["text"] for r in rows_of(out)] == want.texts
    assert len(want.kept) < len(texts)
    report = tmp_path / "r.md"
    assert main([*args, "--bloom-bits", str(1 << 22), "--report", str(report)]) == 0
    exact = neardup.dedup_paragraphs(texts)
    assert [r["text"] for r in rows_of(out)] == exact.texts  # no collision at this size
    assert "Bloom filter of 4,194,304 bits" in report.read_text()


def test_near_mode_equals_the_api(corpus: Path, tmp_path: Path) -> None:
    texts = [r["text"] for r in rows_of(corpus)]
    out = tmp_path / "near.jsonl"
    args = ["dedup", str(corpus), "-o", str(out), "--level", "paragraph", "-q"]
    assert main([*args, "--threshold", "0.6", "--batch-size", "50"]) == 0
    want = neardup.dedup_paragraphs(texts, threshold=0.6)
    assert [r["text"] for r in rows_of(out)] == want.texts
    assert want.removed.sum() >= neardup.dedup_paragraphs(texts).removed.sum()


def test_refusals(corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    base = ["dedup", str(corpus), "--level", "paragraph"]
    out = str(tmp_path / "o.jsonl")
    for extra, message in [
        (["-o", str(tmp_path / "o.parquet")], "writes JSONL"),
        (["-o", out, "--clusters", str(tmp_path / "c.csv")], "does not take --clusters"),
        (["-o", out, "--annotate", str(tmp_path / "a.jsonl")], "does not take --annotate"),
        (["--annotate", str(tmp_path / "a.jsonl")], "does not take --annotate"),
        (["-o", out, "--bloom-bits", "10"], "bloom_bits"),
        (["-o", out, "--bloom-bits", "4096", "--threshold", "0.5"], "exact mode"),
        (["-o", str(corpus)], "same file as input"),
    ]:
        assert main(base + extra) == 2, extra
        assert message in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "a"}\n{"text": null}\n', encoding="utf-8")
    assert main(["dedup", str(bad), "-o", out, "--level", "paragraph"]) == 1
    assert "bad.jsonl:2" in capsys.readouterr().err
