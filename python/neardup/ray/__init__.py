"""Near-duplicate detection on a Ray cluster (Ray Data), with the single-machine answer.

``pip install 'neardup[ray]'``. :func:`find_duplicates` takes a ``ray.data.Dataset`` and
returns one with a row per input row: ``id``, ``position`` (input position), ``cluster`` (the
canonical document's id), ``keep``, ``duplicate_of`` (canonical id, null when kept),
``similarity`` (to the canonical document, null when kept), ``exact_duplicate``
(identical shingle set) and ``reason`` (the local :attr:`neardup.DuplicateResult.reason`:
``kept``, ``exact``, ``normalized`` or ``near``). :func:`dedup` returns only the kept rows,
with the input's columns.

The options are those of :func:`neardup.find_duplicates`, validated by the same
:func:`neardup.make_plan`; the stages are the same functions, run per partition. The result
equals ``neardup.find_duplicates(texts, method="minhash", pairs="all", ...)`` (with
``method="simhash"``, the local SimHash run's, by the same search): a document is removed
exactly when its cluster there has a lower position, whatever the partitioning.

>>> import ray, neardup.ray                                       # doctest: +SKIP
>>> ds = ray.data.read_parquet("s3://bucket/corpus/")             # doctest: +SKIP
>>> neardup.ray.dedup(ds, threshold=0.5).write_parquet("s3://bucket/kept/")  # doctest: +SKIP
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from neardup.errors import InvalidArgumentError, NeardupError
from neardup.plan import Plan, make_plan
from neardup.ray._lazy import LazyRemote

__all__ = ["RayNotInstalledError", "check_options", "dedup", "find_duplicates", "ray_plan"]


class RayNotInstalledError(NeardupError, ImportError):
    """Ray (``ray[data]``) is not installed: ``pip install 'neardup[ray]'``.

    >>> issubclass(RayNotInstalledError, ImportError)
    True
    """


def require_ray() -> Any:
    """The ``ray`` module, or :class:`RayNotInstalledError` with the command that installs it.

    >>> require_ray().__name__                                      # doctest: +SKIP
    'ray'
    """
    try:
        import ray
        import ray.data
    except ImportError as e:
        raise RayNotInstalledError(
            "the Ray engine needs Ray Data: pip install 'neardup[ray]' (or 'ray[data]')"
        ) from e
    return ray


def check_options(**options: Any) -> Plan:
    """The unresolved plan of a Ray run, with every option the Ray engine cannot run refused
    by name: what :func:`ray_plan` checks that does not need the corpus size. Called before
    Ray starts or any input is read (``neardup dedup --engine ray`` exits 2 at once).

    >>> check_options(keep="longest")
    Traceback (most recent call last):
    ...
    neardup.errors.InvalidArgumentError: the Ray engine supports keep='first' only, got 'longest'
    """
    options.setdefault("method", "minhash")
    if options.get("pairs", "auto") == "auto":  # the Ray engine always verifies all pairs
        options["pairs"] = "all"
    plan = make_plan(**options)
    if plan.method not in ("auto", "minhash", "simhash"):
        raise InvalidArgumentError(
            f"the Ray engine runs method='minhash' or 'simhash', not {plan.method!r}"
        )
    if plan.method == "simhash" and plan.within:
        raise InvalidArgumentError(
            "the Ray engine does not run method='simhash' within partitions (within=): "
            "use method='minhash', or the local engine"
        )
    for name, value, supported in (
        ("pairs", plan.pairs, "all"),
        ("keep", plan.keep, "first"),
    ):
        if value != supported:
            raise InvalidArgumentError(
                f"the Ray engine supports {name}={supported!r} only, got {value!r}"
            )
    if plan.strip_boilerplate is not None:
        raise InvalidArgumentError("the Ray engine does not strip boilerplate (strip_boilerplate)")
    return plan


def ray_plan(n: int, **options: Any) -> Plan:
    """The resolved plan of a Ray run over ``n`` documents (MinHash + LSH, or SimHash; all
    pairs verified).

    Every option is checked by :func:`neardup.make_plan`; what the Ray engine does not run is
    refused here, by name, before any task starts (:func:`check_options`).

    >>> plan = ray_plan(20_000, threshold=0.5)
    >>> plan.method, plan.bands, plan.rows, plan.pairs
    ('minhash', 42, 3, 'all')
    >>> ray_plan(100, method="simhash", threshold=0.9).max_hamming
    6
    >>> try:
    ...     ray_plan(100, method="exact-jaccard")
    ... except InvalidArgumentError as e:
    ...     print(e)
    the Ray engine runs method='minhash' or 'simhash', not 'exact-jaccard'
    """
    plan = check_options(**options).resolve(n)
    if plan.method not in ("minhash", "simhash"):
        hint = (
            " (method='auto' picks exact-jaccard up to "
            f"{plan.auto_exact_limit:,} documents: use the local engine for those)"
            if plan.requested_method == "auto"
            else ""
        )
        raise InvalidArgumentError(
            f"the Ray engine runs method='minhash' or 'simhash', not {plan.method!r}{hint}"
        )
    return plan


def _blocks(
    ray: Any, dataset: Any, columns: Sequence[str], path_column: str | None, max_rows: int
) -> tuple[list[Any], list[int], list[list[tuple[int, str, int]]], dict[str, int]]:
    """The dataset's Arrow blocks in input order (object refs), their row counts, where
    each block's rows come from (first row in block, file, first row's index in the file),
    and the rows of each file."""
    selected = dataset.select_columns(list(columns))
    # Positions are input order, so the blocks must come out in it: the dataset carries its
    # own copy of the execution options (taken when it was made), so set it on a deep copy.
    ordered = type(selected).copy(selected, _deep_copy=True)
    ordered._context.execution_options.preserve_order = True
    refs = list(ordered.to_arrow_refs())
    shapes = ray.get([_shape.remote(r, path_column) for r in refs]) if refs else []
    if any(n > max_rows for n, _ in shapes):  # readers may give few large blocks: cut them
        cut: list[Any] = []
        for ref, (n, _) in zip(refs, shapes, strict=True):
            pieces = -(-n // max_rows) if n > max_rows else 1
            out = _slices.options(num_returns=pieces).remote(ref, pieces) if pieces > 1 else ref
            cut += list(out) if pieces > 1 else [out]
        refs = cut
        shapes = ray.get([_shape.remote(r, path_column) for r in refs])
    seen: dict[str, int] = {}
    where = []
    for _, runs in shapes:
        block = []
        for first, length, path in runs:
            block.append((first, path, seen.get(path, 0)))
            seen[path] = seen.get(path, 0) + length
        where.append(block)
    return refs, [n for n, _ in shapes], where, seen


def _shape_fn(table: Any, path_column: str | None) -> tuple[int, list[tuple[int, int, str]]]:
    """Rows of a block and its runs of rows from one file: (first row, length, file)."""
    if path_column is None or table.num_rows == 0:
        return table.num_rows, []
    import numpy as np

    encoded = table.column(path_column).combine_chunks().dictionary_encode()
    index = encoded.indices.to_numpy(zero_copy_only=False)
    names = encoded.dictionary.to_pylist()
    firsts = np.flatnonzero(np.r_[True, index[1:] != index[:-1]])
    lengths = np.diff(np.r_[firsts, len(index)])
    runs = [
        (int(f), int(n), str(names[index[f]]))
        for f, n in zip(firsts.tolist(), lengths.tolist(), strict=True)
    ]
    return table.num_rows, runs


def _slices_fn(table: Any, pieces: int) -> tuple[Any, ...]:
    """A block cut into ``pieces`` contiguous slices of (nearly) equal size."""
    import numpy as np

    bounds = np.linspace(0, table.num_rows, pieces + 1).astype(int).tolist()
    return tuple(table.slice(a, b - a) for a, b in itertools.pairwise(bounds))


_shape = LazyRemote(_shape_fn)
_slices = LazyRemote(_slices_fn)

#: Rows per partition at most: larger blocks are cut (memory per task follows it).
MAX_PARTITION_ROWS = 20_000


def run_dataset(
    dataset: Any,
    *,
    text_column: str = "text",
    id_column: str | None = None,
    kept_rows_only: bool = False,
    path_column: str | None = None,
    driver_edge_limit: int | None = None,
    shuffle_partitions: int | None = None,
    max_partition_rows: int = MAX_PARTITION_ROWS,
    within_column: str | None = None,
    unit_column: str | None = None,
    key_names: tuple[str, str] | None = None,
    **options: Any,
) -> Any:
    """Runs the plan over a dataset; returns (``RayRun``, plan). Used by the API and the CLI.

    ``path_column`` (the file each row was read from, as Ray Data's ``include_paths=True``
    adds it) lets input errors name the file and row. ``within_column``: only rows with the
    same value there are compared (``within=``, as the local engine). ``unit_column``: rows with
    the same value there are one unit (``unit_of=``, :mod:`neardup.ray._units`); ``key_names``
    names the unit and within keys in errors (by default ``unit_of``, ``within``, as the API).
    """
    if within_column is not None:
        options["within"] = True
    if unit_column is not None:
        options["unit_of"] = True
    ray = require_ray()
    from neardup.ray import _engine
    from neardup.ray._components import DRIVER_EDGE_LIMIT

    requested = check_options(**options)  # fail early, before any task
    names = list(dataset.schema().names)
    for column in (text_column, id_column, within_column, unit_column):
        if column is not None and column not in names:
            raise InvalidArgumentError(
                f"the dataset has no column {column!r} (columns: {', '.join(names[:8])})"
            )
    wanted = (text_column, id_column, path_column, within_column, unit_column)
    columns = names if kept_rows_only else [c for c in wanted if c]
    blocks, sizes, where, rows_per_file = _blocks(
        ray, dataset, list(dict.fromkeys(columns)), path_column, max_partition_rows
    )
    edge_limit = DRIVER_EDGE_LIMIT if driver_edge_limit is None else driver_edge_limit
    try:
        if unit_column is not None and int(sum(sizes)) > 0:
            result = _run_units(
                ray, blocks, sizes, where, requested, options,
                (text_column, id_column, unit_column, within_column),
                key_names or ("unit_of", "within"), kept_rows_only, edge_limit,
                shuffle_partitions,
            )  # fmt: skip
            result.rows_per_file = rows_per_file
            return result, result.plan
        plan = ray_plan(int(sum(sizes)), **options)
        result = _engine.run(
            ray,
            blocks,
            sizes,
            where,
            plan,
            text_column,
            id_column,
            kept_rows_only,
            driver_edge_limit=edge_limit,
            shuffle_partitions=shuffle_partitions,
            requested=requested,
            within_column=within_column,
        )
    except ray.exceptions.RayTaskError as e:
        cause = getattr(e, "cause", None)
        if isinstance(cause, NeardupError):
            raise cause from None
        raise
    result.rows_per_file = rows_per_file
    return result, result.plan


def _run_units(
    ray: Any,
    blocks: list[Any],
    sizes: list[int],
    where: list[Any],
    requested: Plan,
    options: dict[str, Any],
    columns: tuple[str, str | None, str, str | None],
    key_names: tuple[str, str],
    kept_rows_only: bool,
    driver_edge_limit: int,
    shuffle_partitions: int | None,
) -> Any:
    """:func:`run_dataset` with units of rows (:mod:`neardup.ray._units`): the units run,
    then every row given its unit's decision. ``tables`` and ``members`` are the rows',
    ``documents`` counts rows; the rows of exact-copy and empty units are counted by the
    members (``copies``, ``empty``)."""
    import numpy as np

    from neardup.ray import _engine, _units

    text_column, id_column, _, within_column = columns
    starts = np.r_[0, np.cumsum(np.asarray(sizes, dtype=np.int64))][:-1].astype(np.int64)
    cpus = int(ray.cluster_resources().get("CPU", 1))
    wanted = max(2 * cpus, -(-int(sum(sizes)) // _engine.BUCKET_PARTITION_DOCUMENTS))
    parts = shuffle_partitions or max(1, min(len(blocks), wanted))
    ublocks, usizes = _units.unit_blocks(ray, blocks, starts, where, columns, key_names, parts)
    plan = ray_plan(int(sum(usizes)), **options)
    run = _engine.run(
        ray,
        ublocks,
        usizes,
        [[] for _ in ublocks],  # texts were checked by row, naming the file and row
        plan,
        text_column,
        _units.UNIT_ID if id_column is not None else _units.FIRST,
        False,
        driver_edge_limit=driver_edge_limit,
        shuffle_partitions=shuffle_partitions,
        requested=requested,
        within_column=_units.SALT if within_column is not None else None,
    )
    run.tables, run.members = _units.expand(
        ray, blocks, starts, ublocks, usizes, run, id_column, kept_rows_only
    )
    run.info.update(units=run.documents, rows=int(sum(sizes)))
    run.documents = int(sum(sizes))
    run.units = True
    return run


def find_duplicates(
    dataset: Any,
    text_column: str = "text",
    id_column: str | None = None,
    *,
    within: str | None = None,
    unit_of: str | None = None,
    **options: Any,
) -> Any:
    """A ``ray.data.Dataset`` with, per input row, its cluster, whether it is kept, and its
    similarity to the kept document. ``options`` are :func:`neardup.find_duplicates`'s
    (``threshold``, ``num_perm``, ``k``, ``unit``, ``bands``, ``rows``, ``seed``,
    ``verify``, ``algorithm``, ``bucket_limit``: LSH buckets are grouped as the local engine
    groups them); ``method`` is ``"minhash"`` or ``"simhash"`` (``max_hamming``,
    ``simhash_bits``: the local engine's search, :mod:`neardup.ray._simhash`). ``within``
    names a column: only rows with the same value there are compared (the local
    ``within=``; MinHash only). ``unit_of`` names a column: rows
    with the same value there are one document, their texts joined in row order (the local
    ``unit_of=``), and every row carries its unit's decision.

    >>> ds = ray.data.from_items([{"text": "a b c d e"}, {"text": "a b c d e!"}])  # doctest: +SKIP
    >>> find_duplicates(ds, k=2).to_pandas()["keep"].tolist()       # doctest: +SKIP
    [True, False]
    """
    ray = require_ray()
    result, _ = run_dataset(
        dataset,
        text_column=text_column,
        id_column=id_column,
        within_column=within,
        unit_column=unit_of,
        **options,
    )
    return ray.data.from_arrow_refs(result.tables)


def dedup(
    dataset: Any,
    text_column: str = "text",
    id_column: str | None = None,
    *,
    within: str | None = None,
    unit_of: str | None = None,
    **options: Any,
) -> Any:
    """Only the kept rows of ``dataset`` (all its columns, input order): one per cluster
    (``within`` and ``unit_of`` name columns, as in :func:`find_duplicates`: with units,
    every row of a kept unit is kept).

    >>> ds = ray.data.from_items([{"text": "a b c d e"}, {"text": "a b c d e!"}])  # doctest: +SKIP
    >>> dedup(ds, k=2).count()                                      # doctest: +SKIP
    1
    """
    ray = require_ray()
    result, _ = run_dataset(
        dataset,
        text_column=text_column,
        id_column=id_column,
        kept_rows_only=True,
        within_column=within,
        unit_column=unit_of,
        **options,
    )
    return ray.data.from_arrow_refs(result.tables)
