"""Synthetic corpora written as files for the command-line benchmarks, in bounded memory.

    python benches/cli_corpus.py --docs 1000000 -o /tmp/c1m.jsonl   # ~3.2 GB, 100k at a time

Each chunk of ``chunk`` documents is ``neardup.synth``'s corpus (8 edited variants per
original plus unrelated documents) with its own seed, so chunks share no documents; ids run
across the whole file.
"""

from __future__ import annotations

import argparse
import json
import os

import neardup


def chunk_texts(n_docs: int, seed: int) -> list[str]:
    """About ``n_docs`` synthetic documents (a tenth of them originals with 7 edits each)."""
    bases = max(1, n_docs * 11 // 100)
    corpus = neardup.synth.generate(bases=bases, singles=max(0, n_docs - 8 * bases), seed=seed)
    return list(corpus.texts)[:n_docs]


def write_jsonl(path: str | os.PathLike[str], n_docs: int, chunk: int = 100_000) -> int:
    """Write ``n_docs`` documents as JSONL ``{"id": i, "text": ...}``; returns the bytes written."""
    with open(path, "w", encoding="utf-8") as f:
        done = 0
        while done < n_docs:
            for text in chunk_texts(min(chunk, n_docs - done), seed=done):
                f.write(json.dumps({"id": done, "text": text}) + "\n")
                done += 1
        return f.tell()


def write_parquet(path: str | os.PathLike[str], texts: list[str]) -> None:
    """Write ``texts`` as Parquet columns ``id`` (row number) and ``text``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"id": list(range(len(texts))), "text": texts}), path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--docs", type=int, default=1_000_000)
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    size = write_jsonl(args.output, args.docs)
    print(f"{args.output}: {args.docs:,} documents, {size / 1e9:.2f} GB")


if __name__ == "__main__":
    main()
