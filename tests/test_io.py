"""Readers and writers of neardup.io: formats, field preservation, errors naming file and row."""

from __future__ import annotations

import gzip
import json
import os

import numpy as np
import pytest

from neardup import io as ndio
from neardup.cli import main
from neardup.errors import NeardupWarning

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

ROWS = [
    {"id": "a", "text": "first document", "n": 1, "tags": ["x"]},
    {"id": "b", "text": "second document, with “quotes”", "n": 2, "tags": []},
    {"id": "c", "text": "", "n": 3, "tags": None},
    {"id": "d", "text": "line one\nline two", "n": 4, "tags": ["y", "z"]},
]


def _write_jsonl(path, rows, gz=False, blank=False):
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" + ("\n" if blank else "") for r in rows)
    if gz:
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(data)
    else:
        path.write_text(data, encoding="utf-8")


def _read_all(path, **kw):
    src = ndio.open_source(path, **kw)
    texts, ids, starts = [], [], []
    for b in src.batches(3):
        t = b.texts.to_pylist() if hasattr(b.texts, "to_pylist") else list(b.texts)
        texts += t
        ids += b.ids
        starts.append(b.start)
    return src, ids, texts, starts


@pytest.mark.parametrize("gz", [False, True])
def test_jsonl_batches_and_byte_exact_copy(tmp_path, gz):
    inp = tmp_path / ("in.jsonl.gz" if gz else "in.jsonl")
    _write_jsonl(inp, ROWS, gz=gz, blank=True)
    src, ids, texts, starts = _read_all(inp)
    assert ids == ["a", "b", "c", "d"]
    assert texts == [r["text"] for r in ROWS]
    assert starts == [0, 3]
    out = tmp_path / ("out.jsonl.gz" if gz else "out.jsonl")
    assert ndio.write_kept([src], np.array([True, False, True, True]), out) == 3
    raw = gzip.open(out, "rb").read() if gz else out.read_bytes()
    expected = [json.dumps(r, ensure_ascii=False).encode() for r in ROWS if r["id"] != "b"]
    assert raw.splitlines() == expected  # byte for byte, original field order
    assert [p for p in os.listdir(tmp_path) if p.endswith(".tmp")] == []


def test_jsonl_ids_default_to_position_when_absent(tmp_path):
    inp = tmp_path / "in.jsonl"
    _write_jsonl(inp, [{"text": "x"}, {"text": "y"}])
    _, ids, _, _ = _read_all(inp)
    assert ids == [0, 1]


def test_jsonl_id_required(tmp_path):
    inp = tmp_path / "in.jsonl"
    _write_jsonl(inp, [{"id": 1, "text": "x"}, {"text": "y"}])
    with pytest.raises(ndio.InputError, match=r"in\.jsonl:2: no field 'id'"):
        _read_all(inp, id_required=True)


@pytest.mark.parametrize(
    "content, message",
    [
        (b'{"id": 1, "text": "ok"}\n{"id": 2, "body": "x"}\n', r"bad\.jsonl:2: no field 'text'"),
        (b'{"id": 1, "text": "ok"}\n{"id": 2, "text": null}\n', r"bad\.jsonl:2: row without text"),
        (b'{"id": 1, "text": 5}\n', r"bad\.jsonl:1: 'text' is int"),
        (b'{"text": "ok"}\n\n{"text": "caf\xe9"}\n', r"bad\.jsonl:3: invalid UTF-8 at byte 13"),
        (b'{"text": "ok"}\n{"text": "unterminated\n', r"bad\.jsonl:2: invalid JSON"),
        (b'["not", "an", "object"]\n', r"bad\.jsonl:1: expected a JSON object"),
    ],
)
def test_jsonl_bad_rows(tmp_path, content, message):
    inp = tmp_path / "bad.jsonl"
    inp.write_bytes(content)
    with pytest.raises(ndio.InputError, match=message):
        _read_all(inp)


def test_truncated_gzip_is_a_clear_error(tmp_path):
    inp = tmp_path / "in.jsonl.gz"
    _write_jsonl(inp, ROWS * 50, gz=True)
    inp.write_bytes(inp.read_bytes()[:-20])
    with pytest.raises(ndio.InputError, match=r"in\.jsonl\.gz:\d+: cannot read"):
        _read_all(inp)


def test_missing_file_and_unknown_format(tmp_path):
    with pytest.raises(ndio.InputError, match=r"nope\.jsonl: no such file"):
        ndio.open_source(tmp_path / "nope.jsonl")
    (tmp_path / "x.xlsx").write_text("?")
    with pytest.raises(ndio.InputError, match="unknown input format"):
        ndio.open_source(tmp_path / "x.xlsx")


def test_mixed_formats_rejected(tmp_path):
    _write_jsonl(tmp_path / "a.jsonl", ROWS)
    (tmp_path / "b.csv").write_text("text\nx\n")
    with pytest.raises(ndio.InputError, match="mix formats"):
        ndio.open_sources([tmp_path / "a.jsonl", tmp_path / "b.csv"])


def _parquet(path, rows, **schema_kw):
    tbl = pa.Table.from_pylist(rows)
    tbl = tbl.replace_schema_metadata({"origin": "test"})
    pq.write_table(tbl, path, row_group_size=2)
    return tbl


def test_parquet_text_column_stays_arrow_and_rows_are_preserved(tmp_path):
    inp = tmp_path / "in.parquet"
    tbl = _parquet(inp, ROWS)
    src, ids, texts, _ = _read_all(inp)
    b = next(ndio.open_source(inp).batches(10))
    assert isinstance(b.texts, pa.Array) and pa.types.is_string(b.texts.type)
    assert ids == ["a", "b", "c", "d"] and texts == [r["text"] for r in ROWS]
    out = tmp_path / "out.parquet"
    ndio.write_kept([src], np.array([False, True, True, False]), out)
    got = pq.read_table(out)
    assert got.schema.equals(tbl.schema)  # all columns, types, order
    assert got.to_pylist() == [ROWS[1], ROWS[2]]


def test_parquet_null_text_names_row(tmp_path):
    inp = tmp_path / "n.parquet"
    _parquet(inp, [{"text": "a"}, {"text": "b"}, {"text": None}])
    with pytest.raises(ndio.InputError, match=r"n\.parquet: row 3: row without text"):
        _read_all(inp)


def test_parquet_invalid_utf8_in_binary_column_names_row(tmp_path):
    inp = tmp_path / "b.parquet"
    pq.write_table(pa.table({"text": pa.array([b"ok", b"\xff\xfe"], pa.binary())}), inp)
    with pytest.raises(ndio.InputError, match=r"b\.parquet: row 2: invalid UTF-8"):
        _read_all(inp)


def test_unreadable_parquet_and_missing_column(tmp_path):
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 this is not parquet at all")
    with pytest.raises(ndio.InputError, match=r"bad\.parquet: unreadable Parquet file"):
        ndio.open_source(bad)
    ok = tmp_path / "ok.parquet"
    _parquet(ok, [{"body": "x"}])
    with pytest.raises(ndio.InputError, match=r"ok\.parquet: no column 'text'"):
        ndio.open_source(ok)


def test_csv_round_trip_with_quotes_and_newlines(tmp_path):
    inp = tmp_path / "in.csv"
    inp.write_text(
        'id,text,extra\n1,"hello, world",x\n2,"multi\nline ""quoted""",y\n3,plain,\n',
        encoding="utf-8",
    )
    src, ids, texts, _ = _read_all(inp)
    assert ids == ["1", "2", "3"]
    assert texts == ["hello, world", 'multi\nline "quoted"', "plain"]
    out = tmp_path / "out.csv"
    ndio.write_kept([src], np.array([False, True, True]), out)
    import csv

    with open(out, newline="", encoding="utf-8") as f:
        got = list(csv.reader(f))
    assert got == [["id", "text", "extra"], ["2", 'multi\nline "quoted"', "y"], ["3", "plain", ""]]


@pytest.mark.parametrize(
    "content, message",
    [
        (b"id,body\n1,x\n", r"c\.csv: no column 'text'"),
        (b"id,extra,text\n1,a,ok\n2,b\n", r"c\.csv: row 2: row without text"),
        (b"id,text\n1,ok\n2,caf\xe9\n", r"c\.csv: row 2: invalid UTF-8"),
        (b"", r"c\.csv: empty CSV file"),
    ],
)
def test_csv_bad_inputs(tmp_path, content, message):
    inp = tmp_path / "c.csv"
    inp.write_bytes(content)
    with pytest.raises(ndio.InputError, match=message):
        _read_all(inp)


def test_folder_reader_and_writer(tmp_path):
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "b.txt").write_text("bee")
    (root / "a.md").write_text("ay")
    (root / "sub" / "c.txt").write_text("sea")
    (root / "skip.json").write_text("{}")
    with pytest.warns(NeardupWarning, match=r"docs: 1 file\(s\) not read.*\(skip\.json\)"):
        src, ids, texts, _ = _read_all(root)
    assert ids == ["a.md", "b.txt", "sub/c.txt"] and texts == ["ay", "bee", "sea"]
    out = tmp_path / "kept"
    ndio.write_kept([src], np.array([True, False, True]), out)
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        "a.md",
        "sub/c.txt",
    ]
    assert (out / "sub" / "c.txt").read_text() == "sea"


def test_files_a_folder_does_not_read_are_one_warning_line_of_the_cli(tmp_path, capsys):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.txt").write_text("one two three")
    for name in ("LICENSE", "b.rst", "c.html", "d.py"):
        (root / name).write_text("one two three")
    assert main(["dedup", str(root), "-o", str(tmp_path / "kept.jsonl")]) == 0
    lines = capsys.readouterr().err.splitlines()
    said = [line for line in lines if "warning" in line]
    assert said == [
        f"neardup dedup: warning: {root}: 4 file(s) not read, only .txt and .md files are "
        "documents (LICENSE, b.rst, c.html, ...)"
    ]
    assert len((tmp_path / "kept.jsonl").read_text().splitlines()) == 1


def test_folder_invalid_utf8_names_file(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "bad.txt").write_bytes(b"ok \xc3\x28")
    with pytest.raises(ndio.InputError, match=r"bad\.txt: invalid UTF-8 at byte 3"):
        _read_all(root)


def test_atomic_path_leaves_nothing_on_error(tmp_path):
    out = tmp_path / "out.jsonl"
    with pytest.raises(RuntimeError), ndio.atomic_path(out) as tmp:
        with open(tmp, "w") as f:
            f.write("partial")
        raise RuntimeError("boom")
    assert os.listdir(tmp_path) == []
    out.write_text("old")
    with pytest.raises(RuntimeError), ndio.atomic_path(out) as tmp:
        raise RuntimeError("boom")
    assert out.read_text() == "old"


def test_write_table_formats(tmp_path):
    rows = [{"id": "a", "cluster": 0, "similarity": 0.5}]
    ndio.write_table(rows, tmp_path / "t.csv")
    ndio.write_table(rows, tmp_path / "t.jsonl")
    ndio.write_table(rows, tmp_path / "t.parquet")
    assert (tmp_path / "t.csv").read_text().splitlines() == ["id,cluster,similarity", "a,0,0.5"]
    assert json.loads((tmp_path / "t.jsonl").read_text()) == rows[0]
    assert pq.read_table(tmp_path / "t.parquet").to_pylist() == rows


# -- the bad-input rows of neardup.io (tests/bad_input_io.py; the matrix imports them too) ----
from bad_input_io import IO_ROWS, check_io_row  # noqa: E402


@pytest.mark.parametrize("row", IO_ROWS, ids=[r["id"] for r in IO_ROWS])
def test_bad_input_rows(row, tmp_path):
    check_io_row(row, tmp_path)


# -- the output's extension names its format; every field survives a conversion -------------
MIXED = [
    {"id": "a", "text": "first", "n": 1, "tags": ["x"], "meta": {"lang": "en"}},
    {"id": "b", "text": "second “quoted”", "n": 2, "tags": [], "meta": {"lang": "fr"}},
    {"id": "c", "text": "third", "n": None, "tags": None, "meta": None},
]


def _written(sources, keep, out):
    for _ in ndio.iter_batches(sources):
        pass
    return ndio.write_kept(sources, np.asarray(keep), out)


def test_jsonl_to_parquet_keeps_every_field(tmp_path):
    _write_jsonl(tmp_path / "in.jsonl", MIXED)
    src = ndio.open_source(tmp_path / "in.jsonl")
    assert _written([src], [True, False, True], tmp_path / "kept.parquet") == 2
    assert pq.read_table(tmp_path / "kept.parquet").to_pylist() == [MIXED[0], MIXED[2]]


def test_parquet_to_jsonl_keeps_every_field(tmp_path):
    _parquet(tmp_path / "in.parquet", MIXED)
    src = ndio.open_source(tmp_path / "in.parquet")
    assert _written([src], [False, True, True], tmp_path / "kept.jsonl.gz") == 2
    with gzip.open(tmp_path / "kept.jsonl.gz", "rt", encoding="utf-8") as f:
        assert [json.loads(line) for line in f] == MIXED[1:]


@pytest.mark.parametrize("out", ["kept.jsonl", "kept.parquet"])
def test_csv_to_other_formats_keeps_every_column_as_text(tmp_path, out):
    (tmp_path / "in.csv").write_text('id,text,extra\n1,"a, b",x\n2,"two\nlines",\n')
    src = ndio.open_source(tmp_path / "in.csv")
    assert _written([src], [True, True], tmp_path / out) == 2
    want = [
        {"id": "1", "text": "a, b", "extra": "x"},
        {"id": "2", "text": "two\nlines", "extra": ""},
    ]
    if out.endswith(".parquet"):
        assert pq.read_table(tmp_path / out).to_pylist() == want
    else:
        assert [json.loads(x) for x in (tmp_path / out).read_text().splitlines()] == want


def test_several_jsonl_inputs_to_one_parquet_unify_the_fields(tmp_path):
    _write_jsonl(tmp_path / "a.jsonl", [{"text": "a", "n": 1}])
    _write_jsonl(tmp_path / "b.jsonl", [{"text": "b", "n": 2.5, "extra": "e"}])
    sources = ndio.open_sources([tmp_path / "a.jsonl", tmp_path / "b.jsonl"])
    assert _written(sources, [True, True], tmp_path / "kept.parquet") == 2
    got = pq.read_table(tmp_path / "kept.parquet").to_pylist()
    assert got == [{"text": "a", "n": 1.0, "extra": None}, {"text": "b", "n": 2.5, "extra": "e"}]


def test_jsonl_to_jsonl_gz_and_back_is_byte_exact(tmp_path):
    _write_jsonl(tmp_path / "in.jsonl", MIXED)
    src = ndio.open_source(tmp_path / "in.jsonl")
    _written([src], [True, True, True], tmp_path / "k.jsonl.gz")
    back = ndio.open_source(tmp_path / "k.jsonl.gz")
    _written([back], [True, True, True], tmp_path / "k.jsonl")
    assert (tmp_path / "k.jsonl").read_bytes() == (tmp_path / "in.jsonl").read_bytes()


def test_parquet_to_parquet_keeps_the_schema_even_when_nothing_is_kept(tmp_path):
    tbl = _parquet(tmp_path / "in.parquet", MIXED)
    src = ndio.open_source(tmp_path / "in.parquet")
    assert _written([src], [False, False, False], tmp_path / "kept.parquet") == 0
    assert pq.read_table(tmp_path / "kept.parquet").schema.equals(tbl.schema)


def test_cli_dedup_writes_the_format_the_output_names(tmp_path):
    from neardup.cli import main

    _write_jsonl(tmp_path / "in.jsonl", [*MIXED, dict(MIXED[0], id="a2")])
    assert main(["dedup", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "k.parquet"), "-q"]) == 0
    assert pq.read_table(tmp_path / "k.parquet").to_pylist() == MIXED
    code = main(["dedup", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "k.csv"), "-q"])
    assert code == 1 and not (tmp_path / "k.csv").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "k.parquet"]


def test_check_output_refuses_before_any_row_is_read(tmp_path):
    _write_jsonl(tmp_path / "in.jsonl", MIXED)
    src = ndio.open_source(tmp_path / "in.jsonl")  # not read: n_rows unknown
    assert ndio.check_output(tmp_path / "k.parquet", [src]) == "parquet"
    assert ndio.check_output(tmp_path / "k", [src]) == "jsonl"  # no extension: the input's
    assert ndio.check_output("-", [src]) == "jsonl"
    with pytest.raises(ndio.InputError, match="CSV output needs CSV input"):
        ndio.check_output(tmp_path / "k.csv", [src])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


# -- random bytes and random text: rows or an InputError, never another exception ------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_BYTES = st.binary(max_size=300) | st.lists(
    st.sampled_from([b'"', b",", b"\n", b"\r", b"{", b"}", b"\\ud800", b"text", b":", b"\xff"]),
    max_size=40,
).map(b"".join)


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=_BYTES, name=st.sampled_from(["r.jsonl", "r.csv", "r.jsonl.gz", "r.parquet"]))
def test_random_bytes_read_as_rows_or_input_error(tmp_path, data, name):
    path = tmp_path / name
    path.write_bytes(b"id,text\n" + data if name == "r.csv" and data[:1] == b"1" else data)
    try:
        ids, texts = ndio.read_texts(path)
    except ndio.InputError as e:
        assert "\n" not in str(e)
        return
    assert len(ids) == len(texts) and all(isinstance(t, str) for t in texts)
    for t in texts:
        t.encode("utf-8")  # no lone surrogate gets through


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=st.lists(st.lists(st.text(max_size=12), min_size=2, max_size=2), max_size=6))
def test_csv_rows_round_trip_exactly(tmp_path, rows):
    import csv

    path = tmp_path / "in.csv"
    rows = [[a.replace("\x00", ""), b.replace("\x00", "")] for a, b in rows]
    rows = [r for r in rows if any(r)]  # csv writes an empty row as a blank line
    with open(path, "w", encoding="utf-8", errors="surrogatepass", newline="") as f:
        csv.writer(f).writerows([["id", "text"], *rows])
    ids, texts = ndio.read_texts(path)
    assert [[str(i), t] for i, t in zip(ids, texts, strict=True)] == rows
