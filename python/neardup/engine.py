"""The one stage sequence every executor runs, from a :class:`~neardup.plan.Plan`: one crate
object, ``_core.Run`` (``rust/run/mod.rs``), made from the plan once and fed the store's batches.

    store ──Run.sign, per batch (rust/sign_pass.rs): shingle, digest, sign; collapse: each
            document's first exact duplicate, identical shingle sets or identical bytes /
            normalised text for the SHA-256 methods; the unique documents' sets held or
            spilled──> first[n], and of the unique documents their digests and signatures
      ──Run.finish: the plan resolved for the number of unique documents (``method="auto"``)
      ──Run.near (:func:`neardup.near.near_stage`; rust/near/stage.rs: the banding, the only
            dispatch on method, pairs among uniques, clusters)──> labels[n] (lowest position)
      ──Run.keep: the keep policy (rust/keep.rs)──> keep[n], and the reported pairs
            (rust/report.rs): all pairs (as if nothing was collapsed) or spanning pairs

:func:`run` feeds it from a document store (:mod:`neardup.stores`): the texts given to
:func:`neardup.find_duplicates` or the files of ``neardup dedup``, so both keep the same rows.
Python keeps what is Python's: the store's batches, the boilerplate's two counting passes,
the priorities read from the store, what the run decided written into ``info``, the timings.
The Ray engine runs the same crate stages per partition.

>>> from neardup.plan import make_plan
>>> from neardup.stores import MemoryStore
>>> out = run(make_plan(k=2), MemoryStore(["a b c d", "a b c d", "a b c e", "x y"]))
>>> out.keep.tolist(), out.pairs.tolist()
([True, False, False, True], [[0, 1], [0, 2], [1, 2]])
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from neardup import _core, stages
from neardup import spill as spill_module
from neardup._texts import core_texts, reindexed
from neardup.boilerplate import summarize
from neardup.evidence import Evidence
from neardup.keep import core_measure, policy_measure
from neardup.keep import keep_mask as keep_mask  # re-exported: engine.keep_mask predates keep.py
from neardup.near import near_stage
from neardup.partitions import partition_salts
from neardup.plan import Plan
from neardup.spill import SetSpill
from neardup.stores import DocumentStore

#: Shingle hashes (8 bytes each) of the unique documents held from the sign pass for exact
#: verification; past it, the sign pass appends every unique document's set to a spill file
#: (:class:`neardup.spill.SetSpill`) that exact verification reads the candidates' back from.
HOLD_SETS_BUDGET = 1 << 25

#: A caller holding its texts in memory (``find_duplicates`` on a list) has room for their
#: sets as well: the budget is multiplied until it holds about one hash per this many
#: characters of them (a shingle set holds about one per six), so such a run spills only
#: when its sets outgrow the texts themselves. A streamed run (the CLI) keeps the budget.
CHARS_PER_HELD_HASH = 4

#: The steps in which that budget grows (hashes).
HOLD_SETS_STEP = 1 << 25


def hold_budget(store: DocumentStore) -> int:
    """Shingle hashes the sign pass may hold for exact verification before it spills:
    :data:`HOLD_SETS_BUDGET`, times the share a store of in-memory texts makes room for.

    >>> from neardup.stores import MemoryStore
    >>> hold_budget(MemoryStore(["a b c"])) == HOLD_SETS_BUDGET
    True
    """
    text_size = getattr(store, "text_size", None)
    if text_size is None:
        return HOLD_SETS_BUDGET
    wanted = text_size() // CHARS_PER_HELD_HASH
    return HOLD_SETS_BUDGET * max(1, -(-wanted // HOLD_SETS_STEP))


#: ``pairs="all"`` refuses to build more pairs than this (16 bytes each, plus the similarity).
MAX_REPORTED_PAIRS = 1 << 31


# -- after the pass ----------------------------------------------------------------------------


def kept_similarity(
    first: np.ndarray, keep: np.ndarray, representative: np.ndarray, evidence: Evidence
) -> np.ndarray:
    """float64[n]: each document's similarity to the document kept for its cluster — 1.0 for
    kept documents and exact duplicates, the evidence's similarity (exact Jaccard where the
    sets are held, else the signatures' estimate) for near-duplicates.

    >>> from neardup.stages import shingles
    >>> ev = Evidence(np.array([0, 1]), sets=shingles(["a b", "a c", "a b"], k=1))
    >>> keep, rep = np.array([True, False, False]), np.array([0, 0, 0])
    >>> kept_similarity(np.array([0, 1, 0]), keep, rep, ev).round(4).tolist()
    [1.0, 0.3333, 1.0]
    """
    similarity = np.ones(len(first), dtype=np.float64)
    near = ~keep & (first != first[representative])
    if near.any():
        rows = np.flatnonzero(near)
        similarity[rows] = evidence.similarity(first[rows], first[representative[rows]])
    return similarity


# -- the run -----------------------------------------------------------------------------------


@dataclass
class Outcome:
    """Everything a run decided, in input positions; the executors present it.

    ``labels`` (lowest position of the cluster), ``keep``/``representative`` by the plan's
    keep policy, ``first`` (first exact duplicate), ``pairs``/``similarity`` as reported;
    ``info`` what the run decided (pairs mode used, candidate count, ...); ``seconds`` per stage.
    """

    plan: Plan
    pairs: np.ndarray
    similarity: np.ndarray
    labels: np.ndarray
    keep: np.ndarray
    representative: np.ndarray
    first: np.ndarray
    empty: np.ndarray
    info: dict[str, Any]
    evidence: Evidence
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def n(self) -> int:
        """Documents read."""
        return len(self.labels)

    def params(self) -> dict[str, Any]:
        """The resolved plan's dict plus what the run decided (``find_duplicates().params``)."""
        return {**self.plan.as_dict(), **self.info}


class _Timer:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = round(self.seconds.get(name, 0.0) + time.perf_counter() - t0, 4)


def _count_boilerplate(core: _core.Run, second: bool, texts: Any) -> None:
    """Pass 1 (or 2, ``second``) of the run's boilerplate count over one batch's texts."""
    core.count_boilerplate(core_texts(texts), second=second)


def _checked(batch: Any, compute: Any) -> Any:
    """``compute(batch.texts)`` with a failing document named by its global position."""
    try:
        return compute(batch.texts)
    except (TypeError, ValueError) as error:
        raise reindexed(error, batch.start) from None


def run(plan: Plan, store: DocumentStore, report: bool = True) -> Outcome:
    """Run the stage sequence of ``plan`` over ``store`` (see the module docstring).

    >>> from neardup.plan import make_plan
    >>> from neardup.stores import MemoryStore
    >>> run(make_plan(method="minhash", k=2), MemoryStore(["a b c", "a b c"])).info["unique"]
    1

    ``report=False``: the clusters and the kept documents only, no pairs reported (paragraph
    dedup needs no more; expanding the pairs over exact copies can cost more than the search).
    """
    with SetSpill(plan.k, plan.unit, plan.hash_version, spill_module.SPILL_DIR) as spill:
        return _run(plan, store, spill, report)


def _run(plan: Plan, store: DocumentStore, spill: SetSpill, report: bool = True) -> Outcome:
    """:func:`run` with the spill file the sign pass writes past :func:`hold_budget`."""
    timer = _Timer()
    salts = partition_salts(plan, store)
    # The run's one crate object, the plan read once: per batch one call shingles it (the
    # boilerplate shingles stripped), digests and signs it, collapses it and keeps its sets.
    core = _core.Run(spill.core, plan.as_dict(), salts=salts, budget=hold_budget(store))
    if plan.strip_boilerplate is not None and plan.uses_shingles:
        with timer.stage("boilerplate"):  # two counting passes, before the first batch signed
            for second in (False, True):
                count = functools.partial(_count_boilerplate, core, second)
                for batch in store.batches(f"boilerplate {1 + second}/2"):
                    _checked(batch, count)
    with timer.stage("read+sign"):
        for batch in store.batches("sign"):
            _checked(batch, lambda t: core.sign(core_texts(t)))
    with timer.stage("collapse"):
        collapsed = core.finish()
        first, selected = collapsed["first"], collapsed["selected"]
    resolved = dataclasses.replace(plan, **collapsed["resolved"])
    info: dict[str, Any] = {"documents": len(first), "unique": len(selected)}
    info["exact_duplicates"] = int(np.count_nonzero(first != np.arange(len(first))))
    if collapsed["stripped"] is not None:
        # each document's set size before stripping, and the shingles stripped from it
        before, removed = collapsed["stripped"]
        max_df = plan.strip_boilerplate or 0.1
        info["boilerplate"] = summarize(before, removed, max_df, collapsed["dropped"]).as_dict()
    with timer.stage("near pairs"):
        # a store that shows progress (the command line's) hears the near stage's steps too
        resolved, found = near_stage(plan, resolved, core, info, store.progress)
    if salts is not None:
        info["partitions"] = len(np.unique(salts))
    evidence = Evidence(
        selected=selected,
        simhash_bits=resolved.simhash_bits,
        signatures=found["signatures"],
        sets=None if found["sets"] is None else _held_sets(plan, *found["sets"]),
    )
    with timer.stage("cluster"):
        labels = found["labels"]
        measure = policy_measure(resolved.keep, labels, collapsed["lengths"], store)
        keep, rep, pairs, sims, mode, over = core.keep(
            core_measure(measure), report=report, max_pairs=MAX_REPORTED_PAIRS
        )
        if mode is None:  # nothing reported: the search's mode stays on record
            mode = info.get("pairs_used", resolved.pairs)
        if over is not None:
            info["pairs_reason"] = f"all pairs would be {over:,} > spanning_limit"
        info["pairs_used"] = mode
        info["pairs_reported"] = len(pairs)
    empty = collapsed["empty"] if resolved.uses_shingles else np.zeros(len(first), bool)
    return Outcome(
        resolved, pairs, sims, labels, keep, rep, first, empty, info, evidence, timer.seconds
    )


def _held_sets(plan: Plan, offsets: np.ndarray, hashes: np.ndarray) -> stages.ShingleSets:
    """The unique documents' sets the sign pass held, as a ShingleSets."""
    unit: Any = plan.unit
    return stages.ShingleSets(offsets, hashes, k=plan.k, unit=unit, hash_version=plan.hash_version)
