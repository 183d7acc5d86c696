"""SimHash on the article's corpus (benches/conftest.py's ``corpus``: shared footer, shuffled):
the search alone (``hamming_within``, index or brute force as the cost model chooses) and
``find_duplicates(method="simhash")`` end to end at T = 0.9, beside the default MinHash path.

    NEARDUP_BENCH_N=100000 pytest benches/test_simhash_search.py

The growth with n, and the 1M run, are printed by ``python benches/simhash_scale.py``.
"""

from __future__ import annotations

import pytest
from conftest import K, record_note, run

nd = pytest.importorskip("neardup")

SIMHASH_THRESHOLD = 0.9


@pytest.fixture(scope="module")
def fingerprints(texts):
    return nd.simhash(texts, bits=64, k=K)


def test_hamming_within_search(benchmark, fingerprints, rounds, bench_n):
    radius = nd.simhash_max_hamming(SIMHASH_THRESHOLD, 64)
    plan = nd.stages.hamming_search_plan(fingerprints, radius)
    run(
        benchmark,
        lambda: nd.hamming_within(fingerprints, radius),
        stage="simhash search",
        library="neardup",
        rounds=rounds,
        n=bench_n,
    )
    record_note("simhash search", "neardup", f"radius {radius}: {plan.search}")


def test_simhash_end_to_end(benchmark, texts, mbytes, rounds, bench_n):
    result = run(
        benchmark,
        lambda: nd.find_duplicates(texts, threshold=SIMHASH_THRESHOLD, method="simhash"),
        stage="simhash end to end",
        library="neardup",
        rounds=rounds,
        mbytes=mbytes,
        n=bench_n,
    )
    record_note("simhash end to end", "neardup", result.params["simhash_search"])


def test_default_minhash_end_to_end(benchmark, texts, mbytes, rounds, bench_n):
    run(
        benchmark,
        lambda: nd.find_duplicates(texts, threshold=0.3),
        stage="simhash end to end",
        library="neardup default minhash T=0.3",
        rounds=rounds,
        mbytes=mbytes,
        n=bench_n,
    )
