"""The index refuses bad parameters before writing, detects every kind of damage, never
reuses a document number, and resumes a killed ingest (issue 9 items 2, 3, 4, 11)."""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup.errors import (
    IndexCorruptError,
    IndexMismatchError,
    InputError,
    InputTypeError,
    InvalidArgumentError,
)
from neardup.index import Index

TEXT = "one two three four five six seven eight nine ten eleven twelve"
OTHER = "alpha beta gamma delta epsilon zeta eta theta"


def _docs(n, seed=0, words=40):
    rng = random.Random(seed)
    return [" ".join(f"w{rng.randrange(10**5)}" for _ in range(words)) for _ in range(n)]


def _built(tmp_path, n=20):
    path = tmp_path / "ix.ndx"
    with Index(path, threshold=0.5) as ix:
        ix.add([f"d{i}" for i in range(n)], _docs(n))
    return path


def _digest(path):
    return [
        hashlib.sha256(p.read_bytes()).hexdigest() if p.exists() else None
        for p in (path, path.with_name(path.name + "-wal"))
    ]


# -- item 2: document numbers -------------------------------------------------------------------
def test_removed_number_is_not_reused(tmp_path):
    ix = Index(tmp_path / "r.ndx")
    ix.add(["a", "b"], [OTHER, TEXT])
    ix.query([TEXT])  # loads the cache
    ix.remove(["b"])
    ix.add(["c"], [TEXT])
    assert [m.id for m in ix.query([TEXT])[0]] == ["c"]
    with Index(tmp_path / "r.ndx") as fresh:
        assert fresh.query([TEXT]) == ix.query([TEXT])
    ix.close()


_OPS = st.lists(
    st.tuples(st.sampled_from(["add", "remove", "query"]), st.integers(0, 5), st.integers(0, 2)),
    min_size=1,
    max_size=12,
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=_OPS)
def test_interleavings_agree_with_a_fresh_reopen(tmp_path_factory, ops):
    path = tmp_path_factory.mktemp("h") / "h.ndx"
    texts = [TEXT, OTHER, TEXT + " thirteen"]
    with Index(path, threshold=0.5) as ix:
        for op, doc, text in ops:
            name = f"id{doc}"
            if op == "add" and name not in ix:
                ix.add([name], [texts[text]])
            elif op == "remove":
                ix.remove([name])
            ix.query(texts)  # keep the cache warm between writes
            with Index(path) as fresh:
                assert ix.query(texts) == fresh.query(texts)
                assert ix.query(texts, k=2) == fresh.query(texts, k=2)
        ix.check()


# -- item 3: parameters ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "kw, match",
    [
        ({"bands": 0, "rows": 0}, "bands must be at least 1"),
        ({"num_perm": 0}, "num_perm must be at least 1"),
        ({"threshold": 5}, "threshold"),
        ({"bands": 50, "rows": 3}, "exceeds num_perm"),
        ({"k": 0}, "k must be"),
        ({"unit": "line"}, "unit"),
        ({"seed": -1}, "seed"),
        ({"hash_version": 99}, "hash_version"),
    ],
)
def test_bad_parameters_leave_no_file(tmp_path, kw, match):
    with pytest.raises(InvalidArgumentError, match=match):
        Index(tmp_path / "bad.ndx", **kw)
    assert list(tmp_path.iterdir()) == []


def test_bad_threshold_on_an_existing_index(tmp_path):
    path = _built(tmp_path)
    before = _digest(path)
    with pytest.raises(InvalidArgumentError, match="threshold"):
        Index(path, threshold=5)
    with Index(path) as ix:
        with pytest.raises(InvalidArgumentError, match="threshold"):
            ix.query([TEXT], threshold=5)
        with pytest.raises(InvalidArgumentError, match="k must be at least 1"):
            ix.query([TEXT], k=0)
    assert _digest(path) == before


def test_missing_folder_says_so(tmp_path):
    with pytest.raises(InvalidArgumentError, match=r"folder .* does not exist"):
        Index(tmp_path / "nope" / "x.ndx")


@pytest.mark.parametrize("bad", [None, 1.5, True, b"x", ("a",)])
def test_bad_ids_are_refused(tmp_path, bad):
    with Index(tmp_path / "i.ndx") as ix:
        with pytest.raises(InputTypeError, match=r"ids\[1\]"):
            ix.add(["a", bad], [TEXT, OTHER])
        assert len(ix) == 0
        ix.add([7], [TEXT])  # an int id is stored in decimal
        assert "7" in ix and 7 in ix and None not in ix


# -- item 4: damage -------------------------------------------------------------------------
def _sql(path, *statements):
    con = sqlite3.connect(path)
    for s in statements:
        con.execute(s)
    con.commit()
    con.close()


def test_zero_byte_file(tmp_path):
    path = tmp_path / "z.ndx"
    path.write_bytes(b"")
    with pytest.raises(IndexCorruptError, match="0 bytes"):
        Index(path)
    assert path.read_bytes() == b""


def test_foreign_sqlite_with_a_meta_table(tmp_path):
    path = tmp_path / "f.ndx"
    _sql(path, "CREATE TABLE meta(key TEXT, value TEXT)", "INSERT INTO meta VALUES ('a', '1')")
    with pytest.raises(IndexCorruptError, match="not a neardup index"):
        Index(path)


def test_meta_without_parameters(tmp_path):
    path = _built(tmp_path)
    _sql(path, "DELETE FROM meta WHERE key = 'plan'")
    with pytest.raises(IndexCorruptError, match="meta lacks plan"):
        Index(path)


def test_random_bytes_in_the_middle(tmp_path):
    path = tmp_path / "ix.ndx"
    with Index(path, threshold=0.5) as ix:
        ix.add([f"d{i}" for i in range(400)], _docs(400))
    _sql(path, "PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    mid = len(data) // 2
    data[mid : mid + 4096] = random.Random(1).randbytes(4096)
    path.write_bytes(bytes(data))
    before = _digest(path)
    with pytest.raises(IndexCorruptError):
        ix = Index(path)
        try:
            ix.check()
        finally:
            with pytest.raises(IndexCorruptError):  # no write after a database error
                ix.add(["new"], [TEXT])
            ix.close()
    assert _digest(path) == before


def test_deleted_band_rows(tmp_path):
    path = _built(tmp_path)
    _sql(path, "DELETE FROM bands WHERE doc % 2 = 0")
    with Index(path) as ix, pytest.raises(IndexCorruptError, match="band rows"):
        ix.check()


def test_changed_band_key(tmp_path):
    path = _built(tmp_path)
    _sql(
        path,
        "UPDATE bands SET band_key = band_key + 1 WHERE doc = 3 AND band_key = "
        "(SELECT min(band_key) FROM bands WHERE doc = 3)",
    )
    with Index(path) as ix, pytest.raises(IndexCorruptError, match="differ from the stored"):
        ix.check()


def test_one_byte_signature(tmp_path):
    path = _built(tmp_path)
    _sql(path, "UPDATE docs SET sig = x'00' WHERE id = 'd4'")
    with Index(path) as ix:
        with pytest.raises(IndexCorruptError, match="'d4' has a 1-byte signature"):
            ix.check()
    before = _digest(path)
    with Index(path) as ix:
        with pytest.raises(IndexCorruptError, match="1-byte signature"):
            ix.query([TEXT])  # the cache load sees it too
        with pytest.raises(IndexCorruptError, match="refusing to write"):
            ix.add(["new"], [TEXT])
    assert _digest(path) == before


def test_rewound_document_counter(tmp_path):
    path = _built(tmp_path)
    _sql(path, "UPDATE meta SET value = '2' WHERE key = 'next_doc'")
    with Index(path) as ix, pytest.raises(IndexCorruptError, match="document counter"):
        ix.check()


def test_older_format_is_a_mismatch(tmp_path):
    path = _built(tmp_path)
    _sql(path, "UPDATE meta SET value = '1' WHERE key = 'format'")
    with pytest.raises(IndexMismatchError, match="format 1"):
        Index(path)


def test_unknown_hash_version_names_the_versions(tmp_path):
    path = _built(tmp_path)
    con = sqlite3.connect(path)
    plan = json.loads(con.execute("SELECT value FROM meta WHERE key = 'plan'").fetchone()[0])
    plan["hash_version"] = 99
    con.execute("UPDATE meta SET value = ? WHERE key = 'plan'", (json.dumps(plan),))
    con.commit()
    con.close()
    with pytest.raises(IndexMismatchError, match="hash version 99; this neardup computes"):
        Index(path)


# -- item 11: resuming --------------------------------------------------------------------------
def test_skip_existing_resumes_and_refuses_a_changed_text(tmp_path):
    docs = _docs(6)
    with Index(tmp_path / "s.ndx", threshold=0.5) as ix:
        ix.add(["a", "b", "c"], docs[:3])
        with pytest.raises(InputError, match="'b' is already in the index"):
            ix.add(["b", "d"], [docs[1], docs[3]])
        res = ix.add(["b", "c", "d", "e"], [docs[1], docs[2], docs[3], docs[1]], skip_existing=True)
        assert res[:3] == [[], [], []] and [m.id for m in res[3]] == ["b"]
        assert len(ix) == 5
        with pytest.raises(InputError, match="'a' is already in the index with another text"):
            ix.add(["a"], [docs[5]], skip_existing=True)
        ix.check()
