"""``find_duplicates``: the stages chained into one call, with the article's method choice."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from neardup import _core, engine, stages
from neardup._validate import check_keys
from neardup.errors import InvalidArgumentError
from neardup.keep import NO_PRIORITIES
from neardup.plan import AUTO_EXACT_LIMIT, BUCKET_LIMIT, SPANNING_LIMIT, Method, make_plan
from neardup.stores import MemoryStore


class _KeptSimilarity:
    """:attr:`DuplicateResult.kept_similarity`, computed on first read from the run's evidence
    (exact Jaccard of each near-duplicate and its kept document: random merges over the held
    sets, 43 ms at 100,000 documents of the article corpus, 3.5 % of the run) and kept; a
    result built with one, or without evidence, has it as given (NaN where unknown)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = f"_{name}_value"

    def __get__(self, result: Any, owner: type | None = None) -> Any:
        if result is None:
            return None  # the field's default
        value = result.__dict__.get(self.slot)
        if value is None:
            value = result._kept_similarity_now()
            result.__dict__[self.slot] = value
        return value

    def __set__(self, result: Any, value: Any) -> None:
        result.__dict__[self.slot] = None if value is None or value is self else value


@dataclass(frozen=True)
class DuplicateResult:
    """What :func:`find_duplicates` found.

    ``pairs`` int64[m, 2] (i < j, sorted) with ``similarity`` float32[m]; ``clusters`` int64[n]
    labels each document with the lowest index of its cluster; ``keep`` bool[n] is True for one
    representative per cluster (by the ``keep`` policy: the first or the longest) and for every
    singleton. ``params`` is the resolved plan (:meth:`neardup.Plan.as_dict`) plus what the run
    decided: ``pairs_used`` (``"all"`` or ``"spanning"``), ``candidates``, ``unique``
    (documents left after collapsing exact duplicates), ``exact_duplicates``, ``pairs_reported``.
    """

    pairs: np.ndarray
    similarity: np.ndarray
    clusters: np.ndarray
    method: str
    threshold: float
    params: dict[str, Any] = field(default_factory=dict)
    #: The searched texts as the core saw them (kept by reference, for display only).
    texts: Any = field(default=None, repr=False, compare=False)
    #: bool[n]: True for the documents to keep (one per cluster, by the keep policy).
    keep: np.ndarray = field(default=None, repr=False, compare=False)  # type: ignore[arg-type]
    #: int64[n]: the kept document of each document's cluster (itself when kept).
    representative: np.ndarray = field(default=None, repr=False, compare=False)  # type: ignore[arg-type]
    #: float64[n]: each document's similarity to its cluster's kept document (1.0 when kept),
    #: computed on first read.
    kept_similarity: np.ndarray = field(
        default=_KeptSimilarity(),  # type: ignore[arg-type]
        repr=False,
        compare=False,
    )
    #: (first exact duplicate int64[n], the run's Evidence): what ``annotate``/``filter`` with
    #: ``keep=`` need for the similarity to a re-chosen kept document. It holds the unique
    #: documents' signatures (4·P bytes each for MinHash) and the shingle sets held for exact
    #: Jaccard, for as long as the result lives.
    _evidence: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.keep is None:  # built by hand: the lowest index of each cluster is kept
            object.__setattr__(self, "keep", self.clusters == np.arange(len(self.clusters)))
        if self.representative is None:
            kept_of = np.zeros(len(self.clusters), dtype=np.int64)
            kept_of[self.clusters[self.keep]] = np.flatnonzero(self.keep)
            object.__setattr__(self, "representative", kept_of[self.clusters])

    def _kept_similarity_now(self) -> np.ndarray:
        """:attr:`kept_similarity` from the run's evidence; NaN for near-duplicates without."""
        if self._evidence is None:  # built by hand: unknown but for the kept documents
            return np.where(self.keep, 1.0, np.nan)
        first, evidence = self._evidence
        return engine.kept_similarity(first, self.keep, self.representative, evidence)

    @property
    def duplicate_of(self) -> np.ndarray:
        """int64[n]: the kept document each removed document duplicates; -1 for kept ones.

        >>> find_duplicates(["a b c", "a b c", "d e"], k=1).duplicate_of.tolist()
        [-1, 0, -1]
        """
        return np.where(self.keep, -1, self.representative).astype(np.int64)

    def annotate(self, table: Any, keep: Any = None) -> Any:
        """``table`` (the pandas/polars DataFrame, pyarrow Table or ``datasets.Dataset`` the
        texts came from, one row per document) with columns ``cluster``, ``keep``,
        ``duplicate_of`` and ``similarity`` (to the kept document) added.

        ``keep``: a column of ``table`` (or an array) of priorities re-chooses the kept
        document of each cluster (highest priority, ties to the lowest index, as
        ``find_duplicates(keep=array)`` does); the clusters stay those found.

        >>> import pandas as pd
        >>> df = pd.DataFrame({"text": ["a b c", "a b c", "d e"], "score": [1, 2, 0]})
        >>> find_duplicates(df["text"], k=1).annotate(df)["duplicate_of"].tolist()
        [-1, 0, -1]
        >>> find_duplicates(df["text"], k=1).annotate(df, keep="score")["duplicate_of"].tolist()
        [1, -1, -1]
        """
        from neardup.tables import annotate, annotation_columns

        kept, rep, similarity = self._kept(table, keep)
        reason = self._reasons(kept, rep)
        return annotate(annotation_columns(self.clusters, kept, rep, similarity, reason), table)

    def filter(self, table: Any, keep: Any = None) -> Any:
        """The rows of ``table`` to keep (one per cluster), as the same kind of table;
        ``keep`` as in :meth:`annotate`.

        >>> import pandas as pd
        >>> df = pd.DataFrame({"text": ["a b c", "a b c", "d e"], "score": [1, 2, 0]})
        >>> find_duplicates(df["text"], k=1).filter(df)["text"].tolist()
        ['a b c', 'd e']
        >>> find_duplicates(df["text"], k=1).filter(df, keep="score").index.tolist()
        [1, 2]
        """
        from neardup.tables import filter_rows

        return filter_rows(self._kept(table, keep)[0], table)

    def _kept(self, table: Any, keep: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(keep, representative, similarity to it) as found, or re-chosen by priorities."""
        if keep is None:
            return self.keep, self.representative, self.kept_similarity
        from neardup.keep import check_priorities, keep_mask
        from neardup.tables import column_values

        values = column_values(table, keep) if isinstance(keep, str) else keep
        priorities = check_priorities(values, self.n)
        kept, rep = keep_mask(self.clusters, priorities, "priority")
        similarity = np.where(rep == self.representative, self.kept_similarity, np.nan)
        changed = np.flatnonzero(np.isnan(similarity) & ~kept)
        similarity[kept] = 1.0
        if self._evidence is not None and len(changed):
            first, evidence = self._evidence
            similarity[changed] = engine.kept_similarity(first, kept, rep, evidence)[changed]
        return kept, rep, similarity

    def _reasons(self, keep: np.ndarray, rep: np.ndarray) -> np.ndarray:
        from neardup import groups

        first = self._evidence[0] if self._evidence is not None else np.arange(self.n)
        rows = groups.same_set_rows(keep, rep, first)
        same = np.zeros(self.n, dtype=bool)
        if len(rows) and self.texts is not None:
            same[rows] = groups.same_bytes(self.texts, rows, rep[rows])
        return groups.reason_names(groups.reason_codes(keep, rep, first, same))

    @property
    def reason(self) -> np.ndarray:
        """str[n]: why each document is kept or removed: ``"kept"``; ``"exact"`` (the bytes
        of its kept document); ``"normalized"`` (the same shingle set as it, other bytes:
        identical after normalisation, or differing only in repeated shingles); ``"near"`` (a
        near-duplicate: similarity in :attr:`kept_similarity`). Numpy work on the run's
        decisions; the texts are compared only for rows with their kept document's set.

        >>> find_duplicates(["a b c", "a b c", "A b, c", "a b c d"], k=1).reason.tolist()
        ['kept', 'exact', 'normalized', 'near']
        """
        return self._reasons(self.keep, self.representative)

    def groups(self) -> Any:
        """The duplicate groups (:class:`neardup.Groups`): one per cluster of two or more
        documents, largest first, with its kept document, members, size and lowest
        similarity to the kept document.

        >>> g = find_duplicates(["a b c", "x y", "a b c", "a b c d"], k=1).groups()
        >>> g.kept.tolist(), g.members.tolist(), g.size.tolist(), g.min_similarity.tolist()
        ([0], [0, 2, 3], [3], [0.75])
        """
        from neardup.groups import duplicate_groups

        return duplicate_groups(
            self.clusters, self.keep, self.representative, self.kept_similarity, self.texts
        )

    def explain(self, i: int, j: int) -> Any:
        """Why documents ``i`` and ``j`` match, on this run's shingles (:func:`neardup.explain`,
        with the run's signature estimate when it signed them).

        >>> r = find_duplicates(["the cat sat on the mat", "The cat sat on a mat"], k=2)
        >>> e = r.explain(0, 1); round(e.jaccard, 4), e.spans[1].tolist()
        (0.4286, [[0, 14]])
        """
        from neardup.explain import explain_rows

        return explain_rows(self, i, j)

    def at(self, threshold: float, keep: Any = None) -> DuplicateResult:
        """This run's result at a ``threshold`` at or above its own, from its pairs: no text
        read, nothing signed again. ``keep``: priorities, for a run that kept by priority.

        Where the run compared all pairs (exact Jaccard, ``method="exact-jaccard"`` or
        ``"auto"`` below its limit) the pairs, clusters and kept documents are exactly a fresh
        run's at ``threshold``. With MinHash and exact verification, every pair is exact and
        at or above ``threshold``, and a fresh run's pairs are found as far as its candidates
        are among this run's (a lower threshold's banding catches at least as many pairs at
        the higher one, almost surely). With ``verify="estimate"`` the similarity is the
        signatures' estimate, so pairs near the threshold may differ from a fresh run's either
        way. A run that reported spanning pairs only (``params["pairs_used"]``) is refused.

        >>> r = find_duplicates(["a b c d", "a b c e", "a b x y"], k=1, threshold=0.3)
        >>> r.clusters.tolist(), r.at(0.5).clusters.tolist()
        ([0, 0, 0], [0, 0, 2])
        """
        from neardup.sweep import result_at

        return result_at(self, threshold, keep)

    def sweep(self, thresholds: Any = None) -> Any:
        """Documents kept and removed, clusters and the largest cluster at each threshold
        (default: 11 from the run's to 1) as :class:`neardup.Sweep` (``.to_pandas()``,
        ``.plot()``).

        >>> r = find_duplicates(["a b c d", "a b c e", "a b x y"], k=1, threshold=0.3)
        >>> r.sweep([0.3, 0.5, 1.0]).kept.tolist()
        [1, 2, 3]
        """
        from neardup.sweep import sweep

        return sweep(self, thresholds)

    def keep_at_most(self, n: float, keep: Any = None) -> DuplicateResult:
        """The result (:meth:`at`) at the highest threshold that keeps at most ``n``
        documents (a count, or a fraction of them in (0, 1)); an error names the fewest a
        run at this threshold can keep when that is more.

        >>> r = find_duplicates(["a b c d", "a b c e", "a b x y"], k=1, threshold=0.3)
        >>> r.keep_at_most(2).threshold
        0.6
        """
        from neardup.sweep import keep_at_most

        return keep_at_most(self, n, keep)

    @property
    def n(self) -> int:
        """Number of documents searched."""
        return len(self.clusters)

    @property
    def num_removed(self) -> int:
        """Documents that are near-duplicates of a kept one."""
        return int(self.n - np.count_nonzero(self.keep))

    @property
    def num_clusters(self) -> int:
        """Clusters of two or more documents (units, with ``unit_of``)."""
        return len(np.unique(self.clusters[~self.keep]))

    def to_pandas(self) -> Any:
        """The pairs as a pandas DataFrame with columns ``i``, ``j``, ``similarity``.

        >>> find_duplicates(["a b c", "a b c"], k=1).to_pandas().shape
        (1, 3)
        """
        import pandas as pd

        return pd.DataFrame(
            {"i": self.pairs[:, 0], "j": self.pairs[:, 1], "similarity": self.similarity}
        )

    def __repr__(self) -> str:
        return (
            f"DuplicateResult(method={self.method!r}, threshold={self.threshold}, n={self.n}, "
            f"pairs={len(self.pairs)}, clusters={self.num_clusters}, removed={self.num_removed})"
        )

    def _repr_html_(self) -> str:
        from neardup._display import result_html

        return result_html(self, self.texts)

    def plot(self, ax: Any = None, bins: int = 50) -> Any:
        """Histogram of the pairs' similarity with the threshold marked (needs matplotlib).

        >>> find_duplicates(["a b c", "a b c"], k=1).plot()  # doctest: +SKIP
        """
        from neardup._display import result_plot

        return result_plot(self, ax=ax, bins=bins)


def pairs_within_groups(labels: np.ndarray) -> np.ndarray:
    """All pairs i < j of documents sharing a label, int64[m, 2], sorted.

    >>> pairs_within_groups(np.array([0, 1, 0, 0])).tolist()
    [[0, 2], [0, 3], [2, 3]]
    """
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.dtype.kind not in "iu":
        raise InvalidArgumentError(
            f"labels must be a 1-d integer array of group labels, got {labels.dtype} "
            f"of shape {labels.shape}"
        )
    # int64 keeps every label distinct (uint64 wraps one to one); rust/report.rs pairs them
    return _core.label_pairs(np.ascontiguousarray(labels, dtype=np.int64))


def find_duplicates(
    texts: Any,
    threshold: float = 0.3,
    method: Method = "auto",
    num_perm: int = 128,
    k: int = 5,
    bands: int | None = None,
    rows: int | None = None,
    seed: int = 0,
    verify: Literal["exact", "estimate"] = "exact",
    unit: stages.Unit = "word",
    simhash_bits: int = 64,
    max_hamming: int | None = None,
    threads: int = 1,
    pairs: Literal["auto", "all", "spanning"] = "auto",
    strip_boilerplate: float | None = None,
    algorithm: Literal["classic", "oph"] = "classic",
    hash_version: int | None = None,
    keep: Literal["first", "longest"] | Any = "first",
    auto_exact_limit: int = AUTO_EXACT_LIMIT,
    spanning_limit: int = SPANNING_LIMIT,
    bucket_limit: int | None = BUCKET_LIMIT,
    *,
    within: Any = None,
    unit_of: Any = None,
) -> DuplicateResult:
    """Finds near-duplicate documents, clusters them and picks one to keep per cluster.

    The options are checked once (:func:`neardup.make_plan`) and run through the same stages
    as ``neardup dedup`` (:mod:`neardup.engine`), so both keep the same documents. First,
    documents with identical shingle sets (identical normalised text) collapse onto their
    first occurrence; the near-duplicate search then runs on the unique documents.

    ``method``: ``"auto"`` brute-forces exact Jaccard up to ``auto_exact_limit`` (5,000)
    unique documents and uses MinHash + LSH above; ``"exact-jaccard"``; ``"minhash"`` (LSH
    banding from :func:`neardup.choose_banding` unless ``bands``/``rows`` are given: with
    exact verification recall-first, a pair exactly at the threshold becomes a candidate with
    probability >= 0.99, and ``params`` records ``expected_recall``, ``predicted_candidates``,
    ``candidates`` and ``banding_reason``; candidates verified by exact Jaccard of the shingle
    sets, made for the candidates' documents only, or with ``verify="estimate"`` by the share
    of equal slots under the classic banding of :func:`lsh_params`; ``algorithm="oph"`` signs by
    one-permutation hashing); ``"simhash"`` (pairs within ``max_hamming`` bits, by default the
    radius matching ``threshold``, brute force; verified by exact Jaccard, or with
    ``verify="estimate"`` kept with similarity 1 - distance/bits); ``"sha256"`` /
    ``"sha256-normalized"`` (identical bytes / identical normalised text; similarity 1).
    Empty documents are never duplicates of anything (SHA-256 still groups them).
    ``strip_boilerplate=max_df`` first drops every shingle found in more than that share of
    the documents (see :func:`neardup.strip_boilerplate`; statistics in
    ``params["boilerplate"]``); documents identical before stripping stay exact duplicates.

    ``pairs``: ``"all"`` reports every pair at or above the threshold (an exact duplicate
    inherits its first occurrence's pairs); ``"spanning"`` only the pairs that join the
    clusters (each exact duplicate with its first occurrence; for MinHash, the bucket leaders'
    edges), so m identical documents cost m - 1 pairs instead of m(m - 1)/2 — MinHash clusters
    can then be finer, never coarser. ``"auto"`` (default) answers with all pairs unless that
    would exceed ``spanning_limit`` (20 million: the LSH buckets' candidate pairs, or the pairs
    to report), and then with spanning pairs: the clusters and ``keep`` are the same, memory
    stays O(n + pairs reported), and ``params["pairs_used"]`` says which was used.

    ``bucket_limit`` (MinHash, 32): an LSH bucket of more documents is kept whole only when a
    sample of its pairs is mostly above the threshold, else split by more signature slots, so
    shared boilerplate cannot make the work grow as n². A pair that meets only in split
    buckets can be missed: ``params["expected_recall"]`` counts it (P(T) of the banding,
    lowered where buckets were split), and a :class:`neardup.errors.NeardupWarning` says so
    when it falls below the target; ``bucket_limit=None`` keeps every bucket whole. With exact
    verification, candidates whose signatures agree on too few slots for J >= T (a chance
    below 1e-9 per pair at the threshold) are dropped before their sets are compared
    (``params["screened"]``).

    ``keep``: ``"first"`` keeps the lowest index of each cluster, ``"longest"`` the document
    with the most characters, and an array of numbers (one per document: a numpy array, a
    list, a pandas/polars Series, an Arrow array) keeps the highest priority; ties go to
    the lowest index (:mod:`neardup.keep`; ``params["keep"]`` is then ``"priority"``).
    NaN, nulls, non-numbers and a wrong length are refused.

    ``within`` (one key per document: a list, numpy array or pandas Series of str, numbers
    or tuples): only documents sharing a key are compared, so the result is each partition's
    as if run alone (per dump, per language), from one plan resolved for the whole corpus;
    exact copies and LSH candidates never cross two partitions and the cost is the sum of the
    partitions' (``params["partitions"]``). ``unit_of`` (one key per row): rows sharing a key
    are one document, their texts joined in row order (:mod:`neardup.units`); a unit is kept
    or removed whole, every row carries its unit's decision, and clusters, representatives
    and pairs name units by their first row (``params["units"]``). A unit's priority is its
    rows' highest. None, NaN and a wrong length are refused.

    >>> r = find_duplicates(["the cat sat on the mat", "The cat sat on the mat!", "dogs"], k=2)
    >>> r.pairs.tolist(), r.keep.tolist()
    ([[0, 1]], [True, False, True])
    >>> find_duplicates(["a b c", "a b c", "d"], k=1, keep=[1, 5, 0]).keep.tolist()
    [False, True, True]
    >>> find_duplicates(["a b c", "a b c"], k=1, within=["x", "y"]).keep.tolist()
    [True, True]
    >>> find_duplicates(["a b", "c d", "a b", "c d"], k=1, unit_of=[1, 1, 2, 2]).keep.tolist()
    [True, True, False, False]
    """
    priorities, policy = None, keep  # policy: a name, checked by make_plan (None refused)
    if keep is not None and not isinstance(keep, str):
        priorities, policy = keep, "priority"
    plan = make_plan(
        threshold=threshold,
        method=method,
        num_perm=num_perm,
        k=k,
        unit=unit,
        bands=bands,
        rows=rows,
        seed=seed,
        verify=verify,
        pairs=pairs,
        strip_boilerplate=strip_boilerplate,
        simhash_bits=simhash_bits,
        max_hamming=max_hamming,
        threads=threads,
        algorithm=algorithm,
        keep=policy,
        hash_version=hash_version,
        auto_exact_limit=auto_exact_limit,
        spanning_limit=spanning_limit,
        bucket_limit=bucket_limit,
        within=within is not None,
        unit_of=unit_of is not None,
    )
    if plan.keep == "priority" and priorities is None:
        raise InvalidArgumentError(NO_PRIORITIES)  # before any work
    store = MemoryStore(texts, priorities=priorities)
    parts = None if within is None else check_keys("within", within, store.n)
    if unit_of is not None:
        return _units_result(plan, store, check_keys("unit_of", unit_of, store.n), parts)
    store.partitions = parts
    return _result(engine.run(plan, store), store.texts)


def _units_result(
    plan: Any, rows: MemoryStore, keys: np.ndarray, parts: np.ndarray | None
) -> DuplicateResult:
    """:func:`find_duplicates` with ``unit_of``: the units run, every row given its unit's."""
    from neardup.keep import check_priorities
    from neardup.units import Units, UnitTexts

    units = Units.from_keys(keys)
    joined = units.join(rows.texts)
    priorities = None
    if rows._priorities is not None:
        priorities = units.priorities(check_priorities(rows._priorities, rows.n))
    store = MemoryStore(joined, priorities=priorities)
    store.partitions = None if parts is None else units.partitions(parts)
    outcome = units.expand(engine.run(plan, store))
    return _result(outcome, UnitTexts(joined, units.of_row))


def _result(outcome: engine.Outcome, texts: Any) -> DuplicateResult:
    """The result of a run (``texts``: what display, reasons and explain read, per row)."""
    return DuplicateResult(
        outcome.pairs,
        outcome.similarity,
        outcome.labels,
        outcome.plan.method,
        outcome.plan.threshold,
        outcome.params(),
        texts=texts,
        keep=outcome.keep,
        representative=outcome.representative,
        _evidence=(outcome.first, outcome.evidence),
    )
