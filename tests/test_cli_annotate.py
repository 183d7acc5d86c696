"""``neardup dedup --annotate`` and keep priorities (``find_duplicates(keep=array)``,
``annotate(table, keep=COLUMN)``, ``neardup dedup --keep-priority COLUMN``): the files hold
the values ``DuplicateResult.annotate`` gives, in every format."""

from __future__ import annotations

import json

import numpy as np
import pytest
from bad_input import cli
from hypothesis import given, settings
from hypothesis import strategies as st

import neardup
from neardup.dedup import dedup_files
from neardup.keep import keep_mask

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

CORPUS = neardup.synth.generate(bases=8, singles=10, seed=11)
TEXTS = CORPUS.texts
N = len(TEXTS)
# Priorities with ties (so the tie rule is exercised) and negative values.
SCORES = [float((i * 7) % 5 - 2) for i in range(N)]
FRAME = pd.DataFrame({"id": [f"d{i}" for i in range(N)], "text": TEXTS, "score": SCORES})
COLUMNS = ["cluster", "keep", "duplicate_of", "similarity", "reason"]


def _write(frame, path):
    if path.suffix == ".parquet":
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
    elif path.suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in frame.to_dict("records")))


def _read(path):
    if path.suffix == ".parquet":
        return pq.read_table(path).to_pandas()
    if path.suffix == ".csv":
        return pd.read_csv(path, keep_default_na=False)
    return pd.DataFrame([json.loads(line) for line in path.read_text().splitlines()])


def _same_annotation(got, expected):
    assert got[["id", "text"]].astype(str).values.tolist() == (
        expected[["id", "text"]].astype(str).values.tolist()
    )
    for name in ("cluster", "duplicate_of"):
        assert got[name].astype(np.int64).tolist() == expected[name].tolist(), name
    assert [str(v).lower() == "true" for v in got["keep"]] == expected["keep"].tolist()
    np.testing.assert_array_equal(got["similarity"].astype(np.float64), expected["similarity"])
    assert got["reason"].astype(str).tolist() == expected["reason"].tolist()


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("in.jsonl", "all.jsonl"),
        ("in.parquet", "all.parquet"),
        ("in.csv", "all.csv"),
        ("in.jsonl", "all.parquet"),
        ("in.parquet", "all.jsonl.gz"),
        ("in.csv", "all.jsonl"),
    ],
)
def test_annotate_file_matches_the_api(tmp_path, source, target):
    _write(FRAME, tmp_path / source)
    expected = neardup.find_duplicates(TEXTS, threshold=0.5).annotate(FRAME)
    assert expected["keep"].sum() < N  # there are duplicates to annotate
    out = tmp_path / target
    summary = dedup_files([str(tmp_path / source)], None, annotate=str(out), threshold=0.5)
    assert summary.kept == int(expected["keep"].sum())
    if target.endswith(".gz"):
        import gzip

        out = tmp_path / "plain.jsonl"
        out.write_bytes(gzip.decompress((tmp_path / target).read_bytes()))
    got = _read(out)
    assert list(got.columns)[-5:] == COLUMNS
    _same_annotation(got, expected)


def test_parquet_annotate_keeps_column_types(tmp_path):
    frame = FRAME.assign(when=pd.to_datetime("2024-01-01") + pd.to_timedelta(range(N), "h"))
    _write(frame, tmp_path / "in.parquet")
    dedup_files([str(tmp_path / "in.parquet")], None, annotate=str(tmp_path / "all.parquet"))
    schema = pq.read_schema(tmp_path / "all.parquet")
    given = pq.read_schema(tmp_path / "in.parquet")
    assert [schema.field(f.name).type for f in given] == [f.type for f in given]
    assert pa.types.is_timestamp(schema.field("when").type)
    assert str(schema.field("keep").type) == "bool"
    assert str(schema.field("similarity").type) == "double"


def test_cli_annotate_beside_the_kept_rows_with_priorities(tmp_path):
    _write(FRAME, tmp_path / "in.jsonl")
    proc = cli(
        "dedup",
        str(tmp_path / "in.jsonl"),
        "-o",
        str(tmp_path / "kept.jsonl"),
        "--annotate",
        str(tmp_path / "all.jsonl"),
        "--keep-priority",
        "score",
        "--threshold",
        "0.5",
        "-q",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    result = neardup.find_duplicates(TEXTS, threshold=0.5, keep=FRAME["score"])
    expected = result.annotate(FRAME)
    _same_annotation(_read(tmp_path / "all.jsonl"), expected)
    kept = _read(tmp_path / "kept.jsonl")
    assert kept["id"].tolist() == FRAME["id"][result.keep].tolist()
    assert json.loads(proc.stdout)["params"]["keep"] == "priority"


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_keep_priority_files_match_the_api(tmp_path, suffix):
    source = tmp_path / f"in{suffix}"
    _write(FRAME, source)
    expected = neardup.find_duplicates(TEXTS, threshold=0.5, keep=np.array(SCORES)).keep
    first = neardup.find_duplicates(TEXTS, threshold=0.5).keep
    assert (expected != first).any()  # the priorities change what is kept
    summary = dedup_files(
        [str(source)], str(tmp_path / f"kept{suffix}"), threshold=0.5, priority_field="score"
    )
    assert summary.kept == int(expected.sum())
    kept = _read(tmp_path / f"kept{suffix}")
    assert kept["id"].astype(str).tolist() == FRAME["id"][expected].tolist()


def _reference_keep(labels, priorities):
    """One kept per cluster: the highest priority, ties to the lowest position."""
    best = {}
    for i, (label, p) in enumerate(zip(labels, priorities, strict=True)):
        if label not in best or p > priorities[best[label]]:
            best[label] = i
    return [best[label] == i for i, label in enumerate(labels)], [best[lb] for lb in labels]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(-3, 3)), min_size=1, max_size=40))
def test_keep_mask_priority_matches_the_reference(rows):
    raw = [r[0] for r in rows]
    labels = np.array([raw.index(x) for x in raw], dtype=np.int64)  # lowest position
    priorities = np.array([r[1] for r in rows], dtype=np.float64)
    keep, rep = keep_mask(labels, priorities, "priority")
    ref_keep, ref_rep = _reference_keep(labels.tolist(), priorities.tolist())
    assert keep.tolist() == ref_keep and rep.tolist() == ref_rep


def _tables():
    yield FRAME
    yield pa.Table.from_pandas(FRAME, preserve_index=False)
    try:
        import polars as pl

        yield pl.from_pandas(FRAME)
    except ImportError:
        pass
    try:
        import datasets

        # a selection: the Arrow view must follow the indices
        shuffled = datasets.Dataset.from_pandas(FRAME.iloc[::-1], preserve_index=False)
        yield shuffled.select(range(N - 1, -1, -1))
    except ImportError:
        pass


def test_annotate_and_filter_take_a_priority_column():
    found = neardup.find_duplicates(TEXTS, threshold=0.5)
    chosen = neardup.find_duplicates(TEXTS, threshold=0.5, keep=SCORES)
    expected = chosen.annotate(FRAME)
    for table in _tables():
        out = found.annotate(table, keep="score")
        frame = out if isinstance(out, pd.DataFrame) else _as_pandas(out)
        for name in COLUMNS:
            np.testing.assert_array_equal(frame[name].to_numpy(), expected[name].to_numpy())
        kept = _as_pandas(found.filter(table, keep="score"))
        assert kept["id"].tolist() == FRAME["id"][chosen.keep].tolist()


def _as_pandas(table):
    if isinstance(table, pd.DataFrame):
        return table.reset_index(drop=True)
    return table.to_pandas()


def test_jsonl_annotate_splices_odd_lines_and_sees_escaped_keys(tmp_path):
    src = tmp_path / "odd.jsonl"
    src.write_bytes(
        b'{"id": 1, "text": "a b c d e f"}\n{ "text":"a b c d e f" , "id":2 }  \r\n\n'
        b'{"id": 3, "text": "x y z w", "note": "said \\"keep\\""}\n'
    )
    out = tmp_path / "all.jsonl"
    dedup_files([str(src)], None, annotate=str(out), k=2)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["keep"], r["duplicate_of"]) for r in rows] == [
        (1, True, -1),
        (2, False, 0),
        (3, True, -1),
    ]
    assert rows[2]["note"] == 'said "keep"'
    src.write_bytes(b'{"id": 1, "text": "a b c d e f", "k\\u0065ep": 1}\n')
    with pytest.raises(neardup.errors.InputError, match=r"odd\.jsonl:1: .* field 'keep'"):
        dedup_files([str(src)], None, annotate=str(out), k=2)


def test_priorities_come_in_every_container():
    from neardup.keep import check_priorities

    expected = [3.0, 1.0, 2.0]
    assert check_priorities(pa.array([3, 1, 2])).tolist() == expected
    assert check_priorities(pa.chunked_array([[3], [1, 2]])).tolist() == expected
    assert check_priorities(pd.Series([3, 1, 2])).tolist() == expected
    with pytest.raises(neardup.errors.InvalidArgumentError, match=r"keep\[1\] is null"):
        check_priorities(pa.array([3, None, 2]))
    with pytest.raises(neardup.errors.InvalidArgumentError, match=r"keep\[1\] is NaN"):
        check_priorities(pd.Series([3, None, 2]))
    pl = pytest.importorskip("polars")
    assert check_priorities(pl.Series([3, 1, 2])).tolist() == expected
    with pytest.raises(neardup.errors.InvalidArgumentError, match=r"keep\[2\] is null"):
        check_priorities(pl.Series([3, 1, None]))
