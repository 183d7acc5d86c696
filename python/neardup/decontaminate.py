"""``neardup decontaminate``: remove (or mark) the corpus documents that contain a test item.

The test items (``--against``, the small side) are read into a :class:`neardup.Matcher`; the
corpus streams through it batch by batch (:func:`neardup.io.iter_batches`), then its rows are
written through :mod:`neardup.io.write`'s atomic writers: the documents without a match
(:func:`~neardup.io.write_kept`), or with ``annotate`` every row with the columns
``contaminated``, ``matches`` and ``max_score`` (:func:`~neardup.io.write_annotated`). The
report (JSONL, one line per match, written batch by batch) gives both ids and positions, the
score and the matched spans of each text (characters of the original text, from the core's
tokeniser as in :func:`neardup.explain`), with the settings that reproduce it. Memory holds
the index of the test items, one batch, and a count and best score per corpus document.

>>> s = decontaminate_files(["corpus.jsonl"], ["test.jsonl"], "clean.jsonl")  # doctest: +SKIP
>>> s.counts()["contaminated"]                                               # doctest: +SKIP
1
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np

from neardup import io as ndio
from neardup._validate import MAX_BATCH, check_int
from neardup.errors import InvalidArgumentError
from neardup.explain import compare
from neardup.matches import Matcher

__all__ = ["DecontaminateSummary", "decontaminate_files"]


@dataclass
class DecontaminateSummary:
    """Counts and settings of one run.

    >>> DecontaminateSummary(documents=3, contaminated=1).counts()["kept"]
    2
    """

    documents: int = 0
    queries: int = 0
    contaminated: int = 0
    matches: int = 0
    written: int = 0
    annotate: bool = False
    params: dict[str, Any] = field(default_factory=dict)
    inputs: list[str] = field(default_factory=list)
    outputs: dict[str, str | None] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        """The integer counts (the ``--json`` summary's ``counts``)."""
        return {
            "documents": self.documents,
            "queries": self.queries,
            "contaminated": self.contaminated,
            "kept": self.documents - self.contaminated,
            "matches": self.matches,
            "written": self.written,
        }

    def text(self) -> str:
        """The summary printed on stderr.

        >>> print(DecontaminateSummary(documents=3, queries=2, contaminated=1, matches=1,
        ...       written=2, params={"measure": "containment", "threshold": 0.8}).text())
        read 3 documents against 2 test items (containment >= 0.8, exact)
        contaminated: 1 documents (1 matches)
        wrote 2 rows (removed 1)
        """
        p = self.params
        fate = "marked" if self.annotate else "removed"
        return "\n".join(
            [
                f"read {self.documents:,} documents against {self.queries:,} test items "
                f"({p.get('measure')} >= {p.get('threshold')}, exact)",
                f"contaminated: {self.contaminated:,} documents ({self.matches:,} matches)",
                f"wrote {self.written:,} rows ({fate} {self.contaminated:,})",
            ]
        )


@contextlib.contextmanager
def _report_file(report: str) -> Iterator[TextIO]:
    """The report, written as JSONL (gzipped for ``.gz``) one batch at a time to a temporary
    file renamed into place on success (``-``: stdout)."""
    if report == "-":
        yield sys.stdout
        return
    if not report.endswith((".jsonl", ".jsonl.gz", ".json", ".ndjson")):
        raise InvalidArgumentError(f"{report}: the report is JSONL: name a .jsonl or .jsonl.gz")
    with ndio.atomic_path(report) as tmp:
        opened: Any = (
            gzip.open(tmp, "wt", encoding="utf-8")
            if report.endswith(".gz")
            else open(tmp, "w", encoding="utf-8")
        )
        with opened as f:
            yield f


def _texts_of(batch: ndio.Batch) -> list[str]:
    texts = batch.texts
    return texts.to_pylist() if hasattr(texts, "to_pylist") else list(texts)


def decontaminate_files(
    inputs: Sequence[str] | str,
    against: Sequence[str] | str,
    output: str,
    *,
    threshold: float = 0.8,
    measure: str = "containment",
    annotate: bool = False,
    report: str | None = None,
    text_field: str = "text",
    id_field: str | None = "id",
    id_required: bool = False,
    k: int = 5,
    unit: str = "word",
    hash_version: int | None = None,
    threads: int = 1,
    batch_size: int = ndio.DEFAULT_BATCH,
) -> DecontaminateSummary:
    """Write the rows of ``inputs`` that match no item of ``against`` to ``output`` (with
    ``annotate``: every row, marked); ``report``: every match as a JSONL line. The fields
    (``text_field``, ``id_field``) are read the same way in both sets; the other options are
    :func:`neardup.find_matches`'s.
    """
    from neardup.dedup import check_outputs

    inputs = [os.fspath(inputs)] if isinstance(inputs, (str, os.PathLike)) else list(inputs)
    against = [os.fspath(against)] if isinstance(against, (str, os.PathLike)) else list(against)
    batch_size = check_int("batch_size", batch_size, low=1, high=MAX_BATCH)
    check_outputs([*inputs, *against], [output, report])
    started = time.perf_counter()
    tests = ndio.open_sources(against, text_field, id_field, id_required, threads)
    try:
        test_ids: list[Any] = []
        test_texts: list[str] = []
        for b in ndio.iter_batches(tests, batch_size):
            test_ids.extend(b.ids)
            test_texts.extend(_texts_of(b))
    finally:
        for s in tests:
            s.close()
    matcher = Matcher(
        test_texts,
        threshold,
        measure,  # type: ignore[arg-type]
        k=k,
        unit=unit,
        hash_version=hash_version,
        threads=threads,
    )
    indexed = time.perf_counter()
    summary = DecontaminateSummary(
        queries=matcher.queries,
        annotate=annotate,
        params=matcher.params,
        inputs=[*inputs, *against],
        outputs={"output": output, "report": report},
    )
    sources = ndio.open_sources(inputs, text_field, id_field, id_required, threads)
    try:
        if annotate:
            ndio.check_annotated_output(output, sources)
        else:
            ndio.check_output(output, sources)
        hits_parts: list[np.ndarray] = []
        best_parts: list[np.ndarray] = []
        with contextlib.ExitStack() as stack:
            lines = None if report is None else stack.enter_context(_report_file(report))
            for b in ndio.iter_batches(sources, batch_size):
                pairs, score = matcher.add(b.texts)
                local = pairs[:, 1] - b.start
                hits_parts.append(np.bincount(local, minlength=len(b)).astype(np.int64))
                best = np.zeros(len(b), dtype=np.float32)
                np.maximum.at(best, local, score)
                best_parts.append(best)
                if lines is not None and len(pairs):
                    texts = _texts_of(b)
                    for (q, d), s in zip(pairs.tolist(), score.tolist(), strict=True):
                        row = _report_row(matcher, test_ids, test_texts, b, texts, q, d, s)
                        lines.write(json.dumps(row, ensure_ascii=False) + "\n")
        matched = time.perf_counter()
        n = matcher.documents
        hits = np.concatenate(hits_parts) if hits_parts else np.zeros(0, np.int64)
        contaminated = hits > 0
        summary.documents, summary.matches = n, int(hits.sum())
        summary.contaminated = int(contaminated.sum())
        if annotate:
            best_all = np.concatenate(best_parts) if best_parts else np.zeros(0, np.float32)
            columns = {"contaminated": contaminated, "matches": hits, "max_score": best_all}
            summary.written = ndio.write_annotated(sources, columns, output, batch_size)
        else:
            summary.written = ndio.write_kept(sources, ~contaminated, output, batch_size)
        summary.seconds = {
            "index": indexed - started,
            "match": matched - indexed,
            "write": time.perf_counter() - matched,
        }
        return summary
    finally:
        for s in sources:
            s.close()


def _report_row(
    matcher: Matcher,
    test_ids: list[Any],
    test_texts: list[str],
    batch: ndio.Batch,
    texts: list[str],
    q: int,
    d: int,
    score: float,
) -> dict[str, Any]:
    """One report line: the pair, its score, the matched spans of both texts, the settings."""
    p = matcher.plan
    local = d - batch.start
    why = compare(test_texts[q], texts[local], p.k, p.unit, p.hash_version)
    return {
        "document_id": batch.ids[local],
        "document": d,
        "test_id": test_ids[q],
        "test": q,
        "measure": matcher.measure,
        "threshold": p.threshold,
        "score": round(float(score), 6),
        "shared_shingles": why.shared,
        "test_shingles": why.shingles[0],
        "document_spans": why.spans[1].tolist(),
        "test_spans": why.spans[0].tolist(),
        "k": p.k,
        "unit": p.unit,
        "hash_version": p.hash_version,
    }
