"""The in-memory lookup (rust/lookup.rs) against a brute-force scan of the stored signatures:
random corpora with many tied similarities (few permutations), ids outside ASCII (ties are
broken by id in code point order), removals and re-additions, top-k cuts and thresholds; the
SQL path (``cache=False``) must agree too."""

from __future__ import annotations

import os
import tempfile

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import neardup
from neardup.banding import BUCKET_LIMIT
from neardup.index import Index, Match

NUM_PERM, BANDS, ROWS = 16, 8, 2
WORDS = [f"w{i}" for i in range(12)]
ID_CHARS = "ab\u00e9\u4e2d\U0001f600"  # code points of 1 to 4 UTF-8 bytes


def _brute(ix: Index, ids: list[str], sigs: np.ndarray, query: np.ndarray, k, threshold):
    """Stored documents sharing a band key with the query, best first, equal by id."""
    keys = np.asarray(neardup.band_hashes(np.vstack([sigs, query[None]]), BANDS, ROWS))
    empty = (query == 0xFFFFFFFF).all()
    shares = (keys[:-1] == keys[-1]).any(axis=1) & ~empty
    sim = (sigs == query).mean(axis=1, dtype=np.float32).astype(np.float64)
    ms = [Match(ids[i], float(sim[i])) for i in np.flatnonzero(shares) if sim[i] >= threshold]
    ms.sort(key=lambda m: (-m.similarity, m.id))
    return ms[:k] if k is not None else ms


texts = st.lists(st.sampled_from(WORDS), min_size=0, max_size=8).map(" ".join)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    docs=st.lists(
        st.tuples(st.text(ID_CHARS, min_size=1, max_size=3), texts),
        min_size=1,
        max_size=40,
        unique_by=lambda d: d[0],
    ),
    batches=st.integers(1, 4),
    removed=st.sets(st.integers(0, 39), max_size=10),
    queries=st.lists(texts, min_size=1, max_size=6),
    k=st.one_of(st.none(), st.integers(1, 5)),
    threshold=st.sampled_from([None, 0.05, 0.25, 0.5, 1.0]),
)
def test_lookup_equals_brute_force(docs, batches, removed, queries, k, threshold):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "x.ndx")
        opts = dict(threshold=0.5, num_perm=NUM_PERM, k=2, bands=BANDS, rows=ROWS)
        with Index(path, **opts) as ix, Index(path, cache=False) as sql:
            ix.query(["w0"])  # the mirror exists from the start: adds append to it
            step = -(-len(docs) // batches)
            for s in range(0, len(docs), step):
                part = docs[s : s + step]
                ix.add([d[0] for d in part], [d[1] for d in part])
            gone = [docs[i][0] for i in removed if i < len(docs)]
            ix.remove(gone)
            if gone:  # a removed id comes back with another text: only the new row counts
                ix.add([gone[0]], ["w1 w2 w3 w4"])
            ids = [d[0] for d in docs if d[0] not in gone[1:]]
            sigs = np.array([ix.signature(i) for i in ids], dtype=np.uint32).reshape(-1, NUM_PERM)
            qsig = np.asarray(neardup.minhash(queries, num_perm=NUM_PERM, k=2), dtype=np.uint32)
            thr = threshold if threshold is not None else (0.0 if k is not None else 0.5)
            expected = [_brute(ix, ids, sigs, q, k, thr) for q in qsig]
            assert ix.query(queries, threshold=threshold, k=k) == expected
            assert [ix.query([q], threshold=threshold, k=k)[0] for q in queries] == expected
            assert sql.query(queries, threshold=threshold, k=k) == expected
            reopened = Index(path)  # a fresh mirror, read from the file in one piece
            assert reopened.query(queries, threshold=threshold, k=k) == expected
            reopened.close()


def test_results_are_match_tuples(tmp_path):
    with Index(tmp_path / "m.ndx", threshold=0.5) as ix:
        ix.add(["a", "b"], ["the quick brown fox jumps", "the quick brown fox jumps"])
        (found,) = ix.query(["the quick brown fox jumps"], k=1)
    assert found == [Match("a", 1.0)] and type(found[0]) is Match
    assert found[0].id == "a" and found[0] == ("a", 1.0)


def test_a_shared_footer_keeps_each_querys_candidates_bounded(tmp_path):
    # 3,000 unrelated documents that share a 30-word footer (issue 24): whole, the footer's
    # band buckets make every query's candidates a share of the index; split by the bucket
    # rule of find_duplicates, about one (itself). A near copy is still found.
    rng = np.random.default_rng(0)
    footer = " ".join(f"f{i}" for i in range(30))
    docs = [
        " ".join(f"v{w}" for w in rng.integers(0, 20_000, 150)) + " " + footer for _ in range(3000)
    ]
    copy = docs[7].split()
    copy[3] = "changed"
    ids = [str(i) for i in range(len(docs))]
    ix = Index(os.fspath(tmp_path / "footer.ndx"), threshold=0.3)
    ix.add(ids, docs)
    sig = ix._query_signatures(docs)
    split = ix._read_mirror()
    whole = split.__class__(ix.num_perm, ix.bands, ix.rows, 0, ix.threshold, bucket_limit=None)
    whole.append(np.arange(len(docs)), sig, ids, np.ones(len(docs), np.int64))
    per_doc = [len(m) for m in split.lookup(sig, 0.0, None)]
    assert np.mean([len(m) for m in whole.lookup(sig, 0.0, None)]) > 10
    # a bucket of at most BUCKET_LIMIT stays whole, as in find_duplicates
    assert np.mean(per_doc) < 1.5 and max(per_doc) <= 2 * BUCKET_LIMIT
    assert [m.id for m in ix.query([" ".join(copy)])[0]] == ["7"]
    stats = ix.stats()
    assert stats["bucket_splits"] > 0
    assert 0.0 < stats["expected_recall"] < 1.0
    ix.close()
