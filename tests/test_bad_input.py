"""The bad-input matrix: every bad input across the API, the CLI and the index, each with its
exact documented behaviour (docs/errors.md lists the same rows).

Rows live in ``tests/bad_input_<area>.py`` modules (``ROWS``); this module collects them.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest
from bad_input import Row

_HERE = Path(__file__).parent


def _all_rows() -> list[Row]:
    rows: list[Row] = []
    for info in sorted(pkgutil.iter_modules([str(_HERE)]), key=lambda m: m.name):
        if info.name.startswith("bad_input_"):
            rows.extend(importlib.import_module(info.name).ROWS)
    return rows


ROWS = _all_rows()


def test_matrix_is_large():
    assert len(ROWS) >= 20
    assert len({r.name for r in ROWS}) == len(ROWS), "row names must be unique"


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_bad_input(row: Row, tmp_path: Path) -> None:
    if row.raises is not None:
        with pytest.raises(row.raises, match=row.match or None) as info:
            row.call(tmp_path)
        from neardup.errors import NeardupError

        assert isinstance(info.value, NeardupError), "neardup's own exceptions only"
    else:
        result = row.call(tmp_path)
        assert row.check is None or row.check(result), f"{row.name}: got {result!r}"
