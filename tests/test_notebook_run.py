"""A small notebook executed as a user runs it (nbclient, a real kernel): DataFrame in, the
HTML table, the histogram, the annotated DataFrame out."""

from __future__ import annotations

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

CELLS = [
    """\
import matplotlib
matplotlib.use("Agg")
import pandas as pd
import neardup

corpus = neardup.synth.generate(bases=20, singles=40, seed=5)
df = pd.DataFrame({"id": range(len(corpus)), "text": corpus.texts})
result = neardup.find_duplicates(df["text"], threshold=0.5)
result""",
    "ax = result.plot(); type(ax).__name__",
    "print(result.num_removed, len(df) - int(result.keep.sum()))",
    "annotated = result.annotate(df); annotated[~annotated.keep].head(3)",
]


def _outputs(cell):
    return cell.get("outputs", [])


def test_notebook_runs_and_shows_results(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in CELLS]
    client = nbclient.NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    for cell in nb.cells:
        errors = [o for o in _outputs(cell) if o.get("output_type") == "error"]
        assert not errors, errors
    shown = _outputs(nb.cells[0])[0]["data"]
    assert "text/html" in shown and "<table" in shown["text/html"]
    assert "DuplicateResult(" in shown["text/plain"]
    assert "Axes" in _outputs(nb.cells[1])[0]["data"]["text/plain"]
    removed, counted = _outputs(nb.cells[2])[0]["text"].split()
    assert removed == counted and int(removed) > 0
    table = _outputs(nb.cells[3])[0]["data"]["text/html"]
    assert "duplicate_of" in table and "similarity" in table
