"""Units of many rows on Ray (``unit_of=``, ``--unit-key``): the local engine's units.

Rows sharing a key are one document, whose text is the rows' texts in row order joined by
:data:`neardup.units.UNIT_SEPARATOR` (:meth:`neardup.units.Units.join`, here as one Arrow
``binary_join`` per partition). Units are numbered by their first row, as the local engine
numbers them (:meth:`neardup.units.Units.from_keys`), so ``keep="first"`` keeps the unit
that starts first and clusters name units by their first row. Every step is a Ray task over
one partition, each row and unit moved once (linear; the driver holds one scalar per task)::

    row block ─key hash (check_keys, as locally), split by hash─> key partition: sorted by
        (key, row), each unit joined; its first row, rows, id (first, first row's id) and
        partition key, split by the input block of the first row ─> unit block (sorted by
        first row: unit u is the local unit u) ─the Ray run (_engine.run)─> unit decisions
        ─given to each of the unit's rows, split by the row's block─> row output (input order)

A unit whose rows have different ``within`` keys is refused with the local message (the
lowest such row over every partition, as locally); null texts and keys are refused with
the local errors, naming the input position (or file and row).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from neardup.ray import _steps
from neardup.ray._engine import _list
from neardup.ray._lazy import LazyRemote

#: Columns the unit blocks and the shuffles carry (besides the text column).
ROW = "__neardup_row"  # a row's input position
KEY = "__neardup_unit"  # a row's key hash
FIRST = "__neardup_first"  # a unit's first row
ROWS = "__neardup_rows"  # a unit's rows (positions, in order)
UNIT_ID = "__neardup_unit_id"  # a unit's id: {first: its first row, id: that row's id}
SALT = "__neardup_within"  # a unit's partition key (within=), its first row's value
SALT_HASH = "__neardup_within_hash"  # a row's partition key hash (check_keys)

#: The decision columns a row takes from its unit.
DECISION = ("cluster", "keep", "duplicate_of", "similarity", "exact_duplicate", "reason")


def key_hashes(name: str, values: list[Any], start: int) -> np.ndarray:
    """:func:`neardup._validate.check_keys` of a block's keys, its errors naming the input
    position (``name[start + i]``), as the local engine names the row.

    >>> key_hashes("unit_of", ["a", None], 10)
    Traceback (most recent call last):
    ...
    neardup.errors.InvalidArgumentError: unit_of[11] is None: every row needs a key
    """
    from neardup._validate import check_keys
    from neardup.errors import NeardupError

    try:
        return check_keys(name, values, len(values))
    except NeardupError as e:
        text, prefix = str(e), f"{name}["
        if not text.startswith(prefix) or "]" not in text:
            raise
        index, rest = text[len(prefix) :].split("]", 1)
        if not index.isdigit():
            raise
        raise type(e)(f"{prefix}{start + int(index)}]{rest}") from None


def _keyed_fn(
    table: Any,
    start: int,
    where: Sequence[tuple[int, str, int]],
    columns: tuple[str, str | None, str, str | None],
    names: tuple[str, str],
    parts: int,
) -> Any:
    """A row block's rows split by their key's hash into ``parts`` tables: text, position,
    key hash, id and partition key (and its hash). Null texts and keys are refused here."""
    import pyarrow as pa

    text_column, id_column, unit_column, within_column = columns
    texts = _steps.check_texts(table.column(text_column), start, where, text_column)
    hashes = key_hashes(names[0], table.column(unit_column).to_pylist(), start)
    out = {
        text_column: texts,
        ROW: pa.array(np.arange(start, start + table.num_rows, dtype=np.int64)),
        KEY: pa.array(hashes),
    }
    if id_column is not None:
        out[UNIT_ID] = table.column(id_column)
    if within_column is not None:
        salts = key_hashes(names[1], table.column(within_column).to_pylist(), start)
        out[SALT], out[SALT_HASH] = table.column(within_column), pa.array(salts)
    keyed = pa.table(out)
    split = _steps.split_by(_steps.hash_partition(hashes, parts), parts, np.arange(len(hashes)))
    pieces = [keyed.take(pa.array(rows, pa.int64())) for (rows,) in split]
    return pieces[0] if parts == 1 else tuple(pieces)


def _join_fn(text_column: str, starts: np.ndarray, *pieces: Any) -> Any:
    """A key partition's units: rows sorted by (key, row), each unit's texts joined with the
    local separator; split by the block of each unit's first row. The last return is the
    lowest (first row, row) of a unit whose rows are in two ``within`` partitions, or None."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from neardup.units import UNIT_SEPARATOR

    table = pa.concat_tables(pieces, promote_options="permissive")
    key = table.column(KEY).to_numpy()
    row = table.column(ROW).to_numpy()
    order = np.lexsort((row, key))
    table, key, row = table.take(pa.array(order, pa.int64())), key[order], row[order]
    new = np.r_[True, key[1:] != key[:-1]][: len(key)]  # a unit starts (none when empty)
    heads, of = np.flatnonzero(new), np.cumsum(new) - 1  # each unit's first, each row's unit
    offsets = pa.array(np.r_[heads, len(key)].astype(np.int32))
    first = row[heads]
    # 64-bit offsets: a partition's joined units may pass 2 GiB (and string_view joins none)
    texts = table.column(text_column).combine_chunks().cast(pa.large_string())
    separator = pa.scalar(UNIT_SEPARATOR, pa.large_string())
    heads_ref = pa.array(heads.astype(np.int64))
    units = {
        text_column: pc.binary_join(pa.ListArray.from_arrays(offsets, texts), separator),
        FIRST: pa.array(first, pa.int64()),
        ROWS: pa.ListArray.from_arrays(offsets, pa.array(row, pa.int64())),
    }
    odd = None
    if UNIT_ID in table.column_names:
        ids = table.column(UNIT_ID).combine_chunks().take(heads_ref)
        units[UNIT_ID] = pa.StructArray.from_arrays([units[FIRST], ids], names=["first", "id"])
    if SALT in table.column_names:
        salts = table.column(SALT_HASH).to_numpy()
        bad = np.flatnonzero(salts != salts[heads][of])
        if len(bad):
            at = bad[np.argmin(row[bad])]
            odd = (int(first[of[at]]), int(row[at]))
        units[SALT] = table.column(SALT).combine_chunks().take(heads_ref)
    out = pa.table(units)
    split = _steps.split_by(_steps.partition_of(first, starts), len(starts), np.arange(len(first)))
    return (*[out.take(pa.array(u, pa.int64())) for (u,) in split], odd)


def _unit_block_fn(*pieces: Any) -> tuple[Any, int]:
    """A unit block: the units whose first row is in one row block, sorted by first row."""
    import pyarrow as pa

    table = pa.concat_tables(pieces, promote_options="permissive").sort_by(FIRST)
    return table.combine_chunks(), table.num_rows


def _copies_fn(exact: np.ndarray, starts: np.ndarray) -> Any:
    """A bucket partition's exact links' copies (units whose set an earlier unit has), split
    by unit block."""
    copies = exact[:, 1]
    split = _steps.split_by(_steps.partition_of(copies, starts), len(starts), copies)
    return split[0][0] if len(starts) == 1 else tuple(s[0] for s in split)


def _explode_fn(
    units: Any, decided: Any, members: dict[str, Any], starts: np.ndarray, *copies: np.ndarray
) -> Any:
    """A unit block's decisions given to each of its units' rows, split by the rows' input
    blocks; ``copy`` marks the rows of units whose shingle set an earlier unit has (the
    local engine's exact duplicates, counted in rows), ``empty`` those of units without
    shingles."""
    import pyarrow as pa
    import pyarrow.compute as pc

    lists = units.column(ROWS).combine_chunks()
    rows = lists.flatten().to_numpy()
    unit = pa.array(pc.list_parent_indices(lists).to_numpy().astype(np.int64))
    numbers = decided.column("position").to_numpy()[unit.to_numpy()]  # the units' positions
    table = decided.select(list(DECISION)).take(unit)
    table = table.append_column(FIRST, units.column(FIRST).take(unit))
    table = table.append_column(ROW, pa.array(rows, pa.int64()))
    copied = np.concatenate([np.zeros(0, np.int64), *copies])
    table = table.append_column("copy", pa.array(np.isin(numbers, copied)))
    table = table.append_column("empty", pa.array(np.isin(numbers, members["empty"])))
    n = len(starts)
    parts = _steps.split_by(_steps.partition_of(rows, starts), n, np.arange(len(rows)))
    out = [table.take(pa.array(p, pa.int64())) for (p,) in parts]
    return out[0] if n == 1 else tuple(out)


def _rows_fn(
    table: Any, start: int, id_column: str | None, kept_only: bool, *parts: Any
) -> tuple[Any, dict[str, Any]]:
    """A row block's output, its rows' decisions in input order (or its kept rows), and its
    members as the CLI reads them: removed rows with their cluster's first row, similarity,
    exact flag and reason; the kept rows after the first of their unit; the counts of rows
    of exact-copy units and of empty units."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from neardup.groups import REASONS

    decided = pa.concat_tables(parts).combine_chunks()
    if decided.num_rows != table.num_rows:  # every row is in exactly one unit
        raise RuntimeError(f"rows from {start}: {decided.num_rows} decisions for {table.num_rows}")
    order = np.empty(table.num_rows, dtype=np.int64)
    order[decided.column(ROW).to_numpy() - start] = np.arange(table.num_rows)
    decided = decided.take(pa.array(order))
    keep = decided.column("keep").to_numpy(zero_copy_only=False)
    cluster = decided.column("cluster").combine_chunks()
    duplicate_of = decided.column("duplicate_of").combine_chunks()
    if id_column is not None:  # unit ids are {first row, first row's id}
        roots = cluster.field("first").to_numpy(zero_copy_only=False)
        cluster, duplicate_of = cluster.field("id"), pc.struct_field(duplicate_of, "id")
    else:
        roots = cluster.to_numpy(zero_copy_only=False)
    positions = np.arange(start, start + table.num_rows, dtype=np.int64)
    first = decided.column(FIRST).to_numpy()
    gone = np.flatnonzero(~keep)
    stay = np.flatnonzero(keep & (first != positions))
    codes = pc.index_in(decided.column("reason"), value_set=pa.array(list(REASONS)))
    flags = {name: decided.column(name).to_numpy(zero_copy_only=False) for name in DECISION[3:5]}
    members = {
        "position": positions[gone],
        "root": roots[gone].astype(np.int64),
        "similarity": flags["similarity"][gone],
        "exact": flags["exact_duplicate"][gone],
        "reason": codes.to_numpy(zero_copy_only=False)[gone].astype(np.int8),
        "kept_position": positions[stay],
        "kept_first": first[stay],
        "copies": int(decided.column("copy").to_numpy(zero_copy_only=False).sum()),
        "empty": int(decided.column("empty").to_numpy(zero_copy_only=False).sum()),
    }
    if kept_only:
        return table.filter(pa.array(keep)), members
    ids = table.column(id_column) if id_column is not None else pa.array(positions)
    columns = {"id": ids, "position": pa.array(positions), "cluster": cluster}
    columns.update(keep=decided.column("keep"), duplicate_of=duplicate_of)
    for name in DECISION[3:]:
        columns[name] = decided.column(name)
    return pa.table(columns), members  # the columns of _engine._output_block, in its order


_keyed = LazyRemote(_keyed_fn)
_join = LazyRemote(_join_fn)
_unit_block = LazyRemote(_unit_block_fn)
_copies = LazyRemote(_copies_fn)
_explode = LazyRemote(_explode_fn)
_rows = LazyRemote(_rows_fn)


def unit_blocks(
    ray: Any,
    blocks: Sequence[Any],
    starts: np.ndarray,
    where: Sequence[Any],
    columns: tuple[str, str | None, str, str | None],
    names: tuple[str, str],
    parts: int,
) -> tuple[list[Any], list[int]]:
    """The unit blocks (refs, sorted by first row: unit ``u`` is the local engine's) and
    their sizes, empty blocks left out. ``columns``: text, id, unit and within columns;
    ``names``: the unit and within keys' names in errors (``unit_of``, ``within``)."""
    from neardup.errors import InvalidArgumentError

    n = len(blocks)
    keyed = [
        _list(_keyed.options(num_returns=parts).remote(b, s, list(w), columns, names, parts), parts)
        for b, s, w in zip(blocks, starts.tolist(), where, strict=True)
    ]
    joined = [
        _join.options(num_returns=n + 1).remote(columns[0], starts, *[k[p] for k in keyed])
        for p in range(parts)
    ]
    odd = [o for o in ray.get([j[n] for j in joined]) if o is not None]
    if odd:
        first, row = min(odd, key=lambda x: x[1])
        raise InvalidArgumentError(
            f"rows {first} and {row} are one unit but in two partitions (within)"
        )
    made = [_unit_block.options(num_returns=2).remote(*[j[b] for j in joined]) for b in range(n)]
    sizes = ray.get([m[1] for m in made])
    kept = [b for b in range(n) if sizes[b]]
    return [made[b][0] for b in kept], [int(sizes[b]) for b in kept]


def expand(
    ray: Any,
    row_blocks: Sequence[Any],
    starts: np.ndarray,
    units: Sequence[Any],
    usizes: Sequence[int],
    run: Any,
    id_column: str | None,
    kept_only: bool,
) -> tuple[list[Any], list[Any]]:
    """The row output blocks and their members (refs, input order): each row with its
    unit's decision (:func:`_rows_fn`). ``run`` is the Ray run over the unit blocks."""
    n, m = len(row_blocks), len(units)
    ustarts = np.r_[0, np.cumsum(np.asarray(usizes, dtype=np.int64))][:-1].astype(np.int64)
    copies = [_list(_copies.options(num_returns=m).remote(e, ustarts), m) for e in run.exact_refs]
    exploded = [
        _list(
            _explode.options(num_returns=n).remote(
                units[u], run.tables[u], run.members[u], starts, *[c[u] for c in copies]
            ),
            n,
        )
        for u in range(m)
    ]
    out = [
        _rows.options(num_returns=2).remote(
            row_blocks[b], int(starts[b]), id_column, kept_only, *[e[b] for e in exploded]
        )
        for b in range(n)
    ]
    return [o[0] for o in out], [o[1] for o in out]
