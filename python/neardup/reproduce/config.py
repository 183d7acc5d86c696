"""What ``neardup reproduce`` measures: the sweeps, the article's published figures, and
:class:`ReproConfig` (how big each experiment is).

>>> ReproConfig.quick().docs
10000
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: (bands, rows) combinations of the banding sweep (all use 128-slot signatures).
BANDINGS: tuple[tuple[int, int], ...] = ((4, 32), (8, 16), (16, 8), (32, 4), (42, 3), (64, 2))
PERMS: tuple[int, ...] = (16, 32, 64, 128, 256)
THRESHOLDS: tuple[float, ...] = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
THRESHOLD = 0.3

#: The article's published figures that the report quotes beside ours.
ARTICLE: dict[str, Any] = {
    "median_chars": 2957,
    "median_shingles": 340,
    "labelled_pairs_3100": 8400,
    "sha256_raw_recall": 0.0012,
    "sha256_norm_recall": 0.0381,
    "nondup_mean": 0.0458,
    "nondup_max": 0.0950,
    "dup_min_original_variant": 0.52,
    "exact_recall_050": 0.8705,
    "minhash_recall_030": {16: 0.9830, 256: 1.0000},
    "mae": {16: 0.0519, 32: 0.0557},
    "estimator_p128_j06": (-0.0004, 0.0435, 0.0433),
    "simhash_best_f1": 0.8248,
    "minhash_best_f1": 0.9999,
    "simhash_fp": 629,
    "cost_10k_ms": {"minhash128": 493, "simhash64": 567},
    "cost_100k_s": {"total128": 18.6, "shingling": 11.1},
    "brute_10k_s": {"minhash": 8.3, "shingles": 104.0, "simhash": 0.1, "lsh42x3": 0.059},
    "lsh_4x32_recall": 0.17,
    "lsh_64x2_share": 0.42,
    "lsh_100k": {
        "build_ms": 755,
        "verify_ms": 333,
        "candidates": 884_637,
        "flagged": 278_508,
        "recall": 0.9947,
        "precision": 1.0,
        "rss_mb": 786,
    },
    "boilerplate_fp_per_tp_045": 114,
}


#: The article's time for exact Jaccard over all 49,995,000 pairs of 10,000 documents.
ARTICLE_NAIVE_JACCARD_SECONDS = 104


@dataclass
class ReproConfig:
    """What :func:`run` measures, and how big.

    Attributes:
        docs: documents of the at-scale LSH run and of the large cost row.
        acc_docs: documents of the accuracy experiments (the article: 3,100).
        mid_docs: documents of the cost and brute-force-vs-LSH experiments (the article: 10,000).
        seed: corpus seed.
        seed_sets: MinHash seed sets per permutation count in the variance experiment.
        trials: trials per cell of the estimator check.
        shares: boilerplate shares of the last experiment.
        boilerplate_seeds: MinHash seeds per share in the boilerplate experiment.
        lsh_seeds: MinHash seeds whose candidate counts the banding sweep reports.
        cost_repeats: timing repeats (median reported) at ``mid_docs``; 1 at ``docs``.
        exact_all_pairs: compute the exact Jaccard of every pair of the accuracy corpus
            (the non-duplicate mean and max over all pairs); otherwise use a sample.
        naive_sample: pairs timed for the naive brute-force exact Jaccard, extrapolated.
        plots: write PNG plots when matplotlib is available.
        name: label of the run in the report ("full", "quick", ...).

    Example:
        >>> ReproConfig(docs=20_000).mid_docs
        10000
    """

    docs: int = 100_000
    acc_docs: int = 3_100
    mid_docs: int = 10_000
    seed: int = 20260831
    seed_sets: int = 10
    trials: int = 4_000
    shares: tuple[float, ...] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.45)
    boilerplate_seeds: int = 5
    lsh_seeds: int = 5
    cost_repeats: int = 5
    exact_all_pairs: bool = True
    naive_sample: int = 2_000_000
    plots: bool = True
    name: str = "full"

    def __post_init__(self) -> None:
        self.mid_docs = min(self.mid_docs, self.docs)
        self.acc_docs = min(self.acc_docs, self.docs)

    @classmethod
    def quick(cls, docs: int = 10_000) -> ReproConfig:
        """The reduced run of ``neardup reproduce --quick`` (about a minute on 2 cores).

        Example:
            >>> ReproConfig.quick().trials
            1000
        """
        return cls(
            docs=docs,
            seed_sets=5,
            trials=1_000,
            shares=(0.0, 0.15, 0.3, 0.45),
            boilerplate_seeds=3,
            exact_all_pairs=False,
            naive_sample=500_000,
            cost_repeats=3,
            name="quick",
        )
