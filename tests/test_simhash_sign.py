"""The SimHash sign pass in one core call (``_core.simhash_sign_texts``): the fingerprints,
digests and sets of shingling then signing; in a run, the sets written straight into the
buffer that holds them for exact verification (``rust/signing/tests.rs`` checks that
writing), and that buffer in small pages (issue 24)."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

from neardup import _core, stages
from neardup.errors import InvalidArgumentError
from neardup.plan import make_plan
from neardup.ray._sign import sign_texts
from neardup.sign import set_digests
from neardup.spill import SetSpill

TEXTS = [f"doc {i} has words {i % 7} and more words {i // 3} here" for i in range(300)] + [
    "",
    "one",
    "Ünïcödé 中文字 text, with e\u0301 here " * 3,
]


@pytest.mark.parametrize("bits", [64, 128])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("keep", [False, True])
def test_one_call_equals_shingles_then_simhash(bits: int, threads: int, keep: bool) -> None:
    sets = stages.shingles(TEXTS, k=3)
    fp, digests, offsets, hashes = _core.simhash_sign_texts(
        TEXTS, 3, "word", stages.HASH_VERSION, bits, threads, keep
    )
    assert np.array_equal(fp, stages.simhash(sets, bits=bits))
    assert np.array_equal(digests, set_digests(sets))
    assert np.array_equal(offsets, sets.offsets)
    if keep:
        assert hashes is not None and np.array_equal(hashes, sets.hashes)
    else:
        assert hashes is None


def _held_run(plan: Any, texts: list[str], budget: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """(``finish()``, ``near()``) of a run of ``plan`` holding up to ``budget`` hashes."""
    with SetSpill(plan.k, plan.unit) as spill:
        run = _core.Run(spill.core, plan.as_dict(), budget=budget)
        run.sign(texts)
        return run.finish(), run.near(verify_budget=1 << 20)


def test_the_sign_pass_holds_the_sets_its_simhash_call_wrote() -> None:
    """The SimHash sign pass of a run (``_core.Run``): fingerprints from the one call, and the
    sets it holds those of shingling (written into the held buffer, compacted)."""
    collapsed, found = _held_run(make_plan(method="simhash", threshold=0.9, k=3), TEXTS, 1 << 16)
    sets = stages.shingles(TEXTS, k=3)
    live = np.flatnonzero(sets.sizes() > 0)
    np.testing.assert_array_equal(collapsed["selected"], live)
    assert np.array_equal(found["signatures"], stages.simhash(sets, bits=64)[live])
    offsets, hashes = found["sets"]
    assert np.array_equal(np.diff(offsets), sets.sizes()[live])
    assert np.array_equal(hashes, sets.hashes)  # the empty documents add no hash
    # not kept (verify="estimate"): no sets at all, the same fingerprints
    plan = make_plan(method="simhash", threshold=0.9, k=3)
    fingerprints, _, _, kept = sign_texts(plan, TEXTS)
    assert kept is None and np.array_equal(fingerprints, stages.simhash(sets, bits=64))


def smaps_line(address: int, field: str) -> str:
    """The ``field`` line (e.g. ``VmFlags:``) of the mapping holding ``address``
    (/proc/self/smaps)."""
    with open("/proc/self/smaps") as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        head = line.split()[0]
        if "-" in head and all(c in "0123456789abcdef-" for c in head):
            lo, hi = (int(x, 16) for x in head.split("-"))
            if lo <= address < hi:
                return next(x for x in lines[i + 1 :] if x.startswith(field))
    raise AssertionError(f"no mapping holds {address:#x}")


def vm_flags(address: int) -> str:
    """The ``VmFlags`` line of the mapping holding ``address``."""
    return smaps_line(address, "VmFlags:")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's madvise")
def test_held_sets_buffer_declines_huge_pages() -> None:
    """The buffer the sign pass holds the sets in is marked ``nh`` (MADV_NOHUGEPAGE) in
    smaps, where a large NumPy array is marked ``hg`` (NumPy's MADV_HUGEPAGE) when the
    kernel has them."""
    _, held = _held_run(make_plan(k=3, method="minhash"), TEXTS, 1 << 23)[1]["sets"]  # 64 MB
    assert " nh" in vm_flags(held.ctypes.data + (1 << 20))  # room past the sets, untouched


def resident_kb() -> int:
    """This process's resident memory (``VmRSS``, /proc/self/status), in KB."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's madvise")
def test_held_pages_populated_ahead_are_bounded() -> None:
    """The sign pass populates the held buffer's pages ahead of a batch from a guess (a hash
    per six bytes of text), at most 32 MB of them: a batch of 60 MB of one-word documents,
    guessed at 80 MB of hashes, adds about 32 MB of resident memory, not 80."""
    texts = ["x" * (1 << 20)] * 60  # one document's set of one shingle, and 59 copies of it
    plan = make_plan(k=3, method="minhash")
    with SetSpill(plan.k, plan.unit) as spill:
        run = _core.Run(spill.core, plan.as_dict(), budget=1 << 25)  # 256 MB
        before = resident_kb()
        run.sign(texts)
        grown = resident_kb() - before
        assert grown <= 48 * 1024, grown  # (about 0 where the kernel cannot populate)
        run.finish()
        _, held = run.near(verify_budget=1 << 20)["sets"]
    assert len(held) == 1


def test_sign_texts_refuses_a_plan_that_does_not_sign() -> None:
    for method in ("exact-jaccard", "sha256"):
        with pytest.raises(InvalidArgumentError, match="signs MinHash or SimHash plans"):
            sign_texts(make_plan(method=method), TEXTS)
