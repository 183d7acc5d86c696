"""Experiments 3-5: how many MinHash permutations, seed-set variance, and the estimator's
bias and error against theory.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import numpy.typing as npt

from neardup import stages, synth
from neardup.reproduce.common import (
    _all_pairs,
    _f,
    _is_dup,
    _ms,
    _n,
    _Report,
    _Sweep,
    _table,
    _timed,
)
from neardup.reproduce.config import PERMS, THRESHOLD, THRESHOLDS, ReproConfig


def _minhash_section(
    rep: _Report, c: synth.Corpus, sh: stages.ShingleSets, jac: dict[str, Any]
) -> dict[str, Any]:
    n = len(c)
    allp = _all_pairs(n)
    dup = _is_dup(c.group, allp)
    pos = c.duplicate_pairs().shape[0]
    # exact Jaccard: every pair >= 0.3 from the (prefix-filtered) brute force
    t_exact, (ep, es) = _timed(lambda: stages.all_pairs_jaccard(sh, THRESHOLD))
    exact = _Sweep(es, _is_dup(c.group, ep), pos)
    sweeps: dict[str, _Sweep] = {"exact Jaccard": exact}
    sigs: dict[int, npt.NDArray[np.uint32]] = {}
    for p in PERMS:
        sigs[p] = stages.minhash(sh, num_perm=p, seed=0)
        sweeps[f"MinHash P={p}"] = _Sweep(stages.estimate_jaccard(sigs[p], allp), dup, pos)
    rows = []
    res: dict[str, Any] = {}
    for name, sw in sweeps.items():
        cells = []
        res[name] = {}
        for t in THRESHOLDS:
            prec, rec, flagged, _ = sw.at(t)
            res[name][str(t)] = {"precision": prec, "recall": rec, "flagged": flagged}
            cells.append(f"{_f(prec, 3)} / {_f(rec, 3)}")
        rows.append([name, *cells])
    gap = [
        max(
            abs(res[f"MinHash P={p}"][str(t)]["recall"] - res["exact Jaccard"][str(t)]["recall"])
            for t in THRESHOLDS
        )
        for p in PERMS
    ]
    gap03 = [
        abs(res[f"MinHash P={p}"]["0.3"]["recall"] - res["exact Jaccard"]["0.3"]["recall"])
        for p in PERMS
    ]
    rep.results["minhash_thresholds"] = res
    r05 = [res[k]["0.5"]["recall"] for k in sweeps]
    rep.add(
        "How many MinHash permutations do you need?",
        f"Precision / recall against the {_n(pos)} labelled pairs; MinHash compares all "
        f"{_n(allp.shape[0])} pairs by the share of equal slots (seed 0); the exact row is "
        f"`all_pairs_jaccard` ({_ms(t_exact)}).",
        _table(["", *[f"t={t}" for t in THRESHOLDS]], rows),
        _table(
            ["", "ours", "article"],
            [
                [
                    "exact Jaccard recall at 0.50",
                    _f(res["exact Jaccard"]["0.5"]["recall"]),
                    "0.8705",
                ],
                [
                    "MinHash recall at 0.50, range over P",
                    f"{_f(min(r05[1:]))} – {_f(max(r05[1:]))}",
                    "≈ 0.87 for every P",
                ],
                [
                    "MinHash recall at 0.30, P=16 / P=256",
                    f"{_f(res['MinHash P=16']['0.3']['recall'])} / "
                    f"{_f(res['MinHash P=256']['0.3']['recall'])}",
                    "0.9830 / 1.0000",
                ],
                [
                    "P=16: largest recall gap to exact, at 0.30 / any t",
                    f"{_f(gap03[0])} / {_f(gap[0])}",
                    "0.017 / 0.054",
                ],
                [
                    "recall lost going P=128 → P=64 at 0.30",
                    _f(
                        res["MinHash P=128"]["0.3"]["recall"] - res["MinHash P=64"]["0.3"]["recall"]
                    ),
                    "0.0023",
                ],
            ],
        ),
    )
    return {"sigs": sigs, "sweeps": sweeps, "allp": allp, "dup": dup, "exact_pairs": ep}


def _seed_section(
    rep: _Report, c: synth.Corpus, sh: stages.ShingleSets, jac: dict[str, Any], cfg: ReproConfig
) -> None:
    lab = c.duplicate_pairs()
    exact = jac["dup_j"].astype(np.float64)
    rows = []
    res: dict[str, Any] = {}
    for p in PERMS:
        mae, rec = [], []
        for s in range(cfg.seed_sets):
            sig = stages.minhash(sh, num_perm=p, seed=1000 + s)
            est = stages.estimate_jaccard(sig, lab).astype(np.float64)
            mae.append(float(np.abs(est - exact).mean()))
            rec.append(float((est >= THRESHOLD).mean()))
        theory = float(np.mean(np.sqrt(exact * (1 - exact) / p)) * math.sqrt(2 / math.pi))
        res[str(p)] = {"mae": mae, "recall": rec, "mae_theory": theory}
        art = {16: "0.0519 (one seed)", 32: "0.0557 (one seed)"}.get(p, "–")
        rows.append(
            [
                p,
                _f(min(mae)),
                _f(max(mae)),
                f"{max(mae) / min(mae):.2f}×",
                _f(theory),
                _f(min(rec)),
                _f(max(rec)),
                art,
            ]
        )
    rep.results["seed_sets"] = res
    maes = [np.mean(res[str(p)]["mae"]) for p in PERMS]
    monotone = all(a > b for a, b in itertools.pairwise(maes))
    rep.add(
        "Seed-set variance",
        f"{cfg.seed_sets} seed sets per P; mean absolute error of the MinHash estimate against "
        f"exact Jaccard over the {_n(lab.shape[0])} labelled pairs, and recall at 0.30. "
        "'theory' is the mean of sqrt(J(1−J)/P)·sqrt(2/π), the expected absolute error of an "
        "unbiased estimator with that standard error.",
        _table(
            [
                "P",
                "MAE min",
                "MAE max",
                "max/min",
                "theory",
                "recall min",
                "recall max",
                "article MAE",
            ],
            rows,
        ),
        (
            "Mean MAE falls with every doubling of P here"
            if monotone
            else "Mean MAE does NOT fall monotonically with P here"
        )
        + "; the article's spread between seed sets ('nearly triples') is "
        + (
            "not reproduced: our max/min ratio stays far below 3× and each P's MAE sits on "
            "the theoretical value. We have not isolated the article's cause; the likeliest is "
            "its per-slot hash (one 32-bit shingle hash XORed with a per-slot seed, then mixed), "
            "which is not an independent hash per slot."
            if max(max(r["mae"]) / min(r["mae"]) for r in res.values()) < 2.0
            else "reproduced."
        ),
    )


def _estimator_section(rep: _Report, cfg: ReproConfig) -> None:
    rng = np.random.default_rng(7)
    universe = np.unique(rng.integers(0, 2**63, 1200, dtype=np.uint64))[:1000]

    def pair_with(j: float) -> stages.ShingleSets:
        # |A| = |B| = m, |A ∩ B| = x, J = x / (2m - x) -> x = 2mJ / (1 + J)
        m = 400
        x = round(2 * m * j / (1 + j))
        a = universe[:m]
        b = universe[m - x : 2 * m - x]
        hashes = np.concatenate([np.sort(a), np.sort(b)])
        return stages.ShingleSets(np.array([0, m, 2 * m], dtype=np.int64), hashes, k=5, unit="word")

    cells = (
        [(128, 0.6)] + [(p, 0.6) for p in PERMS if p != 128] + [(128, j) for j in (0.1, 0.3, 0.9)]
    )
    rows = []
    res = {}
    for p, j in cells:
        ss = pair_with(j)
        sa, sb = ss[0], ss[1]
        true_j = len(np.intersect1d(sa, sb)) / len(np.union1d(sa, sb))
        est = np.empty(cfg.trials)
        for t in range(cfg.trials):
            sig = stages.minhash(ss, num_perm=p, seed=10_000 + t)
            est[t] = np.count_nonzero(sig[0] == sig[1]) / p
        bias = float(est.mean() - true_j)
        rmse = float(np.sqrt(np.mean((est - true_j) ** 2)))
        theory = math.sqrt(true_j * (1 - true_j) / p)
        res[f"P={p},J={true_j:.4f}"] = {"bias": bias, "rmse": rmse, "theory": theory}
        art = "−0.0004 / 0.0435 / 0.0433" if (p, j) == (128, 0.6) else "–"
        rows.append([p, _f(true_j), _f(bias), _f(rmse), _f(theory), f"{rmse / theory:.3f}", art])
    rep.results["estimator"] = res
    rep.add(
        "The estimator check",
        f"One pair of known Jaccard, {_n(cfg.trials)} trials, a fresh MinHash seed per trial.",
        _table(
            [
                "P",
                "J",
                "bias",
                "RMSE",
                "sqrt(J(1−J)/P)",
                "RMSE/theory",
                "article bias / RMSE / theory",
            ],
            rows,
        ),
    )
