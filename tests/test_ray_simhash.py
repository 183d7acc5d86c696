"""SimHash on the Ray engine gives the local answer, by the local engine's search.

The equality checks compare with ``neardup.find_duplicates(method="simhash", pairs="all")``
on a corpus where every document carries the same footer (shared boilerplate pulls the
fingerprints together and fills buckets), at thresholds where the local cost model picks an
index and one where it picks brute force, cut into 1, 3 and 7 partitions.
"""

from __future__ import annotations

import contextlib
import functools
import io
import itertools
import json

import numpy as np
import pytest

import neardup
from neardup import synth
from neardup.errors import InvalidArgumentError

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'neardup[ray]'")
pa = pytest.importorskip("pyarrow")

import neardup.ray as nray  # noqa: E402
from neardup.ray import _simhash, ray_plan  # noqa: E402

FOOTER = (
    " This document is provided by the operations team for internal reference only. "
    "Distribution outside the organisation requires written approval from the document owner."
)


@functools.cache
def _texts() -> list[str]:
    corpus = synth.generate(bases=500, singles=1500, seed=11, boilerplate_share=0.3)
    texts = [t + FOOTER for t in corpus.texts]
    # exact copies far apart, and empty documents, which are never near-duplicates
    texts += texts[:900:5] + ["", "  ...  "] * 10
    rng = np.random.default_rng(5)
    return [texts[i] for i in rng.permutation(len(texts))]


def _dataset(texts: list[str], parts: int):
    table = pa.table({"text": texts})
    bounds = np.linspace(0, len(texts), parts + 1).astype(int)
    return ray.data.from_arrow([table.slice(a, b - a) for a, b in itertools.pairwise(bounds)])


@functools.cache
def _local(threshold: float, verify: str):
    return neardup.find_duplicates(
        _texts(), method="simhash", threshold=threshold, verify=verify, pairs="all"
    )


def _same(out, ref) -> None:
    out = out.sort_values("position")
    assert out["position"].tolist() == list(range(len(ref.keep)))
    assert (out["keep"].to_numpy() == ref.keep).all()
    assert out["cluster"].tolist() == ref.clusters.tolist()
    dup = out["duplicate_of"].to_numpy()
    removed = np.flatnonzero(~ref.keep)
    assert dup[removed].astype(np.int64).tolist() == ref.duplicate_of[removed].tolist()
    assert out["duplicate_of"].isna().to_numpy()[ref.keep].all()
    got = out["similarity"].to_numpy()
    assert np.isnan(got[ref.keep]).all()
    assert (
        got[removed].astype(np.float32) == ref.kept_similarity[removed].astype(np.float32)
    ).all()
    assert out["reason"].tolist() == ref.reason.tolist()


@pytest.mark.parametrize(
    ("threshold", "verify", "search"),
    [
        (0.9, "exact", "index"),
        (0.8, "exact", "index"),
        (0.8, "estimate", "index"),
        (0.3, "exact", "brute force"),
    ],
)
@pytest.mark.parametrize("parts", [1, 3, 7])
def test_same_answer_as_local_simhash(local_ray, threshold, verify, search, parts):
    texts = _texts()
    ref = _local(threshold, verify)
    assert ref.num_removed > 100  # the corpus does hold near-duplicates
    assert ref.params["simhash_search"].startswith(search)
    run, _ = nray.run_dataset(
        _dataset(texts, parts),
        method="simhash",
        threshold=threshold,
        verify=verify,
        max_partition_rows=len(texts),
    )
    # the search is the local one: its plan from every distinct fingerprint (the corpus is
    # smaller than the sample), run table by table where the shuffle gathered the buckets
    assert run.info["simhash_search"] == ref.params["simhash_search"]
    tables = run.tables
    out = pa.concat_tables(ray.get(tables)).to_pandas()
    _same(out, ref)
    if verify == "exact":  # every pair within the radius met once: the local candidates
        assert run.candidates <= ref.params["candidates"]


def test_dedup_keeps_the_local_rows(local_ray):
    texts = _texts()
    ref = _local(0.9, "exact")
    kept = nray.dedup(_dataset(texts, 3), method="simhash", threshold=0.9).to_pandas()
    assert kept["text"].tolist() == [t for t, k in zip(texts, ref.keep, strict=True) if k]


def test_table_pairs_find_each_pair_once_and_none_missed():
    """The crate's table search over a shuffle partition's records, every table together, is
    the local search: each pair within the radius once, from the first table it agrees on."""
    rng = np.random.default_rng(2)
    base = rng.integers(0, 2**63, size=(300, 1), dtype=np.uint64)
    fp = np.repeat(base, 4, axis=0)
    flips = rng.integers(0, 64, size=(len(fp), 3)).astype(np.uint64)
    for c in range(3):
        fp[:, 0] ^= np.uint64(1) << flips[:, c]
    plan = ray_plan(len(fp), method="simhash", threshold=0.8)
    lanes = _simhash.as_lanes(fp)
    search = _simhash.table_plan(_simhash.fingerprint_sample(lanes), plan, len(np.unique(fp)))
    assert search.blocks > 0 and len(search.keys) > 1  # an index of several tables
    from neardup.ray._steps import Signed

    signed = Signed(
        empty=np.zeros(len(fp), bool),
        positions=np.arange(len(fp), dtype=np.int64),
        digests=np.stack([np.arange(len(fp)), np.zeros(len(fp), int)], axis=1).astype(np.uint64),
        keys=np.zeros((len(fp), 0), np.uint64),
        signatures=fp,
        sizes=np.ones(len(fp), np.int64),
    )
    records = _simhash.table_rows(signed, search, 3)
    found = [_simhash.table_pairs([r], search, plan)[0] for r in records]
    pairs = np.concatenate(found)
    local, _ = neardup.stages.hamming_within(fp, plan.max_hamming)
    assert len(pairs) == len(local) > 300  # none twice
    assert sorted(map(tuple, pairs.tolist())) == sorted(map(tuple, local.tolist()))


def test_simhash_plans_and_what_it_refuses():
    plan = ray_plan(10_000, method="simhash", threshold=0.9)  # was refused before
    assert (plan.method, plan.max_hamming, plan.pairs) == ("simhash", 6, "all")
    with pytest.raises(InvalidArgumentError, match="not run method='simhash' within"):
        ray_plan(10_000, method="simhash", within=True)


def test_brute_force_that_would_not_spread_is_refused():
    plan = ray_plan(10**6, method="simhash", threshold=0.3)
    lanes = _simhash.as_lanes(np.arange(2000, dtype=np.uint64).reshape(-1, 1) * 0x9E3779B97F4A7C15)
    search = _simhash.table_plan(_simhash.fingerprint_sample(lanes), plan, 10**6)
    assert search.search == "brute force" and search.blocks == 0
    with pytest.raises(InvalidArgumentError, match="no index pays at this radius"):
        _simhash.check_spreads(search, plan)


def _cli(tmp_path, path, engine: str) -> tuple[bytes, str, dict]:
    from neardup.cli import main

    out = tmp_path / f"kept-{engine}.jsonl"
    clusters = tmp_path / f"clusters-{engine}.csv"
    args = ["dedup", str(path), "-o", str(out), "--engine", engine, "--method", "simhash"]
    args += ["--threshold", "0.9", "--clusters", str(clusters), "-q", "--json"]
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(args) == 0
    summary = json.loads(buffer.getvalue())
    return out.read_bytes(), clusters.read_text(), {**summary["params"], **summary["counts"]}


def test_cli_ray_simhash_writes_the_local_outputs(local_ray, tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in _texts()), encoding="utf-8")
    (lo, lc, ls), (ro, rc, rs) = (_cli(tmp_path, path, e) for e in ("local", "ray"))
    assert lo == ro
    assert lc == rc
    for key in ("documents", "empty", "exact_duplicates", "near_duplicates", "clusters"):
        assert ls[key] == rs[key], key
    assert ls["method"] == rs["method"] == "simhash"
    assert ls["simhash_search"] == rs["simhash_search"]
