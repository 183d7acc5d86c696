"""``--config FILE``: TOML option values for every command; the command line wins."""

from __future__ import annotations

import json

import pytest

from neardup.cli import main


@pytest.fixture
def corpus(tmp_path):
    assert main(["synth", "-o", str(tmp_path / "corpus.jsonl"), "--docs", "310"]) == 0
    return tmp_path / "corpus.jsonl"


def _summary(capsys):
    return json.loads(capsys.readouterr().out)


def test_config_values_are_used_and_the_command_line_wins(tmp_path, corpus, capsys):
    config = tmp_path / "dedup.toml"
    config.write_text('threshold = 0.5\nstrip_boilerplate = true\nkeep = "longest"\n')
    out = str(tmp_path / "kept.jsonl")
    assert (
        main(["dedup", str(corpus), "-o", out, "--json", "--quiet", "--config", str(config)]) == 0
    )
    first = _summary(capsys)
    params = first["params"]
    assert (
        params["threshold"] == 0.5
        and params["keep"] == "longest"
        and first["result"]["boilerplate"]
    )
    args = ["dedup", str(corpus), "-o", out, "--json", "--quiet", "--config", str(config)]
    assert main([*args, "--threshold", "0.7"]) == 0
    assert _summary(capsys)["params"]["threshold"] == 0.7


def test_nested_commands_take_a_config(tmp_path, corpus, capsys):
    config = tmp_path / "index.toml"
    config.write_text("threshold = 0.4\n")
    index = str(tmp_path / "c.ndx")
    assert main(["index", "add", index, str(corpus), "--config", str(config)]) == 0
    capsys.readouterr()
    assert main(["index", "stats", index]) == 0
    assert "0.4" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("thresh = 0.5\n", "unknown key 'thresh'"),
        ('threshold = "high"\n', "config key 'threshold'"),
        ("json = 3\n", "takes true or false"),
        ('keep = "middle"\n', "must be one of"),
        ("threshold = [0.5]\n", "takes one value"),
        ("threshold = \n", "not valid TOML"),
    ],
)
def test_bad_config_exits_2_before_running(tmp_path, corpus, capsys, text, message):
    config = tmp_path / "bad.toml"
    config.write_text(text)
    out = tmp_path / "kept.jsonl"
    assert main(["dedup", str(corpus), "-o", str(out), "--config", str(config)]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_missing_config_file(tmp_path, corpus, capsys):
    missing = str(tmp_path / "none.toml")
    assert main(["dedup", str(corpus), "-o", str(tmp_path / "k.jsonl"), "--config", missing]) == 2
    assert "no such file" in capsys.readouterr().err
