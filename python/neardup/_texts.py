"""Turning the many shapes a user's documents come in into what the Rust core borrows.

The core reads either a ``list`` of ``str`` (borrowed, no copy) or a ``(data, offsets)`` pair of
numpy arrays holding UTF-8 bytes and int64 offsets (how an Arrow string array is laid out, also
borrowed). Everything else is converted here, with errors that name the offending index.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from neardup import _core
from neardup._validate import MAX_BATCH, check_int
from neardup.errors import InputError, InputTypeError

CoreTexts = list[str] | tuple[np.ndarray, np.ndarray]


def _item_to_str(item: object, index: int) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, (bytes, bytearray, memoryview)):
        try:
            return bytes(item).decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputError(f"texts[{index}] is not valid UTF-8: {error}") from None
    raise InputTypeError(f"texts[{index}] is {type(item).__name__}, expected str (or UTF-8 bytes)")


def _list_of_str(items: list[Any]) -> list[str]:
    # One pass in the core: the common case (all str) is returned as is, without copying.
    if _core.str_chars(items) is not None:
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
        raise InputTypeError(f"texts must be an Arrow string array, got type {array.type}")
    if array.null_count:
        first_null = int(np.flatnonzero(array.is_null().to_numpy(zero_copy_only=False))[0])
        raise InputTypeError(f"texts[{first_null}] is null, expected str")
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


def _table_hint(texts: Any) -> str | None:
    """A message for a whole table passed where one column of texts is wanted."""
    name = type(texts).__name__
    if name in ("Table", "RecordBatch", "DataFrame", "LazyFrame", "Dataset", "DatasetDict"):
        return (
            f"texts must be one column of documents, got a whole {name}: "
            f"pass the text column, e.g. table['text']"
        )
    return None


def _arrow_of(texts: Any) -> Any | None:
    """The Arrow array behind a column from polars, Hugging Face datasets, or any object
    speaking the Arrow PyCapsule interface; None when ``texts`` is none of those."""
    module = type(texts).__module__ or ""
    if module.startswith("polars") and hasattr(texts, "to_arrow"):
        return texts.to_arrow()
    if module.startswith("datasets") and type(texts).__name__ == "Column":
        source, name = texts.source, texts.column_name
        if type(source).__name__ == "Dataset":  # the arrow view follows indices and selects
            return source.with_format("arrow")[name]
        return None
    if hasattr(texts, "__arrow_c_stream__") or hasattr(texts, "__arrow_c_array__"):
        import pyarrow as pa

        if hasattr(texts, "__arrow_c_stream__"):
            return pa.chunked_array(texts)
        return pa.array(texts)
    return None


def core_texts(texts: Any) -> CoreTexts:
    """A store's batch as the core takes it: a list is passed as is (the core checks each
    item; a store converted its texts once), anything else through :func:`as_core_texts`.

    >>> core_texts(["a", "b"])
    ['a', 'b']
    """
    return texts if isinstance(texts, list) else as_core_texts(texts)


def as_core_texts(texts: Any) -> CoreTexts:
    """Converts ``texts`` into a list of str or Arrow-style buffers for the core.

    Accepts a list/tuple of str (bytes items are decoded as strict UTF-8), a 1-D numpy array of
    str, bytes or objects, a pyarrow (chunked) string array or Table column, a pandas or
    polars Series, a Hugging Face ``datasets`` column (``ds["text"]``), anything exposing the
    Arrow C stream interface (``__arrow_c_stream__``), or any iterable. Arrow-backed inputs
    reach the core as buffers, without one Python object per document.

    >>> as_core_texts(("a", b"b"))
    ['a', 'b']
    """
    if isinstance(texts, (str, bytes)):
        raise InputTypeError("texts must be a sequence of documents, not a single str or bytes")
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
    hint = _table_hint(texts)
    if hint is not None:
        raise InputTypeError(hint)
    module = type(texts).__module__ or ""
    if module.startswith("pyarrow"):
        return _from_arrow(texts)
    arrow = _arrow_of(texts)
    if arrow is not None:
        return _from_arrow(arrow)
    if isinstance(texts, np.ndarray):
        if texts.ndim != 1:
            raise InputError(f"texts must be a 1-D array, got shape {texts.shape}")
        return _list_of_str(texts.tolist())
    if module.startswith("pandas"):
        return _list_of_str(texts.tolist())
    if isinstance(texts, Iterable):
        return _list_of_str(list(texts))
    raise InputTypeError(f"texts must be an iterable of str, got {type(texts).__name__}")


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
    batch_size = check_int("batch_size", batch_size, low=1, high=MAX_BATCH)
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
