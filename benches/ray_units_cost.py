"""What units of rows (``unit_of=``) cost on the Ray engine: the same rows run as rows and
as units, side by side in one Ray session (alternating, best wall time of the rounds), with
the local engine's two runs for comparison. Every row's unit is a random one of ``rows /
rows_per_unit`` keys, so a unit's rows are scattered over every block (the worst case for
the gathering shuffle); both engines must keep the same rows.

    RAY_AUTH_MODE=disabled PYTHONPATH=$PWD/python python benches/ray_units_cost.py \\
        --rows 20000 --blocks 4 --rows-per-unit 3
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import neardup
from neardup import synth


def best_wall(fn: Callable[[], Any], rounds: int) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(rounds):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", type=int, default=20_000)
    ap.add_argument("--blocks", type=int, default=4)
    ap.add_argument("--rows-per-unit", type=float, default=3.0)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    import pyarrow as pa
    import ray

    import neardup.ray as nray

    bases = args.rows // 16
    texts = list(synth.generate(bases=bases, singles=args.rows - 8 * bases, seed=1).texts)
    texts = texts[: args.rows]
    rng = np.random.default_rng(0)
    keys = rng.integers(0, int(len(texts) / args.rows_per_unit), len(texts))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    table = pa.table({"text": texts, "repo": keys})
    bounds = np.linspace(0, len(texts), args.blocks + 1).astype(int)
    ds = ray.data.from_arrow([table.slice(a, b - a) for a, b in itertools.pairwise(bounds)])
    options = {"threshold": 0.5, "method": "minhash", "pairs": "all"}
    try:
        walls: dict[str, list[float]] = {"rows": [], "units": []}
        kept: dict[str, Any] = {}
        for _ in range(args.rounds):  # alternating, so a load change hits both
            for name, extra in (("rows", {}), ("units", {"unit_of": "repo"})):
                t0 = time.perf_counter()
                out = nray.find_duplicates(ds, threshold=0.5, **extra).to_pandas()
                walls[name].append(time.perf_counter() - t0)
                kept[name] = out.sort_values("position")["keep"].to_numpy()
    finally:
        ray.shutdown()
    local_rows, r = best_wall(lambda: neardup.find_duplicates(texts, **options), args.rounds)
    local_units, u = best_wall(
        lambda: neardup.find_duplicates(texts, unit_of=keys, **options), args.rounds
    )
    assert (kept["rows"] == r.keep).all() and (kept["units"] == u.keep).all()
    ray_rows, ray_units = min(walls["rows"]), min(walls["units"])
    print(
        f"{len(texts):,} rows in {args.blocks} blocks, {u.params['units']:,} units "
        f"(~{args.rows_per_unit:g} rows each, scattered); best of {args.rounds} wall times"
    )
    print(
        f"Ray   rows {ray_rows:6.2f} s  units {ray_units:6.2f} s  ratio {ray_units / ray_rows:.2f}"
    )
    print(
        f"local rows {local_rows:6.2f} s  units {local_units:6.2f} s  "
        f"ratio {local_units / local_rows:.2f}"
    )
    print(f"removed rows: {int((~r.keep).sum()):,} as rows, {int((~u.keep).sum()):,} as units")


if __name__ == "__main__":
    main()
