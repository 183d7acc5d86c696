"""The sign pass of a run (rust/sign_pass.rs), batch by batch, through ``_core.Run``. Checked
against shingling, signing and collapsing the whole corpus at once (``neardup.stages``): the
first exact duplicates, the unique documents, their signatures, and their sets wherever the
plan's set policy keeps them (held, spilled past the budget, or dropped)."""

from __future__ import annotations

import numpy as np
import pytest

from neardup import _core, stages
from neardup.boilerplate import frequent_shingles, remove_shingles
from neardup.errors import NeardupError
from neardup.plan import make_plan
from neardup.spill import SetSpill

TEXTS = [f"doc {i % 40} has words {i % 7} and more {i // 3}" for i in range(120)]
TEXTS += ["", "one two", "doc 3 has words 3 and more 1", *TEXTS[:10]]


def _expected(texts, k=3):
    """(first, unique documents with shingles, their sets) of the whole corpus at once."""
    sets = stages.shingles(texts, k=k)
    seen: dict[bytes, int] = {}
    first = []
    for i in range(len(texts)):
        row = sets.hashes[sets.offsets[i] : sets.offsets[i + 1]]
        first.append(seen.setdefault(row.tobytes(), i) if len(row) else i)
    first = np.array(first)
    selected = np.flatnonzero((first == np.arange(len(texts))) & (sets.sizes() > 0))
    return first, selected, sets


def _signed(plan, texts, batch, *, budget=1 << 20, salts=None, count=False, spill_dir=None):
    """(``finish()``, ``near()``, the spill's sets of every unique document or None) of a run
    of ``plan`` fed ``batch`` documents at a time (``count``: the boilerplate passes first)."""
    with SetSpill(plan.k, plan.unit, directory=spill_dir) as spill:
        run = _core.Run(spill.core, plan.as_dict(), salts=salts, budget=budget)
        batches = [texts[a : a + batch] for a in range(0, len(texts), batch)]
        for second in (False, True) if count else ():
            for part in batches:
                run.count_boilerplate(part, second=second)
        for part in batches:
            run.sign(part)
        collapsed = run.finish()
        back = spill.read(np.arange(len(collapsed["selected"]))) if collapsed["spilled"] else None
        return collapsed, run.near(verify_budget=1 << 20), back


def _minhash(k=3, **options):
    return make_plan(method="minhash", k=k, num_perm=16, threshold=0.5, **options)


@pytest.mark.parametrize("batch", [1, 7, 50, 1000])
def test_batches_give_what_the_whole_corpus_gives(batch):
    first, selected, sets = _expected(TEXTS)
    collapsed, found, _ = _signed(_minhash(verify="estimate"), TEXTS, batch)
    np.testing.assert_array_equal(collapsed["first"], first)
    np.testing.assert_array_equal(collapsed["selected"], selected)
    np.testing.assert_array_equal(collapsed["empty"], sets.sizes() == 0)
    assert not collapsed["spilled"] and found["sets"] is None  # an estimate holds no sets
    want = stages.minhash(sets, num_perm=16)[selected]
    np.testing.assert_array_equal(found["signatures"], want)
    held = _signed(_minhash(), TEXTS, batch)[1]["sets"]  # exact verification holds them
    offsets, hashes = held
    np.testing.assert_array_equal(np.diff(offsets), sets.sizes()[selected])
    keep = np.repeat(np.isin(np.arange(len(TEXTS)), selected), sets.sizes())
    np.testing.assert_array_equal(hashes, sets.hashes[keep])


@pytest.mark.parametrize("budget", [0, 30, 300])
@pytest.mark.parametrize("batch", [7, 50])
def test_past_the_budget_the_sets_are_spilled_whole(tmp_path, budget, batch):
    _, selected, sets = _expected(TEXTS)
    collapsed, _, back = _signed(_minhash(), TEXTS, batch, budget=budget, spill_dir=str(tmp_path))
    assert collapsed["spilled"]
    keep = np.repeat(np.isin(np.arange(len(TEXTS)), selected), sets.sizes())
    np.testing.assert_array_equal(
        back.offsets, np.concatenate([[0], np.cumsum(sets.sizes()[selected])])
    )
    np.testing.assert_array_equal(back.hashes, sets.hashes[keep])


def test_an_estimate_drops_the_sets_unless_they_are_needed():
    _, selected, _ = _expected(TEXTS)
    estimate = {"k": 3, "threshold": 0.5, "verify": "estimate"}  # method auto
    assert len(selected) > 20
    # auto up to its brute-force limit resolves to exact Jaccard, which needs every set:
    # held whatever the budget
    needed = _signed(make_plan(**estimate), TEXTS, 7, budget=0)
    assert needed[0]["resolved"]["method"] == "exact-jaccard"
    assert not needed[0]["spilled"] and len(needed[1]["sets"][0]) == len(selected) + 1
    # past the limit (20 unique documents here) it resolves to an estimate: none kept
    limited = _signed(make_plan(**estimate, auto_exact_limit=20), TEXTS, 7, budget=0)
    assert limited[0]["resolved"]["method"] == "minhash"
    assert limited[1]["sets"] is None and not limited[0]["spilled"]


def test_partition_keys_keep_copies_of_two_partitions_apart():
    texts = ["a b c d", "a b c d", "a b c d", "x y z w"]
    salts = np.array([1, 2, 1, 2], dtype=np.uint64)
    assert _signed(_minhash(), texts, 2, salts=salts)[0]["first"].tolist() == [0, 1, 0, 3]
    with pytest.raises(NeardupError, match="partition keys"):
        _signed(_minhash(), texts, 2, salts=salts[:3])


BOILERPLATE = [f"menu home about us {t} contact" for t in TEXTS]


@pytest.mark.parametrize("method", ["minhash", "simhash", "exact-jaccard"])
@pytest.mark.parametrize("threads", [1, 2])
def test_stripping_signs_and_keeps_the_stripped_sets(method, threads):
    """Stripping the boilerplate: the digests of the whole sets (copies stay copies), the
    signatures and held sets of the stripped ones, each document's size before and shingles
    stripped."""
    texts = [*BOILERPLATE, "menu home about us", ""]
    first, _, sets = _expected(texts)
    drop = frequent_shingles(sets, 0.3)
    assert drop.size
    stripped, removed = remove_shingles(sets, drop)
    live = stripped.sizes() > 0
    selected = np.flatnonzero((first == np.arange(len(texts))) & live)
    options = {"k": 3, "threads": threads, "strip_boilerplate": 0.3}
    if method == "minhash":
        options["num_perm"] = 16
    options["threshold"] = 0.9 if method == "simhash" else 0.5
    plan = make_plan(method=method, **options)
    collapsed, found, _ = _signed(plan, texts, 7, count=True)
    np.testing.assert_array_equal(collapsed["first"], first)
    np.testing.assert_array_equal(collapsed["selected"], selected)
    np.testing.assert_array_equal(collapsed["empty"], sets.sizes() == 0)
    assert not live[-2] and not collapsed["empty"][-2]  # all boilerplate: emptied, not empty
    assert collapsed["dropped"] == drop.size
    np.testing.assert_array_equal(collapsed["stripped"][0], sets.sizes())
    np.testing.assert_array_equal(collapsed["stripped"][1], removed)
    offsets, hashes = found["sets"]
    np.testing.assert_array_equal(np.diff(offsets), stripped.sizes()[selected])
    keep = np.repeat(np.isin(np.arange(len(texts)), selected), stripped.sizes())
    np.testing.assert_array_equal(hashes, stripped.hashes[keep])
    if method == "simhash":  # SimHash keeps its fingerprints beside exact verification
        np.testing.assert_array_equal(found["signatures"], stages.simhash(stripped)[selected])
    else:
        assert found["signatures"] is None
    if method == "minhash":  # the signatures are those of the stripped sets
        estimating = make_plan(method=method, verify="estimate", **options)
        estimate = _signed(estimating, texts, 7, count=True)[1]
        want = stages.minhash(stripped, num_perm=16)[selected]
        np.testing.assert_array_equal(estimate["signatures"], want)
    options["strip_boilerplate"] = None
    plain = _signed(make_plan(method=method, **options), texts, 7)[0]
    assert plain["stripped"] is None and plain["dropped"] == 0  # nothing stripped: no statistics


@pytest.mark.parametrize("normalized", [False, True])
def test_the_sha256_methods_collapse_by_digest_alone(normalized):
    texts = ["Hi there", "hi THERE!", "", "Hi there", "", "other"]
    method = "sha256-normalized" if normalized else "sha256"
    collapsed, found, _ = _signed(make_plan(method=method, keep="longest"), texts, 4)
    want = stages.exact_duplicates(texts, normalized=normalized)
    np.testing.assert_array_equal(collapsed["first"], want)
    assert collapsed["first"][4] == 2  # empty documents are copies of each other here
    assert len(collapsed["selected"]) == 0
    assert found["sets"] is None and found["signatures"] is None
    assert not collapsed["empty"].any()
    assert collapsed["lengths"].tolist() == [len(text) for text in texts]
