"""Experiments 9-10: avoiding the comparison of every pair (brute force vs LSH banding, the
banding sweep) and LSH 42 x 3 at scale.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any

import numpy as np

from neardup import stages, synth
from neardup.evaluate import Evaluation, evaluate
from neardup.reproduce.common import (
    _f,
    _is_dup,
    _ms,
    _n,
    _pair_chunks,
    _Report,
    _rss_mb,
    _table,
    _timed,
)
from neardup.reproduce.config import ARTICLE, BANDINGS, THRESHOLD, ReproConfig


def _lsh_section(
    rep: _Report, cfg: ReproConfig, big: dict[int, Any], best_hamming: int
) -> dict[str, Any]:
    mid = big[cfg.mid_docs]
    c, sh, sig = mid["corpus"], mid["sh"], mid["sig"]
    n = len(c)
    total = n * (n - 1) // 2
    pos = c.duplicate_pairs().shape[0]
    rows = []
    res: dict[str, Any] = {}

    def row(name: str, t: float, ev: Evaluation, cand: int | str, art: str) -> None:
        res[name] = {"seconds": t, "candidates": cand, **ev.as_dict()}
        rows.append(
            [
                name,
                _ms(t),
                cand if isinstance(cand, str) else _n(cand),
                _f(ev.precision),
                _f(ev.recall),
                _n(ev.flagged),
                art,
            ]
        )

    # naive exact Jaccard over shingle sets: timed on a sample, extrapolated
    rng = np.random.default_rng(3)
    m = min(cfg.naive_sample, total)
    a = rng.integers(0, n, m)
    b = rng.integers(0, n, m)
    sample = np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1)
    t_s, sample_j = _timed(lambda: stages.jaccard(sh, sample))
    nondup_sample = sample_j[~_is_dup(c.group, sample) & (sample[:, 0] != sample[:, 1])]
    lab_j = stages.jaccard(sh, c.duplicate_pairs())
    t_naive = t_s * total / m
    res["naive exact Jaccard (extrapolated)"] = {"seconds": t_naive, "sample_pairs": m}
    rows.append(
        [
            f"exact Jaccard, every pair (`jaccard`, extrapolated from {_n(m)} pairs)",
            _ms(t_naive),
            _n(total),
            "1.0000*",
            "1.0000*",
            "–",
            "1 m 44 s",
        ]
    )
    t, (ep, _) = _timed(lambda: stages.all_pairs_jaccard(sh, THRESHOLD))
    row("exact Jaccard, prefix-filtered (`all_pairs_jaccard`)", t, evaluate(ep, c), "–", "–")
    # brute-force MinHash: every pair's estimate (pair enumeration not timed)
    t_mh = 0.0
    found = []
    for chunk in _pair_chunks(n):
        t0 = time.perf_counter()
        est = stages.estimate_jaccard(sig, chunk)
        t_mh += time.perf_counter() - t0
        found.append(chunk[est >= THRESHOLD])
    row("MinHash P=128, every pair", t_mh, evaluate(np.concatenate(found), c), _n(total), "8.3 s")
    fp = stages.simhash(sh, bits=64)
    t, (hp, _) = _timed(lambda: stages.hamming_within(fp, best_hamming))
    row(f"SimHash 64, every pair (≤ {best_hamming} bits)", t, evaluate(hp, c), _n(total), "0.1 s")
    # LSH banding sweep; candidate counts also over other MinHash seeds and without the footer
    other_sigs = [stages.minhash(sh, num_perm=128, seed=s) for s in range(1, cfg.lsh_seeds)]
    plain = synth.generate(*synth.preset(n), seed=cfg.seed, footer=False)
    plain_sh = stages.shingles(plain.texts)
    plain_sigs = [stages.minhash(plain_sh, num_perm=128, seed=s) for s in range(cfg.lsh_seeds)]
    sweep_rows = []
    sweep: dict[str, Any] = {}
    for bands, r_ in BANDINGS:
        counts = [int(stages.lsh_candidates(sg, bands, r_).shape[0]) for sg in [sig, *other_sigs]]
        plain_counts = [int(stages.lsh_candidates(sg, bands, r_).shape[0]) for sg in plain_sigs]
        t_c, cand = _timed(partial(stages.lsh_candidates, sig, bands, r_))
        t_v, est = _timed(partial(stages.estimate_jaccard, sig, cand))
        ev = evaluate(cand[est >= THRESHOLD], c)
        s_star = stages.lsh_threshold(bands, r_)
        cand_recall = evaluate(cand, c).recall
        expected = float(
            stages.lsh_probability(lab_j.astype(np.float64), bands, r_).sum()
            + (total - pos)
            * stages.lsh_probability(nondup_sample.astype(np.float64), bands, r_).mean()
        )
        sweep[f"{bands}x{r_}"] = {
            "s_star": s_star,
            "candidates": int(cand.shape[0]),
            "expected": expected,
            "candidates_by_seed": counts,
            "candidates_no_footer_by_seed": plain_counts,
            "share_of_pairs": cand.shape[0] / total,
            "candidate_recall": cand_recall,
            "seconds": t_c + t_v,
            **ev.as_dict(),
        }
        art = {(4, 32): "finds 17 %", (64, 2): "42 % of all pairs", (42, 3): "recall −0.5 %"}
        sweep_rows.append(
            [
                f"{bands} × {r_}",
                _f(s_star, 3),
                _n(cand.shape[0]),
                f"{cand.shape[0] / total:.2%}",
                f"{_n(min(counts))} – {_n(max(counts))}",
                _n(expected),
                f"{_n(min(plain_counts))} – {_n(max(plain_counts))}",
                _f(cand_recall),
                _f(ev.recall),
                _f(ev.precision),
                _ms(t_c + t_v),
                art.get((bands, r_), "–"),
            ]
        )
        if (bands, r_) == (42, 3):
            row("LSH 42 × 3 + MinHash verify", t_c + t_v, ev, int(cand.shape[0]), "59 ms")
    res["banding"] = sweep
    speedup = t_mh / res["LSH 42 × 3 + MinHash verify"]["seconds"]
    rep.results["brute_vs_lsh"] = res
    rep.add(
        f"How do you avoid comparing every pair? ({_n(n)} documents, threshold 0.30)",
        f"{_n(total)} pairs, {_n(pos)} labelled. * the naive row is timed on a sample; its "
        "accuracy is that of the prefix-filtered row (same exact Jaccard).",
        _table(
            ["method", "time", "pairs compared", "precision", "recall", "flagged", "article time"],
            rows,
        ),
        f"LSH 42×3 versus comparing every MinHash signature: {speedup:.0f}× faster "
        "(article: 141×).",
        "The banding sweep (P = 128; S* = (1/b)^(1/r); 'candidate recall' = labelled pairs "
        "that became candidates; recall and precision after verifying the estimate ≥ 0.30):",
        _table(
            [
                "b × r",
                "S*",
                "candidates",
                "of all pairs",
                f"candidates, {cfg.lsh_seeds} seeds",
                "expected",
                f"no footer, {cfg.lsh_seeds} seeds",
                "candidate recall",
                "recall",
                "precision",
                "time",
                "article",
            ],
            sweep_rows,
        ),
        "Columns after 'of all pairs': the candidate count's range over "
        f"{cfg.lsh_seeds} MinHash seeds; its expectation from the S-curve (the sum of "
        "1 − (1 − J^r)^b over the labelled pairs, plus the mean over a sample of "
        f"{_n(nondup_sample.size)} non-duplicate pairs times their number); and its range on "
        "the same corpus generated without the shared footer.",
        "The loose bandings are where ours and the article's disagree, and the cause is the "
        "footer: every document carries the same ~22 footer shingles, so in any slot whose "
        "minimum happens to fall in the footer for many documents at once, they all collide "
        "together in that band. Non-duplicate candidates therefore come in bursts whose size "
        "depends on the MinHash seed (the range column), while the expectation is the average "
        "over seeds; without the footer the bursts vanish and the candidates are essentially "
        "the labelled pairs. The article's 42 % at 64 × 2 looks like one draw from such a "
        "burst distribution rather than a property of 64 × 2.",
    )
    return {"corpus": c, "sh": sh}


def _lsh_scale_section(rep: _Report, cfg: ReproConfig, big: dict[int, Any]) -> None:
    top = big[cfg.docs]
    c, sig = top["corpus"], top["sig"]
    n = len(c)
    t_c, cand = _timed(lambda: stages.lsh_candidates(sig, 42, 3))
    t_v, est = _timed(lambda: stages.estimate_jaccard(sig, cand))
    ev = evaluate(cand[est >= THRESHOLD], c)
    mid_t = rep.results["brute_vs_lsh"]["LSH 42 × 3 + MinHash verify"]["seconds"]
    res = {
        "docs": n,
        "build_s": t_c,
        "verify_s": t_v,
        "candidates": int(cand.shape[0]),
        "rss_mb": _rss_mb(),
        **ev.as_dict(),
    }
    rep.results["lsh_at_scale"] = res
    a = ARTICLE["lsh_100k"]
    rows = [
        ["documents", _n(n), "100,000"],
        ["build (band keys + candidates)", _ms(t_c), f"{a['build_ms']} ms"],
        ["verification (estimate ≥ 0.30)", _ms(t_v), f"{a['verify_ms']} ms"],
        ["candidate pairs", _n(cand.shape[0]), _n(a["candidates"])],
        ["pairs flagged", _n(ev.flagged), _n(a["flagged"])],
        ["labelled pairs", _n(ev.positives), "280,000"],
        ["recall", _f(ev.recall), _f(a["recall"])],
        ["precision", _f(ev.precision), _f(a["precision"])],
        ["signatures (uint32[n, 128])", f"{sig.nbytes / 1e6:,.0f} MB", "51 MB"],
        [
            "peak resident memory (whole run so far: not comparable)",
            f"{res['rss_mb']:,.0f} MB",
            f"{a['rss_mb']} MB",
        ],
    ]
    if n > cfg.mid_docs:
        rows.append([f"time vs {_n(cfg.mid_docs)} documents", f"{(t_c + t_v) / mid_t:.1f}×", "18×"])
    rep.add(f"LSH 42 × 3 at {_n(n)} documents", _table(["", "ours", "article"], rows))
