"""A/B of the default end to end (``find_duplicates(texts, threshold=0.3)``, the benches'
"neardup default" row) between two source trees, each with its extension built in
(``python/neardup/_core.abi3.so``): rounds alternate between the trees, one subprocess per
round (a fresh process: same corpus, same allocator state); prints each tree's best wall time,
its "cluster" stage (labels, keep, reported pairs) or the ``--stage`` named, and a digest of
the result to show both trees give the same bits. ``--strip 0.1`` adds
``strip_boilerplate=0.1`` (the "boilerplate" stage: its two counting passes); ``--options``
adds any other keywords (JSON), ``--hold-budget`` sets ``engine.HOLD_SETS_BUDGET`` (0: every
set spilled, as on a corpus past the memory budget).

    python benches/e2e_ab.py /tmp/report_base . --n 100000 --rounds 3
    python benches/e2e_ab.py /tmp/boiler_base . --strip 0.1 --stage boilerplate
    python benches/e2e_ab.py /tmp/base . --options '{"method": "simhash", "threshold": 0.9}'
    python benches/e2e_ab.py /tmp/base . --hold-budget 0 --stage read+sign
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import hashlib, json, sys, time
sys.path.insert(0, "benches")
import article_corpus
import neardup
from neardup import engine

n = int(sys.argv[1])
options = json.loads(sys.argv[2])
if sys.argv[3] != "-":
    engine.HOLD_SETS_BUDGET = int(sys.argv[3])
texts, _ = article_corpus.generate(bases=max(1, n // 10), singles=n // 5)
seconds = {}
run = engine.run
def timed_run(*a, **k):
    out = run(*a, **k)
    seconds.update(out.seconds)
    return out
engine.run = timed_run
t = time.perf_counter()
r = neardup.find_duplicates(texts, **{"threshold": 0.3, **options})
wall = time.perf_counter() - t
h = hashlib.sha256()
for a in (r.pairs, r.similarity, r.clusters, r.keep, r.representative):
    h.update(a.dtype.str.encode()); h.update(a.tobytes())
print(json.dumps({"file": neardup.__file__, "wall": wall, "seconds": seconds,
                  "pairs": len(r.pairs), "digest": h.hexdigest()[:16]}))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("trees", nargs=2)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--strip", type=float, default=None, help="strip_boilerplate=")
    ap.add_argument("--stage", default="cluster", help="the stage whose best time is printed")
    ap.add_argument("--options", default="{}", help="more find_duplicates keywords, as JSON")
    ap.add_argument("--hold-budget", type=int, default=None, help="engine.HOLD_SETS_BUDGET")
    args = ap.parse_args()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    options = {} if args.strip is None else {"strip_boilerplate": args.strip}
    options.update(json.loads(args.options))
    hold = "-" if args.hold_budget is None else str(args.hold_budget)
    results: dict[str, list[dict]] = {t: [] for t in args.trees}
    for _ in range(args.rounds):
        for tree in args.trees:
            env = dict(os.environ, PYTHONPATH=os.path.join(os.path.abspath(tree), "python"))
            out = subprocess.run(
                [sys.executable, "-c", CHILD, str(args.n), json.dumps(options), hold],
                env=env,
                cwd=here,
                capture_output=True,
                text=True,
                check=True,
            )
            results[tree].append(json.loads(out.stdout.strip().splitlines()[-1]))
    for tree, rows in results.items():
        best = min(rows, key=lambda r: r["wall"])
        stage = min(r["seconds"].get(args.stage, float("nan")) for r in rows)
        print(
            f"{tree}: {rows[0]['file']}\n  wall best {best['wall']:.3f} s of "
            f"{[round(r['wall'], 3) for r in rows]}, {args.stage} stage best {stage:.4f} s, "
            f"{best['pairs']:,} pairs, digest {sorted({r['digest'] for r in rows})}"
        )


if __name__ == "__main__":
    main()
