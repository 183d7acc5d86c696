"""The SQLite index: round trip, parameter checks, batch independence, a killed writer."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import neardup
from neardup.index import Index, IndexCorruptError, IndexMismatchError, Match


def _docs(n, seed=0, words=120):
    rng = random.Random(seed)
    return [" ".join(f"w{rng.randrange(10**6)}" for _ in range(words)) for _ in range(n)]


def _variant(text, change=3, seed=0):
    rng = random.Random(seed)
    w = text.split()
    for _ in range(change):
        w[rng.randrange(len(w))] = f"edit{rng.randrange(10**6)}"
    return " ".join(w)


def test_round_trip_add_query_remove(tmp_path):
    path = tmp_path / "ix.ndx"
    base = _docs(30)
    with Index(path, threshold=0.5) as ix:
        assert ix.add([f"d{i}" for i in range(30)], base) == [[] for _ in range(30)]
        assert len(ix) == 30 and "d3" in ix and "zz" not in ix
        sig = ix.signature("d3")
        assert sig.dtype == np.uint32 and sig.shape == (128,)
        assert np.array_equal(sig, np.asarray(neardup.minhash([base[3]]))[0])
    with Index(path) as ix:  # reopen: parameters come from the file
        assert (ix.threshold, ix.num_perm, ix.k) == (0.5, 128, 5)
        q = ix.query([_variant(base[3]), "completely different words that match nothing"])
        assert [m.id for m in q[0]] == ["d3"] and q[0][0].similarity >= 0.5 and q[1] == []
        assert ix.remove(["d3", "missing"]) == 1
        assert ix.query([_variant(base[3])]) == [[]]
        assert len(ix) == 29
        ix.check()
    con = sqlite3.connect(path)
    assert len(con.execute("SELECT sig FROM docs LIMIT 1").fetchone()[0]) == 512
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_add_returns_existing_matches_including_earlier_in_batch(tmp_path):
    base = _docs(5, seed=1)
    v = _variant(base[0], seed=1)
    with Index(tmp_path / "a.ndx", threshold=0.5) as ix:
        ix.add(["a", "b", "c", "d", "e"], base)
        res = ix.add(["v1", "v2", "x"], [v, v, "nothing to see here at all today"])
    assert [m.id for m in res[0]] == ["a"]
    assert [m.id for m in res[1]] == ["v1", "a"]  # v1 (identical) first, then a
    assert res[1][0] == Match("v1", 1.0) and res[2] == []


def test_results_do_not_depend_on_batching(tmp_path):
    base = _docs(12, seed=2)
    texts = base + [_variant(t, seed=i) for i, t in enumerate(base[:6])] + [base[1]]
    ids = [f"t{i}" for i in range(len(texts))]
    with Index(tmp_path / "one.ndx", threshold=0.4) as ix:
        together = ix.add(ids, texts)
    with Index(tmp_path / "many.ndx", threshold=0.4) as ix:
        apart = [ix.add([i], [t])[0] for i, t in zip(ids, texts, strict=False)]
    assert together == apart
    assert sum(1 for m in together if m) == 7


def test_duplicate_ids_rejected_without_writing(tmp_path):
    with Index(tmp_path / "d.ndx") as ix:
        ix.add(["a"], ["some text for the first document here"])
        with pytest.raises(ValueError, match="'a' is already in the index"):
            ix.add(["b", "a"], ["other text", "more"])
        with pytest.raises(ValueError, match="appears twice"):
            ix.add(["c", "c"], ["x", "y"])
        assert len(ix) == 1 and "b" not in ix


def test_empty_documents_are_stored_but_never_match(tmp_path):
    with Index(tmp_path / "e.ndx") as ix:
        assert ix.add(["e1", "e2"], ["", "   "]) == [[], []]
        assert ix.query([""]) == [[]]
        st = ix.stats()
        assert st["documents"] == 2 and st["empty_documents"] == 2 and st["band_rows"] == 0


@pytest.mark.parametrize(
    "kw",
    [{"num_perm": 64}, {"k": 3}, {"seed": 1}, {"bands": 20, "rows": 5}, {"unit": "char"}],
)
def test_parameter_mismatch_is_an_error(tmp_path, kw):
    path = tmp_path / "p.ndx"
    Index(path, threshold=0.3, num_perm=128, k=5, seed=0).close()
    key = next(iter(kw))
    with pytest.raises(IndexMismatchError, match=f"{key} mismatch"):
        Index(path, **kw)
    Index(path, threshold=0.8).close()  # threshold is a verification setting: allowed


def test_changed_hash_bits_are_detected(tmp_path):
    path = tmp_path / "h.ndx"
    Index(path).close()
    con = sqlite3.connect(path)
    con.execute("UPDATE meta SET value = ? WHERE key = 'signature_probe'", (json.dumps("0" * 32),))
    con.commit()
    con.close()
    with pytest.raises(
        IndexMismatchError,
        match="signature mismatch: this neardup build computes other hash version "
        f"{neardup.HASH_VERSION}",
    ):
        Index(path)


def test_not_an_index(tmp_path):
    p = tmp_path / "other.db"
    con = sqlite3.connect(p)
    con.execute("CREATE TABLE t(x)")
    con.commit()
    con.close()
    with pytest.raises(IndexCorruptError, match="not a neardup index"):
        Index(p)
    junk = tmp_path / "junk.ndx"
    junk.write_bytes(b"definitely not sqlite" * 100)
    with pytest.raises(IndexCorruptError, match="not an SQLite file"):
        Index(junk)


CHILD = textwrap.dedent(
    """
    import random, sys, time
    from neardup.index import Index

    path, batch = sys.argv[1], int(sys.argv[2])
    rng = random.Random(0)
    ix = Index(path, threshold=0.5)


    class Stall:  # delegates to the connection; stalls inside the 4th batch's transaction
        def __init__(self, con):
            self._con = con

        def __getattr__(self, name):
            return getattr(self._con, name)

        def executemany(self, sql, rows):
            out = self._con.executemany(sql, rows)
            if "INTO bands" in sql and b == 3:
                print("inside", flush=True)  # documents and some band keys written, no COMMIT
                time.sleep(60)
            return out


    ix._store.db = Stall(ix._store.db)
    b = 0
    while True:
        texts = [" ".join(f"w{rng.randrange(10**6)}" for _ in range(60)) for _ in range(batch)]
        ix.add([f"b{b}-{i}" for i in range(batch)], texts)
        print(b, flush=True)
        b += 1
    """
)


def test_killed_writer_leaves_a_consistent_index(tmp_path):
    path = tmp_path / "k.ndx"
    batch = 300
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), str(batch)],
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    )
    lines = []
    try:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.append(line.strip())
            if lines[-1] == "inside":
                break
    finally:
        proc.send_signal(signal.SIGKILL)  # killed in the middle of the 4th batch
        proc.wait()
    assert lines == ["0", "1", "2", "inside"]
    with Index(path) as ix:
        ix.check()
        assert len(ix) == 3 * batch  # every committed batch, nothing of the killed one
        for b in range(3):
            assert f"b{b}-0" in ix and f"b{b}-{batch - 1}" in ix
        assert "b3-0" not in ix
        assert ix.stats()["band_rows"] == 3 * batch * ix.bands
        ix.add(["after"], ["the index still accepts writes after the crash"])  # not locked
        assert len(ix) == 3 * batch + 1


def test_cli_index_flow(tmp_path, capsys):
    from neardup.cli import main

    base = _docs(20, seed=7)
    a = tmp_path / "a.jsonl"
    a.write_text("".join(json.dumps({"id": f"a{i}", "text": t}) + "\n" for i, t in enumerate(base)))
    b = tmp_path / "b.jsonl"
    b.write_text(
        json.dumps({"id": "new", "text": _variant(base[4])})
        + "\n"
        + json.dumps({"id": "other", "text": "unrelated words only"})
        + "\n"
    )
    ndx = str(tmp_path / "c.ndx")
    assert main(["index", "add", ndx, str(a), "--threshold", "0.5"]) == 0
    assert capsys.readouterr().out == ""
    assert main(["index", "query", ndx, str(b)]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["id"] for x in lines] == ["new", "other"]
    assert [m["id"] for m in lines[0]["matches"]] == ["a4"] and lines[1]["matches"] == []
    assert main(["index", "add", ndx, str(b)]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert out == [
        {"id": "new", "matches": [{"id": "a4", "similarity": out[0]["matches"][0]["similarity"]}]}
    ]
    assert main(["index", "remove", ndx, "a4", "nope"]) == 0
    assert "removed 1 of 2" in capsys.readouterr().err
    assert main(["index", "stats", ndx, "--json"]) == 0
    st = json.loads(capsys.readouterr().out)
    assert st["counts"]["documents"] == 21 and st["params"]["num_perm"] == 128
    assert main(["index", "add", ndx, str(b), "--num-perm", "64"]) == 1
    assert "num_perm mismatch" in capsys.readouterr().err
    assert main(["index", "stats", str(tmp_path / "missing.ndx")]) == 1


def _script(ix, base):
    out = []
    ix.add([f"a{i}" for i in range(len(base))], base)
    out.append(ix.query(base[:50]))
    ix.remove([f"a{i}" for i in range(0, 50, 3)])
    out.append(ix.query(base[:50]))
    out.append(
        ix.add([f"b{i}" for i in range(30)], [_variant(t, 5, i) for i, t in enumerate(base[:30])])
    )
    out.append(ix.query(base[:60], threshold=0.2))
    return out


def test_memory_and_sql_lookups_agree(tmp_path):
    base = _docs(2600, seed=11, words=30)  # > 2000: the in-memory delta is merged once
    with Index(tmp_path / "m.ndx", threshold=0.5, cache=True) as mem:
        a = _script(mem, base)
    with Index(tmp_path / "s.ndx", threshold=0.5, cache=False) as sql:
        b = _script(sql, base)
    assert a == b
    assert sum(1 for m in a[0] if m) == 50 and sum(1 for m in a[1] if m) == 33


def test_other_connections_writes_are_seen(tmp_path):
    path = tmp_path / "x.ndx"
    base = _docs(3, seed=12)
    reader, writer = Index(path, threshold=0.5), Index(path)
    assert reader.query([base[0]]) == [[]]  # loads the (empty) in-memory copy
    writer.add(["w0", "w1"], base[:2])
    assert [m.id for m in reader.query([base[0]])[0]] == ["w0"]
    writer.remove(["w0"])
    assert reader.query([base[0]]) == [[]]
    assert [m.id for m in reader.add(["r1"], [base[1]])[0]] == ["w1"]
    assert [m.id for m in writer.query([base[1]])[0]] == ["r1", "w1"]
    reader.close()
    writer.close()


def test_an_index_computes_with_the_hash_version_it_was_built_with(tmp_path):
    import unicodedata

    text = "Le café était très bon et la journée fut agréable pour tous les élèves présents"
    decomposed = unicodedata.normalize("NFD", text)
    for version, finds_nfd in ((1, False), (2, True)):
        path = tmp_path / f"v{version}.ndx"
        with Index(path, threshold=0.9, hash_version=version) as ix:
            ix.add(["fr"], [text])
        with Index(path) as ix:  # reopened without saying the version
            assert ix.hash_version == version
            assert ix.query([text]) == [[Match("fr", 1.0)]]
            assert bool(ix.query([decomposed])[0]) is finds_nfd
            ix.check()
