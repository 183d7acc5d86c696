"""Experiments 6-7: SimHash against MinHash at each one's best F1, and recall by edit type."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from neardup import stages, synth
from neardup.evaluate import Evaluation, evaluate
from neardup.reproduce.common import _f, _n, _Report, _table
from neardup.reproduce.config import THRESHOLD


def _simhash_section(
    rep: _Report, c: synth.Corpus, sh: stages.ShingleSets, mh: dict[str, Any]
) -> dict[str, Any]:
    allp, dup = mh["allp"], mh["dup"]
    pos = c.duplicate_pairs().shape[0]
    rows = []
    res: dict[str, Any] = {}
    best_pairs: dict[str, npt.NDArray[np.int64]] = {}
    fps: dict[str, npt.NDArray[np.uint64]] = {}
    for bits in (64, 128):
        for w in (None, "tf"):
            name = f"SimHash {bits}" + (" TF" if w else "")
            fp = (
                stages.simhash(c.texts, bits=bits, weights=w)
                if w
                else stages.simhash(sh, bits=bits)
            )
            fps[name] = fp
            d = stages.hamming(fp, allp)
            all_counts = np.bincount(d, minlength=bits + 1)
            tp_counts = np.bincount(d[dup], minlength=bits + 1)
            flagged = np.cumsum(all_counts)
            tp = np.cumsum(tp_counts)
            f1 = 2 * tp / (flagged + pos)
            h = int(np.argmax(f1))
            m = d <= h
            ev = evaluate(allp[m], c)
            best_pairs[name] = allp[m]
            res[name] = {"hamming": h, **ev.as_dict()}
            rows.append([name, f"≤ {h}", _f(ev.precision), _f(ev.recall), _f(ev.f1), _n(ev.fp)])
    same64 = float(np.mean(np.all(fps["SimHash 64"] == fps["SimHash 64 TF"], axis=1)))
    # MinHash P=128 and P=32 at their best thresholds (every k/P)
    for p in (128, 32):
        sw = mh["sweeps"][f"MinHash P={p}"]
        f1, t = sw.best_f1(np.arange(1, p + 1) / p)
        m = sw.sim >= t
        ev = evaluate(allp[m], c)
        name = f"MinHash P={p}"
        best_pairs[name] = allp[m]
        res[name] = {"threshold": t, **ev.as_dict()}
        rows.append([name, f"≥ {t:.3f}", _f(ev.precision), _f(ev.recall), _f(ev.f1), _n(ev.fp)])
    rep.results["simhash"] = res | {"tf_identical_share_64": same64}
    rep.add(
        "Is SimHash better?",
        "Each method at its own best F1 (Hamming distance swept over 0..bits for SimHash, "
        "every k/P threshold for MinHash, showing the lowest threshold that reaches the best "
        "F1), all pairs of the accuracy corpus.",
        _table(["method", "best point", "precision", "recall", "F1", "FP"], rows),
        _table(
            ["", "ours", "article"],
            [
                ["SimHash 64 best F1", _f(res["SimHash 64"]["f1"]), "0.8248"],
                ["MinHash 128 best F1", _f(res["MinHash P=128"]["f1"]), "0.9999"],
                ["SimHash 64 false positives at its best", _n(res["SimHash 64"]["fp"]), "629"],
                [
                    "share of documents whose TF-weighted 64-bit fingerprint is identical",
                    f"{same64:.2%}",
                    "identical results",
                ],
            ],
        ),
    )
    return best_pairs


def _per_edit_section(
    rep: _Report,
    c: synth.Corpus,
    exact_hash: dict[str, Evaluation],
    mh: dict[str, Any],
    best_pairs: dict[str, npt.NDArray[np.int64]],
) -> dict[str, Evaluation]:
    evs: dict[str, Evaluation] = dict(exact_hash)
    evs["exact Jaccard ≥ 0.3"] = evaluate(mh["exact_pairs"], c)
    for k in ("MinHash P=128", "MinHash P=32", "SimHash 64", "SimHash 128"):
        evs[k] = evaluate(best_pairs[k], c)
    sig = mh["sigs"][128]
    cand = stages.lsh_candidates(sig, 42, 3)
    keep = stages.estimate_jaccard(sig, cand) >= THRESHOLD
    evs["LSH 42×3 (≥ 0.3)"] = evaluate(cand[keep], c)
    kinds = [*synth.EDITS, synth.BETWEEN_VARIANTS]
    rows = [[k, *[_f(evs[m].by_kind[k].recall, 3) for m in evs]] for k in kinds]
    rows.append(["**overall recall**", *[_f(evs[m].recall, 3) for m in evs]])
    rows.append(["false positives", *[_n(evs[m].fp) for m in evs]])
    rep.results["per_edit"] = {m: e.as_dict() for m, e in evs.items()}
    rep.add(
        "Where each method fails: recall by edit type at its best point",
        _table(["edit", *evs], rows),
        "The article: SimHash handles the trivial edits and drops to about 0.75 on edits that "
        "move ~35 % of the shingles, with 629 false positives where MinHash has none.",
    )
    return evs
