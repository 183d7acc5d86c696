"""neardup's own stages on the synthetic corpus (P=128, 5-word shingles, b=42 r=3, threshold 0.3).

Stage names match test_peers.py so that the ratio table lines them up:
``signatures`` (text -> MinHash, shingling included), ``lsh+verify`` and ``end_to_end``.
The other groups (shingles, simhash, lsh, verify, threads) have no peer and are here for
regression tracking (``--benchmark-compare``).
"""

from __future__ import annotations

import pytest
from conftest import BANDS, NUM_PERM, ROWS, THRESHOLD, K, record_note, run

nd = pytest.importorskip("neardup")


@pytest.fixture(scope="module")
def sets(texts):
    return nd.shingles(texts, k=K)


@pytest.fixture(scope="module")
def sigs(texts):
    return nd.minhash(texts, num_perm=NUM_PERM, k=K)


@pytest.fixture(scope="module")
def candidates(sigs):
    return nd.lsh_candidates(sigs, BANDS, ROWS)


def _lsh_verify(sigs):
    pairs = nd.lsh_candidates(sigs, BANDS, ROWS)
    sim = nd.estimate_jaccard(sigs, pairs)
    keep = sim >= THRESHOLD
    return pairs[keep], sim[keep]


def _lsh_verify_exact(sigs, sets):
    return nd.verify_jaccard(sets, nd.lsh_candidates(sigs, BANDS, ROWS), THRESHOLD)


def _find(texts, verify="estimate", threads=1, algorithm="classic"):
    return nd.find_duplicates(
        texts,
        threshold=THRESHOLD,
        method="minhash",
        num_perm=NUM_PERM,
        k=K,
        bands=BANDS,
        rows=ROWS,
        verify=verify,
        threads=threads,
        algorithm=algorithm,
    )


# ---- stages with peers --------------------------------------------------------------------


def test_signatures(benchmark, texts, mbytes, rounds, bench_n):
    run(
        benchmark,
        lambda: nd.minhash(texts, num_perm=NUM_PERM, k=K),
        stage="signatures",
        library="neardup",
        rounds=rounds,
        mbytes=mbytes,
        n=bench_n,
    )


def test_signatures_oph(benchmark, texts, mbytes, rounds, bench_n):
    run(
        benchmark,
        lambda: nd.minhash(texts, num_perm=NUM_PERM, k=K, algorithm="oph"),
        stage="signatures",
        library="neardup oph",
        rounds=rounds,
        mbytes=mbytes,
        n=bench_n,
    )


def test_signatures_threads2(benchmark, texts, mbytes, rounds, bench_n):
    run(
        benchmark,
        lambda: nd.minhash(texts, num_perm=NUM_PERM, k=K, threads=2),
        stage="signatures",
        library="neardup threads=2",
        rounds=rounds,
        mbytes=mbytes,
        n=bench_n,
    )


def test_lsh_verify(benchmark, sigs, corpus, rounds, bench_n):
    pairs, _ = run(
        benchmark,
        lambda: _lsh_verify(sigs),
        stage="lsh+verify",
        library="neardup",
        rounds=rounds,
        n=bench_n,
    )
    rec, prec = corpus.score(pairs.tolist())
    record_note("lsh+verify", "neardup", f"recall {rec:.4f} precision {prec:.4f}")


def test_lsh_verify_exact(benchmark, sigs, sets, corpus, rounds, bench_n):
    pairs, _ = run(
        benchmark,
        lambda: _lsh_verify_exact(sigs, sets),
        stage="lsh+verify",
        library="neardup verify=exact",
        rounds=rounds,
        n=bench_n,
    )
    rec, prec = corpus.score(pairs.tolist())
    record_note("lsh+verify", "neardup verify=exact", f"recall {rec:.4f} precision {prec:.4f}")


@pytest.mark.parametrize("verify", ["estimate", "exact"])
def test_end_to_end(benchmark, texts, corpus, mbytes, rounds, bench_n, verify):
    lib = "neardup" if verify == "estimate" else f"neardup verify={verify}"
    res = run(
        benchmark,
        lambda: _find(texts, verify),
        stage="end_to_end",
        library=lib,
        rounds=rounds,
        mbytes=mbytes,
        n=bench_n,
    )
    rec, prec = corpus.score(res.pairs.tolist())
    record_note("end_to_end", lib, f"recall {rec:.4f} precision {prec:.4f}")


def test_end_to_end_oph(benchmark, texts, corpus, mbytes, rounds, bench_n):
    res = run(
        benchmark,
        lambda: _find(texts, algorithm="oph"),
        stage="end_to_end",
        library="neardup oph",
        rounds=rounds,
        mbytes=mbytes,
        n=bench_n,
    )
    rec, prec = corpus.score(res.pairs.tolist())
    record_note("end_to_end", "neardup oph", f"recall {rec:.4f} precision {prec:.4f}")


def test_end_to_end_threads2(benchmark, texts, mbytes, rounds, bench_n):
    run(
        benchmark,
        lambda: _find(texts, threads=2),
        stage="end_to_end",
        library="neardup threads=2",
        rounds=rounds,
        mbytes=mbytes,
        n=bench_n,
    )


# ---- our other stages ---------------------------------------------------------------------


def test_shingles(benchmark, texts, mbytes, rounds, bench_n):
    run(
        benchmark,
        lambda: nd.shingles(texts, k=K),
        stage="shingles",
        library="neardup",
        rounds=rounds,
        mbytes=mbytes,
        n=bench_n,
    )


def test_minhash_from_shingles(benchmark, sets, rounds, bench_n):
    run(
        benchmark,
        lambda: nd.minhash(sets, num_perm=NUM_PERM),
        stage="minhash from shingles",
        library="neardup",
        rounds=rounds,
        n=bench_n,
    )


def test_simhash(benchmark, texts, mbytes, rounds, bench_n):
    run(
        benchmark,
        lambda: nd.simhash(texts, bits=64, k=K),
        stage="simhash64",
        library="neardup",
        rounds=rounds,
        mbytes=mbytes,
        n=bench_n,
    )


def test_lsh_candidates(benchmark, sigs, rounds, bench_n):
    run(
        benchmark,
        lambda: nd.lsh_candidates(sigs, BANDS, ROWS),
        stage="lsh candidates",
        library="neardup",
        rounds=rounds,
        n=bench_n,
    )


def test_verify_estimate(benchmark, sigs, candidates, rounds, bench_n):
    run(
        benchmark,
        lambda: nd.estimate_jaccard(sigs, candidates),
        stage="verify",
        library="neardup",
        rounds=rounds,
        n=bench_n,
    )


def test_verify_exact(benchmark, sets, candidates, rounds, bench_n):
    run(
        benchmark,
        lambda: nd.jaccard(sets, candidates),
        stage="verify",
        library="neardup exact",
        rounds=rounds,
        n=bench_n,
    )


def test_giant_bucket(benchmark, texts, rounds, bench_n):
    """10 % of the corpus replaced by copies of one document: a giant bucket in every band.

    With ``pairs="spanning"`` (clusters only) the cost stays linear in documents; with
    ``pairs="all"`` the output alone is quadratic in the copies (50 million pairs at 100k).
    """
    big = list(texts)
    big[: bench_n // 10] = [texts[0]] * (bench_n // 10)
    res = run(
        benchmark,
        lambda: nd.find_duplicates(
            big,
            threshold=THRESHOLD,
            method="minhash",
            bands=BANDS,
            rows=ROWS,
            verify="estimate",
            pairs="spanning",
        ),
        stage="giant bucket e2e",
        library="neardup",
        rounds=rounds,
        n=bench_n,
    )
    assert (res.clusters[: bench_n // 10] == 0).all()
