"""What the ``reason`` column and ``groups()`` cost on top of a run, on a million rows.

    python benches/explain_cost.py --docs 1000000 --repeat 3

A run's decisions (cluster labels, kept documents, first exact duplicates, similarity to the
kept document) are made up at the given size, with clusters of every size (Zipf sizes,
a = 3: about a quarter of the rows removed; half of those with their kept document's
shingle set, half of those byte-identical), so only the post-run work is timed: ``reason``
(codes, byte comparison of the texts as a list of str and as Arrow buffers, names),
``groups()`` (sorts, offsets, lowest similarity) and ``--groups`` written as JSONL. Prints
the median seconds of each.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

from neardup import groups


def made_up_run(n: int, seed: int = 0) -> tuple[dict[str, np.ndarray], list[str]]:
    rng = np.random.default_rng(seed)
    # Cluster sizes: Zipf, capped, until n rows are labelled.
    sizes = np.minimum(rng.zipf(3.0, size=n), 1000)
    sizes = sizes[: np.searchsorted(np.cumsum(sizes), n) + 1]
    sizes[-1] -= sizes.sum() - n
    sizes = sizes[sizes > 0]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    order = rng.permutation(n)  # members spread over the input
    clusters = np.empty(n, dtype=np.int64)
    member_group = np.repeat(np.arange(len(sizes)), sizes)
    clusters[order] = member_group
    lowest = np.full(len(sizes), n, dtype=np.int64)
    np.minimum.at(lowest, member_group, order)
    clusters = lowest[clusters]  # the lowest position of each cluster
    keep = clusters == np.arange(n)
    representative = clusters.copy()
    removed = np.flatnonzero(~keep)
    same_set = rng.random(len(removed)) < 0.5
    first = np.arange(n)
    first[removed[same_set]] = first[representative[removed[same_set]]]
    similarity = np.where(keep, 1.0, rng.uniform(0.5, 1.0, n))
    similarity[removed[same_set]] = 1.0
    words = [f"document number {i} with some words" for i in range(n)]
    identical = removed[same_set][rng.random(int(same_set.sum())) < 0.5]
    for i in identical.tolist():  # byte copies of their kept document
        words[i] = words[representative[i]]
    del starts
    return {
        "clusters": clusters,
        "keep": keep,
        "representative": representative,
        "first": first,
        "similarity": similarity,
    }, words


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--docs", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    run, texts = made_up_run(args.docs)
    keep, rep, first = run["keep"], run["representative"], run["first"]
    from neardup._texts import as_core_texts

    try:
        import pyarrow as pa

        buffers = as_core_texts(pa.array(texts))
    except ImportError:
        buffers = None
    seconds: dict[str, list[float]] = {
        "reason (list)": [],
        "reason (Arrow)": [],
        "groups()": [],
        "--groups JSONL": [],
    }
    with tempfile.TemporaryDirectory(prefix="neardup-explain-") as tmp:
        from neardup.dedup import write_groups

        ids = [f"id{i}" for i in range(len(keep))]
        for _ in range(args.repeat):
            for name, held in (("reason (list)", texts), ("reason (Arrow)", buffers)):
                if held is None:
                    continue
                t0 = time.perf_counter()
                rows = groups.same_set_rows(keep, rep, first)
                same = np.zeros(len(keep), dtype=bool)
                same[rows] = groups.same_bytes(held, rows, rep[rows])
                reason = groups.reason_names(groups.reason_codes(keep, rep, first, same))
                seconds[name].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            found = groups.duplicate_groups(run["clusters"], keep, rep, run["similarity"])
            seconds["groups()"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            write_groups(found, ids, tmp + "/g.jsonl")
            seconds["--groups JSONL"].append(time.perf_counter() - t0)
        size = os.path.getsize(tmp + "/g.jsonl")
    names, counts = np.unique(reason, return_counts=True)
    print(
        f"{args.docs:,} rows: "
        + ", ".join(f"{a} {b:,}" for a, b in zip(names, counts, strict=True))
    )
    print(f"{len(found):,} groups, largest {int(found.size[0]):,}; JSONL {size / 1e6:.1f} MB")
    for name, values in seconds.items():
        if values:
            print(f"{name:16s} {statistics.median(values):7.3f} s")


if __name__ == "__main__":
    main()
