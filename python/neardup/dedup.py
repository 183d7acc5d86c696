"""Deduplication of files (``neardup dedup``): the plan's stages over a streamed store.

:func:`dedup_files` is thin: :func:`neardup.make_plan` checks the options, the inputs are
opened as a :class:`neardup.stores.FileStore`, :func:`neardup.engine.run` runs the same
stages as :func:`neardup.find_duplicates`, and this module writes what it decided. Memory
holds a 16-byte digest, a length and an id per document and the signatures (``4·P`` bytes)
of the unique ones — never the text; the shingle sets exact verification needs are held up
to :data:`neardup.engine.HOLD_SETS_BUDGET` hashes and past it written to a temporary spill
file as they are made (so the inputs are read once to find the duplicates), and one more
pass copies the kept rows to the output. Every per-document step is independent of the
batch cut, so the result does not depend on ``batch_size``.

>>> from neardup.dedup import dedup_files
>>> s = dedup_files(["corpus.jsonl"], "kept.jsonl", threshold=0.5)
>>> s.removed, s.kept
(2, 4)
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from neardup import engine
from neardup import io as ndio
from neardup._validate import MAX_BATCH, check_int
from neardup.errors import InvalidArgumentError
from neardup.groups import (
    REASONS,
    Groups,
    duplicate_groups,
    reason_codes,
    reason_names,
    same_set_rows,
)
from neardup.html_report import is_html, plan_sample, render, sample_rows
from neardup.plan import AUTO_EXACT_LIMIT, SPANNING_LIMIT, make_plan
from neardup.stores import FileStore, Progress

__all__ = ["AUTO_EXACT_LIMIT", "SPANNING_LIMIT", "DedupSummary", "dedup_files"]


@dataclass
class DedupSummary:
    """Counts, parameters and stage times of one ``dedup`` run.

    >>> DedupSummary(documents=3).as_dict()["documents"]
    3
    """

    documents: int = 0
    empty: int = 0
    exact_duplicates: int = 0
    near_duplicates: int = 0
    clusters: int = 0
    removed: int = 0
    kept: int = 0
    candidates: int = 0
    pairs: int = 0
    method: str = ""
    verify: str = ""
    pairs_mode: str = ""
    threshold: float = 0.0
    num_perm: int = 0
    k: int = 0
    bands: int | None = None
    rows: int | None = None
    keep: str = "first"
    inputs: list[str] = field(default_factory=list)
    output: str | None = None
    clusters_path: str | None = None
    annotate_path: str | None = None
    groups_path: str | None = None
    #: Documents per reason (kept, exact, normalized, near) when it was worked out.
    reasons: dict[str, int] | None = None
    boilerplate: dict[str, Any] | None = None
    seconds: dict[str, float] = field(default_factory=dict)
    #: The resolved plan (:meth:`neardup.Plan.as_dict`) and what the run decided.
    plan: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The summary as a JSON-ready dict.

        >>> "removed" in DedupSummary().as_dict()
        True
        """
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    def text(self) -> str:
        """A few human-readable lines (printed on stderr by the CLI).

        >>> print(DedupSummary(documents=2, kept=2).text())               # doctest: +ELLIPSIS
        read 2 documents ...
        """
        lsh = f", b={self.bands} r={self.rows}" if self.bands else ""
        lines = [
            f"read {self.documents:,} documents ({self.empty:,} empty, kept)",
            f"exact duplicates removed: {self.exact_duplicates:,}",
            f"near-duplicates removed: {self.near_duplicates:,} "
            f"({self.method}, threshold {self.threshold:g}{lsh})",
            f"duplicate clusters: {self.clusters:,}",
            f"kept {self.kept:,}, removed {self.removed:,} "
            f"({self.removed / max(self.documents, 1):.1%})",
        ]
        if "units" in self.plan:
            lines.insert(
                1, f"units of rows (--unit-key): {self.plan['units']:,}, kept or removed whole"
            )
        if "partitions" in self.plan:
            lines.insert(1, f"partitions (--within): {self.plan['partitions']:,}, compared apart")
        if self.boilerplate:
            b = self.boilerplate
            lines.append(
                f"boilerplate: stripped {b['shingles_dropped']:,} shingles "
                f"(df > {b['max_df']:g}), {b['mean_share_stripped']:.1%} of the average document"
            )
        lines.append("time: " + ", ".join(f"{k} {v:.2f}s" for k, v in self.seconds.items()))
        return "\n".join(lines)

    def write_report(self, path: str) -> None:
        """Write :meth:`markdown` to ``path`` atomically (``--report``; every engine's).

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "report.md")
        >>> DedupSummary().write_report(path); open(path).read().startswith("# Deduplication")
        True
        """
        with ndio.atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as f:
            f.write(self.markdown())

    def markdown(self) -> str:
        """The summary as a Markdown report (``--report``).

        >>> DedupSummary().markdown().startswith("# Deduplication report")
        True
        """
        rows = [
            ("inputs", ", ".join(self.inputs)),
            ("output", self.output or ""),
            *([("annotated rows", self.annotate_path)] if self.annotate_path else []),
            *([("duplicate groups", self.groups_path)] if self.groups_path else []),
            ("documents read", f"{self.documents:,}"),
            ("empty documents (kept)", f"{self.empty:,}"),
            ("exact duplicates removed (identical shingle sets)", f"{self.exact_duplicates:,}"),
            ("duplicate clusters", f"{self.clusters:,}"),
            ("near-duplicates removed", f"{self.near_duplicates:,}"),
            ("removed in total", f"{self.removed:,} ({self.removed / max(self.documents, 1):.2%})"),
            ("kept", f"{self.kept:,}"),
            ("candidate pairs", f"{self.candidates:,}"),
            ("verified pairs", f"{self.pairs:,}"),
        ]
        if self.reasons:
            rows += [(f"reason: {name}", f"{count:,}") for name, count in self.reasons.items()]
        params = [
            ("method", self.method),
            ("verification", self.verify),
            ("threshold", f"{self.threshold:g}"),
            ("permutations", str(self.num_perm)),
            ("shingle size k", str(self.k)),
            ("LSH bands × rows", f"{self.bands} × {self.rows}" if self.bands else "-"),
            ("LSH pairs verified", self.pairs_mode or "-"),
            ("keep", self.keep),
        ]
        out = ["# Deduplication report", "", "| | |", "|---|---:|"]
        out += [f"| {a} | {b} |" for a, b in rows]
        out += ["", "## Parameters", "", "| | |", "|---|---|"]
        out += [f"| {a} | {b} |" for a, b in params]
        if self.plan:
            out += ["", "## Plan", "", "| | |", "|---|---|"]
            out += [f"| {a} | {b} |" for a, b in self.plan.items() if a != "boilerplate"]
        if self.boilerplate:
            b = self.boilerplate
            out += [
                "",
                "## Boilerplate stripping",
                "",
                f"Shingles in more than {b['max_df']:.0%} of documents were dropped: "
                f"{b['shingles_dropped']:,} distinct shingles, "
                f"{b['mean_share_stripped']:.1%} of the average document, "
                f"{b['documents_emptied']:,} documents left without shingles.",
            ]
        out += ["", "## Time per stage", "", "| stage | seconds |", "|---|---:|"]
        out += [f"| {k} | {v:.2f} |" for k, v in self.seconds.items()]
        return "\n".join(out) + "\n"


def check_outputs(inputs: Sequence[str], outputs: Sequence[str | None]) -> None:
    """Refuse, before anything is read, an output that is one of the inputs (hard links and
    symbolic links count): writing it would destroy the input; and two outputs to one path
    (a device or a pipe, written to in place, may take several: ``/dev/null``).

    >>> check_outputs(["a.jsonl"], ["-", None])
    >>> check_outputs(["a.jsonl"], ["k.jsonl", "k.jsonl"])
    Traceback (most recent call last):
    ...
    neardup.errors.InvalidArgumentError: two outputs are k.jsonl
    """
    given = [o for o in outputs if o is not None]
    named = [o if o == "-" else os.path.abspath(o) for o in given]
    for i, path in enumerate(named):
        if path in named[:i] and not (path != "-" and ndio.is_streamed(path)):
            raise InvalidArgumentError(f"two outputs are {given[i]}")
    for out in outputs:
        if out is None or out == "-" or not os.path.exists(out):
            continue
        for inp in inputs:
            if inp != "-" and os.path.exists(inp) and os.path.samefile(out, inp):
                raise InvalidArgumentError(f"output {out} is the same file as input {inp}")


def dedup_files(
    inputs: Sequence[str] | str,
    output: str | None,
    *,
    text_field: str = "text",
    id_field: str | None = "id",
    id_required: bool = False,
    clusters: str | None = None,
    report: str | None = None,
    annotate: str | None = None,
    groups: str | None = None,
    priority_field: str | None = None,
    batch_size: int = ndio.DEFAULT_BATCH,
    progress: Progress | None = None,
    within_field: str | None = None,
    unit_field: str | None = None,
    **options: Any,
) -> DedupSummary:
    """Deduplicate files; write the kept rows to ``output``, optionally a clusters table
    (``clusters``), a report (``report``: Markdown, or a self-contained HTML page
    when it ends in ``.html``, :mod:`neardup.html_report`) and every row with the columns
    ``cluster``, ``keep``, ``duplicate_of``, ``similarity``, ``reason`` (``annotate``: the
    values of :meth:`neardup.DuplicateResult.annotate`, positions counted across the inputs in
    order) and the duplicate groups as JSONL (``groups``: one group a line, as
    :meth:`neardup.DuplicateResult.groups`, documents named by their ids). The reason
    column (and the report's counts of each reason) reads the documents that have their kept
    document's shingle set once more, to tell byte-identical ones from normalised ones.
    ``priority_field`` names the column whose highest number is kept in each cluster
    (``keep="priority"``; read for the cluster members only, which must hold a number).
    ``within_field`` (``--within``): only rows with the same value there are compared;
    ``unit_field`` (``--unit-key``): rows with the same value there are one document
    (:mod:`neardup.units`), kept or removed whole; both columns are read in a first pass.

    ``options`` are those of :func:`neardup.find_duplicates` (``threshold``, ``method``,
    ``num_perm``, ``k``, ``unit``, ``bands``, ``rows``, ``seed``, ``verify``, ``pairs``,
    ``keep``, ``strip_boilerplate``, ``simhash_bits``, ``max_hamming``, ``threads``,
    ``algorithm``, ``hash_version``, ``auto_exact_limit``, ``spanning_limit``,
    ``bucket_limit``), checked by
    :func:`neardup.make_plan` and run by the same stages, so the rows kept are the rows
    ``find_duplicates(texts, ...).keep`` keeps. An output that is an input is refused
    before anything is read. Empty documents are always kept.

    >>> s = dedup_files(["a.jsonl"], "kept.jsonl", threshold=0.4)
    >>> print(s.text())
    read 6 documents (0 empty, kept)
    exact duplicates removed: 1
    near-duplicates removed: 1 (exact-jaccard, threshold 0.4)
    duplicate clusters: 2
    kept 4, removed 2 (33.3%)
    time: ...
    """
    if isinstance(inputs, (str, os.PathLike)):  # one path, not its characters
        inputs = [os.fspath(inputs)]
    if priority_field is not None and options.get("keep", "first") in ("first", "priority"):
        options["keep"] = "priority"
    plan = make_plan(**options, within=within_field is not None, unit_of=unit_field is not None)
    batch_size = check_int("batch_size", batch_size, low=1, high=MAX_BATCH)
    if (plan.keep == "priority") != (priority_field is not None):
        raise InvalidArgumentError(
            "keep='priority' and a priority field (--keep-priority COLUMN) go together; "
            f"got keep={plan.keep!r}, priority field {priority_field!r}"
        )
    if unit_field is not None and report is not None and is_html(report):
        # its pairs and previews are the run's documents (units), its ids the input's rows
        raise InvalidArgumentError(
            "an HTML --report shows documents, and with --unit-key a document is a unit of "
            "rows: write a Markdown report (.md) instead"
        )
    check_outputs(list(inputs), [output, clusters, report, annotate, groups])
    sources = ndio.open_sources(inputs, text_field, id_field, id_required, plan.threads)
    try:
        if output is not None:
            ndio.check_output(output, sources)  # a format it cannot hold: refused before work
        if annotate is not None:
            ndio.check_annotated_output(annotate, sources)
        if priority_field is not None:
            check_priority_field(sources, priority_field)
        store = FileStore(sources, batch_size, progress, priority_field)
        timer = engine._Timer()
        with timer.stage("keys"):
            run_store, units = keyed_store(store, within_field, unit_field, batch_size)
        outcome = engine.run(plan, run_store)
        reason, sample = None, None
        shown: dict[int, str] = {}
        if is_html(report):
            sample = plan_sample(_result(outcome))
        if annotate is not None or report is not None:
            with timer.stage("reason"):
                wanted = None if sample is None else sample_rows(sample)
                reason, shown = reasons_and_texts(outcome, run_store, wanted)  # unit level
        if units is not None:
            outcome = units.expand(outcome)  # every row carries its unit's decision
            reason = None if reason is None else reason[units.of_row]
        summary = _summary(outcome, list(inputs), output, clusters)
        summary.annotate_path = annotate
        summary.groups_path = groups
        if reason is not None:
            names, counts = np.unique(reason, return_counts=True)
            found = dict(zip(names.tolist(), counts.tolist(), strict=True))
            summary.reasons = {name: int(found.get(name, 0)) for name in REASONS}
        if output is not None:
            with timer.stage("write"):
                ndio.write_kept(sources, outcome.keep, output, batch_size)
        if clusters is not None:
            with timer.stage("write"):
                ndio.write_table(_cluster_rows(outcome, store.ids), clusters)
        if annotate is not None:
            with timer.stage("write"):
                columns = annotated_columns(outcome, reason)
                ndio.write_annotated(sources, columns, annotate, batch_size)
        if groups is not None:
            with timer.stage("write"):
                write_groups(run_groups(outcome), store.ids, groups)
        summary.seconds = {**outcome.seconds, **timer.seconds}
        if report is not None and sample is not None:
            page = render(summary, sample, shown, store.ids, outcome.params())
            with ndio.atomic_path(report) as tmp, open(tmp, "w", encoding="utf-8") as f:
                f.write(page)
        elif report is not None:
            summary.write_report(report)
        return summary
    finally:
        for s in sources:
            s.close()


def keyed_store(
    store: FileStore, within_field: str | None, unit_field: str | None, batch_size: int
) -> tuple[Any, Any]:
    """(the store the engine runs over, the :class:`neardup.units.Units` or None): the rows'
    partition keys (``--within``) set on the store, or their units (``--unit-key``) joined
    by a :class:`neardup.units.UnitStore` over it; the key columns are read first."""
    from neardup._validate import check_keys
    from neardup.units import Units, UnitStore

    def keys(field: str, option: str) -> np.ndarray:
        column = ndio.read_column(store.sources, field, batch_size, option)
        return check_keys(f"{option} {field!r} of row", column, len(column))

    parts = None if within_field is None else keys(within_field, "--within")
    if unit_field is None:
        store.partitions = parts
        return store, None
    units = Units.from_keys(keys(unit_field, "--unit-key"))
    unit_store = UnitStore(store, units, batch_size)
    unit_store.partitions = None if parts is None else units.partitions(parts)
    return unit_store, units


def _summary(
    outcome: engine.Outcome, inputs: list[str], output: str | None, clusters: str | None
) -> DedupSummary:
    plan, info, n = outcome.plan, outcome.info, outcome.n
    kept = int(outcome.keep.sum())
    exact = int(info["exact_duplicates"])
    return DedupSummary(
        documents=n,
        empty=int(outcome.empty.sum()),
        exact_duplicates=exact,
        near_duplicates=n - kept - exact,
        clusters=len(np.unique(outcome.labels[~outcome.keep])),
        removed=n - kept,
        kept=kept,
        candidates=int(info.get("candidates") or 0),
        pairs=int(info["pairs_reported"]),
        method=plan.method,
        verify=plan.verify,
        pairs_mode=str(info.get("pairs_used", "")),
        threshold=plan.threshold,
        num_perm=plan.num_perm,
        k=plan.k,
        bands=plan.bands,
        rows=plan.rows,
        keep=plan.keep,
        inputs=inputs,
        output=output,
        clusters_path=clusters,
        boilerplate=info.get("boilerplate"),
        plan=outcome.params(),
    )


def _result(outcome: engine.Outcome) -> Any:
    """The run as a :class:`neardup.DuplicateResult` without texts (for the sweep)."""
    from neardup.pipeline import _result as result_of

    return result_of(outcome, None)


def check_priority_field(sources: Sequence[ndio.Source], field_name: str) -> None:
    """Refuse, before any work, a priority column that a table input lacks (JSONL rows are
    checked as they are read) or an input without columns (a folder).

    >>> check_priority_field([], "score")
    """
    ndio.require_column(sources, field_name, "--keep-priority", InvalidArgumentError)


def annotated_columns(
    outcome: engine.Outcome, reason: np.ndarray | None = None
) -> dict[str, np.ndarray]:
    """The ``--annotate`` columns of a run: what :meth:`neardup.DuplicateResult.annotate` adds
    (``reason`` from :func:`row_reasons`, added when given).

    >>> from neardup.plan import make_plan
    >>> from neardup.stores import MemoryStore
    >>> out = engine.run(make_plan(k=1), MemoryStore(["a b", "a b", "c"]))
    >>> annotated_columns(out)["duplicate_of"].tolist()
    [-1, 0, -1]
    """
    from neardup.tables import annotation_columns

    similarity = engine.kept_similarity(
        outcome.first, outcome.keep, outcome.representative, outcome.evidence
    )
    return annotation_columns(
        outcome.labels, outcome.keep, outcome.representative, similarity, reason
    )


def run_groups(outcome: engine.Outcome) -> Groups:
    """The duplicate groups of a run (:meth:`neardup.DuplicateResult.groups`)."""
    similarity = engine.kept_similarity(
        outcome.first, outcome.keep, outcome.representative, outcome.evidence
    )
    return duplicate_groups(outcome.labels, outcome.keep, outcome.representative, similarity)


def row_reasons(outcome: engine.Outcome, store: Any) -> np.ndarray:
    """The ``reason`` of each document (:attr:`neardup.DuplicateResult.reason`): the
    documents with their kept document's shingle set are read once more (only the batches
    holding one) and their raw bytes' SHA-256 compared.

    >>> from neardup.plan import make_plan
    >>> from neardup.stores import MemoryStore
    >>> store = MemoryStore(["a b", "a b", "A b", "c"])
    >>> row_reasons(engine.run(make_plan(k=1), store), store).tolist()
    ['kept', 'exact', 'normalized', 'kept']
    """
    return reasons_and_texts(outcome, store)[0]


def reasons_and_texts(
    outcome: engine.Outcome, store: Any, shown: np.ndarray | None = None
) -> tuple[np.ndarray, dict[int, str]]:
    """:func:`row_reasons`, and the texts of the sorted positions ``shown`` (the HTML
    report's previews) taken on the same pass: one pass over the store at most, and none
    when neither is needed.

    >>> from neardup.plan import make_plan
    >>> from neardup.stores import MemoryStore
    >>> store = MemoryStore(["a b", "c", "a b"])
    >>> reasons_and_texts(engine.run(make_plan(k=1), store), store, np.array([1]))[1]
    {1: 'c'}
    """
    from neardup._texts import as_core_texts, count
    from neardup.explain import _text_at
    from neardup.sign import sha256_digests

    keep, rep, first = outcome.keep, outcome.representative, outcome.first
    rows = same_set_rows(keep, rep, first)
    same = np.zeros(outcome.n, dtype=bool)
    shown = np.zeros(0, dtype=np.int64) if shown is None else shown
    texts: dict[int, str] = {}
    if len(rows) or len(shown):
        needed = np.zeros(outcome.n, dtype=bool)
        needed[rows] = True
        needed[rep[rows]] = True
        digests = np.zeros((outcome.n, 2), dtype=np.uint64)
        for batch in store.batches("reason"):
            a = batch.start
            b = a + (len(batch) if hasattr(batch, "__len__") else count(batch.texts))
            if needed[a:b].any():
                digests[a:b] = sha256_digests(batch.texts, False, threads=outcome.plan.threads)
            here = shown[(shown >= a) & (shown < b)]
            if len(here):
                core = as_core_texts(batch.texts)
                texts.update((int(r), _text_at(core, int(r) - a)) for r in here)
        same[rows] = (digests[rows] == digests[rep[rows]]).all(axis=1)
    return reason_names(reason_codes(keep, rep, first, same)), texts


def write_groups(found: Groups, ids: Any, path: str) -> None:
    """``--groups``: the duplicate groups as JSONL, one a line (``group``, ``kept``, ``size``,
    ``min_similarity``, ``members``; documents by id), written atomically.

    >>> import os, tempfile
    >>> from neardup.plan import make_plan
    >>> from neardup.stores import MemoryStore
    >>> out = engine.run(make_plan(k=1), MemoryStore(["a b", "c", "a b"]))
    >>> path = os.path.join(tempfile.mkdtemp(), "groups.jsonl")
    >>> write_groups(run_groups(out), ["x", "y", "z"], path); print(open(path).read().strip())
    {"group": 0, "kept": "x", "size": 2, "min_similarity": 1.0, "members": ["x", "z"]}
    """
    members = found.members.tolist()
    bounds = found.offsets.tolist()
    kept, size, lowest = found.kept.tolist(), found.size.tolist(), found.min_similarity.tolist()
    with ndio.atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as f:
        for g in range(len(found)):
            row = {
                "group": g,
                "kept": _plain(ids[kept[g]]),
                "size": size[g],
                "min_similarity": None if lowest[g] != lowest[g] else round(lowest[g], 6),
                "members": [_plain(ids[m]) for m in members[bounds[g] : bounds[g + 1]]],
            }
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def _cluster_rows(outcome: engine.Outcome, ids: list[Any]) -> list[dict[str, Any]]:
    """One row per document in a cluster of two or more, in input order."""
    labels, keep, rep, first = outcome.labels, outcome.keep, outcome.representative, outcome.first
    grouped = np.zeros(len(labels), dtype=bool)
    grouped[labels[~keep]] = True  # clusters with a removed member: two documents or more
    members = np.flatnonzero(grouped[labels])
    exact = first[members] == first[rep[members]]
    similarity = engine.kept_similarity(first, keep, rep, outcome.evidence)[members]
    sequence = {c: i for i, c in enumerate(np.unique(labels[members]).tolist())}
    return [
        {
            "id": _plain(ids[i]),
            "cluster": sequence[int(labels[i])],
            "kept_id": _plain(ids[int(rep[i])]),
            "kept": bool(keep[i]),
            "match": "kept" if keep[i] else ("exact" if is_exact else "near"),
            "similarity": round(float(sim), 6),
        }
        for i, is_exact, sim in zip(
            members.tolist(), exact.tolist(), similarity.tolist(), strict=True
        )
    ]


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    return json.dumps(v) if not isinstance(v, bytes) else v.decode("utf-8", "replace")
