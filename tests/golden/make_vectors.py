"""Writes vectors.json: fixed texts and the exact bits neardup gives them.

Run ONLY when HASH_VERSION is bumped on purpose; a change in these bits breaks every signature
users have stored. `python tests/golden/make_vectors.py` from the repository root.
"""

import json
from pathlib import Path

import neardup

TEXTS = [
    "The quick brown fox jumps over the lazy dog.",
    "the QUICK brown fox   jumps over the lazy dog!!",
    "Ünïcödé: Straße, ΟΔΥΣΣΕΥΣ, हिंदी भाषा, 日本語のテキスト, emoji 🙂 here",
    "",
    "one",
    "a b c d e f g h i j k l m n o p q r s t u v w x y z " * 3,
]


def vectors() -> dict:
    out: dict = {"hash_version": neardup.HASH_VERSION, "texts": TEXTS, "cases": []}
    for k, unit in [(5, "word"), (2, "word"), (4, "char")]:
        sets = neardup.shingles(TEXTS, k=k, unit=unit)
        case = {
            "k": k,
            "unit": unit,
            "shingles": [[format(int(h), "016x") for h in sets[i]] for i in range(len(sets))],
            "minhash": {},
            "simhash": {},
        }
        for num_perm, seed in [(16, 0), (16, 42), (128, 7)]:
            sig = neardup.minhash(TEXTS, num_perm=num_perm, seed=seed, k=k, unit=unit)
            case["minhash"][f"{num_perm}/{seed}"] = sig.astype("<u4").tobytes().hex()
        case["minhash_oph"] = {}
        for num_perm, seed in [(16, 0), (128, 7)]:
            sig = neardup.minhash(
                TEXTS, num_perm=num_perm, seed=seed, k=k, unit=unit, algorithm="oph"
            )
            case["minhash_oph"][f"{num_perm}/{seed}"] = sig.astype("<u4").tobytes().hex()
        for bits in (64, 128):
            for weights in (None, "tf"):
                fp = neardup.simhash(TEXTS, bits=bits, weights=weights, k=k, unit=unit)
                case["simhash"][f"{bits}/{weights}"] = fp.astype("<u8").tobytes().hex()
        sig = neardup.minhash(TEXTS, num_perm=128, seed=7, k=k, unit=unit)
        case["band_hashes_42x3"] = neardup.band_hashes(sig, 42, 3).astype("<u8").tobytes().hex()
        out["cases"].append(case)
    return out


if __name__ == "__main__":
    path = Path(__file__).with_name("vectors.json")
    path.write_text(json.dumps(vectors(), indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {path}")
