"""Exact verification in chunks (near.VERIFY_BUDGET): when the sign pass cannot hold the sets
it spills them to one temporary file, and when the candidates' sets are more than the budget
they are read back by chunk of connected components, each chunk verified alone. Same pairs,
same similarities, same rows kept as holding every set, no second pass over the store; the
temporary files are gone afterwards, on a failed write too."""

from __future__ import annotations

import errno
import itertools
import os

import numpy as np
import pytest

import neardup
from neardup import _core, engine, near, spill, stages
from neardup.plan import make_plan
from neardup.spill import SetSpill
from neardup.stores import MemoryStore


class _Passes(MemoryStore):
    """A store that records the passes read over it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.passes = []

    def batches(self, pass_name):
        self.passes.append(pass_name)
        return super().batches(pass_name)


def _texts() -> list[str]:
    return list(neardup.synth.generate(bases=12, singles=40, seed=3).texts)


@pytest.mark.parametrize(
    "options",
    [
        {"method": "minhash", "pairs": "all"},
        {"method": "minhash", "pairs": "spanning"},
        {"method": "simhash"},
        {"method": "minhash", "strip_boilerplate": 0.3},
    ],
)
@pytest.mark.parametrize("budget", [1, 200, 2000])
def test_chunked_verification_finds_what_holding_every_set_finds(
    monkeypatch, tmp_path, options, budget, spills
):
    texts = _texts()
    plan = make_plan(threshold=0.5, k=3, **options)
    want = engine.run(plan, MemoryStore(texts, batch_size=13))
    monkeypatch.setattr(engine, "HOLD_SETS_BUDGET", 0)
    monkeypatch.setattr(near, "VERIFY_BUDGET", budget)
    monkeypatch.setattr(spill, "SPILL_DIR", str(tmp_path))
    store = _Passes(texts, batch_size=13)
    got = engine.run(plan, store)
    assert spills[-1]._reads > 1  # several chunks, read back from the sign pass's spill
    assert "verify" not in store.passes  # no second pass over the store
    assert got.evidence.sets is None  # never all held at once
    np.testing.assert_array_equal(got.pairs, want.pairs)
    np.testing.assert_array_equal(got.similarity, want.similarity)
    np.testing.assert_array_equal(got.keep, want.keep)
    assert want.info["candidates"] == got.info["candidates"] > 0
    assert os.listdir(tmp_path) == []  # the spill directory is removed


def test_a_failed_spill_write_raises_and_leaves_no_files(monkeypatch, tmp_path, spills):
    texts = _texts()
    monkeypatch.setattr(engine, "HOLD_SETS_BUDGET", 0)
    monkeypatch.setattr(near, "VERIFY_BUDGET", 100)
    monkeypatch.setattr(spill, "SPILL_DIR", str(tmp_path))
    want = neardup.find_duplicates(texts, threshold=0.5, k=3, method="minhash")
    assert len(spills) == 1 and spills[0]._writes > 3  # the run without a failure writes more
    # the crate's third write fails as a full disk would
    monkeypatch.setattr(spill, "_FAIL_WRITE_AT", 3)
    with pytest.raises(OSError, match="No space left") as failed:
        neardup.find_duplicates(texts, threshold=0.5, k=3, method="minhash")
    assert failed.value.errno == errno.ENOSPC
    assert "cannot write the spill file" in str(failed.value)
    assert str(tmp_path) in str(failed.value)  # the message names the file
    assert len(spills) == 2 and spills[1]._writes == 3  # no write after the failed one
    assert not spills[1].active
    assert os.listdir(tmp_path) == []
    monkeypatch.setattr(spill, "_FAIL_WRITE_AT", None)
    again = neardup.find_duplicates(texts, threshold=0.5, k=3, method="minhash")
    np.testing.assert_array_equal(again.keep, want.keep)
    assert os.listdir(tmp_path) == []


def test_bucket_components_are_those_of_the_lsh_candidate_graph():
    texts = list(neardup.synth.generate(bases=30, singles=60, seed=8).texts)
    # A seed where every banding leaves some documents out of every bucket (27 at 32x1; with
    # 32 one-slot bands a document shares a slot with another in most seeds).
    sig = stages.minhash(texts, num_perm=32, k=3, seed=7)
    for (bands, rows), limit in itertools.product([(16, 2), (8, 4), (32, 1)], [None, 4]):
        rule = {"threshold": 0.5, "bucket_limit": limit}
        candidates = stages.lsh_candidates(sig, bands, rows, **rule)
        in_candidates = stages.lsh_candidate_rows(sig, bands, rows, **rule)
        for threads in (1, 2, 3):
            labels, wanted, count = _core.lsh_bucket_components(
                sig, bands, rows, threads, 0.5, limit
            )
            np.testing.assert_array_equal(labels, stages.clusters(candidates, len(sig)))
            np.testing.assert_array_equal(wanted, in_candidates)
            assert count == _core.lsh_bucket_pairs_bound(sig, bands, rows, 2**62, 1, 0.5, limit)
            assert 0 < wanted.sum() < len(sig)


@pytest.mark.parametrize(
    "options",
    [
        {"method": "minhash", "pairs": "all"},
        {"method": "minhash", "pairs": "spanning"},
        {"method": "simhash"},
        {"method": "auto", "auto_exact_limit": 10},
        {"method": "minhash", "strip_boilerplate": 0.3},
    ],
)
def test_sets_read_back_from_the_spill_at_once_are_those_held(
    monkeypatch, tmp_path, options, spills
):
    # Past HOLD_SETS_BUDGET but within VERIFY_BUDGET: the candidates' sets are read back from
    # the sign pass's spill in one go, so the similarities stay exact Jaccard.
    texts = _texts()
    plan = make_plan(threshold=0.5, k=3, **options)
    want = engine.run(plan, MemoryStore(texts, batch_size=13))
    monkeypatch.setattr(engine, "HOLD_SETS_BUDGET", 150)  # a few batches held, then spilled
    monkeypatch.setattr(spill, "SPILL_DIR", str(tmp_path))
    store = _Passes(texts, batch_size=13)
    got = engine.run(plan, store)
    assert "verify" not in store.passes and spills[-1]._reads == 1  # read back at once
    # the sets read back stay with the run's evidence; the spill file is gone with the run
    assert got.evidence.sets is not None and not spills[-1].active
    np.testing.assert_array_equal(got.pairs, want.pairs)
    np.testing.assert_array_equal(got.similarity, want.similarity)
    np.testing.assert_array_equal(got.keep, want.keep)
    assert (got.similarity < 1).any()
    assert os.listdir(tmp_path) == []


def test_a_failed_run_after_the_spill_started_leaves_no_files(monkeypatch, tmp_path, spills):
    listings = []  # the spill directory's base after each batch the sign pass took

    class Failing(MemoryStore):  # the input breaks in the sign pass, the spill written
        def batches(self, pass_name):
            for i, batch in enumerate(super().batches(pass_name)):
                if i:
                    listings.append(os.listdir(tmp_path))
                if i == 4:
                    raise ValueError("broken input")
                yield batch

    monkeypatch.setattr(engine, "HOLD_SETS_BUDGET", 0)
    monkeypatch.setattr(spill, "SPILL_DIR", str(tmp_path))
    with pytest.raises(ValueError, match="broken input"):
        engine.run(make_plan(method="minhash", k=3), Failing(_texts(), batch_size=13))
    assert len(spills) == 1 and spills[0]._writes >= 2  # the spill was written to
    first = next(i for i, names in enumerate(listings) if names)  # the first batch spilled
    assert len(listings[first]) == 1 and len(listings) - first >= 2
    assert all(names == listings[first] for names in listings[first:])  # made once, kept
    assert not spills[0].active
    assert os.listdir(tmp_path) == []  # then removed


def test_the_spill_reads_back_any_increasing_documents(tmp_path):
    sets = stages.shingles(["a b", "", "c d e", "f", "g h", "i j k l"], k=1)
    with SetSpill(k=1, unit="word", directory=str(tmp_path)) as spill:
        spill.add(sets, np.array([0, 1, 2]), np.array([0, 1, 2]))
        spill.add(sets, np.array([4, 5]), np.array([4, 6]))  # document 3 (and 5) empty
        with pytest.raises(ValueError, match="document 3 added after 6"):
            spill.add(sets, np.array([0]), np.array([3]))
        with pytest.raises(ValueError, match="rows must be strictly increasing"):
            spill.add(sets, np.array([3, 2]), np.array([7, 8]))
        spill.finish(7)
        assert spill.sizes().tolist() == [2, 0, 3, 0, 2, 0, 4]
        for docs in [[0], [2, 4], [1, 3, 5], [0, 1, 2, 4, 6], [6], []]:
            got = spill.read(np.array(docs, dtype=np.int64))
            for row, doc in enumerate(docs):
                source = {0: 0, 1: 1, 2: 2, 4: 4, 6: 5}.get(doc)
                expect = (
                    sets.hashes[sets.offsets[source] : sets.offsets[source + 1]]
                    if (source is not None)
                    else np.zeros(0, np.uint64)
                )
                np.testing.assert_array_equal(
                    got.hashes[got.offsets[row] : got.offsets[row + 1]], expect
                )
        with pytest.raises(ValueError, match="after finish"):
            spill.add(sets, np.array([0]), np.array([7]))
        assert os.listdir(tmp_path) != []
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("spanning_limit", [10, 10**9])
def test_spilled_sets_decide_spanning_from_the_components_pass(
    monkeypatch, tmp_path, spanning_limit
):
    # Sets spilled and the first band's count over half the limit: the components pass counts
    # the bucket pairs (no separate bound pass), with the same decision and the same rows as
    # the run that holds its sets.
    texts = _texts()
    plan = make_plan(threshold=0.5, k=3, method="minhash", spanning_limit=spanning_limit)
    want = engine.run(plan, MemoryStore(texts, batch_size=13))
    monkeypatch.setattr(engine, "HOLD_SETS_BUDGET", 0)
    monkeypatch.setattr(near, "VERIFY_BUDGET", 100)
    monkeypatch.setattr(spill, "SPILL_DIR", str(tmp_path))
    got = engine.run(plan, MemoryStore(texts, batch_size=13))
    if spanning_limit == 10**9:  # far under the limit: the fused search decides, no pass
        assert got.info["pairs_used"] == "all"
        assert got.info["lsh_passes"] == ["first band", "search"]
    else:  # the first band, then one grouping pass that counts and gives the chunks
        assert got.info["pairs_used"] == "spanning"
        assert got.info["lsh_passes"] == ["first band", "components", "spanning"]
    assert want.info["pairs_used"] == got.info["pairs_used"]
    np.testing.assert_array_equal(got.keep, want.keep)
    np.testing.assert_array_equal(got.labels, want.labels)


def test_a_run_on_texts_in_memory_holds_their_sets_up_to_a_share_of_them(
    monkeypatch, tmp_path, spills
):
    # find_duplicates on a list: the budget grows with the texts held (one hash per
    # CHARS_PER_HELD_HASH characters), so sets a streamed run would spill stay in memory.
    texts = _texts()
    chars = sum(map(len, texts))
    monkeypatch.setattr(engine, "HOLD_SETS_BUDGET", 100)
    monkeypatch.setattr(engine, "HOLD_SETS_STEP", 100)
    monkeypatch.setattr(spill, "SPILL_DIR", str(tmp_path))
    store = MemoryStore(texts, batch_size=13)
    assert store.text_size() == chars
    assert engine.hold_budget(store) == 100 * -(-(chars // engine.CHARS_PER_HELD_HASH) // 100)
    plan = make_plan(threshold=0.5, k=3, method="minhash")
    held = engine.run(plan, store)
    assert [s._writes for s in spills] == [0] and held.evidence.sets is not None
    monkeypatch.setattr(engine, "CHARS_PER_HELD_HASH", 10**12)  # no share: the budget alone
    spilled = engine.run(plan, MemoryStore(texts, batch_size=13))
    assert len(spills) == 2 and spills[1]._writes > 0  # this one spilled
    np.testing.assert_array_equal(held.keep, spilled.keep)
    np.testing.assert_array_equal(held.similarity, spilled.similarity)
