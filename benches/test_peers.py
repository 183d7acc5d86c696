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

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

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


def _ds_end_to_end(texts):
    return _ds_lsh(_ds_signatures(texts))


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


def _rensa_end_to_end(texts):
    return _rensa_lsh(_rensa_signatures(texts, RENSA_LSH_PERM))


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


def _gaoya_signatures(texts):
    return _gaoya_index().minhash_index.bulk_hash_docs(texts)


def _gaoya_end_to_end(texts):
    index = _gaoya_index()
    index.par_bulk_insert_docs(list(range(len(texts))), texts)
    return pairs_from_neighbours(index.par_bulk_query(texts))


# ---- the peers, and one benchmark per stage parametrised over them ------------------------


@dataclass(frozen=True)
class Peer:
    """A peer library's entry points for the three stages (None: the peer has no such stage)."""

    library: str  # the row label in the ratio table
    module: str  # skipped when this module is not installed
    signatures: Callable | None = None  # texts -> signatures
    lsh_input: Callable | None = None  # texts -> what ``lsh`` takes (made outside the timing)
    lsh: Callable | None = None  # that -> verified pairs
    end_to_end: Callable | None = None  # texts -> verified pairs
    note: str = ""  # appended to the recall/precision note


PEERS = [
    Peer("datasketch", "datasketch", _ds_signatures, _ds_signatures, _ds_lsh, _ds_end_to_end),
    Peer(
        "rensa",
        "rensa",
        _rensa_signatures,
        partial(_rensa_signatures, num_perm=RENSA_LSH_PERM),
        _rensa_lsh,
        _rensa_end_to_end,
        note=" (P=126)",
    ),
    Peer("rensa (bulk matrix)", "rensa", signatures=_rensa_matrix),
    Peer(
        "gaoya",
        "gaoya",
        _gaoya_signatures,
        end_to_end=_gaoya_end_to_end,
        note=" (fingerprints twice)",
    ),
]


def _peers_with(stage: str) -> list:
    return [pytest.param(p, id=p.library) for p in PEERS if getattr(p, stage) is not None]


@pytest.mark.parametrize("peer", _peers_with("signatures"))
def test_signatures(benchmark, peer, texts, mbytes, rounds, bench_n):
    pytest.importorskip(peer.module)
    run(
        benchmark,
        lambda: peer.signatures(texts),
        stage="signatures",
        library=peer.library,
        rounds=rounds,
        mbytes=mbytes,
        slow=True,
        n=bench_n,
    )


@pytest.mark.parametrize("peer", _peers_with("lsh"))
def test_lsh(benchmark, peer, texts, corpus, rounds, bench_n):
    pytest.importorskip(peer.module)
    sigs = peer.lsh_input(texts)
    pairs = run(
        benchmark,
        lambda: peer.lsh(sigs),
        stage="lsh+verify",
        library=peer.library,
        rounds=rounds,
        slow=True,
        n=bench_n,
    )
    rec, prec = corpus.score(pairs)
    record_note("lsh+verify", peer.library, f"recall {rec:.4f} precision {prec:.4f}{peer.note}")


@pytest.mark.parametrize("peer", _peers_with("end_to_end"))
def test_end_to_end(benchmark, peer, texts, corpus, mbytes, rounds, bench_n):
    pytest.importorskip(peer.module)
    pairs = run(
        benchmark,
        lambda: peer.end_to_end(texts),
        stage="end_to_end",
        library=peer.library,
        rounds=1,
        mbytes=mbytes,
        slow=True,
        n=bench_n,
    )
    rec, prec = corpus.score(pairs)
    record_note("end_to_end", peer.library, f"recall {rec:.4f} precision {prec:.4f}{peer.note}")
