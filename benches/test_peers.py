"""The peer libraries on the same corpus, same parameters (P=128, 5-word shingles, b=42 r=3,
threshold 0.3), one thread.  Each is skipped when not installed (``pip install .[bench]``).

Stages, named as in issue 4's table:
- ``signatures``: text -> MinHash signatures, shingling included (datasketch and rensa take
  tokens, so shingles are made in Python with the same normalisation as neardup's).
- ``lsh+verify``: signatures -> index, query every document, keep pairs whose estimated
  Jaccard is >= the threshold.
- ``end_to_end``: text -> verified pairs.
"""

from __future__ import annotations

import pytest
from conftest import (
    BANDS,
    NUM_PERM,
    ROWS,
    THRESHOLD,
    K,
    pairs_from_neighbours,
    py_shingles,
    record_note,
    run,
)

# ---- datasketch -------------------------------------------------------------------------


def _ds_signatures(texts):
    from datasketch import MinHash

    out = []
    for t in texts:
        m = MinHash(num_perm=NUM_PERM, seed=1)
        m.update_batch([s.encode() for s in py_shingles(t)])
        out.append(m)
    return out


def _ds_lsh(sigs):
    from datasketch import MinHashLSH

    lsh = MinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM, params=(BANDS, ROWS))
    with lsh.insertion_session() as session:
        for i, m in enumerate(sigs):
            session.insert(i, m, check_duplication=False)
    pairs = set()
    for i, m in enumerate(sigs):
        for j in lsh.query(m):
            if j > i and m.jaccard(sigs[j]) >= THRESHOLD:
                pairs.add((i, j))
    return pairs


@pytest.fixture(scope="module")
def ds_sigs(texts):
    pytest.importorskip("datasketch")
    return _ds_signatures(texts)


def test_datasketch_signatures(benchmark, texts, mbytes, rounds, bench_n):
    pytest.importorskip("datasketch")
    run(
        benchmark,
        lambda: _ds_signatures(texts),
        stage="signatures",
        library="datasketch",
        rounds=rounds,
        mbytes=mbytes,
        slow=True,
        n=bench_n,
    )


def test_datasketch_lsh(benchmark, ds_sigs, corpus, rounds, bench_n):
    pairs = run(
        benchmark,
        lambda: _ds_lsh(ds_sigs),
        stage="lsh+verify",
        library="datasketch",
        rounds=rounds,
        slow=True,
        n=bench_n,
    )
    rec, prec = corpus.score(pairs)
    record_note("lsh+verify", "datasketch", f"recall {rec:.4f} precision {prec:.4f}")


def test_datasketch_end_to_end(benchmark, texts, corpus, mbytes, rounds, bench_n):
    pytest.importorskip("datasketch")
    pairs = run(
        benchmark,
        lambda: _ds_lsh(_ds_signatures(texts)),
        stage="end_to_end",
        library="datasketch",
        rounds=1,
        mbytes=mbytes,
        slow=True,
        n=bench_n,
    )
    rec, prec = corpus.score(pairs)
    record_note("end_to_end", "datasketch", f"recall {rec:.4f} precision {prec:.4f}")


# ---- rensa --------------------------------------------------------------------------------


# rensa's LSH needs num_bands | num_perm: its LSH stages use 126 = 42 x 3 slots (as gaoya does).
RENSA_LSH_PERM = BANDS * ROWS


def _rensa_signatures(texts, num_perm=NUM_PERM):
    from rensa import RMinHash

    out = []
    for t in texts:
        m = RMinHash(num_perm=num_perm, seed=1)
        m.update(list(py_shingles(t)))
        out.append(m)
    return out


def _rensa_matrix(texts):
    """rensa's bulk API (one call, a row-major digest matrix); shingles still made in Python."""
    from rensa import RMinHash

    return RMinHash.digest_matrix_from_token_sets(
        [list(py_shingles(t)) for t in texts], NUM_PERM, 1
    )


def _rensa_lsh(sigs):
    from rensa import RMinHashLSH

    lsh = RMinHashLSH(threshold=THRESHOLD, num_perm=RENSA_LSH_PERM, num_bands=BANDS)
    lsh.insert_many(sigs)
    pairs = set()
    for i, cands in enumerate(lsh.query_all(sigs)):
        m = sigs[i]
        for j in cands:
            if j > i and m.jaccard(sigs[j]) >= THRESHOLD:
                pairs.add((i, j))
    return pairs


@pytest.fixture(scope="module")
def rensa_sigs(texts):
    pytest.importorskip("rensa")
    return _rensa_signatures(texts, RENSA_LSH_PERM)


def test_rensa_signatures(benchmark, texts, mbytes, rounds, bench_n):
    pytest.importorskip("rensa")
    run(
        benchmark,
        lambda: _rensa_signatures(texts),
        stage="signatures",
        library="rensa",
        rounds=rounds,
        mbytes=mbytes,
        slow=True,
        n=bench_n,
    )


def test_rensa_matrix_signatures(benchmark, texts, mbytes, rounds, bench_n):
    pytest.importorskip("rensa")
    run(
        benchmark,
        lambda: _rensa_matrix(texts),
        stage="signatures",
        library="rensa (bulk matrix)",
        rounds=rounds,
        mbytes=mbytes,
        slow=True,
        n=bench_n,
    )


def test_rensa_lsh(benchmark, rensa_sigs, corpus, rounds, bench_n):
    pairs = run(
        benchmark,
        lambda: _rensa_lsh(rensa_sigs),
        stage="lsh+verify",
        library="rensa",
        rounds=rounds,
        slow=True,
        n=bench_n,
    )
    rec, prec = corpus.score(pairs)
    record_note("lsh+verify", "rensa", f"recall {rec:.4f} precision {prec:.4f} (P=126)")


def test_rensa_end_to_end(benchmark, texts, corpus, mbytes, rounds, bench_n):
    pytest.importorskip("rensa")
    pairs = run(
        benchmark,
        lambda: _rensa_lsh(_rensa_signatures(texts, RENSA_LSH_PERM)),
        stage="end_to_end",
        library="rensa",
        rounds=1,
        mbytes=mbytes,
        slow=True,
        n=bench_n,
    )
    rec, prec = corpus.score(pairs)
    record_note("end_to_end", "rensa", f"recall {rec:.4f} precision {prec:.4f} (P=126)")


# ---- gaoya (shingles in Rust; 42 x 3 = 126 hashes, the nearest it takes to 128) -------------


def _gaoya_index():
    from gaoya.minhash import MinHashStringIndex

    return MinHashStringIndex(
        hash_size=32,
        jaccard_threshold=THRESHOLD,
        num_bands=BANDS,
        band_size=ROWS,
        analyzer="word",
        lowercase=True,
        ngram_range=(K, K),
        id_container="vec",
    )


def _gaoya_end_to_end(texts):
    index = _gaoya_index()
    index.par_bulk_insert_docs(list(range(len(texts))), texts)
    return pairs_from_neighbours(index.par_bulk_query(texts))


def test_gaoya_signatures(benchmark, texts, mbytes, rounds, bench_n):
    pytest.importorskip("gaoya")
    index = _gaoya_index()
    run(
        benchmark,
        lambda: index.minhash_index.bulk_hash_docs(texts),
        stage="signatures",
        library="gaoya",
        rounds=rounds,
        mbytes=mbytes,
        slow=True,
        n=bench_n,
    )


def test_gaoya_end_to_end(benchmark, texts, corpus, mbytes, rounds, bench_n):
    pytest.importorskip("gaoya")
    pairs = run(
        benchmark,
        lambda: _gaoya_end_to_end(texts),
        stage="end_to_end",
        library="gaoya",
        rounds=1,
        mbytes=mbytes,
        slow=True,
        n=bench_n,
    )
    rec, prec = corpus.score(pairs)
    record_note(
        "end_to_end",
        "gaoya",
        f"recall {rec:.4f} precision {prec:.4f} (fingerprints twice)",
    )
