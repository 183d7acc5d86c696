"""pytest-benchmark harness: corpus fixtures, peer libraries, and a ratio table.

Run from the repository root:

    pytest benches/                                 # 10,000 documents
    NEARDUP_BENCH_N=100000 pytest benches/          # or --bench-n=100000

Every benchmark goes through :func:`run`, which records (stage, library, best
time) so that the terminal summary can print, per stage, our time against each
peer's, as ratios measured side by side in the same run.  Benchmarks assert
nothing about time: they are not tests.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import neardup
from neardup import synth

# Peers that use rayon must run on one thread (the issue compares single-core speed).
os.environ.setdefault("RAYON_NUM_THREADS", "1")

K = 5
NUM_PERM = 128
THRESHOLD = 0.3
BANDS, ROWS = 42, 3
PRIMARY = "neardup"

# (stage, library) -> {"best": s, "mean": s, "mbytes": MB or None, "note": str}
RESULTS: dict[tuple[str, str], dict] = {}


def pytest_addoption(parser):
    group = parser.getgroup("neardup benches")
    group.addoption(
        "--bench-n",
        type=int,
        default=int(os.environ.get("NEARDUP_BENCH_N", "10000")),
        help="documents in the synthetic corpus (default 10000, env NEARDUP_BENCH_N)",
    )
    group.addoption(
        "--bench-rounds",
        type=int,
        default=int(os.environ.get("NEARDUP_BENCH_ROUNDS", "3")),
        help="rounds per benchmark (slow peers at >= 50k documents run once)",
    )
    group.addoption(
        "--bench-corpus",
        choices=("synth", "article"),
        default=os.environ.get("NEARDUP_BENCH_CORPUS", "synth"),
        help="synth: the project's generator (neardup.synth); article: the reference article's "
        "JavaScript generator's design (benches/article_corpus.py: wNNNN words, one footer)",
    )
    group.addoption(
        "--bench-stream-n",
        type=int,
        default=int(os.environ.get("NEARDUP_BENCH_STREAM_N", "0")),
        help="documents of the opt-in streamed `neardup dedup` run (benches/test_cli.py; "
        "default 0: skipped; 1000000 writes 3.2 GB of JSONL)",
    )


@pytest.fixture(scope="session")
def bench_n(request) -> int:
    return request.config.getoption("--bench-n")


@dataclass
class BenchCorpus:
    """The benchmark corpus: texts and their group labels (equal label = labelled duplicates)."""

    texts: list[str]
    group: np.ndarray

    @property
    def nbytes(self) -> int:
        return sum(len(t.encode()) for t in self.texts)

    def score(self, pairs) -> tuple[float, float]:
        """(recall, precision) of ``pairs`` against the labels (``neardup.evaluate``)."""
        found = np.asarray(list(pairs), dtype=np.int64).reshape(-1, 2)
        result = neardup.evaluate(found, self.group)
        return result.recall, result.precision


@pytest.fixture(scope="session")
def corpus(bench_n, request) -> BenchCorpus:
    """``bench_n`` documents of the article's kind of corpus: ``neardup.synth`` (default) or,
    with ``--bench-corpus article``, the article's own generator's design
    (``benches/article_corpus.py``: short ``wNNNN`` words, every document ending with one
    footer: where shared boilerplate once made LSH buckets grow as n²).

    Both place each group's eight documents next to each other; they are shuffled here with
    a fixed permutation, as an ingest would see them, so that verification touches rows far
    apart in memory instead of neighbours.
    """
    if request.config.getoption("--bench-corpus") == "article":
        import article_corpus

        texts, labels = article_corpus.generate(bases=max(1, bench_n // 10), singles=bench_n // 5)
        group = np.asarray(labels, dtype=np.int64)
    else:
        generated = synth.generate(*synth.preset(bench_n))
        texts, group = list(generated.texts), generated.group
    order = np.random.default_rng(0).permutation(len(texts))
    return BenchCorpus([texts[i] for i in order], group[order])


@pytest.fixture(scope="session")
def texts(corpus) -> list[str]:
    return corpus.texts


@pytest.fixture(scope="session")
def mbytes(corpus) -> float:
    return corpus.nbytes / 1e6


@pytest.fixture(scope="session")
def rounds(request) -> int:
    return max(1, request.config.getoption("--bench-rounds"))


def run(benchmark, fn, *, stage, library, rounds, mbytes=None, slow=False, n=0, note=""):
    """Benchmark ``fn()`` (pedantic: no calibration, ``rounds`` rounds) and record it."""
    r = 1 if (slow and n >= 50_000) else rounds
    benchmark.group = stage
    benchmark.extra_info.update({"stage": stage, "library": library, "n": n})
    if mbytes:
        benchmark.extra_info["mbytes"] = mbytes
    result = benchmark.pedantic(fn, rounds=r, iterations=1, warmup_rounds=0)
    stats = getattr(benchmark, "stats", None)
    if stats is not None and getattr(stats, "stats", None) is not None:
        RESULTS[(stage, library)] = {
            "best": stats.stats.min,
            "mean": stats.stats.mean,
            "mbytes": mbytes,
            "note": note,
        }
    return result


def record_note(stage, library, note):
    if (stage, library) in RESULTS:
        RESULTS[(stage, library)]["note"] = note


# ---- shared helpers for the peers ------------------------------------------------------

_WORD = re.compile(r"[^\W_]+")


def py_shingles(text: str, k: int = K) -> set[str]:
    """5-word shingles made in Python, normalised the way neardup normalises."""
    w = _WORD.findall(text.lower())
    return {" ".join(w[i : i + k]) for i in range(len(w) - k + 1)}


def pairs_from_neighbours(neighbours) -> set[tuple[int, int]]:
    out = set()
    for i, js in enumerate(neighbours):
        for j in js:
            if j != i:
                out.add((i, j) if i < j else (j, i))
    return out


# ---- the ratio table --------------------------------------------------------------------


def format_table(results: dict, n: int) -> list[str]:
    stages = []
    for stage, _ in results:
        if stage not in stages:
            stages.append(stage)
    title = (
        f"neardup vs peers, n={n}, best of rounds, one process "
        "(ratio = peer time / neardup time; > 1 means neardup is faster)"
    )
    lines = [title]
    header = f"{'stage':<22}{'library':<30}{'best s':>10}{'MB/s':>10}{'ratio':>10}  note"
    lines.append(header)
    lines.append("-" * len(header))
    for stage in stages:
        ours = results.get((stage, PRIMARY))
        rows = [(lib, r) for (st, lib), r in results.items() if st == stage]
        rows.sort(key=lambda x: x[1]["best"])
        for lib, r in rows:
            mbs = f"{r['mbytes'] / r['best']:.1f}" if r["mbytes"] else ""
            if ours and lib != PRIMARY and not lib.startswith(PRIMARY):
                ratio = f"{r['best'] / ours['best']:.1f}x"
            else:
                ratio = ""
            lines.append(f"{stage:<22}{lib:<30}{r['best']:>10.3f}{mbs:>10}{ratio:>10}  {r['note']}")
    return lines


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not RESULTS:
        return
    lines = format_table(RESULTS, config.getoption("--bench-n"))
    terminalreporter.write_sep("=", "neardup ratio table")
    for line in lines:
        terminalreporter.write_line(line)
    out = os.environ.get("NEARDUP_BENCH_TABLE")
    if out:
        Path(out).write_text("\n".join(lines) + "\n")
