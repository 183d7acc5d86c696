"""Every command's ``--json`` summary follows one schema (neardup.commands._summary.SCHEMA):
the same top-level keys with the same types, whatever the command."""

from __future__ import annotations

import json

import pytest

import neardup
from neardup.cli import main
from neardup.commands._summary import SCHEMA

jsonschema = pytest.importorskip("jsonschema")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    where = tmp_path_factory.mktemp("summary")
    assert main(["synth", "-o", str(where / "corpus.jsonl"), "--docs", "200", "--seed", "3"]) == 0
    return where


def _one_json_line(text):
    lines = [line for line in text.splitlines() if line.startswith("{")]
    assert len(lines) == 1, text
    return json.loads(lines[0])


def _run(argv, capsys, stream="out"):
    assert main(argv) == 0
    captured = capsys.readouterr()
    return _one_json_line(getattr(captured, stream)), captured


def _valid(summary, command):
    jsonschema.validate(summary, SCHEMA)
    assert summary["command"] == command
    assert summary["version"] == neardup.__version__
    assert list(summary) == SCHEMA["required"]  # the same keys, in the same order
    return summary


def test_every_command_prints_the_same_schema(corpus, capsys):
    src, ndx = str(corpus / "corpus.jsonl"), str(corpus / "c.ndx")
    kept, annotated = str(corpus / "kept.jsonl"), str(corpus / "all.parquet")
    dedup, _ = _run(["dedup", src, "-o", kept, "--annotate", annotated, "-q", "--json"], capsys)
    _valid(dedup, "dedup")
    texts = [json.loads(line)["text"] for line in open(src, encoding="utf-8")]
    api = neardup.find_duplicates(texts)
    assert dedup["counts"]["kept"] == int(api.keep.sum())
    assert dedup["params"]["method"] == api.params["method"]
    assert dedup["outputs"] == {
        "kept": kept,
        "clusters": None,
        "annotate": annotated,
        "groups": None,
    }

    to_stdout, captured = _run(["dedup", src, "-o", "-", "-q", "--json"], capsys, "err")
    assert _valid(to_stdout, "dedup")["counts"] == dedup["counts"]
    assert all(json.loads(line)["id"] for line in captured.out.splitlines())  # rows, not JSON

    calibrate, _ = _run(["calibrate", src, "--json", "--sample-pairs", "500"], capsys)
    assert _valid(calibrate, "calibrate")["result"]["threshold"] > 0
    assert calibrate["counts"]["documents"] == len(texts)

    added, captured = _run(["index", "add", ndx, src, "--json"], capsys, "err")
    assert _valid(added, "index add")["counts"]["indexed"] == len(texts)
    queried, captured = _run(["index", "query", ndx, src, "--json", "--top-k", "2"], capsys, "err")
    assert _valid(queried, "index query")["counts"]["documents"] == len(texts)
    matches = [json.loads(line) for line in captured.out.splitlines()]
    ids = [m["id"] for m in matches] + [x["id"] for m in matches for x in m["matches"]]
    assert all(isinstance(i, str) for i in ids)  # one id type everywhere
    stats, _ = _run(["index", "stats", ndx, "--json"], capsys)
    assert _valid(stats, "index stats")["counts"]["documents"] == len(texts)
    assert stats["params"] == added["params"]


def test_the_schema_refuses_a_flat_summary():
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"documents": 3, "kept": 2}, SCHEMA)
