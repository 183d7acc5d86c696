"""The reference article's corpus, by its generator's design, at any size.

The article builds its corpus in JavaScript: a vocabulary of 20,000 short words (``w0`` ...
``w19999`` when the machine has no word list), 800 of them common and the rest drawn into a
per-document topic; 3-5 paragraphs of 4-7 sentences of 8-19 words (45 % topic words); the same
boilerplate footer on every document; each original followed by seven controlled edits
(whitespace, one typo, one word, sentences reordered, 5 % of the words replaced, 10 % and 50 %
appended), then unrelated singles. This module follows that design (its own code, Python's
``random`` with a seed): 250 originals and 500 singles make the article's 2,500 documents;
``scale`` multiplies both (``scale=40``: 100,000 documents, ~200 MB).

It is where shared boilerplate hid a scale defect: the footer's shingles hold the minima of
whole LSH bands for a share of the documents, so one bucket grows with n² (issue 24).

    python benches/article_corpus.py --docs 100000 --runs 3      # candidates, time, recall

>>> texts, group = generate(scale=1, bases=2, singles=3)
>>> len(texts), group[:8] == [0] * 8, group[-3:]
(19, True, [-1, -2, -3])
>>> texts[0].endswith(FOOTER)
True
"""

from __future__ import annotations

import argparse
import random
import re
import time
from collections.abc import Callable

#: The article's footer (26 words), on every document.
FOOTER = (
    "This document is provided by the operations team for internal reference only. "
    "Distribution outside the organisation requires written approval from the document owner."
)
VOCABULARY = [f"w{i}" for i in range(20_000)]
COMMON, TOPIC_POOL = VOCABULARY[:800], VOCABULARY[800:]
EDITS = (
    "whitespace",
    "typo",
    "one-word",
    "reorder-sentences",
    "edit-5pct",
    "append-10pct",
    "append-50pct",
)


class _Writer:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def sentence(self, topic: list[str]) -> str:
        r = self.rng
        words = [
            r.choice(topic) if r.random() < 0.45 else r.choice(COMMON)
            for _ in range(8 + r.randrange(12))
        ]
        return " ".join(words) + "."

    def paragraph(self, topic: list[str]) -> str:
        return " ".join(self.sentence(topic) for _ in range(4 + self.rng.randrange(4)))

    def document(self) -> tuple[str, list[str]]:
        r = self.rng
        topic = [r.choice(TOPIC_POOL) for _ in range(40 + r.randrange(30))]
        paragraphs = [self.paragraph(topic) for _ in range(3 + r.randrange(3))]
        return "\n\n".join([*paragraphs, FOOTER]), topic

    def edit(self, kind: str, text: str, topic: list[str]) -> str:
        r = self.rng
        if kind == "whitespace":
            spaced = "".join("  " if c == " " and r.random() < 0.15 else c for c in text)
            return spaced.replace("\n\n", "\n\n\n") + "\n   "
        if kind == "typo":
            while True:
                at = 20 + r.randrange(len(text) - 40)
                if "a" <= text[at] <= "z":
                    return text[:at] + chr(97 + r.randrange(26)) + text[at + 1 :]
        words = text.split(" ")
        if kind == "one-word":
            words[5 + r.randrange(len(words) - 10)] = r.choice(TOPIC_POOL)
            return " ".join(words)
        if kind == "edit-5pct":
            for _ in range(max(1, round(len(words) * 0.05))):
                words[r.randrange(len(words))] = r.choice(TOPIC_POOL)
            return " ".join(words)
        if kind == "reorder-sentences":
            out = []
            for paragraph in text.split("\n\n"):
                sentences = re.findall(r"[^.]+\.", paragraph)
                if len(sentences) < 2:
                    out.append(paragraph)
                    continue
                r.shuffle(sentences)
                out.append(" ".join(s.strip() for s in sentences))
            return "\n\n".join(out)
        share = 0.10 if kind == "append-10pct" else 0.50
        added: list[str] = []
        while sum(len(a) + 1 for a in added) < len(text) * share:
            added.append(self.paragraph(topic))
        return text + "\n\n" + " ".join(added)


def generate(
    scale: int = 1, seed: int = 20260831, bases: int = 250, singles: int = 500
) -> tuple[list[str], list[int]]:
    """(texts, group): ``bases * scale`` originals each followed by its seven edits (group =
    the original's number), then ``singles * scale`` unrelated documents (group -1, -2, ...)."""
    writer = _Writer(seed)
    texts: list[str] = []
    group: list[int] = []
    for b in range(bases * scale):
        text, topic = writer.document()
        texts.append(text)
        group.append(b)
        for kind in EDITS:
            texts.append(writer.edit(kind, text, topic))
            group.append(b)
    for s in range(singles * scale):
        texts.append(writer.document()[0])
        group.append(-1 - s)
    return texts, group


def unrelated_with_footer(n: int, seed: int, words: int = 150) -> list[str]:
    """``n`` unrelated documents of ``words`` random vocabulary words, each ending with the same
    30-word footer: nothing to find, every pair shares the footer only.

    >>> docs = unrelated_with_footer(3, 0, words=5)
    >>> len(docs), len(docs[0].split())
    (3, 35)
    """
    r = random.Random(seed)
    footer = " ".join(f"f{i}" for i in range(30))
    return [" ".join(r.choices(VOCABULARY, k=words)) + " " + footer for _ in range(n)]


def true_pairs(group: list[int]) -> int:
    """Labelled duplicate pairs: C(8, 2) per original family."""
    families = max(group) + 1 if group else 0
    return families * 28


def _timed(run: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    out = run()
    return time.perf_counter() - start, out


def main() -> None:
    import neardup

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--threshold", type=float, default=0.3)
    args = parser.parse_args()
    scale = max(1, args.docs // 2_500)
    texts, group = generate(scale)
    labelled = true_pairs(group)
    print(f"{len(texts):,} documents, {sum(map(len, texts)) / 1e6:.1f} MB, {labelled:,} labelled")
    settings = {
        "default": {},
        "42x3": {"method": "minhash", "bands": 42, "rows": 3},
        "42x3 whole buckets": {"method": "minhash", "bands": 42, "rows": 3, "bucket_limit": None},
    }
    for name, options in settings.items():
        for _ in range(args.runs):
            seconds, result = _timed(
                lambda o=options: neardup.find_duplicates(texts, args.threshold, **o)  # type: ignore[arg-type]
            )
            p = result.params  # type: ignore[attr-defined]
            found = result.pairs  # type: ignore[attr-defined]
            hits = sum(1 for i, j in found.tolist() if group[i] >= 0 and group[i] == group[j])
            print(
                f"{name:20s} {seconds:6.2f} s  candidates {p['candidates']:>10,}  "
                f"pairs {len(found):>8,}  ratio {p['candidates'] / max(len(found), 1):5.2f}  "
                f"recall {hits / labelled:.4f}  expected {p['expected_recall']:.4f}  "
                f"screened {p.get('screened', 0):,}  splits {p.get('bucket_splits', 0):,}"
            )
    for seed in range(4):
        docs = unrelated_with_footer(args.docs, seed)
        seconds, result = _timed(lambda d=docs: neardup.find_duplicates(d, args.threshold))
        p = result.params  # type: ignore[attr-defined]
        print(
            f"footer corpus seed {seed}: {seconds:.2f} s, candidates {p['candidates']:,} "
            f"({p['candidates'] / args.docs:.3f} per document), screened {p['screened']:,}, "
            f"pairs {len(result.pairs):,}"  # type: ignore[attr-defined]
        )


if __name__ == "__main__":
    main()
