"""A run that writes kept rows from small Parquet inputs decodes them once (``hold_decoded``):
the same rows come out as when every pass decodes the files, and the files are read once."""

from __future__ import annotations

import numpy as np
import pytest

import neardup
from neardup.dedup import dedup_files
from neardup.io import source

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _corpus(path, n_parts=1):
    texts = list(neardup.synth.generate(bases=20, singles=40, seed=11).texts)
    rows = {"id": [f"d{i}" for i in range(len(texts))], "text": texts, "n": list(range(len(texts)))}
    tbl = pa.table(rows).replace_schema_metadata({"origin": "test"})
    paths = []
    for part in range(n_parts):
        p = path / f"in{part}.parquet"
        pq.write_table(tbl.slice(part * len(texts) // n_parts), p, row_group_size=37)
        paths.append(p)
    return paths


def _count_reads(monkeypatch):
    reads = []
    real = pq.ParquetFile.iter_batches

    def counting(self, *args, **kwargs):
        reads.append(kwargs.get("columns"))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", counting)
    return reads


@pytest.mark.parametrize("n_parts", [1, 2])
@pytest.mark.parametrize("verify", ["exact", "estimate"])
def test_held_rows_give_the_rows_of_two_reads(tmp_path, monkeypatch, n_parts, verify):
    inputs = _corpus(tmp_path, n_parts)
    reads = _count_reads(monkeypatch)
    held_out = tmp_path / "held.parquet"
    dedup_files(inputs, output=held_out, threshold=0.5, batch_size=50, verify=verify)
    assert len(reads) == n_parts and reads == [None] * n_parts  # one pass, every column
    monkeypatch.setattr(source, "HOLD_DECODED_BYTES", 0)
    reads.clear()
    read_out = tmp_path / "read.parquet"
    dedup_files(inputs, output=read_out, threshold=0.5, batch_size=50, verify=verify)
    assert len(reads) == 2 * n_parts  # the sign pass (text and id) and the write pass
    held, read = pq.read_table(held_out), pq.read_table(read_out)
    assert held.schema.equals(read.schema, check_metadata=True)
    assert held.to_pylist() == read.to_pylist()
    assert 0 < held.num_rows < sum(pq.read_metadata(p).num_rows for p in inputs)


def test_hold_needs_the_budget_and_parquet(tmp_path):
    (p,) = _corpus(tmp_path)
    src = source.open_source(p)
    meta = pq.read_metadata(p)
    size = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    assert meta.num_row_groups > 1 and size > 0
    assert not source.hold_decoded([src], budget=size - 1) and not src.hold
    assert source.hold_decoded([src], budget=size) and src.hold
    jsonl = tmp_path / "a.jsonl"
    jsonl.write_text('{"text": "a b c"}\n')
    assert not source.hold_decoded([source.open_source(jsonl)])


def test_a_pass_stopped_early_holds_nothing(tmp_path):
    (p,) = _corpus(tmp_path)
    src = source.open_source(p)
    src.hold = True
    first = next(iter(src.batches(50)))
    assert len(first) == 50 and src.held is None
    total = sum(len(b) for b in src.batches(50))
    assert src.held is not None and sum(rb.num_rows for rb in src.held) == total
    again = [b.texts.to_pylist() for b in src.batches(50)]
    assert sum(map(len, again)) == total
    np.testing.assert_array_equal(
        np.concatenate([np.asarray(t, dtype=object) for t in again]),
        np.asarray(pq.read_table(p).column("text").to_pylist(), dtype=object),
    )
