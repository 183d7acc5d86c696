"""End-to-end ``neardup dedup`` on JSONL, Parquet, CSV and folder inputs, checked row by row."""

from __future__ import annotations

import csv
import gzip
import json
import os
import random
import subprocess
import sys

import pytest

from neardup.cli import main

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def dedup(*args: object) -> int:
    """Runs ``neardup dedup`` with the arguments (paths and numbers welcome)."""
    return main(["dedup", *map(str, args)])


def _words(rng, n):
    return " ".join(f"w{rng.randrange(10**6)}" for _ in range(n))


def _corpus(seed=0, n_base=12, n_single=10):
    """Rows in a shuffled order plus the ground truth: group label per row (None = unique)."""
    rng = random.Random(seed)
    rows = []
    for g in range(n_base):
        base = _words(rng, 150)
        w = base.split()
        for _ in range(3):
            w[rng.randrange(len(w))] = f"edit{rng.randrange(10**6)}"
        variants = [
            ("orig", base),
            ("upper", base.upper() + "  "),  # exact duplicate after normalisation
            ("edit", " ".join(w)),  # J ~ 0.9
            ("append", base + " " + _words(rng, 40)),  # longest, J ~ 0.78
        ][: 2 + g % 3]
        rows += [{"text": t, "group": g, "kind": kind} for kind, t in variants]
    rows += [{"text": _words(rng, 150), "group": None, "kind": "single"} for _ in range(n_single)]
    rows += [
        {"text": "", "group": None, "kind": "empty"},
        {"text": "", "group": None, "kind": "empty"},
    ]
    rng.shuffle(rows)
    for i, r in enumerate(rows):
        r["id"] = f"doc{i:03d}"
        r["n"] = i
    return [
        {"id": r["id"], "text": r["text"], "n": r["n"], "group": r["group"], "kind": r["kind"]}
        for r in rows
    ]


def _expected_kept(rows, keep="first"):
    best = {}
    for i, r in enumerate(rows):
        g = r["group"]
        if g is None:
            continue
        if g not in best:
            best[g] = i
        elif keep == "longest" and len(r["text"]) > len(rows[best[g]]["text"]):
            best[g] = i
    return [r for i, r in enumerate(rows) if r["group"] is None or best[r["group"]] == i]


def _write(fmt, path, rows):
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif fmt == "jsonl.gz":
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write("".join(json.dumps(r) + "\n" for r in rows))
    elif fmt == "parquet":
        pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=7)
    elif fmt == "csv":
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    elif fmt == "folder":
        path.mkdir()
        for r in rows:
            (path / f"{r['id']}.txt").write_text(r["text"], encoding="utf-8")


def _read(fmt, path):
    if fmt == "jsonl":
        return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    if fmt == "jsonl.gz":
        return [json.loads(x) for x in gzip.open(path, "rt", encoding="utf-8")]
    if fmt == "parquet":
        return pq.read_table(path).to_pylist()
    if fmt == "csv":
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    return sorted(p.name for p in path.iterdir())


def _as_csv(rows):
    return [{k: "" if v is None else str(v) for k, v in r.items()} for r in rows]


@pytest.mark.parametrize("fmt", ["jsonl", "jsonl.gz", "parquet", "csv", "folder"])
@pytest.mark.parametrize("method", ["auto", "minhash"])
def test_dedup_formats_row_by_row(tmp_path, fmt, method, capsys):
    rows = _corpus()
    inp = tmp_path / ("in" if fmt == "folder" else f"in.{fmt}")
    out = tmp_path / ("out" if fmt == "folder" else f"out.{fmt}")
    _write(fmt, inp, rows)
    rc = dedup(
        str(inp), "-o", str(out), "--threshold", "0.5", "--method", method, "--json", "--quiet"
    )
    assert rc == 0
    summary = json.loads(capsys.readouterr().out)
    expected = (
        _expected_kept(rows)
        if fmt != "folder"
        else _expected_kept(sorted(rows, key=lambda r: r["id"]))
    )
    got = _read(fmt, out)
    if fmt == "folder":
        assert got == sorted(f"{r['id']}.txt" for r in expected)
    elif fmt == "csv":
        assert got == _as_csv(expected)
    else:
        assert got == expected
    counts = summary["counts"]
    assert counts["documents"] == len(rows) and counts["kept"] == len(expected)
    assert counts["empty"] == 2
    n_upper = sum(1 for r in rows if r["kind"] == "upper")
    assert counts["exact_duplicates"] == n_upper
    assert summary["params"]["method"] == ("exact-jaccard" if method == "auto" else "minhash")


def test_keep_longest_clusters_and_report(tmp_path, capsys):
    rows = _corpus(seed=1)
    inp, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    _write("jsonl", inp, rows)
    clusters, report = tmp_path / "c.csv", tmp_path / "r.md"
    assert (
        dedup(
            str(inp),
            "-o",
            str(out),
            "--threshold",
            "0.5",
            "--keep",
            "longest",
            "--clusters",
            str(clusters),
            "--report",
            str(report),
        )
        == 0
    )
    err = capsys.readouterr().err
    assert "exact duplicates removed" in err and "kept" in err
    assert _read("jsonl", out) == _expected_kept(rows, keep="longest")
    with open(clusters, newline="") as f:
        crow = list(csv.DictReader(f))
    by_id = {r["id"]: r for r in rows}
    grouped = [r for r in rows if r["group"] is not None]
    assert [c["id"] for c in crow] == [r["id"] for r in grouped]  # one row each, input order
    kept_of = {
        r["group"]: r["id"] for r in _expected_kept(rows, "longest") if r["group"] is not None
    }
    for c in crow:
        r = by_id[c["id"]]
        assert c["kept_id"] == kept_of[r["group"]]
        assert (c["kept"] == "True") == (c["id"] == c["kept_id"])
        sim = float(c["similarity"])
        if c["kept"] == "True":
            assert c["match"] == "kept" and sim == 1.0
        elif c["match"] == "exact":
            assert sim == 1.0
        else:
            assert c["match"] == "near" and 0.3 < sim < 1.0
    assert len({c["cluster"] for c in crow}) == len({r["group"] for r in grouped})
    text = report.read_text()
    assert text.startswith("# Deduplication report") and f"| documents read | {len(rows)} |" in text


def test_result_independent_of_batch_size(tmp_path):
    rows = _corpus(seed=2)
    inp = tmp_path / "in.jsonl"
    _write("jsonl", inp, rows)
    outs = []
    for bs in ("1", "5", "1000"):
        out, cl = tmp_path / f"o{bs}.jsonl", tmp_path / f"c{bs}.jsonl"
        assert (
            dedup(
                str(inp),
                "-o",
                str(out),
                "--method",
                "minhash",
                "--threshold",
                "0.5",
                "--batch-size",
                bs,
                "--clusters",
                str(cl),
                "-q",
            )
            == 0
        )
        outs.append((out.read_bytes(), cl.read_bytes()))
    assert outs[0] == outs[1] == outs[2]


def test_verify_estimate_and_simhash_run(tmp_path, capsys):
    rows = _corpus(seed=3)
    inp = tmp_path / "in.jsonl"
    _write("jsonl", inp, rows)
    out = tmp_path / "o.jsonl"
    assert (
        dedup(
            str(inp),
            "-o",
            str(out),
            "--method",
            "minhash",
            "--verify",
            "estimate",
            "--threshold",
            "0.5",
            "-q",
        )
        == 0
    )
    assert _read("jsonl", out) == _expected_kept(rows)
    assert (
        dedup(str(inp), "-o", str(out), "--method", "simhash", "--threshold", "0.5", "-q", "--json")
        == 0
    )
    s = json.loads(capsys.readouterr().out)
    got = _read("jsonl", out)
    got_ids = [r["id"] for r in got]
    assert s["params"]["method"] == "simhash" and s["counts"]["exact_duplicates"] == 12
    # exact verification: SimHash may miss near-duplicates but removes only true ones
    assert set(got_ids) >= {r["id"] for r in _expected_kept(rows)}
    assert got == [r for r in rows if r["id"] in set(got_ids)]  # rows intact, in order


def test_strip_boilerplate_end_to_end(tmp_path, capsys):
    rng = random.Random(4)
    footer = _words(rng, 150)  # half of every document
    rows = [{"id": i, "text": _words(rng, 150) + " " + footer} for i in range(30)]
    rows.append({"id": 30, "text": rows[0]["text"].replace("w", "W", 1) + " extra words"})
    inp = tmp_path / "in.jsonl"
    _write("jsonl", inp, rows)
    out = tmp_path / "o.jsonl"
    assert main(["dedup", str(inp), "-o", str(out), "--threshold", "0.3", "--json", "-q"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert plain["counts"]["kept"] < 5  # the footer makes every pair look like a duplicate
    assert (
        dedup(
            str(inp),
            "-o",
            str(out),
            "--threshold",
            "0.3",
            "--json",
            "-q",
            "--strip-boilerplate",
            "--max-df",
            "0.5",
        )
        == 0
    )
    stripped = json.loads(capsys.readouterr().out)
    assert stripped["counts"]["kept"] == 30 and [r["id"] for r in _read("jsonl", out)] == list(
        range(30)
    )
    assert stripped["result"]["boilerplate"]["shingles_dropped"] >= 140
    assert 0.4 < stripped["result"]["boilerplate"]["mean_share_stripped"] < 0.6


def test_multiple_inputs_concatenate(tmp_path, capsys):
    rows = _corpus(seed=5)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _write("jsonl", a, rows[:20])
    _write("jsonl", b, rows[20:])
    out = tmp_path / "o.jsonl"
    assert main(["dedup", str(a), str(b), "-o", str(out), "--threshold", "0.5", "-q"]) == 0
    assert _read("jsonl", out) == _expected_kept(rows)


def _run_bad(tmp_path, capsys, args, match):
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    rc = main(["dedup", *args, "-o", str(out), "-q"])
    err = capsys.readouterr().err.strip()
    assert rc == 1
    assert len(err.splitlines()) == 1 and match in err, err
    assert out.read_text() == "previous\n"  # untouched
    assert sorted(os.listdir(tmp_path)) == sorted(
        {"out.jsonl"} | {p for p in os.listdir(tmp_path) if not p.endswith(".tmp")}
    )


def test_bad_inputs_fail_cleanly(tmp_path, capsys):
    good = "".join(json.dumps({"id": i, "text": f"text number {i}"}) + "\n" for i in range(5))
    _run_bad(tmp_path, capsys, [str(tmp_path / "missing.jsonl")], "missing.jsonl: no such file")
    p = tmp_path / "nofield.jsonl"
    p.write_text(good + json.dumps({"id": 9, "body": "x"}) + "\n")
    _run_bad(tmp_path, capsys, [str(p)], "nofield.jsonl:6: no field 'text'")
    p = tmp_path / "null.jsonl"
    p.write_text(good + json.dumps({"id": 9, "text": None}) + "\n")
    _run_bad(tmp_path, capsys, [str(p)], "null.jsonl:6: row without text")
    p = tmp_path / "utf.jsonl"
    p.write_bytes(good.encode() + b'{"text": "bad \xff byte"}\n')
    _run_bad(tmp_path, capsys, [str(p)], "utf.jsonl:6: invalid UTF-8")
    p = tmp_path / "bad.parquet"
    p.write_bytes(b"not a parquet file")
    _run_bad(tmp_path, capsys, [str(p)], "bad.parquet: unreadable Parquet file")
    p = tmp_path / "f.jsonl"
    p.write_text(good)
    _run_bad(tmp_path, capsys, [str(p), "--text-field", "body"], "f.jsonl:1: no field 'body'")
    _run_bad(tmp_path, capsys, [str(p), "--id-field", "key"], "f.jsonl:1: no field 'key'")


def test_error_late_in_file_leaves_no_output(tmp_path, capsys):
    rows = "".join(json.dumps({"text": f"row {i} " * 20}) + "\n" for i in range(300))
    p = tmp_path / "late.jsonl"
    p.write_text(rows + '{"text": 17}\n')
    out = tmp_path / "fresh.jsonl"
    assert main(["dedup", str(p), "-o", str(out), "--batch-size", "50", "-q"]) == 1
    assert "late.jsonl:301" in capsys.readouterr().err
    assert not out.exists() and [x for x in os.listdir(tmp_path) if x.endswith(".tmp")] == []


def test_stdin_to_stdout_subprocess(tmp_path):
    rows = _corpus(seed=6)
    data = "".join(json.dumps(r) + "\n" for r in rows)
    code = "import sys; from neardup.cli import main; sys.exit(main())"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    res = subprocess.run(
        [sys.executable, "-c", code, "dedup", "-", "-o", "-", "--threshold", "0.5"],
        input=data,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    assert [json.loads(x) for x in res.stdout.splitlines()] == _expected_kept(rows)
    assert f"read {len(rows)} documents" in res.stderr
    bad = subprocess.run(
        [sys.executable, "-c", code, "dedup", "-", "-o", str(tmp_path / "o.jsonl")],
        input='{"text": "a"}\n{"nope": 1}\n',
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert bad.returncode == 1 and "<stdin>:2: no field 'text'" in bad.stderr
    assert not (tmp_path / "o.jsonl").exists()


def test_spanning_mode_for_huge_buckets(tmp_path, capsys):
    rng = random.Random(7)
    base = _words(rng, 120)
    rows = [{"id": i, "text": f"{base} unique{i} more{i}"} for i in range(300)]  # one big cluster
    rows += [{"id": 300 + i, "text": _words(rng, 120)} for i in range(20)]
    inp, out = tmp_path / "in.jsonl", tmp_path / "o.jsonl"
    _write("jsonl", inp, rows)
    args = ["dedup", str(inp), "-o", str(out), "--method", "minhash", "--json", "-q"]
    assert main([*args, "--pairs", "all"]) == 0
    full = json.loads(capsys.readouterr().out)
    assert full["params"]["pairs_used"] == "all" and full["counts"]["candidates"] == 300 * 299 // 2
    assert main([*args, "--spanning-limit", "1000"]) == 0  # auto: the bound exceeds the limit
    span = json.loads(capsys.readouterr().out)
    assert span["params"]["pairs_used"] == "spanning"
    assert span["counts"]["candidates"] == 299  # a spanning tree of the cluster: m - 1 checks
    assert span["counts"]["kept"] == full["counts"]["kept"] == 21
    assert [r["id"] for r in _read("jsonl", out)] == [0, *range(300, 320)]
