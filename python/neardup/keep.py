"""The keep policy: which document of each duplicate cluster is kept.

``"first"`` keeps the lowest position, ``"longest"`` the document with the most characters,
``"priority"`` the one with the highest priority (a number per document: the
``keep=array`` of :func:`neardup.find_duplicates`, the ``--keep-priority COLUMN`` of
``neardup dedup``). Ties go to the lowest position. NaN, missing and non-numeric values are
refused.

Priorities compare exactly, as numbers: integers as integers (int64, uint64, or larger
Python ints: nanosecond timestamps near 1.7e18 order correctly), floats as 64-bit floats.
In a column that mixes integers and floats (a list, a JSONL field, CSV text), an integer
and a float compare by their exact values, as Python compares them: no integer is rounded
to a float, so ``2**53 + 1`` ranks above ``2.0**53``. Every API and command takes this rule
(:func:`check_priorities`, :func:`row_priority`, :func:`exact_priorities`).

>>> keep, rep = keep_mask(np.array([0, 0, 0]), np.array([1.0, 5.0, 5.0]), "priority")
>>> keep.tolist(), rep.tolist()
([False, True, False], [1, 1, 1])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from neardup import _core
from neardup.errors import ArgumentTypeError, InputError, InvalidArgumentError

#: The refusal of ``keep="priority"`` without the numbers.
NO_PRIORITIES = (
    "keep='priority' takes the priorities themselves: pass keep=<array of numbers, one per "
    "document> (higher is kept)"
)


def keep_mask(
    labels: np.ndarray, measure: np.ndarray | None, policy: str
) -> tuple[np.ndarray, np.ndarray]:
    """(keep bool[n], representative int64[n]): one kept document per cluster — the first
    (lowest position), or the one with the largest ``measure`` (characters for
    ``"longest"``, priorities for ``"priority"``), ties to the lowest position
    (``_core.keep_mask``, ``rust/keep.rs``; numbers compare exactly in their own type).

    >>> keep, rep = keep_mask(np.array([0, 0, 2]), np.array([3, 9, 1]), "longest")
    >>> keep.tolist(), rep.tolist()
    ([False, True, True], [1, 1, 2])
    """
    labels = np.ascontiguousarray(labels, dtype=np.int64)
    typed = None if policy == "first" else core_measure(measure)
    if typed is None:
        return _core.keep_mask(labels, "first")
    return _core.keep_mask(labels, policy, typed)


def core_measure(measure: np.ndarray | None) -> np.ndarray | None:
    """``measure`` as the crate compares it, exactly: float64, uint64 or int64 as its kind
    is, and Python numbers beyond those (an object array) replaced by their ranks.

    >>> core_measure(np.array([3, 1], dtype=np.int32)).dtype
    dtype('int64')
    >>> core_measure(np.array([2**70, 5], dtype=object)).tolist()
    [1, 0]
    """
    if measure is None:
        return None
    measure = np.asarray(measure)
    if measure.dtype.kind == "O":  # Python numbers beyond int64/uint64/float64: their ranks
        measure = np.unique(measure, return_inverse=True)[1].reshape(-1)
    if measure.dtype.kind == "f":
        return np.ascontiguousarray(measure, dtype=np.float64)
    if measure.dtype.kind == "u":
        return np.ascontiguousarray(measure, dtype=np.uint64)
    return np.ascontiguousarray(measure, dtype=np.int64)


def exact_priorities(values: list[Any]) -> np.ndarray:
    """Python numbers (already checked) as an array whose order is theirs, exactly: int64 or
    uint64 for integers that fit, float64 for floats (and for a mix whose integers a float
    holds exactly), else an object array of the numbers themselves (compared as Python does).

    >>> exact_priorities([2**53 + 1, 2**53]).dtype, exact_priorities([2**64 - 1, 0]).dtype
    (dtype('int64'), dtype('uint64'))
    >>> exact_priorities([2**53 + 1, 0.5]).dtype
    dtype('O')
    """
    ints = [isinstance(v, (int, np.integer)) for v in values]
    if all(ints):
        for dtype in (np.int64, np.uint64):
            try:
                return np.array(values, dtype=dtype)
            except OverflowError:
                continue
        return _objects([int(v) for v in values])
    if not any(ints) or all(abs(int(v)) <= 2**53 for v, i in zip(values, ints, strict=True) if i):
        return np.array(values, dtype=np.float64)
    exact = [int(v) if i else float(v) for v, i in zip(values, ints, strict=True)]
    return _objects(exact)


def _objects(values: list[Any]) -> np.ndarray:
    """A 1-D object array of Python numbers (compared as Python compares them)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def check_priorities(values: Any, n: int | None = None, name: str = "keep") -> np.ndarray:
    """``values`` (a numpy array, list, pandas/polars Series or Arrow array of numbers) as an
    array that orders them exactly (module docstring: integers as integers, floats as floats);
    refused when not numeric, not one per document, or NaN/null.

    >>> check_priorities([3, 1.5, True]).tolist()
    [3.0, 1.5, 1.0]
    >>> check_priorities([2**53 + 1, 2**53]).tolist()
    [9007199254740993, 9007199254740992]
    >>> check_priorities([1.0, float("nan")])
    Traceback (most recent call last):
    ...
    neardup.errors.InvalidArgumentError: keep[1] is NaN (priorities must be numbers)
    """
    if type(values).__module__.startswith("polars") and hasattr(values, "to_arrow"):
        values = values.to_arrow()
    if hasattr(values, "to_numpy") and type(values).__module__.startswith("pyarrow"):
        if getattr(values, "null_count", 0):
            mask = np.asarray(values.is_null().to_numpy(zero_copy_only=False))
            raise InvalidArgumentError(f"{name}[{int(np.flatnonzero(mask)[0])}] is null")
        values = values.to_numpy(zero_copy_only=False)
    if not isinstance(values, np.ndarray) and isinstance(values, (list, tuple)):
        values = _python_numbers(values, name)  # np.asarray would round big ints to floats
    try:
        array = np.asarray(values)
    except (TypeError, ValueError, OverflowError) as e:
        raise ArgumentTypeError(f"{name} must be an array of numbers ({e})") from None
    if array.ndim != 1:
        raise InvalidArgumentError(
            f"{name} must be one number per document, got shape {array.shape}"
        )
    if array.dtype.kind == "O" and all(_is_number(v) for v in array.tolist()):
        out = exact_priorities(array.tolist())  # a pandas object column of numbers
    elif array.dtype.kind not in "biuf":
        first = next((i for i, v in enumerate(array.tolist()) if not _is_number(v)), 0)
        shown = repr(array.tolist()[first]) if len(array) else "?"
        raise ArgumentTypeError(
            f"{name} must hold numbers (priorities), got {array.dtype} ({name}[{first}] = {shown})"
        )
    elif array.dtype.kind == "f":
        out = array.astype(np.float64)
    else:  # integers stay integers (bool as 0/1): float64 would round those above 2**53
        out = array.astype(np.uint64 if array.dtype.kind == "u" else np.int64)
    if out.dtype.kind in "fO":
        nan = [i for i, v in enumerate(out.tolist()) if isinstance(v, float) and math.isnan(v)]
        if nan:
            raise InvalidArgumentError(f"{name}[{nan[0]}] is NaN (priorities must be numbers)")
    if n is not None and len(out) != n:
        raise InvalidArgumentError(f"{name} has {len(out)} priorities for {n} documents")
    return out


def _python_numbers(values: list[Any] | tuple[Any, ...], name: str) -> Any:
    """A list of numbers as :func:`exact_priorities`; anything else as it is (refused or
    converted by numpy, with the same messages as an array)."""
    if all(isinstance(v, (int, float, np.integer, np.floating)) for v in values) and values:
        if any(isinstance(v, (float, np.floating)) and math.isnan(v) for v in values):
            return np.asarray(values, dtype=np.float64)  # refused below, naming the NaN
        return exact_priorities([v.item() if isinstance(v, np.generic) else v for v in values])
    return values


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not (isinstance(v, float) and math.isnan(v))


def _csv_number(text: str) -> int | float:
    """A CSV field as a number: an integer literal as an int (exact), else a float."""
    try:
        return int(text)
    except ValueError:
        return float(text)


def row_priority(where: str, field: str, record: dict[str, Any], from_text: bool) -> int | float:
    """The priority of one input row (``neardup dedup --keep-priority FIELD``), or an
    :class:`InputError` naming the row. CSV fields are text and are parsed (``from_text``):
    an integer literal as an int, anything else as a float. Integers stay integers.

    >>> row_priority("a.csv:2", "score", {"score": "0.5"}, True)
    0.5
    >>> row_priority("a.csv:2", "ns", {"ns": "1700000000000000001"}, True)
    1700000000000000001
    >>> row_priority("a.jsonl:3", "score", {"text": "x"}, False)
    Traceback (most recent call last):
    ...
    neardup.errors.InputError: a.jsonl:3: no field 'score' (the --keep-priority column)
    """
    if field not in record:
        raise InputError(f"{where}: no field {field!r} (the --keep-priority column)")
    value = record[field]
    if from_text and isinstance(value, str):
        try:
            value = _csv_number(value)
        except ValueError:
            raise InputError(f"{where}: {field!r} is {value!r}, not a number") from None
    if not isinstance(value, (int, float)):  # bool is an int: True ranks above False
        kind = "null" if value is None else type(value).__name__
        raise InputError(f"{where}: {field!r} is {kind}, expected a number (priority)")
    if isinstance(value, float) and math.isnan(value):
        raise InputError(f"{where}: {field!r} is NaN, expected a number (priority)")
    return value


def cluster_members(labels: np.ndarray) -> np.ndarray:
    """Sorted positions of the documents in clusters of two or more (where a policy decides).

    >>> cluster_members(np.array([0, 1, 0, 3])).tolist()
    [0, 2]
    """
    sizes = np.bincount(labels, minlength=len(labels))
    return np.flatnonzero(sizes[labels] > 1)


def policy_measure(
    policy: str, labels: np.ndarray, lengths: np.ndarray, store: Any
) -> np.ndarray | None:
    """What ``keep_mask`` compares under ``policy``: the characters (``"longest"``, from the
    sign pass), the store's priorities of the cluster members (``"priority"``; a singleton's
    priority never matters, so files are read for the members only), or None (``"first"``).

    >>> from neardup.stores import MemoryStore
    >>> store = MemoryStore(["a", "b", "c"], priorities=[1, 2, 3])
    >>> policy_measure("priority", np.array([0, 0, 2]), np.zeros(3), store).tolist()
    [1, 2, 0]
    """
    if policy == "longest":
        return lengths
    if policy != "priority":
        return None
    rows = cluster_members(labels)
    if not len(rows):
        return np.zeros(len(labels), dtype=np.int64)
    values = store.priorities(rows)
    measure = np.zeros(len(labels), dtype=values.dtype)  # the members' exact kind of number
    measure[rows] = values
    return measure
