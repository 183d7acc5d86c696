"""threads=1 against threads=2, stage by stage, on one corpus in one process: each stage runs
interleaved (1, 2, 1, 2, ...) so the ratios are fair on a busy machine.

    python benches/stage_threads.py --docs 100000 --repeat 5

Per stage: the median wall seconds at 1 and 2 threads and their ratio (the speed-up), the
median CPU seconds of the stage's threads at each (CPU at 2 above CPU at 1 is the cost of
splitting the work), and
the work split at 2 threads, from each thread's CPU time (``/proc/self/task/*/schedstat``,
sampled every millisecond by a watcher thread): ``main`` is the calling thread (Python glue
and the serial parts of the stage), ``w-max``/``w-min`` the busiest and idlest other thread,
and ``span`` = CPU at 1 / (main + w-max): the speed-up the split allows on two idle cores,
which a machine shared with other jobs does not show in wall time; ``best`` the same from the
least CPU at 1 thread and the shortest main + w-max at 2 (the runs least disturbed by other
jobs); ``even`` = CPU at 1 / (main + the rest of CPU at 2 halved): the speed-up when the
parallel work is shared evenly. Stages that share tasks out as threads come free (the LSH
bands) give the idle thread's tasks to the other when the machine holds a thread up, so their
w-max can exceed half the work in a busy run while the wall time gains: ``even`` is their
figure. ``--only NAME`` runs the stages whose name contains NAME.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from compare_cli_api import corpus

import neardup
from neardup import _core, stages
from neardup.banding import banding_sample
from neardup.io import open_source
from neardup.sign import sha256_digests


def _stages(texts: list[str], path: str) -> dict[str, Callable[[int], Any]]:
    sig = stages.minhash(texts, num_perm=128, k=5, threads=2)
    uniques = np.unique(sig, axis=0, return_index=True)[1]
    sig = np.ascontiguousarray(sig[np.sort(uniques)])  # what the engine bands: first copies
    digests = np.random.default_rng(0).integers(0, 2**63, (len(sig), 2)).astype(np.uint64)
    exact, estimate = (42, 3), (32, 4)  # the bandings find_duplicates picks at 100,000 (T=0.5)

    def jsonl(threads: int) -> int:
        with open_source(path, threads=threads) as source:
            return sum(len(batch) for batch in source.batches())

    def cli(threads: int) -> int:
        from neardup.cli import main

        out = os.path.join(os.path.dirname(path), "kept.jsonl")
        return main(["dedup", path, "-o", out, "--threads", str(threads), "-q"])

    return {
        "lsh_candidates (exact banding)": lambda t: stages.lsh_candidates(sig, *exact, threads=t),
        "candidate_bound": lambda t: _core.lsh_bucket_pairs_bound(sig, *estimate, 2**62, threads=t),
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
        "neardup dedup (CLI, JSONL)": cli,
    }


class ThreadClock:
    """CPU nanoseconds of each thread of this process during a ``with`` block (threads that
    end inside it counted up to their last sample, at most a millisecond short)."""

    def __init__(self) -> None:
        self.seen: dict[int, tuple[int, int]] = {}  # tid -> (first, last) CPU ns
        self._stop = threading.Event()
        self.watcher = 0

    @staticmethod
    def _cpu(tid: int) -> int | None:
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                return int(f.read().split()[0])
        except OSError:
            return None

    def _sample(self) -> None:
        for name in os.listdir("/proc/self/task"):
            tid = int(name)
            if tid == self.watcher:
                continue
            ns = self._cpu(tid)
            if ns is not None:
                first = self.seen.get(tid, (ns, ns))[0]
                self.seen[tid] = (first, ns)

    def _watch(self) -> None:
        self.watcher = threading.get_native_id()
        while not self._stop.wait(0.001):
            self._sample()

    def __enter__(self) -> ThreadClock:
        self._sample()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    def split(self, main: int) -> tuple[float, list[float]]:
        """(CPU seconds of thread ``main``, of every other thread busiest first)."""
        used = {tid: (last - first) / 1e9 for tid, (first, last) in self.seen.items()}
        own = used.pop(main, 0.0)
        return own, sorted((v for v in used.values() if v > 1e-4), reverse=True)


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
        print(
            f"{'stage':34} {'wall 1':>7} {'wall 2':>7} {'ratio':>6} {'cpu 1':>7} {'cpu 2':>7}"
            f" {'main':>6} {'w-max':>6} {'w-min':>6} {'span':>6} {'best':>6} {'even':>6}"
        )
        me = threading.get_native_id()
        for name, stage in _stages(texts, path).items():
            if args.only not in name:
                continue
            times: dict[int, list[tuple[float, float]]] = {1: [], 2: []}
            splits: list[tuple[float, float, float]] = []
            stage(1)  # warm up
            for _ in range(args.repeat):
                for threads in (1, 2):
                    with ThreadClock() as clock:
                        wall = time.perf_counter()
                        stage(threads)
                        wall = time.perf_counter() - wall
                    own, others = clock.split(me)
                    # CPU of the stage's threads: the process's less the watcher's own
                    times[threads].append((wall, own + sum(others)))
                    if threads == 2:
                        splits.append((own, *[*others, 0.0, 0.0][:2]))
            (w1, c1), (w2, c2) = (
                [statistics.median(x[i] for x in times[t]) for i in (0, 1)] for t in (1, 2)
            )
            own, busiest, idlest = (statistics.median(x[i] for x in splits) for i in range(3))
            best = min(x[1] for x in times[1]) / min(x[0] + x[1] for x in splits)
            even = c1 / (own + (c2 - own) / 2)
            print(
                f"{name:34} {w1:7.3f} {w2:7.3f} {w1 / w2:5.2f}x {c1:7.3f} {c2:7.3f}"
                f" {own:6.3f} {busiest:6.3f} {idlest:6.3f} {c1 / (own + busiest):5.2f}x"
                f" {best:5.2f}x {even:5.2f}x"
            )


if __name__ == "__main__":
    main()
