"""Why each row went, and which rows go together: the ``reason`` column and duplicate groups.

Both are numpy work on what a run already decided (the cluster labels, the kept document of
each cluster, each document's first exact duplicate, its similarity to the kept document):
no Python loop per row, nothing re-signed.
"""

from __future__ import annotations

import html
import operator
from dataclasses import dataclass
from typing import Any

import numpy as np

#: The values of the ``reason`` column, in code order (:func:`reason_codes`).
REASONS = ("kept", "exact", "normalized", "near")
KEPT, EXACT, NORMALIZED, NEAR = range(4)


def reason_codes(
    keep: np.ndarray, representative: np.ndarray, first: np.ndarray, same_bytes: np.ndarray
) -> np.ndarray:
    """int8[n] codes into :data:`REASONS`: ``kept``; ``exact``: byte-identical to its kept
    document; ``normalized``: the same shingle set as its kept document (identical after
    normalisation) but other bytes; ``near``: a near-duplicate of it.

    ``first``: each document's first exact duplicate (identical shingle sets); ``same_bytes``:
    bool[n], meaningful where ``first`` agrees with the kept document's.

    >>> reason_codes(np.array([True, False, False, False]), np.array([0, 0, 0, 0]),
    ...              np.array([0, 0, 0, 3]), np.array([True, True, False, False])).tolist()
    [0, 1, 2, 3]
    """
    same_set = first == first[representative]
    codes = np.full(len(keep), NEAR, dtype=np.int8)
    codes[same_set] = np.where(same_bytes[same_set], EXACT, NORMALIZED)
    codes[keep] = KEPT
    return codes


def reason_names(codes: np.ndarray) -> np.ndarray:
    """The codes as str values (an object array of the four interned strings: 8 bytes a
    row).

    >>> reason_names(np.array([0, 3], dtype=np.int8)).tolist()
    ['kept', 'near']
    """
    return np.asarray(REASONS, dtype=object)[codes]


def same_set_rows(keep: np.ndarray, representative: np.ndarray, first: np.ndarray) -> np.ndarray:
    """The removed rows with their kept document's shingle set (byte identity to check).

    >>> same_set_rows(np.array([True, False, False]), np.array([0, 0, 0]), np.array([0, 0, 2]))
    array([1])
    """
    return np.flatnonzero(~keep & (first == first[representative]))


def same_bytes(texts: Any, rows: np.ndarray, other: np.ndarray) -> np.ndarray:
    """bool[len(rows)]: whether text ``rows[x]`` has the bytes of text ``other[x]``, for core
    texts (a list of str, or Arrow-style (UTF-8 bytes, offsets)); vectorised.

    >>> same_bytes(["ab", "ab", "Ab"], np.array([1, 2]), np.array([0, 0])).tolist()
    [True, False]
    """
    if not len(rows):
        return np.zeros(0, dtype=bool)
    joined = getattr(texts, "joined", None)
    if joined is not None:  # a units run's rows (units.UnitTexts): their units' texts
        return same_bytes(joined, texts.of_row[rows], texts.of_row[other])
    if isinstance(texts, tuple):  # Arrow buffers (Arrow input): compared by Arrow
        import pyarrow as pa
        import pyarrow.compute as pc

        data, offsets = texts
        n = len(offsets) - 1
        array = pa.Array.from_buffers(
            pa.large_binary(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
        )
        equal = pc.equal(array.take(pa.array(rows)), array.take(pa.array(other)))
        return np.asarray(equal.to_numpy(zero_copy_only=False), dtype=bool)
    pick_a, pick_b = operator.itemgetter(*rows.tolist()), operator.itemgetter(*other.tolist())
    a, b = pick_a(texts), pick_b(texts)
    if len(rows) == 1:
        a, b = (a,), (b,)
    return np.fromiter(map(operator.eq, a, b), dtype=bool, count=len(rows))


@dataclass(frozen=True)
class Groups:
    """The duplicate groups of a run: clusters of two or more documents, largest first (ties:
    lowest kept position first).

    Group ``g`` keeps document ``kept[g]``; its ``size[g]`` members (the kept one first, then
    the others by position) are ``members[offsets[g]:offsets[g + 1]]``; ``min_similarity[g]``
    is the lowest similarity of a member to the kept document (NaN where unknown). ``len()``,
    indexing (a dict per group), iteration, :meth:`to_pandas`, :meth:`to_arrow`.
    """

    kept: np.ndarray
    size: np.ndarray
    min_similarity: np.ndarray
    offsets: np.ndarray
    members: np.ndarray
    #: The run's texts (for the HTML previews; None when not held).
    texts: Any = None

    def __len__(self) -> int:
        return len(self.kept)

    def __getitem__(self, g: int) -> dict[str, Any]:
        if not -len(self) <= g < len(self):
            raise IndexError(f"group {g} of {len(self)}")
        g = g % len(self)
        return {
            "kept": int(self.kept[g]),
            "members": self.members[self.offsets[g] : self.offsets[g + 1]],
            "size": int(self.size[g]),
            "min_similarity": float(self.min_similarity[g]),
        }

    def __iter__(self) -> Any:
        return (self[g] for g in range(len(self)))

    def to_arrow(self) -> Any:
        """A pyarrow Table: ``kept``, ``size``, ``min_similarity``, ``members`` (list<int64>).

        >>> import neardup
        >>> neardup.find_duplicates(["a b", "a b", "c"], k=1).groups().to_arrow().num_rows
        1
        """
        import pyarrow as pa

        members = pa.ListArray.from_arrays(
            pa.array(self.offsets.astype(np.int32) if len(self.members) < 2**31 else self.offsets),
            pa.array(self.members),
        )
        return pa.table(
            {
                "kept": self.kept,
                "size": self.size,
                "min_similarity": self.min_similarity,
                "members": members,
            }
        )

    def to_pandas(self) -> Any:
        """A pandas DataFrame, one row per group; ``members`` holds numpy arrays.

        >>> import neardup
        >>> neardup.find_duplicates(["a b", "a b", "c"], k=1).groups().to_pandas()["size"].tolist()
        [2]
        """
        import pandas as pd

        return pd.DataFrame(
            {
                "kept": self.kept,
                "size": self.size,
                "min_similarity": self.min_similarity,
                "members": np.split(self.members, self.offsets[1:-1]) if len(self) else [],
            }
        )

    def __repr__(self) -> str:
        largest = int(self.size[0]) if len(self) else 0
        return f"Groups({len(self)} groups, largest {largest}, {int(self.size.sum())} documents)"

    def _repr_html_(self, limit: int = 10, preview: int = 80, names: Any = None) -> str:
        """The biggest ``limit`` groups with ``preview`` characters of their first five
        members (cut between characters, a mark kept with its base); ``names``: a mapping
        from position to the label shown (default ``#position``)."""
        from neardup.explain import _safe_cut, _text_at

        rows = []
        for g in range(min(limit, len(self))):
            group = self[g]
            previews = []
            for m in group["members"][:5].tolist():
                text = _text_at(self.texts, m) if self.texts is not None else ""
                cut = _safe_cut(text, preview) if len(text) > preview else len(text)
                short = text[:cut] + ("…" if cut < len(text) else "")
                label = f"#{m}" if names is None else str(names[m])
                previews.append(f"<div><b>{html.escape(label)}</b> {html.escape(short)}</div>")
            if group["size"] > 5:
                previews.append(f"<div>… {group['size'] - 5:,} more</div>")
            rows.append(
                f"<tr><td>{g}</td><td>{group['kept']}</td><td>{group['size']:,}</td>"
                f"<td>{group['min_similarity']:.4f}</td><td>{''.join(previews)}</td></tr>"
            )
        more = f"<p>… {len(self) - limit:,} more groups</p>" if len(self) > limit else ""
        return (
            f"<p>{len(self):,} duplicate groups, {int(self.size.sum()):,} documents</p>"
            "<table><tr><th>group</th><th>kept</th><th>size</th><th>lowest similarity</th>"
            f"<th>members</th></tr>{''.join(rows)}</table>{more}"
        )


def duplicate_groups(
    clusters: np.ndarray,
    keep: np.ndarray,
    representative: np.ndarray,
    similarity: np.ndarray,
    texts: Any = None,
) -> Groups:
    """:class:`Groups` from a run's labels (lowest position of each cluster), keep mask, kept
    document per row and similarity to it; numpy sorts, no loop per group.

    >>> g = duplicate_groups(np.array([0, 1, 0, 1, 1]), np.array([1, 1, 0, 0, 0], bool),
    ...                      np.array([0, 1, 0, 1, 1]), np.array([1, 1, .5, .8, .9]))
    >>> g.kept.tolist(), g.size.tolist(), g.min_similarity.tolist(), g.members.tolist()
    ([1, 0], [3, 2], [0.8, 0.5], [1, 3, 4, 0, 2])
    """
    n = len(clusters)
    counts = np.bincount(clusters, minlength=n)
    # a group is a cluster with a removed member (two or more documents; with units of rows,
    # two or more units: a lone unit of several rows is no group)
    grouped = np.zeros(n, dtype=bool)
    grouped[clusters[~np.asarray(keep, dtype=bool)]] = True
    in_group = np.flatnonzero(grouped[clusters])
    labels = np.flatnonzero(grouped)
    if not len(labels):
        empty = np.zeros(0, dtype=np.int64)
        return Groups(empty, empty, np.zeros(0), np.zeros(1, dtype=np.int64), empty, texts)
    # Groups by size descending, then by their kept document.
    kept_of = representative[labels]
    order = np.lexsort((kept_of, -counts[labels]))
    labels, kept_of = labels[order], kept_of[order]
    rank = np.empty(n, dtype=np.int64)
    rank[labels] = np.arange(len(labels))
    member_rank = rank[clusters[in_group]]
    members = in_group[np.lexsort((in_group, keep[in_group] == 0, member_rank))]
    size = counts[labels].astype(np.int64)
    offsets = np.zeros(len(labels) + 1, dtype=np.int64)
    np.cumsum(size, out=offsets[1:])
    sims = np.asarray(similarity, dtype=np.float64)[members]
    lowest = np.minimum.reduceat(np.where(np.isnan(sims), np.inf, sims), offsets[:-1])
    any_nan = np.add.reduceat(np.isnan(sims).astype(np.int64), offsets[:-1]) > 0
    lowest[any_nan] = np.nan
    return Groups(kept_of.astype(np.int64), size, lowest, offsets, members.astype(np.int64), texts)
