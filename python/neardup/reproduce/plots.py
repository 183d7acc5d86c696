"""The PNG plots of the report (needs matplotlib: ``pip install neardup[plot]``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from neardup import stages, synth
from neardup.evaluate import Evaluation
from neardup.reproduce.common import _Report
from neardup.reproduce.config import BANDINGS, THRESHOLD


def _plots(out: Path, rep: _Report, jac: dict[str, Any], evs: dict[str, Evaluation]) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        rep.log("  matplotlib not installed: no plots (pip install neardup[plot])")
        return
    # 1. S-curves over the Jaccard histograms
    fig, ax = plt.subplots(figsize=(10, 4.5))
    bins = np.linspace(0, 1, 101).tolist()
    ax.hist(
        jac["nondup_j"],
        bins=bins,
        color="0.6",
        alpha=0.7,
        density=True,
        label="non-duplicate pairs",
    )
    ax.hist(
        jac["dup_j"],
        bins=bins,
        color="tab:green",
        alpha=0.6,
        density=True,
        label="labelled duplicate pairs",
    )
    ax.set_yscale("log")
    ax.set_xlabel("exact Jaccard of 5-word shingles")
    ax.set_ylabel("density (log)")
    ax2 = ax.twinx()
    s = np.linspace(0, 1, 201)
    for b, r in BANDINGS:
        ax2.plot(s, stages.lsh_probability(s, b, r), label=f"{b}×{r}")
    ax2.axvline(THRESHOLD, color="k", ls=":", lw=1)
    ax2.set_ylabel("P(candidate)")
    ax2.set_ylim(0, 1.02)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax2.legend(h1 + h2, l1 + l2, fontsize=7, loc="center left", bbox_to_anchor=(1.12, 0.5))
    ax.set_title("LSH S-curves over the Jaccard distribution")
    fig.tight_layout()
    fig.savefig(out / "lsh_s_curves.png", dpi=120)
    plt.close(fig)
    rep.plots.append("lsh_s_curves.png")
    # 2. recall by edit type per method
    kinds = [*synth.EDITS, synth.BETWEEN_VARIANTS]
    methods = list(evs)
    fig, ax = plt.subplots(figsize=(10, 4.5))
    w = 0.8 / len(methods)
    x = np.arange(len(kinds))
    for i, m in enumerate(methods):
        ax.bar(x + i * w, [evs[m].by_kind[k].recall for k in kinds], w, label=m)
    ax.set_xticks(x + 0.4 - w / 2)
    ax.set_xticklabels(kinds, rotation=20, fontsize=8)
    ax.set_ylabel("recall")
    ax.set_ylim(0, 1.3)
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.legend(fontsize=7, ncol=4, loc="upper center")
    ax.set_title("Recall by edit type, each method at its best point")
    fig.tight_layout()
    fig.savefig(out / "recall_by_edit.png", dpi=120)
    plt.close(fig)
    rep.plots.append("recall_by_edit.png")
    # 3. FP per TP against boilerplate share
    bp = rep.results.get("boilerplate")
    if bp:
        shares = [float(k) for k in bp]
        fig, ax = plt.subplots(figsize=(6, 4))
        for key, label in (
            ("minhash_fp_per_tp", "MinHash P=128"),
            ("exact_fp_per_tp", "exact Jaccard"),
        ):
            ys = [max(float(np.median(bp[k]["raw"][key])), 1e-3) for k in bp]
            ax.plot(shares, ys, "o-", label=label)
        ys = [max(float(np.median(bp[k]["stripped"]["minhash_fp_per_tp"])), 1e-3) for k in bp]
        ax.plot(shares, ys, "s--", label="MinHash, boilerplate stripped")
        ax.axhline(1, color="k", ls=":", lw=1)
        ax.set_yscale("log")
        ax.set_xlabel("boilerplate share of every document")
        ax.set_ylabel("false positives per true positive (t = 0.30)")
        ax.set_title("MinHash: median over seeds; 1e-3 stands for 0", fontsize=8)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "boilerplate_fp_per_tp.png", dpi=120)
        plt.close(fig)
        rep.plots.append("boilerplate_fp_per_tp.png")


# ----------------------------------------------------------------------------- the run
