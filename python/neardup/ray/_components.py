"""Connected components of the duplicate graph: union-find on the driver, or large-star /
small-star (Kiveris et al., 2014) over Ray tasks when the edges are too many for one process.

Both give every document its component's lowest position, so they agree exactly; a test
forces the distributed path with a tiny ``driver_edge_limit``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from neardup import _core
from neardup.ray._steps import NO_PAIRS, _mix, hash_partition, split_by, unique_rows, unique_sorted

#: The driver runs union-find when the graph has at most this many edges (16 bytes each, so
#: 50 million edges is 800 MB there); above it the components are found by Ray tasks.
DRIVER_EDGE_LIMIT = 50_000_000


def roots_on_driver(edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(member, root) int64 arrays for every non-root node of the graph, by union-find.

    Only the nodes in edges are relabelled, so memory follows the edge count, not the corpus.

    >>> roots_on_driver(np.array([[5, 9], [9, 7]]))
    (array([7, 9]), array([5, 5]))
    """
    if len(edges) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    nodes = unique_sorted(edges.reshape(-1))
    local = np.searchsorted(nodes, edges).astype(np.int64)
    labels = _core.clusters(local, len(nodes))
    roots = nodes[labels]  # nodes are sorted, so the lowest local index is the lowest position
    members = roots != nodes
    return nodes[members], roots[members]


def _grouped(key: np.ndarray, value: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unique (key, value) rows sorted by key, and the start of each key's run."""
    if len(key) == 0:
        return key, value, np.zeros(0, np.int64)
    kv = unique_rows(np.stack([key, value], axis=1))
    key, value = kv[:, 0], kv[:, 1]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    return key, value, starts


def large_star(key: np.ndarray, value: np.ndarray) -> np.ndarray:
    """Large-star on one partition of a node's neighbourhoods (both directions present):
    every neighbour larger than the node links to the neighbourhood's minimum."""
    key, value, starts = _grouped(key, value)
    if len(key) == 0:
        return NO_PAIRS
    low = np.minimum(np.minimum.reduceat(value, starts), key[starts])
    m = np.repeat(low, np.diff(np.r_[starts, len(key)]))
    keep = value > key
    return np.stack([value[keep], m[keep]], axis=1)


def small_star(key: np.ndarray, value: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Small-star on one partition (``value < key`` always): the node and its smaller
    neighbours link to the smallest of them. Also returns a fingerprint (count, hash sum) of
    the input edge set, which stops the iteration when a round changes nothing."""
    key, value, starts = _grouped(key, value)
    if len(key) == 0:
        return NO_PAIRS, 0, 0
    with np.errstate(over="ignore"):
        fp = int(np.sum(_mix(_mix(key.astype(np.uint64)) ^ value.astype(np.uint64))))
    low = np.minimum.reduceat(value, starts)
    m = np.repeat(low, np.diff(np.r_[starts, len(key)]))
    out = [np.stack([value, m], axis=1), np.stack([key[starts], low], axis=1)]
    edges = np.concatenate(out)
    return edges[edges[:, 0] != edges[:, 1]], len(key), fp & ((1 << 64) - 1)


def roots_distributed(
    ray: Any, edge_refs: Sequence[Any], parts: int, max_rounds: int = 200
) -> list[Any]:
    """Object refs of (member, root) arrays, one per shuffle partition, by large-star /
    small-star rounds over Ray tasks until a round leaves the edge set unchanged."""

    @ray.remote
    def split_both(edges: np.ndarray, parts: int) -> Any:
        key = np.concatenate([edges[:, 0], edges[:, 1]])
        value = np.concatenate([edges[:, 1], edges[:, 0]])
        return _returns(split_by(hash_partition(key, parts), parts, key, value))

    @ray.remote
    def split_larger(edges: np.ndarray, parts: int) -> Any:
        key = np.maximum(edges[:, 0], edges[:, 1])
        value = np.minimum(edges[:, 0], edges[:, 1])
        return _returns(split_by(hash_partition(key, parts), parts, key, value))

    @ray.remote
    def large(*chunks: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        return large_star(*_joined(chunks))

    @ray.remote(num_returns=3)
    def small(*chunks: tuple[np.ndarray, np.ndarray]) -> Any:
        return small_star(*_joined(chunks))

    def shuffle(task: Any, refs: Sequence[Any]) -> list[list[Any]]:
        return [_as_list(task.options(num_returns=parts).remote(r, parts), parts) for r in refs]

    state = list(edge_refs)
    previous: tuple[int, int] | None = None
    for _ in range(max_rounds):
        spread = shuffle(split_both, state)
        state = [large.remote(*[s[p] for s in spread]) for p in range(parts)]
        spread = shuffle(split_larger, state)
        results = [small.remote(*[s[p] for s in spread]) for p in range(parts)]
        state = [r[0] for r in results]
        counts = ray.get([r[1] for r in results])
        sums = ray.get([r[2] for r in results])
        fingerprint = (sum(counts), sum(sums) & ((1 << 64) - 1))
        if fingerprint == previous:
            break
        previous = fingerprint
    else:  # pragma: no cover - large-star/small-star converges in O(log n) rounds
        raise RuntimeError("connected components did not converge")

    @ray.remote
    def stars(edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # at the fixed point every component is a star around its minimum: (member, root)
        return edges[:, 0].copy(), edges[:, 1].copy()

    return [stars.remote(r) for r in state]


def _returns(groups: list[tuple[np.ndarray, ...]]) -> Any:
    return groups[0] if len(groups) == 1 else groups


def _as_list(refs: Any, n: int) -> list[Any]:
    return list(refs) if n > 1 else [refs]


def _joined(chunks: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    keys = [c[0] for c in chunks if len(c[0])]
    if not keys:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(keys), np.concatenate([c[1] for c in chunks if len(c[0])])
