"""Ray engine vs the local CLI on N synthetic documents: wall time, peak memory per process,
shuffle bytes. Not a pytest benchmark (it starts Ray and runs minutes); run it by hand:

    RAY_AUTH_MODE=disabled python benches/ray_scale.py 100000 300000 1000000

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


def peak_rss(proc: subprocess.Popen, out: dict[str, int]) -> None:
    import psutil

    root = psutil.Process(proc.pid)
    while proc.poll() is None:
        try:
            procs = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            break
        for p in procs:
            try:
                out[str(p.pid)] = max(out.get(str(p.pid), 0), p.memory_info().rss)
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                pass
        time.sleep(0.1)


def run(engine: str, path: str, out_path: str) -> dict:
    cmd = [sys.executable, "-m", "neardup", "dedup", path, "-o", out_path, "--engine", engine]
    cmd += ["--method", "minhash", "--threshold", "0.5", "--json", "-q"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rss: dict[str, int] = {}
    sampler = threading.Thread(target=peak_rss, args=(proc, rss))
    sampler.start()
    stdout, stderr = proc.communicate()
    sampler.join()
    wall = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"{engine} failed: {stderr[-2000:]}")
    summary = json.loads(stdout.strip().splitlines()[-1])
    top = sorted(rss.items(), key=lambda kv: -kv[1])[:4]
    return {
        "engine": engine,
        "wall_s": round(wall, 2),
        "kept": summary["counts"]["kept"],
        "seconds": summary["seconds"],
        "shuffle_bytes": summary["result"].get("shuffle_bytes"),
        "partitions": summary["result"].get("partitions"),
        "peak_rss_mb_top": [(k, round(v / 2**20)) for k, v in top],
        "processes": len({k.split()[0] for k in rss}),
    }


def main() -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    for n in map(int, sys.argv[1:] or ["100000"]):
        with tempfile.TemporaryDirectory(prefix="neardup-ray-bench-") as tmp:
            path = os.path.join(tmp, "corpus.parquet")
            texts = corpus(n)
            pq.write_table(pa.table({"text": texts}), path, row_group_size=50_000)
            size = os.path.getsize(path)
            del texts
            for engine in ("local", "ray"):
                row = run(engine, path, os.path.join(tmp, f"kept-{engine}.parquet"))
                row.update(n=n, parquet_mb=round(size / 2**20))
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
