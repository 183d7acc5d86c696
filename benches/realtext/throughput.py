"""Text -> MinHash signatures on the real-text corpora of ``corpora.py``, in MB/s per core
(hash version 2, classic, P=128, k=5 words, one thread): through ``neardup.minhash`` and through
the sign pass of ``find_duplicates`` (``_core.sign_texts``, sets not kept). CPU seconds
(``time.process_time``), best of the rounds; each corpus is repeated up to about 20 MB so the
timings are not tiny. Real text is slower than the synthetic corpus of
``benches/sign_throughput.py``: documents that are not all ASCII take the Unicode tokeniser
(their ASCII stretches excepted, see rust/normalize/tokens/mod.rs ``for_each_piece``).

    python benches/realtext/corpora.py --out /tmp/realtext      # once per machine
    PYTHONPATH=$PWD/python python benches/realtext/throughput.py --data /tmp/realtext

Two builds compare by running this alternately with each on PYTHONPATH (compare only runs made
side by side on one machine).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import neardup
from neardup import _core

sys.path.insert(0, str(Path(__file__).parent))
import corpora

#: Bytes of text each corpus is repeated up to.
TARGET_BYTES = 20_000_000


def measure(texts: list[str], rounds: int) -> dict[str, float]:
    """Best CPU seconds of each path over ``rounds`` rounds, the paths interleaved."""
    paths = {
        "minhash": lambda: neardup.minhash(texts, num_perm=128, k=5, threads=1),
        "sign pass": lambda: _core.sign_texts(texts, 5, "word", 2, 128, 0, "classic", 1, False),
    }
    best = dict.fromkeys(paths, float("inf"))
    for _ in range(rounds):
        for name, run in paths.items():
            start = time.process_time()
            run()
            best[name] = min(best[name], time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path("/tmp/realtext"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("corpora", nargs="*", default=list(corpora.SOURCES))
    args = parser.parse_args()
    print(f"{neardup.__file__}")
    print(f"{'corpus':<14}{'MB':>7}{'non-ASCII docs':>16}{'minhash MB/s':>14}{'sign MB/s':>11}")
    for name in args.corpora:
        path = args.data / f"{name}.jsonl"
        if not path.exists():
            print(f"{name:<14} missing: run corpora.py --out {args.data}")
            continue
        docs = corpora.read(path)
        size = sum(len(t.encode()) for t in docs)
        if not size:
            continue
        repeat = max(1, TARGET_BYTES // size)
        texts, mb = docs * repeat, size * repeat / 1e6
        share = sum(not t.isascii() for t in docs) / len(docs)
        best = measure(texts, args.rounds)
        print(
            f"{name:<14}{mb:7.1f}{share:16.0%}"
            f"{mb / best['minhash']:14.1f}{mb / best['sign pass']:11.1f}"
        )


if __name__ == "__main__":
    main()
