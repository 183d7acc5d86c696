"""The worst case of find_matches's inverted index: a phrase that every query shares.

10,000 queries of 40 unique words; with ``--shared W`` every query starts with the same W-word
preamble, and every corpus document holds it too, so each document's hits touch all 10,000
queries. Prints the corpus throughput with and without the preamble (one thread), to show
the cost stays linear in the corpus and by how much a shared phrase raises it.

    python benches/matches_common.py --documents 5000
"""

from __future__ import annotations

import argparse
import random
import time

import neardup


def run(queries: int, documents: int, shared: int, seed: int = 0) -> tuple[float, int, int]:
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(100_000)]
    preamble = " ".join(f"common{i}" for i in range(shared))
    items = [
        (preamble + " " if shared else "") + " ".join(rng.choices(vocab, k=40))
        for _ in range(queries)
    ]
    docs = []
    for _ in range(documents):
        words = rng.choices(vocab, k=2000)
        docs.append(
            " ".join(words[:1000])
            + (" " + preamble + " " if shared else " ")
            + " ".join(words[1000:])
        )
    t = time.perf_counter()
    r = neardup.find_matches(items, docs, 0.5, "containment")
    return time.perf_counter() - t, sum(len(d.split()) for d in docs), len(r)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--queries", type=int, default=10_000)
    p.add_argument("--documents", type=int, default=5_000)
    args = p.parse_args()
    for shared in (0, 10, 30):
        seconds, words, found = run(args.queries, args.documents, shared)
        print(
            f"preamble of {shared:2d} words shared by every query and document: "
            f"{seconds:6.2f} s, {words / seconds / 1e6:5.1f} M words/s, {found:,} matches"
        )


if __name__ == "__main__":
    main()
