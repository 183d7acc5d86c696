"""Experiment 8: what fingerprinting costs (single thread) at two corpus sizes."""

from __future__ import annotations

from functools import partial
from typing import Any

from neardup import stages, synth
from neardup.reproduce.common import _ms, _n, _Report, _table, _timed
from neardup.reproduce.config import PERMS, ReproConfig


def _cost_section(rep: _Report, cfg: ReproConfig) -> dict[int, Any]:
    sizes = sorted({cfg.mid_docs, cfg.docs})
    rows: dict[str, list[str]] = {}
    res: dict[int, Any] = {}
    keep: dict[int, Any] = {}
    for size in sizes:
        c = synth.generate(*synth.preset(size), seed=cfg.seed)
        reps = cfg.cost_repeats if size <= cfg.mid_docs else 1
        warm = size <= cfg.mid_docs
        t_sh, sh = _timed(partial(stages.shingles, c.texts), reps, warm)
        r: dict[str, float] = {"shingling": t_sh}
        sig128 = None
        for p in PERMS:
            t, sig = _timed(partial(stages.minhash, sh, num_perm=p), reps, warm)
            r[f"MinHash P={p} (from shingles)"] = t
            if p == 128:
                sig128 = sig
        for bits in (64, 128):
            t, _ = _timed(partial(stages.simhash, sh, bits=bits), reps, warm)
            r[f"SimHash {bits} (from shingles)"] = t
        t, _ = _timed(partial(stages.minhash, c.texts, num_perm=128), reps, warm)
        r["MinHash P=128 from texts (end to end)"] = t
        t, _ = _timed(partial(stages.simhash, c.texts, bits=64), reps, warm)
        r["SimHash 64 from texts (end to end)"] = t
        t, _ = _timed(partial(stages.simhash, c.texts, bits=64, weights="tf"), reps, warm)
        r["SimHash 64 TF from texts (end to end)"] = t
        res[size] = r
        keep[size] = {"corpus": c, "sh": sh, "sig": sig128}
        for k, v in r.items():
            rows.setdefault(k, []).append(_ms(v))
    art = {
        "shingling": ["–", "11.1 s"],
        "MinHash P=128 from texts (end to end)": ["493 ms", "18.6 s"],
        "SimHash 64 from texts (end to end)": ["567 ms", "–"],
    }
    table_rows = [[k, *v, *art.get(k, ["–", "–"])] for k, v in rows.items()]
    ratio = ""
    if len(sizes) == 2:
        a, b = res[sizes[0]], res[sizes[1]]
        k = "MinHash P=128 from texts (end to end)"
        ratio = (
            f"{sizes[1] // sizes[0]}× the documents cost {b[k] / a[k]:.1f}× the time "
            f"(MinHash P=128 end to end; the article: 10-15×)."
        )
    rep.results["cost"] = {str(k): v for k, v in res.items()}
    rep.add(
        "What does fingerprinting cost?",
        f"Single thread; median of {cfg.cost_repeats} runs after a warm-up at "
        f"{_n(cfg.mid_docs)} documents, one run at larger sizes. The article's times are "
        "JavaScript (V8) on an Apple M3.",
        _table(
            ["step", *[f"{_n(s)} docs" for s in sizes], "article 10k", "article 100k"], table_rows
        ),
        ratio,
    )
    return keep
