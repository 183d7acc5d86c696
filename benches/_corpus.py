"""Synthetic benchmark corpus: a fallback for running the peer benches without neardup
installed (the benches use ``neardup.synth`` when it imports), and the labels' scorer.

Follows the reference article's design: a 20,000-word vocabulary of which the first
800 words are "common"; every base document draws a topic of 40-69 words from the
rest; sentences of 8-19 words (45 % topic words); paragraphs of 4-7 sentences;
3-5 paragraphs plus a boilerplate footer.  Every base document gets seven edited
variants (whitespace, typo, one-word, reorder-sentences, edit-5pct, append-10pct,
append-50pct), so a group of 8 contributes 28 labelled pairs.  ``n`` documents are
split as in the issue's 100k corpus (280,000 pairs): ``n // 10`` groups of 8
(80 %) plus ``n - 8 * (n // 10)`` unrelated singles.

The vocabulary is made of generated pseudo-words so the corpus is the same on
every machine (no dependence on /usr/share/dict/words).  Generated corpora are
cached as pickles under ``$NEARDUP_BENCH_CACHE`` (default: ``.benchmarks/corpus``).
"""

from __future__ import annotations

import os
import pickle
import random
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

VOCAB_SIZE = 20_000
COMMON = 800
BOILER = (
    "This document is provided by the operations team for internal reference only. "
    "Distribution outside the organisation requires written approval from the document owner."
)
EDITS = (
    "whitespace",
    "typo",
    "one-word",
    "reorder-sentences",
    "edit-5pct",
    "append-10pct",
    "append-50pct",
)
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_SENT = re.compile(r"[^.]+\.")
_VERSION = 1


@dataclass
class Corpus:
    texts: list[str]
    group: np.ndarray  # int64[n]; >= 0 for members of a duplicate group, -1 - i for singles

    @property
    def n(self) -> int:
        return len(self.texts)

    @property
    def nbytes(self) -> int:
        return sum(len(t.encode()) for t in self.texts)

    def true_pairs(self) -> set[tuple[int, int]]:
        out: dict[int, list[int]] = {}
        for i, g in enumerate(self.group.tolist()):
            if g >= 0:
                out.setdefault(g, []).append(i)
        pairs = set()
        for ids in out.values():
            for a in range(len(ids)):
                for b in range(a + 1, len(ids)):
                    pairs.add((ids[a], ids[b]))
        return pairs

    def score(self, pairs) -> tuple[float, float]:
        """(recall, precision) of ``pairs`` (iterable of (i, j)) against the labels."""
        truth = self.true_pairs()
        found = {(int(min(i, j)), int(max(i, j))) for i, j in pairs}
        tp = len(found & truth)
        recall = tp / len(truth) if truth else 1.0
        precision = tp / len(found) if found else 1.0
        return recall, precision


def _vocabulary(rng: random.Random) -> list[str]:
    seen: set[str] = set()
    vocab: list[str] = []
    while len(vocab) < VOCAB_SIZE:
        w = "".join(rng.choice(_LETTERS) for _ in range(rng.randint(3, 10)))
        if w not in seen:
            seen.add(w)
            vocab.append(w)
    return vocab


class _Gen:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        vocab = _vocabulary(self.rng)
        self.common = vocab[:COMMON]
        self.topic_pool = vocab[COMMON:]

    def sentence(self, topic: list[str]) -> str:
        rnd = self.rng.random
        common, nc, nt = self.common, len(self.common), len(topic)
        n = 8 + int(rnd() * 12)
        words = [
            topic[int(rnd() * nt)] if rnd() < 0.45 else common[int(rnd() * nc)] for _ in range(n)
        ]
        return " ".join(words) + "."

    def para(self, topic: list[str]) -> str:
        return " ".join(self.sentence(topic) for _ in range(4 + int(self.rng.random() * 4)))

    def doc(self) -> tuple[str, list[str]]:
        rnd, pool = self.rng.random, self.topic_pool
        topic = [pool[int(rnd() * len(pool))] for _ in range(40 + int(rnd() * 30))]
        paras = [self.para(topic) for _ in range(3 + int(rnd() * 3))]
        paras.append(BOILER)
        return "\n\n".join(paras), topic

    def edit(self, kind: str, text: str, topic: list[str]) -> str:
        rnd, pool = self.rng.random, self.topic_pool
        if kind == "whitespace":
            parts = text.split(" ")
            out = [parts[0]]
            for p in parts[1:]:
                out.append("  " if rnd() < 0.15 else " ")
                out.append(p)
            return "".join(out).replace("\n\n", "\n\n\n") + "\n   "
        if kind == "typo":
            while True:
                i = 20 + int(rnd() * (len(text) - 40))
                if "a" <= text[i] <= "z":
                    break
            return text[:i] + chr(97 + int(rnd() * 26)) + text[i + 1 :]
        if kind == "one-word":
            w = text.split(" ")
            w[5 + int(rnd() * (len(w) - 10))] = pool[int(rnd() * len(pool))]
            return " ".join(w)
        if kind == "reorder-sentences":
            out = []
            for p in text.split("\n\n"):
                x = _SENT.findall(p)
                if len(x) < 2:
                    out.append(p)
                    continue
                for i in range(len(x) - 1, 0, -1):
                    j = int(rnd() * (i + 1))
                    x[i], x[j] = x[j], x[i]
                out.append(" ".join(y.strip() for y in x))
            return "\n\n".join(out)
        if kind == "edit-5pct":
            w = text.split(" ")
            for _ in range(max(1, round(len(w) * 0.05))):
                w[int(rnd() * len(w))] = pool[int(rnd() * len(pool))]
            return " ".join(w)
        frac = 0.10 if kind == "append-10pct" else 0.50
        add: list[str] = []
        size = 0
        while size < len(text) * frac:
            p = self.para(topic)
            add.append(p)
            size += len(p) + 1
        return text + "\n\n" + " ".join(add)


def generate(n: int, seed: int = 20260831) -> Corpus:
    """``n`` documents: ``n // 10`` groups of 8 near-duplicates, the rest unrelated."""
    g = _Gen(seed)
    bases = n // 10
    singles = n - 8 * bases
    texts: list[str] = []
    group: list[int] = []
    for b in range(bases):
        text, topic = g.doc()
        texts.append(text)
        group.append(b)
        for kind in EDITS:
            texts.append(g.edit(kind, text, topic))
            group.append(b)
    for i in range(singles):
        texts.append(g.doc()[0])
        group.append(-1 - i)
    # Interleave so that duplicate groups are not contiguous (as in a real ingest).
    order = np.random.default_rng(seed).permutation(n)
    return Corpus([texts[i] for i in order], np.asarray(group, dtype=np.int64)[order])


def load(n: int, seed: int = 20260831) -> Corpus:
    """Generate (or load from the cache) the ``n``-document corpus."""
    cache = Path(os.environ.get("NEARDUP_BENCH_CACHE", ".benchmarks/corpus"))
    path = cache / f"corpus-v{_VERSION}-{n}-{seed}.pickle"
    if path.exists():
        with path.open("rb") as f:
            return pickle.load(f)
    corpus = generate(n, seed)
    try:
        cache.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with tmp.open("wb") as f:
            pickle.dump(corpus, f, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(path)
    except OSError:
        pass
    return corpus
