"""Recall and precision of MinHash + LSH on real text, before and after recall-first banding.

For every corpus of ``corpora.py``, threshold T and seed: ``find_duplicates(texts, threshold=T,
method="minhash", seed=seed)`` with the banding it picks itself ("after": recall-first,
:func:`neardup.choose_banding`) and with the classic banding ``lsh_params(T)`` ("before", the
0.1 default) against the exact-Jaccard truth of ``scorer.py``; then the time of the default
against ``verify="estimate"`` (median of interleaved runs, same process). ``method="minhash"``
is forced because ``"auto"`` brute-forces exact Jaccard below 5,000 documents.

    python benches/realtext/corpora.py --out /tmp/realtext          # once per machine
    PYTHONPATH=python python benches/realtext/run.py --data /tmp/realtext [--seeds 4]
"""

from __future__ import annotations

import argparse
import json
import pickle
import statistics
import sys
import time
from pathlib import Path

import neardup

sys.path.insert(0, str(Path(__file__).parent))
import corpora
import scorer

THRESHOLDS = (0.2, 0.3, 0.5, 0.7, 0.8, 0.95)

#: Corpora whose truth and search are also run on character 5-grams (scripts without spaces).
CHAR_CORPORA = ("cjk", "mixed", "scripts")


def truth(data: Path, name: str, texts: list[str], unit: str) -> dict[tuple[int, int], float]:
    """The scorer's pairs at Jaccard >= min(THRESHOLDS), cached beside the corpus (the name
    says the hash version whose normalisation and tokens the truth uses)."""
    cache = data / f"{name}.{unit}.v2.truth.pickle"
    if cache.exists() and cache.stat().st_mtime > (data / f"{name}.jsonl").stat().st_mtime:
        with cache.open("rb") as handle:
            return pickle.load(handle)
    found = scorer.exact_pairs(texts, k=5, threshold=min(THRESHOLDS), unit=unit)
    with cache.open("wb") as handle:
        pickle.dump(found, handle)
    return found


def found_pairs(result: neardup.DuplicateResult) -> set[tuple[int, int]]:
    return {(int(i), int(j)) for i, j in result.pairs.tolist()}


def timed(texts: list[str], **kwargs: object) -> float:
    start = time.process_time()
    neardup.find_duplicates(texts, method="minhash", **kwargs)  # type: ignore[arg-type]
    return time.process_time() - start


def evaluate(
    data: Path, name: str, unit: str, seeds: int, timing: int, rows: list[dict[str, object]]
) -> None:
    texts = corpora.read(data / f"{name}.jsonl")
    pairs = truth(data, name, texts, unit)
    print(f"\n## {name} ({len(texts)} documents, unit={unit}, k=5)")
    print(
        "| T | true pairs | banding before → after (over seeds) | P(T) before → after | "
        "recall before (min–max over seeds) | recall after (min–max) | precision after (min) | "
        "candidates predicted / actual | CPU time exact / estimate |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for threshold in THRESHOLDS:
        classic = neardup.lsh_params(threshold)
        before, after, precision = [], [], []
        params: dict[str, object] = {}
        chosen: set[str] = set()  # the bandings the seeds' signatures led to
        fallbacks = 0  # seeds whose banding is not recall-first (the cost model's budget)
        for seed in range(seeds):
            old = neardup.find_duplicates(
                texts, threshold, method="minhash", seed=seed, unit=unit,
                bands=classic[0], rows=classic[1],
            )  # fmt: skip
            new = neardup.find_duplicates(texts, threshold, method="minhash", seed=seed, unit=unit)
            before.append(scorer.score(found_pairs(old), pairs, threshold)[0])
            recall, prec, relevant = scorer.score(found_pairs(new), pairs, threshold)
            after.append(recall)
            precision.append(prec)
            params = new.params
            chosen.add(f"{params['bands']}×{params['rows']}")
            fallbacks += not str(params["banding_reason"]).startswith("recall-first")
        exact, estimate = [], []
        for _ in range(timing):  # interleaved A/B
            exact.append(timed(texts, threshold=threshold, unit=unit))
            estimate.append(timed(texts, threshold=threshold, unit=unit, verify="estimate"))
        ratio = statistics.median(exact) / statistics.median(estimate)
        rows.append(
            {
                "corpus": name, "unit": unit, "documents": len(texts), "threshold": threshold,
                "true_pairs": relevant, "bands": params["bands"], "rows": params["rows"],
                "expected_recall": params["expected_recall"], "recall_min": min(after),
                "recall_max": max(after), "recall_before_min": min(before),
                "precision_min": min(precision), "time_ratio": ratio,
                "banding_reason": params["banding_reason"], "bandings": sorted(chosen),
                "fallback_seeds": fallbacks,
            }
        )  # fmt: skip
        print(
            f"| {threshold} | {relevant} | {classic[0]}×{classic[1]} → "
            f"{', '.join(sorted(chosen))} | "
            f"{neardup.lsh_probability(threshold, *classic):.3f} → "
            f"{params['expected_recall']:.3f} | "
            f"{statistics.mean(before):.3f} ({min(before):.3f}–{max(before):.3f}) | "
            f"{statistics.mean(after):.3f} ({min(after):.3f}–{max(after):.3f}) | "
            f"{min(precision):.4f} | {params['predicted_candidates']} / {params['candidates']} | "
            f"{ratio:.2f}× |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path("/tmp/realtext"))
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--timing", type=int, default=3, help="interleaved timing runs")
    parser.add_argument("--json", type=Path, help="also write one JSON line per row here")
    parser.add_argument("corpora", nargs="*", default=list(corpora.SOURCES))
    args = parser.parse_args()
    rows: list[dict[str, object]] = []
    for name in args.corpora:
        evaluate(args.data, name, "word", args.seeds, args.timing, rows)
        if name in CHAR_CORPORA:
            evaluate(args.data, name, "char", args.seeds, args.timing, rows)
        if args.json is not None:
            with args.json.open("w", encoding="utf-8") as handle:
                handle.writelines(json.dumps(row) + "\n" for row in rows)


if __name__ == "__main__":
    main()
