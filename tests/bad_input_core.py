"""Bad input to the Rust core: sizes that would abort the interpreter, panics reachable from
arguments, and shingle sets that would give a wrong Jaccard silently.

``CORE_ROWS`` is a list of ``pytest.param(call, error, match, id=...)``: calling ``call()``
must raise ``error`` (a class of :mod:`neardup.errors`) with a message matching the regular
expression ``match``. The rows go through the public API where it reaches the Rust check, and
call ``neardup._core`` directly where Python validates first (so the Rust guard itself is
tested). ``tests/test_errors.py`` runs them; the bad-input matrix imports them with
``from bad_input_core import CORE_ROWS``.

No row allocates much: every impossible size is refused before anything is touched.
"""

from __future__ import annotations

import numpy as np
import pytest

import neardup
from neardup import _core
from neardup.errors import InputError, InputTypeError, InvalidArgumentError, ResourceError

GOOD = ["alpha beta gamma delta epsilon", "alpha beta gamma delta zeta"]
NO_PAIRS = np.zeros((0, 2), dtype=np.int64)


def _sets(offsets: list[int], hashes: list[int]) -> neardup.ShingleSets:
    return neardup.ShingleSets(np.array(offsets, dtype=np.int64), np.array(hashes, dtype=np.uint64))


# Set 0 is out of order; set 1 repeats a hash.
UNSORTED = _sets([0, 3, 5], [30, 10, 20, 40, 50])
REPEATED = _sets([0, 2, 5], [1, 2, 7, 7, 9])


def _signatures(n: int = 3, num_perm: int = 8) -> np.ndarray:
    return neardup.minhash(GOOD + ["other words here"] * (n - 2), num_perm=num_perm)


CORE_ROWS = [
    # Sizes that aborted the process (allocation failure) become ResourceError (MemoryError).
    pytest.param(
        lambda: neardup.minhash(GOOD, num_perm=2**40),
        ResourceError,
        "num_perm hash functions",
        id="minhash-num_perm-2**40",
    ),
    pytest.param(
        lambda: neardup.minhash([], num_perm=2**40),
        ResourceError,
        "num_perm",
        id="minhash-no-texts-num_perm-2**40",
    ),
    pytest.param(
        lambda: neardup.minhash(neardup.shingles(GOOD), num_perm=2**40),
        ResourceError,
        "num_perm",
        id="minhash-sets-num_perm-2**40",
    ),
    pytest.param(
        lambda: _core.minhash_texts(GOOD, 2**64 - 1, 0, 5, "word", 1, "classic"),
        ResourceError,
        "num_perm",
        id="core-minhash-num_perm-2**64-1",
    ),
    pytest.param(
        lambda: neardup.minhash(GOOD, num_perm=2**40, algorithm="oph"),
        InvalidArgumentError,
        r"num_perm must be at most 2\*\*32 with algorithm='oph'",
        id="minhash-oph-num_perm-2**40",
    ),
    pytest.param(
        lambda: neardup.minhash(GOOD, threads=10**6),
        InvalidArgumentError,
        "threads must be at most 1024",
        id="minhash-threads-10**6",
    ),
    pytest.param(
        lambda: neardup.simhash(GOOD, threads=10**6),
        InvalidArgumentError,
        "threads must be at most 1024",
        id="simhash-threads-10**6",
    ),
    pytest.param(
        lambda: _core.simhash_texts(GOOD, 2**40, False, 5, "word", 1),
        InvalidArgumentError,
        "bits must be 64 or 128",
        id="core-simhash-bits-2**40",
    ),
    pytest.param(
        lambda: neardup.clusters(NO_PAIRS, 2**32),
        InvalidArgumentError,
        r"n must be below 2\*\*32",
        id="clusters-n-2**32",
    ),
    pytest.param(
        lambda: _core.lsh_params(0.5, 2**40),
        InvalidArgumentError,
        "num_perm must be in",
        id="core-lsh_params-num_perm-2**40",
    ),
    # Panics reachable from arguments (they surfaced as RuntimeError "internal error").
    pytest.param(
        lambda: _core.lsh_duplicates(np.zeros((3, 0), dtype=np.uint32), 1, 1, 0.5),
        InvalidArgumentError,
        r"bands \* rows must not exceed num_perm",
        id="core-lsh_duplicates-no-columns",
    ),
    pytest.param(
        lambda: _core.estimate_jaccard(_signatures(num_perm=8)[:, ::2], NO_PAIRS),
        InvalidArgumentError,
        "signatures must be a C-contiguous array",
        id="core-estimate-strided-signatures",
    ),
    pytest.param(
        lambda: _core.lsh_duplicates(_signatures(), 4, 2, 0.5, np.zeros(4, dtype=np.int64)),
        InvalidArgumentError,
        "offsets and hashes go together",
        id="core-lsh_duplicates-offsets-without-hashes",
    ),
    pytest.param(
        lambda: _core.estimate_jaccard(_signatures(), np.array([[0, 3]], dtype=np.int64)),
        InvalidArgumentError,
        r"pairs\[0\] = \(0, 3\) is out of range for 3 documents",
        id="core-estimate-pair-out-of-range",
    ),
    pytest.param(
        lambda: _core.minhash_texts(GOOD, 8, 0, 5, "bogus", 1, "classic"),
        InvalidArgumentError,
        "unit must be 'word' or 'char'",
        id="core-minhash-unit-bogus",
    ),
    pytest.param(
        lambda: _core.minhash_texts(GOOD, 8, 0, 5, "word", 1, "bogus"),
        InvalidArgumentError,
        "algorithm must be 'classic' or 'oph'",
        id="core-minhash-algorithm-bogus",
    ),
    # Documents the core cannot read: the error names the document.
    pytest.param(
        lambda: _core.minhash_texts(["ok", 3], 8, 0, 5, "word", 1, "classic"),  # type: ignore[list-item]
        InputTypeError,
        r"texts\[1\] is int, expected str",
        id="core-minhash-int-item",
    ),
    pytest.param(
        lambda: _core.minhash_texts(3, 8, 0, 5, "word", 1, "classic"),  # type: ignore[arg-type]
        InputTypeError,
        "texts must be a list of str",
        id="core-minhash-not-a-list",
    ),
    pytest.param(
        lambda: _core.minhash_texts(["ok", "bad \udc80"], 8, 0, 5, "word", 1, "classic"),
        InputError,
        r"texts\[1\] is not valid Unicode",
        id="core-minhash-lone-surrogate",
    ),
    pytest.param(
        lambda: _core.word_counts(
            (np.frombuffer(b"ok\xff", dtype=np.uint8), np.array([0, 2, 3], dtype=np.int64))
        ),
        InputError,
        r"texts\[1\] is not valid UTF-8",
        id="core-buffer-invalid-utf8",
    ),
    pytest.param(
        lambda: _core.word_counts(
            (np.frombuffer(b"okay", dtype=np.uint8), np.array([0, 9], dtype=np.int64))
        ),
        InputError,
        r"text offsets are inconsistent at texts\[0\]",
        id="core-buffer-offsets-past-the-data",
    ),
    # Shingle sets built by hand that are not sorted and duplicate-free (a wrong Jaccard).
    pytest.param(
        lambda: neardup.jaccard(UNSORTED, [[0, 1]]),
        InputError,
        r"shingle set 0 is not sorted and duplicate-free: hashes\[0\] = 30 is followed by 10",
        id="jaccard-unsorted-set",
    ),
    pytest.param(
        lambda: neardup.jaccard(REPEATED, [[0, 1]]),
        InputError,
        r"shingle set 1 is not sorted and duplicate-free: hashes\[2\] = 7 is followed by 7",
        id="jaccard-repeated-hash",
    ),
    pytest.param(
        lambda: neardup.all_pairs_jaccard(UNSORTED, 0.5),
        InputError,
        "shingle set 0",
        id="all_pairs-unsorted-set",
    ),
    pytest.param(
        lambda: neardup.verify_jaccard(REPEATED, [[0, 1]], 0.5),
        InputError,
        "shingle set 1",
        id="verify_jaccard-repeated-hash",
    ),
    pytest.param(
        lambda: neardup.minhash(UNSORTED, num_perm=8),
        InputError,
        "shingle set 0",
        id="minhash-unsorted-set",
    ),
    pytest.param(
        lambda: neardup.simhash(REPEATED),
        InputError,
        "shingle set 1",
        id="simhash-repeated-hash",
    ),
]
