"""Annotated tables out: a :class:`~neardup.DuplicateResult`'s per-document columns joined
to the table the documents came from, as the same kind of table.

Supported tables: pandas and polars DataFrames, pyarrow Tables, Hugging Face
``datasets.Dataset``. The columns added are ``cluster`` (the lowest position of the
document's cluster), ``keep``, ``duplicate_of`` (the position of the kept document of its
cluster, -1 for kept documents), ``similarity`` (to that kept document; 1.0 for kept ones)
and ``reason`` (``kept``, ``exact``, ``normalized`` or ``near``: :mod:`neardup.groups`).

>>> import pandas as pd, neardup
>>> df = pd.DataFrame({"text": ["a b c d", "a b c d!", "x y z w"]})
>>> neardup.find_duplicates(df["text"], k=2).annotate(df)[["keep", "duplicate_of"]].values.tolist()
[[True, -1], [False, 0], [True, -1]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from neardup.errors import InputTypeError, InvalidArgumentError

COLUMNS = ("cluster", "keep", "duplicate_of", "similarity", "reason")


def annotation_columns(
    clusters: np.ndarray,
    keep: np.ndarray,
    representative: np.ndarray,
    similarity: np.ndarray,
    reason: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """The columns (:data:`COLUMNS`) that ``annotate`` and ``neardup dedup --annotate``
    add, from a run's labels, keep mask, kept document per row and similarity to it, and
    ``reason`` (:data:`neardup.groups.REASONS` values) when given.

    >>> cols = annotation_columns(np.array([0, 0]), np.array([True, False]), np.array([0, 0]),
    ...                           np.array([1.0, 0.5]))
    >>> cols["duplicate_of"].tolist()
    [-1, 0]
    """
    return {
        "cluster": clusters,
        "keep": keep,
        "duplicate_of": np.where(keep, -1, representative).astype(np.int64),
        "similarity": similarity,
        **({"reason": reason} if reason is not None else {}),
    }


def _kind(table: Any) -> str:
    module = type(table).__module__ or ""
    name = type(table).__name__
    if module.startswith("pandas") and name == "DataFrame":
        return "pandas"
    if module.startswith("polars") and name == "DataFrame":
        return "polars"
    if module.startswith("pyarrow") and name == "Table":
        return "arrow"
    if module.startswith("datasets") and name == "Dataset":
        return "datasets"
    raise InputTypeError(
        "annotate/filter take a pandas or polars DataFrame, a pyarrow Table or a datasets "
        f"Dataset, got {type(table).__name__}"
    )


def _rows(table: Any, kind: str) -> int:
    if kind == "arrow":
        return int(table.num_rows)
    return len(table)


def annotate(columns: dict[str, np.ndarray], table: Any) -> Any:
    """``table`` with ``columns`` (one value per row) added, as the same kind of table.

    Existing columns of the same names are refused rather than overwritten.

    >>> import pyarrow as pa
    >>> annotate({"keep": np.array([True, False])}, pa.table({"t": ["a", "b"]})).column_names
    ['t', 'keep']
    """
    kind = _kind(table)
    n = _rows(table, kind)
    names = list(table.column_names) if kind in ("arrow", "datasets") else list(table.columns)
    for name, values in columns.items():
        if len(values) != n:
            raise InvalidArgumentError(
                f"the table has {n} rows but the result covers {len(values)} documents"
            )
        if name in names:
            raise InvalidArgumentError(f"the table already has a column {name!r}")
    if kind == "pandas":
        return table.assign(**{name: values for name, values in columns.items()})
    if kind == "polars":
        import polars as pl

        return table.with_columns([pl.Series(name, v) for name, v in columns.items()])
    if kind == "arrow":
        for name, values in columns.items():
            table = table.append_column(name, _arrow(values))
        return table
    for name, values in columns.items():
        table = table.add_column(name, values.tolist())
    return table


def column_values(table: Any, name: str) -> Any:
    """The column ``name`` of ``table`` (for ``keep=COLUMN``), refused when missing.

    >>> import pyarrow as pa
    >>> column_values(pa.table({"score": [1, 2]}), "score").to_pylist()
    [1, 2]
    """
    kind = _kind(table)
    names = list(table.column_names) if kind in ("arrow", "datasets") else list(table.columns)
    if name not in names:
        shown = ", ".join(map(str, names[:8])) or "none"
        raise InvalidArgumentError(f"keep={name!r}: the table has no such column ({shown})")
    if kind == "arrow":
        return table.column(name)
    if kind == "datasets":
        return table.with_format("arrow")[name]  # the Arrow view follows indices and selects
    return table[name].to_numpy()


def _arrow(values: np.ndarray) -> Any:
    import pyarrow as pa

    return pa.array(values)


def filter_rows(keep: np.ndarray, table: Any) -> Any:
    """The rows of ``table`` where ``keep`` is true, as the same kind of table.

    >>> import pyarrow as pa
    >>> table = pa.table({"t": ["a", "b", "c"]})
    >>> filter_rows(np.array([True, False, True]), table)["t"].to_pylist()
    ['a', 'c']
    """
    kind = _kind(table)
    n = _rows(table, kind)
    if len(keep) != n:
        raise InvalidArgumentError(f"the table has {n} rows but the result covers {len(keep)}")
    if kind == "pandas":
        return table[keep]
    if kind == "polars":
        import polars as pl

        return table.filter(pl.Series(keep))
    if kind == "arrow":
        import pyarrow as pa

        return table.filter(pa.array(keep))
    return table.select(np.flatnonzero(keep).tolist())
