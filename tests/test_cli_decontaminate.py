"""``neardup decontaminate``: the documents holding a test item are removed (or marked with
--annotate), the report lists every match with the spans of both texts, fields and formats are
read as ``dedup`` reads them, and bad arguments exit 2 without output."""

from __future__ import annotations

import csv
import json

import pytest

from neardup.cli import main

TESTS = [
    {"id": "t1", "text": "the quick brown fox jumps over the lazy dog"},
    {"id": "t2", "text": "to be or not to be that is the question"},
]
CORPUS = [
    {"id": "d0", "text": "Once upon a time, the quick brown fox jumps over the lazy dog. End."},
    {"id": "d1", "text": "nothing to see here at all, really nothing"},
    {"id": "d2", "text": "Hamlet said: To be, or not to be, that is the question!"},
    {"id": "d3", "text": "the quick brown fox"},
    {"id": "d4", "text": "to be or not to be that is what he asked, the quick brown fox"},
]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def files(tmp_path):
    write_jsonl(tmp_path / "test.jsonl", TESTS)
    write_jsonl(tmp_path / "corpus.jsonl", CORPUS)
    return tmp_path


def test_removes_contaminated_and_reports_spans(files):
    out, report = files / "clean.jsonl", files / "matches.jsonl"
    code = main(
        [
            "decontaminate",
            str(files / "corpus.jsonl"),
            "--against",
            str(files / "test.jsonl"),
            "-o",
            str(out),
            "--report",
            str(report),
            "-q",
        ]
    )
    assert code == 0
    assert [r["id"] for r in read_jsonl(out)] == ["d1", "d3", "d4"]
    rows = read_jsonl(report)
    assert [(r["test_id"], r["document_id"], r["score"]) for r in rows] == [
        ("t1", "d0", 1.0),
        ("t2", "d2", 1.0),
    ]
    first = rows[0]
    start, end = first["document_spans"][0]
    assert CORPUS[0]["text"][start:end] == "the quick brown fox jumps over the lazy dog"
    assert first["test_spans"] == [[0, len(TESTS[0]["text"])]]
    assert (first["k"], first["unit"], first["measure"]) == (5, "word", "containment")
    assert (first["threshold"], first["hash_version"]) == (0.8, 2)


def test_threshold_and_annotate(files):
    out = files / "all.jsonl"
    # d4 holds 4 of the 6 word 5-shingles of t2 (up to "not to be that is")
    code = main(
        [
            "decontaminate",
            str(files / "corpus.jsonl"),
            "--against",
            str(files / "test.jsonl"),
            "-o",
            str(out),
            "--annotate",
            "--threshold",
            "0.3",
            "-q",
        ]
    )
    assert code == 0
    rows = read_jsonl(out)
    assert [r["id"] for r in rows] == [r["id"] for r in CORPUS]  # every row, marked
    assert [r["contaminated"] for r in rows] == [True, False, True, False, True]
    assert rows[4]["max_score"] == pytest.approx(4 / 6, abs=1e-6)
    assert [r["matches"] for r in rows] == [1, 0, 1, 0, 1]


def test_csv_with_fields(tmp_path):
    for name, rows in (("test.csv", TESTS), ("corpus.csv", CORPUS)):
        with open(tmp_path / name, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, ["key", "body"])
            w.writeheader()
            w.writerows({"key": r["id"], "body": r["text"]} for r in rows)
    out = tmp_path / "clean.csv"
    code = main(
        [
            "decontaminate",
            str(tmp_path / "corpus.csv"),
            "--against",
            str(tmp_path / "test.csv"),
            "-o",
            str(out),
            "--text-field",
            "body",
            "--id-field",
            "key",
            "-q",
        ]
    )
    assert code == 0
    with open(out, newline="", encoding="utf-8") as f:
        assert [r["key"] for r in csv.DictReader(f)] == ["d1", "d3", "d4"]


def test_json_summary(files, capsys):
    code = main(
        [
            "decontaminate",
            str(files / "corpus.jsonl"),
            "--against",
            str(files / "test.jsonl"),
            "-o",
            str(files / "c.jsonl"),
            "--json",
            "-q",
        ]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["command"] == "decontaminate"
    assert summary["counts"]["contaminated"] == 2 and summary["counts"]["written"] == 3
    assert summary["params"]["hash_version"] == 2


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--threshold", "1.5"], "threshold must be in (0, 1]"),
        (["--threshold", "0"], "threshold must be in (0, 1]"),
        (["--k", "0"], "k must be"),
    ],
)
def test_bad_arguments_exit_2_without_output(files, capsys, extra, message):
    out = files / "clean.jsonl"
    code = main(
        [
            "decontaminate",
            str(files / "corpus.jsonl"),
            "--against",
            str(files / "test.jsonl"),
            "-o",
            str(out),
            *extra,
        ]
    )
    assert code == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_empty_test_item_is_an_input_error(files, capsys):
    write_jsonl(files / "bad.jsonl", [*TESTS, {"id": "t3", "text": " ... "}])
    out = files / "clean.jsonl"
    code = main(
        [
            "decontaminate",
            str(files / "corpus.jsonl"),
            "--against",
            str(files / "bad.jsonl"),
            "-o",
            str(out),
        ]
    )
    assert code == 1
    assert "queries[2] has no words" in capsys.readouterr().err
    assert not out.exists()


def test_output_may_not_be_an_input(files, capsys):
    corpus = files / "corpus.jsonl"
    code = main(
        ["decontaminate", str(corpus), "--against", str(files / "test.jsonl"), "-o", str(corpus)]
    )
    assert code == 2
    assert "same file as input" in capsys.readouterr().err
    assert [r["id"] for r in read_jsonl(corpus)] == [r["id"] for r in CORPUS]


def test_report_gzipped_or_refused(files, capsys):
    import gzip

    base = ["decontaminate", str(files / "corpus.jsonl"), "--against", str(files / "test.jsonl")]
    report = files / "m.jsonl.gz"
    assert main([*base, "-o", str(files / "a.jsonl"), "--report", str(report), "-q"]) == 0
    with gzip.open(report, "rt", encoding="utf-8") as f:
        assert [json.loads(line)["document_id"] for line in f] == ["d0", "d2"]
    out = files / "b.jsonl"
    assert main([*base, "-o", str(out), "--report", str(files / "m.csv")]) == 2
    assert "the report is JSONL" in capsys.readouterr().err
    assert not out.exists()
