"""Normalisation throughput of two builds side by side, in one process: each build's
``_core`` (a path to its ``_core*.so``) runs ``word_counts`` (the normaliser and tokeniser
alone) and ``shingle_sets`` (k=5 words) on every real-text corpus of ``corpora.py``, the builds
interleaved, best CPU time of the rounds, in MB/s of UTF-8; with ``--callgrind`` it instead
runs one ``word_counts`` call of the build given on the corpus, for valgrind to count its
instructions, which do not vary with the load of the machine (the count includes the table
built at the first call: subtract a run with ``--callgrind none``).

    cp python/neardup/_core.abi3.so /tmp/base.so     # before the change, then rebuild
    python benches/realtext/normalise_ab.py --data /tmp/realtext /tmp/base.so \\
        python/neardup/_core.abi3.so
    valgrind --tool=callgrind --collect-atstart=no \\
        --toggle-collect='_core::bindings::__pyfunction_word_counts' \\
        python benches/realtext/normalise_ab.py --callgrind scripts /tmp/base.so
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
import types
from pathlib import Path

CORPORA = ["code", "licences", "descriptions", "cjk", "mixed", "scripts", "variants"]


def load(tag: str, path: str) -> types.ModuleType:
    """The extension module at ``path`` as ``<tag>._core`` (two builds in one process)."""
    sys.modules[tag] = types.ModuleType(tag)
    spec = importlib.util.spec_from_file_location(f"{tag}._core", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def texts_of(data: Path, name: str) -> list[str]:
    with (data / f"{name}.jsonl").open() as lines:
        return [json.loads(line)["text"] for line in lines]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=Path("/tmp/realtext"))
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--mb", type=float, default=4.0, help="each corpus repeated up to this")
    parser.add_argument("--callgrind", metavar="CORPUS", help="one word_counts call, for valgrind")
    parser.add_argument("builds", nargs="+", help="paths of _core*.so files")
    args = parser.parse_args()
    modules = [load(f"build{i}", path) for i, path in enumerate(args.builds)]
    for module in modules:
        module.word_counts(["é"], 2)  # builds the tokeniser's table
    if args.callgrind:
        texts = [] if args.callgrind == "none" else texts_of(args.data, args.callgrind)
        modules[0].word_counts(texts, 2)
        return
    print(
        f"{'corpus':<13}{'MB':>6}"
        + "".join(f"{'norm ' + str(i):>9}{'sh ' + str(i):>8}" for i in range(len(modules)))
    )
    for name in CORPORA:
        texts = texts_of(args.data, name)
        size = sum(len(t.encode()) for t in texts)
        reps = max(1, int(args.mb * 1e6) // max(size, 1))
        texts, mb = texts * reps, size * reps / 1e6
        best = [[float("inf"), float("inf")] for _ in modules]
        for _ in range(args.rounds):
            for i, module in enumerate(modules):
                for j, run in enumerate(
                    (
                        lambda m=module, t=texts: m.word_counts(t, 2),
                        lambda m=module, t=texts: m.shingle_sets(t, 5, "word", 2),
                    )
                ):
                    start = time.process_time()
                    run()
                    best[i][j] = min(best[i][j], time.process_time() - start)
        cells = "".join(f"{mb / b[0]:9.1f}{mb / b[1]:8.1f}" for b in best)
        print(f"{name:<13}{mb:6.1f}{cells}", flush=True)


if __name__ == "__main__":
    main()
