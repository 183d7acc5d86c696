"""``find_duplicates``: the stages chained into one call, with the article's method choice."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from neardup import stages
from neardup._texts import as_core_texts, count
from neardup.banding import choose_banding, lsh_probability
from neardup.plan import Method, make_plan, simhash_max_hamming


@dataclass(frozen=True)
class DuplicateResult:
    """What :func:`find_duplicates` found.

    ``pairs`` int64[m, 2] (i < j, sorted) with ``similarity`` float32[m]; ``clusters`` int64[n]
    labels each document with the lowest index of its cluster; ``keep`` bool[n] is True for one
    representative (the lowest index) per cluster and for every singleton.
    """

    pairs: np.ndarray
    similarity: np.ndarray
    clusters: np.ndarray
    method: str
    threshold: float
    params: dict[str, Any] = field(default_factory=dict)
    #: The searched texts as the core saw them (kept by reference, for display only).
    texts: Any = field(default=None, repr=False, compare=False)

    @property
    def keep(self) -> np.ndarray:
        """bool[n]: True for the documents to keep (one per cluster)."""
        return self.clusters == np.arange(len(self.clusters))

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
        """Clusters of two or more documents."""
        _, sizes = np.unique(self.clusters, return_counts=True)
        return int(np.count_nonzero(sizes > 1))

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
    order = np.argsort(labels, kind="stable")
    sorted_labels = labels[order]
    boundaries = np.flatnonzero(np.diff(sorted_labels)) + 1
    chunks = []
    for group in np.split(order, boundaries):
        if len(group) > 1:
            i, j = np.triu_indices(len(group), k=1)
            chunks.append(np.stack([group[i], group[j]], axis=1))
    if not chunks:
        return np.zeros((0, 2), dtype=np.int64)
    pairs = np.concatenate(chunks).astype(np.int64)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def _candidate_sets(
    stripped: stages.ShingleSets | None,
    texts: Any,
    needed: Callable[[], np.ndarray],
    k: int,
    unit: stages.Unit,
) -> stages.ShingleSets:
    """The shingle sets exact verification reads: the stripped sets when boilerplate was
    stripped (already made), else those of the documents ``needed()`` marks (the candidates;
    in a real corpus a small share), which saves their time and memory for the others."""
    if stripped is not None:
        return stripped
    return stages.shingles(texts, k=k, unit=unit, only=needed())


def _rows_in(pairs: np.ndarray, n: int) -> np.ndarray:
    """bool[n]: the documents that appear in ``pairs``."""
    rows = np.zeros(n, dtype=bool)
    rows[pairs.ravel()] = True
    return rows


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
    pairs: Literal["all", "spanning"] = "all",
    strip_boilerplate: float | None = None,
    algorithm: Literal["classic", "oph"] = "classic",
    hash_version: int | None = None,
) -> DuplicateResult:
    """Finds near-duplicate documents and clusters them.

    ``method``: ``"auto"`` brute-forces exact Jaccard up to 5,000 documents and uses MinHash + LSH
    above; ``"exact-jaccard"``; ``"minhash"`` (LSH banding from :func:`neardup.choose_banding`
    unless ``bands``/``rows`` are given: with exact verification recall-first, a pair exactly at the
    threshold becomes a candidate with probability >= 0.99, and the expected recall, the predicted
    and actual candidate counts land in ``params``; candidates verified by exact Jaccard of the
    shingle sets, made for the candidates' documents only, or with ``verify="estimate"`` by the
    share of equal slots under the classic banding of :func:`lsh_params`); ``"simhash"`` (pairs
    within ``max_hamming`` bits, by default the radius matching ``threshold``, brute force over all
    pairs; verified by exact Jaccard, or with ``verify="estimate"`` kept as they are with similarity
    1 - distance/bits); ``"sha256"`` / ``"sha256-normalized"`` (identical bytes / identical
    normalised text; similarity 1). Empty documents are never near-duplicates (SHA-256 still groups
    them). ``strip_boilerplate=max_df`` first drops every shingle found in more than that share of
    the documents (see :func:`neardup.strip_boilerplate`; the statistics land in
    ``params["boilerplate"]``).

    ``algorithm="oph"`` makes MinHash signatures by one-permutation hashing (faster, as
    accurate on documents longer than ``num_perm`` shingles; see :func:`neardup.minhash`).

    ``pairs="spanning"`` is for when only the clusters matter (deduplication): for MinHash and
    SHA-256 it reports just the pairs that joined clusters, so a bucket or group of m identical
    documents costs m - 1 comparisons instead of m(m - 1)/2. MinHash clusters can then be finer
    (never coarser) than the components of all verified pairs (rust/batch.rs explains why).

    >>> r = find_duplicates(["the cat sat on the mat", "The cat sat on the mat!", "dogs"], k=2)
    >>> r.pairs.tolist(), r.keep.tolist()
    ([[0, 1]], [True, False, True])
    """
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
        pairs="all" if pairs == "auto" else pairs,
        strip_boilerplate=strip_boilerplate,
        simhash_bits=simhash_bits,
        max_hamming=max_hamming,
        threads=threads,
        algorithm=algorithm,
        hash_version=hash_version,
    )
    core_texts = as_core_texts(texts)
    n = count(core_texts)
    banding_given = plan.bands is not None
    plan = plan.resolve(n)
    method, threshold, bands, rows = plan.method, plan.threshold, plan.bands, plan.rows
    spanning = plan.pairs == "spanning"
    params: dict[str, Any] = {"k": k, "unit": unit}
    stripped = None
    if strip_boilerplate is not None:
        if method in ("sha256", "sha256-normalized"):
            raise ValueError("strip_boilerplate applies to shingle-based methods, not sha256")
        from neardup.boilerplate import strip_boilerplate as _strip

        stripped, strip_stats = _strip(
            stages.shingles(core_texts, k=k, unit=unit), strip_boilerplate
        )
        params["boilerplate"] = strip_stats.as_dict()

    def _sets() -> stages.ShingleSets:
        return stripped if stripped is not None else stages.shingles(core_texts, k=k, unit=unit)

    data = stripped if stripped is not None else core_texts

    if method in ("sha256", "sha256-normalized"):
        labels = stages.exact_duplicates(core_texts, normalized=method == "sha256-normalized")
        if spanning:
            members = np.flatnonzero(labels != np.arange(n))
            found = np.stack([labels[members], members], axis=1).astype(np.int64)
            found = found[np.lexsort((found[:, 1], found[:, 0]))]
        else:
            found = pairs_within_groups(labels)
        similarity = np.ones(len(found), dtype=np.float32)
        params = {}
    elif method == "exact-jaccard":
        sets = _sets()
        found, similarity = stages.all_pairs_jaccard(sets, threshold)
    elif method == "minhash":
        params.update(num_perm=num_perm, seed=seed, verify=verify, algorithm=algorithm)
        signatures = stages.minhash(
            data, num_perm=num_perm, seed=seed, k=k, unit=unit, threads=threads, algorithm=algorithm
        )
        if banding_given:
            assert bands is not None and rows is not None  # the plan checked both are given
            params.update(
                bands=bands,
                rows=rows,
                expected_recall=lsh_probability(threshold, bands, rows),
                banding_reason="given",
            )
        else:  # the cost model refines the plan's banding on a sample of the signatures
            banding = choose_banding(threshold, num_perm, verify, signatures)  # type: ignore[arg-type]
            bands, rows = banding.bands, banding.rows
            params.update(banding.as_params())
        if verify != "exact":
            found, similarity = stages.lsh_duplicates(
                signatures, bands, rows, threshold, spanning=spanning
            )
        elif spanning:
            sets = _candidate_sets(
                stripped,
                core_texts,
                lambda: stages.lsh_candidate_rows(signatures, bands, rows),
                k,
                unit,
            )
            found, similarity = stages.lsh_duplicates(
                signatures, bands, rows, threshold, sets, spanning=True
            )
        else:
            candidates = stages.lsh_candidates(signatures, bands, rows)
            params["candidates"] = len(candidates)
            del signatures
            sets = _candidate_sets(stripped, core_texts, lambda: _rows_in(candidates, n), k, unit)
            found, similarity = stages.verify_jaccard(sets, candidates, threshold)
    else:  # simhash
        if simhash_bits not in (64, 128):
            raise ValueError(f"simhash_bits must be 64 or 128, got {simhash_bits}")
        radius = (
            simhash_max_hamming(threshold, simhash_bits) if max_hamming is None else max_hamming
        )
        params.update(bits=simhash_bits, max_hamming=radius, verify=verify)
        fingerprints = stages.simhash(data, bits=simhash_bits, k=k, unit=unit, threads=threads)
        active = (
            stripped.sizes() > 0 if stripped is not None else stages.word_counts(core_texts) > 0
        )
        found, distance = stages.hamming_within(fingerprints, radius, active)
        if verify == "exact":
            sets = _candidate_sets(stripped, core_texts, lambda: _rows_in(found, n), k, unit)
            found, similarity = stages.verify_jaccard(sets, found, threshold)
        else:
            similarity = (1.0 - distance / simhash_bits).astype(np.float32)

    params["pairs"] = pairs
    labels = stages.clusters(found, n)
    return DuplicateResult(found, similarity, labels, method, threshold, params, texts=core_texts)
