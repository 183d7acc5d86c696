"""``_core.gather_rows``/``gather_rows_in_place`` (rust/rows.rs): the held sets of the unique
documents gathered by the crate, against numpy on random CSR arrays; bad rows are errors."""

from __future__ import annotations

import numpy as np
import pytest

from neardup import _core
from neardup.errors import NeardupError


def _csr(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    sizes = rng.integers(0, 5, size=n)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return offsets, rng.integers(0, 2**63, size=int(offsets[-1]), dtype=np.uint64)


@pytest.mark.parametrize("seed", range(20))
def test_gathered_rows_are_the_rows_in_order(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 40))
    offsets, hashes = _csr(rng, n)
    rows = np.flatnonzero(rng.random(n) < rng.random()).astype(np.int64)
    want = np.concatenate([hashes[offsets[r] : offsets[r + 1]] for r in rows] + [hashes[:0]])
    out = np.full(len(hashes), 7, dtype=np.uint64)
    assert _core.gather_rows(offsets, rows, hashes, out) == len(want)
    assert out[: len(want)].tolist() == want.tolist()
    own = hashes.copy()
    assert _core.gather_rows_in_place(offsets, rows, own) == len(want)
    assert own[: len(want)].tolist() == want.tolist()


@pytest.mark.parametrize("rows", [[1, 0], [0, 0], [3], [-1]])
def test_rows_out_of_order_or_range_are_errors(rows: list[int]) -> None:
    offsets, hashes = np.array([0, 2, 3, 3], dtype=np.int64), np.arange(3, dtype=np.uint64)
    with pytest.raises(NeardupError, match="rows must be increasing"):
        _core.gather_rows(offsets, np.array(rows, dtype=np.int64), hashes, hashes.copy())
    with pytest.raises(NeardupError, match="rows must be increasing"):
        _core.gather_rows_in_place(offsets, np.array(rows, dtype=np.int64), hashes.copy())


def test_a_short_output_is_an_error_and_untouched() -> None:
    offsets, hashes = np.array([0, 2, 3], dtype=np.int64), np.arange(3, dtype=np.uint64)
    out = np.zeros(2, dtype=np.uint64)
    with pytest.raises(NeardupError, match="out holds 2 hashes, the rows have 3"):
        _core.gather_rows(offsets, np.array([0, 1], dtype=np.int64), hashes, out)
    assert out.tolist() == [0, 0]
