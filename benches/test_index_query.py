"""Index queries under pytest-benchmark: an index of the bench corpus (``--bench-n``), queried
one document at a time, in one batch, and by lookup alone on precomputed signatures (top-k
k = 10). ``benches/bench_index.py`` is the standalone version with docs/s per CPU second and
an A/B mode against another build.

The queries are the corpus's first documents: each finds itself and its variants.
"""

from __future__ import annotations

import pytest
from conftest import NUM_PERM, THRESHOLD, K, record_note, run

from neardup.index import Index

TOP_K = 10


@pytest.fixture(scope="module")
def index(tmp_path_factory, texts):
    path = tmp_path_factory.mktemp("index") / "bench.ndx"
    with Index(path, threshold=THRESHOLD, num_perm=NUM_PERM, k=K) as ix:
        ix.add([f"d{i}" for i in range(len(texts))], texts)
    ix = Index(path)
    ix.query(texts[:1])  # loads the in-memory mirror
    yield ix
    ix.close()


@pytest.fixture(scope="module")
def queries(texts):
    return texts[: min(len(texts), 2000)]


def _found(results) -> str:
    share = sum(bool(r) for r in results) / max(len(results), 1)
    return f"{len(results)} queries, {share:.0%} found"


def test_index_query_single(benchmark, index, queries, rounds):
    out = run(
        benchmark,
        lambda: [index.query([q], k=TOP_K)[0] for q in queries],
        stage="index query, single",
        library="neardup",
        rounds=rounds,
        n=len(queries),
    )
    record_note("index query, single", "neardup", _found(out))


def test_index_query_batched(benchmark, index, queries, rounds):
    out = run(
        benchmark,
        lambda: index.query(queries, k=TOP_K),
        stage="index query, batched",
        library="neardup",
        rounds=rounds,
        n=len(queries),
    )
    record_note("index query, batched", "neardup", _found(out))


def test_index_lookup_batched(benchmark, index, queries, rounds):
    sig = index._query_signatures(queries)
    out = run(
        benchmark,
        lambda: index._lookup(sig, 0.0, TOP_K),
        stage="index lookup, batched",
        library="neardup",
        rounds=rounds,
        n=len(queries),
    )
    assert out == index.query(queries, k=TOP_K)  # the lookup alone answers the same
    record_note("index lookup, batched", "neardup", _found(out))
