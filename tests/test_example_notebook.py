"""Every notebook in examples/ runs headless with a real kernel (nbclient, ipykernel) and no
cell ends in an error; the explain / groups / sweep notebook shows what it says it shows."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))


def _run(path: Path, where: Path) -> object:
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        timeout=180,
        kernel_name="python3",
        allow_errors=True,  # every error is collected and reported below
        resources={"metadata": {"path": str(where)}},
    )
    client.execute()
    return nb


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """Each notebook run once for the module's tests."""
    runs: dict[Path, object] = {}

    def run(path: Path) -> object:
        if path not in runs:
            runs[path] = _run(path, tmp_path_factory.mktemp(path.stem))
        return runs[path]

    return run


def _errors(nb: object) -> list[str]:
    found = []
    for number, cell in enumerate(nb.cells):  # type: ignore[attr-defined]
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                found.append(f"cell {number}: {out['ename']}: {out['evalue']}")
    return found


def test_there_is_a_notebook():
    assert [p.name for p in NOTEBOOKS] and "see_why.ipynb" in [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_without_error(path, executed):
    nb = executed(path)
    assert _errors(nb) == []
    assert all(c.get("execution_count") for c in nb.cells if c.cell_type == "code")


def test_see_why_shows_explanations_groups_and_sweep(executed):
    nb = executed(EXAMPLES / "see_why.ipynb")
    html = [
        out["data"]["text/html"]
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if "text/html" in out.get("data", {})
    ]
    assert sum("neardup-explain" in h and "<mark>" in h for h in html) == 2  # two matches
    assert any("duplicate groups" in h for h in html)
    assert any("threshold" in h and "removed" in h for h in html)  # the sweep's table
    images = [
        out
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if "image/png" in out.get("data", {})
    ]
    assert images  # the sweep plot
    text = "".join(out.get("text", "") for cell in nb.cells for out in cell.get("outputs", []))
    assert "[[" in text  # the terminal form of the explanation marks the shared runs
