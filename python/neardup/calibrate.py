"""Threshold calibration: the article's procedure for real data.

Sample pairs of documents presumed unrelated (random pairs of the corpus, or pairs you know
are not duplicates), measure their *exact* Jaccard similarity, and set the threshold above a
high percentile (p99 by default) of that distribution; then pick LSH bands/rows whose
S* = (1/b)^(1/r) sits just below the threshold.

>>> import neardup
>>> texts = neardup.synth.generate(bases=0, singles=400).texts  # 400 unrelated documents
>>> cal = neardup.calibrate(texts, sample_pairs=5000)
>>> cal.threshold, cal.quantiles["p99"] < cal.threshold
(0.11, True)
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from neardup.banding import lsh_probability, lsh_threshold
from neardup.errors import InputError, InputTypeError, InvalidArgumentError
from neardup.plan import lsh_banding, make_plan
from neardup.stages import jaccard, shingles

__all__ = [
    "QUANTILES",
    "Calibration",
    "calibrate",
    "calibrate_files",
    "read_pairs",
    "sample_documents",
]

#: The quantiles reported, as (name, percentile).
QUANTILES: tuple[tuple[str, float], ...] = (
    ("p50", 50.0),
    ("p90", 90.0),
    ("p99", 99.0),
    ("p99.9", 99.9),
    ("max", 100.0),
)


def _s_star(b: int, r: int) -> float:
    return float(lsh_threshold(b, r))


@dataclass
class Calibration:
    """The result of :func:`calibrate`.

    ``similarities`` holds the exact Jaccard of every sampled pair; ``quantiles`` maps
    ``p50 p90 p99 p99.9 max`` to values; ``threshold``/``bands``/``rows``/``s_star`` are the
    recommendation; ``warnings`` lists anything suspicious about the sample.

    >>> cal = calibrate(texts)  # texts: the 400 unrelated documents of the module example
    >>> print(cal.table())
    Exact Jaccard of 10,000 presumed-unrelated pairs (400 documents, k=5):
    ...
    Recommended threshold: **0.11** (p99 + 0.05, rounded up)
    ...
    """

    n_documents: int
    n_pairs: int
    percentile: float
    margin: float
    num_perm: int
    k: int
    quantiles: dict[str, float]
    mean: float
    threshold: float
    bands: int
    rows: int
    s_star: float
    similarities: np.ndarray = field(repr=False)
    skipped_empty: int = 0
    warnings: list[str] = field(default_factory=list)
    boilerplate: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary (without the raw similarities).

        >>> calibrate(texts).as_dict()["threshold"]
        0.11
        """
        return {
            "documents": self.n_documents,
            "pairs": self.n_pairs,
            "skipped_empty": self.skipped_empty,
            "percentile": self.percentile,
            "margin": self.margin,
            "num_perm": self.num_perm,
            "k": self.k,
            "quantiles": dict(self.quantiles),
            "mean": self.mean,
            "threshold": self.threshold,
            "bands": self.bands,
            "rows": self.rows,
            "s_star": self.s_star,
            "warnings": list(self.warnings),
            "boilerplate": self.boilerplate,
        }

    def table(self) -> str:
        """A Markdown table of the distribution and the recommendation.

        >>> print(calibrate(texts).table())
        Exact Jaccard of 10,000 presumed-unrelated pairs (400 documents, k=5):
        <BLANKLINE>
        | mean | p50 | p90 | p99 | p99.9 | max |
        |---:|---:|---:|---:|---:|---:|
        | 0.0398 | 0.0389 | 0.0493 | 0.0570 | 0.0611 | 0.0649 |
        <BLANKLINE>
        Recommended threshold: **0.11** (p99 + 0.05, rounded up)
        LSH at P=128: bands=128, rows=1, S*=0.008
        """
        q = self.quantiles
        lines = [
            f"Exact Jaccard of {self.n_pairs:,} presumed-unrelated pairs "
            f"({self.n_documents:,} documents, k={self.k}):",
            "",
            "| mean | p50 | p90 | p99 | p99.9 | max |",
            "|---:|---:|---:|---:|---:|---:|",
            f"| {self.mean:.4f} | {q['p50']:.4f} | {q['p90']:.4f} | {q['p99']:.4f} "
            f"| {q['p99.9']:.4f} | {q['max']:.4f} |",
            "",
            f"Recommended threshold: **{self.threshold:.2f}** "
            f"(p{self.percentile:g} + {self.margin:g}, rounded up)",
            f"LSH at P={self.num_perm}: bands={self.bands}, rows={self.rows}, S*={self.s_star:.3f}",
        ]
        if self.boilerplate:
            lines.append(
                f"Boilerplate stripped first: {self.boilerplate['shingles_dropped']:,} shingles, "
                f"{self.boilerplate['mean_share_stripped']:.1%} of the average document"
            )
        for w in self.warnings:
            lines.append(f"WARNING: {w}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def _repr_html_(self) -> str:
        import html  # here, not at the top: html.entities costs milliseconds at import

        q = self.quantiles
        cells = "".join(f"<td>{v:.4f}</td>" for v in (self.mean, *q.values()))
        warn = "".join(f"<p style='color:#b00'>⚠ {html.escape(w)}</p>" for w in self.warnings)
        return (
            f"<div><b>Calibration</b>: {self.n_pairs:,} pairs of {self.n_documents:,} documents"
            "<table><tr><th>mean</th>" + "".join(f"<th>{k}</th>" for k in q) + "</tr>"
            f"<tr>{cells}</tr></table>"
            f"<p>threshold <b>{self.threshold:.2f}</b>, bands={self.bands}, rows={self.rows}, "
            f"S*={self.s_star:.3f}</p>{warn}</div>"
        )

    def plot(self, path: str | os.PathLike[str] | None = None, ax: Any = None) -> Any:
        """Histogram of the sampled similarities with the threshold, p-line and the LSH S-curve.

        Needs matplotlib. With ``path`` the figure is saved (PNG); returns the Figure.

        >>> calibrate(texts).plot("calibration.png")
        <Figure size 800x450 with 2 Axes>
        """
        try:
            import matplotlib

            if path is not None and ax is None:
                matplotlib.use("Agg", force=False)
            import matplotlib.pyplot as plt
        except ImportError as e:
            raise ImportError("plot() needs matplotlib: pip install matplotlib") from e
        if ax is None:
            fig, ax = plt.subplots(figsize=(8, 4.5))
        else:
            fig = ax.figure
        bins = np.linspace(0.0, 1.0, 101)
        ax.hist(
            self.similarities,
            bins=bins,
            color="#4c72b0",
            alpha=0.85,
            label="presumed-unrelated pairs",
        )
        ax.set_yscale("log")
        ax.set_xlim(0, 1)
        ax.set_xlabel("exact Jaccard similarity")
        ax.set_ylabel("pairs (log)")
        pq = self.quantiles.get(f"p{self.percentile:g}")
        if pq is not None:
            ax.axvline(pq, color="#555", ls=":", label=f"p{self.percentile:g} = {pq:.3f}")
        ax.axvline(
            self.threshold, color="#c44e52", ls="--", label=f"threshold = {self.threshold:.2f}"
        )
        ax2 = ax.twinx()
        s = np.linspace(0, 1, 201)
        ax2.plot(
            s,
            np.asarray(lsh_probability(s, self.bands, self.rows)),
            color="#55a868",
            label=f"P(candidate), b={self.bands} r={self.rows}",
        )
        ax2.set_ylim(0, 1.02)
        ax2.set_ylabel("probability of becoming a candidate")
        h1, l1 = ax.get_legend_handles_labels()
        h2, l2 = ax2.get_legend_handles_labels()
        ax.legend(h1 + h2, l1 + l2, loc="upper right", fontsize=8)
        ax.set_title("Jaccard of unrelated pairs vs. threshold and LSH S-curve")
        fig.tight_layout()
        if path is not None:
            from neardup.io.atomic import atomic_path

            with atomic_path(path) as tmp:  # whole or not at all; a link written through
                fig.savefig(tmp, dpi=120, format="png")
        return fig


def _sample_pairs(n: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Up to ``m`` distinct random pairs i<j of range(n) (all pairs when there are fewer)."""
    total = n * (n - 1) // 2
    if total <= m:
        i, j = np.triu_indices(n, k=1)
        return np.stack([i, j], axis=1).astype(np.int64)
    got = np.zeros((0, 2), dtype=np.int64)
    while len(got) < m:
        need = (m - len(got)) * 2 + 16
        a = rng.integers(0, n, size=need)
        b = rng.integers(0, n, size=need)
        ok = a != b
        p = np.stack([np.minimum(a, b)[ok], np.maximum(a, b)[ok]], axis=1)
        allp = np.concatenate([got, p])
        _, first = np.unique(allp[:, 0] * n + allp[:, 1], return_index=True)
        got = allp[np.sort(first)]
    return got[:m]


def calibrate(
    texts: Any,
    sample_pairs: int = 10_000,
    percentile: float = 99.0,
    num_perm: int = 128,
    k: int = 5,
    unit: str = "word",
    seed: int = 0,
    pairs: Any = None,
    margin: float = 0.05,
    strip_boilerplate: float | None = None,
    plot: str | os.PathLike[str] | None = None,
    warn_above: float = 0.5,
) -> Calibration:
    """Measure the exact-Jaccard distribution of presumed-unrelated pairs; recommend a threshold.

    ``pairs`` (int64[m, 2] indices into ``texts``) gives known non-duplicates; otherwise
    ``sample_pairs`` random distinct pairs are drawn (seeded). Pairs involving a document with
    no shingles are skipped. The threshold is ``quantile(percentile) + margin`` rounded up to
    0.01; (bands, rows) are the default banding of exact verification for it (recall-first,
    :func:`neardup.choose_banding`). A warning is issued when the p99 of the sample exceeds
    ``warn_above`` (the "unrelated" sample is full of near-duplicates).

    >>> import neardup
    >>> cal = neardup.calibrate(texts, sample_pairs=2000, percentile=99)
    >>> cal.quantiles["p99"] < cal.threshold
    True
    """
    if isinstance(texts, (str, bytes)):  # a str is no list of documents (nor a path here)
        raise InputTypeError(
            "texts must be a sequence of documents, not a single str or bytes "
            "(files: neardup calibrate FILE, or neardup.io.read_texts(path))"
        )
    plan = make_plan(
        num_perm=num_perm, k=k, unit=unit, seed=seed, strip_boilerplate=strip_boilerplate
    )
    num_perm, k, unit, seed = plan.num_perm, plan.k, plan.unit, plan.seed
    if not 0.0 < percentile <= 100.0:
        raise InvalidArgumentError(f"percentile must be in (0, 100], got {percentile}")
    if sample_pairs < 1:
        raise InvalidArgumentError(f"sample_pairs must be >= 1, got {sample_pairs}")
    if not isinstance(texts, Sequence) and not hasattr(texts, "__getitem__"):
        texts = list(texts)
    n = len(texts)
    rng = np.random.default_rng(seed)
    if pairs is not None:
        p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        if p.size and (p.min() < 0 or p.max() >= n):
            raise InvalidArgumentError(f"pairs: index out of range for {n} texts")
        if np.any(p[:, 0] == p[:, 1]):
            raise InvalidArgumentError("pairs: a pair joins a document with itself")
    else:
        if n < 2:
            raise InvalidArgumentError(f"calibrate needs at least 2 texts, got {n}")
        p = _sample_pairs(n, int(sample_pairs), rng)
    # shingle only the documents the pairs touch
    used, local = np.unique(p, return_inverse=True)
    local = local.reshape(-1, 2).astype(np.int64)
    subset = [texts[int(i)] for i in used] if not hasattr(texts, "take") else texts.take(used)
    ss = shingles(subset, k=k, unit=unit)  # type: ignore[arg-type]
    boiler = None
    if strip_boilerplate is not None:
        from neardup.boilerplate import strip_boilerplate as _strip

        ss, stats = _strip(ss, max_df=strip_boilerplate)
        boiler = stats.as_dict()
    sizes = np.asarray(ss.sizes())
    nonempty = (sizes[local[:, 0]] > 0) & (sizes[local[:, 1]] > 0)
    skipped = int((~nonempty).sum())
    local = local[nonempty]
    if len(local) == 0:
        raise InvalidArgumentError("no pair of non-empty documents to measure")
    sim = np.asarray(jaccard(ss, local), dtype=np.float64)
    quant = {
        name: float(np.percentile(sim, q, method="inverted_cdf")) if q < 100 else float(sim.max())
        for name, q in QUANTILES
    }
    qp = float(np.percentile(sim, percentile, method="inverted_cdf"))
    warn: list[str] = []
    raw = qp + margin
    thr = math.ceil(raw * 100 - 1e-6) / 100
    if thr > 0.95:
        warn.append(f"p{percentile:g} + margin = {raw:.3f}; threshold capped at 0.95")
        thr = 0.95
    thr = max(thr, 0.01)
    if quant["p99"] > warn_above:
        warn.append(
            f"p99 of the sample is {quant['p99']:.3f} (> {warn_above:g}): the presumed-unrelated "
            "pairs are full of near-duplicates or boilerplate; deduplicate or strip boilerplate "
            "(--strip-boilerplate) and calibrate again, or pass known non-duplicate pairs"
        )
    b, r = lsh_banding(thr, num_perm)
    for w in warn:
        warnings.warn(w, stacklevel=2)
    cal = Calibration(
        n_documents=n,
        n_pairs=len(local),
        percentile=float(percentile),
        margin=float(margin),
        num_perm=int(num_perm),
        k=int(k),
        quantiles=quant,
        mean=float(sim.mean()),
        threshold=float(thr),
        bands=b,
        rows=r,
        s_star=_s_star(b, r),
        similarities=sim,
        skipped_empty=skipped,
        warnings=warn,
        boilerplate=boiler,
    )
    if plot is not None:
        cal.plot(plot)
    return cal


def sample_documents(
    sources: Sequence[Any], max_docs: int, seed: int, batch_size: int
) -> tuple[list[Any], list[str], int]:
    """Reservoir-sample up to ``max_docs`` (ids, texts) from the sources; returns (ids, texts, n).

    The sample keeps input order and depends only on ``seed``, not on ``batch_size``.

    >>> from neardup.io import open_sources
    >>> ids, texts, n = sample_documents(open_sources(["corpus.jsonl"]), 4, seed=0, batch_size=2)
    >>> n, len(ids), ids == sorted(ids)  # 4 of the file's 6 rows, in input order
    (6, 4, True)
    """
    from neardup.io import iter_batches

    rng = np.random.default_rng(seed)
    res_pos: list[int] = []
    res_id: list[Any] = []
    res_txt: list[str] = []
    n = 0
    for b in iter_batches(sources, batch_size):
        texts = b.texts.to_pylist() if hasattr(b.texts, "to_pylist") else b.texts
        draws = rng.random(len(b))  # one draw per document -> batch-size independent
        for j, (i, t) in enumerate(zip(b.ids, texts, strict=True)):
            pos = b.start + j
            if len(res_pos) < max_docs:
                res_pos.append(pos)
                res_id.append(i)
                res_txt.append(t)
            else:
                slot = int(draws[j] * (pos + 1))
                if slot < max_docs:
                    res_pos[slot], res_id[slot], res_txt[slot] = pos, i, t
        n = b.start + len(b)
    order = np.argsort(res_pos, kind="stable")
    return [res_id[i] for i in order], [res_txt[i] for i in order], n


def read_pairs(path: str) -> list[tuple[str, str]]:
    """Read id pairs from CSV (header, first two columns) or JSONL (two-element lists or
    objects whose first two values are the ids).

    >>> read_pairs("nondups.csv")[:1]
    [('a', 'b')]
    """
    import csv
    import json

    if not os.path.exists(path):
        raise InputError(f"{path}: no such file or directory")
    out: list[tuple[str, str]] = []
    if path.lower().endswith(".csv"):
        with open(path, encoding="utf-8", newline="") as f:
            r = csv.reader(f)
            next(r, None)
            for n, row in enumerate(r, 2):
                if len(row) < 2:
                    raise InputError(f"{path}:{n}: expected two ids")
                out.append((row[0], row[1]))
        return out
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                v = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(f"{path}:{n}: invalid JSON ({e.msg})") from e
            vals = list(v.values()) if isinstance(v, dict) else v
            if not isinstance(vals, list) or len(vals) < 2:
                raise InputError(f"{path}:{n}: expected two ids")
            out.append((str(vals[0]), str(vals[1])))
    return out


def _documents_of_pairs(
    sources: Sequence[Any], pairs_path: str, batch_size: int
) -> tuple[list[str], np.ndarray]:
    """The texts of the documents named in a pairs file, and the pairs as indices into them."""
    from neardup.io import iter_batches

    pairs = read_pairs(pairs_path)
    wanted = {x for p in pairs for x in p}
    ids: list[str] = []
    texts: list[str] = []
    for b in iter_batches(sources, batch_size):
        tx = b.texts.to_pylist() if hasattr(b.texts, "to_pylist") else b.texts
        for i, t in zip(b.ids, tx, strict=True):
            if str(i) in wanted:
                ids.append(str(i))
                texts.append(t)
    where = {i: n for n, i in enumerate(ids)}
    missing = sorted(wanted - where.keys())
    if missing:
        raise InputError(f"{pairs_path}: id {missing[0]!r} not found in the input")
    return texts, np.array([(where[a], where[b]) for a, b in pairs], dtype=np.int64)


def calibrate_files(
    inputs: Sequence[str],
    *,
    text_field: str = "text",
    id_field: str | None = "id",
    id_required: bool = False,
    pairs_file: str | None = None,
    sample_docs: int = 20_000,
    batch_size: int = 8192,
    **options: Any,
) -> tuple[Calibration, int]:
    """:func:`calibrate` over files (``neardup calibrate``): a seeded reservoir sample of
    ``sample_docs`` documents, or the documents a known non-duplicate ``pairs_file`` names.
    Returns the calibration and the number of documents read. ``options`` are those of
    :func:`calibrate`.

    >>> cal, n = calibrate_files(["corpus.jsonl"], sample_pairs=2000)
    """
    from neardup._validate import MAX_BATCH, check_int
    from neardup.io import open_sources

    batch_size = check_int("batch_size", batch_size, low=1, high=MAX_BATCH)
    sources = open_sources(inputs, text_field, id_field, id_required)
    try:
        if pairs_file:
            texts, idx = _documents_of_pairs(sources, pairs_file, batch_size)
            n_docs = len(texts)
        else:
            _, texts, n_docs = sample_documents(
                sources, sample_docs, int(options.get("seed", 0)), batch_size
            )
            idx = None
    finally:
        for s in sources:
            s.close()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the caller reads cal.warnings
        return calibrate(texts, pairs=idx, **options), n_docs
