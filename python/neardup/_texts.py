"""Turning the many shapes a user's documents come in into what the Rust core borrows.

The core reads either a ``list`` of ``str`` (borrowed, no copy) or a ``(data, offsets)`` pair of
numpy arrays holding UTF-8 bytes and int64 offsets (how an Arrow string array is laid out, also
borrowed). Everything else is converted here, with errors that name the offending index.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

CoreTexts = list[str] | tuple[np.ndarray, np.ndarray]


def _item_to_str(item: object, index: int) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, (bytes, bytearray, memoryview)):
        try:
            return bytes(item).decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValueError(f"texts[{index}] is not valid UTF-8: {error}") from None
    raise TypeError(f"texts[{index}] is {type(item).__name__}, expected str (or UTF-8 bytes)")


def _list_of_str(items: list[Any]) -> list[str]:
    # One cheap pass: the common case (all str) is returned as is, without copying.
    if all(type(item) is str for item in items):
        return items
    return [_item_to_str(item, i) for i, item in enumerate(items)]


def _from_arrow(array: Any) -> tuple[np.ndarray, np.ndarray]:
    import pyarrow as pa

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    is_view = getattr(pa.types, "is_string_view", None)  # pyarrow >= 16
    if is_view is not None and is_view(array.type):
        array = array.cast(pa.large_string())
    # Binary columns are accepted too: the core checks each document as UTF-8.
    t = pa.types
    narrow = t.is_string(array.type) or t.is_binary(array.type)
    wide = t.is_large_string(array.type) or t.is_large_binary(array.type)
    if not (narrow or wide):
        raise TypeError(f"texts must be an Arrow string array, got type {array.type}")
    if array.null_count:
        first_null = int(np.flatnonzero(array.is_null().to_numpy(zero_copy_only=False))[0])
        raise TypeError(f"texts[{first_null}] is null, expected str")
    _, offsets_buffer, data_buffer = array.buffers()
    offset_type = np.int64 if wide else np.int32
    offsets = np.frombuffer(offsets_buffer, dtype=offset_type)[
        array.offset : array.offset + len(array) + 1
    ]
    data = (
        np.frombuffer(data_buffer, dtype=np.uint8)
        if data_buffer is not None
        else np.zeros(0, dtype=np.uint8)
    )
    return data, offsets.astype(np.int64, copy=False)


def as_core_texts(texts: Any) -> CoreTexts:
    """Converts ``texts`` into a list of str or Arrow-style buffers for the core.

    Accepts a list/tuple of str (bytes items are decoded as strict UTF-8), a 1-D numpy array of
    str, bytes or objects, a pyarrow (chunked) string array, a pandas Series, or any iterable.

    >>> as_core_texts(("a", b"b"))
    ['a', 'b']
    """
    if isinstance(texts, (str, bytes)):
        raise TypeError("texts must be a sequence of documents, not a single str or bytes")
    if isinstance(texts, list):
        return _list_of_str(texts)
    if (  # already converted Arrow-style (data, offsets): pass through, so calls compose
        isinstance(texts, tuple)
        and len(texts) == 2
        and all(isinstance(a, np.ndarray) for a in texts)
        and texts[0].dtype == np.uint8
        and texts[1].dtype == np.int64
    ):
        return texts
    module = type(texts).__module__ or ""
    if module.startswith("pyarrow"):
        return _from_arrow(texts)
    if isinstance(texts, np.ndarray):
        if texts.ndim != 1:
            raise ValueError(f"texts must be a 1-D array, got shape {texts.shape}")
        return _list_of_str(texts.tolist())
    if module.startswith("pandas"):
        return _list_of_str(texts.tolist())
    if isinstance(texts, Iterable):
        return _list_of_str(list(texts))
    raise TypeError(f"texts must be an iterable of str, got {type(texts).__name__}")


def count(texts: CoreTexts) -> int:
    """Number of documents in converted texts."""
    if isinstance(texts, tuple):
        return len(texts[1]) - 1
    return len(texts)


def iter_batches(texts: Any, batch_size: int) -> Iterator[CoreTexts]:
    """Yields converted batches of at most ``batch_size`` documents from any iterable.

    >>> [len(b) for b in iter_batches(iter(["a", "b", "c"]), 2)]
    [2, 1]
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    batch: list[Any] = []
    start = 0
    for item in texts:
        batch.append(item)
        if len(batch) == batch_size:
            yield _offset_errors(batch, start)
            start += len(batch)
            batch = []
    if batch:
        yield _offset_errors(batch, start)


def reindexed(error: Exception, start: int) -> Exception:
    """The same error with ``texts[i]`` shifted by ``start``: the index in the whole stream."""
    message = str(error)
    if not (message.startswith("texts[") and start):
        return error
    local = int(message[6 : message.index("]")])
    shifted = f"texts[{start + local}]" + message[message.index("]") + 1 :]
    return type(error)(shifted)


def _offset_errors(batch: list[Any], start: int) -> list[str]:
    try:
        return _list_of_str(batch)
    except (TypeError, ValueError) as error:
        raise reindexed(error, start) from None
