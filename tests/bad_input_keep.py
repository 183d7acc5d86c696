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

# Issue 26 item 3: priorities above 2**53 compare as integers (nanosecond timestamps), on
# every path. TEXTS[0] and TEXTS[1] are one cluster: the row with the higher priority stays.
NS = 1_700_000_000_000_000_000  # a nanosecond timestamp: float64 cannot tell NS from NS + 1
BIG: list[tuple[str, Any, list[bool]]] = [
    ("[2**53, 2**53 + 1]", [2**53, 2**53 + 1, 0], [False, True, True]),
    ("[2**53 + 1, 2**53]", [2**53 + 1, 2**53, 0], [True, False, True]),
    ("int64 [NS, NS + 1]", np.array([NS, NS + 1, 0], dtype=np.int64), [False, True, True]),
    (
        "uint64 [2**63, 2**63 + 1]",
        np.array([2**63, 2**63 + 1, 0], dtype=np.uint64),
        [False, True, True],
    ),
    ("[2**64 - 1, 2**64 - 2]", [2**64 - 1, 2**64 - 2, 0], [True, False, True]),
    ("[-1, 2**64 - 1] (int64 and uint64)", [-1, 2**64 - 1, 0], [False, True, True]),
    ("[2.0**53, 2**53 + 1] (float and int)", [2.0**53, 2**53 + 1, 0], [False, True, True]),
    ("[2**53 + 1, 2.0**53] (int and float)", [2**53 + 1, 2.0**53, 0], [True, False, True]),
    ("[0.5, 0.25] (floats)", [0.5, 0.25, 0.0], [True, False, True]),
]


def _keep_of(keep: Any) -> Callable[[Path], Any]:
    return lambda tmp: neardup.find_duplicates(TEXTS, k=2, keep=keep).keep.tolist()


def _table_keep(make: str) -> Callable[[Path], Any]:
    """``filter``/``annotate(table, keep="ns")`` on a pandas or Arrow table."""

    def call(tmp: Path) -> Any:
        result = neardup.find_duplicates(TEXTS, k=2)
        if make == "pandas":
            df = pd.DataFrame({"text": TEXTS, "ns": [NS, NS + 1, 0]})
            return result.filter(df, keep="ns").index.tolist(), result.annotate(df, keep="ns")[
                "keep"
            ].tolist()
        import pyarrow as pa

        table = pa.table({"text": TEXTS, "ns": pa.array([2**63, 2**63 + 1, 0], pa.uint64())})
        kept = result.filter(table, keep="ns")["ns"].to_pylist()
        return kept, result.annotate(table, keep="ns")["keep"].to_pylist()

    return call


def _dedup_kept(content: str, name: str) -> Callable[[Path], Any]:
    def call(tmp: Path) -> Any:
        (tmp / name).write_text(content)
        out = tmp / ("k" + name[name.index(".") :])
        proc = cli(
            "dedup", str(tmp / name), "-q", "--k", "2", "-o", str(out), "--keep-priority", "ns"
        )
        return proc, out.read_text() if out.exists() else ""

    return call


def _jsonl_ns(values: list[Any]) -> str:
    return "".join(
        json.dumps({"id": i, "text": t, "ns": v}) + "\n"
        for i, (t, v) in enumerate(zip(TEXTS, values, strict=True))
    )


def _kept_ids(*ids: int) -> Callable[[Any], bool]:
    def check(result: Any) -> bool:
        proc, text = result
        if proc.returncode != 0:
            return False
        if text.startswith("id,"):
            got = [int(line.split(",")[0]) for line in text.splitlines()[1:]]
        else:
            got = [json.loads(line)["id"] for line in text.splitlines()]
        return got == list(ids)

    return check


ROWS = [
    *[
        Row(f"find_duplicates(keep={name})", _keep_of(keep), check=lambda got, w=want: got == w)
        for name, keep, want in BIG
    ],
    Row(
        "filter/annotate(pandas, keep='ns') above 2**53",
        _table_keep("pandas"),
        check=lambda r: r == ([1, 2], [False, True, True]),
    ),
    Row(
        "filter/annotate(arrow uint64, keep='ns') above 2**63",
        _table_keep("arrow"),
        check=lambda r: r == ([2**63 + 1, 0], [False, True, True]),
    ),
    Row(
        "dedup --keep-priority, JSONL integers above 2**53",
        _dedup_kept(_jsonl_ns([NS, NS + 1, 0]), "c.jsonl"),
        check=_kept_ids(1, 2),
    ),
    Row(
        "dedup --keep-priority, JSONL int against float",
        _dedup_kept(_jsonl_ns([2**53 + 1, 2.0**53, 0]), "c.jsonl"),
        check=_kept_ids(0, 2),
    ),
    Row(
        "dedup --keep-priority, CSV integers above 2**53",
        _dedup_kept(
            "id,text,ns\n"
            + "".join(
                f"{i},{t},{v}\n"
                for i, (t, v) in enumerate(zip(TEXTS, [NS, NS + 1, 0], strict=True))
            ),
            "c.csv",
        ),
        check=_kept_ids(1, 2),
    ),
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
