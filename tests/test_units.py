"""Partitions (``within=``, ``--within``) and units of many rows (``unit_of=``, ``--unit-key``).

A run within partitions must equal running each partition alone with the same plan; a run of
units must equal deduplicating the units' joined texts, every row carrying its unit's
decision; the API and the CLI must agree.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import neardup
from neardup import synth
from neardup.dedup import dedup_files
from neardup.errors import ArgumentTypeError, InputError, InvalidArgumentError
from neardup.ray._sign import salt_signatures
from neardup.units import UNIT_SEPARATOR, Units

import reference

# the plans compared: one per method, resolved the same way in every partition
PLANS = {
    "exact-jaccard": {"method": "exact-jaccard", "threshold": 0.5},
    "minhash": {"method": "minhash", "threshold": 0.5, "bands": 32, "rows": 4, "pairs": "all"},
    "minhash-estimate": {
        "method": "minhash",
        "threshold": 0.5,
        "bands": 32,
        "rows": 4,
        "verify": "estimate",
        "pairs": "all",
    },
    "minhash-spanning": {
        "method": "minhash",
        "threshold": 0.5,
        "bands": 32,
        "rows": 4,
        "pairs": "spanning",
    },
    "simhash": {"method": "simhash", "threshold": 0.5},
    "sha256": {"method": "sha256"},
}


@pytest.fixture(scope="module")
def corpus() -> tuple[list[str], np.ndarray]:
    texts = list(synth.generate(bases=40, singles=60, seed=11).texts)
    texts += texts[:80]  # exact copies, most of them in another partition
    rng = np.random.default_rng(5)
    order = rng.permutation(len(texts))
    texts = [texts[i] for i in order]
    keys = rng.choice(np.array(["CC-2019", "CC-2020", "CC-2021"]), len(texts))
    return texts, keys


def _alone(texts: list[str], keys: np.ndarray, **options) -> dict[str, np.ndarray]:
    """Each partition run by itself, its results put back in row positions."""
    n = len(texts)
    keep, clusters = np.zeros(n, bool), np.zeros(n, np.int64)
    pairs, sims = [], []
    for key in np.unique(keys):
        rows = np.flatnonzero(keys == key)
        r = neardup.find_duplicates([texts[i] for i in rows], **options)
        keep[rows] = r.keep
        clusters[rows] = rows[r.clusters]
        pairs.append(rows[r.pairs])
        sims.append(r.similarity)
    p, s = np.concatenate(pairs), np.concatenate(sims)
    order = np.lexsort((p[:, 1], p[:, 0]))
    return {"keep": keep, "clusters": clusters, "pairs": p[order], "similarity": s[order]}


@pytest.mark.parametrize("name", sorted(PLANS))
def test_within_equals_each_partition_alone(corpus, name):
    texts, keys = corpus
    options = {"k": 3, **PLANS[name]}
    together = neardup.find_duplicates(texts, within=keys, **options)
    alone = _alone(texts, keys, **options)
    np.testing.assert_array_equal(together.keep, alone["keep"])
    np.testing.assert_array_equal(together.clusters, alone["clusters"])
    np.testing.assert_array_equal(together.pairs, alone["pairs"])
    np.testing.assert_allclose(together.similarity, alone["similarity"], rtol=1e-6)
    assert together.params["partitions"] == 3
    same = keys[together.pairs[:, 0]] == keys[together.pairs[:, 1]]
    assert same.all()
    # without partitions the copies across them are found: the test data tells them apart
    assert neardup.find_duplicates(texts, **options).num_removed > together.num_removed


def test_within_minhash_candidates_are_the_partitions(corpus):
    """No candidate across partitions: the LSH work is the sum of the partitions'."""
    texts, keys = corpus
    options = {"k": 3, **PLANS["minhash"]}
    together = neardup.find_duplicates(texts, within=keys, **options)
    alone = 0
    for key in np.unique(keys):
        rows = np.flatnonzero(keys == key)
        alone += neardup.find_duplicates([texts[i] for i in rows], **options).params["candidates"]
    assert together.params["candidates"] == alone
    assert "cross_partition_dropped" not in together.params


@pytest.mark.parametrize("make", [list, np.asarray, pd.Series, lambda k: tuple(k)], ids=str)
def test_within_key_types(corpus, make):
    """A list, numpy array, Series or tuple of the keys names the partitions their integer
    codes name (and "1", 1 and 1.0 are told apart as Python tells them)."""
    texts, keys = corpus
    got = neardup.find_duplicates(texts, k=3, within=make(keys.tolist()), threshold=0.5)
    codes = np.unique(keys, return_inverse=True)[1]
    again = neardup.find_duplicates(texts, k=3, within=codes, threshold=0.5)
    np.testing.assert_array_equal(got.keep, again.keep)
    assert (
        got.params["within"] is True
        and got.num_removed < neardup.find_duplicates(texts, k=3, threshold=0.5).num_removed
    )
    mixed = neardup.find_duplicates(["a b", "a b", "a b"], k=1, within=["1", 1, 1.0])
    assert mixed.keep.tolist() == [True, True, False]


@pytest.mark.parametrize(
    ("keys", "error", "message"),
    [
        (["a"], InvalidArgumentError, "1 keys for 3 rows"),
        (["a", None, "b"], InvalidArgumentError, r"\[1\] is None"),
        ([1.0, float("nan"), 2.0], InvalidArgumentError, r"\[1\] is NaN"),
        (pd.Series([1, None, 2], dtype="Int64"), InvalidArgumentError, r"\[1\]"),
        ([[1], [2], [3]], ArgumentTypeError, "not hashable"),
        ("abc", ArgumentTypeError, "one key per row"),
        ([object(), 1, 2], ArgumentTypeError, "keys must be str"),
    ],
)
@pytest.mark.parametrize("option", ["within", "unit_of"])
def test_bad_keys(keys, error, message, option):
    with pytest.raises(error, match=message):
        neardup.find_duplicates(["a b", "a b", "c"], k=1, **{option: keys})


def test_separator_keeps_rows_apart():
    # joined without a word between them, the unit's shingles would be the single row's
    rows = ["the quick", "brown fox jumps", "the quick brown fox jumps"]
    glued = neardup.find_duplicates(["the quick\nbrown fox jumps", rows[2]], k=3)
    assert glued.num_removed == 1
    r = neardup.find_duplicates(rows, k=3, unit_of=["u", "u", "v"], threshold=0.5)
    assert r.keep.tolist() == [True, True, True]
    assert neardup.normalize(UNIT_SEPARATOR).split() == [neardup.normalize(UNIT_SEPARATOR)]


def _repositories() -> tuple[list[str], np.ndarray]:
    """Units of three rows of unrelated texts: 30 originals, 10 copied whole, 5 with one row
    replaced; the rows shuffled so that no unit's rows are together."""
    base = list(synth.generate(bases=0, singles=220, seed=3).texts)
    rows = [(base[3 * u + i], u) for u in range(30) for i in range(3)]
    rows += [(base[3 * u + i], 100 + u) for u in range(10) for i in range(3)]
    rows += [
        (base[3 * u + i] if i < 2 else base[200 + u], 200 + u)
        for u in range(10, 15)
        for i in range(3)
    ]
    order = np.random.default_rng(4).permutation(len(rows))
    return [rows[i][0] for i in order], np.array([rows[i][1] for i in order])


def test_units_equal_the_joined_texts():
    texts, owner = _repositories()
    units = Units.from_keys(owner.astype(np.uint64))
    joined = units.join(texts)
    options = {"k": 3, "threshold": 0.4, "method": "exact-jaccard"}
    by_unit = neardup.find_duplicates(joined, **options)
    r = neardup.find_duplicates(texts, unit_of=owner, **options)
    of = units.of_row
    np.testing.assert_array_equal(r.keep, by_unit.keep[of])
    np.testing.assert_array_equal(r.clusters, units.first_row[by_unit.clusters[of]])
    np.testing.assert_array_equal(r.pairs, units.first_row[by_unit.pairs])
    np.testing.assert_allclose(r.kept_similarity, by_unit.kept_similarity[of])
    np.testing.assert_array_equal(r.reason, by_unit.reason[of])
    assert r.params["units"] == len(units) == 45
    assert r.num_clusters == by_unit.num_clusters == len(r.groups())
    assert r.num_removed == 3 * 15 and set(r.reason) == {"kept", "exact", "near"}
    # every row of a unit carries one decision
    for u in range(len(units)):
        assert len(set(r.keep[of == u].tolist())) == 1
    with pytest.raises(InvalidArgumentError, match="units of rows"):
        r.at(0.6)
    with pytest.raises(InvalidArgumentError, match="units of rows"):
        r.sweep([0.5])
    frame = pd.DataFrame({"text": texts})
    assert len(r.filter(frame)) == int(r.keep.sum())
    assert r.annotate(frame)["keep"].tolist() == r.keep.tolist()


def test_units_keep_policies():
    texts = ["a b", "c d", "a b", "c d e"]
    longest = neardup.find_duplicates(
        texts, k=1, threshold=0.5, unit_of=[1, 1, 2, 2], keep="longest"
    )
    assert longest.keep.tolist() == [False, False, True, True]
    by_priority = neardup.find_duplicates(
        texts, k=1, threshold=0.5, unit_of=[1, 1, 2, 2], keep=[0, 9, 5, 1]
    )
    assert by_priority.keep.tolist() == [True, True, False, False]  # unit 1's best is 9


def test_units_within_partitions():
    texts = ["a b", "c d", "a b", "c d", "a b", "c d"]
    unit = ["r1", "r1", "r2", "r2", "r3", "r3"]
    r = neardup.find_duplicates(texts, k=1, unit_of=unit, within=["x", "x", "y", "y", "x", "x"])
    assert r.keep.tolist() == [True, True, True, True, False, False]
    # r2, alone in its partition, is one unit of two rows: no group
    assert r.num_clusters == 1 and len(r.groups()) == 1 and r.groups().size.tolist() == [4]
    assert r.clusters.tolist() == [0, 0, 2, 2, 0, 0]
    with pytest.raises(InvalidArgumentError, match="one unit but in two partitions"):
        neardup.find_duplicates(texts, k=1, unit_of=unit, within=["x", "y", "y", "y", "x", "x"])


def _write(path, texts, **columns):
    with open(path, "w") as f:
        for i, t in enumerate(texts):
            row = {"id": i, "text": t, **{k: v[i] for k, v in columns.items()}}
            f.write(json.dumps(row) + "\n")


def test_cli_within_and_units_match_the_api(tmp_path, corpus):
    texts, keys = corpus
    rng = np.random.default_rng(9)
    owner = [f"repo{int(u)}" for u in np.sort(rng.integers(0, 80, len(texts)))]
    src = tmp_path / "c.jsonl"
    _write(src, texts, dump=keys.tolist(), repo=owner)
    options = {"k": 3, "threshold": 0.5, "method": "minhash", "bands": 32, "rows": 4}
    for cli, api in (
        ({"within_field": "dump"}, {"within": keys}),
        ({"unit_field": "repo"}, {"unit_of": owner}),
        ({"within_field": "dump", "unit_field": "dump"}, {"within": keys, "unit_of": keys}),
    ):
        out = tmp_path / "kept.jsonl"
        s = dedup_files(
            [str(src)], str(out), batch_size=7, annotate=str(tmp_path / "a.jsonl"), **cli, **options
        )
        r = neardup.find_duplicates(texts, **api, **options)
        kept = [json.loads(line)["id"] for line in out.read_text().splitlines()]
        assert kept == np.flatnonzero(r.keep).tolist()
        annotated = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text().splitlines()]
        assert [a["cluster"] for a in annotated] == r.clusters.tolist()
        assert [a["reason"] for a in annotated] == r.reason.tolist()
        assert s.removed == r.num_removed and s.clusters == r.num_clusters


def test_cli_flags(tmp_path):
    src = tmp_path / "c.jsonl"
    _write(src, ["a b c", "a b c", "d e f", "a b c"], lang=["en", "de", "en", "en"])
    out = tmp_path / "k.jsonl"
    cmd = [sys.executable, "-m", "neardup", "dedup", str(src), "-o", str(out), "--k", "1", "-q"]
    subprocess.run([*cmd, "--within", "lang"], check=True)
    assert [json.loads(x)["id"] for x in out.read_text().splitlines()] == [0, 1, 2]
    done = subprocess.run([*cmd, "--within", "missing"], capture_output=True, text=True)
    assert done.returncode == 1 and "no field 'missing'" in done.stderr
    done = subprocess.run(
        [*cmd, "--unit-key", "lang", "--level", "paragraph"], capture_output=True, text=True
    )
    assert done.returncode == 2 and "--unit-key" in done.stderr


def test_file_keys_refused(tmp_path):
    src = tmp_path / "c.jsonl"
    _write(src, ["a b", "c d"], lang=["en", None])
    with pytest.raises(InvalidArgumentError, match="is None"):
        dedup_files([str(src)], str(tmp_path / "k.jsonl"), within_field="lang")
    with pytest.raises(InputError, match="no field"):
        dedup_files([str(src)], str(tmp_path / "k.jsonl"), unit_field="nope")
    # an HTML report shows documents (units) under the rows' ids: refused before any work
    page = tmp_path / "r.html"
    with pytest.raises(InvalidArgumentError, match="Markdown report"):
        dedup_files([str(src)], str(tmp_path / "k.jsonl"), unit_field="lang", report=str(page))
    assert not page.exists() and not (tmp_path / "k.jsonl").exists()


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_table_inputs_pass_the_key_column(tmp_path, corpus, suffix):
    pytest.importorskip("pyarrow")
    texts, keys = corpus
    path = tmp_path / f"c{suffix}"
    frame = pd.DataFrame({"id": range(len(texts)), "text": texts, "dump": keys})
    if suffix == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    options = {"k": 3, "threshold": 0.5, "method": "exact-jaccard"}
    s = dedup_files([str(path)], str(tmp_path / f"k{suffix}"), within_field="dump", **options)
    assert s.removed == neardup.find_duplicates(texts, within=keys, **options).num_removed
    with pytest.raises(InputError, match="no column 'lang'"):
        dedup_files([str(path)], str(tmp_path / f"k{suffix}"), unit_field="lang", **options)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda width: st.lists(
            st.tuples(
                st.lists(st.integers(0, 2**32 - 1), min_size=width, max_size=width),
                st.integers(0, 2**64 - 1),
                st.booleans(),
            ),
            max_size=8,
        )
    )
)
def test_salted_signatures_match_the_reference(rows):
    """The crate's salt (``within=``) is the documented SplitMix64 formula, slot by slot;
    empty signatures stay empty."""
    rows = [([0xFFFFFFFF] * len(sig) if empty else sig, key) for sig, key, empty in rows]
    width = len(rows[0][0]) if rows else 3
    signatures = np.array([sig for sig, _ in rows], dtype=np.uint32).reshape(-1, width)
    keys = np.array([key for _, key in rows], dtype=np.uint64)
    salt_signatures(signatures, keys)
    assert signatures.tolist() == [reference.salt_signature(sig, key) for sig, key in rows]


def test_salting_refuses_mismatched_keys_and_views():
    signatures = np.zeros((3, 4), dtype=np.uint32)
    with pytest.raises(InvalidArgumentError, match="2 partition keys for 3 signatures"):
        salt_signatures(signatures, np.zeros(2, dtype=np.uint64))
    with pytest.raises(InvalidArgumentError, match="C-contiguous"):
        salt_signatures(signatures[:, ::2], np.zeros(3, dtype=np.uint64))


def test_a_units_result_reads_each_rows_text_as_its_units():
    """The result of a units run holds each unit's text once (``units.UnitTexts``): every row
    reads as its unit's joined text, and what reads texts (explain, the reasons, the groups'
    previews) sees the units."""
    texts, owner = _repositories()
    units = Units.from_keys(owner.astype(np.uint64))
    data, offsets = units.join(texts)
    by_unit = [bytes(data[offsets[u] : offsets[u + 1]]).decode() for u in range(len(units))]
    r = neardup.find_duplicates(texts, k=3, threshold=0.4, unit_of=owner, keep="longest")
    assert len(r.texts) == len(texts)
    assert list(r.texts) == [by_unit[u] for u in units.of_row.tolist()]
    assert r.texts[5:7] == [by_unit[u] for u in units.of_row[5:7].tolist()]
    rows_of_unit = [texts[r] for r in units.order[units.bounds[0] : units.bounds[1]].tolist()]
    assert by_unit[0] == neardup.units.UNIT_SEPARATOR.join(rows_of_unit)  # in row order
    whole = neardup.find_duplicates(by_unit, k=3, threshold=0.4, keep="longest")
    of = units.of_row
    np.testing.assert_array_equal(r.keep, whole.keep[of])
    np.testing.assert_array_equal(r.reason, whole.reason[of])
    i, j = (int(x) for x in r.pairs[0])
    assert r.explain(i, j).jaccard == whole.explain(int(of[i]), int(of[j])).jaccard
    assert by_unit[of[i]][:20] in r.groups()._repr_html_()
