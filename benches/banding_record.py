"""Records choose_banding / banding_sample / recall_bandings / lsh_params outputs over many
random inputs, to check that a change of their implementation reproduces them exactly.

    python benches/banding_record.py record OUT.json   # with the old code
    python benches/banding_record.py check OUT.json    # with the new code: exits 1 on a difference
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

import numpy as np

import neardup
from neardup import banding


def _signatures(rng: np.random.Generator, m: int, num_perm: int) -> np.ndarray:
    """Families of near-copies (each member keeps a random share of its base's slots), exact
    copies and singletons: every similarity from 0 to 1."""
    out = rng.integers(0, 2**32, size=(m, num_perm), dtype=np.uint32)
    bases = max(1, m // int(rng.integers(2, 12)))
    for i in range(m):
        if rng.random() < 0.7:
            base = int(rng.integers(0, bases))
            keep = rng.random(num_perm) < rng.uniform(0.2, 1.0)
            out[i, keep] = out[base, keep]
    if m > 4:
        copies = rng.integers(0, m, size=m // 5)
        out[rng.integers(0, m, size=m // 5)] = out[copies]
    return out


def _h(array: np.ndarray) -> str:
    a = np.ascontiguousarray(array)
    return f"{a.dtype}{a.shape}:" + hashlib.sha256(a.tobytes()).hexdigest()[:16]


def _banding(b: Any) -> list[Any]:
    return [b.bands, b.rows, repr(b.expected_recall), b.predicted_candidates, b.reason]


def cases() -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for threshold in [*np.round(np.arange(0.05, 1.0001, 0.05), 2).tolist(), 0.01, 0.33, 0.999]:
        for num_perm in (1, 7, 16, 64, 128, 200, 256):
            for recall in (0.5, 0.9, 0.99, 0.999, 0.9999):
                key = f"recall_bandings {threshold} {num_perm} {recall}"
                out.append((key, banding.recall_bandings(threshold, num_perm, recall)))
                out.append((f"params {key}", banding.lsh_params(threshold, num_perm, recall)))
                c = neardup.choose_banding(threshold, num_perm, "exact", recall=recall)
                out.append((f"choose {key}", _banding(c)))
            c = neardup.choose_banding(threshold, num_perm, "estimate")
            out.append((f"estimate {threshold} {num_perm}", _banding(c)))
    sizes_m = (0, 1, 2, 3, 10, 57, 300, 999, 1000, 1001, 1500, 3000)
    for seed in range(150):
        rng = np.random.default_rng(1000 + seed)
        m = int(sizes_m[seed % len(sizes_m)])
        num_perm = int((64, 128, 256)[seed % 3])
        width = num_perm + int(rng.integers(0, 2)) * 8
        sig = _signatures(rng, m, width)
        sizes_int = rng.integers(0, 5000, size=m)
        sizes_float = rng.uniform(0, 3000, size=m)
        for j in range(6):
            threshold = float(np.round(rng.uniform(0.3, 0.95), 3)) if j else 0.5
            recall = (0.99, 0.9, 0.999)[j % 3]
            bucket_limit = (32, None, 2, 5, 32, 1000)[j]
            sizes = (None, sizes_int, sizes_float)[j % 3]
            n = None if j % 2 == 0 or m == 0 else m + int(rng.integers(0, 10 * m + 5))
            corpus = m if n is None else n
            sign_pass = (
                None
                if j < 3
                else (corpus + int(rng.integers(0, 1000)), int(rng.integers(0, 10**7)))
            )
            c = neardup.choose_banding(
                threshold,
                num_perm,
                "exact",
                sig,
                recall=recall,
                sizes=sizes,
                sign_pass=sign_pass,
                n=n,
                bucket_limit=bucket_limit,
            )
            key = f"choose seed={seed} m={m} P={num_perm} T={threshold} j={j}"
            out.append((key, _banding(c)))
        # the banding sample: digests with copies, any size
        d = rng.integers(0, 2**64, size=(m, 2), dtype=np.uint64)
        if m > 3:
            d[rng.integers(0, m, size=m // 3)] = d[rng.integers(0, m, size=m // 3)]
            d[rng.integers(0, m, size=3), 0] = d[0, 0]  # equal first lanes
        sz = rng.integers(0, 10**6, size=m)
        for size in (1, 2, 7, 100, 1000, 5000):
            for with_sizes in (False, True):
                got = banding.banding_sample(d, sig, size, sz if with_sizes else None)
                key = f"sample seed={seed} m={m} size={size} sizes={with_sizes}"
                out.append((key, [_h(x) for x in got]))
        out.append((f"keys seed={seed}", _h(banding.sample_keys(d))))
        # the engine's path: the sample, then the choice scaled to the unique documents
        _, s_sig, s_sz = banding.banding_sample(d, sig, sizes=sz)
        if len(s_sig):
            c = neardup.choose_banding(
                0.5, num_perm, "exact", s_sig, sizes=s_sz, n=m, sign_pass=(2 * m, int(sz.sum()))
            )
            out.append((f"engine seed={seed}", _banding(c)))
            for big in (10**8 + 7, 123_456_789_123, 2**62 + 5):  # scales past 2**53
                c = neardup.choose_banding(0.7, num_perm, "exact", s_sig, sizes=s_sz, n=big)
                out.append((f"engine seed={seed} n={big}", _banding(c)))
    # real text: minhash of a synthetic corpus
    for seed in range(4):
        texts = list(neardup.synth.generate(bases=80, singles=400, seed=seed).texts)
        for num_perm in (64, 128, 256):
            sig = neardup.minhash(texts, num_perm=num_perm, seed=seed)
            for threshold in (0.3, 0.5, 0.7, 0.8, 0.9, 0.95):
                c = neardup.choose_banding(threshold, num_perm, "exact", sig)
                out.append((f"text seed={seed} P={num_perm} T={threshold}", _banding(c)))
    return out


def main() -> int:
    mode, path = sys.argv[1], sys.argv[2]
    got = [[k, v] for k, v in json.loads(json.dumps(cases()))]
    if mode == "record":
        with open(path, "w") as f:
            json.dump(got, f)
        print(f"recorded {len(got)} outputs to {path} with {neardup.__file__}")
        return 0
    with open(path) as f:
        want = json.load(f)
    bad = [(w, g) for w, g in zip(want, got, strict=True) if w != g]
    for w, g in bad[:20]:
        print("DIFF", w, g)
    print(f"{len(got)} outputs, {len(bad)} differ ({neardup.__file__})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
