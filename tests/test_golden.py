"""Golden vectors: the bits of shingles, signatures, fingerprints and band keys never change.

Users persist signatures; a different bit on another platform or release would silently break
every stored index. Each hash version has its own file, written once by make_vectors.py:
tests/golden/vectors.json (version 1, unchanged since 0.1) and vectors_v2.json (version 2).
"""

import json
from pathlib import Path

import numpy as np
import pytest

import neardup

FILES = {1: "vectors.json", 2: "vectors_v2.json"}
GOLDEN = {
    version: json.loads(Path(__file__).with_name("golden").joinpath(name).read_text())
    for version, name in FILES.items()
}
CASES = [(version, case) for version, golden in GOLDEN.items() for case in golden["cases"]]


def _id(versioned_case):
    version, case = versioned_case
    return f"v{version}-{case['unit']}-k{case['k']}"


def _texts(version):
    return GOLDEN[version]["texts"]


def test_each_file_holds_its_version_and_the_default_is_the_newest():
    assert all(golden["hash_version"] == v for v, golden in GOLDEN.items())
    assert neardup.HASH_VERSION == max(GOLDEN) == 2


def test_normalised_texts():
    for version, golden in GOLDEN.items():
        for text, want in zip(golden["texts"], golden.get("normalized", []), strict=False):
            assert neardup.normalize(text, hash_version=version) == want


@pytest.mark.parametrize("versioned_case", CASES, ids=_id)
def test_shingle_hashes(versioned_case):
    version, case = versioned_case
    sets = neardup.shingles(_texts(version), k=case["k"], unit=case["unit"], hash_version=version)
    got = [[format(int(h), "016x") for h in sets[i]] for i in range(len(sets))]
    assert got == case["shingles"]


@pytest.mark.parametrize("versioned_case", CASES, ids=_id)
def test_minhash_signatures(versioned_case):
    version, case = versioned_case
    texts = _texts(version)
    for algorithm, field in (("classic", "minhash"), ("oph", "minhash_oph")):
        for key, hex_bytes in case[field].items():
            num_perm, seed = map(int, key.split("/"))
            sig = neardup.minhash(
                texts,
                num_perm=num_perm,
                seed=seed,
                k=case["k"],
                unit=case["unit"],
                algorithm=algorithm,
                hash_version=version,
            )
            want = np.frombuffer(bytes.fromhex(hex_bytes), dtype="<u4")
            np.testing.assert_array_equal(sig, want.reshape(len(texts), num_perm), err_msg=key)


@pytest.mark.parametrize("versioned_case", CASES, ids=_id)
def test_simhash_fingerprints(versioned_case):
    version, case = versioned_case
    for key, hex_bytes in case["simhash"].items():
        bits, weights = key.split("/")
        fp = neardup.simhash(
            _texts(version),
            bits=int(bits),
            weights=None if weights == "None" else weights,
            k=case["k"],
            unit=case["unit"],
            hash_version=version,
        )
        want = np.frombuffer(bytes.fromhex(hex_bytes), dtype="<u8").reshape(fp.shape)
        np.testing.assert_array_equal(fp, want, err_msg=key)


@pytest.mark.parametrize("versioned_case", CASES, ids=_id)
def test_band_hashes(versioned_case):
    version, case = versioned_case
    sig = neardup.minhash(
        _texts(version), num_perm=128, seed=7, k=case["k"], unit=case["unit"], hash_version=version
    )
    want = np.frombuffer(bytes.fromhex(case["band_hashes_42x3"]), dtype="<u8").reshape(-1, 42)
    np.testing.assert_array_equal(neardup.band_hashes(sig, 42, 3), want)
