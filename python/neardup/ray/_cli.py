"""``neardup dedup --engine ray``: the files read by Ray Data, the plan run on Ray, and the
same outputs as the local engine (kept rows in the input's format, ``--clusters``,
``--report``, the summary).

The kept rows are copied by the local writers (``neardup.io.write_kept``) from the keep mask,
streaming through the driver, so the output file is byte for byte the local engine's; the
driver holds one byte per document and the ids of duplicates, never the texts.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from neardup import io as ndio
from neardup._validate import MAX_BATCH, check_int
from neardup.dedup import DedupSummary
from neardup.errors import InputError, InvalidArgumentError
from neardup.groups import REASONS


@dataclass
class RaySummary(DedupSummary):
    """The local engine's summary plus what only a Ray run has.

    >>> RaySummary(shuffle_bytes=8).as_dict()["shuffle_bytes"]
    8
    """

    partitions: int = 0
    shuffle_bytes: int = 0
    components: str = ""


#: The column Ray Data's readers add with ``include_paths=True``.
PATH_COLUMN = "path"


def _read(ray: Any, sources: Sequence[ndio.Source], text_field: str) -> tuple[Any, list[str]]:
    """The inputs as one Ray dataset with a path column, and the file of each source."""
    fmt = sources[0].fmt
    if fmt == "folder":
        files: list[str] = []
        for s in sources:
            files += [str(p) for p in s.files()]
        if not files:
            raise InputError("the input folders hold no .txt or .md files")
        ds = ray.data.read_binary_files(files, include_paths=True)
        roots = {str(p): (s.path, str(p)) for s in sources for p in s.files()}

        def decode(batch: dict[str, Any]) -> dict[str, Any]:
            texts, ids = [], []
            for raw, path in zip(batch["bytes"], batch[PATH_COLUMN], strict=True):
                try:
                    texts.append(bytes(raw).decode("utf-8"))
                except UnicodeDecodeError as e:
                    raise InputError(f"{path}: invalid UTF-8 at byte {e.start}") from e
                root, full = roots.get(str(path), roots.get("/" + str(path), ("", str(path))))
                ids.append(Path(full).relative_to(root).as_posix() if root else str(path))
            return {text_field: texts, "id": ids, PATH_COLUMN: list(batch[PATH_COLUMN])}

        return ds.map_batches(decode, batch_format="numpy"), files
    paths = [os.path.abspath(s.path) for s in sources]
    reader = {
        "parquet": ray.data.read_parquet,
        "jsonl": lambda p, **kw: ray.data.read_json(p, lines=True, **kw),
        "csv": ray.data.read_csv,
    }[fmt]
    return reader(paths, include_paths=True), paths


def dedup_files_ray(
    inputs: Sequence[str],
    output: str | None,
    *,
    ray_address: str | None = None,
    text_field: str = "text",
    id_field: str | None = "id",
    id_required: bool = False,
    clusters: str | None = None,
    report: str | None = None,
    batch_size: int = ndio.DEFAULT_BATCH,
    driver_edge_limit: int | None = None,
    **options: Any,
) -> DedupSummary:
    """:func:`neardup.dedup.dedup_files` on Ray: the same outputs, computed by Ray tasks.

    Without ``ray_address`` a local Ray is started on this machine (and stopped after).

    >>> dedup_files_ray(["corpus.parquet"], "kept.parquet", threshold=0.5)  # doctest: +SKIP
    """
    from neardup.dedup import check_outputs
    from neardup.html_report import is_html
    from neardup.ray import check_options, require_ray, run_dataset

    t0 = time.perf_counter()
    options.pop("progress", None)
    within_column = options.pop("within_field", None)
    unit_column = options.pop("unit_field", None)
    # Every option and path is checked before Ray starts (a Ray that cannot start hangs).
    check_options(**options, within=within_column is not None, unit_of=unit_column is not None)
    check_int("batch_size", batch_size, low=1, high=MAX_BATCH)
    check_outputs(list(inputs), [output, clusters, report])
    if is_html(report):
        raise InvalidArgumentError("an HTML --report runs on the local engine (--engine local)")
    once = [p for p in inputs if ndio.read_once(p)]
    if once:
        raise InvalidArgumentError(
            f"--engine ray reads files, not stdin, a pipe or a device ({once[0]}); "
            "write it to a file, or use --engine local"
        )
    sources = ndio.open_sources(inputs, text_field, id_field, id_required)
    started = False
    try:
        if output is not None:
            ndio.check_output(output, sources)
        ray = require_ray()
        if not ray.is_initialized():
            ray.init(address=ray_address, include_dashboard=False, log_to_driver=False)
            started = True
        dataset, files = _read(ray, sources, text_field)
        names = dataset.schema().names
        id_column = id_field if id_field is not None and id_field in names else None
        if sources[0].fmt == "folder":
            id_column = "id"
        elif id_required and id_column is None:
            raise InputError(f"{inputs[0]}: no field {id_field!r}")
        seconds: dict[str, float] = {}
        t1 = time.perf_counter()
        result, plan = run_dataset(
            dataset,
            text_column=text_field,
            id_column=id_column,
            path_column=PATH_COLUMN,
            driver_edge_limit=driver_edge_limit,
            within_column=within_column,
            unit_column=unit_column,
            key_names=(f"--unit-key {unit_column!r} of row", f"--within {within_column!r} of row"),
            **options,
        )
        parts = ray.get(result.members)
        seconds["ray"] = time.perf_counter() - t1
        member = np.concatenate([p["position"] for p in parts])
        root = np.concatenate([p["root"] for p in parts])
        sim = np.concatenate([p["similarity"] for p in parts])
        exact = np.concatenate([p["exact"] for p in parts])
        reasons = np.bincount(
            np.concatenate([p["reason"] for p in parts]).astype(np.int64), minlength=len(REASONS)
        )
        n = result.documents
        keep = np.ones(n, dtype=bool)
        keep[member] = False
        # units: the kept rows after their unit's first, listed with their cluster
        extra = _kept_rows(parts, root) if result.units else (np.zeros(0, np.int64),) * 2
        exact_links = sum(p["copies"] for p in parts) if result.units else result.exact_links
        empty = sum(p["empty"] for p in parts) if result.units else result.empty
        _count_rows(sources, result.rows_per_file, files)
        summary = RaySummary(
            partitions=len(result.tables),
            shuffle_bytes=result.shuffle_bytes,
            components="driver union-find" if result.components_on_driver else "large-star",
            documents=n,
            empty=empty,
            exact_duplicates=exact_links,
            clusters=len(np.unique(root)),
            removed=len(member),
            kept=n - len(member),
            candidates=result.candidates,
            pairs=result.verified,
            method=plan.method,
            verify=plan.verify,
            pairs_mode=plan.pairs,
            threshold=float(plan.threshold),
            num_perm=plan.num_perm,
            k=plan.k,
            bands=plan.bands,
            rows=plan.rows,
            keep=plan.keep,
            inputs=list(inputs),
            output=output,
            clusters_path=clusters,
            plan={**plan.as_dict(), **result.info, "pairs_used": plan.pairs, "engine": "ray"},
        )
        summary.near_duplicates = summary.removed - summary.exact_duplicates
        if report is not None:  # the local engine's counts of each reason
            reasons[0] = summary.kept
            summary.reasons = dict(zip(REASONS, reasons.tolist(), strict=True))
        if output is not None:
            t2 = time.perf_counter()
            ndio.write_kept(sources, keep, output, batch_size)
            seconds["write"] = time.perf_counter() - t2
        if clusters is not None:
            ids = _ids(ray, result, id_column, np.union1d(np.union1d(member, root), extra[0]))
            ndio.write_table(_cluster_rows(member, root, sim, exact, ids, extra), clusters)
        seconds["total"] = time.perf_counter() - t0
        summary.seconds = {k: round(v, 4) for k, v in seconds.items()}
        if report is not None:
            summary.write_report(report)
        return summary
    finally:
        for s in sources:
            s.close()
        if started:
            ray.shutdown()  # started: so ray is bound


def _count_rows(sources: Sequence[ndio.Source], rows: dict[str, int], files: list[str]) -> None:
    """Tells each source its row count as Ray read it (the local writers need it)."""
    by_path = {os.path.abspath(k.removeprefix("local://")): v for k, v in rows.items()}
    if sources[0].fmt == "folder":
        for s in sources:
            s.n_rows = len(s.files())
        return
    for s in sources:
        s.n_rows = by_path.get(os.path.abspath(s.path), by_path.get(s.path.lstrip("/"), 0))


def _ids(ray: Any, result: Any, id_column: str | None, positions: np.ndarray) -> dict[int, Any]:
    """The ids of some positions, looked up in the output blocks (no texts move)."""
    if id_column is None:
        return {int(p): int(p) for p in positions.tolist()}

    @ray.remote
    def lookup(table: Any, wanted: np.ndarray) -> tuple[list[int], list[Any]]:
        import pyarrow as pa
        import pyarrow.compute as pc

        mask = pc.is_in(table.column("position"), value_set=pa.array(wanted))
        sub = table.filter(mask)
        return sub.column("position").to_pylist(), sub.column("id").to_pylist()

    out: dict[int, Any] = {}
    for pos, ids in ray.get([lookup.remote(t, positions) for t in result.tables]):
        out.update(zip(pos, ids, strict=True))
    return out


def _kept_rows(parts: Sequence[dict[str, Any]], root: np.ndarray) -> tuple[np.ndarray, ...]:
    """A units run's kept rows other than their unit's first, in clusters (position, the
    unit's first row): the local ``--clusters`` table lists every row of a kept unit."""
    position = np.concatenate([p["kept_position"] for p in parts])
    first = np.concatenate([p["kept_first"] for p in parts])
    inside = np.isin(first, root)
    return position[inside], first[inside]


def _cluster_rows(
    member: np.ndarray,
    root: np.ndarray,
    sim: np.ndarray,
    exact: np.ndarray,
    ids: dict[int, Any],
    kept: tuple[np.ndarray, ...] = (),
) -> list[dict[str, Any]]:
    """The ``--clusters`` table, row for row as the local engine writes it (``kept``: more
    kept rows and their clusters' roots, :func:`_kept_rows`)."""
    from neardup.dedup import _plain

    roots = np.unique(root)
    seq = {int(r): i for i, r in enumerate(roots.tolist())}
    rows: list[tuple[int, dict[str, Any]]] = []
    for r in roots.tolist():
        rows.append(
            (
                r,
                {
                    "id": _plain(ids[r]),
                    "cluster": seq[r],
                    "kept_id": _plain(ids[r]),
                    "kept": True,
                    "match": "kept",
                    "similarity": 1.0,
                },
            )
        )
    for k, r in zip(*(x.tolist() for x in kept), strict=True):
        row = {"id": _plain(ids[k]), "cluster": seq[r], "kept_id": _plain(ids[r])}
        rows.append((k, {**row, "kept": True, "match": "kept", "similarity": 1.0}))
    for m, r, s, e in zip(
        member.tolist(), root.tolist(), sim.tolist(), exact.tolist(), strict=True
    ):
        rows.append(
            (
                m,
                {
                    "id": _plain(ids[m]),
                    "cluster": seq[r],
                    "kept_id": _plain(ids[r]),
                    "kept": False,
                    "match": "exact" if e else "near",
                    "similarity": round(float(s), 6),
                },
            )
        )
    rows.sort(key=lambda x: x[0])
    return [r for _, r in rows]
