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


def _lsh_verify(sigs, sets, verify):
    """LSH candidates verified in one pass (``lsh_duplicates``: large buckets split; with
    exact verification the screen first, then the sets' exact Jaccard)."""
    return nd.lsh_duplicates(sigs, BANDS, ROWS, THRESHOLD, sets if verify == "exact" else None)


def _find(texts, verify="estimate", threads=1, algorithm="classic", default=False):
    if default:  # every option at its default: what a new user runs
        return nd.find_duplicates(texts, threshold=THRESHOLD)
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


# ---- stages with peers: one test per stage, parametrised over neardup's variants -----------

# library label -> keyword arguments of the variant (the label is the row in the ratio table)
SIGNATURE_VARIANTS = {
    "neardup": {},
    "neardup oph": {"algorithm": "oph"},
    "neardup threads=2": {"threads": 2},
}
LSH_VERIFY_VARIANTS = {"neardup": "estimate", "neardup verify=exact": "exact"}
END_TO_END_VARIANTS = {
    "neardup": {},
    "neardup default (64x2, exact)": {"default": True},
    "neardup verify=exact": {"verify": "exact"},
    "neardup oph": {"algorithm": "oph"},
    "neardup threads=2": {"threads": 2},
}


@pytest.mark.parametrize("library", SIGNATURE_VARIANTS)
def test_signatures(benchmark, texts, mbytes, rounds, bench_n, library):
    options = SIGNATURE_VARIANTS[library]
    run(
        benchmark,
        lambda: nd.minhash(texts, num_perm=NUM_PERM, k=K, **options),
        stage="signatures",
        library=library,
        rounds=rounds,
        mbytes=mbytes,
        n=bench_n,
    )


@pytest.mark.parametrize("library", LSH_VERIFY_VARIANTS)
def test_lsh_verify(benchmark, sigs, sets, corpus, rounds, bench_n, library):
    pairs, _ = run(
        benchmark,
        lambda: _lsh_verify(sigs, sets, LSH_VERIFY_VARIANTS[library]),
        stage="lsh+verify",
        library=library,
        rounds=rounds,
        n=bench_n,
    )
    rec, prec = corpus.score(pairs.tolist())
    record_note("lsh+verify", library, f"recall {rec:.4f} precision {prec:.4f}")


@pytest.mark.parametrize("library", END_TO_END_VARIANTS)
def test_end_to_end(benchmark, texts, corpus, mbytes, rounds, bench_n, library):
    res = run(
        benchmark,
        lambda: _find(texts, **END_TO_END_VARIANTS[library]),
        stage="end_to_end",
        library=library,
        rounds=rounds,
        mbytes=mbytes,
        n=bench_n,
    )
    rec, prec = corpus.score(res.pairs.tolist())
    record_note("end_to_end", library, f"recall {rec:.4f} precision {prec:.4f}")


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
