"""Every kernel gives the same bits: the signatures, fingerprints, sets and Jaccard values of a
process whose vector instructions are capped (``NEARDUP_SIMD=avx2`` / ``none``, read once per
process by ``rust/cpu.rs``) equal those of an uncapped one. On an AVX-512 machine this runs
the AVX2 and portable paths that the rest of the suite never reaches."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from neardup import _core

# Texts that take every path: long ASCII prose (the batched word hashing), short texts, CJK,
# accents and case folding (the Unicode tokeniser), a soft hyphen, mixed scripts.
PROBE = r"""
import hashlib, json, sys
import numpy as np
import neardup
from neardup import _core
words = [f"w{i % 97}x{i % 13}" for i in range(4000)]
texts = [" ".join(words[i : i + 40 + i % 200]) for i in range(0, 3000, 37)]
texts += ["a b", "Ünïcödé STRASSE straße ΟΔΟΣ οδος", "東京都の天気は晴れです 今日も",
          "soft\u00adhyphen", "mixed Русский текст and English 123", "", "x" * 5000]
out = {"simd": _core.simd()}
for version in (1, 2):
    sig = neardup.minhash(texts, num_perm=64, hash_version=version)
    sets = neardup.shingles(texts, hash_version=version)
    out[f"minhash{version}"] = hashlib.sha256(sig.tobytes()).hexdigest()
    out[f"sets{version}"] = hashlib.sha256(sets.hashes.tobytes()).hexdigest()
    out[f"simhash{version}"] = hashlib.sha256(
        neardup.simhash(texts, hash_version=version).tobytes()).hexdigest()
    pairs = np.array([(i, j) for i in range(0, len(texts), 3) for j in range(i + 1, len(texts), 5)])
    out[f"jaccard{version}"] = neardup.stages.jaccard(sets, pairs).round(12).tolist()
out["normalized"] = [_core.normalize(t, 2) for t in texts[-7:]]
print(json.dumps(out))
"""


def _probe(cap: str | None) -> dict:
    env = dict(os.environ)
    env.pop("NEARDUP_SIMD", None)
    if cap is not None:
        env["NEARDUP_SIMD"] = cap
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def uncapped() -> dict:
    return _probe(None)


@pytest.mark.parametrize(
    "cap, allowed",
    [("avx2", {"avx2", "none", "neon"}), ("none", {"none", "neon"}), ("bogus", None)],
)
def test_a_capped_process_gives_the_same_bits(
    uncapped: dict, cap: str, allowed: set | None
) -> None:
    capped = _probe(cap)
    if allowed is None:  # an unknown value caps nothing (documented)
        assert capped["simd"] == uncapped["simd"]
    else:
        assert capped["simd"] in allowed
    assert {k: v for k, v in capped.items() if k != "simd"} == {
        k: v for k, v in uncapped.items() if k != "simd"
    }


def test_this_process_reports_what_it_uses() -> None:
    assert _core.simd() in {"avx512", "avx2", "neon", "none"}
