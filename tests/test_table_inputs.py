"""Documents straight from the tables people keep them in: polars, pyarrow, Hugging Face
datasets and anything speaking the Arrow C stream interface, without per-row Python objects."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import neardup
from neardup._texts import as_core_texts
from neardup.errors import InputTypeError

pa = pytest.importorskip("pyarrow")

TEXTS = [
    "the quick brown fox jumps over the lazy dog",
    "a completely different sentence about cats",
    "The quick brown fox jumps over the lazy dog!",
    "another unrelated line of text here",
    "a completely different sentence about cats.",
]


def _labels(texts):
    return neardup.find_duplicates(texts, threshold=0.5, k=3).clusters.tolist()


EXPECTED = _labels(TEXTS)


def test_expected_clusters_are_not_trivial():
    assert EXPECTED == [0, 1, 0, 3, 1]


def test_pyarrow_chunked_array_and_table_column():
    chunked = pa.chunked_array([TEXTS[:2], TEXTS[2:]])
    assert _labels(chunked) == EXPECTED
    table = pa.table({"id": list(range(5)), "text": TEXTS})
    assert _labels(table["text"]) == EXPECTED
    assert _labels(pa.array(TEXTS, type=pa.large_string())) == EXPECTED


def test_arrow_c_stream_object():
    class StreamOnly:  # a foreign library's column: only the PyCapsule protocol
        def __init__(self, array):
            self._array = array

        def __arrow_c_stream__(self, requested_schema=None):
            return self._array.__arrow_c_stream__(requested_schema)

    assert _labels(StreamOnly(pa.chunked_array([TEXTS]))) == EXPECTED


def test_whole_table_is_refused_with_a_hint():
    with pytest.raises(InputTypeError, match=r"table\['text'\]"):
        neardup.find_duplicates(pa.table({"text": TEXTS}))


def test_polars_series():
    pl = pytest.importorskip("polars")
    assert _labels(pl.Series("text", TEXTS)) == EXPECTED
    with pytest.raises(InputTypeError, match=r"texts\[1\] is null"):
        neardup.find_duplicates(pl.Series(["a b", None]))
    with pytest.raises(InputTypeError, match="whole DataFrame"):
        neardup.find_duplicates(pl.DataFrame({"text": TEXTS}))


def test_datasets_column_follows_shuffles_and_selects():
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_dict({"text": TEXTS})
    assert _labels(ds["text"]) == EXPECTED
    # A shuffled or selected dataset keeps an indices mapping over the same Arrow table:
    # the documents must be read in the dataset's order, not the table's.
    order = [4, 2, 0, 3, 1]
    picked = ds.select(order)
    assert list(picked["text"]) == [TEXTS[i] for i in order]
    assert _labels(picked["text"]) == _labels([TEXTS[i] for i in order])


def test_arrow_input_makes_no_str_objects():
    n = 200_000
    array = pa.array([f"document number {i} with a few words" for i in range(n)], pa.large_string())
    tracemalloc.start()
    try:
        core = as_core_texts(array)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert isinstance(core, tuple) and len(core[1]) == n + 1
    # One str per document would be ~70 bytes each (14 MB); the buffers are borrowed.
    assert peak < 1_000_000, peak
    assert np.shares_memory(core[0], np.frombuffer(array.buffers()[2], dtype=np.uint8))


def test_a_list_of_str_is_counted_in_one_core_pass():
    from neardup import _core
    from neardup.stores import MemoryStore

    class Text(str):
        pass

    texts = ["ab", "héllo", Text("xyz"), ""]
    assert _core.str_chars(texts) == sum(map(len, texts)) == 10
    assert _core.str_chars(["a", b"b"]) is None
    assert _core.str_chars([]) == 0
    # a list of str is taken as is; bytes items are decoded, and the sizes follow
    assert as_core_texts(texts) is texts
    assert as_core_texts(["a", b"bc"]) == ["a", "bc"]
    assert MemoryStore(["a", b"bc", "d\u00e9"]).text_size() == 5
