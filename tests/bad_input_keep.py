"""Bad-input rows for keep priorities (``find_duplicates(keep=array)``, ``annotate(table,
keep=COLUMN)``, ``neardup dedup --keep-priority``) and ``neardup dedup --annotate``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from bad_input import Row, cli, exits

import neardup
from neardup.errors import ArgumentTypeError, InvalidArgumentError

TEXTS = ["one two three four five six", "one two three four five six", "seven eight nine"]


def _find(keep: Any) -> Callable[[Path], Any]:
    return lambda tmp: neardup.find_duplicates(TEXTS, k=2, keep=keep)


def _annotate(keep: Any) -> Callable[[Path], Any]:
    df = pd.DataFrame({"text": TEXTS, "score": [1, 2, 3]})
    return lambda tmp: neardup.find_duplicates(df["text"], k=2).annotate(df, keep=keep)


def _rows(scores: list[Any]) -> str:
    return "".join(
        json.dumps({"id": i, "text": t, **({} if s is None else {"score": s})}) + "\n"
        for i, (t, s) in enumerate(zip(TEXTS, scores, strict=True))
    )


def _dedup(content: str, *args: str, name: str = "c.jsonl") -> Callable[[Path], Any]:
    def call(tmp: Path) -> Any:
        (tmp / name).write_text(content)
        proc = cli("dedup", str(tmp / name), "-q", "--k", "2", *args)
        return proc, sorted(p.name for p in tmp.iterdir())

    return call


def _exits(code: int, fragment: str, written: tuple[str, ...] = ()) -> Callable[[Any], bool]:
    """Exit ``code`` with ``fragment`` in one line of stderr, and no file but the input and
    ``written`` (an atomic write leaves neither a partial output nor a temporary file)."""

    def check(result: Any) -> bool:
        proc, files = result
        one_line = len(proc.stderr.strip().splitlines()) == 1
        return exits(code, fragment)(proc) and one_line and len(files) == 1 + len(written)

    return check


def _folder(tmp: Path) -> Any:
    (tmp / "docs").mkdir()
    for i, text in enumerate(TEXTS):
        (tmp / "docs" / f"{i}.txt").write_text(text)
    proc = cli("dedup", str(tmp / "docs"), "-q", "--annotate", str(tmp / "all"))
    return proc, sorted(p.name for p in tmp.iterdir())


_CSV = "id,text,score\n0,one two three four five six,1\n1,one two three four five six,x\n"
ROWS = [
    Row("find_duplicates(keep=[1, nan, 0])", _find([1, np.nan, 0]), InvalidArgumentError, "NaN"),
    Row("find_duplicates(keep=2 values)", _find([1, 2]), InvalidArgumentError, "2 priorities"),
    Row("find_duplicates(keep=strings)", _find(["a", "b", "c"]), ArgumentTypeError, "numbers"),
    Row("find_duplicates(keep=2-D)", _find([[1], [2], [3]]), InvalidArgumentError, "one number"),
    Row("find_duplicates(keep='priority')", _find("priority"), InvalidArgumentError, "takes the"),
    Row("find_duplicates(keep=None)", _find(None), InvalidArgumentError, "keep must be one of"),
    Row("annotate(keep='missing')", _annotate("missing"), InvalidArgumentError, "no such column"),
    Row("annotate(keep='text')", _annotate("text"), ArgumentTypeError, "numbers"),
    Row("annotate(keep=4 values)", _annotate([1, 2, 3, 4]), InvalidArgumentError, "4 priorities"),
    Row(
        "dedup --keep-priority, a cluster row without it",
        _dedup(_rows([1, None, 2]), "-o", "k.jsonl", "--keep-priority", "score"),
        check=_exits(1, "c.jsonl:2: no field 'score'"),
    ),
    Row(
        "dedup --keep-priority, a string priority",
        _dedup(_rows([1, "high", 2]), "-o", "k.jsonl", "--keep-priority", "score"),
        check=_exits(1, "'score' is str, expected a number"),
    ),
    Row(
        "dedup --keep-priority, CSV text that is no number",
        _dedup(_CSV, "-o", "k.csv", "--keep-priority", "score", name="c.csv"),
        check=_exits(1, "c.csv:3: 'score' is 'x', not a number"),
    ),
    Row(
        "dedup --keep-priority, missing CSV column",
        _dedup(_CSV, "-o", "k.csv", "--keep-priority", "rank", name="c.csv"),
        check=_exits(2, "no column 'rank' for --keep-priority"),
    ),
    Row(
        "dedup --keep longest --keep-priority",
        _dedup(_rows([1, 2, 3]), "-o", "k.jsonl", "--keep", "longest", "--keep-priority", "s"),
        check=_exits(2, "give --keep or --keep-priority, not both"),
    ),
    Row("dedup without -o or --annotate", _dedup(_rows([1, 2, 3])), check=_exits(2, "give -o")),
    Row(
        "dedup --engine ray --keep-priority",
        _dedup(_rows([1, 2, 3]), "-o", "k.jsonl", "--engine", "ray", "--keep-priority", "score"),
        check=_exits(2, "run on the local engine"),
    ),
    Row(
        "dedup --annotate <input>",
        lambda tmp: _dedup(_rows([1, 2, 3]), "--annotate", str(tmp / "c.jsonl"))(tmp),
        check=_exits(2, "is the same file as input"),
    ),
    Row(
        "dedup --annotate = -o",
        _dedup(_rows([1, 2, 3]), "-o", "same.jsonl", "--annotate", "same.jsonl"),
        check=_exits(2, "two outputs are same.jsonl"),
    ),
    Row("dedup <folder> --annotate <no extension>", _folder, check=_exits(2, "writes a table")),
    Row(
        "dedup --annotate, a row with a 'keep' field",
        _dedup(
            _rows([1, 2, 3]).replace('"score"', '"keep"'), "-o", "k.jsonl", "--annotate", "a.jsonl"
        ),
        check=_exits(1, "already has a field 'keep'"),
    ),
]
