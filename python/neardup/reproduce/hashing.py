"""Experiment 2: does exact hashing (sha256, raw and normalised) find near-duplicates?"""

from __future__ import annotations

from functools import partial

import numpy as np

from neardup import stages, synth
from neardup.evaluate import Evaluation, evaluate
from neardup.reproduce.common import _f, _label_pairs, _ms, _n, _Report, _table, _timed


def _exact_hash_section(rep: _Report, c: synth.Corpus) -> dict[str, Evaluation]:
    out = {}
    rows = []
    for name, norm, art in (("sha256 raw", False, 0.0012), ("sha256 normalised", True, 0.0381)):
        t, labels = _timed(partial(stages.exact_duplicates, c.texts, normalized=norm))
        ev = evaluate(_label_pairs(labels), c)
        out[name] = ev
        rows.append([name, _ms(t), _f(ev.precision), _f(ev.recall), _n(ev.flagged), _f(art)])
    noop = sum(c.texts[i] == c.texts[i - 2] for i in np.flatnonzero(c.edit == "one-char").tolist())
    rep.results["exact_hashing"] = {k: v.as_dict() for k, v in out.items()}
    rep.add(
        "Does hashing work?",
        _table(["method", "time", "precision", "recall", "flagged", "article recall"], rows),
        f"Of the {c.bases} one-character edits, {noop} replaced a letter with itself (the "
        "article's 'edits that were not edits'); those are the pairs the raw hash finds.",
    )
    return out
