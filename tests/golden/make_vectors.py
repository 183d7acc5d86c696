"""Writes the golden vectors of one hash version: fixed texts and the exact bits neardup gives.

Run ONLY for a new hash version, once; a change in these bits breaks every signature users have
stored. `python tests/golden/make_vectors.py 2` from the repository root writes
vectors_v2.json (`... 1` rewrites vectors.json, which must come out byte-identical).
"""

import json
import sys
import unicodedata
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

# Version 2 adds texts for what it changed: decomposed accents, Vietnamese, full-width forms,
# Chinese, Japanese and Thai without spaces, and mixed scripts.
TEXTS_V2 = [
    *TEXTS,
    unicodedata.normalize("NFD", "L'été dernier, Nguyễn Văn Đức đã đến Hà Nội."),
    "ＦＵＬＬ－ｗｉｄｔｈ　ＡＢＣ　１２３ and ﬁne ｶﾀｶﾅ",
    "我们今天去北京看长城。明天回上海！",
    "東京タワーは333mです。富士山が見えます",
    "ภาษาไทยไม่มีการเว้นวรรคระหว่างคำ ที่นี่",
    "Mixed 中文 text, русский текст и हिंदी भाषा 2024",
    # Added when version 2 became NFKC_Casefold (before release 0.2.0): default ignorable
    # characters inside words (soft hyphen, zero width space and joiners, word joiner,
    # variation selector), full case folding (ß, ẞ, final sigma, Turkish dotted and dotless I,
    # Cherokee), ligatures, full-width and circled forms, CJK compatibility ideographs.
    "Auto\u00admo\u00adbil\u200bver\u200dkehr, Wort\u2060verbindung, "
    "Herz\u2764\ufe0f e\u00ad\u0301",
    "STRASSE straße GROẞE große ΟΔΟΣ οδος ΣΊΣΥΦΟΣ σίσυφος",
    "İSTANBUL İstanbul istanbul ıspanak ISPARTA ᏣᎳᎩ ꮳꮃꭹ ᾼ",
    "ﬃ ﬂoor ﬆ Ⅻ ① ㍿ ＦＵＬＬ ｗｉｄｔｈ ｶﾞｷﾞ",
    "北京大學 豈更車 漢字かな交じり文 한국어 텍스트 ᄒᆞᆫ",
]


def vectors(version: int) -> dict:
    texts = TEXTS if version == 1 else TEXTS_V2
    out: dict = {"hash_version": version, "texts": texts, "cases": []}
    if version >= 2:
        out["normalized"] = [neardup.normalize(t, hash_version=version) for t in texts]
    v = {"hash_version": version}
    for k, unit in [(5, "word"), (2, "word"), (4, "char")]:
        sets = neardup.shingles(texts, k=k, unit=unit, **v)
        case = {
            "k": k,
            "unit": unit,
            "shingles": [[format(int(h), "016x") for h in sets[i]] for i in range(len(sets))],
            "minhash": {},
            "simhash": {},
        }
        for num_perm, seed in [(16, 0), (16, 42), (128, 7)]:
            sig = neardup.minhash(texts, num_perm=num_perm, seed=seed, k=k, unit=unit, **v)
            case["minhash"][f"{num_perm}/{seed}"] = sig.astype("<u4").tobytes().hex()
        case["minhash_oph"] = {}
        for num_perm, seed in [(16, 0), (128, 7)]:
            sig = neardup.minhash(
                texts, num_perm=num_perm, seed=seed, k=k, unit=unit, algorithm="oph", **v
            )
            case["minhash_oph"][f"{num_perm}/{seed}"] = sig.astype("<u4").tobytes().hex()
        for bits in (64, 128):
            for weights in (None, "tf"):
                fp = neardup.simhash(texts, bits=bits, weights=weights, k=k, unit=unit, **v)
                case["simhash"][f"{bits}/{weights}"] = fp.astype("<u8").tobytes().hex()
        sig = neardup.minhash(texts, num_perm=128, seed=7, k=k, unit=unit, **v)
        case["band_hashes_42x3"] = neardup.band_hashes(sig, 42, 3).astype("<u8").tobytes().hex()
        out["cases"].append(case)
    return out


def file_name(version: int) -> str:
    return "vectors.json" if version == 1 else f"vectors_v{version}.json"


if __name__ == "__main__":
    version = int(sys.argv[1])
    path = Path(__file__).with_name(file_name(version))
    path.write_text(json.dumps(vectors(version), indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {path}")
