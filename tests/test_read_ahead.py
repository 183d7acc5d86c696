"""Reading ahead (``stores.read_ahead``): on more than one thread a file store reads the next
batch while the engine works on the current one; the batches, their order and the errors
must be those of reading in turn."""

from __future__ import annotations

import json
import threading

import pytest

from neardup import io as ndio
from neardup.errors import InputError
from neardup.stores import FileStore, read_ahead


def test_items_come_in_order_and_the_next_is_read_while_the_caller_holds_one():
    asked = threading.Event()
    threads = set()

    def items():
        for i in range(5):
            threads.add(threading.get_ident())
            if i == 1:
                asked.set()  # item 1 is being read
            yield i

    got = []
    for item in read_ahead(items()):
        if item == 0:  # item 1 is read while item 0 is still being worked on
            assert asked.wait(timeout=20)
        got.append(item)
    assert got == [0, 1, 2, 3, 4]
    assert threading.get_ident() not in threads


def test_an_error_comes_after_every_item_before_it():
    def items():
        yield 0
        yield 1
        raise InputError("bad row 3")

    got = []
    with pytest.raises(InputError, match="bad row 3"):
        for item in read_ahead(items()):
            got.append(item)
    assert got == [0, 1]


def test_stopping_early_closes_the_items_once_the_read_in_flight_ends():
    closed = threading.Event()
    read = []

    def items():
        try:
            for i in range(100):
                read.append(i)
                yield i
        finally:
            closed.set()

    for item in read_ahead(items()):
        if item == 2:
            break
    assert closed.is_set()
    assert read == [0, 1, 2, 3]  # one item ahead, never more


def _write(path, n):
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            f.write(json.dumps({"id": f"d{i}", "text": f"document {i} " * (i % 7 + 1)}) + "\n")


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_a_file_store_on_two_threads_reads_what_one_thread_reads(tmp_path, fmt):
    path = tmp_path / "in.jsonl"
    _write(path, 1000)
    if fmt == "parquet":
        pq = pytest.importorskip("pyarrow.parquet")
        import pyarrow as pa

        ids, texts = ndio.read_texts(path)
        path = tmp_path / "in.parquet"
        pq.write_table(pa.table({"id": ids, "text": texts}), path)
    read = []
    for threads in (1, 2):
        store = FileStore(ndio.open_sources([str(path)], threads=threads), batch_size=97)
        assert store.read_ahead == (threads > 1)
        batches = list(store.batches("sign"))
        read.append(
            [(b.start, list(b.ids), list(b.texts.to_pylist())) for b in batches]
            + [store.sources[0].n_rows]
        )
        assert store.ids == [f"d{i}" for i in range(1000)]
    assert read[1] == read[0]


def test_a_bad_row_read_ahead_fails_where_it_fails_without(tmp_path):
    path = tmp_path / "in.jsonl"
    _write(path, 500)
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"id": "x", "text": 3}\n')
    seen = []
    for threads in (1, 2):
        store = FileStore(ndio.open_sources([str(path)], threads=threads), batch_size=64)
        starts = []
        with pytest.raises(InputError) as e:
            for b in store.batches("sign"):
                starts.append(b.start)
        seen.append((starts, str(e.value)))
    assert seen[1] == seen[0]
    assert "in.jsonl:501" in seen[0][1]
