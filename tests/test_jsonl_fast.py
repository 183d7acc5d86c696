"""The JSONL fast path (rust/jsonl/mod.rs via neardup.io.jsonl) reads what the Python parser reads.

Every check compares the core's batches with the row-by-row parser (`JsonlReader._rows`, the
definition: `json.loads` per line) on the same file: texts, ids, positions and the first error,
whatever the buffer size (down to a few bytes, so lines straddle refills) and batch size.
"""

from __future__ import annotations

import gzip
import io
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup import io as ndio
from neardup.errors import InputError
from neardup.io import jsonl


def _fast(path, batch_size=3, **kw):
    src = ndio.open_source(path, **kw)
    texts, ids, starts = [], [], []
    for b in src.batches(batch_size):
        # the text field as the id: the row-by-row parser alone
        assert isinstance(b.texts, ndio.base.TextBuffer) == (src.id_field != src.text_field)
        texts += b.texts if isinstance(b.texts, list) else b.texts.to_pylist()
        ids += list(b.ids)
        starts.append(b.start)
    return texts, ids, src.n_rows


def _slow(path, **kw):
    src = ndio.open_source(path, **kw)
    rows = list(jsonl.READER._rows(src, 0))
    return [t for t, _ in rows], [i for _, i in rows], len(rows)


def _error(read, path, **kw):
    with pytest.raises(InputError) as e:
        read(path, **kw)
    return str(e.value)


TRICKY = [
    b'{"id": 1, "text": "plain"}\n',
    b'{"text": "esc \\" \\\\ \\/ \\b\\f\\n\\r\\t \\u00e9 \\ud83d\\ude00", "id": "s"}\n',
    '{"text": "raw UTF-8 é 😀 日本語", "id": [1, {"a": null}]}\n'.encode(),
    b'{"text": "nan elsewhere", "v": NaN, "w": -Infinity, "id": 2.5}\n',  # Python only
    b'{"text": "first", "text": "last wins", "id": 1, "id": {"k": [true, false]}}\n',
    b'{"te\\u0078t": "escaped key", "id": -0}\n',
    b'{"text": "big number", "n": 1e400, "id": 123456789012345678901234567890}\n',
    b'{"text": "deep", "d": ' + b"[" * 300 + b"]" * 300 + b"}\n",
    b'{"text": "lone surrogate elsewhere", "o": "\\ud800"}\n',
    b"   \r\n",
    b"\n",
    b'\t{"text": "spaces around", "id": null}  \r\n',
    b'{"text": ""}\n',
    b'{"text": "no final newline", "id": "z"}',
]


@pytest.mark.parametrize("block", [None, 7, 64, 1000])
@pytest.mark.parametrize("batch_size", [1, 2, 1000])
def test_tricky_lines_read_as_python_reads_them(tmp_path, monkeypatch, block, batch_size):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(TRICKY))
    if block:
        monkeypatch.setattr(jsonl, "BLOCK", block)
    fast = _fast(path, batch_size)
    assert fast == _slow(path)
    assert fast[0][1].endswith("\U0001f600") and fast[0][4] == "last wins"


@pytest.mark.parametrize("id_field", [None, "id", "text", "missing"])
def test_id_fields_agree(tmp_path, id_field):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(TRICKY))
    assert _fast(path, id_field=id_field) == _slow(path, id_field=id_field)


def test_gzip_and_a_line_longer_than_the_buffer(tmp_path, monkeypatch):
    rows = [{"id": i, "text": (f"word{i} ") * (50 * i + 1)} for i in range(20)]
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    path = tmp_path / "t.jsonl.gz"
    path.write_bytes(gzip.compress(data))
    monkeypatch.setattr(jsonl, "BLOCK", 100)  # most lines are longer: the buffer grows
    assert _fast(path, 4) == _slow(path) == ([r["text"] for r in rows], list(range(20)), 20)


BAD = [
    (b'{"text": "ok"}\n{"text": "\\ud800"}\n', r"t.jsonl:2: 'text' holds a lone surrogate"),
    (b'{"text": "ok"}\n\n{"text": "\xff"}\n', "t.jsonl:3: invalid UTF-8 at byte 10"),
    (b'{"text": 5}\n', "t.jsonl:1: 'text' is int, expected a string"),
    (b'{"text": null}\n', "t.jsonl:1: row without text"),
    (b'\n{"body": "x", "id": 1}\n', "t.jsonl:2: no field 'text' (fields: body, id)"),
    (b'{"text": "a"}\n[1]\n', "t.jsonl:2: expected a JSON object, got list"),
    (b'{"text": "a"} x\n', "t.jsonl:1: invalid JSON"),
    (b'{"text": "a\tb"}\n', "t.jsonl:1: invalid JSON"),
]


@pytest.mark.parametrize(("content", "message"), BAD)
@pytest.mark.parametrize("block", [None, 5])
def test_bad_lines_give_the_python_error(tmp_path, monkeypatch, content, message, block):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"text": "fine", "id": 0}\n' * 3 + content)
    if block:
        monkeypatch.setattr(jsonl, "BLOCK", block)
    fast, slow = _error(_fast, path), _error(_slow, path)
    line = int(message.split(":")[1]) + 3
    expected = message.replace(f"t.jsonl:{line - 3}:", f"t.jsonl:{line}:", 1)
    assert fast == slow and expected in fast


def test_id_required_names_the_first_row_without_one(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"text": "a", "id": 1}\n\n{"text": "b"}\n{"text": 3}\n')
    fast = _error(_fast, path, id_required=True)
    assert fast == _error(_slow, path, id_required=True)
    assert "t.jsonl:3: no field 'id'" in fast


def test_kept_lines_are_copied_byte_for_byte(tmp_path, monkeypatch):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(TRICKY))
    src = ndio.open_source(path)
    n = sum(len(b) for b in src.batches(5))
    rng = np.random.default_rng(0)
    for block in (None, 9):
        if block:
            monkeypatch.setattr(jsonl, "BLOCK", block)
        keep = rng.random(n) < 0.5
        sink = io.BytesIO()
        written = jsonl.READER.copy_kept(src, keep, sink)
        expected = b"".join(
            raw if raw.endswith(b"\n") else raw + b"\n"
            for _, raw in jsonl.READER.kept_lines(src, keep)
        )
        assert (sink.getvalue(), written) == (expected, int(keep.sum()))
        with pytest.raises(InputError, match="input changed while reading"):
            jsonl.READER.copy_kept(src, keep[:-1], io.BytesIO())
        with pytest.raises(InputError, match="input changed while reading"):
            jsonl.READER.copy_kept(src, np.append(keep, True), io.BytesIO())


_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=30)
_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=6,
)
_row = st.fixed_dictionaries({"text": _text}, optional={"id": _value, "x": _value})


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.lists(_row, max_size=12),
    ascii_only=st.booleans(),
    block=st.sampled_from([None, 3, 50]),
    batch_size=st.integers(1, 5),
)
def test_random_rows_agree(tmp_path, monkeypatch, rows, ascii_only, block, batch_size):
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=ascii_only) + "\n" for r in rows))
    monkeypatch.setattr(jsonl, "BLOCK", block or (1 << 24))
    assert _fast(path, batch_size) == _slow(path)


class _Short(io.BytesIO):
    """A sink that takes at most 5 bytes a write, as a pipe may."""

    def write(self, data):
        return super().write(bytes(data[:5]))


def test_kept_lines_survive_short_writes(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(TRICKY))
    src = ndio.open_source(path)
    n = sum(len(b) for b in src.batches(5))
    sink = _Short()
    jsonl.READER.copy_kept(src, np.ones(n, dtype=bool), sink)
    expected = b"".join(
        raw if raw.endswith(b"\n") else raw + b"\n" for _, raw in jsonl.READER.lines(src)
    )
    assert sink.getvalue() == expected


def _many_rows(tmp_path, bad=""):
    path = tmp_path / "many.jsonl"
    rows = [json.dumps({"id": i, "text": f"row {i} " + "é" * (i % 7)}) + "\n" for i in range(400)]
    path.write_text("".join(rows[:50]) + bad + "".join(rows[50:]), encoding="utf-8")
    return path


@pytest.mark.parametrize("threads", [1, 2])
def test_held_batches_keep_their_texts(tmp_path, monkeypatch, threads):
    # The texts are decoded into reused buffers: a batch still held when the next is read must
    # keep its texts (its buffer is not reused), and the core's texts equal the parser's.
    monkeypatch.setattr(jsonl, "BLOCK", 512)
    path = _many_rows(tmp_path, bad='{"text": 5}\n')
    with pytest.raises(InputError, match=r"many\.jsonl:51: 'text' is int"):
        list(ndio.open_source(path, threads=threads).batches(7))
    path = _many_rows(tmp_path, bad='{"text": "a \\" quote", "id": "x"}\n')  # an escape
    src = ndio.open_source(path, threads=threads)
    held = list(src.batches(7))
    assert len(held) > 20
    texts = [t for b in held for t in b.texts.to_pylist()]
    assert texts == _slow(path)[0]
    bases = {id(b.texts[0].base) for b in held}
    assert len(bases) == len(held)  # every held batch has its own buffer


def test_released_batches_reuse_the_buffers(tmp_path, monkeypatch):
    path = _many_rows(tmp_path)
    monkeypatch.setattr(jsonl, "BLOCK", 512)
    src = ndio.open_source(path)
    bases, texts = set(), []
    for b in src.batches(7):  # each batch let go before the next but one is read
        bases.add(id(b.texts[0].base if b.texts[0].base is not None else b.texts[0]))
        texts += b.texts.to_pylist()
    assert texts == _slow(path)[0]
    assert len(bases) <= jsonl._TextPool.SIZE


def test_text_pool_hands_out_only_free_buffers():
    pool = jsonl._TextPool()
    view = memoryview(pool.get(100)[10:20])  # a buffer held through a memoryview of a view
    first = id(pool.buffers[0])
    held = pool.get(100)[:5]
    assert len(pool.buffers) == 2 and id(pool.buffers[1]) != first
    del view
    assert id(pool.get(50)) == first  # free again, and big enough
    bigger = pool.get(1000)  # the free one outgrown: replaced in the pool
    assert len(bigger) == 1000 and pool.buffers[0] is bigger and len(pool.buffers) == 2
    assert held.base is pool.buffers[1]
