"""The digests that key exact duplicates outside a run (the run's sign pass computes its own,
``rust/sign_pass.rs``): of shingle sets (:func:`set_digests`) and of texts' bytes or
normalised text (:func:`sha256_digests`, the Ray engine's SHA-256 methods and the report).

>>> d = set_digests(stages.shingles(["a b", "a b"], k=1))
>>> bool((d[0] == d[1]).all())
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from neardup import _core, stages
from neardup._texts import core_texts


def set_digests(sets: stages.ShingleSets) -> np.ndarray:
    """A 128-bit digest of each shingle set, uint64[n, 2]: equal sets give equal digests.

    Order-independent: the sums of the (already uniform) shingle hashes and of their squares
    modulo 2**64, the mixed size folded into the first; empty sets give (0, 0)
    (``rust/signing/digest.rs``). Only compared within one run, never stored.

    >>> d = set_digests(stages.shingles(["a b c", "A b, c!", "a b d"], k=2))
    >>> bool((d[0] == d[1]).all()), bool((d[0] == d[2]).all())
    (True, False)
    """
    offsets = np.ascontiguousarray(sets.offsets, dtype=np.int64)
    return _core.set_digests(offsets, np.ascontiguousarray(sets.hashes, dtype=np.uint64))


def sha256_digests(
    texts: Any, normalized: bool, hash_version: int = _core.HASH_VERSION, threads: int = 1
) -> np.ndarray:
    """The first 128 bits of each document's SHA-256 (raw UTF-8, or the text normalised by
    ``hash_version``), uint64[n, 2], computed on ``threads`` threads (the same digests).

    >>> d = sha256_digests(["Hi there", "hi THERE!"], normalized=True)
    >>> bool((d[0] == d[1]).all())
    True
    """
    return _core.sha256_digests(core_texts(texts), bool(normalized), hash_version, threads)
