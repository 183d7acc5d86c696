"""A small, slow, pure-Python reference implementation of neardup's stages.

Written straight from the documented definitions, to check the Rust core against. Never used
by the package itself.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import unicodedata
from collections import Counter

import xxhash

MASK64 = (1 << 64) - 1


def normalize_v1(text: str) -> str:
    """Version 1: lowercased runs of alphanumeric characters, joined by single spaces."""
    words: list[str] = []
    current: list[str] = []
    for char in text:
        if char.isalnum():
            current.append(char.lower())
        elif current:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    return " ".join(words)


# Blocks of scripts written without spaces (SPACELESS_BLOCKS in rust/normalize/tokens/mod.rs),
# inclusive.
SPACELESS_BLOCKS = [
    (0x0E00, 0x0EFF),
    (0x1000, 0x109F),
    (0x1780, 0x17FF),
    (0x1950, 0x19FF),
    (0x1A20, 0x1AAF),
    (0x2E80, 0x2FDF),
    (0x3000, 0x312F),
    (0x31A0, 0x31BF),
    (0x31F0, 0x31FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xA000, 0xA4CF),
    (0xA9E0, 0xA9FF),
    (0xAA60, 0xAADF),
    (0xF900, 0xFAFF),
    (0x1AFF0, 0x1B16F),
    (0x20000, 0x3FFFF),
]


# Default_Ignorable_Code_Point of Unicode 16.0.0 (DerivedCoreProperties.txt), inclusive; the
# same in Unicode 14 for the characters assigned there (DEFAULT_IGNORABLE in
# rust/normalize/casefold.rs).
DEFAULT_IGNORABLE = [
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
]


def is_default_ignorable(char: str) -> bool:
    return any(lo <= ord(char) <= hi for lo, hi in DEFAULT_IGNORABLE)


@functools.cache
def nfkc_casefold_value(char: str) -> str:
    """The NFKC_Casefold value of one character: remove the default ignorable characters,
    NFKC, full case folding (``str.casefold``), NFKC, repeated until nothing changes."""
    value = char
    while True:
        kept = "".join(c for c in value if not is_default_ignorable(c))
        folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", kept).casefold())
        if folded == value:
            return value
        value = folded


def nfkc_casefold(text: str) -> str:
    """toNFKC_Casefold of the compatibility decomposition: the NFC of the values of the
    characters of the NFKD of ``text`` (every normalisation form of a text has the same NFKD,
    so all four give the same result)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return unicodedata.normalize("NFC", "".join(nfkc_casefold_value(c) for c in decomposed))


def words_and_tokens_v2(text: str) -> list[list[str]]:
    """Version 2: the words of the NFKC_Casefold text, each a list of its tokens.

    A word character is alphanumeric or a combining mark (category M*); a character of a
    spaceless script starts a token of its own (marks after it join it)."""
    words: list[list[str]] = []
    tokens: list[str] = []
    kind = None  # None, "run" or "spaceless": the kind of the token being built
    for char in nfkc_casefold(text):
        mark = unicodedata.category(char).startswith("M")
        if not (mark or char.isalnum()):
            if tokens:
                words.append(tokens)
            tokens, kind = [], None
            continue
        spaceless = not mark and any(lo <= ord(char) <= hi for lo, hi in SPACELESS_BLOCKS)
        if kind is None or (kind == "run" and spaceless) or (kind == "spaceless" and not mark):
            tokens.append("")
            kind = "spaceless" if spaceless else "run"
        tokens[-1] += char
    if tokens:
        words.append(tokens)
    return words


def normalize(text: str, hash_version: int = 2) -> str:
    if hash_version == 1:
        return normalize_v1(text)
    return " ".join("".join(tokens) for tokens in words_and_tokens_v2(text))


def xxh3(data: str) -> int:
    return xxhash.xxh3_64_intdigest(data.encode(), seed=0)


TOKEN_BASE = 0x9E3779B185EBCA87


def combine_tokens(tokens: list[int]) -> int:
    """mix64 of the polynomial sum of t_i * TOKEN_BASE^(n-1-i), mod 2^64."""
    acc = 0
    for t in tokens:
        acc = (acc * TOKEN_BASE + t) & MASK64
    return mix64(acc)


def shingle_hashes(text: str, k: int, unit: str = "word", hash_version: int = 2) -> list[int]:
    """Hash of every shingle, in document order.

    Version 1, and char shingles: XXH3-64 (seed 0) of the shingle's UTF-8. Version 2 word
    shingles: :func:`combine_tokens` of the XXH3-64 hashes of its k tokens."""
    normalized = normalize(text, hash_version)
    if not normalized:
        return []
    if unit == "word" and hash_version == 2:
        tokens = [xxh3(t) for word in words_and_tokens_v2(text) for t in word]
        if len(tokens) < k:
            return [combine_tokens(tokens)]
        return [combine_tokens(tokens[i : i + k]) for i in range(len(tokens) - k + 1)]
    units: list[str] = normalized.split(" ") if unit == "word" else list(normalized)
    joiner = " " if unit == "word" else ""
    if len(units) < k:
        return [xxh3(normalized)]
    return [xxh3(joiner.join(units[i : i + k])) for i in range(len(units) - k + 1)]


def shingle_set(text: str, k: int, unit: str = "word", hash_version: int = 2) -> list[int]:
    return sorted(set(shingle_hashes(text, k, unit, hash_version)))


def splitmix64(seed: int):
    state = seed
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        yield z ^ (z >> 31)


def mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def salt_signature(signature: list[int], key: int) -> list[int]:
    """A MinHash signature salted by its partition key (``within=``): slot p XORed with the low
    32 bits of mix64(key + p * 0x9E3779B97F4A7C15); an empty signature (every slot 2**32 - 1)
    unchanged."""
    if all(v == 0xFFFFFFFF for v in signature):
        return list(signature)
    step = 0x9E3779B97F4A7C15
    return [v ^ (mix64((key + p * step) & MASK64) & 0xFFFFFFFF) for p, v in enumerate(signature)]


def minhash_params(num_perm: int, seed: int) -> list[tuple[int, int]]:
    rng = splitmix64(seed)
    return [(next(rng), next(rng)) for _ in range(num_perm)]


def minhash(shingles: list[int], num_perm: int, seed: int, hash_version: int = 2) -> list[int]:
    """Slot p = min over s of h_p(s), x = s mod 2^32, (a_p, b_p) the SplitMix64(seed) pairs:
    version 1: h_p = ((a_p * x + b_p) mod 2^64) >> 32;
    version 2: h_p = (a'_p * x + b'_p) mod 2^32, a'_p = (a_p mod 2^32) | 1, b'_p = b_p mod 2^32."""
    slots = []
    for a, b in minhash_params(num_perm, seed):
        if hash_version == 1:
            values = [(((a * (s & 0xFFFFFFFF)) + b) & MASK64) >> 32 for s in shingles]
        else:
            a32, b32 = (a & 0xFFFFFFFF) | 1, b & 0xFFFFFFFF
            values = [(a32 * (s & 0xFFFFFFFF) + b32) & 0xFFFFFFFF for s in shingles]
        slots.append(min(values) if values else 0xFFFFFFFF)
    return slots


def simhash(shingles: list[int], bits: int = 64, tf: bool = False) -> list[int]:
    """Bit t is set when the (weighted) votes of the distinct shingles are positive."""
    counts = Counter(shingles)
    words = []
    for word in range(bits // 64):
        votes = [0] * 64
        for s, count in counts.items():
            value = s if word == 0 else mix64(s ^ 0x9E3779B97F4A7C15)
            weight = count if tf else 1
            for t in range(64):
                votes[t] += weight if (value >> t) & 1 else -weight
        words.append(sum(1 << t for t in range(64) if votes[t] > 0))
    return words


def band_keys(signature: list[int], bands: int, rows: int) -> list[int]:
    """XXH3-64 of the little-endian bytes of each band's slots, seeded with the band index."""
    keys = []
    for band in range(bands):
        data = b"".join(v.to_bytes(4, "little") for v in signature[band * rows : (band + 1) * rows])
        keys.append(xxhash.xxh3_64_intdigest(data, seed=band))
    return keys


def candidates(signatures: list[list[int]], bands: int, rows: int) -> list[tuple[int, int]]:
    keys = [band_keys(s, bands, rows) for s in signatures]
    empty = [all(v == 0xFFFFFFFF for v in s) for s in signatures]
    found = set()
    for i in range(len(signatures)):
        for j in range(i + 1, len(signatures)):
            if (
                not empty[i]
                and not empty[j]
                and any(a == b for a, b in zip(keys[i], keys[j], strict=True))
            ):
                found.add((i, j))
    return sorted(found)


def jaccard(a: list[int] | set[int], b: list[int] | set[int]) -> float:
    a, b = set(a), set(b)
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def connected_components(pairs: list[tuple[int, int]], n: int) -> list[int]:
    """Label of each node: the lowest index reachable from it (graph search)."""
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for i, j in pairs:
        neighbours[i].append(j)
        neighbours[j].append(i)
    labels = [-1] * n
    for start in range(n):
        if labels[start] >= 0:
            continue
        component, stack = [start], [start]
        labels[start] = start
        while stack:
            for nxt in neighbours[stack.pop()]:
                if labels[nxt] < 0:
                    labels[nxt] = start
                    component.append(nxt)
                    stack.append(nxt)
    return labels


def cluster_labels(
    first: list[int], selected: list[int], pairs: list[tuple[int, int]]
) -> list[int]:
    """Each document's cluster label, the lowest position joined to it by an exact group
    (``first``) or a near pair (indices into ``selected``)."""
    edges = [(i, f) for i, f in enumerate(first)]
    edges += [(selected[a], selected[b]) for a, b in pairs]
    return connected_components(edges, len(first))


def keep_mask(labels: list[int], measure: list[float] | None) -> tuple[list[bool], list[int]]:
    """(keep, representative): per cluster the largest measure (the label itself without
    one), ties to the lowest position."""
    if measure is None:
        return [label == i for i, label in enumerate(labels)], list(labels)
    best: dict[int, int] = {}
    for i, label in enumerate(labels):
        if label not in best or measure[i] > measure[best[label]]:
            best[label] = i
    rep = [best[label] for label in labels]
    return [r == i for i, r in enumerate(rep)], rep


def reported_pairs(
    first: list[int], pairs: list[tuple[int, int]], sims: list[float], mode: str
) -> list[tuple[int, int, float]]:
    """The pairs (i, j, similarity), i < j, sorted, a run reports: ``"all"`` every pair of
    documents in one exact group (1.0) or in two groups joined by a near pair (its
    similarity); ``"spanning"`` each copy with its first occurrence (1.0), plus the near pairs.
    """
    near = {frozenset(p): s for p, s in zip(pairs, sims, strict=True)}
    if mode == "spanning":
        out = [(f, c, 1.0) for c, f in enumerate(first) if f != c]
        out += [(min(p), max(p), s) for p, s in zip(pairs, sims, strict=True)]
        return sorted(out)
    out = []
    for x, y in itertools.combinations(range(len(first)), 2):
        if first[x] == first[y]:
            out.append((x, y, 1.0))
        elif frozenset((first[x], first[y])) in near:
            out.append((x, y, near[frozenset((first[x], first[y]))]))
    return out


def sha256_groups(texts: list[str], normalized: bool = False, hash_version: int = 2) -> list[int]:
    first: dict[bytes, int] = {}
    labels = []
    for i, text in enumerate(texts):
        data = (normalize(text, hash_version) if normalized else text).encode()
        labels.append(first.setdefault(hashlib.sha256(data).digest(), i))
    return labels


def _traced_v1(text: str) -> list[tuple[str, int, int, bool]]:
    """Version 1's normalised characters as (char, source start, source end, starts a token)."""
    out: list[tuple[str, int, int, bool]] = []
    open_word, gap = False, 0
    for at, char in enumerate(text):
        if char.isalnum():
            for n, lower in enumerate(char.lower()):
                first = n == 0 and not open_word
                if first and out:
                    out.append((" ", gap, at, False))
                out.append((lower, at, at + 1, first))
            open_word = True
        elif open_word:
            open_word, gap = False, at
    return out


def _pieces_v2(text: str) -> list[tuple[int, int]]:
    """``text`` cut wherever NFKC_Casefold maps piece by piece (the fold of the whole is the
    fold of the part before the cut followed by that of the part after), as ranges."""
    full = nfkc_casefold(text)
    cuts = [0]
    for p in range(1, len(text)):
        if nfkc_casefold(text[cuts[-1] : p]) + nfkc_casefold(text[p:]) == nfkc_casefold(
            text[cuts[-1] :]
        ):
            cuts.append(p)
    cuts.append(len(text))
    pieces = list(itertools.pairwise(cuts))
    assert "".join(nfkc_casefold(text[a:b]) for a, b in pieces) == full
    return pieces


def _traced_v2(text: str) -> list[tuple[str, int, int, bool]]:
    """Version 2's normalised characters as (char, source start, source end, starts a token):
    each character of a piece's fold comes from the whole piece."""
    out: list[tuple[str, int, int, bool]] = []
    kind, gap = None, 0
    for a, b in _pieces_v2(text):
        for char in nfkc_casefold(text[a:b]):
            mark = unicodedata.category(char).startswith("M")
            if not (mark or char.isalnum()):
                if kind is not None:
                    gap = out[-1][2]
                kind = None
                continue
            spaceless = not mark and any(lo <= ord(char) <= hi for lo, hi in SPACELESS_BLOCKS)
            new = (
                kind is None or (kind == "run" and spaceless) or (kind == "spaceless" and not mark)
            )
            if kind is None and out:
                out.append((" ", gap, a, False))
            if new:
                kind = "spaceless" if spaceless else "run"
            out.append((char, a, b, new))
    return out


def shingle_offsets(
    text: str, k: int, unit: str = "word", hash_version: int = 2
) -> list[tuple[int, int, int]]:
    """(hash, start, end) of every shingle: the range of source characters (code points) that
    produced its tokens (word) or characters (char; a joining space counts only alone)."""
    traced = _traced_v1(text) if hash_version == 1 else _traced_v2(text)
    assert "".join(c for c, *_ in traced) == normalize(text, hash_version)
    hashes = shingle_hashes(text, k, unit, hash_version)
    if not traced:
        return []
    if unit == "word":
        starts = [i for i, t in enumerate(traced) if t[3]]
        ends = [s - 1 for s in starts[1:]] + [len(traced) - 1]
        ends = [e - 1 if traced[e][0] == " " else e for e in ends]
        if len(starts) < k:
            ranges = [(traced[0][1], traced[-1][2])]
        else:
            ranges = [
                (traced[starts[i]][1], traced[ends[i + k - 1]][2])
                for i in range(len(starts) - k + 1)
            ]
    else:
        windows = (
            [(0, len(traced) - 1)]
            if len(traced) < k
            else [(s, s + k - 1) for s in range(len(traced) - k + 1)]
        )
        ranges = []
        for first, last in windows:
            if first != last:
                first += traced[first][0] == " "
                last -= traced[last][0] == " "
            ranges.append((traced[first][1], traced[last][2]))
    assert len(ranges) == len(hashes)
    return [(h, s, e) for h, (s, e) in zip(hashes, ranges, strict=True)]


def frequent_shingles(sets: list[list[int]], max_df: float) -> list[int]:
    """The shingles in more than floor(max_df * n + 1e-9) of the n sets, sorted."""
    limit = int(max_df * len(sets) + 1e-9)
    df = Counter(h for s in sets for h in set(s))
    return sorted(h for h, count in df.items() if count > limit)


def remove_shingles(sets: list[list[int]], drop: list[int]) -> tuple[list[list[int]], list[int]]:
    """Each set without the hashes in ``drop``, and how many it lost."""
    gone = set(drop)
    kept = [[h for h in s if h not in gone] for s in sets]
    return kept, [len(s) - len(k) for s, k in zip(sets, kept, strict=True)]
