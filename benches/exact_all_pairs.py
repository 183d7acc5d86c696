"""Brute-force exact Jaccard (``method="exact-jaccard"``, what ``method="auto"`` runs up to
``auto_exact_limit`` documents) against MinHash on real text and the synthetic corpus, one
process, runs interleaved (best of ``--repeat`` wall seconds):

    python benches/exact_all_pairs.py --repeat 3

Real text: the Python sources of this interpreter's standard library (files over 2 KB, in a
fixed shuffled order: code, where most shingles are in one file only) and the licence texts of
``/usr/share/common-licenses`` if present. Prints documents, shingles, seconds of each method
and whether they removed the same rows.
"""

from __future__ import annotations

import argparse
import glob
import random
import sysconfig
import time

import neardup
from neardup import synth


def python_sources(limit: int) -> list[str]:
    texts = []
    for path in sorted(glob.glob(sysconfig.get_paths()["stdlib"] + "/**/*.py", recursive=True)):
        try:
            text = open(path, encoding="utf-8").read()
        except (OSError, UnicodeDecodeError):
            continue
        if len(text) > 2000:
            texts.append(text)
    random.Random(0).shuffle(texts)
    return texts[:limit]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threshold", type=float, default=0.3)
    args = ap.parse_args()
    corpora = {
        "python sources 300": python_sources(300),
        "python sources 1,000": python_sources(1000),
        "python sources (all)": python_sources(10**9),
        "licences": [
            open(p, errors="replace").read() for p in glob.glob("/usr/share/common-licenses/*")
        ],
        "synthetic 5,000": list(synth.generate(*synth.preset(5000)).texts),
    }
    for name, texts in corpora.items():
        if not texts:
            continue
        best = {"exact-jaccard": float("inf"), "minhash": float("inf")}
        kept = {}
        for _ in range(args.repeat):
            for method in best:
                start = time.perf_counter()
                result = neardup.find_duplicates(texts, threshold=args.threshold, method=method)
                best[method] = min(best[method], time.perf_counter() - start)
                kept[method] = result.keep
        shingles = int(neardup.shingles(texts).sizes().sum())
        same = bool((kept["exact-jaccard"] == kept["minhash"]).all())
        print(
            f"{name}: {len(texts):,} documents, {shingles:,} shingles: exact-jaccard "
            f"{best['exact-jaccard']:.3f} s, minhash {best['minhash']:.3f} s, "
            f"same rows kept: {same}"
        )


if __name__ == "__main__":
    main()
