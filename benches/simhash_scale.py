"""Benchmark (not a test): SimHash end to end on the article's corpus as it grows, beside the
default MinHash path, in one run (issue 24 part 2).

    python benches/simhash_scale.py                        # 50k, 100k, 200k; MinHash at 100k
    python benches/simhash_scale.py --docs 1000000 --minhash-at 1000000 --rounds 1

The corpus is the article's (``benches/article_corpus.py``: short ``wNNNN`` words, every
document ending with the same footer; ``--corpus synth``: the project's own generator,
``neardup.synth.generate(*synth.preset(n))``), shuffled with a fixed permutation as
benches/conftest.py does. Each size runs ``find_duplicates(texts, threshold=T,
method="simhash")`` (default T = 0.9, radius 6 of 64 bits) and, at ``--minhash-at``, the default
``find_duplicates(texts, threshold=0.3)``; every corpus is built first, then each round runs
every size in turn (interleaved, so the ratios see the same load), and the median is
printed, with the search the run chose (``params["simhash_search"]``), the candidates and the
growth per doubling (wall and CPU time).
"""

from __future__ import annotations

import argparse
import statistics
import time

import article_corpus  # benches/ is on the path when run as a script
import numpy as np

import neardup
from neardup import synth


def corpus(n: int, kind: str = "article") -> list[str]:
    if kind == "article":
        texts, _ = article_corpus.generate(max(1, n // 2_500))
    else:
        texts = synth.generate(*synth.preset(n)).texts
    order = np.random.default_rng(0).permutation(len(texts))
    return [texts[i] for i in order]


CPU: list[float] = []  # CPU seconds of each timed call, in order


def timed(fn, *args, **kwargs):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn(*args, **kwargs)
    CPU.append(time.process_time() - c0)
    return time.perf_counter() - t0, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--docs", type=int, nargs="+", default=[50_000, 100_000, 200_000])
    ap.add_argument("--threshold", type=float, default=0.9)
    ap.add_argument(
        "--minhash-at", type=int, nargs="*", default=[100_000], help="sizes of the MinHash runs"
    )
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--corpus", choices=("article", "synth"), default="article")
    args = ap.parse_args()
    rows = []
    minhash: dict[int, float] = {}
    minhash_cpu: dict[int, float] = {}
    corpora = {n: corpus(n, args.corpus) for n in args.docs}
    sim_times: dict[int, list[float]] = {n: [] for n in args.docs}
    sim_cpu: dict[int, list[float]] = {n: [] for n in args.docs}
    mh_times: dict[int, list[float]] = {n: [] for n in args.docs}
    mh_cpu: dict[int, list[float]] = {n: [] for n in args.docs}
    results: dict[int, tuple[dict, int]] = {}
    for _ in range(args.rounds):  # every size in every round: the ratios see the same load
        for n in args.docs:
            t, result = timed(
                neardup.find_duplicates,
                corpora[n],
                threshold=args.threshold,
                method="simhash",
                threads=args.threads,
            )
            # Only what the table needs is kept: a result holds its run's sets (for
            # keep_at_most and explain), and the next run would be timed beside them.
            results[n] = (result.params, len(result.pairs))
            del result
            sim_times[n].append(t)
            sim_cpu[n].append(CPU[-1])
            if n in args.minhash_at:
                t, result = timed(
                    neardup.find_duplicates, corpora[n], threshold=0.3, threads=args.threads
                )
                del result
                mh_times[n].append(t)
                mh_cpu[n].append(CPU[-1])
    for n in args.docs:
        texts, (p, found) = corpora[n], results[n]
        fingerprints = neardup.simhash(texts, bits=64, k=5)
        radius = int(p["max_hamming"])
        search, _ = timed(neardup.hamming_within, fingerprints, radius)
        cpu = statistics.median(sim_cpu[n])
        rows.append((n, statistics.median(sim_times[n]), p, found, search, cpu))
        if mh_times[n]:
            minhash[n] = statistics.median(mh_times[n])
            minhash_cpu[n] = statistics.median(mh_cpu[n])
        print(
            f"{n:>9,} docs  simhash T={args.threshold:g}: {rows[-1][1]:7.2f} s ({cpu:.2f} s CPU)  "
            f"search {p['simhash_search']}, candidates {p['candidates']:,}, "
            f"predicted comparisons {p['simhash_predicted_comparisons']:,}, "
            f"pairs {rows[-1][3]:,}, search alone {search:.2f} s",
            flush=True,
        )
        if mh_times[n]:
            print(
                f"{n:>9,} docs  default minhash T=0.3: {minhash[n]:7.2f} s "
                f"({minhash_cpu[n]:.2f} s CPU)",
                flush=True,
            )
    print()
    print(
        f"| documents | SimHash T={args.threshold:g} end to end, wall (CPU) s | growth, wall (CPU) "
        "| search alone (s) | search | default MinHash, wall (CPU) s |"
    )
    print("|---|---|---|---|---|---|")
    for k, (n, seconds, p, _, search, cpu) in enumerate(rows):
        growth = f"{seconds / rows[k - 1][1]:.2f}x ({cpu / rows[k - 1][5]:.2f}x)" if k else ""
        mh = (
            f"{minhash[n]:.2f} ({minhash_cpu[n]:.2f}); SimHash {seconds / minhash[n]:.2f}x "
            f"({cpu / minhash_cpu[n]:.2f}x)"
            if n in minhash
            else ""
        )
        print(
            f"| {n:,} | {seconds:.2f} ({cpu:.2f}) | {growth} | {search:.2f} "
            f"| {p['simhash_search']} | {mh} |"
        )


if __name__ == "__main__":
    main()
