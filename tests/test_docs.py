"""Every docstring example in the package runs and prints what it says.

The examples run in a temporary directory that holds the small files they name
(``corpus.jsonl``, ``a.jsonl``, ``docs/``, ``nondups.csv``, ...), with ``texts`` bound to 400
unrelated synthetic documents (as calibrate's module example builds them), so that the
file-reading and calibration examples run instead of being skipped.
"""

import doctest
import gzip
import importlib
import json
import pkgutil

import pytest

import neardup

MODULES = sorted(
    name
    for _, name, _ in pkgutil.walk_packages(neardup.__path__, prefix="neardup.")
    if not name.endswith("__main__")
)

# six documents: a near-duplicate pair (a, b), an exact duplicate pair once normalised (c, d)
# and two unrelated ones
ROWS = [
    {"id": "a", "text": "the quick brown fox jumps over the lazy dog near the river bank"},
    {"id": "b", "text": "the quick brown fox jumps over the lazy dog near the river bank today"},
    {"id": "c", "text": "a stitch in time saves nine and a penny saved is a penny earned"},
    {"id": "d", "text": "a stitch in time saves nine and a penny saved is a penny earned."},
    {"id": "e", "text": "completely different words about sailing boats on a windy lake"},
    {"id": "f", "text": "nothing in common with the others except being a short sentence"},
]


def _write_sample_files(where):
    lines = "".join(json.dumps(row) + "\n" for row in ROWS)
    (where / "corpus.jsonl").write_text(lines)
    (where / "a.jsonl").write_text(lines)
    (where / "b.jsonl").write_text(lines)
    with gzip.open(where / "b.jsonl.gz", "wt") as f:
        f.write(lines)
    (where / "docs").mkdir()
    for row in ROWS:
        (where / "docs" / f"{row['id']}.txt").write_text(row["text"])
    (where / "nondups.csv").write_text("id_a,id_b\na,b\nc,d\n")
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return
    table = pa.table({"id": [r["id"] for r in ROWS], "content": [r["text"] for r in ROWS]})
    pq.write_table(table, where / "corpus.parquet")


@pytest.fixture
def sample_dir(tmp_path):
    _write_sample_files(tmp_path)  # afresh for each module: examples write files too
    return tmp_path


@pytest.fixture(scope="module")
def doc_texts():
    # unrelated documents, as calibration examples want (the module example builds the same)
    return neardup.synth.generate(bases=0, singles=400).texts


@pytest.mark.parametrize("name", ["neardup", *MODULES])
def test_docstring_examples(name, sample_dir, doc_texts, monkeypatch):
    module = importlib.import_module(name)
    monkeypatch.chdir(sample_dir)
    result = doctest.testmod(
        module,
        extraglobs={"texts": doc_texts},
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
