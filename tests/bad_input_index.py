"""Bad-input rows for the SQLite index (API and ``neardup index``): parameters refused before
anything is written, damaged files reported as IndexCorruptError, bad ids refused."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import subprocess

import pytest
from bad_input import Row, cli, exits

from neardup.errors import (
    IndexCorruptError,
    IndexMismatchError,
    IndexReadOnlyError,
    InputError,
    InputTypeError,
    InvalidArgumentError,
    ResourceError,
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


@contextlib.contextmanager
def _read_only(folder, how):
    """Make ``folder`` (and the files in it) unwritable for this process, even as root:
    ``chattr +i`` (an immutable folder and file: root's writes fail too) or a read-only
    tmpfs (``mount -o remount,ro``); as another user, ``chmod``. Skips where none works."""
    files = [p for p in folder.iterdir()]
    if how == "mount":
        if os.geteuid() != 0:
            pytest.skip("mounting needs root")
        copy = {p.name: p.read_bytes() for p in files}
        for p in files:
            p.unlink()
        if subprocess.run(["mount", "-t", "tmpfs", "tmpfs", str(folder)]).returncode != 0:
            pytest.skip("cannot mount a tmpfs here")
        try:
            for name, data in copy.items():
                (folder / name).write_bytes(data)
            subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
            yield
        finally:
            subprocess.run(["umount", str(folder)], check=False)
        return
    undo = []
    try:
        if os.geteuid() == 0:
            for p in [*files, folder]:
                if subprocess.run(["chattr", "+i", str(p)], capture_output=True).returncode:
                    pytest.skip("chattr +i is not supported on this file system")
                undo.append(["chattr", "-i", str(p)])
        else:
            for p in [*files, folder]:
                mode = stat.S_IMODE(p.stat().st_mode)
                p.chmod(mode & ~0o222)
                undo.append(["chmod", oct(mode)[2:], str(p)])
        if os.access(folder, os.W_OK):
            pytest.skip("the folder stays writable for this process")
        yield
    finally:
        for command in reversed(undo):
            subprocess.run(command, check=False)


def _on_read_only(action, how="chattr"):
    """``action(index)`` on a healthy index whose folder (file system) is read-only."""

    def call(tmp):
        (tmp / "ro").mkdir()
        with Index(tmp / "ro" / "ix.ndx", threshold=0.5) as ix:
            ix.add(["a", "b"], [TEXT, TEXT + " eleven"])
        with _read_only(tmp / "ro", how), Index(tmp / "ro" / "ix.ndx") as ix:
            return action(ix)

    return call


def _cli_on_read_only(*words, stdin=None):
    def call(tmp):
        (tmp / "ro").mkdir()
        with Index(tmp / "ro" / "ix.ndx", threshold=0.5) as ix:
            ix.add(["a", "b"], [TEXT, TEXT + " eleven"])
        (tmp / "in.jsonl").write_text(f'{{"id": "x", "text": "{TEXT}"}}\n')
        args = [
            w.replace("IX", str(tmp / "ro" / "ix.ndx")).replace("IN", str(tmp / "in.jsonl"))
            for w in words
        ]
        with _read_only(tmp / "ro", "chattr"):
            return cli("index", *args, stdin=stdin)

    return call


def _new_in_read_only(tmp):
    (tmp / "ro").mkdir()
    with _read_only(tmp / "ro", "chattr"):
        return Index(tmp / "ro" / "new.ndx")


def _dangling(create):
    def call(tmp):
        (tmp / "out").mkdir()
        (tmp / "link.ndx").symlink_to(tmp / "out" / "ix.ndx")
        with Index(tmp / "link.ndx", threshold=0.5, create=create) as ix:
            ix.add(["a"], [TEXT])
        return (tmp / "link.ndx").is_symlink(), (tmp / "out" / "ix.ndx").is_file()

    return call


def _device_index(tmp):
    try:
        os.mknod(tmp / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except OSError as e:
        pytest.skip(f"mknod: {e}")
    return Index(tmp / "null")


def _fifo_index(tmp):
    os.mkfifo(tmp / "pipe.ndx")
    return Index(tmp / "pipe.ndx")


def _full_disk(tmp):
    """``add`` on an index whose file system fills up: a clear error naming the file, and
    the index still opens and holds what it held."""
    if os.geteuid() != 0:
        pytest.skip("mounting needs root")
    (tmp / "small").mkdir()
    if subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(tmp / "small")]
    ).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        path = tmp / "small" / "ix.ndx"
        with Index(path, threshold=0.5) as ix:
            ix.add(["a"], [TEXT])
            texts = [f"{TEXT} {i} " + " ".join(str(i * j) for j in range(40)) for i in range(4000)]
            try:
                ix.add([f"d{i}" for i in range(len(texts))], texts)
            except ResourceError as e:
                error = e
            else:
                return "no error"
        with Index(path) as ix:
            return str(error), len(ix), ix.check()
    finally:
        subprocess.run(["umount", str(tmp / "small")], check=False)


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
    Row(
        "query(k=10**20)",
        _with(lambda ix: ix.query([TEXT], k=10**20)),
        InvalidArgumentError,
        "k must be at most 4611686018427387904",
    ),
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
    # issue 26 item 6: a healthy index on a read-only folder or file system opens read-only
    Row(
        "stats() on a read-only folder (chattr +i)",
        _on_read_only(lambda ix: ix.stats()["documents"]),
        check=lambda n: n == 2,
    ),
    Row(
        "query() on a read-only folder (chattr +i)",
        _on_read_only(lambda ix: [m.id for m in ix.query([TEXT])[0]]),
        check=lambda ids: ids == ["a", "b"],
    ),
    Row(
        "check() on a read-only folder (chattr +i)",
        _on_read_only(lambda ix: ix.check()),
        check=lambda r: r is None,
    ),
    Row(
        "add() on a read-only folder (chattr +i)",
        _on_read_only(lambda ix: ix.add(["c"], [TEXT])),
        IndexReadOnlyError,
        "the index is read-only",
    ),
    Row(
        "remove() on a read-only folder (chattr +i)",
        _on_read_only(lambda ix: ix.remove(["a"])),
        IndexReadOnlyError,
        "the index is read-only",
    ),
    Row(
        "query() on a read-only file system (mount -o ro)",
        _on_read_only(lambda ix: [m.id for m in ix.query([TEXT])[0]], how="mount"),
        check=lambda ids: ids == ["a", "b"],
    ),
    Row(
        "add() on a read-only file system (mount -o ro)",
        _on_read_only(lambda ix: ix.add(["c"], [TEXT]), how="mount"),
        IndexReadOnlyError,
        "the index is read-only",
    ),
    Row(
        "Index(new) in a read-only folder",
        _new_in_read_only,
        IndexReadOnlyError,
        "cannot create an index: folder .* is read-only",
    ),
    Row(
        "index stats on a read-only folder",
        _cli_on_read_only("stats", "IX"),
        check=lambda proc: proc.returncode == 0 and "documents: 2" in proc.stdout,
    ),
    Row(
        "index query on a read-only folder",
        _cli_on_read_only("query", "IX", "IN"),
        check=lambda proc: proc.returncode == 0 and '"id": "a"' in proc.stdout,
    ),
    Row(
        "index add on a read-only folder",
        _cli_on_read_only("add", "IX", "IN"),
        check=exits(1, "the index is read-only"),
    ),
    # issue 26 items 1 and 8: the index path
    Row(
        "Index(<dangling symlink>) creates the target",
        _dangling(True),
        check=lambda r: r == (True, True),
    ),
    Row(
        "Index(<dangling symlink>, create=False)",
        _dangling(False),
        InputError,
        "no such index \\(a symbolic link to",
    ),
    Row(
        "Index(<link into a missing folder>)",
        lambda tmp: (tmp / "l.ndx").symlink_to(tmp / "nowhere" / "x.ndx") or Index(tmp / "l.ndx"),
        InvalidArgumentError,
        "whose folder does not exist",
    ),
    Row("Index(<char device>)", _device_index, InvalidArgumentError, "is a character device"),
    Row("Index(<fifo>)", _fifo_index, InvalidArgumentError, "is a named pipe"),
    Row(
        "add() on a full disk",
        _full_disk,
        check=lambda r: (
            r != "no error"
            and "ix.ndx: no space left on device" in r[0]
            and r[1] == 1
            and r[2] is None
        ),
    ),
    Row(
        "index stats on a 0-byte file",
        lambda tmp: (
            ((tmp / "z.ndx").write_bytes(b"") and None) or cli("index", "stats", str(tmp / "z.ndx"))
        ),
        check=exits(1, "0 bytes"),
    ),
]
