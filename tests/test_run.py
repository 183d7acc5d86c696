"""``_core.Run`` (rust/run/mod.rs): one run as one crate object, the plan's dict read once.

Checked against the pieces it stands for: the plan's resolution against its definition (a
pure-Python rule here), the collapse against shingling the whole corpus at once, and the near
stage's pairs against brute-force exact Jaccard."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup import _core, stages
from neardup.banding import choose_banding
from neardup.plan import AUTO_EXACT_LIMIT, lsh_banding, make_plan, simhash_max_hamming
from neardup.spill import SetSpill

TEXTS = [f"item {i % 9} of the list {i % 4} and {i // 5}" for i in range(60)] + ["", "x"]


def _charikar(threshold: float, bits: int) -> int:
    """The SimHash radius's definition: bits * arccos(2J / (1 + J)) / pi, rounded down."""
    return math.floor(bits * math.acos(min(1.0, 2 * threshold / (1 + threshold))) / math.pi)


@settings(max_examples=200, deadline=None)
@given(st.floats(0.01, 1.0), st.sampled_from([64, 128]))
def test_the_simhash_radius_is_charikars(threshold, bits):
    assert simhash_max_hamming(threshold, bits) == _charikar(threshold, bits)
    plan = make_plan(method="simhash", threshold=threshold, simhash_bits=bits)
    assert plan.resolve(10).max_hamming == _charikar(threshold, bits)


@pytest.mark.parametrize("verify", ["exact", "estimate"])
@pytest.mark.parametrize("threshold", [0.2, 0.5, 0.9])
def test_auto_resolves_by_the_unique_documents(verify, threshold):
    plan = make_plan(threshold=threshold, verify=verify)
    assert plan.resolve(AUTO_EXACT_LIMIT).method == "exact-jaccard"
    above = plan.resolve(AUTO_EXACT_LIMIT + 1)
    want = choose_banding(threshold, plan.num_perm, verify)
    assert (above.method, above.bands, above.rows) == ("minhash", want.bands, want.rows)
    assert plan.resolve(2**70) == above  # any count past the limit
    # lsh_banding takes any signature width, as choose_banding does (not make_plan's bound)
    wide = choose_banding(threshold, 2**17, verify)
    assert lsh_banding(threshold, 2**17, verify) == (wide.bands, wide.rows)
    given_banding = make_plan(method="minhash", bands=4, rows=8).resolve(0)
    assert (given_banding.bands, given_banding.rows) == (4, 8)


def _run(plan, texts, batch, budget=1 << 20):
    with SetSpill(plan.k, plan.unit) as spill:
        run = _core.Run(spill.core, plan.as_dict(), budget=budget)
        for a in range(0, len(texts), batch):
            run.sign(texts[a : a + batch])
        assert len(run) == len(texts)
        collapsed = run.finish()
        return collapsed, run.near(verify_budget=1 << 20)


@pytest.mark.parametrize("batch", [1, 7, 1000])
@pytest.mark.parametrize("method", ["auto", "exact-jaccard", "minhash"])
def test_a_run_collapses_and_finds_the_exact_jaccard_pairs(batch, method):
    plan = make_plan(method=method, k=2, threshold=0.5)
    collapsed, found = _run(plan, TEXTS, batch)
    sets = stages.shingles(TEXTS, k=2)
    keys = [sets.hashes[sets.offsets[i] : sets.offsets[i + 1]].tobytes() for i in range(len(TEXTS))]
    first = [keys.index(key) if len(key) else i for i, key in enumerate(keys)]
    assert collapsed["first"].tolist() == first
    selected = collapsed["selected"]
    assert selected.tolist() == [i for i in range(len(TEXTS)) if first[i] == i and len(keys[i])]
    resolved = plan.resolve(len(selected))
    fields = ("method", "bands", "rows", "max_hamming")
    assert collapsed["resolved"] == {k: getattr(resolved, k) for k in fields}
    unique = stages.ShingleSets(*found["sets"], k=2)
    pairs = np.array([[a, b] for a in range(len(selected)) for b in range(a + 1, len(selected))])
    exact = stages.jaccard(unique, pairs)
    want = pairs[exact >= 0.5]
    assert found["pairs"].tolist() == want.tolist()  # MinHash at P(T) >= 0.99 finds these few
    assert found["labels"][selected[found["pairs"][:, 1]]].tolist() == (
        found["labels"][selected[found["pairs"][:, 0]]].tolist()
    )
    # exact verification at once leaves no MinHash signatures: similarities are exact
    assert found["signatures"] is None


def test_an_estimate_keeps_the_signatures_and_no_sets():
    plan = make_plan(method="minhash", k=2, threshold=0.5, verify="estimate")
    collapsed, found = _run(plan, TEXTS, 10)
    assert found["sets"] is None
    assert found["signatures"].shape == (len(collapsed["selected"]), plan.num_perm)
    want = stages.minhash(stages.shingles(TEXTS, k=2), num_perm=plan.num_perm)
    np.testing.assert_array_equal(found["signatures"], want[collapsed["selected"]])


def test_past_the_budget_the_run_verifies_from_its_spill():
    plan = make_plan(method="minhash", k=2, threshold=0.5)
    held = _run(plan, TEXTS, 10)
    spilled = _run(plan, TEXTS, 10, budget=0)
    assert spilled[0]["spilled"] and not held[0]["spilled"]
    np.testing.assert_array_equal(spilled[1]["pairs"], held[1]["pairs"])
    np.testing.assert_array_equal(spilled[1]["similarity"], held[1]["similarity"])


@pytest.mark.parametrize(
    "options",
    [{}, {"method": "minhash"}, {"method": "simhash", "threshold": 0.8}, {"keep": "longest"}],
)
def test_a_run_checks_no_option_again(options):
    """Options are checked once, by ``make_plan``: the run that follows (the sign pass, the
    resolution, the near stage, keep and report) calls no check of ``_validate`` and no
    public stage function of ``stages`` (which check their arguments again)."""
    import sys

    from neardup import engine
    from neardup.stores import MemoryStore

    plan = make_plan(k=2, **options)
    store = MemoryStore(TEXTS * 3)
    called: list[str] = []

    def watch(frame, event, _arg):
        name = frame.f_code.co_filename
        if event == "call" and name.endswith(("neardup/_validate.py", "neardup/stages.py")):
            called.append(f"{name.rsplit('/', 1)[-1]}:{frame.f_code.co_name}")

    sys.setprofile(watch)
    try:
        outcome = engine.run(plan, store)
    finally:
        sys.setprofile(None)
    assert outcome.keep.sum() < len(TEXTS) * 3  # the run did its work
    # the held sets are wrapped as a ShingleSets (its constructor takes the crate's arrays)
    assert set(called) <= {"stages.py:__init__"}, called


@pytest.mark.parametrize("pairs", ["auto", "all", "spanning"])
@pytest.mark.parametrize("keep", ["first", "longest"])
def test_keep_and_report_are_the_stage_functions_over_the_run(pairs, keep):
    """``Run.keep`` gives what ``keep_mask`` and ``run_report`` give over the same labels and
    pairs (the pairs mapped to input positions), and nothing to report when asked for none."""
    from neardup.keep import keep_mask

    texts = [t + " " + "y" * (i % 3) for i, t in enumerate(TEXTS * 2)]
    plan = make_plan(method="minhash", k=2, threshold=0.5, pairs=pairs, keep=keep)
    with SetSpill(2, "word") as spill:
        for report in (True, False):
            run = _core.Run(spill.core, plan.as_dict(), budget=1 << 20)
            run.sign(texts)
            collapsed = run.finish()
            found = run.near(verify_budget=1 << 20)
            lengths = collapsed["lengths"] if keep == "longest" else None
            got = run.keep(lengths, report=report, max_pairs=1 << 20)
            want_keep, want_rep = keep_mask(found["labels"], lengths, keep)
            np.testing.assert_array_equal(got[0], want_keep)
            np.testing.assert_array_equal(got[1], want_rep)
            if not report:
                assert got[2].shape == (0, 2) and got[4] is None
                continue
            want = _core.run_report(
                collapsed["first"],
                collapsed["selected"][found["pairs"]],
                found["similarity"],
                pairs,
                searched_spanning=found["spanning"],
                spanning_limit=plan.spanning_limit,
                max_pairs=1 << 20,
            )
            np.testing.assert_array_equal(got[2], want[0])
            np.testing.assert_array_equal(got[3], want[1])
            assert got[4:] == want[2:]
            assert got[4] == ("spanning" if pairs == "spanning" else "all")
    if keep == "longest":  # the longest copy is kept: the measure was used
        assert got[0].sum() < len(texts) and (np.asarray(got[1]) != found["labels"]).any()


@pytest.mark.parametrize("batch", [1, 9, 1000])
def test_the_run_strips_the_boilerplate_its_two_passes_count(batch):
    """The boilerplate counted batch by batch in the run is what the whole corpus at once
    gives (``frequent_shingles``), and each document loses what ``remove_shingles`` removes."""
    from neardup.boilerplate import frequent_shingles, remove_shingles

    texts = [f"{t} home menu about contact" for t in TEXTS]
    plan = make_plan(method="minhash", k=2, threshold=0.5, strip_boilerplate=0.2)
    sets = stages.shingles(texts, k=2)
    drop = frequent_shingles(sets, 0.2)
    assert drop.size  # the footer's shingles
    with SetSpill(2, "word") as spill:
        run = _core.Run(spill.core, plan.as_dict(), budget=1 << 20)
        for second in (False, True):
            for a in range(0, len(texts), batch):
                run.count_boilerplate(texts[a : a + batch], second=second)
        for a in range(0, len(texts), batch):
            run.sign(texts[a : a + batch])
        collapsed = run.finish()
    assert collapsed["dropped"] == drop.size
    before, removed = collapsed["stripped"]
    np.testing.assert_array_equal(before, sets.sizes())
    np.testing.assert_array_equal(removed, remove_shingles(sets, drop)[1])


def test_counting_the_boilerplate_is_refused_out_of_its_place():
    from neardup.errors import InvalidArgumentError

    with SetSpill(2, "word") as spill:
        plain = _core.Run(spill.core, make_plan(k=2).as_dict())
        with pytest.raises(InvalidArgumentError, match="strips boilerplate"):
            plain.count_boilerplate(TEXTS, second=False)
        stripping = make_plan(k=2, strip_boilerplate=0.5).as_dict()
        late = _core.Run(spill.core, stripping)
        late.count_boilerplate(TEXTS, second=False)
        late.count_boilerplate(TEXTS, second=True)
        late.sign(TEXTS)
        with pytest.raises(InvalidArgumentError, match="before the first sign"):
            late.count_boilerplate(TEXTS, second=False)
        uneven = _core.Run(spill.core, stripping)
        uneven.count_boilerplate(TEXTS, second=False)
        uneven.count_boilerplate(TEXTS[:5], second=True)
        with pytest.raises(InvalidArgumentError, match="count\\(\\) saw 5 documents"):
            uneven.sign(TEXTS)
