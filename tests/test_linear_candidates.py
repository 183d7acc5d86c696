"""Candidate work linear in n whatever the boilerplate (issue 24): large LSH buckets split unless
dense, the estimate screen before exact verification, the expected recall that counts splits,
and the warning when it falls."""

import subprocess
import sys
import warnings

import numpy as np
import pytest

import neardup
from neardup import _core
from neardup.errors import NeardupWarning

VOCABULARY = np.array([f"w{i}" for i in range(20_000)])
FOOTER = " ".join(f"footer{i}" for i in range(30))


def footer_docs(n: int, seed: int, words: int = 40) -> list[str]:
    """``n`` unrelated documents of ``words`` random words, all ending with one 30-word footer:
    every band's footer bucket holds a share of the corpus, and nothing is a duplicate."""
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(VOCABULARY, size=words)) + " " + FOOTER for _ in range(n)]


def with_near_copies(texts: list[str], seed: int, copies: int = 60) -> tuple[list[str], set]:
    """``texts`` plus an edited copy (two words changed) of ``copies`` of them; the planted
    pairs (original, copy)."""
    rng = np.random.default_rng(seed)
    out, planted = list(texts), set()
    for i in rng.choice(len(texts), size=copies, replace=False).tolist():
        words = texts[i].split()
        for at in rng.choice(40, size=2, replace=False).tolist():
            words[at] = "edited"
        planted.add((i, len(out)))
        out.append(" ".join(words))
    return out, planted


@pytest.mark.parametrize("seed", range(4))
def test_shared_footer_gives_at_most_one_candidate_per_document(seed):
    texts = footer_docs(4_000, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NeardupWarning)
        result = neardup.find_duplicates(texts, 0.3, method="minhash")
    assert len(result.pairs) == 0
    assert result.params["candidates"] <= len(texts)
    # Every bucket whole, the footer's buckets would hold far more pairs.
    sig = neardup.minhash(texts)
    bands, rows = result.params["bands"], result.params["rows"]
    whole = _core.lsh_bucket_pairs_bound(sig, bands, rows, 2**62, 1, 0.3, None)
    assert whole > 100 * (result.params["candidates"] + result.params["screened"])


def test_bucket_pairs_per_document_do_not_grow_with_n():
    # The pairs the buckets hold (before any screen), per document, at n and 4n: flat when
    # large buckets are split, growing with n (quadratic in all) when they are kept whole.
    small, large = footer_docs(1_500, 7), footer_docs(6_000, 7)
    per_doc = {}
    for limit in (32, None):
        for texts in (small, large):
            sig = neardup.minhash(texts, seed=1)
            bound = _core.lsh_bucket_pairs_bound(sig, 64, 2, 2**62, 1, 0.3, limit)
            per_doc[(limit, len(texts))] = bound / len(texts)
    assert per_doc[(None, 6_000)] > 3 * per_doc[(None, 1_500)]
    assert per_doc[(32, 6_000)] < 1.5 * per_doc[(32, 1_500)] + 1
    assert per_doc[(32, 6_000)] < per_doc[(None, 6_000)] / 10


@pytest.mark.parametrize("seed", range(3))
def test_near_copies_among_boilerplate_are_all_found(seed):
    texts, planted = with_near_copies(footer_docs(3_000, seed), seed)
    result = neardup.find_duplicates(texts, 0.5, method="minhash", seed=seed)
    found = {tuple(p) for p in result.pairs.tolist()}
    assert planted <= found
    assert result.params["expected_recall"] >= 0.99


def test_the_screen_never_drops_a_pair_at_or_above_the_threshold():
    # Families edited at several rates: pairs on both sides of each threshold. Every candidate
    # of whole buckets whose exact Jaccard reaches T survives the screen.
    rng = np.random.default_rng(3)
    texts = []
    for _ in range(60):
        base = rng.choice(VOCABULARY[:3000], size=60)
        for rate in (0.05, 0.2, 0.35, 0.5, 0.65):
            copy = base.copy()
            at = rng.choice(60, size=int(60 * rate), replace=False)
            copy[at] = rng.choice(VOCABULARY, size=len(at))
            texts.append(" ".join(copy) + " " + FOOTER)
    sets = neardup.shingles(texts, k=3)
    for seed in range(3):
        sig = neardup.minhash(sets, seed=seed)
        for threshold in (0.2, 0.3, 0.5, 0.8):
            whole = _core.lsh_candidate_search(sig, 64, 2, threshold, None, False, 1)
            kept = _core.lsh_candidate_search(sig, 64, 2, threshold, None, True, 1)
            assert whole[1] == 0 and kept[1] == len(whole[0]) - len(kept[0])
            similar = whole[0][neardup.jaccard(sets, whole[0]) >= threshold]
            kept_set = {tuple(p) for p in kept[0].tolist()}
            assert {tuple(p) for p in similar.tolist()} <= kept_set
            if threshold >= 0.5:
                assert kept[1] > 0  # the footer's pairs were screened out


def test_screen_bound_is_the_binomial_tail():
    from math import comb

    def below(c: int, num_perm: int, threshold: float) -> float:
        """P(X < c) for X ~ Binomial(num_perm, threshold)."""
        return sum(
            comb(num_perm, k) * threshold**k * (1 - threshold) ** (num_perm - k) for k in range(c)
        )

    for num_perm, threshold in ((128, 0.3), (128, 0.5), (64, 0.8), (256, 0.9)):
        c = _core.lsh_screen_min_equal(num_perm, threshold)
        assert below(c, num_perm, threshold) <= 1e-9 < below(c + 1, num_perm, threshold)


def test_results_and_counts_do_not_depend_on_threads():
    texts, _ = with_near_copies(footer_docs(2_500, 5), 5)
    one = neardup.find_duplicates(texts, 0.3, method="minhash", bucket_limit=8)
    two = neardup.find_duplicates(texts, 0.3, method="minhash", bucket_limit=8, threads=2)
    assert one.params["bucket_splits"] > 0
    assert np.array_equal(one.pairs, two.pairs)
    for key in ("candidates", "screened", "bucket_splits", "expected_recall"):
        assert one.params[key] == two.params[key], key


def test_splits_that_cost_recall_are_counted_and_warned():
    # A tiny bucket limit over boilerplate with a steep forced banding: most bands' buckets are
    # split, the expected recall falls well below the banding's P(T), and the user is told how
    # to get it back.
    texts = footer_docs(2_000, 9)
    with pytest.warns(NeardupWarning, match="bucket_limit=None"):
        result = neardup.find_duplicates(
            texts, 0.3, method="minhash", bands=42, rows=3, bucket_limit=2
        )
    params = result.params
    assert params["bucket_splits"] > 0
    assert params["expected_recall"] < params["banding_recall"] - 0.003
    with warnings.catch_warnings():
        warnings.simplefilter("error", NeardupWarning)
        whole = neardup.find_duplicates(
            texts, 0.3, method="minhash", bands=42, rows=3, bucket_limit=None
        )
    assert whole.params["bucket_splits"] == 0
    assert whole.params["expected_recall"] == pytest.approx(neardup.lsh_probability(0.3, 42, 3))


def test_bucket_limit_is_checked_and_reaches_the_command_line(tmp_path):
    with pytest.raises(neardup.errors.InvalidArgumentError, match="bucket_limit"):
        neardup.make_plan(bucket_limit=1)
    assert neardup.make_plan(bucket_limit=None).bucket_limit is None
    path = tmp_path / "in.jsonl"
    path.write_text("".join(f'{{"text": "doc {i} {FOOTER}"}}\n' for i in range(20)))
    for value, code in (("none", 0), ("64", 0), ("1", 2), ("lots", 2)):
        command = ["dedup", str(path), "-o", str(tmp_path / "o.jsonl"), "--method", "minhash"]
        run = subprocess.run(
            [sys.executable, "-m", "neardup.cli", *command, "--bucket-limit", value],
            capture_output=True,
            text=True,
        )
        assert run.returncode == code, run.stderr
        if code:
            assert "bucket" in run.stderr and "Traceback" not in run.stderr
