"""``neardup dedup --level paragraph``: remove repeated paragraphs from files, streamed.

The inputs are read twice: once to count and check their rows (the readers' fast path; in
near mode, ``threshold < 1``, this pass also runs the MinHash stages over the paragraphs,
:class:`ParagraphStore`), once to clean them batch by batch with a
:class:`neardup.ParagraphDeduper` (or the near decisions) and write every row — all its
fields, the text field replaced by the cleaned text — as JSONL. Memory holds the deduper's
table (one key per distinct paragraph, or the Bloom filter; in near mode each paragraph's
digest and each distinct one's signature) and one batch; never the corpus.

>>> s = dedup_paragraph_files(["corpus.jsonl"], "clean.jsonl")
>>> print(s.text())
read 6 documents, 6 paragraphs (exact after normalisation)
paragraphs removed: 1 from 1 documents
documents left with fewer than 1 words: 1 (kept)
wrote 6 rows
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from neardup import _core
from neardup import io as ndio
from neardup._validate import MAX_BATCH, check_int, check_threshold
from neardup.errors import InputError, InvalidArgumentError
from neardup.io import jsonl
from neardup.paragraphs import (
    DEFAULT_BLOOM_BITS,
    ParagraphDeduper,
    ParagraphResult,
    _result,
    near_flags,
    near_plan,
)

__all__ = ["ParagraphFilesSummary", "dedup_paragraph_files"]


@dataclass
class ParagraphFilesSummary:
    """Counts and parameters of one paragraph-level run.

    >>> ParagraphFilesSummary(documents=2).counts()["documents"]
    2
    """

    documents: int = 0
    paragraphs: int = 0
    paragraphs_removed: int = 0
    documents_changed: int = 0
    documents_short: int = 0
    documents_dropped: int = 0
    written: int = 0
    params: dict[str, Any] = field(default_factory=dict)
    inputs: list[str] = field(default_factory=list)
    output: str | None = None
    report: str | None = None
    bloom_false_positive_rate: float | None = None
    seconds: dict[str, float] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        """The integer counts (the ``--json`` summary's ``counts``)."""
        names = "documents paragraphs paragraphs_removed documents_changed documents_short"
        names += " documents_dropped written"
        return {k: int(getattr(self, k)) for k in names.split()}

    def text(self) -> str:
        """The summary printed on stderr.

        >>> print(ParagraphFilesSummary(documents=1, params={"split": "line"}).text())
        read 1 documents, 0 lines (exact after normalisation)
        lines removed: 0 from 0 documents
        documents left with fewer than 1 words: 0 (kept)
        wrote 0 rows
        """
        p = self.params
        unit = "lines" if p.get("split") == "line" else "paragraphs"
        mode = "exact after normalisation"
        if p.get("memory") == "bloom":
            rate = self.bloom_false_positive_rate or 0.0
            mode = f"Bloom filter of {p['bloom_bits']:,} bits, false-positive rate {rate:.3g}"
        fate = "dropped" if p.get("drop_short") else "kept"
        return "\n".join(
            [
                f"read {self.documents:,} documents, {self.paragraphs:,} {unit} ({mode})",
                f"{unit} removed: {self.paragraphs_removed:,} from "
                f"{self.documents_changed:,} documents",
                f"documents left with fewer than {p.get('min_words', 1)} words: "
                f"{self.documents_short:,} ({fate})",
                f"wrote {self.written:,} rows",
            ]
        )

    def markdown(self) -> str:
        """The ``--report`` file."""
        rows = [f"| {k} | {v:,} |" for k, v in self.counts().items()]
        params = [f"| {k} | {v} |" for k, v in self.params.items()]
        return "\n".join(
            [
                *("# neardup dedup --level paragraph", "", "```", self.text(), "```", ""),
                *("| count | value |", "|---|---:|", *rows, ""),
                *("| parameter | value |", "|---|---|", *params, ""),
            ]
        )


def _rows(sources: Sequence[ndio.Source]) -> Any:
    """(where, record, text) of every row of the inputs, in order."""
    for src in sources:
        everything = np.ones(src.n_rows or 0, dtype=bool)
        for where, record in src.reader.records(src, everything):
            text = record.get(src.text_field)
            if not isinstance(text, str):
                raise InputError(f"{where}: field {src.text_field!r} is not a string")
            yield where, record, text


def dedup_paragraph_files(
    inputs: Sequence[str] | str,
    output: str,
    *,
    text_field: str = "text",
    id_field: str | None = "id",
    id_required: bool = False,
    report: str | None = None,
    batch_size: int = ndio.DEFAULT_BATCH,
    split: str = "paragraph",
    memory: str = "exact",
    bloom_bits: int = DEFAULT_BLOOM_BITS,
    bloom_hashes: int = 7,
    min_words: int = 1,
    drop_short: bool = False,
    hash_version: int | None = None,
    threads: int = 1,
    threshold: float = 1.0,
    **minhash: Any,
) -> ParagraphFilesSummary:
    """Write every row of ``inputs`` to ``output`` (JSONL: ``.jsonl``, ``.jsonl.gz`` or ``-``)
    with the repeated paragraphs of its text removed; the options are
    :class:`neardup.ParagraphDeduper`'s. Rows left with fewer than ``min_words`` words are
    counted, and left out when ``drop_short``. ``threshold < 1``: near-duplicate paragraphs
    (:func:`neardup.paragraphs.near_flags`, ``minhash`` its MinHash options); the first
    pass then decides, streamed (:class:`ParagraphStore`: memory holds each distinct
    paragraph's digest and signature, never the text), the second cleans with the decisions.

    >>> dedup_paragraph_files(["a.jsonl"], "clean.jsonl", split="line").paragraphs_removed
    1
    """
    from neardup.dedup import check_outputs

    if isinstance(inputs, (str, os.PathLike)):
        inputs = [os.fspath(inputs)]
    batch_size = check_int("batch_size", batch_size, low=1, high=MAX_BATCH)
    deduper = ParagraphDeduper(
        split=split,  # type: ignore[arg-type]
        memory=memory,  # type: ignore[arg-type]
        bloom_bits=bloom_bits,
        bloom_hashes=bloom_hashes,
        min_words=min_words,
        drop_short=drop_short,
        hash_version=_core.HASH_VERSION if hash_version is None else hash_version,
        threads=threads,
    )
    threshold = check_threshold(threshold)
    near = threshold < 1.0
    if near and deduper.memory != "exact":
        raise InvalidArgumentError("a Bloom filter (--bloom-bits) is for exact mode (threshold 1)")
    check_outputs(list(inputs), [output, report])
    started = time.perf_counter()
    sources = ndio.open_sources(inputs, text_field, id_field, id_required, threads)
    try:
        fmt = ndio.output_format(output, sources[0].fmt)
        if fmt != "jsonl":
            raise InvalidArgumentError(
                f"{output}: --level paragraph writes JSONL; name a .jsonl or .jsonl.gz "
                "file, or - for stdout"
            )
        plan: dict[str, Any] = {}
        clean: Callable[[list[str]], ParagraphResult] = deduper.add
        if near:  # the first pass decides (streamed: digests and signatures held, no text)
            store = ParagraphStore(sources, batch_size, deduper.split)
            run = near_plan(threshold, deduper.hash_version, threads, **minhash)
            duplicate, plan = near_flags(run, store)
            clean = _near_cleaner(deduper, duplicate, store.per_document())
        else:
            for _ in ndio.iter_batches(sources, batch_size):  # count and check the rows
                pass
        counted = time.perf_counter()
        summary = ParagraphFilesSummary(
            inputs=list(inputs),
            output=output,
            report=report,
            params={
                "level": "paragraph",
                "split": deduper.split,
                "memory": deduper.memory,
                "threshold": threshold,
                "hash_version": deduper.hash_version,
                "min_words": deduper.min_words,
                "drop_short": deduper.drop_short,
                **(
                    {"bloom_bits": deduper.bloom_bits, "bloom_hashes": deduper.bloom_hashes}
                    if deduper.memory == "bloom"
                    else {}
                ),
                **({"near": plan} if near else {}),
            },
        )
        if output == "-":
            to_stdout = jsonl.JsonlWriter(sys.stdout.buffer)
            _clean(sources, clean, to_stdout, batch_size, summary)
            to_stdout.close()
        else:
            with ndio.atomic_path(output) as tmp:
                writer: Any = jsonl.OUTPUT.open(tmp, output, sources, batch_size)
                try:
                    _clean(sources, clean, writer, batch_size, summary)
                finally:
                    writer.close()
        summary.bloom_false_positive_rate = deduper.bloom_false_positive_rate
        summary.seconds = {
            "read": counted - started,
            "clean and write": time.perf_counter() - counted,
        }
        if report is not None:
            with ndio.atomic_path(report) as tmp, open(tmp, "w", encoding="utf-8") as f:
                f.write(summary.markdown())
        return summary
    finally:
        for s in sources:
            s.close()


class ParagraphStore:
    """The paragraphs (or lines) of the inputs as the documents of a store
    (:mod:`neardup.stores`), read batch by batch: near mode's first pass runs the engine over
    them without holding a text. The paragraphs of each document are counted on the sign
    pass (:meth:`per_document`).

    >>> store = ParagraphStore(ndio.open_sources(["a.jsonl"]), 100, "paragraph")
    >>> [len(b) for b in store.batches("sign")], store.per_document().tolist()  # doctest: +SKIP
    ([3], [2, 1])
    """

    def __init__(self, sources: Sequence[ndio.Source], batch_size: int, split: str) -> None:
        self.sources, self.batch_size, self.split = list(sources), batch_size, split
        self._counts: list[np.ndarray] = []
        self.progress = None  # its passes show none

    def batches(self, pass_name: str) -> Any:
        """The units of each batch of documents, numbered on from the last batch's."""
        from neardup._texts import as_core_texts
        from neardup.stores import TextBatch

        if pass_name == "sign":
            self._counts = []
        start = 0
        for batch in ndio.iter_batches(self.sources, self.batch_size):
            units, per_doc = _core.paragraph_units(as_core_texts(batch.texts), self.split)
            if pass_name == "sign":
                self._counts.append(np.asarray(per_doc, dtype=np.int64))
            if units:
                yield TextBatch(units, start)
                start += len(units)

    def priorities(self, rows: np.ndarray) -> np.ndarray:
        """Near mode keeps the first unit: no priorities."""
        raise InvalidArgumentError("paragraph near mode keeps the first paragraph")

    def per_document(self) -> np.ndarray:
        """int64[n]: units of each document read by the last sign pass."""
        return np.concatenate(self._counts) if self._counts else np.zeros(0, np.int64)


def _near_cleaner(
    deduper: ParagraphDeduper, duplicate: np.ndarray, per_doc: np.ndarray
) -> Callable[[list[str]], ParagraphResult]:
    """Cleans consecutive batches with the decisions taken on the whole corpus."""
    bounds = np.concatenate([[0], np.cumsum(per_doc)])
    done = [0]

    def clean(texts: list[str]) -> ParagraphResult:
        first, last = done[0], done[0] + len(texts)
        flags = np.ascontiguousarray(duplicate[bounds[first] : bounds[last]])
        batch = _core.paragraph_clean(
            texts, deduper.split, deduper.hash_version, flags, deduper.threads
        )
        done[0] = last
        return _result(batch, deduper.min_words, deduper.drop_short)

    return clean


def _clean(
    sources: Sequence[ndio.Source],
    deduper: Callable[[list[str]], ParagraphResult],
    writer: Any,
    batch_size: int,
    summary: ParagraphFilesSummary,
) -> None:
    """Clean and write the rows batch by batch; fill the summary's counts."""
    batch: list[tuple[str, dict[str, Any], str]] = []
    text_field = sources[0].text_field  # one for every input

    def flush() -> None:
        result = deduper([text for _, _, text in batch])
        for i, text in zip(result.kept.tolist(), result.texts, strict=True):
            where, record, _ = batch[i]
            record[text_field] = text
            jsonl._write_all(writer.sink, jsonl._dumps(where, record) + b"\n")
        summary.documents += result.documents
        summary.paragraphs += int(result.units.sum())
        summary.paragraphs_removed += int(result.removed.sum())
        summary.documents_changed += int(np.count_nonzero(result.removed))
        summary.documents_short += int(result.short.sum())
        summary.documents_dropped += result.documents - len(result.kept)
        summary.written += len(result.kept)
        batch.clear()

    for row in _rows(sources):
        batch.append(row)
        if len(batch) == batch_size:
            flush()
    if batch:
        flush()
