"""Paragraph-level dedup: remove the paragraphs (or lines) that occur earlier in a corpus.

Each document is cut on blank lines (``split="paragraph"``) or into lines (``split="line"``);
each unit is normalised with the rules of :func:`neardup.normalize` and keyed by the first
128 bits of the SHA-256 of its normalised text (the key of ``exact_duplicates(...,
method="sha256-normalized")`` for a document made of that unit alone). A unit whose key was
seen before — in an earlier document or earlier in the same one — is removed; the first
occurrence stays. A unit without words (``***``) is never removed. Cuts fall on line breaks
only, so no word is ever cut; the separator before each kept unit is the one it had, so no
blank lines pile up, and a document with nothing removed comes back unchanged.

The work is the Rust core's (``rust/paragraphs.rs``), batch by batch: :class:`ParagraphDeduper`
streams, holding one 128-bit key (and a position) per distinct paragraph, or with
``memory="bloom"`` a Bloom filter of ``bloom_bits`` bits whose false-positive rate — the
chance that a new paragraph is taken for a seen one and removed — is (1 − e^(−kn/m))^k after
n distinct paragraphs (k = ``bloom_hashes``, m = ``bloom_bits``), reported as it grows.

>>> r = dedup_paragraphs(["Hello there.\\n\\nCookie banner.", "Cookie  BANNER!\\n\\nNews."])
>>> r.texts, r.removed.tolist(), r.spans.tolist()
(['Hello there.\\n\\nCookie banner.', 'News.'], [0, 1], [[1, 0, 15]])
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sized
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from neardup import _core
from neardup._core import HASH_VERSION
from neardup._texts import as_core_texts, iter_batches, reindexed
from neardup._validate import (
    MAX_BATCH,
    check_choice,
    check_hash_version,
    check_int,
    check_threshold,
)
from neardup.errors import InvalidArgumentError
from neardup.plan import Plan, make_plan
from neardup.stores import MemoryStore

__all__ = [
    "DEFAULT_BLOOM_BITS",
    "ParagraphDeduper",
    "ParagraphResult",
    "dedup_paragraphs",
    "near_decisions",
]

#: Bits of the Bloom filter when ``memory="bloom"`` and no size is given: 128 MiB, which keeps
#: the false-positive rate near 1 % up to about 110 million distinct paragraphs (k = 7).
DEFAULT_BLOOM_BITS = 2**30

Split = Literal["paragraph", "line"]
Memory = Literal["exact", "bloom"]


@dataclass
class ParagraphResult:
    """What :func:`dedup_paragraphs` (or one :meth:`ParagraphDeduper.add`) returns.

    ``texts`` holds the cleaned text of each document in ``kept`` (all of them unless
    ``drop_short``); the arrays have one entry per input document: ``removed`` units removed,
    ``units`` units the document had, ``words`` words (hash version 2: tokens) left, ``short``
    fewer than ``min_words`` words left. ``spans`` int64[m, 3] rows (document, start, end)
    are the removed units in characters of the original text.

    >>> ParagraphResult(texts=[], removed=np.zeros(0, np.int64)).documents
    0
    """

    texts: list[str]
    removed: np.ndarray
    units: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    words: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    short: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    spans: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), np.int64))
    kept: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: Bloom mode: the stated false-positive rate after this result (None in exact mode).
    bloom_false_positive_rate: float | None = None
    #: Near mode (threshold < 1): the plan :func:`neardup.find_duplicates` ran on the
    #: paragraphs (banding, expected recall, candidates); empty in exact mode.
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def documents(self) -> int:
        """Documents given."""
        return len(self.removed)

    def summary(self) -> dict[str, Any]:
        """Counts for a report.

        >>> dedup_paragraphs(["a\\n\\na"]).summary()["paragraphs_removed"]
        1
        """
        return {
            "documents": self.documents,
            "paragraphs": int(self.units.sum()),
            "paragraphs_removed": int(self.removed.sum()),
            "documents_changed": int(np.count_nonzero(self.removed)),
            "documents_short": int(self.short.sum()),
            "documents_dropped": self.documents - len(self.kept),
            "bloom_false_positive_rate": self.bloom_false_positive_rate,
        }


def bloom_false_positive_rate(distinct: int, bits: int, hashes: int) -> float:
    """(1 − e^(−kn/m))^k: the chance that a new key is reported present by a Bloom filter of
    m = ``bits`` bits and k = ``hashes`` probes holding n = ``distinct`` keys.

    >>> round(bloom_false_positive_rate(1_000_000, 10_000_000, 7), 4)
    0.0082
    """
    return float((1.0 - math.exp(-hashes * distinct / bits)) ** hashes)


class ParagraphDeduper:
    """Paragraph dedup over a stream: :meth:`add` batches in input order; each batch's units
    are compared with everything added before (see the module).

    >>> d = ParagraphDeduper(split="line")
    >>> d.add(["a\\nb"]).texts, d.add(["b\\nc"]).texts, d.paragraphs_removed
    (['a\\nb'], ['c'], 1)
    """

    def __init__(
        self,
        *,
        split: Split = "paragraph",
        memory: Memory = "exact",
        bloom_bits: int = DEFAULT_BLOOM_BITS,
        bloom_hashes: int = 7,
        min_words: int = 1,
        drop_short: bool = False,
        hash_version: int = HASH_VERSION,
        threads: int = 1,
    ) -> None:
        self.split = check_choice("split", split, ("paragraph", "line"))
        self.memory = check_choice("memory", memory, ("exact", "bloom"))
        self.bloom_bits = check_int("bloom_bits", bloom_bits, low=64, high=2**63 - 1)
        self.bloom_hashes = check_int("bloom_hashes", bloom_hashes, low=1, high=64)
        self.min_words = check_int("min_words", min_words, low=0, high=2**62)
        if not isinstance(drop_short, bool):
            raise InvalidArgumentError(f"drop_short must be True or False, got {drop_short!r}")
        self.drop_short = drop_short
        self.hash_version = check_hash_version(hash_version)
        self.threads = check_int("threads", threads, low=1, high=1024)
        self._core = _core.ParagraphDedup(
            self.split,
            self.hash_version,
            self.threads,
            self.bloom_bits if self.memory == "bloom" else None,
            self.bloom_hashes,
        )
        self.documents = 0

    @property
    def paragraphs(self) -> int:
        """Units seen so far."""
        return int(self._core.units)

    @property
    def paragraphs_removed(self) -> int:
        """Units removed so far."""
        return int(self._core.removed)

    @property
    def bloom_false_positive_rate(self) -> float | None:
        """Bloom mode: the chance that the next new paragraph is removed, stated from the
        formula with the distinct paragraphs inserted so far; None in exact mode."""
        state = self._core.bloom
        return None if state is None else float(state[1])

    def add(self, texts: Any) -> ParagraphResult:
        """Clean the next batch; ``spans`` and ``kept`` count documents within the batch.

        >>> ParagraphDeduper().add(["x\\n\\nx"]).texts
        ['x']
        """
        batch = self._core.add(as_core_texts(texts))
        self.documents += len(batch[1])
        result = _result(batch, self.min_words, self.drop_short)
        result.bloom_false_positive_rate = self.bloom_false_positive_rate
        return result


def _result(batch: tuple[Any, ...], min_words: int, drop_short: bool) -> ParagraphResult:
    """A :class:`ParagraphResult` of the core's (texts, removed, units, words, spans)."""
    cleaned, removed, units, words, spans = batch
    short = words < min_words
    kept = np.flatnonzero(~short) if drop_short else np.arange(len(removed))
    if drop_short:
        cleaned = [cleaned[i] for i in kept.tolist()]
    return ParagraphResult(
        texts=cleaned,
        removed=removed,
        units=units,
        words=words,
        short=short,
        spans=spans,
        kept=kept.astype(np.int64),
    )


def near_decisions(
    texts: Any,
    threshold: float,
    *,
    split: Split = "paragraph",
    hash_version: int = HASH_VERSION,
    threads: int = 1,
    **minhash: Any,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Near mode's decisions: bool[u], True for each unit (in document order) that a unit
    earlier in ``texts`` makes a duplicate of at ``threshold``, by
    :func:`neardup.find_duplicates` on the units as documents (``method="minhash"``: MinHash
    signatures, LSH candidates, exact Jaccard verification; clusters keep their first unit);
    int64[n] units of each document; and the plan it ran. ``minhash``: ``num_perm``, ``k``,
    ``seed``, ``bands``, ``rows``, ``algorithm``, ``bucket_limit``.

    >>> dup, units, plan = near_decisions(["a b c d e f g h", "a b c d e f g x"], 0.5, k=2)
    >>> dup.tolist(), units.tolist(), plan["method"]
    ([False, True], [1, 1], 'minhash')
    """
    plan = near_plan(threshold, hash_version, threads, **minhash)
    units, per_doc = _core.paragraph_units(
        texts, check_choice("split", split, ("paragraph", "line"))
    )
    duplicate, params = near_flags(plan, MemoryStore(units))
    return duplicate, per_doc, params


#: The MinHash options near mode takes.
NEAR_OPTIONS = frozenset({"num_perm", "k", "seed", "bands", "rows", "algorithm", "bucket_limit"})


def near_plan(threshold: float, hash_version: int, threads: int, **minhash: Any) -> Plan:
    """The plan of near mode: MinHash + LSH, exact verification, the first unit of each
    cluster kept (``minhash``: :data:`NEAR_OPTIONS`).

    >>> near_plan(0.8, 2, 1, k=3).method, near_plan(0.8, 2, 1).verify
    ('minhash', 'exact')
    """
    unknown = set(minhash) - NEAR_OPTIONS
    if unknown:
        raise InvalidArgumentError(f"unknown option {sorted(unknown)[0]!r} for near mode")
    return make_plan(
        threshold=threshold,
        method="minhash",
        verify="exact",
        keep="first",
        hash_version=hash_version,
        threads=threads,
        **minhash,
    )


def near_flags(plan: Plan, store: Any) -> tuple[np.ndarray, dict[str, Any]]:
    """(bool[u]: the units, in store order, that an earlier unit makes a duplicate of; the
    plan run) for the units a document store yields (:mod:`neardup.stores`; the files' are
    streamed by :class:`neardup.paragraph_files.ParagraphStore`): the engine's run without
    the reported pairs, so memory holds digests and signatures, never the texts.

    >>> from neardup.stores import MemoryStore
    >>> near_flags(near_plan(0.5, 2, 1, k=1), MemoryStore(["a b", "a b", "c"]))[0].tolist()
    [False, True, False]
    """
    from neardup import engine

    out = engine.run(plan, store, report=False)
    return np.ascontiguousarray(~out.keep), out.params()


def _merge(parts: list[ParagraphResult], starts: list[int]) -> ParagraphResult:
    """One result of the batches' results (positions made global)."""
    if not parts:
        return ParagraphResult(texts=[], removed=np.zeros(0, np.int64))
    spans = [p.spans + np.array([s, 0, 0], np.int64) for p, s in zip(parts, starts, strict=True)]
    return ParagraphResult(
        texts=[t for p in parts for t in p.texts],
        removed=np.concatenate([p.removed for p in parts]),
        units=np.concatenate([p.units for p in parts]),
        words=np.concatenate([p.words for p in parts]),
        short=np.concatenate([p.short for p in parts]),
        spans=np.concatenate(spans),
        kept=np.concatenate([p.kept + s for p, s in zip(parts, starts, strict=True)]),
        bloom_false_positive_rate=parts[-1].bloom_false_positive_rate,
    )


def dedup_paragraphs(
    texts: Any,
    *,
    threshold: float = 1.0,
    split: Split = "paragraph",
    memory: Memory = "exact",
    bloom_bits: int = DEFAULT_BLOOM_BITS,
    bloom_hashes: int = 7,
    min_words: int = 1,
    drop_short: bool = False,
    hash_version: int = HASH_VERSION,
    threads: int = 1,
    batch_size: int = 10_000,
    **minhash: Any,
) -> ParagraphResult:
    """Remove every paragraph that occurs earlier in ``texts``; keep the first occurrence.

    ``texts`` is anything :func:`neardup.find_duplicates` takes (an iterable without a length
    goes through in batches of ``batch_size``). ``threshold=1`` (the default): exact after
    normalisation. ``split="line"``: each line is a unit. ``memory="bloom"``: a Bloom filter
    of ``bloom_bits`` bits and ``bloom_hashes`` probes instead of a table of keys (its stated
    false-positive rate is in the result). Documents left with fewer than ``min_words``
    words are flagged in ``short`` and, with ``drop_short=True``, left out of ``texts``
    (``kept`` lists the documents ``texts`` holds).

    ``threshold < 1``: near duplicates — a paragraph is removed when its word-shingle Jaccard
    similarity with an earlier one (through a cluster of such pairs) reaches ``threshold``,
    found by the MinHash stages of :func:`neardup.find_duplicates` run on the paragraphs
    (:func:`near_decisions`; ``minhash`` takes ``num_perm``, ``k``, ``seed``, ``bands``,
    ``rows``, ``algorithm``, ``bucket_limit``) and verified exactly. Near mode holds every
    paragraph of ``texts`` in memory (exact mode streams); ``result.params`` is the plan.

    >>> r = dedup_paragraphs(["A.\\nB.\\nC.", "B.\\nD."], split="line")
    >>> r.texts, r.removed.tolist(), r.spans.tolist()
    (['A.\\nB.\\nC.', 'D.'], [0, 1], [[1, 0, 2]])
    >>> dedup_paragraphs(["one\\n\\ntwo", "two"], drop_short=True).kept.tolist()
    [0]
    >>> near = dedup_paragraphs(["a b c d e f g h\\n\\nz", "a b c d e f g x"], threshold=0.5, k=2)
    >>> near.texts, near.params["verify"]
    (['a b c d e f g h\\n\\nz', ''], 'exact')
    """
    threshold = check_threshold(threshold)
    if threshold < 1.0 or minhash:
        if memory != "exact":
            raise InvalidArgumentError("memory='bloom' is for exact mode (threshold=1)")
        deduper = ParagraphDeduper(
            split=split, min_words=min_words, drop_short=drop_short, hash_version=hash_version
        )  # checks the options
        core = as_core_texts(texts)
        duplicate, _, plan = near_decisions(
            core,
            threshold,
            split=deduper.split,  # type: ignore[arg-type]
            hash_version=deduper.hash_version,
            threads=threads,
            **minhash,
        )
        cleaned = _core.paragraph_clean(
            core,
            deduper.split,
            deduper.hash_version,
            duplicate,
            check_int("threads", threads, low=1, high=1024),
        )
        result = _result(cleaned, deduper.min_words, deduper.drop_short)
        result.params = plan
        return result
    deduper = ParagraphDeduper(
        split=split,
        memory=memory,
        bloom_bits=bloom_bits,
        bloom_hashes=bloom_hashes,
        min_words=min_words,
        drop_short=drop_short,
        hash_version=hash_version,
        threads=threads,
    )
    batch_size = check_int("batch_size", batch_size, low=1, high=MAX_BATCH)
    if isinstance(texts, Sized) or not isinstance(texts, Iterable):
        return _merge([deduper.add(texts)], [0])
    parts: list[ParagraphResult] = []
    starts: list[int] = []
    start = 0
    for batch in iter_batches(texts, batch_size):
        try:
            parts.append(deduper.add(batch))
        except (TypeError, ValueError) as error:
            raise reindexed(error, start) from None
        starts.append(start)
        start += len(batch)
    return _merge(parts, starts)
