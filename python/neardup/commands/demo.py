"""``neardup demo``: make a corpus with known duplicates, find them every way, score each way."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

import neardup
from neardup import synth
from neardup.evaluate import evaluate


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    """Registers ``neardup demo``."""
    parser = subparsers.add_parser(
        "demo",
        help="find the known duplicates of a synthetic corpus with every method",
        description="Generates the reference article's synthetic corpus (originals, seven "
        "controlled edits each, unrelated documents), finds its near-duplicates with every "
        "method and scores each against the known pairs.",
    )
    parser.add_argument("--docs", type=int, default=3_100, help="corpus size (default 3100)")
    parser.add_argument("--threshold", type=float, default=0.3, help="Jaccard threshold")
    parser.add_argument("--seed", type=int, default=20260831, help="corpus seed")
    parser.set_defaults(run=run)


def _timed(work: Callable[[], neardup.DuplicateResult]) -> tuple[neardup.DuplicateResult, float]:
    start = time.perf_counter()
    result = work()
    return result, time.perf_counter() - start


def run(args: argparse.Namespace) -> int:
    """Runs the demo and prints one row per method; returns the exit code."""
    if args.docs < 10:
        raise SystemExit("neardup demo: --docs must be at least 10")
    threshold = neardup.stages.check_threshold(args.threshold)
    bases, singles = synth.preset(args.docs)
    start = time.perf_counter()
    corpus = synth.generate(bases=bases, singles=singles, seed=args.seed)
    made = time.perf_counter() - start
    texts = corpus.texts
    megabytes = sum(len(t) for t in texts) / 1e6
    labelled = len(corpus.duplicate_pairs())
    print(
        f"{len(texts):,} synthetic documents ({bases:,} originals x 8 versions + {singles:,} "
        f"unrelated, {megabytes:.1f} MB, made in {made:.1f} s); {labelled:,} labelled pairs."
    )
    print("The duplicates are synthetic: recall describes these seven edits, not your data.\n")
    bands, rows = neardup.lsh_params(threshold, 128)
    methods: list[tuple[str, Callable[[], neardup.DuplicateResult]]] = [
        ("sha256 of raw bytes", lambda: neardup.find_duplicates(texts, method="sha256")),
        (
            "sha256 of normalised text",
            lambda: neardup.find_duplicates(texts, method="sha256-normalized"),
        ),
        (
            f"MinHash 128 + LSH {bands}x{rows}",
            # The article's banding, explicitly (the default would be recall-first).
            lambda: neardup.find_duplicates(
                texts, threshold, method="minhash", bands=bands, rows=rows
            ),
        ),
        (
            "SimHash 64, <= 16 bits",
            lambda: neardup.find_duplicates(
                texts, threshold, method="simhash", max_hamming=16, verify="estimate"
            ),
        ),
    ]
    if len(texts) <= 20_000:
        methods.insert(
            2,
            (
                f"exact Jaccard >= {threshold}",
                lambda: neardup.find_duplicates(texts, threshold, method="exact-jaccard"),
            ),
        )
    print(f"{'method':<30}{'time':>9}  {'precision':>9}  {'recall':>7}  {'flagged':>8}")
    best = None
    for name, work in methods:
        result, seconds = _timed(work)
        score = evaluate(result.pairs, corpus)
        print(
            f"{name:<30}{seconds * 1000:>7.0f} ms  {score.precision:>9.4f}  "
            f"{score.recall:>7.4f}  {score.flagged:>8,}"
        )
        if name.startswith("MinHash"):
            best = result
    assert best is not None
    print(
        f"\nMinHash + LSH: {best.num_clusters:,} clusters; keeps "
        f"{int(np.count_nonzero(best.keep)):,} of {best.n:,} documents, "
        f"removes {best.num_removed:,}."
    )
    order = np.argsort(best.similarity)
    if len(order):
        i, j = best.pairs[order[len(order) // 2]]
        print(
            f"A typical pair: #{i} ({corpus.edit[i]}) and #{j} ({corpus.edit[j]}), "
            f"Jaccard {best.similarity[order[len(order) // 2]]:.3f}:"
        )
        for index in (i, j):
            print(f"  #{index}: {texts[index][:110]!r}...")
    return 0
