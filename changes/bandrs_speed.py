"""choose_banding's time on a 100k corpus, for the old and new code side by side:

for i in 1 2 3; do
  PYTHONPATH=/work/main/python python changes/bandrs_speed.py old
  PYTHONPATH=/work/wt/bandrs/python python changes/bandrs_speed.py new
done
"""

import sys
import time

import numpy as np

import neardup
from neardup import banding

rng = np.random.default_rng(0)
n, width = 100_000, 128
signatures = rng.integers(0, 2**32, size=(n, width), dtype=np.uint32)
base = rng.integers(0, n // 4, size=n)
keep = rng.random((n, width)) < 0.8
signatures = np.where(keep, signatures[base], signatures)  # families of near-copies
digests = rng.integers(0, 2**64, size=(n, 2), dtype=np.uint64)
sizes = rng.integers(10, 3000, size=n)


def engine_path() -> object:
    _, sample, sample_sizes = banding.banding_sample(digests, signatures, sizes=sizes)
    return neardup.choose_banding(
        0.5, 128, "exact", sample, sizes=sample_sizes, n=n, sign_pass=(n, int(sizes.sum()))
    )


def whole_corpus() -> object:
    return neardup.choose_banding(0.5, 128, "exact", signatures, sizes=sizes)


for name, call in (
    ("engine (sample + choose, n=100k)", engine_path),
    ("whole corpus", whole_corpus),
):
    call()
    times = []
    for _ in range(5):
        start = time.perf_counter()
        chosen = call()
        times.append(time.perf_counter() - start)
    print(
        f"{sys.argv[1]:4} {name:34} best {min(times) * 1e3:7.1f} ms  median "
        f"{sorted(times)[2] * 1e3:7.1f} ms  {chosen.predicted_candidates}"
    )
