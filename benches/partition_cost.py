"""What ``within=`` costs: one run over P partitions against the P partitions run one by one
(the sum a loop over partitions would cost) and against the corpus without partitions, in CPU
seconds (``time.process_time``, best of the rounds), for each method the partitions reach.

The corpus is ``neardup.synth`` text (originals, seven edits of each, unrelated documents)
with every document copied once more into another partition, so the partitioned runs find
fewer duplicates than the whole run, as a per-dump run of a crawl does:

    PYTHONPATH=$PWD/python python benches/partition_cost.py --docs 40000 --partitions 3 100 5000
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

import neardup
from neardup import synth


def best_cpu(fn: Callable[[], object], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        c0 = time.process_time()
        fn()
        best = min(best, time.process_time() - c0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--docs", type=int, default=40_000)
    ap.add_argument("--partitions", type=int, nargs="+", default=[3, 100, 5000])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--method", default="minhash")
    args = ap.parse_args()
    bases = args.docs // 16
    texts = list(synth.generate(bases=bases, singles=args.docs // 2 - 8 * bases, seed=1).texts)
    texts = texts + texts  # the second copy lands in another partition (mostly)
    rng = np.random.default_rng(0)
    options = {"method": args.method, "threshold": 0.5}
    whole = best_cpu(lambda: neardup.find_duplicates(texts, **options), args.rounds)
    print(f"{len(texts):,} documents, method {args.method}: no partitions {whole:.2f} s CPU")
    for p in args.partitions:
        keys = rng.integers(0, p, len(texts))
        r = neardup.find_duplicates(texts, within=keys, **options)
        together = best_cpu(
            lambda k=keys: neardup.find_duplicates(texts, within=k, **options), args.rounds
        )
        groups = [np.flatnonzero(keys == g) for g in np.unique(keys)]

        def one_by_one(groups: list[np.ndarray] = groups) -> None:
            for rows in groups:
                neardup.find_duplicates([texts[i] for i in rows], **options)

        alone = best_cpu(one_by_one, args.rounds)
        print(
            f"{p:>6,} partitions: within= {together:6.2f} s, one by one {alone:6.2f} s "
            f"({together / alone:4.0%}), removed {r.num_removed:,} "
            f"(candidates {r.params.get('candidates', 0):,})"
        )


if __name__ == "__main__":
    main()
