"""``DuplicateResult.annotate`` / ``filter``: the table the texts came from, with the
per-document columns added or the kept rows only, as the same kind of table."""

from __future__ import annotations

import numpy as np
import pytest

import neardup
from neardup.errors import InputTypeError, InvalidArgumentError

from reference import jaccard as ref_jaccard
from reference import shingle_set as ref_shingles

pd = pytest.importorskip("pandas")

CORPUS = neardup.synth.generate(bases=8, singles=10, seed=11)
TEXTS = CORPUS.texts


def _result(**kw):
    return neardup.find_duplicates(TEXTS, threshold=0.5, **kw)


def _frames():
    yield "pandas", pd.DataFrame({"id": range(len(TEXTS)), "text": TEXTS})
    pa = pytest.importorskip("pyarrow")
    yield "arrow", pa.table({"id": list(range(len(TEXTS))), "text": TEXTS})
    try:
        import polars as pl

        yield "polars", pl.DataFrame({"id": list(range(len(TEXTS))), "text": TEXTS})
    except ImportError:
        pass
    try:
        import datasets

        yield "datasets", datasets.Dataset.from_dict({"id": list(range(len(TEXTS))), "text": TEXTS})
    except ImportError:
        pass


def _column(table, name):
    if (
        hasattr(table, "column_names")
        and hasattr(table, "num_rows")
        and not hasattr(table, "features")
    ):
        return table.column(name).to_pylist()
    return list(table[name])


@pytest.mark.parametrize("keep", ["first", "longest"])
def test_annotate_every_kind_of_table(keep):
    result = _result(keep=keep)
    assert result.num_removed > 0
    for kind, table in _frames():
        out = result.annotate(table)
        assert type(out) is type(table), kind
        assert _column(out, "keep") == result.keep.tolist(), kind
        assert _column(out, "cluster") == result.clusters.tolist(), kind
        assert _column(out, "duplicate_of") == result.duplicate_of.tolist(), kind
        assert np.allclose(_column(out, "similarity"), result.kept_similarity), kind
        assert _column(out, "text") == TEXTS, kind
        kept = result.filter(table)
        assert type(kept) is type(table)
        assert _column(kept, "id") == np.flatnonzero(result.keep).tolist(), kind


def test_columns_mean_what_they_say():
    result = _result(keep="longest")
    rep = result.representative
    for i in range(result.n):
        if result.keep[i]:
            assert result.duplicate_of[i] == -1 and result.kept_similarity[i] == 1.0
            continue
        j = int(result.duplicate_of[i])
        assert result.keep[j] and result.clusters[j] == result.clusters[i] and rep[i] == j
        truth = ref_jaccard(ref_shingles(TEXTS[i], 5), ref_shingles(TEXTS[j], 5))
        assert result.kept_similarity[i] == pytest.approx(truth, abs=1e-6)
    # keep="longest": each kept document is the longest of its cluster
    for label in np.unique(result.clusters):
        members = np.flatnonzero(result.clusters == label)
        longest = max(len(TEXTS[m]) for m in members)
        (kept,) = members[result.keep[members]]
        assert len(TEXTS[kept]) == longest


def test_bad_tables_are_refused():
    result = _result()
    with pytest.raises(InvalidArgumentError, match="rows"):
        result.annotate(pd.DataFrame({"text": TEXTS[:-1]}))
    with pytest.raises(InvalidArgumentError, match="already has a column 'keep'"):
        result.annotate(pd.DataFrame({"text": TEXTS, "keep": 1}))
    with pytest.raises(InputTypeError, match="DataFrame"):
        result.annotate(TEXTS)
