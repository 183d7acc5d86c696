"""Golden vectors: the bits of shingles, signatures, fingerprints and band keys never change.

Users persist signatures; a different bit on another platform or release would silently break
every stored index. tests/golden/vectors.json was written once by make_vectors.py.
"""

import json
from pathlib import Path

import numpy as np
import pytest

import neardup

GOLDEN = json.loads(Path(__file__).with_name("golden").joinpath("vectors.json").read_text())
TEXTS = GOLDEN["texts"]
CASES = GOLDEN["cases"]


def _id(case):
    return f"{case['unit']}-k{case['k']}"


def test_hash_version_is_the_one_the_vectors_were_made_with():
    assert neardup.HASH_VERSION == GOLDEN["hash_version"]


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_shingle_hashes(case):
    sets = neardup.shingles(TEXTS, k=case["k"], unit=case["unit"])
    got = [[format(int(h), "016x") for h in sets[i]] for i in range(len(sets))]
    assert got == case["shingles"]


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_minhash_signatures(case):
    for key, hex_bytes in case["minhash"].items():
        num_perm, seed = map(int, key.split("/"))
        sig = neardup.minhash(TEXTS, num_perm=num_perm, seed=seed, k=case["k"], unit=case["unit"])
        want = np.frombuffer(bytes.fromhex(hex_bytes), dtype="<u4").reshape(len(TEXTS), num_perm)
        np.testing.assert_array_equal(sig, want, err_msg=key)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_one_permutation_signatures(case):
    for key, hex_bytes in case["minhash_oph"].items():
        num_perm, seed = map(int, key.split("/"))
        sig = neardup.minhash(
            TEXTS, num_perm=num_perm, seed=seed, k=case["k"], unit=case["unit"], algorithm="oph"
        )
        want = np.frombuffer(bytes.fromhex(hex_bytes), dtype="<u4").reshape(len(TEXTS), num_perm)
        np.testing.assert_array_equal(sig, want, err_msg=key)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_simhash_fingerprints(case):
    for key, hex_bytes in case["simhash"].items():
        bits, weights = key.split("/")
        fp = neardup.simhash(
            TEXTS,
            bits=int(bits),
            weights=None if weights == "None" else weights,
            k=case["k"],
            unit=case["unit"],
        )
        want = np.frombuffer(bytes.fromhex(hex_bytes), dtype="<u8").reshape(fp.shape)
        np.testing.assert_array_equal(fp, want, err_msg=key)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_band_hashes(case):
    sig = neardup.minhash(TEXTS, num_perm=128, seed=7, k=case["k"], unit=case["unit"])
    want = np.frombuffer(bytes.fromhex(case["band_hashes_42x3"]), dtype="<u8").reshape(-1, 42)
    np.testing.assert_array_equal(neardup.band_hashes(sig, 42, 3), want)
