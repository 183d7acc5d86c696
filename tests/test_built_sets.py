"""Shingle sets the crate built travel as read-only arrays, and come back trusted.

``shingles()`` and the sign pass give their sets as read-only numpy arrays over memory the
crate owns (``_core.BuiltSets``); a stage handed exactly those arrays skips the O(total) check
that every set is sorted and duplicate-free. Any other arrays, a copy included, are checked.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import neardup
from neardup import _core, engine
from neardup.errors import InputError
from neardup.plan import make_plan
from neardup.stages import ShingleSets
from neardup.stores import MemoryStore

TEXTS = ["a b c d e f", "a b c d e g", "x y z w"]


def _swap_first_two(hashes: np.ndarray) -> None:
    """Swaps hashes[0] and hashes[1] behind numpy's back (the memory is read-only to numpy)."""
    first, second = int(hashes[0]), int(hashes[1])
    address = hashes.ctypes.data
    ctypes.c_uint64.from_address(address).value = second
    ctypes.c_uint64.from_address(address + 8).value = first


def test_shingles_are_read_only_and_stay_so():
    sets = neardup.shingles(TEXTS, k=2)
    for array in (sets.offsets, sets.hashes):
        assert not array.flags.writeable
        assert type(array.base) is _core.BuiltSets
        with pytest.raises(ValueError):
            array.flags.writeable = True
        with pytest.raises(ValueError):
            array[0] = 0
    # a copy is the user's to change
    copy = sets.hashes.copy()
    copy[0] = 1
    assert copy.flags.writeable


def test_built_sets_are_not_checked_again_but_a_copy_is():
    sets = neardup.shingles(TEXTS, k=2)
    pairs = np.array([[0, 1]])
    expected = neardup.jaccard(sets, pairs)
    copy = ShingleSets(sets.offsets.copy(), sets.hashes.copy(), k=2)
    _swap_first_two(sets.hashes)
    # Trusted: the swap goes unseen (only a wrong similarity could follow, never a bad read).
    neardup.jaccard(sets, pairs)
    # The same bits in arrays of the user's own are checked, and refused once out of order.
    assert neardup.jaccard(copy, pairs).tolist() == expected.tolist()
    _swap_first_two(copy.hashes)
    with pytest.raises(InputError, match="shingle set 0 is not sorted and duplicate-free"):
        neardup.jaccard(copy, pairs)


def test_a_part_of_built_sets_is_checked():
    sets = neardup.shingles(TEXTS, k=2)
    _swap_first_two(sets.hashes)
    # the same memory, one set fewer: views, not the arrays the crate gave, so checked
    end = int(sets.offsets[2])
    part = ShingleSets(sets.offsets[:3], sets.hashes[:end], k=2)
    assert part.hashes.base is sets.hashes
    with pytest.raises(InputError, match="shingle set 0 is not sorted"):
        neardup.jaccard(part, np.array([[0, 1]]))


def test_the_sign_pass_holds_built_sets():
    plan = make_plan(method="minhash", k=2, verify="exact")
    out = engine.run(plan, MemoryStore(TEXTS))
    held = out.evidence.sets
    assert held is not None
    assert type(held.hashes.base) is _core.BuiltSets
    assert not held.hashes.flags.writeable
    assert held.hashes.base is held.offsets.base
