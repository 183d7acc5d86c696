"""Paragraph dedup vs the whole-document default path, on the same text, in MB/s of CPU time
(``time.process_time``, one thread, best of the rounds), and the streamed run's peak memory.

The corpus: documents of 2-8 paragraphs of real text (the Debian package descriptions of
``tests/data/realtext_descriptions.jsonl``, cut into their paragraphs), drawn with repeats,
so about half the paragraphs occur earlier. The rows:

- ``find_duplicates`` — ``neardup.find_duplicates(texts)``, every default (the baseline);
- ``paragraphs exact`` — ``neardup.dedup_paragraphs(texts)``;
- ``paragraphs bloom`` — the same with ``memory="bloom"`` (2**27 bits);
- ``paragraphs near 0.8`` — ``threshold=0.8`` (MinHash + LSH + exact verification on the
  paragraphs).

``--stream N`` then pushes N generated documents through a ``ParagraphDeduper`` in batches
of 10,000 and prints the peak resident memory (``ru_maxrss``) before and after:

    PYTHONPATH=$PWD/python python benches/paragraph_throughput.py --docs 20000
    PYTHONPATH=$PWD/python python benches/paragraph_throughput.py --docs 500 --rounds 1 \
        --stream 1000000 [--stream-bloom-bits 67108864]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import neardup

DATA = Path(__file__).parent.parent / "tests" / "data" / "realtext_descriptions.jsonl"


def paragraphs() -> list[str]:
    """The distinct paragraphs of the real descriptions."""
    seen: dict[str, None] = {}
    for line in DATA.open(encoding="utf-8"):
        for p in json.loads(line)["text"].split("\n\n"):
            if p.strip():
                seen.setdefault(p.strip(), None)
    return list(seen)


def documents(n: int, pool: list[str], seed: int = 1) -> Iterator[str]:
    """``n`` documents of 2-8 paragraphs; a paragraph is a fresh variant (a number added)
    half the time, else one of the pool's (a repeat once the pool has been drawn)."""
    rng = random.Random(seed)
    for i in range(n):
        parts = []
        for j in range(rng.randint(2, 8)):
            p = rng.choice(pool)
            parts.append(p if rng.random() < 0.5 else f"{p} ({i}.{j})")
        yield "\n\n".join(parts)


def best_cpu(fn: Callable[[], object], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        c0 = time.process_time()
        fn()
        best = min(best, time.process_time() - c0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--docs", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--stream", type=int, default=0, help="documents for the memory run")
    ap.add_argument("--stream-bloom-bits", type=int, default=0, help="memory run: Bloom mode")
    args = ap.parse_args()
    pool = paragraphs()
    texts = list(documents(args.docs, pool))
    mb = sum(len(t.encode()) for t in texts) / 1e6
    runs: dict[str, Callable[[], object]] = {
        "find_duplicates": lambda: neardup.find_duplicates(texts),
        "paragraphs exact": lambda: neardup.dedup_paragraphs(texts),
        "paragraphs bloom": lambda: neardup.dedup_paragraphs(
            texts, memory="bloom", bloom_bits=2**27
        ),
        "paragraphs near 0.8": lambda: neardup.dedup_paragraphs(texts, threshold=0.8),
    }
    r = neardup.dedup_paragraphs(texts)
    print(
        f"{len(texts):,} documents, {mb:.1f} MB, {int(r.units.sum()):,} paragraphs, "
        f"{int(r.removed.sum()):,} removed ({neardup.__version__})"
    )
    base = None
    for name, fn in runs.items():
        seconds = best_cpu(fn, args.rounds)
        rate = mb / seconds
        base = base or rate
        print(f"{name:22s} {seconds:7.2f} s CPU  {rate:7.1f} MB/s  {rate / base:6.0%} of baseline")
    if args.stream:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        bloom = args.stream_bloom_bits
        deduper = (
            neardup.ParagraphDeduper(memory="bloom", bloom_bits=bloom)
            if bloom
            else neardup.ParagraphDeduper()
        )
        batch: list[str] = []
        c0 = time.process_time()
        for text in documents(args.stream, pool, seed=2):
            batch.append(text)
            if len(batch) == 10_000:
                deduper.add(batch)
                batch = []
        if batch:
            deduper.add(batch)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"streamed {args.stream:,} documents, {deduper.paragraphs:,} paragraphs, "
            f"{deduper.paragraphs_removed:,} removed in {time.process_time() - c0:.1f} s CPU "
            f"(generation included); peak RSS {before:.0f} MiB before, {after:.0f} MiB after"
        )
        if bloom:
            print(
                f"Bloom filter: stated false-positive rate {deduper.bloom_false_positive_rate:.2e}"
            )


if __name__ == "__main__":
    main()
