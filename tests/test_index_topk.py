"""Top-k queries (issue 15 §3): the k most similar LSH candidates, best first, checked against
a brute-force scan of the stored signatures; batched lookups equal one-at-a-time lookups; the
CLI's ``--top-k`` and its id types."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import neardup
from neardup.index import Index, Match


def _corpus(n=300, seed=3):
    rng = random.Random(seed)
    base = [[f"w{rng.randrange(400)}" for _ in range(30)] for _ in range(n // 3)]
    out = []
    for words in base:  # each base text and two edits of it: similarities spread over (0, 1]
        out.append(" ".join(words))
        for edits in (4, 12):
            w = list(words)
            for _ in range(edits):
                w[rng.randrange(len(w))] = f"e{rng.randrange(10**6)}"
            out.append(" ".join(w))
    return out


def _brute(ix, texts, ids, query, k, threshold):
    """Every stored document that shares a band key with the query, ranked by estimate."""
    sig = np.asarray(neardup.minhash([*texts, query], num_perm=ix.num_perm, k=ix.k))
    keys = np.asarray(neardup.band_hashes(sig, ix.bands, ix.rows))
    shares = (keys[:-1] == keys[-1]).any(axis=1) & (sig[-1] != 0xFFFFFFFF).any()
    sim = (sig[:-1] == sig[-1]).mean(axis=1, dtype=np.float32).astype(np.float64)
    ms = [Match(ids[i], float(sim[i])) for i in np.flatnonzero(shares) if sim[i] >= threshold]
    ms.sort(key=lambda m: (-m.similarity, m.id))
    return ms[:k] if k is not None else ms


@pytest.mark.parametrize("cache", [True, False])
def test_top_k_matches_brute_force(tmp_path, cache):
    texts = _corpus()
    ids = [f"id{i}" for i in range(len(texts))]
    queries = [texts[i] for i in range(0, len(texts), 7)] + ["", "nothing like it at all"]
    with Index(tmp_path / "t.ndx", threshold=0.5, cache=cache) as ix:
        ix.add(ids, texts)
        for k, thr in [(1, None), (3, None), (5, 0.4), (None, 0.6), (None, None)]:
            got = ix.query(queries, k=k, threshold=thr)
            default = ix.threshold if thr is None and k is None else (thr or 0.0)
            assert got == [_brute(ix, texts, ids, q, k, default) for q in queries], (k, thr)
        top = ix.query(queries, k=3)
        assert any(len(m) >= 2 for m in top) and all(len(m) <= 3 for m in top)
        assert all(m[0].similarity == 1.0 for m in top[:-2])  # each query finds itself first


def test_batched_lookups_equal_single_ones(tmp_path):
    texts = _corpus(seed=4)
    with Index(tmp_path / "b.ndx", threshold=0.4) as ix:
        ix.add([str(i) for i in range(len(texts))], texts)
        assert ix.query(texts, k=4) == [ix.query([t], k=4)[0] for t in texts]
        assert ix.query(texts) == [ix.query([t])[0] for t in texts]


def test_cli_top_k_and_id_types(tmp_path, capsys):
    from neardup.cli import main

    texts = _corpus(30)
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(texts)))
    ndx = str(tmp_path / "c.ndx")
    assert main(["index", "add", ndx, str(src), "--threshold", "0.5", "--all"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert all(isinstance(x["id"], str) for x in lines)
    assert all(isinstance(m["id"], str) for x in lines for m in x["matches"])
    assert main(["index", "query", ndx, str(src), "--top-k", "2"]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["id"] for x in out] == [str(i) for i in range(30)]
    assert all(1 <= len(x["matches"]) <= 2 and x["matches"][0]["id"] == x["id"] for x in out)
    sims = [m["similarity"] for x in out for m in x["matches"]]
    assert all(isinstance(s, float) for s in sims)
    assert main(["index", "query", ndx, str(src), "--top-k", "0"]) == 2  # a bad option
    assert "k must be at least 1" in capsys.readouterr().err
    assert main(["index", "add", ndx, str(src), "--threshold", "7"]) == 2
    assert "threshold" in capsys.readouterr().err
    assert main(["index", "add", ndx, str(src)]) == 1  # bad input
    assert "already in the index" in capsys.readouterr().err
    assert main(["index", "add", ndx, str(src), "--skip-existing"]) == 0
    capsys.readouterr()
    assert main(["index", "check", ndx]) == 0
    assert "ok (30 documents)" in capsys.readouterr().err
