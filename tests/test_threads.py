"""Every stage that takes ``threads`` gives the same result for 1, 2 and 3 threads, on sizes
that are no multiple of any block (odd counts, copies, empty documents, large buckets)."""

from __future__ import annotations

import numpy as np
import pytest

import neardup
from neardup import _core, stages
from neardup.errors import InvalidArgumentError

THREADS = (1, 2, 3)


@pytest.fixture(scope="module")
def texts() -> list[str]:
    texts = list(neardup.synth.generate(bases=230, singles=917, seed=3).texts)
    texts += [texts[5]] * 7 + ["", "   "] + ["the same few words again"] * 40
    return texts


@pytest.fixture(scope="module")
def signatures(texts: list[str]) -> np.ndarray:
    return stages.minhash(texts, num_perm=64, k=3)


def _same(results: list) -> None:
    first = results[0]
    for other in results[1:]:
        if isinstance(first, tuple):
            assert len(other) == len(first)
            for a, b in zip(first, other, strict=True):
                np.testing.assert_array_equal(a, b)
        else:
            np.testing.assert_array_equal(first, other)


@pytest.mark.parametrize(("bands", "rows"), [(32, 2), (21, 3), (5, 1), (1, 64)])
def test_lsh_stages_do_not_depend_on_threads(signatures, texts, bands, rows):
    pairs = [stages.lsh_candidates(signatures, bands, rows, threads=t) for t in THREADS]
    _same(pairs)
    assert len(pairs[0]) > 40 * 39 // 2  # the copies' clique at least
    _same([stages.lsh_candidate_rows(signatures, bands, rows, threads=t) for t in THREADS])
    _same([stages.band_hashes(signatures, bands, rows, threads=t) for t in THREADS])
    sets = stages.shingles(texts, k=3)
    for spanning in (False, True):
        for shinglesets in (None, sets):
            _same(
                [
                    stages.lsh_duplicates(
                        signatures, bands, rows, 0.5, shinglesets, spanning=spanning, threads=t
                    )
                    for t in THREADS
                ]
            )
    for limit in (0, 1000, len(pairs[0]), 2**62):
        bounds = {
            t: _core.lsh_bucket_pairs_bound(signatures, bands, rows, limit, threads=t)
            for t in THREADS
        }
        assert len(set(bounds.values())) == 1, bounds


@pytest.mark.parametrize(
    "options",
    [
        {"verify": "exact"},
        {"verify": "estimate"},
        {"verify": "exact", "pairs": "spanning"},
        {"verify": "estimate", "pairs": "spanning"},
        {"method": "sha256"},
        {"method": "sha256-normalized"},
    ],
)
def test_find_duplicates_does_not_depend_on_threads(texts, options):
    results = [neardup.find_duplicates(texts, threshold=0.5, threads=t, **options) for t in THREADS]
    for r in results[1:]:
        np.testing.assert_array_equal(r.pairs, results[0].pairs)
        np.testing.assert_array_equal(r.similarity, results[0].similarity)
        np.testing.assert_array_equal(r.keep, results[0].keep)
    assert results[0].num_removed > 0


@pytest.mark.parametrize(
    "call",
    [
        lambda s: stages.lsh_candidates(s, 4, 2, threads=0),
        lambda s: stages.lsh_candidate_rows(s, 4, 2, threads=0),
        lambda s: stages.lsh_duplicates(s, 4, 2, 0.5, threads=0),
        lambda s: _core.lsh_bucket_pairs_bound(s, 4, 2, 10, 0),
        lambda s: _core.lsh_candidates(s, 4, 2, 2000),
        lambda s: stages.exact_duplicates(["a"], threads=0),
        lambda s: _core.sha256_digests(["a"], False, 2, 0),
    ],
)
def test_thread_counts_out_of_range_are_errors(signatures, call):
    with pytest.raises(InvalidArgumentError, match="threads"):
        call(signatures)


def test_sha256_digests_are_sha256_for_every_thread_count(texts):
    import hashlib

    from neardup.sign import sha256_digests

    sample = [*texts[:1500], "Café ＡＢＣ", "日本語のテキスト", ""]
    want = np.array(
        [np.frombuffer(hashlib.sha256(t.encode()).digest()[:16], np.uint64) for t in sample]
    )
    normalized = np.array(
        [
            np.frombuffer(hashlib.sha256(stages.normalize(t).encode()).digest()[:16], np.uint64)
            for t in sample
        ]
    )
    for t in THREADS:
        np.testing.assert_array_equal(sha256_digests(sample, False, threads=t), want)
        np.testing.assert_array_equal(sha256_digests(sample, True, threads=t), normalized)
    for normalized in (False, True):
        labels = [stages.exact_duplicates(texts, normalized, threads=t) for t in THREADS]
        _same(labels)
        assert (labels[0] != np.arange(len(texts))).sum() >= 46  # the copies appended


def _write_jsonl(path, texts: list[str]) -> None:
    import json

    with open(path, "w", encoding="utf-8") as f:
        for i, text in enumerate(texts):
            if i % 11 == 0:
                f.write("\n")  # blank lines are skipped
            if i % 13 == 0:  # a NaN field: read by the Python reader, not the fast path
                f.write(json.dumps({"id": f"r{i}", "text": text, "v": float("nan")}) + "\n")
            elif i % 17 == 0:  # no id: the position
                f.write(json.dumps({"text": text}, ensure_ascii=i % 2 == 0) + "\n")
            else:
                f.write(json.dumps({"id": i, "text": text}, ensure_ascii=i % 2 == 0) + "\n")


@pytest.mark.parametrize("small", [False, True])
def test_jsonl_reader_does_not_depend_on_threads(tmp_path, texts, monkeypatch, small):
    from neardup.io import jsonl, open_source

    if small:  # many buffer fills
        monkeypatch.setattr(jsonl, "BLOCK", 1 << 16)
    path = tmp_path / "in.jsonl"
    _write_jsonl(path, texts)
    read = []
    for t in THREADS:
        with open_source(path, threads=t) as source:
            batches = list(source.batches(batch_size=4099))
        rows = [(list(b.ids), b.texts.to_pylist()) for b in batches]
        read.append(rows)
    assert read[1] == read[0] and read[2] == read[0]
    assert [text for _, ts in read[0] for text in ts] == texts


@pytest.mark.parametrize("method", ["minhash", "sha256"])
def test_cli_threads_give_the_same_output(tmp_path, texts, method):
    from neardup.cli import main

    path = tmp_path / "in.jsonl"
    _write_jsonl(path, texts)
    outputs = []
    for t in THREADS:
        out = tmp_path / f"out{t}.jsonl"
        args = ["dedup", str(path), "-o", str(out), "--method", method, "--threads", str(t)]
        assert main([*args, "-q"]) == 0
        outputs.append(out.read_bytes())
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]
    assert 0 < outputs[0].count(b"\n") < len(texts)


@pytest.mark.parametrize("pairs", ["all", "spanning"])
def test_chunked_verification_does_not_depend_on_threads(
    monkeypatch, tmp_path, texts, pairs, spills
):
    from neardup import engine, near, spill
    from neardup.plan import make_plan
    from neardup.stores import MemoryStore

    monkeypatch.setattr(engine, "HOLD_SETS_BUDGET", 0)
    monkeypatch.setattr(near, "VERIFY_BUDGET", 5000)
    monkeypatch.setattr(spill, "SPILL_DIR", str(tmp_path))

    def plan(threads: int):
        return make_plan(method="minhash", threshold=0.5, k=3, pairs=pairs, threads=threads)

    runs = [engine.run(plan(threads=t), MemoryStore(texts, batch_size=101)) for t in THREADS]
    for r in runs[1:]:
        np.testing.assert_array_equal(r.pairs, runs[0].pairs)
        np.testing.assert_array_equal(r.similarity, runs[0].similarity)
        np.testing.assert_array_equal(r.keep, runs[0].keep)
    assert len(runs[0].pairs) > 0
    # every thread count's run spilled its sets (two writes at least: the batches are many)
    assert len(spills) == len(THREADS) and all(s._writes >= 2 for s in spills)


def test_exact_verification_does_not_depend_on_threads(texts):
    # Every pair among the first 200 documents: past the size where verification splits
    # the pairs into tasks, with the copies' cliques cut across tasks.
    sets = stages.shingles(texts[:200] + texts[-60:], k=3)
    n = len(sets)
    pairs = np.array([(i, j) for i in range(n) for j in range(i + 1, n)], dtype=np.int64)
    assert len(pairs) > 2 * 4096
    _same([stages.jaccard(sets, pairs, threads=t) for t in THREADS])
    verified = [stages.verify_jaccard(sets, pairs, 0.3, threads=t) for t in THREADS]
    _same(verified)
    assert 0 < len(verified[0][0]) < len(pairs)
    with pytest.raises(InvalidArgumentError, match="threads"):
        stages.verify_jaccard(sets, pairs, 0.3, threads=0)
