"""A small, slow, pure-Python reference implementation of neardup's stages.

Written straight from the documented definitions, to check the Rust core against. Never used
by the package itself.
"""

from __future__ import annotations

import hashlib
from collections import Counter

import xxhash

MASK64 = (1 << 64) - 1


def normalize(text: str) -> str:
    """Lowercased runs of alphanumeric characters, joined by single spaces."""
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


def shingle_hashes(text: str, k: int, unit: str = "word") -> list[int]:
    """Hash of every shingle, in document order (XXH3-64, seed 0, of the shingle's UTF-8)."""
    normalized = normalize(text)
    if not normalized:
        return []
    units: list[str] = normalized.split(" ") if unit == "word" else list(normalized)
    joiner = " " if unit == "word" else ""
    if len(units) < k:
        return [xxhash.xxh3_64_intdigest(normalized.encode(), seed=0)]
    return [
        xxhash.xxh3_64_intdigest(joiner.join(units[i : i + k]).encode(), seed=0)
        for i in range(len(units) - k + 1)
    ]


def shingle_set(text: str, k: int, unit: str = "word") -> list[int]:
    return sorted(set(shingle_hashes(text, k, unit)))


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


def minhash_params(num_perm: int, seed: int) -> list[tuple[int, int]]:
    rng = splitmix64(seed)
    return [(next(rng), next(rng)) for _ in range(num_perm)]


def minhash(shingles: list[int], num_perm: int, seed: int) -> list[int]:
    """Slot p = min over s of ((a_p * (s mod 2^32) + b_p) mod 2^64) >> 32."""
    slots = []
    for a, b in minhash_params(num_perm, seed):
        values = [(((a * (s & 0xFFFFFFFF)) + b) & MASK64) >> 32 for s in shingles]
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


def sha256_groups(texts: list[str], normalized: bool = False) -> list[int]:
    first: dict[bytes, int] = {}
    labels = []
    for i, text in enumerate(texts):
        data = (normalize(text) if normalized else text).encode()
        labels.append(first.setdefault(hashlib.sha256(data).digest(), i))
    return labels
