"""SimHash on the Ray engine against Ray MinHash and the local SimHash, on the article's corpus
(``benches/article_corpus.py``: every document carries the same footer), side by side in one
Ray session: each size runs the three alternately, ``--rounds`` times, best wall time kept.
The Ray SimHash run must keep the local SimHash run's documents.

    RAY_AUTH_MODE=disabled PYTHONPATH=$PWD/python python benches/ray_simhash.py \\
        --docs 20000 80000 --threshold 0.9

Wall times on a shared machine are inflated: compare the columns of one row, and the growth
from one size to the next, not the absolute seconds.
"""

from __future__ import annotations

import argparse
import itertools
import os
from collections.abc import Callable
from typing import Any

import article_corpus  # benches/ is on the path when run as a script
import numpy as np
from ray_units_cost import best_wall  # benches/ is on the path

import neardup


def measure(ray: Any, n: int, threshold: float, rounds: int) -> None:
    """One row of the table: the three runs at ``n`` documents, alternately."""
    import pyarrow as pa

    import neardup.ray as nray

    texts, _ = article_corpus.generate(scale=-(-n // 2500))
    texts = texts[:n]
    table = pa.table({"text": texts})
    bounds = np.linspace(0, n, -(-n // 20_000) + 1).astype(int)

    def local() -> Any:
        return neardup.find_duplicates(texts, method="simhash", threshold=threshold, pairs="all")

    def on_ray(method: str) -> Callable[[], Any]:
        def go() -> Any:
            pieces = [table.slice(a, b - a) for a, b in itertools.pairwise(bounds)]
            run, _ = nray.run_dataset(
                ray.data.from_arrow(pieces), method=method, threshold=threshold
            )
            keep = np.ones(n, dtype=bool)
            for m in ray.get(run.members):
                keep[m["position"]] = False
            return run, keep

        return go

    times = dict.fromkeys(("local", "simhash", "minhash"), float("inf"))
    outs: dict[str, Any] = {}
    for _ in range(rounds):  # alternate, so the machine's load hits all three alike
        for name, fn in (
            ("local", local),
            ("simhash", on_ray("simhash")),
            ("minhash", on_ray("minhash")),
        ):
            wall, outs[name] = best_wall(fn, 1)
            times[name] = min(times[name], wall)
    ref = outs["local"]
    (srun, skeep), (mrun, _) = outs["simhash"], outs["minhash"]
    same = bool((skeep == ref.keep).all())
    print(
        f"| {n:,} | {times['local']:.2f} | {times['simhash']:.2f} | {times['minhash']:.2f} "
        f"| {srun.info['simhash_search']} | {srun.shuffle_bytes / 1e6:.0f} / "
        f"{mrun.shuffle_bytes / 1e6:.0f} | {same} |",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--docs", type=int, nargs="+", default=[20_000, 80_000])
    ap.add_argument("--threshold", type=float, default=0.9)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    print(f"load average at start: {os.getloadavg()}")
    header = "| documents | local SimHash s | Ray SimHash s | Ray MinHash s | Ray SimHash search |"
    print(header + " shuffle MB SimHash / MinHash | same kept |")
    print("|---:|---:|---:|---:|---|---:|---|")
    for n in args.docs:
        measure(ray, n, args.threshold, args.rounds)
    print(f"load average at end: {os.getloadavg()}")
    ray.shutdown()


if __name__ == "__main__":
    main()
