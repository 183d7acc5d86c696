"""Bad-input rows for the SQLite index (API and ``neardup index``): parameters refused before
anything is written, damaged files reported as IndexCorruptError, bad ids refused."""

from __future__ import annotations

import sqlite3

from bad_input import Row, cli, exits

from neardup.errors import (
    IndexCorruptError,
    IndexMismatchError,
    InputError,
    InputTypeError,
    InvalidArgumentError,
)
from neardup.index import Index

TEXT = "one two three four five six seven eight nine ten"


def _new(**kw):
    return lambda tmp: Index(tmp / "new.ndx", **kw)


def _existing(tmp, **kw):
    path = tmp / "ix.ndx"
    with Index(path, threshold=0.5) as ix:
        ix.add(["a", "b"], [TEXT, TEXT + " eleven"])
    return path


def _open_existing(**kw):
    return lambda tmp: Index(_existing(tmp), **kw)


def _file(content: bytes):
    def call(tmp):
        (tmp / "f.ndx").write_bytes(content)
        return Index(tmp / "f.ndx")

    return call


def _foreign_meta(tmp):
    con = sqlite3.connect(tmp / "f.ndx")
    con.execute("CREATE TABLE meta(key TEXT, value TEXT)")
    con.commit()
    con.close()
    return Index(tmp / "f.ndx")


def _damaged(statement, action):
    def call(tmp):
        path = _existing(tmp)
        con = sqlite3.connect(path)
        con.execute(statement)
        con.commit()
        con.close()
        with Index(path) as ix:
            return action(ix)

    return call


def _with(action):
    def call(tmp):
        with Index(_existing(tmp)) as ix:
            return action(ix)

    return call


def _removed_nothing(tmp, ids):
    with Index(_existing(tmp)) as ix:
        try:
            ix.remove(ids)
        except InputTypeError:
            pass
        return sorted(i for i in ("a", "b") if i in ix)


def _cli_add(*extra):
    def call(tmp):
        src = tmp / "in.jsonl"
        src.write_text(f'{{"id": "x", "text": "{TEXT}"}}\n')
        return cli("index", "add", str(_existing(tmp)), str(src), *extra)

    return call


ROWS = [
    Row("Index(bands=0, rows=0)", _new(bands=0, rows=0), InvalidArgumentError, "bands must be"),
    Row("Index(num_perm=0)", _new(num_perm=0), InvalidArgumentError, "num_perm must be"),
    Row("Index(threshold=5)", _new(threshold=5), InvalidArgumentError, "threshold"),
    Row("Index(k=0)", _new(k=0), InvalidArgumentError, "k must be"),
    Row("Index(unit='line')", _new(unit="line"), InvalidArgumentError, "unit"),
    Row("Index(hash_version=99)", _new(hash_version=99), InvalidArgumentError, "hash_version"),
    Row(
        "Index in a missing folder",
        lambda tmp: Index(tmp / "missing" / "x.ndx"),
        InvalidArgumentError,
        "does not exist",
    ),
    Row("Index(create=False) missing", _new(create=False), InputError, "no such index"),
    Row("existing Index(threshold=5)", _open_existing(threshold=5), InvalidArgumentError, "thr"),
    Row("existing Index(num_perm=64)", _open_existing(num_perm=64), IndexMismatchError, "num_perm"),
    Row("Index on a 0-byte file", _file(b""), IndexCorruptError, "0 bytes"),
    Row("Index on random bytes", _file(b"\x00junk" * 500), IndexCorruptError, "not an SQLite"),
    Row("Index on foreign SQLite", _foreign_meta, IndexCorruptError, "not a neardup index"),
    Row(
        "check() with band rows deleted",
        _damaged("DELETE FROM bands WHERE doc = 1", lambda ix: ix.check()),
        IndexCorruptError,
        "band rows",
    ),
    Row(
        "check() with a 1-byte signature",
        _damaged("UPDATE docs SET sig = x'00' WHERE id = 'a'", lambda ix: ix.check()),
        IndexCorruptError,
        "1-byte signature",
    ),
    Row(
        "query() with a 1-byte signature",
        _damaged("UPDATE docs SET sig = x'00' WHERE id = 'a'", lambda ix: ix.query([TEXT])),
        IndexCorruptError,
        "1-byte signature",
    ),
    Row(
        "query(threshold=5)",
        _with(lambda ix: ix.query([TEXT], threshold=5)),
        InvalidArgumentError,
        "threshold",
    ),
    Row("query(k=0)", _with(lambda ix: ix.query([TEXT], k=0)), InvalidArgumentError, "k must"),
    Row("add(ids=[None])", _with(lambda ix: ix.add([None], [TEXT])), InputTypeError, r"ids\[0\]"),
    Row("add(ids=[1.5])", _with(lambda ix: ix.add([1.5], [TEXT])), InputTypeError, "float"),
    Row(
        "remove('ab') (a single str)",
        _with(lambda ix: ix.remove("ab")),
        InputTypeError,
        "not a single str",
    ),
    Row(
        "remove('ab') deletes nothing",
        lambda tmp: _removed_nothing(tmp, "ab"),
        check=lambda left: left == ["a", "b"],
    ),
    Row("remove(b'ab')", _with(lambda ix: ix.remove(b"ab")), InputTypeError, "single bytes"),
    Row("remove(5)", _with(lambda ix: ix.remove(5)), InputTypeError, "got int"),
    Row(
        "add(ids=['a\\udc80']) (lone surrogate)",
        _with(lambda ix: ix.add(["a\udc80"], [TEXT])),
        InputError,
        r"ids\[0\] = 'a\\udc80' is not valid Unicode",
    ),
    Row(
        "remove(['a\\udc80'])",
        _with(lambda ix: ix.remove(["a\udc80"])),
        InputError,
        "lone surrogate",
    ),
    Row(
        "signature('a\\udc80')",
        _with(lambda ix: ix.signature("a\udc80")),
        InputError,
        "lone surrogate",
    ),
    Row("'a\\udc80' in index", _with(lambda ix: "a\udc80" in ix), check=lambda r: r is False),
    Row("add(existing id)", _with(lambda ix: ix.add(["a"], [TEXT])), InputError, "already"),
    Row("add(id twice)", _with(lambda ix: ix.add(["c", "c"], [TEXT, TEXT])), InputError, "twice"),
    Row(
        "add(2 ids, 1 text)",
        _with(lambda ix: ix.add(["c", "d"], [TEXT])),
        InvalidArgumentError,
        "2 ids for 1 texts",
    ),
    Row("index add --threshold 7", _cli_add("--threshold", "7"), check=exits(2, "threshold")),
    Row("index add --batch-size 0", _cli_add("--batch-size", "0"), check=exits(2, "batch-size")),
    Row(
        "index add --batch-size 99999999999999999999",
        _cli_add("--batch-size", "99999999999999999999"),
        check=exits(2, "--batch-size must be at most"),
    ),
    Row(
        "index add --num-perm 64 (mismatch)",
        _cli_add("--num-perm", "64"),
        check=exits(1, "num_perm mismatch"),
    ),
    Row(
        "index query --top-k 0",
        lambda tmp: cli(
            "index",
            "query",
            str(_existing(tmp)),
            "-",
            "--top-k",
            "0",
            stdin='{"id": 1, "text": "a b"}\n',
        ),
        check=exits(2, "k must be"),
    ),
    Row(
        "index stats on a 0-byte file",
        lambda tmp: (
            ((tmp / "z.ndx").write_bytes(b"") and None) or cli("index", "stats", str(tmp / "z.ndx"))
        ),
        check=exits(1, "0 bytes"),
    ),
]
