"""Argument checks, written once: the plan and the stage functions both call these.

Each check returns the value in its canonical Python type or raises an exception from
:mod:`neardup.errors` whose message names the argument.

>>> check_int("k", 5, low=1)
5
>>> check_choice("unit", "word", ("word", "char"))
'word'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from neardup.errors import ArgumentTypeError, InvalidArgumentError

#: The largest count of documents an option may name (``batch_size``, a top-k): beyond a
#: 64-bit index it cannot be one (``--batch-size 99999999999999999999`` is refused by name).
MAX_COUNT = 2**62
#: The largest ``batch_size`` (documents per batch) any reader or store takes.
MAX_BATCH = MAX_COUNT


def check_int(name: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int within [low, high]; bools and floats are refused.

    >>> check_int("num_perm", 128, low=1, high=8192)
    128
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ArgumentTypeError(f"{name} must be an int, got {type(value).__name__}")
    value = int(value)
    if low is not None and value < low:
        raise InvalidArgumentError(f"{name} must be at least {low}, got {value}")
    if high is not None and value > high:
        raise InvalidArgumentError(f"{name} must be at most {high}, got {value}")
    return value


def check_optional_int(
    name: str, value: Any, low: int | None = None, high: int | None = None
) -> int | None:
    """Like :func:`check_int`, with ``None`` passed through.

    >>> check_optional_int("bands", None) is None
    True
    """
    return None if value is None else check_int(name, value, low, high)


def check_fraction(name: str, value: Any, *, include_zero: bool = False) -> float:
    """``value`` as a float in (0, 1] (or [0, 1] with ``include_zero``); NaN is refused.

    >>> check_fraction("threshold", 0.3)
    0.3
    """
    if isinstance(value, bool):
        raise ArgumentTypeError(f"{name} must be a number, got bool")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"{name} must be a number, got {type(value).__name__}") from None
    low_ok = number >= 0.0 if include_zero else number > 0.0
    if not (low_ok and number <= 1.0):  # also false for NaN
        interval = "[0, 1]" if include_zero else "(0, 1]"
        raise InvalidArgumentError(f"{name} must be in {interval}, got {value}")
    return number


def check_threshold(threshold: Any) -> float:
    """A Jaccard threshold: a float in (0, 1].

    >>> check_threshold(1)
    1.0
    """
    return check_fraction("threshold", threshold)


def check_seed(seed: Any) -> int:
    """A hash seed: an int in [0, 2**64).

    >>> check_seed(0)
    0
    """
    return check_int("seed", seed, low=0, high=2**64 - 1)


def check_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    """``value`` if it is one of ``choices``, else an error listing them.

    >>> check_choice("verify", "exact", ("exact", "estimate"))
    'exact'
    """
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise InvalidArgumentError(f"{name} must be one of {listed}, got {value!r}")
    return value


#: Every hash version this release computes (README "Definitions (stable bits)").
HASH_VERSIONS: tuple[int, ...] = (1, 2)


def check_hash_version(hash_version: Any) -> int:
    """``hash_version`` as an int, one of :data:`HASH_VERSIONS`.

    >>> check_hash_version(1)
    1
    """
    value = check_int("hash_version", hash_version)
    if value not in HASH_VERSIONS:
        listed = ", ".join(str(v) for v in HASH_VERSIONS)
        raise InvalidArgumentError(f"hash_version must be one of {listed}, got {value}")
    return value


def check_signatures(signatures: Any) -> np.ndarray:
    """A MinHash signature matrix, uint32[n, num_perm] with at least one column, contiguous.

    >>> check_signatures(np.zeros((2, 4), np.uint32)).shape
    (2, 4)
    """
    array = np.asarray(signatures)
    if array.dtype != np.uint32:
        raise InvalidArgumentError(f"signatures must be a uint32 array, got dtype {array.dtype}")
    if array.ndim != 2:
        raise InvalidArgumentError(f"signatures must be 2-D (n, num_perm), got shape {array.shape}")
    if array.shape[1] < 1:
        raise InvalidArgumentError("signatures must have at least one column")
    return np.ascontiguousarray(array)


def check_count(name: str, value: Any) -> int:
    """A size or count the core takes as a 64-bit word (at least 1); the core refuses what it
    cannot allocate.

    >>> check_count("bands", 9)
    9
    """
    return check_int(name, value, low=1, high=2**64 - 1)


def check_fingerprints(fingerprints: Any) -> np.ndarray:
    """SimHash fingerprints as uint64[n, words] (a 1-D array is one word per row), contiguous."""
    array = np.asarray(fingerprints)
    if array.dtype != np.uint64:
        raise InvalidArgumentError(f"fingerprints must be a uint64 array, got dtype {array.dtype}")
    if array.ndim == 1:
        array = array.reshape(-1, 1)
    if array.ndim != 2 or array.shape[1] not in (1, 2):
        raise InvalidArgumentError(
            f"fingerprints must have shape (n,), (n, 1) or (n, 2), got {array.shape}"
        )
    return np.ascontiguousarray(array)


def check_pairs(pairs: Any) -> np.ndarray:
    """Pairs as int64[m, 2], contiguous (no pairs: an empty (0, 2) array)."""
    array = np.asarray(pairs)
    if array.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if not np.issubdtype(array.dtype, np.integer):
        raise InvalidArgumentError(f"pairs must be an integer array, got dtype {array.dtype}")
    if array.ndim != 2 or array.shape[1] != 2:
        raise InvalidArgumentError(f"pairs must have shape (m, 2), got {array.shape}")
    return np.ascontiguousarray(array, dtype=np.int64)


def check_banding(signatures: np.ndarray, bands: int, rows: int) -> tuple[int, int]:
    """(bands, rows), both positive, with bands * rows slots within the signatures' width."""
    bands, rows = check_count("bands", bands), check_count("rows", rows)
    if bands * rows > signatures.shape[1]:
        raise InvalidArgumentError(
            f"bands * rows must not exceed num_perm: {bands} * {rows} > {signatures.shape[1]}"
        )
    return bands, rows


def check_active(fp: np.ndarray, active: Any) -> np.ndarray:
    """The mask of the rows taking part, bool[n] (None: every row), contiguous."""
    mask = np.ones(len(fp), dtype=bool) if active is None else np.asarray(active, dtype=bool)
    if mask.shape != (len(fp),):
        raise InvalidArgumentError(f"active must have shape ({len(fp)},), got {mask.shape}")
    return np.ascontiguousarray(mask)


def check_bucket_rule(
    threshold: float | None, bucket_limit: int | None
) -> tuple[float | None, int | None]:
    """(threshold, bucket_limit) of an LSH stage's bucket rule, checked; None stays None.

    >>> check_bucket_rule(None, 32)
    (None, 32)
    """
    if threshold is not None:
        threshold = check_threshold(threshold)
    if bucket_limit is not None:
        bucket_limit = check_int("bucket_limit", bucket_limit, low=2)
    return threshold, bucket_limit


def _key_bytes(name: str, i: int, key: Any) -> bytes:
    """One key's canonical bytes: equal keys (by Python's ``==``: ``1``, ``1.0``, ``True``
    and ``np.int64(1)`` are one key; ``"1"`` is another) give equal bytes in every process."""
    if isinstance(key, np.generic):
        key = key.item()
    if isinstance(key, str):
        return b"s" + key.encode("utf-8", "surrogatepass")
    if isinstance(key, bytes):
        return b"b" + key
    if isinstance(key, (bool, int)):
        return b"i%d" % int(key)
    if isinstance(key, float):
        if key != key:
            raise InvalidArgumentError(f"{name}[{i}] is NaN: every row needs a key")
        return b"i%d" % int(key) if key.is_integer() else b"f" + repr(key).encode()
    if isinstance(key, tuple):
        return b"t" + b"\x00".join(
            _key_bytes(name, i, k).replace(b"\x00", b"\x00\x01") for k in key
        )
    if key is None:
        raise InvalidArgumentError(f"{name}[{i}] is None: every row needs a key")
    try:
        missing = bool(key != key)
    except (TypeError, ValueError):  # pandas.NA, pd.NaT compare to a missing value
        missing = True
    if missing:
        raise InvalidArgumentError(f"{name}[{i}] is missing ({key!r}): every row needs a key")
    raise ArgumentTypeError(
        f"{name}[{i}] is {type(key).__name__}: keys must be str, bytes, numbers or tuples of them"
    )


def check_keys(name: str, keys: Any, n: int) -> np.ndarray:
    """uint64[n]: a 64-bit hash of each row's key (``within=``, ``unit_of=``): rows with equal
    keys get equal values, in every process (BLAKE2b of the key's canonical bytes, so the Ray
    engine's partitions agree). Keys are a list, numpy array, pandas/polars Series or Arrow
    array of str, bytes, numbers or tuples; a wrong length, None, NaN or a missing value is
    refused.

    >>> h = check_keys("within", ["a", "b", "a", 1, 1.0], 5)
    >>> bool(h[0] == h[2]), bool(h[0] == h[1]), bool(h[3] == h[4])
    (True, False, True)
    >>> check_keys("within", ["a", None], 2)
    Traceback (most recent call last):
    ...
    neardup.errors.InvalidArgumentError: within[1] is None: every row needs a key
    """
    import hashlib

    if isinstance(keys, (str, bytes)) or not hasattr(keys, "__len__"):
        raise ArgumentTypeError(
            f"{name} must be one key per row (a list, array or Series), got {type(keys).__name__}"
        )
    if hasattr(keys, "to_numpy") and not isinstance(keys, np.ndarray):
        keys = keys.to_numpy(zero_copy_only=False) if hasattr(keys, "type") else keys.to_numpy()
    array = keys if isinstance(keys, np.ndarray) else None
    if array is not None and array.ndim != 1:
        raise InvalidArgumentError(f"{name} must be 1-d, got shape {array.shape}")
    if len(keys) != n:
        raise InvalidArgumentError(f"{name} has {len(keys)} keys for {n} rows")
    if array is not None and array.dtype.kind in "iubfUS":
        if array.dtype.kind == "f" and np.isnan(array).any():
            raise InvalidArgumentError(
                f"{name}[{int(np.flatnonzero(np.isnan(array))[0])}] is NaN: every row needs a key"
            )
        distinct, inverse = np.unique(array, return_inverse=True)
        values = distinct.tolist()
    else:
        seen: dict[Any, int] = {}
        values, codes = [], np.empty(n, dtype=np.int64)
        for i, key in enumerate(keys):
            try:
                code = seen.setdefault(key, len(seen))
            except TypeError:
                raise ArgumentTypeError(
                    f"{name}[{i}] is {type(key).__name__}, which is not hashable"
                ) from None
            if code == len(values):
                values.append(key)
                _key_bytes(name, i, key)  # refused now, with its row
            codes[i] = code
        inverse = codes
    first = np.zeros(len(values), dtype=np.int64)
    if len(values):
        first[inverse[::-1]] = np.arange(n - 1, -1, -1)
    salts = np.array(
        [
            int.from_bytes(
                hashlib.blake2b(_key_bytes(name, int(r), v), digest_size=8).digest(), "big"
            )
            for v, r in zip(values, first.tolist(), strict=True)
        ],
        dtype=np.uint64,
    )
    return salts[np.asarray(inverse, dtype=np.int64).reshape(-1)]
