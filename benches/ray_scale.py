"""Ray engine vs the local CLI on N synthetic documents: wall time, peak memory per process,
shuffle bytes. Not a pytest benchmark (it starts Ray and runs minutes); run it by hand:

    RAY_AUTH_MODE=disabled python benches/ray_scale.py 100000 300000 1000000
    RAY_AUTH_MODE=disabled python benches/ray_scale.py --words 300-560 100000 300000 1000000

(``--words 300-560``: documents of ~3 KB, 1,000,000 of them ~3 GB of text.)

Each size: one Parquet file, then ``neardup dedup --engine local`` and ``--engine ray`` (in
that order, each in its own process, timed by this script); peak RSS is sampled every 0.1 s
over the process and all its children (Ray's raylet, object store and workers). Prints one
JSON line per run; both engines must agree on the kept count.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

import numpy as np


def corpus(n: int, seed: int = 0) -> list[str]:
    """n documents of 60-140 words from a 20k-word vocabulary; a tenth are edited copies of
    earlier ones (a word or two changed), so there are clusters to find."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(20_000)])
    lengths = rng.integers(60, 140, n)
    words = rng.integers(0, len(vocab), int(lengths.sum()))
    bounds = np.r_[0, np.cumsum(lengths)]
    docs = [" ".join(vocab[words[a:b]]) for a, b in itertools.pairwise(bounds)]
    copies = rng.choice(n, n // 10, replace=False)
    for c in copies.tolist():
        src = int(rng.integers(0, max(c, 1)))
        toks = docs[src].split()
        toks[int(rng.integers(0, len(toks)))] = str(vocab[rng.integers(0, len(vocab))])
        docs[c] = " ".join(toks)
    return docs


#: Documents generated (and written as one Parquet row group) at a time by :func:`long_corpus`.
CHUNK = 20_000


def long_corpus(n: int, words: tuple[int, int], seed: int = 0) -> Any:
    """Pyarrow tables of ``CHUNK`` documents each, ``n`` in all, built without a Python object
    per word: every word is ``w`` + five digits (7 bytes with its space) from a 20k-word
    vocabulary, ``words`` = (fewest, most) words a document (300-560: ~3 KB); a tenth are
    copies of an earlier document of the chunk with one word in 50 changed."""
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    digits = np.array([list(f"{i:05d}".encode()) for i in range(20_000)], dtype=np.uint8)
    for first in range(0, n, CHUNK):
        m = min(CHUNK, n - first)
        lengths = rng.integers(words[0], words[1] + 1, m)
        ids = rng.integers(0, 20_000, int(lengths.sum()), dtype=np.int64)
        starts = np.r_[0, np.cumsum(lengths)][:-1]
        for c in rng.choice(np.arange(1, m), m // 10, replace=False).tolist():
            src = int(rng.integers(0, c))
            take = min(int(lengths[c]), int(lengths[src]))
            copy = ids[starts[src] : starts[src] + take].copy()
            edits = rng.integers(0, take, max(1, take // 50))
            copy[edits] = rng.integers(0, 20_000, len(edits))
            ids[starts[c] : starts[c] + take] = copy
        cells = np.empty((len(ids), 7), dtype=np.uint8)
        cells[:, 0] = ord("w")
        cells[:, 1:6] = digits[ids]
        cells[:, 6] = ord(" ")
        data = cells.reshape(-1)
        ends = np.cumsum(lengths) * 7
        offsets = np.r_[0, ends].astype(np.int32)
        # drop each document's trailing space: offsets end one byte early, the byte is skipped
        keep = np.ones(len(data), dtype=bool)
        keep[ends - 1] = False
        data = data[keep]
        offsets = (offsets - np.r_[0, np.arange(1, m + 1)]).astype(np.int32)
        array = pa.StringArray.from_buffers(m, pa.py_buffer(offsets), pa.py_buffer(data))
        yield pa.table({"text": array})


def _anonymous_rss(pid: int) -> int:
    """RssAnon of a Linux process in bytes (its private heap: RSS without the shared
    object-store pages a Ray worker maps), 0 where /proc does not say."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def peak_rss(proc: subprocess.Popen, out: dict[str, Any]) -> None:
    """Samples the process tree every 0.1 s: ``out["rss"][pid]`` = (peak RSS, the process's
    title at its peak), ``out["anon"][pid]`` the same for RssAnon, ``out["cpu"][pid]`` = the
    last CPU seconds (user + system) seen."""
    import psutil

    root = psutil.Process(proc.pid)
    rss: dict[int, tuple[int, str]] = out.setdefault("rss", {})
    cpu: dict[int, float] = out.setdefault("cpu", {})
    anon: dict[int, tuple[int, str]] = out.setdefault("anon", {})
    while proc.poll() is None:
        try:
            procs = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            break
        for p in procs:
            try:
                with p.oneshot():
                    now = p.memory_info().rss
                    times = p.cpu_times()
                    title = (p.cmdline() or [p.name()])[0].split("/")[-1][:40]
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            cpu[p.pid] = times.user + times.system
            if now > rss.get(p.pid, (0, ""))[0]:
                rss[p.pid] = (now, title)
            heap = _anonymous_rss(p.pid)
            if heap > anon.get(p.pid, (0, ""))[0]:
                anon[p.pid] = (heap, title)
        time.sleep(0.1)


def run(engine: str, path: str, out_path: str) -> dict:
    cmd = [sys.executable, "-m", "neardup", "dedup", path, "-o", out_path, "--engine", engine]
    cmd += ["--method", "minhash", "--threshold", "0.5", "--json", "-q"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen: dict[str, Any] = {}
    sampler = threading.Thread(target=peak_rss, args=(proc, seen))
    sampler.start()
    stdout, stderr = proc.communicate()
    sampler.join()
    wall = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"{engine} failed: {stderr[-2000:]}")
    summary = json.loads(stdout.strip().splitlines()[-1])
    top = sorted(seen["rss"].values(), reverse=True)[:4]
    heaps = sorted(seen["anon"].values(), reverse=True)[:4]
    return {
        "engine": engine,
        "wall_s": round(wall, 2),
        "kept": summary["counts"]["kept"],
        "seconds": summary["seconds"],
        "shuffle_bytes": summary["result"].get("shuffle_bytes"),
        "partitions": summary["result"].get("partitions"),
        "peak_rss_mb_top": [(title, round(v / 2**20)) for v, title in top],
        "peak_anon_mb_top": [(title, round(v / 2**20)) for v, title in heaps],
        "cpu_s": round(sum(seen["cpu"].values()), 1),
        "processes": len(seen["rss"]),
    }


def _write(path: str, n: int, words: str | None) -> int:
    """Writes the corpus as one Parquet file; returns the bytes of text in it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if words is None:
        table = pa.table({"text": corpus(n)})
        pq.write_table(table, path, row_group_size=50_000)
        return int(table.column("text").combine_chunks().buffers()[2].size)
    low, high = (int(w) for w in words.split("-"))
    writer, text = None, 0
    for table in long_corpus(n, (low, high)):
        writer = writer or pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
        text += int(table.column("text").chunk(0).buffers()[2].size)
    assert writer is not None
    writer.close()
    return text


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[100_000])
    parser.add_argument(
        "--words", help="words a document, FEWEST-MOST (300-560: ~3 KB); default 60-140 words"
    )
    parser.add_argument("--dir", default=None, help="where the corpus is written (a temp dir)")
    args = parser.parse_args()
    for n in args.sizes:
        with tempfile.TemporaryDirectory(prefix="neardup-ray-bench-", dir=args.dir) as tmp:
            path = os.path.join(tmp, "corpus.parquet")
            t0 = time.perf_counter()
            text = _write(path, n, args.words)
            size = os.path.getsize(path)
            generated = round(time.perf_counter() - t0, 1)
            for engine in ("local", "ray"):
                row = run(engine, path, os.path.join(tmp, f"kept-{engine}.parquet"))
                row.update(n=n, text_mb=round(text / 2**20), parquet_mb=round(size / 2**20))
                row["generate_s"] = generated
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
