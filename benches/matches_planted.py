"""One set against another, measured: short test items (20-200 words) planted, lightly edited,
into real-text documents of 500-5,000 words; neardup.find_matches (containment) side by side
with datasketch's MinHashLSHEnsemble and SetSimilaritySearch (exact all-pairs containment),
recall and precision of each against brute-force exact containment on the same shingles.

    python benches/matches_planted.py                     # the side-by-side run
    python benches/matches_planted.py --scale 1000000     # 10,000 queries, streamed corpus

Real text: Python's standard library docstrings, /usr/share/common-licenses and the
/usr/share/doc copyright files of this machine, cut into a document pool (70 %) and a query
pool (30 %), so a test item is in a document because it was planted there (or because the
text itself repeats, which brute force counts too). The peers get neardup's shingle hashes as
their sets (their shingling is not timed); neardup is timed from the raw texts. The scale run
generates its documents on the fly (a generator: nothing but one batch is ever held) and
reports the peak RSS of the process.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import json
import random
import resource
import sys
import sysconfig
import time
from pathlib import Path

import numpy as np

import neardup


def real_words(limit: int = 3_000_000) -> list[str]:
    """Words of real English text found on this machine."""
    texts: list[str] = []
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(stdlib.rglob("*.py")):
        if "test" in path.parts or "site-packages" in path.parts:
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, OSError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef):
                doc = ast.get_docstring(node)
                if doc and len(doc.split()) > 20:
                    texts.append(doc)
    for folder in (Path("/usr/share/common-licenses"), Path("/usr/share/doc")):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and (path.name == "copyright" or folder.name.endswith("licenses")):
                try:
                    texts.append(path.read_text(encoding="utf-8", errors="ignore"))
                except OSError:
                    continue
            elif path.is_file() and path.name.endswith("changelog.Debian.gz"):
                try:
                    texts.append(gzip.open(path, "rt", errors="ignore").read())
                except OSError:
                    continue
    # Distinct paragraphs only: the same licence in many copyright files would otherwise
    # make every document hold every licence (brute force would still count it right).
    seen: set[str] = set()
    words: list[str] = []
    for text in texts:
        for para in text.split("\n\n"):
            key = " ".join(para.split())
            if len(key.split()) < 8 or key in seen:
                continue
            seen.add(key)
            words.extend(para.split())
            if len(words) >= limit:
                return words
    return words


def edit(words: list[str], rng: random.Random, vocab: list[str], rate: float) -> list[str]:
    """A light edit: each word replaced, dropped or doubled with probability ``rate``."""
    out: list[str] = []
    for w in words:
        r = rng.random()
        if r < rate / 3:
            out.append(rng.choice(vocab))
        elif r < 2 * rate / 3:
            continue
        elif r < rate:
            out.extend([w, w])
        else:
            out.append(w)
    return out


def make_items(pool: list[str], queries: int, rng: random.Random) -> list[list[str]]:
    """``queries`` passages of 20-200 consecutive words of ``pool``."""
    items = []
    for _ in range(queries):
        n = rng.randint(20, 200)
        at = rng.randrange(len(pool) - n)
        items.append(pool[at : at + n])
    return items


def make_benchmark(words: list[str], queries: int, documents: int, seed: int = 0):
    """(items, docs, planted pairs): half the items planted once or more, lightly edited."""
    rng = random.Random(seed)
    cut = int(len(words) * 0.7)
    doc_pool, query_pool = words[:cut], words[cut:]
    vocab = words[:: max(1, len(words) // 20_000)]
    items = make_items(query_pool, queries, rng)
    docs = []
    for _ in range(documents):
        n = rng.randint(500, 5000)
        at = rng.randrange(len(doc_pool) - n)
        docs.append(doc_pool[at : at + n])
    planted = set()
    for q in rng.sample(range(queries), queries // 2):
        for _ in range(rng.choice([1, 1, 2, 3])):
            d = rng.randrange(documents)
            rate = rng.choice([0.0, 0.0, 0.01, 0.03])
            at = rng.randrange(len(docs[d]))
            docs[d] = docs[d][:at] + edit(items[q], rng, vocab, rate) + docs[d][at:]
            planted.add((q, d))
    return [" ".join(x) for x in items], [" ".join(x) for x in docs], planted


def brute_force(items: list[str], docs: list[str], threshold: float, k: int) -> set:
    """Every (query, doc) with exact containment >= threshold: all pairs, Python sets of the
    shingle hashes."""
    qs = neardup.shingles(items, k=k)
    ds = neardup.shingles(docs, k=k)
    qsets = [set(qs[i].tolist()) for i in range(len(qs))]
    truth = set()
    for j in range(len(ds)):
        d = set(ds[j].tolist())
        for i, q in enumerate(qsets):
            if len(q & d) >= threshold * len(q) - 1e-9:
                truth.add((i, j))
    return truth


def score(found: set, truth: set) -> dict:
    tp = len(found & truth)
    return {
        "found": len(found),
        "recall": tp / len(truth) if truth else 1.0,
        "precision": tp / len(found) if found else 1.0,
    }


def run_neardup(items, docs, threshold, k):
    t = time.perf_counter()
    r = neardup.find_matches(items, iter(docs), threshold, "containment", k=k)
    return time.perf_counter() - t, {tuple(p) for p in r.pairs.tolist()}


def run_datasketch(items, docs, threshold, k, num_perm=128, weights=(0.5, 0.5)):
    from datasketch import MinHash, MinHashLSHEnsemble

    qs, ds = neardup.shingles(items, k=k), neardup.shingles(docs, k=k)
    q_sets = [qs[i].astype(np.uint32).tobytes() for i in range(len(qs))]
    d_sets = [ds[j].astype(np.uint32).tobytes() for j in range(len(ds))]
    t = time.perf_counter()

    def sign(raw: bytes) -> MinHash:
        m = MinHash(num_perm=num_perm, seed=1)
        # datasketch's own hashing of each value: the batch update is its fast path
        m.update_batch([raw[i : i + 4] for i in range(0, len(raw), 4)])
        return m

    lsh = MinHashLSHEnsemble(threshold=threshold, num_perm=num_perm, num_part=16, weights=weights)
    lsh.index((j, sign(raw), len(raw) // 4) for j, raw in enumerate(d_sets))
    found = set()
    for i, raw in enumerate(q_sets):
        for j in lsh.query(sign(raw), len(raw) // 4):
            found.add((i, j))
    return time.perf_counter() - t, found


def recall_weighted(items, docs, threshold, k):
    """The ensemble tuned for recall: false negatives weigh 0.9 in its parameter choice
    (its default (0.5, 0.5) finds almost nothing at containment 0.8 with these sizes)."""
    return run_datasketch(items, docs, threshold, k, weights=(0.1, 0.9))


def run_sss(items, docs, threshold, k):
    from SetSimilaritySearch import SearchIndex

    qs, ds = neardup.shingles(items, k=k), neardup.shingles(docs, k=k)
    q_sets = [qs[i].tolist() for i in range(len(qs))]
    d_sets = [ds[j].tolist() for j in range(len(ds))]
    t = time.perf_counter()
    index = SearchIndex(d_sets, similarity_func_name="containment", similarity_threshold=threshold)
    found = set()
    for i, q in enumerate(q_sets):
        for j, _ in index.query(q):
            found.add((i, j))
    return time.perf_counter() - t, found


def side_by_side(args, words):
    items, docs, planted = make_benchmark(words, args.queries, args.documents, args.seed)
    total_words = sum(len(d.split()) for d in docs)
    truth = brute_force(items, docs, args.threshold, args.k)
    print(
        f"{len(items):,} items (20-200 words) x {len(docs):,} documents (500-5,000 words, "
        f"{total_words:,} words); {len(planted):,} plantings, {len(truth):,} pairs with "
        f"containment >= {args.threshold} (brute force), k={args.k}"
    )
    rows = {}
    for name, fn in (
        ("neardup.find_matches", run_neardup),
        ("SetSimilaritySearch", run_sss),
        ("datasketch ensemble (default)", run_datasketch),
        ("datasketch ensemble (recall)", recall_weighted),
    ):
        seconds, found = fn(items, docs, args.threshold, args.k)
        rows[name] = {"seconds": seconds, **score(found, truth)}
        r = rows[name]
        print(
            f"  {name:32s} {seconds:8.3f} s  recall {r['recall']:.4f}  "
            f"precision {r['precision']:.4f}  ({r['found']:,} pairs)",
            flush=True,
        )
    base = rows["neardup.find_matches"]["seconds"]
    for name in list(rows)[1:]:
        print(f"  neardup is {rows[name]['seconds'] / base:.1f}x faster than {name}")
    return rows


def scale(args, words):
    """10,000 queries against ``args.scale`` generated documents, streamed."""
    rng = random.Random(args.seed + 1)
    cut = int(len(words) * 0.7)
    pool = words[:cut]
    item_words = make_items(words[cut:], args.scale_queries, random.Random(args.seed))
    items = [" ".join(q) for q in item_words]

    def corpus():
        for j in range(args.scale):
            n = rng.randint(500, 5000)
            at = rng.randrange(len(pool) - n)
            doc = pool[at : at + n]
            if j % 100 == 0:  # one document in 100 holds a test item
                q = item_words[rng.randrange(len(item_words))]
                doc = doc[: n // 2] + q + doc[n // 2 :]
            yield " ".join(doc)

    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    for _ in corpus() if args.time_generator else ():
        pass
    gen = time.perf_counter() - t
    rng.seed(args.seed + 1)
    t = time.perf_counter()
    matcher = neardup.Matcher(items, args.threshold, "containment", k=args.k)
    found = 0
    docs = 0
    batch: list[str] = []
    for doc in corpus():
        batch.append(doc)
        if len(batch) == args.batch_size:
            found += len(matcher.add(batch)[0])
            docs += len(batch)
            batch = []
            if docs % args.report_every == 0:
                rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
                print(
                    f"{docs:,} documents, {found:,} matches, {time.perf_counter() - t:.1f} s "
                    f"(cpu {time.process_time():.1f} s), peak RSS {rss:.0f} MB",
                    file=sys.stderr,
                    flush=True,
                )
    if batch:
        found += len(matcher.add(batch)[0])
        docs += len(batch)
    seconds = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = {
        "queries": len(items),
        "documents": docs,
        "matches": found,
        "seconds_total": seconds,
        "cpu_seconds_process": time.process_time(),
        "seconds_generating": gen if args.time_generator else None,
        "index_bytes": matcher.params["index_bytes"],
        "peak_rss_mb_before": rss0 / 1024,
        "peak_rss_mb": rss / 1024,
    }
    print(json.dumps(out, indent=1))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--queries", type=int, default=1000)
    p.add_argument("--documents", type=int, default=2000)
    p.add_argument("--threshold", type=float, default=0.8)
    p.add_argument("--k", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--scale", type=int, default=0, help="documents of the streamed scale run")
    p.add_argument("--scale-queries", type=int, default=10_000)
    p.add_argument("--batch-size", type=int, default=2000)
    p.add_argument("--report-every", type=int, default=50_000, help="progress lines (stderr)")
    p.add_argument("--time-generator", action="store_true", help="also time the generator alone")
    p.add_argument("--json", metavar="FILE")
    args = p.parse_args()
    t = time.perf_counter()
    words = real_words()
    print(f"{len(words):,} words of real text in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    result = scale(args, words) if args.scale else side_by_side(args, words)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
