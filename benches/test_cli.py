"""The command line's path (``neardup dedup`` = :func:`neardup.dedup.dedup_files`) beside the
library's, on the benchmark corpus written as JSONL and as Parquet (default options, so the
stage is the one a user runs).

Stage ``cli``: ``neardup`` is ``find_duplicates`` on the texts in memory (the library), the
other rows are the file paths: read, deduplicate, write the kept rows; their note gives the
ratio to the library measured in this run. ``--bench-stream-n=1000000`` (opt-in; default 0,
skipped) adds one streamed run over a JSONL of that many documents, written in bounded
memory by ``benches/cli_corpus.py`` (3.2 GB at 1M), with the peak RSS of the process in its
note.
"""

from __future__ import annotations

import json
import resource

import pytest
from cli_corpus import write_jsonl, write_parquet
from conftest import RESULTS, record_note, run

nd = pytest.importorskip("neardup")
from neardup.dedup import dedup_files  # noqa: E402

STAGE = "cli"


@pytest.fixture(scope="module")
def files(tmp_path_factory, texts):
    where = tmp_path_factory.mktemp("cli")
    jsonl = where / "corpus.jsonl"
    with open(jsonl, "w", encoding="utf-8") as f:
        for i, t in enumerate(texts):
            f.write(json.dumps({"id": i, "text": t}) + "\n")
    paths = {"jsonl": jsonl, "out": where}
    try:
        write_parquet(where / "corpus.parquet", texts)
        paths["parquet"] = where / "corpus.parquet"
    except ImportError:
        pass
    return paths


def _ratio_note(library):
    ours, base = RESULTS.get((STAGE, library)), RESULTS.get((STAGE, "neardup"))
    if ours and base:
        record_note(STAGE, library, f"{ours['best'] / base['best']:.2f}x find_duplicates")


def test_library(benchmark, texts, mbytes, rounds, bench_n):
    run(
        benchmark,
        lambda: nd.find_duplicates(texts),
        stage=STAGE,
        library="neardup",
        rounds=rounds,
        mbytes=mbytes,
        n=bench_n,
    )


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_dedup_files(benchmark, files, mbytes, rounds, bench_n, fmt):
    if fmt not in files:
        pytest.skip("Parquet needs pyarrow")
    out = files["out"] / f"kept.{fmt}"
    library = f"neardup dedup {fmt}"
    run(
        benchmark,
        lambda: dedup_files([str(files[fmt])], str(out)),
        stage=STAGE,
        library=library,
        rounds=rounds,
        mbytes=mbytes,
        n=bench_n,
    )
    _ratio_note(library)


def test_dedup_stream(benchmark, request, tmp_path_factory):
    n = request.config.getoption("--bench-stream-n")
    if not n:
        pytest.skip("opt-in: --bench-stream-n=1000000")
    where = tmp_path_factory.mktemp("stream")
    size = write_jsonl(where / "big.jsonl", n)
    run(
        benchmark,
        lambda: dedup_files([str(where / "big.jsonl")], str(where / "kept.jsonl")),
        stage=f"cli stream {n:,}",
        library="neardup dedup jsonl",
        rounds=1,
        mbytes=size / 1e6,
        n=n,
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    record_note(f"cli stream {n:,}", "neardup dedup jsonl", f"peak RSS {peak:.0f} MiB")
