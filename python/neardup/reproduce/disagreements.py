"""The report's summary: where our numbers differ from the article in shape, and why."""

from __future__ import annotations

import numpy as np

from neardup.reproduce.common import _Report
from neardup.reproduce.config import ARTICLE_NAIVE_JACCARD_SECONDS, ReproConfig


def _disagreements(rep: _Report, cfg: ReproConfig) -> None:
    """The summary: where our numbers differ from the article in shape, and why."""
    r = rep.results
    items = []
    corpus, jac = r["corpus"], r["jaccard"]
    items.append(
        f"**Corpus floor.** Our unrelated pairs average J = {jac['nondup_mean']:.4f} "
        f"(article 0.0458) and median length is {corpus['median_chars']:,.0f} characters "
        "(article 2,957): our pseudo-words and footer differ from the article's word list and "
        "footer. The gap between unrelated pairs and duplicates, which is what matters, is "
        "the same."
    )
    seeds = r["seed_sets"]
    spread = max(max(v["mae"]) / min(v["mae"]) for v in seeds.values())
    items.append(
        f"**Seed sets.** The article saw MAE nearly triple between seed sets and P=32 worse than "
        f"P=16; ours varies at most {spread:.2f}× between seed sets and falls with P as "
        "sqrt(J(1−J)/P) predicts. Our MAE at P=16 "
        f"({np.median(seeds['16']['mae']):.4f}) is higher than the article's 0.0519, so it "
        "probably averaged over a different set of pairs; the article does not say which."
    )
    band = r["brute_vs_lsh"]["banding"]["64x2"]
    items.append(
        "**Loose LSH bandings.** At 64 × 2 the article got 42 % of all pairs as candidates; we "
        f"got {band['share_of_pairs']:.1%} with seed 0 and "
        f"{min(band['candidates_by_seed']):,} – {max(band['candidates_by_seed']):,} "
        f"candidates over {len(band['candidates_by_seed'])} seeds. The shared footer makes "
        "non-duplicate candidates arrive in seed-dependent bursts (see the banding sweep); "
        "without the footer there are none. The tight bandings (4 × 32, 42 × 3) agree."
    )
    bp = r.get("boilerplate", {})
    if "0.3" in bp:
        b3 = bp["0.3"]["raw"]
        items.append(
            "**Boilerplate at 30 %.** The article: junk exceeds duplicates at threshold 0.30. "
            f"Ours: exact Jaccard finds {b3['exact_fp']:,} false positives and MinHash "
            f"{min(b3['minhash_fp_per_tp']):.2f} – {max(b3['minhash_fp_per_tp']):.2f} per true "
            "positive depending on the seed: the crossing happens between 30 % and 45 % here. "
            "How the article sized its block is not stated; we cut one text to each document's "
            "share. At 45 % both agree on roughly a hundred false positives per true one."
        )
    cost = r["cost"]
    mid = cost[str(cfg.mid_docs)]
    items.append(
        "**Costs.** Absolute times are not comparable (Rust here, JavaScript on an M3 there). "
        "In shape: shingling is a large share of fingerprinting in both; but our SimHash 64 "
        f"({mid['SimHash 64 (from shingles)'] * 1000:.0f} ms from shingles) is cheaper than "
        f"MinHash P=128 ({mid['MinHash P=128 (from shingles)'] * 1000:.0f} ms), the reverse of "
        "the article, whose SimHash loop was slower than its MinHash loop in V8."
    )
    naive = r["brute_vs_lsh"]["naive exact Jaccard (extrapolated)"]["seconds"]
    if naive > ARTICLE_NAIVE_JACCARD_SECONDS:
        items.append(
            f"**Naive brute-force Jaccard** over every pair of {cfg.mid_docs:,} documents would "
            f"take about {naive:.0f} s with `neardup.jaccard`, slower than the article's "
            f"JavaScript ({ARTICLE_NAIVE_JACCARD_SECONDS} s). `all_pairs_jaccard` (prefix "
            "filtering) is the practical exact method and takes about a second."
        )
    rep.add("Where ours disagrees with the article", "\n".join(f"- {i}" for i in items))


# ----------------------------------------------------------------------------- plots
