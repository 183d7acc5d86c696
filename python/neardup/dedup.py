"""Streaming deduplication of files: the engine behind ``neardup dedup``.

The input is read in batches; per batch only the text column reaches the core, which
returns shingle sets and MinHash signatures. Memory holds signatures (``4·P`` bytes per
unique document, spooled through a temporary file), a 16-byte digest per document for the
exact pre-filter, the lengths and ids — never the text. A second pass over the input copies
the kept rows to the output. Every per-document step is independent of the batch cut, so
the result does not depend on ``batch_size``.

>>> from neardup.dedup import dedup_files
>>> s = dedup_files(["corpus.jsonl"], "kept.jsonl", threshold=0.5)       # doctest: +SKIP
>>> s.removed                                                             # doctest: +SKIP
1234
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from neardup import io as ndio
from neardup.boilerplate import FrequencyCounter, remove_shingles, summarize
from neardup.plan import AUTO_EXACT_LIMIT

__all__ = ["AUTO_EXACT_LIMIT", "DedupSummary", "dedup_files"]


#: ``pairs="auto"`` switches MinHash to spanning mode when the LSH buckets hold more than this
#: many candidate pairs (an upper bound counted per band): one huge cluster of near-identical
#: documents would otherwise cost m(m - 1)/2 pairs of memory and verification.
SPANNING_LIMIT = 20_000_000

Progress = Callable[[str, int], None]


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
    boilerplate: dict[str, Any] | None = None
    seconds: dict[str, float] = field(default_factory=dict)

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
        if self.boilerplate:
            b = self.boilerplate
            lines.append(
                f"boilerplate: stripped {b['shingles_dropped']:,} shingles "
                f"(df > {b['max_df']:g}), {b['mean_share_stripped']:.1%} of the average document"
            )
        lines.append("time: " + ", ".join(f"{k} {v:.2f}s" for k, v in self.seconds.items()))
        return "\n".join(lines)

    def markdown(self) -> str:
        """The summary as a Markdown report (``--report``).

        >>> DedupSummary().markdown().startswith("# Deduplication report")
        True
        """
        rows = [
            ("inputs", ", ".join(self.inputs)),
            ("output", self.output or ""),
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


class _Timer:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Any:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - t0


def _lengths(texts: Any) -> np.ndarray:
    if hasattr(texts, "type"):  # pyarrow array
        import pyarrow.compute as pc

        return np.asarray(pc.utf8_length(texts).to_numpy(zero_copy_only=False), dtype=np.int64)
    return np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))


def _take_shingles(ss: Any, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sizes, concatenated hashes) of the selected rows of a ShingleSets."""
    offsets = np.asarray(ss.offsets, dtype=np.int64)
    hashes = np.asarray(ss.hashes, dtype=np.uint64)
    starts, ends = offsets[rows], offsets[rows + 1]
    sizes = ends - starts
    if len(rows) == 0 or sizes.sum() == 0:
        return sizes, np.zeros(0, dtype=np.uint64)
    idx = np.repeat(starts - np.concatenate([[0], np.cumsum(sizes)[:-1]]), sizes) + np.arange(
        sizes.sum()
    )
    return sizes, hashes[idx]


_MIX1 = np.uint64(0x9E3779B97F4A7C15)
_MIX2 = np.uint64(0xD6E8FEB86659FD93)


def _mix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser, elementwise on uint64 (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def _set_digests(ss: Any) -> np.ndarray:
    """A 128-bit digest of each shingle set, uint64[n, 2], vectorised (no per-row Python).

    Order-independent sums of two mixes of the hashes plus the set size: equal sets give
    equal digests; different sets collide with probability ~2**-128. Empty sets give (0, 0).
    """
    hashes = np.asarray(ss.hashes, dtype=np.uint64)
    offsets = np.asarray(ss.offsets, dtype=np.int64)
    sizes = np.diff(offsets)
    out = np.zeros((len(sizes), 2), dtype=np.uint64)
    rows = np.flatnonzero(sizes > 0)
    if len(rows):
        with np.errstate(over="ignore"):
            out[rows, 0] = np.add.reduceat(_mix64(hashes ^ _MIX1), offsets[rows])
            out[rows, 1] = np.add.reduceat(_mix64(hashes ^ _MIX2), offsets[rows])
            out[:, 0] ^= _mix64(sizes.astype(np.uint64))
    return out


def _candidate_bound(sig: np.ndarray, bands: int, rows: int) -> int:
    """Upper bound on LSH candidate pairs: sum over bands of pairs sharing a bucket."""
    from neardup import band_hashes

    total = 0
    for j in range(bands):
        col = np.asarray(band_hashes(sig[:, j * rows : (j + 1) * rows], 1, rows))[:, 0]
        _, counts = np.unique(col, return_counts=True)
        total += int((counts * (counts - 1) // 2).sum())
        if total > SPANNING_LIMIT:
            break
    return total


def _read_rows(f: Any, keep: np.ndarray, width: int, dtype: Any) -> np.ndarray:
    """Read the rows of a spooled (n, width) array where ``keep`` is true, chunk by chunk."""
    f.seek(0)
    out = np.empty((int(keep.sum()), width), dtype=dtype)
    o = 0
    step = 1 << 16
    for start in range(0, len(keep), step):
        m = keep[start : start + step]
        block = np.fromfile(f, dtype=dtype, count=len(m) * width).reshape(len(m), width)
        got = block[m]
        out[o : o + len(got)] = got
        o += len(got)
    return out


class _ShingleStore:
    """Accumulates shingle sets of selected documents (for exact Jaccard)."""

    def __init__(self, k: int, unit: str) -> None:
        self.k, self.unit = k, unit
        self.keep: np.ndarray | None = None  # optional mask over the added documents
        self.sizes: list[np.ndarray] = []
        self._spool = tempfile.TemporaryFile(prefix="neardup-shingles-")  # hashes, on disk
        self.count = 0

    def add(self, ss: Any, rows: np.ndarray) -> None:
        s, h = _take_shingles(ss, rows)
        self.sizes.append(s)
        self._spool.write(h.tobytes())
        self.count += len(rows)

    def build(self) -> Any:
        """One ShingleSets of everything added (the hashes are read back in one piece)."""
        from neardup import ShingleSets

        sizes = np.concatenate(self.sizes) if self.sizes else np.zeros(0, np.int64)
        offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        self._spool.seek(0)
        hashes = np.fromfile(self._spool, dtype=np.uint64)
        self._spool.close()
        sets = ShingleSets(offsets, hashes, k=self.k, unit=self.unit)
        if self.keep is not None and not self.keep.all():
            rows = np.flatnonzero(self.keep)
            sub_sizes, sub_hashes = _take_shingles(sets, rows)
            sub_offsets = np.zeros(len(rows) + 1, dtype=np.int64)
            np.cumsum(sub_sizes, out=sub_offsets[1:])
            sets = ShingleSets(sub_offsets, sub_hashes, k=self.k, unit=self.unit)
        return sets


def dedup_files(
    inputs: Sequence[str],
    output: str | None,
    *,
    text_field: str = "text",
    id_field: str | None = "id",
    id_required: bool = False,
    threshold: float = 0.3,
    method: str = "auto",
    num_perm: int = 128,
    k: int = 5,
    unit: str = "word",
    bands: int | None = None,
    rows: int | None = None,
    seed: int = 0,
    verify: str = "exact",
    keep: str = "first",
    strip_boilerplate: float | None = None,
    clusters: str | None = None,
    report: str | None = None,
    batch_size: int = ndio.DEFAULT_BATCH,
    progress: Progress | None = None,
    simhash_bits: int = 64,
    max_hamming: int | None = None,
    pairs: str = "auto",
) -> DedupSummary:
    """Deduplicate files; write kept rows to ``output`` and optionally a clusters table.

    ``method``: ``auto`` (exact Jaccard of all pairs up to 5,000 unique documents, else
    MinHash + LSH), ``minhash``, ``exact-jaccard``, ``simhash`` (all pairs within
    ``max_hamming`` bits by brute force over fingerprints; modest corpora only).
    ``pairs`` (MinHash): ``all`` verifies every LSH candidate; ``spanning`` lets the core pick
    only the edges that join clusters (bucket leaders, MinHash estimate), so m near-identical
    documents cost m - 1 checks; clusters can then be finer, never coarser; ``auto`` (default)
    uses ``all`` unless the buckets hold more than ``SPANNING_LIMIT`` candidate pairs.
    ``verify``: check LSH candidates with ``exact`` Jaccard (a second pass re-shingles only
    the documents in candidate pairs) or the MinHash ``estimate``.
    ``keep``: ``first`` (lowest position) or ``longest`` (most characters; ties to the
    lowest position) in each cluster. Documents with identical shingle sets (the same
    normalised text, or Jaccard 1) are exact duplicates and skip the near-duplicate stage;
    no per-row Python object is made for them. Empty documents are always kept.

    >>> s = dedup_files(["a.jsonl"], "kept.jsonl", threshold=0.4)  # doctest: +SKIP
    >>> print(s.text())  # doctest: +SKIP
    """
    if method not in ("auto", "minhash", "simhash", "exact-jaccard"):
        raise ValueError(
            "method must be auto, minhash, simhash or exact-jaccard for file deduplication, "
            f"got {method!r}"
        )
    if simhash_bits not in (64, 128):
        raise ValueError(f"simhash_bits must be 64 or 128, got {simhash_bits}")
    if pairs not in ("auto", "all", "spanning"):
        raise ValueError(f"pairs must be auto, all or spanning, got {pairs!r}")
    if keep not in ("first", "longest"):
        raise ValueError(f"keep must be 'first' or 'longest', got {keep!r}")
    if verify not in ("exact", "estimate"):
        raise ValueError(f"verify must be 'exact' or 'estimate', got {verify!r}")
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold}")
    if (bands is None) != (rows is None):
        raise ValueError("give both --bands and --rows, or neither")
    if bands is not None and bands * rows > num_perm:  # type: ignore[operator]
        raise ValueError(f"bands*rows = {bands * rows} exceeds num_perm = {num_perm}")  # type: ignore[operator]
    tick: Progress = progress or (lambda stage, n: None)
    timer = _Timer()
    summary = DedupSummary(
        method=method,
        verify=verify,
        threshold=float(threshold),
        num_perm=num_perm,
        k=k,
        keep=keep,
        inputs=list(inputs),
        output=output,
        clusters_path=clusters,
    )
    sources = ndio.open_sources(inputs, text_field, id_field, id_required)
    try:
        return _run(**locals())
    finally:
        for s in sources:
            s.close()


def _run(**kw: Any) -> DedupSummary:
    from neardup import (
        all_pairs_jaccard,
        estimate_jaccard,
        hamming,
        hamming_within,
        jaccard,
        lsh_candidates,
        lsh_duplicates,
        lsh_params,
        minhash,
        shingles,
        simhash,
        simhash_max_hamming,
    )
    from neardup import clusters as union_find

    sources: list[ndio.Source] = kw["sources"]
    summary: DedupSummary = kw["summary"]
    timer: _Timer = kw["timer"]
    tick: Progress = kw["tick"]
    k, unit, num_perm, seed = kw["k"], kw["unit"], kw["num_perm"], kw["seed"]
    batch_size, method, verify = kw["batch_size"], kw["method"], kw["verify"]
    threshold, keep = kw["threshold"], kw["keep"]
    max_df = kw["strip_boilerplate"]

    # -- optional boilerplate passes: candidates, then exact counts ------------------------
    drop = np.zeros(0, dtype=np.uint64)
    if max_df is not None:
        fc = FrequencyCounter(max_df)
        with timer.stage("boilerplate"):
            for b in ndio.iter_batches(sources, batch_size):
                fc.add_candidates(shingles(b.texts, k=k, unit=unit))
                tick("boilerplate 1/2", len(b))
            for b in ndio.iter_batches(sources, batch_size):
                fc.count(shingles(b.texts, k=k, unit=unit))
                tick("boilerplate 2/2", len(b))
            drop = fc.frequent()

    # -- main pass: set digests, lengths, ids; signatures of documents with shingles ---------
    digest_l: list[np.ndarray] = []
    length_l: list[np.ndarray] = []
    empty_l: list[np.ndarray] = []
    live_l: list[np.ndarray] = []
    ids: list[Any] = []
    size_l: list[np.ndarray] = []
    removed_l: list[np.ndarray] = []
    hold_all = method == "exact-jaccard"
    simhash_bits = kw["simhash_bits"]
    store: _ShingleStore | None = (
        _ShingleStore(k, unit) if method in ("auto", "exact-jaccard") else None
    )
    sig_file = tempfile.TemporaryFile(prefix="neardup-sig-")
    with timer.stage("read+sign"):
        for b in ndio.iter_batches(sources, batch_size):
            n = len(b)
            ss = shingles(b.texts, k=k, unit=unit)
            digest_l.append(_set_digests(ss))  # of the full sets: exact duplicates
            # No shingles before stripping means no words: the set sizes tell, no second pass.
            empty_l.append(np.asarray(ss.sizes()) == 0)
            if drop.size:
                ss_new, removed = remove_shingles(ss, drop)
                size_l.append(np.asarray(ss.sizes(), dtype=np.int64))
                removed_l.append(removed)
                ss = ss_new
            live = np.flatnonzero(np.asarray(ss.sizes()) > 0)
            if len(live):
                if method == "simhash":
                    fp = np.asarray(simhash(ss, bits=simhash_bits), dtype=np.uint64)
                    sig_file.write(np.ascontiguousarray(fp[live]).tobytes())
                elif method != "exact-jaccard":
                    sig = np.asarray(minhash(ss, num_perm=num_perm, seed=seed), dtype=np.uint32)
                    sig_file.write(np.ascontiguousarray(sig[live]).tobytes())
                if store is not None:
                    store.add(ss, live)
                    if not hold_all and method == "auto" and store.count > AUTO_EXACT_LIMIT:
                        store = None
            live_l.append(live + b.start)
            length_l.append(_lengths(b.texts))
            ids.extend(b.ids)
            tick("read", n)
    n = len(ids)
    empty = np.concatenate(empty_l) if empty_l else np.zeros(0, bool)
    lengths = np.concatenate(length_l) if length_l else np.zeros(0, np.int64)
    live_pos = np.concatenate(live_l) if live_l else np.zeros(0, np.int64)
    digests = np.concatenate(digest_l) if digest_l else np.zeros((0, 2), np.uint64)
    del empty_l, length_l, live_l, digest_l
    if max_df is not None:
        summary.boilerplate = summarize(size_l, removed_l, max_df, int(drop.size)).as_dict()
        del size_l, removed_l
    # exact duplicates: identical shingle sets; each follows its first occurrence
    first = np.arange(n, dtype=np.int64)
    nonempty = np.flatnonzero(~empty)
    if len(nonempty):
        keyed = np.ascontiguousarray(digests[nonempty]).view([("a", "<u8"), ("b", "<u8")])
        _, first_idx, inverse = np.unique(keyed.ravel(), return_index=True, return_inverse=True)
        first[nonempty] = nonempty[first_idx][inverse.ravel()]
    del digests
    chosen = first[live_pos] == live_pos  # unique documents with shingles (after stripping)
    sel_pos = live_pos[chosen]
    n_sel = len(sel_pos)
    if store is not None:
        store.keep = chosen

    # -- near-duplicate pairs among the selected (unique, non-empty) documents --------------
    use_exact = method == "exact-jaccard" or (method == "auto" and store is not None)
    held: Any = None  # ShingleSets of some selected docs, with local index map
    held_of: np.ndarray | None = None
    sig_all: np.ndarray | None = None
    fp_all: np.ndarray | None = None
    if use_exact:
        summary.method = "exact-jaccard"
        summary.verify = "exact"
        with timer.stage("compare"):
            held = store.build()  # type: ignore[union-attr]
            held_of = np.arange(n_sel, dtype=np.int64)
            pairs, sims = all_pairs_jaccard(held, threshold)
            pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
            sims = np.asarray(sims, dtype=np.float32)
            summary.candidates = n_sel * (n_sel - 1) // 2
        sig_file.close()
    else:
        store = None
        with timer.stage("candidates"):
            sig_file.seek(0)
            if method == "simhash":
                summary.method = "simhash"
                radius = kw["max_hamming"]
                if radius is None:
                    radius = simhash_max_hamming(threshold, simhash_bits)
                fp_all = _read_rows(sig_file, chosen, simhash_bits // 64, np.uint64)
                cand, dist = hamming_within(fp_all, int(radius))
                cand = np.asarray(cand, dtype=np.int64).reshape(-1, 2)
                estimate = (1.0 - np.asarray(dist, dtype=np.float64) / simhash_bits).astype(
                    np.float32
                )
            else:
                summary.method = "minhash"
                b_, r_ = kw["bands"], kw["rows"]
                if b_ is None:
                    b_, r_ = (int(x) for x in lsh_params(threshold, num_perm))
                summary.bands, summary.rows = int(b_), int(r_)
                sig_all = _read_rows(sig_file, chosen, num_perm, np.uint32)
                mode = kw["pairs"]
                if mode == "auto":
                    bound = _candidate_bound(sig_all, b_, r_)
                    mode = "spanning" if bound > SPANNING_LIMIT else "all"
                summary.pairs_mode = mode
                estimate = None
                if n_sel < 2:
                    cand = np.zeros((0, 2), np.int64)
                elif mode == "spanning":
                    # edges joining clusters, chosen by the MinHash estimate (bucket leaders)
                    cand, estimate = lsh_duplicates(sig_all, b_, r_, threshold, spanning=True)
                    cand = np.asarray(cand, dtype=np.int64).reshape(-1, 2)
                    estimate = np.asarray(estimate, dtype=np.float32)
                else:
                    cand = np.asarray(lsh_candidates(sig_all, b_, r_), dtype=np.int64)
                    cand = cand.reshape(-1, 2)
            sig_file.close()
            summary.candidates = len(cand)
            if verify == "exact" and len(cand):
                sig_all = fp_all = None  # exact Jaccard from here on: free the signatures
        with timer.stage("verify"):
            if verify == "estimate" or len(cand) == 0:
                if estimate is None:
                    estimate = np.asarray(estimate_jaccard(sig_all, cand), dtype=np.float32)
                sims = estimate
                # SimHash pairs are within the radius already; MinHash needs the threshold
                ok = sims >= threshold if method != "simhash" else np.ones(len(cand), bool)
            else:
                involved = np.unique(cand)
                held_of = np.full(n_sel, -1, dtype=np.int64)
                held_of[involved] = np.arange(len(involved))
                want = np.zeros(n, dtype=bool)
                want[sel_pos[involved]] = True
                st = _ShingleStore(k, unit)
                for b in ndio.iter_batches(sources, batch_size):
                    m = want[b.start : b.start + len(b)]
                    if m.any():
                        ss = shingles(b.texts, k=k, unit=unit)
                        if drop.size:
                            ss, _ = remove_shingles(ss, drop)
                        st.add(ss, np.flatnonzero(m))
                    tick("verify", len(b))
                held = st.build()
                sims = np.asarray(jaccard(held, held_of[cand]), dtype=np.float32)
                ok = sims >= threshold
            pairs, sims = cand[ok], sims[ok]
    summary.pairs = len(pairs)

    # -- clusters, representatives ------------------------------------------------------------
    with timer.stage("cluster"):
        labels = np.asarray(union_find(pairs, n_sel), dtype=np.int64)
        cluster = np.arange(n, dtype=np.int64)
        cluster[sel_pos] = sel_pos[labels]
        cluster = cluster[first]  # exact duplicates follow their first occurrence
        pos = np.arange(n, dtype=np.int64)
        if keep == "first":
            rep_of = pos.copy()  # label == lowest position in the cluster
            rep = cluster
        else:
            order = np.lexsort((pos, -lengths, cluster))
            head = np.ones(n, dtype=bool)
            head[1:] = cluster[order][1:] != cluster[order][:-1]
            rep_of = np.empty(n, dtype=np.int64)
            rep_of[cluster[order][head]] = order[head]
            rep = rep_of[cluster]
        keep_mask = rep == pos
        counts = np.bincount(cluster, minlength=n)
        in_cluster = counts[cluster] > 1
        exact_removed = (~keep_mask) & (first == first[rep])
        summary.documents = n
        summary.empty = int(empty.sum())
        summary.kept = int(keep_mask.sum())
        summary.removed = n - summary.kept
        # each exact group collapses to one document; the rest of a cluster's removals are near
        summary.exact_duplicates = int(np.count_nonzero(first != pos))
        summary.near_duplicates = summary.removed - summary.exact_duplicates
        summary.clusters = int((counts > 1).sum())

    # -- outputs --------------------------------------------------------------------------------
    if kw["output"] is not None:
        with timer.stage("write"):
            ndio.write_kept(sources, keep_mask, kw["output"], batch_size)
    if kw["clusters"] is not None:
        with timer.stage("write"):
            members = np.flatnonzero(in_cluster)
            sim = np.ones(len(members), dtype=np.float64)
            near = ~keep_mask[members] & (first[members] != first[rep[members]])
            nm = members[near]
            if len(nm):
                sel_local = np.full(n, -1, dtype=np.int64)
                sel_local[sel_pos] = np.arange(len(sel_pos))
                a = sel_local[first[nm]]
                c = sel_local[first[rep[nm]]]
                pr = np.stack([a, c], axis=1)
                if (
                    held is not None
                    and held_of is not None
                    and (held_of[a] >= 0).all()
                    and (held_of[c] >= 0).all()
                ):
                    sim[near] = np.asarray(jaccard(held, held_of[pr]), dtype=np.float64)
                elif sig_all is not None:
                    sim[near] = np.asarray(estimate_jaccard(sig_all, pr), dtype=np.float64)
                elif fp_all is not None:
                    d = np.asarray(hamming(fp_all, pr), dtype=np.float64)
                    sim[near] = 1.0 - d / simhash_bits
            seq = {c: i for i, c in enumerate(np.unique(cluster[members]).tolist())}
            rows_out = [
                {
                    "id": _plain(ids[i]),
                    "cluster": seq[int(cluster[i])],
                    "kept_id": _plain(ids[int(rep[i])]),
                    "kept": bool(keep_mask[i]),
                    "match": "kept" if keep_mask[i] else ("exact" if exact_removed[i] else "near"),
                    "similarity": round(float(s), 6),
                }
                for i, s in zip(members.tolist(), sim.tolist(), strict=False)
            ]
            ndio.write_table(rows_out, kw["clusters"])
    summary.seconds = {k_: round(v, 4) for k_, v in timer.seconds.items()}
    if kw["report"] is not None:
        with ndio.atomic_path(kw["report"]) as tmp, open(tmp, "w", encoding="utf-8") as f:
            f.write(summary.markdown())
    return summary


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    return json.dumps(v) if not isinstance(v, bytes) else v.decode("utf-8", "replace")


def summary_json(summary: DedupSummary) -> str:
    """The summary as one line of JSON.

    >>> summary_json(DedupSummary(documents=1))[:15]
    '{"documents": 1'
    """
    return json.dumps(summary.as_dict())
