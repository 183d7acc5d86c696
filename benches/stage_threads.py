"""threads=1 against threads=2, stage by stage, on one corpus in one process: each stage runs
interleaved (1, 2, 1, 2, ...) so the ratios are fair on a busy machine.

    python benches/stage_threads.py --docs 100000 --repeat 5

Per stage: the median wall seconds at 1 and 2 threads and their ratio (the speed-up), the
median CPU seconds at each (CPU at 2 / wall at 2 near 2 means both threads were busy; CPU at
2 above CPU at 1 is the cost of splitting the work). ``--only NAME`` runs the stages whose
name contains NAME.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from compare_cli_api import corpus

import neardup
from neardup import stages
from neardup.banding import banding_sample
from neardup.io import open_source
from neardup.near import candidate_bound
from neardup.sign import sha256_digests


def _stages(texts: list[str], path: str) -> dict[str, Callable[[int], Any]]:
    sig = stages.minhash(texts, num_perm=128, k=5, threads=2)
    uniques = np.unique(sig, axis=0, return_index=True)[1]
    sig = np.ascontiguousarray(sig[np.sort(uniques)])  # what the engine bands: first copies
    digests = np.random.default_rng(0).integers(0, 2**63, (len(sig), 2)).astype(np.uint64)
    exact, estimate = (35, 3), (32, 4)  # the bandings find_duplicates picks at 100,000

    def jsonl(threads: int) -> int:
        with open_source(path, threads=threads) as source:
            return sum(len(batch) for batch in source.batches())

    return {
        "lsh_candidates (exact banding)": lambda t: stages.lsh_candidates(sig, *exact, threads=t),
        "candidate_bound": lambda t: candidate_bound(sig, *estimate, 2**62, threads=t),
        "lsh_candidate_rows": lambda t: stages.lsh_candidate_rows(sig, *exact, threads=t),
        "lsh_duplicates estimate": lambda t: stages.lsh_duplicates(sig, *estimate, 0.5, threads=t),
        "lsh_duplicates estimate spanning": lambda t: stages.lsh_duplicates(
            sig, *estimate, 0.5, spanning=True, threads=t
        ),
        "banding_sample": lambda t: banding_sample(digests, sig),
        "sha256 digests": lambda t: sha256_digests(texts, False, threads=t),
        "sha256-normalized digests": lambda t: sha256_digests(texts, True, threads=t),
        "jsonl reader": jsonl,
        "find_duplicates exact": lambda t: neardup.find_duplicates(texts, 0.5, threads=t),
        "find_duplicates estimate": lambda t: neardup.find_duplicates(
            texts, 0.5, verify="estimate", threads=t
        ),
        "find_duplicates sha256": lambda t: neardup.find_duplicates(
            texts, method="sha256", threads=t
        ),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    texts = corpus(args.docs)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "corpus.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(texts))
        print(f"{'stage':34} {'wall 1':>7} {'wall 2':>7} {'ratio':>6} {'cpu 1':>7} {'cpu 2':>7}")
        for name, stage in _stages(texts, path).items():
            if args.only not in name:
                continue
            times: dict[int, list[tuple[float, float]]] = {1: [], 2: []}
            stage(1)  # warm up
            for _ in range(args.repeat):
                for threads in (1, 2):
                    wall, cpu = time.perf_counter(), time.process_time()
                    stage(threads)
                    times[threads].append((time.perf_counter() - wall, time.process_time() - cpu))
            (w1, c1), (w2, c2) = (
                [statistics.median(x[i] for x in times[t]) for i in (0, 1)] for t in (1, 2)
            )
            print(f"{name:34} {w1:7.3f} {w2:7.3f} {w1 / w2:5.2f}x {c1:7.3f} {c2:7.3f}")


if __name__ == "__main__":
    main()
