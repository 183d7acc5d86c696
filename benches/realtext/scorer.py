"""Exact-Jaccard truth by set computation over shingle strings, in pure Python.

No hashing anywhere: a shingle is the string of its k normalised words (or characters), a
document its set of such strings, and the truth every pair whose |A ∩ B| / |A ∪ B| reaches the
lowest threshold of interest, found by the AllPairs prefix filter (a pair at Jaccard >= t must
share one of the first |A| - ceil(t |A|) + 1 shingles of each set in a global rarest-first
order) and then checked by intersecting the two sets. Independent of neardup's Rust core, so
it can judge it; slow (seconds for thousands of documents), which is fine for a benchmark.

>>> truth = exact_pairs(["a b c d", "a b c e", "x y z w"], k=2, threshold=0.2)
>>> {pair: round(j, 3) for pair, j in truth.items()}
{(0, 1): 0.5}
"""

from __future__ import annotations

import math
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
import reference


def shingle_strings(
    text: str, k: int = 5, unit: str = "word", hash_version: int = 2
) -> frozenset[str]:
    """The document's set of k-shingle strings under a hash version's normalisation and
    tokens (the definitions of tests/reference.py, the project's one pure-Python statement of
    them); fewer than k units make one shingle."""
    normalized = reference.normalize(text, hash_version)
    if not normalized:
        return frozenset()
    if unit == "char":
        units, joiner = list(normalized), ""
    elif hash_version == 2:  # tokens: each character of a spaceless script is one
        units = [token for word in reference.words_and_tokens_v2(text) for token in word]
        joiner = " "
    else:
        units, joiner = normalized.split(" "), " "
    if len(units) < k:
        return frozenset([joiner.join(units)])
    return frozenset(joiner.join(units[i : i + k]) for i in range(len(units) - k + 1))


def exact_pairs(
    texts: list[str], k: int = 5, threshold: float = 0.2, unit: str = "word"
) -> dict[tuple[int, int], float]:
    """Every pair (i < j) with exact Jaccard >= ``threshold``, mapped to its Jaccard."""
    sets = [shingle_strings(text, k, unit) for text in texts]
    frequency: Counter[str] = Counter()
    for shingles in sets:
        frequency.update(shingles)
    rank = {s: r for r, s in enumerate(sorted(frequency, key=lambda s: (frequency[s], s)))}
    ordered = [sorted(rank[s] for s in shingles) for shingles in sets]
    by_size = sorted(range(len(sets)), key=lambda i: (len(sets[i]), i))
    index: dict[int, list[int]] = defaultdict(list)
    found: dict[tuple[int, int], float] = {}
    for i in by_size:
        size = len(sets[i])
        if size == 0:
            continue
        prefix = ordered[i][: size - math.ceil(threshold * size) + 1]
        candidates: set[int] = set()
        for token in prefix:
            candidates.update(index[token])
        for j in candidates:
            # Every indexed j is no larger than i; the size filter drops hopeless pairs.
            if len(sets[j]) < threshold * size:
                continue
            inter = len(sets[i] & sets[j])
            similarity = inter / (size + len(sets[j]) - inter)
            if similarity >= threshold:
                found[(min(i, j), max(i, j))] = similarity
        for token in prefix:
            index[token].append(i)
    return found


def score(
    found: set[tuple[int, int]], truth: dict[tuple[int, int], float], threshold: float
) -> tuple[float, float, int]:
    """(recall, precision, true pairs) of ``found`` against the truth pairs at ``threshold``.

    >>> score({(0, 1), (1, 2)}, {(0, 1): 0.5, (0, 2): 0.25}, 0.3)
    (1.0, 0.5, 1)
    """
    relevant = {pair for pair, similarity in truth.items() if similarity >= threshold}
    hits = len(found & relevant)
    recall = hits / len(relevant) if relevant else 1.0
    precision = hits / len(found) if found else 1.0
    return recall, precision, len(relevant)
