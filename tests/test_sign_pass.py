"""``_core.SignPass`` (rust/sign_pass.rs): the sign pass of a run, batch by batch. Checked
against shingling, signing and collapsing the whole corpus at once (``neardup.stages``): the
first exact duplicates, the unique documents, their signatures, and their sets wherever the
policy keeps them (held, spilled past the budget, or dropped)."""

from __future__ import annotations

import numpy as np
import pytest

from neardup import _core, stages
from neardup.boilerplate import frequent_shingles, remove_shingles
from neardup.errors import NeardupError
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


def _run(texts, batch, spill=None, **policy):
    sign_pass = _core.SignPass(spill, method="minhash", k=3, num_perm=16, **policy)
    for a in range(0, len(texts), batch):
        sign_pass.sign(texts[a : a + batch])
    return sign_pass.finish()


@pytest.mark.parametrize("batch", [1, 7, 50, 1000])
def test_batches_give_what_the_whole_corpus_gives(batch):
    first, selected, sets = _expected(TEXTS)
    out = _run(TEXTS, batch, hold=True, budget=1 << 20)
    np.testing.assert_array_equal(out["first"], first)
    np.testing.assert_array_equal(out["selected"], selected)
    np.testing.assert_array_equal(out["empty"], sets.sizes() == 0)
    np.testing.assert_array_equal(out["set_sizes"], sets.sizes()[selected])
    assert out["shingled"] == len(sets.hashes)
    want = stages.minhash(sets, num_perm=16)[selected]
    np.testing.assert_array_equal(out["signatures"], want)
    offsets, hashes = out["sets"]
    np.testing.assert_array_equal(np.diff(offsets), sets.sizes()[selected])
    keep = np.repeat(np.isin(np.arange(len(TEXTS)), selected), sets.sizes())
    np.testing.assert_array_equal(hashes, sets.hashes[keep])
    assert not out["spilled"]


@pytest.mark.parametrize("budget", [0, 30, 300])
@pytest.mark.parametrize("batch", [7, 50])
def test_past_the_budget_the_sets_are_spilled_whole(tmp_path, budget, batch):
    _, selected, sets = _expected(TEXTS)
    with SetSpill(3, "word", directory=str(tmp_path)) as spill:
        out = _run(TEXTS, batch, spill.core, hold=True, budget=budget, spill_past_budget=True)
        assert out["spilled"] and out["sets"] is None
        spill.finish(len(selected))
        back = spill.read(np.arange(len(selected)))
    keep = np.repeat(np.isin(np.arange(len(TEXTS)), selected), sets.sizes())
    np.testing.assert_array_equal(
        back.offsets, np.concatenate([[0], np.cumsum(sets.sizes()[selected])])
    )
    np.testing.assert_array_equal(back.hashes, sets.hashes[keep])


def test_an_estimate_drops_the_sets_unless_they_are_needed():
    _, selected, _ = _expected(TEXTS)
    dropped = _run(TEXTS, 7, hold=True, budget=1 << 20, estimate_only=True)
    assert dropped["sets"] is None and not dropped["spilled"]
    # needed (auto's brute-force limit, exact-jaccard): held whatever the budget
    needed = _run(TEXTS, 7, hold=True, budget=0, estimate_only=True, needed_up_to=10**9)
    assert needed["sets"] is not None and len(needed["sets"][0]) == len(selected) + 1
    # needed only up to 20 unique documents: dropped once there are more
    limited = _run(TEXTS, 7, hold=True, budget=0, estimate_only=True, needed_up_to=20)
    assert limited["sets"] is None


def test_partition_keys_keep_copies_of_two_partitions_apart():
    texts = ["a b c d", "a b c d", "a b c d", "x y z w"]
    salts = np.array([1, 2, 1, 2], dtype=np.uint64)
    out = _run(texts, 2, salts=salts)
    assert out["first"].tolist() == [0, 1, 0, 3]
    with pytest.raises(NeardupError, match="partition keys"):
        _run(texts, 2, salts=salts[:3])


def test_bad_use_is_refused():
    with pytest.raises(NeardupError, match="needs a spill"):
        _core.SignPass(spill_past_budget=True)
    with pytest.raises(NeardupError, match="method"):
        _core.SignPass(method="sha512")


BOILERPLATE = [f"menu home about us {t} contact" for t in TEXTS]


@pytest.mark.parametrize("method", ["minhash", "simhash", "exact-jaccard"])
@pytest.mark.parametrize("threads", [1, 2])
def test_stripping_signs_and_keeps_the_stripped_sets(method, threads):
    """With ``drop``: the digests of the whole sets (copies stay copies), the signatures and
    held sets of the stripped ones, each document's size before and shingles stripped."""
    texts = [*BOILERPLATE, "menu home about us", ""]
    first, _, sets = _expected(texts)
    drop = frequent_shingles(sets, 0.3)
    assert drop.size
    stripped, removed = remove_shingles(sets, drop)
    live = stripped.sizes() > 0
    selected = np.flatnonzero((first == np.arange(len(texts))) & live)
    options = {"method": method, "k": 3, "num_perm": 16, "threads": threads}
    sign_pass = _core.SignPass(drop=drop, hold=True, budget=1 << 20, **options)
    for a in range(0, len(texts), 7):
        sign_pass.sign(texts[a : a + 7])
    out = sign_pass.finish()
    np.testing.assert_array_equal(out["first"], first)
    np.testing.assert_array_equal(out["selected"], selected)
    np.testing.assert_array_equal(out["empty"], sets.sizes() == 0)
    assert not live[-2] and not out["empty"][-2]  # all boilerplate: emptied, not empty
    np.testing.assert_array_equal(out["set_sizes"], stripped.sizes()[selected])
    assert out["shingled"] == len(stripped.hashes)
    np.testing.assert_array_equal(out["stripped"][0], sets.sizes())
    np.testing.assert_array_equal(out["stripped"][1], removed)
    offsets, hashes = out["sets"]
    np.testing.assert_array_equal(np.diff(offsets), stripped.sizes()[selected])
    keep = np.repeat(np.isin(np.arange(len(texts)), selected), stripped.sizes())
    np.testing.assert_array_equal(hashes, stripped.hashes[keep])
    want = {
        "minhash": lambda: stages.minhash(stripped, num_perm=16)[selected],
        "simhash": lambda: stages.simhash(stripped)[selected],
        "exact-jaccard": lambda: None,
    }[method]()
    if want is None:
        assert out["signatures"] is None
    else:
        np.testing.assert_array_equal(out["signatures"], want)
    plain = _core.SignPass(drop=np.zeros(0, np.uint64), **options)
    plain.sign(texts)
    assert plain.finish()["stripped"] is None  # nothing to strip: no statistics


@pytest.mark.parametrize("normalized", [False, True])
def test_the_sha256_methods_collapse_by_digest_alone(normalized):
    texts = ["Hi there", "hi THERE!", "", "Hi there", "", "other"]
    method = "sha256-normalized" if normalized else "sha256"
    sign_pass = _core.SignPass(method=method, count_chars=True)
    sign_pass.sign(texts[:4])
    sign_pass.sign(texts[4:])
    out = sign_pass.finish()
    want = stages.exact_duplicates(texts, normalized=normalized)
    np.testing.assert_array_equal(out["first"], want)
    assert out["first"][4] == 2  # empty documents are copies of each other here
    assert len(out["selected"]) == 0 and out["sets"] is None and out["signatures"] is None
    assert not out["empty"].any() and out["shingled"] == 0
    assert out["lengths"].tolist() == [len(text) for text in texts]
