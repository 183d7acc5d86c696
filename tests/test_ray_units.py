"""Units of many rows (``unit_of=``, ``--unit-key``) on the Ray engine give the local answer
(the API, ``dedup`` and the CLI), on a local 2-CPU Ray (the ``local_ray`` fixture of
``conftest.py``, shared with ``test_ray.py``).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import neardup
from neardup.errors import InputError, InvalidArgumentError

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'neardup[ray]'")
pa = pytest.importorskip("pyarrow")

from test_ray import THRESHOLD, _cli_pair, _expected, _write_jsonl, corpus  # noqa: E402

import neardup.ray as nray  # noqa: E402


def _units_corpus(n: int) -> tuple[list[str], list[str]]:
    """Rows of units scattered over the whole corpus (so over every block): most units are
    single rows, a third of the rows join one of n / 20 units (their rows far apart), and
    the last rows repeat 30 of those units row for row under new keys (exact-copy units)."""
    texts = corpus("synthetic")[:n]
    rng = np.random.default_rng(11)
    keys = [f"u{i}" for i in range(n)]
    for i in rng.choice(n, n // 3, replace=False).tolist():  # a third join a random unit
        keys[i] = f"u{int(rng.integers(0, n // 20))}"
    for u in range(60):
        rows = [i for i, k in enumerate(keys[:n]) if k == f"u{u}"]
        if not rows:
            continue
        copied = [texts[i] for i in rows]
        if u >= 30:  # a near copy: one row edited
            copied[len(rows) // 2] += " and one more line"
        texts = texts + copied
        keys = keys + [f"{'near' if u >= 30 else 'copy'}{u}"] * len(rows)
    return texts, keys


def test_unit_rows_are_joined_as_the_local_engine_joins_them():
    """The key partition's step alone (no Ray): units in first-row order, texts joined in
    row order with the local separator, their rows and first rows the local ones."""
    from neardup._validate import check_keys
    from neardup.ray import _units
    from neardup.units import Units, UnitTexts

    texts, keys = _units_corpus(1200)
    hashes = check_keys("unit_of", keys, len(keys))
    rng = np.random.default_rng(5)
    order = rng.permutation(len(texts))  # the rows arrive in any order
    table = pa.table(
        {
            "text": pa.array([texts[i] for i in order], pa.string()),
            _units.ROW: pa.array(order, pa.int64()),
            _units.KEY: pa.array(hashes[order]),
        }
    )
    *pieces, odd = _units._join_fn("text", np.array([0]), table.slice(0, 100), table.slice(100))
    units = _units._unit_block_fn(*pieces)[0]
    local = Units.from_keys(hashes)
    assert odd is None
    data, offsets = local.join(texts)
    assert units.column("text").to_pylist() == list(
        UnitTexts((data, offsets), np.arange(len(local)))
    )
    assert units.column(_units.FIRST).to_pylist() == local.first_row.tolist()
    rows = [local.order[a:b].tolist() for a, b in itertools.pairwise(local.bounds.tolist())]
    assert units.column(_units.ROWS).to_pylist() == rows
    # within: the lowest row whose partition is not its unit's first row's, as locally
    salts = np.zeros(len(texts), np.uint64)
    salts[[rows[3][-1], rows[7][-1]]] = 1
    with pytest.raises(InvalidArgumentError) as lo:
        local.partitions(salts)
    table = table.append_column(_units.SALT, pa.array(salts[order]))
    table = table.append_column(_units.SALT_HASH, pa.array(salts[order]))
    *_, odd = _units._join_fn("text", np.array([0]), table)
    assert (
        str(lo.value) == f"rows {odd[0]} and {odd[1]} are one unit but in two partitions (within)"
    )
    *empty, odd = _units._join_fn("text", np.array([0, 5]), table.slice(0, 0))
    assert [e.num_rows for e in empty] == [0, 0] and odd is None


def _blocks_of(table, parts: int):
    bounds = np.linspace(0, table.num_rows, parts + 1).astype(int)
    return ray.data.from_arrow([table.slice(a, b - a) for a, b in itertools.pairwise(bounds)])


@pytest.mark.parametrize("verify", ["exact", "estimate"])
def test_units_give_the_local_answer(local_ray, verify):
    """``unit_of=``: rows sharing a key, scattered over the blocks, are joined in row order
    as the local engine joins them, and every row carries its unit's local decision."""
    texts, keys = _units_corpus(4000)
    ids = [f"d{i}" for i in range(len(texts))]
    ref = _expected(texts, verify, unit_of=keys)[0]
    ds = _blocks_of(pa.table({"text": texts, "doc": ids, "repo": keys}), 5)
    out = nray.find_duplicates(
        ds, "text", "doc", threshold=THRESHOLD, verify=verify, unit_of="repo"
    )
    out = out.to_pandas().sort_values("position")
    assert out["id"].tolist() == ids
    assert (out["keep"].to_numpy() == ref.keep).all()
    assert out["cluster"].tolist() == [ids[c] for c in ref.clusters.tolist()]
    dup = [None if k else ids[c] for c, k in zip(ref.clusters.tolist(), ref.keep, strict=True)]
    assert (
        out["duplicate_of"].astype(object).where(out["duplicate_of"].notna(), None).tolist() == dup
    )
    assert out["reason"].tolist() == ref.reason.tolist()
    got = out["similarity"].to_numpy()
    assert np.isnan(got[ref.keep]).all()
    removed = np.flatnonzero(~ref.keep)
    assert np.allclose(got[removed], ref.kept_similarity[removed], rtol=1e-6)
    # the units matter: rows alone would be decided otherwise, and whole copies are exact
    rows_alone = neardup.find_duplicates(
        texts, method="minhash", threshold=THRESHOLD, verify=verify, pairs="all"
    )
    assert (rows_alone.keep != ref.keep).sum() > 50
    copies = np.flatnonzero(np.char.startswith(np.array(keys), "copy"))
    assert (ref.reason[copies] == "exact").all() and len(copies) > 100
    near = np.flatnonzero(np.char.startswith(np.array(keys), "near"))
    assert (ref.reason[near] == "near").sum() > 100
    assert ref.num_removed > 100
    kept = nray.dedup(ds, "text", "doc", threshold=THRESHOLD, verify=verify, unit_of="repo")
    assert kept.to_pandas()["doc"].tolist() == [ids[i] for i in np.flatnonzero(ref.keep)]


def test_units_without_ids_name_clusters_by_first_row(local_ray):
    texts, keys = _units_corpus(2000)
    ref = _expected(texts, "exact", unit_of=keys)[0]
    ds = _blocks_of(pa.table({"text": texts, "repo": keys}), 3)
    out = nray.find_duplicates(ds, threshold=THRESHOLD, unit_of="repo").to_pandas()
    out = out.sort_values("position")
    assert out["cluster"].tolist() == ref.clusters.tolist()
    assert (out["keep"].to_numpy() == ref.keep).all()


def test_units_within_partitions_give_the_local_answer(local_ray):
    texts, keys = _units_corpus(3000)
    dumps = [f"dump{sum(map(ord, k)) % 3}" for k in keys]  # a unit's rows share a dump
    ref = _expected(texts, "exact", unit_of=keys, within=dumps)[0]
    alone = _expected(texts, "exact", unit_of=keys)[0]
    assert (ref.keep != alone.keep).any()  # the partitions matter
    table = pa.table({"text": texts, "repo": keys, "dump": dumps})
    ds = _blocks_of(table, 3)
    options = {"threshold": THRESHOLD, "unit_of": "repo", "within": "dump"}
    out = nray.find_duplicates(ds, **options).to_pandas().sort_values("position")
    assert (out["keep"].to_numpy() == ref.keep).all()
    assert out["cluster"].tolist() == ref.clusters.tolist()
    kept = nray.dedup(ds, **options).to_pandas()
    assert kept["text"].tolist() == [texts[i] for i in np.flatnonzero(ref.keep)]


def test_units_refuse_bad_input_as_the_local_engine(local_ray):
    """A unit over two partitions (the lowest such row of all, as locally: here two units
    whose rows are in other blocks than their first), and a null key: the local errors."""
    texts, keys = _units_corpus(3000)
    dumps = ["d"] * len(keys)
    for unit in ("u3", "u7"):
        dumps[max(i for i, k in enumerate(keys) if k == unit)] = "other"
    local = {"threshold": THRESHOLD, "method": "minhash", "pairs": "all"}
    with pytest.raises(InvalidArgumentError, match="one unit but in two partitions") as lo:
        neardup.find_duplicates(texts, unit_of=keys, within=dumps, **local)
    table = pa.table({"text": texts, "repo": keys, "dump": dumps})
    with pytest.raises(InvalidArgumentError) as ra:
        nray.find_duplicates(_blocks_of(table, 4), unit_of="repo", within="dump")
    assert str(ra.value) == str(lo.value)
    nulls: list[str | None] = list(keys)
    nulls[2345] = None
    with pytest.raises(InvalidArgumentError, match=r"unit_of\[2345\] is None") as lo:
        neardup.find_duplicates(texts, unit_of=nulls, **local)
    table = pa.table({"text": texts, "repo": nulls})
    with pytest.raises(InvalidArgumentError) as ra:
        nray.find_duplicates(_blocks_of(table, 4), unit_of="repo")
    assert str(ra.value) == str(lo.value)
    holes: list[str | None] = list(texts)
    holes[2222] = None  # as the Ray engine without units says it
    table = pa.table({"text": holes, "repo": keys})
    null = r"^input position 2222: row without text \('text' is null\)$"
    with pytest.raises(InputError, match=null):
        nray.find_duplicates(_blocks_of(table, 4), unit_of="repo")


def _units_rows(n: int) -> list[dict]:
    texts, keys = _units_corpus(n)
    return [
        {"id": f"d{i}", "text": t, "repo": k}
        for i, (t, k) in enumerate(zip(texts, keys, strict=True))
    ]


def test_cli_ray_engine_units_write_the_local_outputs(local_ray, tmp_path):
    rows = _units_rows(3000)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _write_jsonl(a, rows[:1300])
    _write_jsonl(b, rows[1300:])
    _cli_pair(tmp_path, [str(a), str(b)], ".jsonl", "--unit-key", "repo")


@pytest.mark.parametrize("field", ["text", "repo"])
def test_cli_ray_engine_units_refuse_nulls_as_the_local_engine(local_ray, tmp_path, field):
    """A null key: the local error. A null text: the Ray engine's (with or without units),
    which names the same file and row as the local one in its own words."""
    from neardup.cli import main

    rows = _units_rows(2000)
    rows[1500][field] = None
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _write_jsonl(a, rows[:1000])
    _write_jsonl(b, rows[1000:])
    errors = {}
    for engine in ("local", "ray"):
        args = ["dedup", str(a), str(b), "-o", str(tmp_path / f"k-{engine}.jsonl")]
        args += ["--engine", engine, "--method", "minhash", "--unit-key", "repo"]
        import contextlib
        import io

        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = main(args)
        errors[engine] = (code, err.getvalue().strip().splitlines()[-1])
    if field == "repo":
        assert errors["ray"] == errors["local"]
    else:
        assert errors["local"][1].endswith(f"{b}:501: row without text ('text' is null)")
        assert errors["ray"] == (
            errors["local"][0],
            f"neardup dedup: error: {b}: row 501: row without text ('text' is null)",
        )
    assert errors["ray"][0] != 0 and not list(tmp_path.glob("k-*"))
