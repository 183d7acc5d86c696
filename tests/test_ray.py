"""The Ray engine (neardup.ray) gives the single-machine answer on a local 2-CPU Ray.

Skipped when Ray is not installed (``pip install 'neardup[ray]'``); ``.ci/run`` installs it.
The equality checks compare with ``neardup.find_duplicates(method="minhash", pairs="all")``.
"""

from __future__ import annotations

import functools
import itertools
import json
import sysconfig
import warnings
from pathlib import Path

import numpy as np
import pytest

import neardup
from neardup import synth
from neardup.errors import InputError, InvalidArgumentError
from neardup.ray import RayNotInstalledError, ray_plan, require_ray

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'neardup[ray]'")
pa = pytest.importorskip("pyarrow")

import neardup.ray as nray  # noqa: E402

THRESHOLD = 0.5


def _synthetic() -> list[str]:
    corpus = synth.generate(bases=1500, singles=8000, seed=7, boilerplate_share=0.1)
    texts = list(corpus.texts)
    # exact copies far apart, and empty documents, which are never near-duplicates
    texts += texts[:1500:7] + ["", "  ...  "] * 20
    rng = np.random.default_rng(3)
    return [texts[i] for i in rng.permutation(len(texts))][:20_000]


def _stdlib_paragraphs(limit: int = 20_000) -> list[str]:
    """Paragraphs of the Python standard library's sources: real text present on any machine
    with Python (licence headers, repeated docstrings and copied code are its duplicates)."""
    out: list[str] = []
    root = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(root.rglob("*.py")):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for para in text.split("\n\n"):
            if len(para.split()) >= 8:
                out.append(para)
                if len(out) == limit:
                    return out
    return out


CORPORA = {"synthetic": _synthetic, "stdlib": _stdlib_paragraphs}
_cache: dict[str, list[str]] = {}


def corpus(name: str) -> list[str]:
    if name not in _cache:
        _cache[name] = CORPORA[name]()
    return _cache[name]


def _dataset(texts: list[str], parts: int, ids: list[str] | None = None):
    columns = {"text": texts} if ids is None else {"text": texts, "doc": ids}
    table = pa.table(columns)
    bounds = np.linspace(0, len(texts), parts + 1).astype(int)
    return ray.data.from_arrow([table.slice(a, b - a) for a, b in itertools.pairwise(bounds)])


@functools.cache
def _expected_for(name: str, verify: str):
    return _expected(corpus(name), verify)


def _expected(texts: list[str], verify: str, **options):
    """The default local run: its banding refined from the sample of the unique documents'
    signatures (neardup.banding.banding_sample), which the Ray engine draws the same way."""
    ref = neardup.find_duplicates(
        texts, method="minhash", threshold=THRESHOLD, verify=verify, pairs="all", **options
    )
    removed = np.flatnonzero(~ref.keep)
    pairs = np.stack([removed, ref.clusters[removed]], axis=1)
    if verify == "exact":
        sim = neardup.jaccard(neardup.shingles(texts), pairs)
    else:
        sim = neardup.estimate_jaccard(neardup.minhash(texts), pairs)
    return ref, removed, sim


def _check(out, texts, verify, ids=None, expected=None, least=100):
    ref, removed, sim = expected or _expected(texts, verify)
    out = out.sort_values("position")
    assert out["position"].tolist() == list(range(len(texts)))
    assert (out["keep"].to_numpy() == ref.keep).all()
    labels = ref.clusters if ids is None else np.asarray(ids, dtype=object)[ref.clusters]
    assert out["cluster"].tolist() == list(labels)
    got = out["similarity"].to_numpy()
    assert np.isnan(got[ref.keep]).all()
    assert (got[removed].astype(np.float32) == sim).all()
    assert out["duplicate_of"].isna().to_numpy()[ref.keep].all()
    # the local reason column, value for value (exact copies and normalised ones are there)
    assert out["reason"].tolist() == ref.reason.tolist()
    assert ref.num_removed > least  # the corpus does hold duplicates


@pytest.mark.parametrize("verify", ["exact", "estimate"])
@pytest.mark.parametrize("name", sorted(CORPORA))
def test_same_answer_as_single_machine_for_any_partitioning(local_ray, name, verify):
    texts = corpus(name)
    assert len(texts) == 20_000
    expected = _expected_for(name, verify)
    ref = expected[0]
    # the banding is the local engine's refined one, not the plan's
    decided = ("bands", "rows", "predicted_candidates", "banding_reason", "bucket_splits")
    for parts in (1, 2, 7, 64):
        if parts == 1:  # the public API once; then its run (the same tables, without Ray Data)
            out = nray.find_duplicates(_dataset(texts, parts), threshold=THRESHOLD, verify=verify)
            _check(out.to_pandas(), texts, verify, expected=expected)
            continue
        result, plan = nray.run_dataset(_dataset(texts, parts), threshold=THRESHOLD, verify=verify)
        assert {**plan.as_dict(), **result.info}["unique"] == ref.params["unique"]
        for key in decided:
            assert {**plan.as_dict(), **result.info}.get(key) == ref.params.get(key), key
        _same_recall(result.info, ref.params)
        table = pa.concat_tables(ray.get(result.tables))
        _check(table.to_pandas(), texts, verify, expected=expected)
    # the refined banding differs from the plan's here (so the Ray engine must refine too;
    # with exact verification on this corpus the recall-first choice is the plan's 42 x 3)
    if verify == "estimate" and name == "synthetic":
        unrefined = ray_plan(len(texts), threshold=THRESHOLD)
        assert (ref.params["bands"], ref.params["rows"]) != (unrefined.bands, unrefined.rows)


def _same_recall(ray_info: dict, local: dict) -> None:
    """The expected recall agrees up to the order of the floating-point sum (the local engine
    adds document by document, the Ray engine per charged document and the rest at once)."""
    for key in ("expected_recall", "banding_recall"):
        assert ray_info[key] == pytest.approx(local[key], rel=1e-12, abs=1e-12), key


def _footer_corpus(seed: int) -> list[str]:
    """Unrelated documents that share a long footer (so whole LSH bands fall on it and
    buckets grow past a small limit), with near copies planted among them."""
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(5000)]
    footer = " ".join(rng.choice(words, 40))
    texts = [" ".join(rng.choice(words, 30)) + " " + footer for _ in range(700)]
    for base in range(0, 700, 23):  # near copies: a word or two changed
        body = texts[base].split()
        for _ in range(2):
            copy = list(body)
            copy[int(rng.integers(0, 30))] = "changed"
            texts.append(" ".join(copy))
    texts += texts[:40:9]  # exact copies too
    return [texts[i] for i in rng.permutation(len(texts))]


@pytest.mark.parametrize("verify", ["exact", "estimate"])
def test_large_buckets_are_split_as_the_local_engine_splits_them(local_ray, verify):
    texts = _footer_corpus(5)
    options = {"threshold": THRESHOLD, "verify": verify, "bucket_limit": 4, "bands": 42, "rows": 3}
    ref = neardup.find_duplicates(texts, method="minhash", pairs="all", **options)
    whole = neardup.find_duplicates(
        texts, method="minhash", pairs="all", **{**options, "bucket_limit": None}
    )
    assert ref.params["bucket_splits"] > 10
    assert ref.params["expected_recall"] < ref.params["banding_recall"]
    screened = ref.params["screened"]
    # the rule does cut the work here: without it, many more candidates
    assert ref.params["candidates"] + screened < whole.params["candidates"] / 2
    expected = _expected(texts, verify, bucket_limit=4, bands=42, rows=3)
    for parts in (1, 3, 8):
        result, plan = nray.run_dataset(_dataset(texts, parts), **options)
        assert plan.bucket_limit == 4
        assert result.info["bucket_splits"] == ref.params["bucket_splits"]
        _same_recall(result.info, ref.params)
        assert result.candidates == ref.params["candidates"]
        # (no two sets here have identical signatures: the screened pairs are the same)
        assert result.info.get("screened") == (screened if verify == "exact" else None)
        table = pa.concat_tables(ray.get(result.tables))
        _check(table.to_pandas(), texts, verify, expected=expected, least=20)
    # and with every bucket whole, the plain LSH candidates
    result, _ = nray.run_dataset(_dataset(texts, 2), **{**options, "bucket_limit": None})
    assert result.info["bucket_splits"] == 0
    assert result.candidates == whole.params["candidates"]
    if verify == "exact":
        assert result.info["screened"] == whole.params["screened"] > 0


def test_split_recall_is_summed_per_document_and_warns_when_lowered():
    from types import SimpleNamespace

    from neardup.errors import NeardupWarning
    from neardup.ray._engine import _split_info
    from neardup.ray._split import Splits

    plan = ray_plan(10_000, threshold=THRESHOLD, bands=42, rows=3)
    plain = float(neardup.lsh_probability(THRESHOLD, 42, 3))
    fake = SimpleNamespace(get=lambda refs: refs)  # the split tasks' results, already here
    # two bucket partitions charge documents 0..99 half each: summed, they lose every partner
    half = np.full(100, 5 << 40, dtype=np.int64)
    found = [Splits(3, np.arange(100), half), Splits(4, np.arange(100), half)]
    info = {"expected_recall": plain}
    with pytest.warns(NeardupWarning, match="expected recall at threshold 0.5"):
        _split_info(fake, found, 200, plan, info)
    assert info["bucket_splits"] == 7 and info["banding_recall"] == plain
    lost = 1 - min(1.0, float(np.exp(42 * np.log1p(-(THRESHOLD**3)) + 10)))
    assert info["expected_recall"] == pytest.approx((100 * plain + 100 * lost) / 200, rel=1e-12)
    # nothing split: the banding's recall, no warning
    info = {"expected_recall": plain}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _split_info(fake, [], 200, plan, info)
    assert info["bucket_splits"] == 0
    assert info["expected_recall"] == pytest.approx(plain, rel=1e-12)


def test_distributed_components_equal_union_find(local_ray):
    texts = corpus("synthetic")
    ids = [f"doc-{i:05d}" for i in range(len(texts))]
    result, _ = nray.run_dataset(
        _dataset(texts, 1, ids),
        id_column="doc",
        threshold=THRESHOLD,
        driver_edge_limit=0,
        max_partition_rows=3000,  # the one block is cut into 7 partitions
    )
    assert not result.components_on_driver
    assert len(result.tables) == 7
    out = ray.data.from_arrow_refs(result.tables).to_pandas()
    assert out["id"].tolist() == ids
    _check(out, texts, "exact", ids, expected=_expected_for("synthetic", "exact"))


def test_dedup_returns_the_kept_rows_with_their_columns(local_ray):
    texts = corpus("stdlib")[:4000]
    ids = [f"p{i}" for i in range(len(texts))]
    kept = nray.dedup(_dataset(texts, 3, ids), threshold=THRESHOLD).to_pandas()
    ref = neardup.find_duplicates(texts, method="minhash", threshold=THRESHOLD, pairs="all")
    assert kept.columns.tolist() == ["text", "doc"]
    assert kept["doc"].tolist() == [ids[i] for i in np.flatnonzero(ref.keep)]


def test_a_killed_worker_is_retried_and_the_answer_holds(local_ray):
    texts = corpus("synthetic")[:3000]
    local_ray.unlink()  # the next signing task kills its worker process, once
    out = nray.find_duplicates(_dataset(texts, 4), threshold=THRESHOLD).to_pandas()
    assert local_ray.exists(), "no worker was killed"
    assert int(local_ray.read_text()) > 0  # the pid of the killed worker
    _check(out, texts, "exact")


def test_an_input_error_names_the_row(local_ray):
    texts: list[str | None] = list(corpus("synthetic")[:3000])
    texts[2222] = None
    null = r"input position 2222: row without text \('text' is null\)"
    with pytest.raises(InputError, match=null):
        nray.find_duplicates(_dataset(texts, 5), threshold=THRESHOLD)  # type: ignore[arg-type]


def test_options_are_checked_by_the_plan():
    with pytest.raises(InvalidArgumentError, match="num_perm"):
        ray_plan(10_000, num_perm=0)
    with pytest.raises(InvalidArgumentError, match="not 'exact-jaccard'"):
        ray_plan(10_000, method="exact-jaccard")
    with pytest.raises(InvalidArgumentError, match="local engine"):
        ray_plan(100, method="auto")
    with pytest.raises(InvalidArgumentError, match="keep='first'"):
        ray_plan(10_000, keep="longest")
    assert ray_plan(10_000, threshold=0.3).pairs == "all"


def test_a_missing_ray_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "ray", None)
    with pytest.raises(RayNotInstalledError, match=r"pip install 'neardup\[ray\]'"):
        require_ray()


def test_unknown_column_is_named(local_ray):
    ds = ray.data.from_arrow(pa.table({"body": ["a b c"]}))
    with pytest.raises(InvalidArgumentError, match="no column 'text'"):
        nray.find_duplicates(ds)


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _cli_pair(tmp_path: Path, inputs: list[str], suffix: str, *extra: str) -> None:
    """Runs the local and the Ray engine on the same inputs; their outputs must be equal."""
    from neardup.cli import main

    outs = {}
    for engine in ("local", "ray"):
        out = tmp_path / f"kept-{engine}{suffix}"
        clusters = tmp_path / f"clusters-{engine}.csv"
        report = tmp_path / f"report-{engine}.json"
        args = ["dedup", *inputs, "-o", str(out), "--engine", engine, "--method", "minhash"]
        args += ["--threshold", str(THRESHOLD), "--clusters", str(clusters), "-q", *extra]
        import contextlib
        import io

        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            assert main([*args, "--json"]) == 0
        report.write_text(buffer.getvalue())
        summary = json.loads(buffer.getvalue())  # the shared schema, flattened for the checks
        outs[engine] = (out, clusters, {**summary["params"], **summary["counts"]})
    (lo, lc, ls), (ro, rc, rs) = outs["local"], outs["ray"]
    if lo.is_dir():
        assert sorted(p.name for p in lo.rglob("*")) == sorted(p.name for p in ro.rglob("*"))
    else:
        assert lo.read_bytes() == ro.read_bytes()
    assert lc.read_text() == rc.read_text()
    for key in ("documents", "empty", "exact_duplicates", "near_duplicates", "clusters"):
        assert ls[key] == rs[key], key
    for key in ("removed", "kept", "bands", "rows"):
        assert ls[key] == rs[key], key
    for key in ("unique", "predicted_candidates", "banding_reason", "bucket_splits"):
        assert ls[key] == rs[key], key
    _same_recall(rs, ls)
    if "estimate" not in extra:  # the local engine counts no candidates when it estimates
        assert ls["candidates"] == rs["candidates"]
        # screened: the local engine counts pairs of distinct signatures, the Ray engine pairs
        # of distinct sets (near-exact copies often have identical signatures)
        assert ls["screened"] <= rs["screened"] <= 1.1 * ls["screened"]
    # "pairs": the local engine reports pairs expanded over exact copies (find_duplicates'
    # pairs), the Ray engine the verified pairs between distinct sets: at most as many
    assert rs["pairs"] <= ls["pairs"]
    assert rs["removed"] > 20


def test_cli_ray_engine_writes_the_local_outputs_jsonl(local_ray, tmp_path):
    texts = corpus("synthetic")[:4000]
    rows = [{"id": f"d{i}", "text": t, "n": i} for i, t in enumerate(texts)]
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _write_jsonl(a, rows[:1700])
    _write_jsonl(b, rows[1700:])
    _cli_pair(tmp_path, [str(a), str(b)], ".jsonl")


def test_cli_ray_engine_writes_the_local_outputs_parquet(local_ray, tmp_path):
    import pyarrow.parquet as pq

    texts = corpus("stdlib")[:3000]
    path = tmp_path / "c.parquet"
    pq.write_table(
        pa.table({"text": texts, "k": list(range(len(texts)))}), path, row_group_size=999
    )
    _cli_pair(tmp_path, [str(path)], ".parquet", "--verify", "estimate")


def test_cli_ray_engine_on_a_folder(local_ray, tmp_path):
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    texts = corpus("synthetic")[:1500]
    for i, t in enumerate(texts):
        (folder / ("sub" if i % 3 else "") / f"{i:05d}.txt").write_text(t, encoding="utf-8")
    _cli_pair(tmp_path, [str(folder)], "")


def test_cli_input_error_names_file_and_row_and_writes_nothing(local_ray, tmp_path, capsys):
    from neardup.cli import main

    texts = corpus("synthetic")[:3000]
    rows: list[dict] = [{"text": t} for t in texts]
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _write_jsonl(a, rows[:1500])
    rows[1500 + 1234] = {"text": None}
    _write_jsonl(b, rows[1500:])
    out = tmp_path / "kept.jsonl"
    code = main(["dedup", str(a), str(b), "-o", str(out), "--engine", "ray", "--method", "minhash"])
    assert code == 1
    err = capsys.readouterr().err
    assert f"{b}: row 1235: row without text ('text' is null)" in err
    assert not out.exists()
    assert list(tmp_path.iterdir()) == sorted([a, b]) or set(tmp_path.iterdir()) == {a, b}


def test_reason_column_and_report_counts_equal_the_local_engine(local_ray, tmp_path):
    from neardup.dedup import dedup_files
    from neardup.ray._cli import dedup_files_ray

    base = corpus("synthetic")[:3000]
    # byte copies, copies equal after normalisation (case), near copies (the corpus's edits)
    texts = [*base, *base[:300:11], *(t.upper() for t in base[:200:9])]
    texts = [texts[i] for i in np.random.default_rng(5).permutation(len(texts))]
    ref = neardup.find_duplicates(texts, method="minhash", threshold=THRESHOLD, pairs="all")
    assert {"kept", "exact", "normalized", "near"} == set(ref.reason.tolist())
    out = nray.find_duplicates(_dataset(texts, 5), threshold=THRESHOLD).to_pandas()
    assert out.sort_values("position")["reason"].tolist() == ref.reason.tolist()
    source = tmp_path / "c.jsonl"
    _write_jsonl(source, [{"id": i, "text": t} for i, t in enumerate(texts)])
    options = {"method": "minhash", "threshold": THRESHOLD}
    local = dedup_files([str(source)], None, report=str(tmp_path / "l.md"), **options)
    far = dedup_files_ray([str(source)], None, report=str(tmp_path / "r.md"), **options)
    assert far.reasons == local.reasons
    assert "| reason: normalized |" in (tmp_path / "r.md").read_text()


def _dumps(n: int) -> list[str]:
    return np.random.default_rng(8).choice(["CC-2019", "CC-2020", "CC-2021"], n).tolist()


@pytest.mark.parametrize("verify", ["exact", "estimate"])
def test_within_partitions_gives_the_local_answer(local_ray, verify):
    """``within=``: the partition key is mixed into digests and signatures on every block as
    the local engine mixes it, so the banding, the clusters and the kept rows are its."""
    texts = corpus("synthetic")[:6000]
    dumps = _dumps(len(texts))
    expected = _expected(texts, verify, within=dumps)
    ref = expected[0]
    table = pa.table({"text": texts, "dump": dumps})
    bounds = np.linspace(0, len(texts), 6).astype(int)
    ds = ray.data.from_arrow([table.slice(a, b - a) for a, b in itertools.pairwise(bounds)])
    out = nray.find_duplicates(ds, threshold=THRESHOLD, verify=verify, within="dump")
    _check(out.to_pandas(), texts, verify, expected=expected)
    alone = neardup.find_duplicates(texts, method="minhash", threshold=THRESHOLD, pairs="all")
    assert ref.num_removed < alone.num_removed  # copies across dumps were kept


def test_cli_ray_engine_within_writes_the_local_outputs(local_ray, tmp_path):
    texts = corpus("synthetic")[:3000]
    dumps = _dumps(len(texts))
    rows = [
        {"id": f"d{i}", "text": t, "dump": d}
        for i, (t, d) in enumerate(zip(texts, dumps, strict=True))
    ]
    a = tmp_path / "a.jsonl"
    _write_jsonl(a, rows)
    _cli_pair(tmp_path, [str(a)], ".jsonl", "--within", "dump")
