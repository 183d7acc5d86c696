"""A/B of the reported pairs: the numpy ``engine.report_pairs``/``all_pairs_count``/
``cluster_labels``/``keep.keep_mask`` of main (read from git, commit BEFORE) against the
crate's ``_core`` functions, on the same inputs in one process, rounds interleaved; checks
every output is identical (values and dtypes) before timing.

    PYTHONPATH=python python changes/report_ab.py            # both cases, 3 rounds
    PYTHONPATH=python python changes/report_ab.py --peak old  # peak RSS of one side alone
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import time
import types

import numpy as np

from neardup import _core, stages

BEFORE = "1e3566b"


def old_module() -> types.SimpleNamespace:
    """The numpy functions of main's engine.py and keep.py (exec'd from git, not copied)."""
    ns: dict = {"np": np, "_core": _core, "stages": stages}
    engine = ["cluster_labels", "_sorted_pairs", "_members", "all_pairs_count", "report_pairs"]
    for path, names in [
        ("python/neardup/engine.py", engine),
        ("python/neardup/keep.py", ["keep_mask"]),
    ]:
        src = subprocess.run(
            ["git", "show", f"{BEFORE}:{path}"], capture_output=True, text=True, check=True
        ).stdout
        for name in names:
            start = src.index(f"\ndef {name}(") + 1
            ends = [src.find(m, start) for m in ("\ndef ", "\n# --", "\n@", "\nclass ")]
            end = min(e for e in ends if e != -1)
            exec("from __future__ import annotations\n" + src[start:end], ns)
    return types.SimpleNamespace(**ns)


def case(n: int, sizes: str, near: int, seed: int = 0):
    """(first, near pairs among first occurrences, float32 sims, selected, local pairs)."""
    rng = np.random.default_rng(seed)
    if sizes == "zipf":  # P(s) ~ 1/s^2 on 1..50: most documents alone, a few large groups
        p = 1.0 / np.arange(1, 51) ** 2
        size = rng.choice(np.arange(1, 51), size=n, p=p / p.sum())
    else:  # uniform on 1..50
        size = rng.integers(1, 51, size=n)
    size = size[: np.searchsorted(np.cumsum(size), n) + 1]
    size[-1] -= size.sum() - n
    starts = np.cumsum(size) - size
    # documents of a group spread over the corpus: positions shuffled, first = lowest of each
    perm = rng.permutation(n)
    group_of = np.repeat(np.arange(len(size)), size)[np.argsort(perm)]
    lowest = np.full(len(size), n, np.int64)
    np.minimum.at(lowest, group_of, np.arange(n))
    first = lowest[group_of]
    roots = np.flatnonzero(first == np.arange(n))
    a = rng.integers(0, len(roots), near * 2)
    b = rng.integers(0, len(roots), near * 2)
    pairs = np.unique(np.sort(np.stack([a, b], 1)[a != b], axis=1), axis=0)
    pairs = pairs[rng.permutation(len(pairs))[:near]]
    local = pairs.astype(np.int64)
    near_pairs = roots[local]
    sims = rng.random(len(near_pairs)).astype(np.float32)
    del starts
    return first, near_pairs, sims, roots, local


def run(which: str, ns, first, pairs, sims, selected, local):
    lib = ns if which == "old" else _core
    out = {}
    t = time.perf_counter()
    out["labels"] = lib.cluster_labels(first, selected, local)
    out["count"] = lib.all_pairs_count(first, pairs)
    out["all"] = lib.report_pairs(first, pairs, sims, "all")
    out["spanning"] = lib.report_pairs(first, pairs, sims, "spanning")
    lengths = np.random.default_rng(1).integers(0, 1000, len(first))
    if which == "old":
        out["keep"] = ns.keep_mask(out["labels"], lengths, "longest")
    else:
        out["keep"] = _core.keep_mask(out["labels"], "longest", lengths)
    return out, time.perf_counter() - t


def timed(fn, *args):
    t = time.perf_counter()
    r = fn(*args)
    return r, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--peak", choices=["old", "new"])
    args = ap.parse_args()
    ns = old_module()
    cases = [("zipf", 200_000), ("uniform", 20_000)]
    if args.peak:
        first, pairs, sims, selected, local = case(args.n, *cases[0])
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        lib = ns if args.peak == "old" else _core
        lib.report_pairs(first, pairs, sims, "all")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(f"{args.peak}: report_pairs all peak RSS +{(peak - base) / 1024:.0f} MiB")
        return
    for sizes, near in cases:
        first, pairs, sims, selected, local = case(args.n, sizes, near)
        old, _ = run("old", ns, first, pairs, sims, selected, local)
        new, _ = run("new", ns, first, pairs, sims, selected, local)
        for key in old:
            o, w = old[key], new[key]
            if isinstance(o, tuple):
                for x, y in zip(o, w, strict=True):
                    assert x.dtype == y.dtype and np.array_equal(x, y), (key, x.dtype, y.dtype)
            elif isinstance(o, np.ndarray):
                assert o.dtype == w.dtype and np.array_equal(o, w), key
            else:
                assert o == w, (key, o, w)
        m = len(new["all"][0])
        print(
            f"{sizes} groups, n={args.n:,}, near pairs {len(pairs):,}: all pairs {m:,}, identical"
        )
        stages_t = {"report all": [], "report spanning": [], "count": [], "labels": [], "keep": []}
        for _ in range(args.rounds):
            for which in ("old", "new"):
                lib = ns if which == "old" else _core
                _, t = timed(lib.report_pairs, first, pairs, sims, "all")
                stages_t["report all"].append((which, t))
                _, t = timed(lib.report_pairs, first, pairs, sims, "spanning")
                stages_t["report spanning"].append((which, t))
                _, t = timed(lib.all_pairs_count, first, pairs)
                stages_t["count"].append((which, t))
                _, t = timed(lib.cluster_labels, first, selected, local)
                stages_t["labels"].append((which, t))
                lengths = np.arange(len(first)) % 997
                labels = new["labels"]
                if which == "old":
                    _, t = timed(ns.keep_mask, labels, lengths, "longest")
                else:
                    _, t = timed(_core.keep_mask, labels, "longest", lengths)
                stages_t["keep"].append((which, t))
        for name, rows in stages_t.items():
            o = min(t for w, t in rows if w == "old")
            w = min(t for w, t in rows if w == "new")
            print(
                f"  {name:16s} numpy {o * 1000:8.1f} ms   rust {w * 1000:8.1f} ms   x{o / w:5.1f}"
            )


if __name__ == "__main__":
    main()
