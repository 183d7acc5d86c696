"""One set against another: which corpus documents contain (or resemble) which queries.

:func:`find_matches` indexes the small side (``queries``: test items, a blocklist) and streams
the large one (``corpus``: a list, an Arrow column, or any iterable, taken in batches), on the
shingle definition of :func:`neardup.find_duplicates` (``k``, ``unit``, ``hash_version``).
A pair's score is

* ``measure="containment"``: |Q ∩ D| / |Q|, the share of the query's shingles the document
  holds (a test item quoted inside a long training document scores 1);
* ``measure="jaccard"``: |Q ∩ D| / |Q ∪ D|.

The search is exact, not estimated: the queries' shingle hashes form an inverted index in the
Rust core (``rust/matches.rs``), every shingle of a corpus document is looked up in it, and
the hits are counted per query, so every pair whose score reaches ``threshold`` is found and
no other (recall and precision 1 against brute-force set arithmetic on the same shingles).
The cost is linear in the corpus; memory is the index (about 40 bytes per query shingle) plus
one batch, whatever the corpus's size.

>>> r = find_matches(["the quick brown fox jumps"],
...                  ["A story: the quick brown fox jumps over the dog.", "unrelated text"],
...                  threshold=0.9, measure="containment", k=3)
>>> r.pairs.tolist(), r.score.tolist()
([[0, 0]], [1.0])
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sized
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from neardup import _core
from neardup._texts import as_core_texts, count, iter_batches, reindexed
from neardup._validate import MAX_BATCH, check_choice, check_int
from neardup.errors import InvalidArgumentError
from neardup.plan import make_plan

__all__ = ["MEASURES", "MatchResult", "Matcher", "find_matches"]

Measure = Literal["jaccard", "containment"]
MEASURES: tuple[str, ...] = ("jaccard", "containment")

#: Corpus documents per batch when ``corpus`` is an iterable without a length.
BATCH_SIZE = 10_000


def _renamed(error: Exception, name: str, start: int = 0) -> Exception:
    """``error`` with ``texts[i]`` as ``name[start + i]``."""
    error = reindexed(error, start)
    message = str(error)
    if message.startswith("texts["):
        return type(error)(name + message[5:])
    return error


@dataclass
class MatchResult:
    """The pairs :func:`find_matches` found.

    ``pairs`` int64[m, 2]: (query i, corpus document j), sorted; ``score`` float32[m] their
    exact containment or Jaccard; ``queries`` and ``documents`` the number of each seen;
    ``params`` the settings (measure, threshold, shingle definition, hash version) that
    reproduce the result.

    >>> r = MatchResult(np.array([[0, 3], [1, 3]]), np.ones(2, np.float32), 2, 5)
    >>> r.matched().tolist(), r.contaminated().tolist()
    ([3], [False, False, False, True, False])
    """

    pairs: np.ndarray
    score: np.ndarray
    queries: int
    documents: int
    params: dict[str, Any] = field(default_factory=dict)

    def matched(self) -> np.ndarray:
        """The corpus documents that match some query, int64[r], increasing."""
        return np.unique(self.pairs[:, 1]).astype(np.int64)

    def contaminated(self) -> np.ndarray:
        """bool[documents]: True for every corpus document that matches some query."""
        out = np.zeros(self.documents, dtype=bool)
        out[self.pairs[:, 1]] = True
        return out

    def __len__(self) -> int:
        return len(self.pairs)


class Matcher:
    """The queries, indexed once; :meth:`add` matches the next batch of the corpus.

    The options are those of :func:`find_matches`. ``documents`` counts the corpus documents
    added so far, which number the next batch's documents.

    >>> m = Matcher(["a b c d"], threshold=0.5, measure="containment", k=2)
    >>> m.add(["x a b c"])
    (array([[0, 0]]), array([0.6666667], dtype=float32))
    >>> m.add(["a b c d e"])[0].tolist(), m.documents
    ([[0, 1]], 2)
    """

    def __init__(
        self,
        queries: Any,
        threshold: float,
        measure: Measure = "jaccard",
        *,
        k: int = 5,
        unit: str = "word",
        hash_version: int | None = None,
        threads: int = 1,
    ) -> None:
        plan = make_plan(
            method="exact-jaccard",
            threshold=threshold,
            k=k,
            unit=unit,
            hash_version=hash_version,
            threads=threads,
        )
        self.plan = plan
        self.measure = check_choice("measure", measure, MEASURES)
        try:
            core = as_core_texts(queries)
        except (TypeError, ValueError) as error:
            raise _renamed(error, "queries") from None
        if count(core) == 0:
            raise InvalidArgumentError("queries is empty: give at least one query to match")
        try:
            self._index = _core.QueryIndex(core, plan.k, plan.unit, plan.hash_version)
        except (TypeError, ValueError) as error:
            raise _renamed(error, "queries") from None
        self.queries = len(self._index)
        self.documents = 0

    @property
    def params(self) -> dict[str, Any]:
        """The settings that reproduce the matches (and the index's size).

        >>> Matcher(["a b"], 0.5, k=1).params["measure"]
        'jaccard'
        """
        p = self.plan
        return {
            "measure": self.measure,
            "threshold": p.threshold,
            "k": p.k,
            "unit": p.unit,
            "hash_version": p.hash_version,
            "threads": p.threads,
            "search": "exact inverted index of the query shingles",
            "queries": self.queries,
            "query_shingles": int(self._index.sizes().sum()),
            "index_bytes": int(self._index.nbytes),
        }

    def sizes(self) -> np.ndarray:
        """|Q|, the distinct shingles of each query, int64[queries]."""
        return self._index.sizes()

    def add(self, texts: Any) -> tuple[np.ndarray, np.ndarray]:
        """The matches of the next batch: (int64[m, 2] (query, corpus document numbered
        across batches), float32[m] score), by document then query."""
        try:
            core = as_core_texts(texts)
            pairs, score = self._index.matches(
                core, self.measure, self.plan.threshold, self.plan.threads
            )
        except (TypeError, ValueError) as error:
            raise _renamed(error, "corpus", self.documents) from None
        pairs[:, 1] += self.documents
        self.documents += count(core)
        return pairs, score


def _batches(corpus: Any, batch_size: int) -> Iterator[Any]:
    """The corpus in batches: a sized collection converted once, then sliced (a list) or
    whole (Arrow buffers); anything else through :func:`neardup._texts.iter_batches`."""
    if isinstance(corpus, Sized) or not isinstance(corpus, Iterable):
        try:
            core = as_core_texts(corpus)
        except (TypeError, ValueError) as error:
            raise _renamed(error, "corpus") from None
        if isinstance(core, list):
            for start in range(0, len(core), batch_size):
                yield core[start : start + batch_size]
        else:
            yield core
        return
    start = 0
    try:
        for batch in iter_batches(corpus, batch_size):
            yield batch
            start += len(batch)
    except (TypeError, ValueError) as error:
        raise _renamed(error, "corpus") from None


def find_matches(
    queries: Any,
    corpus: Any,
    threshold: float,
    measure: Measure = "jaccard",
    *,
    k: int = 5,
    unit: str = "word",
    hash_version: int | None = None,
    threads: int = 1,
    batch_size: int = BATCH_SIZE,
) -> MatchResult:
    """Every (query, corpus document) pair whose exact score reaches ``threshold``.

    ``queries`` (held in memory) and ``corpus`` (streamed: a list, an Arrow or pandas column,
    or any iterable of str, taken ``batch_size`` documents at a time) take what
    :func:`neardup.find_duplicates` takes. ``measure``: ``"jaccard"`` |Q ∩ D| / |Q ∪ D| or
    ``"containment"`` |Q ∩ D| / |Q|, on the word k-shingles (or char k-grams, ``unit="char"``)
    of hash version ``hash_version``, as :func:`neardup.shingles` makes them. A query with no
    word is an error (nothing can contain an empty set); a query shorter than ``k`` words is
    one shingle, its whole normalised text, so it is contained only in a document that is
    that text: use a ``k`` no longer than the shortest query. ``threads`` splits each batch.

    The result is exact (see the module): recall and precision 1 against brute force.

    >>> r = find_matches(["to be or not to be that is the question"],
    ...                  ["Hamlet: To be, or not to be, that is the question. Whether",
    ...                   "to be or not to be"], threshold=0.8, measure="containment", k=3)
    >>> r.pairs.tolist(), r.score.tolist(), r.params["measure"]
    ([[0, 0]], [1.0], 'containment')
    >>> find_matches([], ["x"], 0.5)
    Traceback (most recent call last):
    ...
    neardup.errors.InvalidArgumentError: queries is empty: give at least one query to match
    """
    matcher = Matcher(
        queries, threshold, measure, k=k, unit=unit, hash_version=hash_version, threads=threads
    )
    batch_size = check_int("batch_size", batch_size, low=1, high=MAX_BATCH)
    pairs: list[np.ndarray] = []
    scores: list[np.ndarray] = []
    for batch in _batches(corpus, batch_size):
        p, s = matcher.add(batch)
        if len(p):
            pairs.append(p)
            scores.append(s)
    if pairs:
        all_pairs, all_scores = np.concatenate(pairs), np.concatenate(scores)
        order = np.lexsort((all_pairs[:, 1], all_pairs[:, 0]))
        all_pairs, all_scores = all_pairs[order], all_scores[order]
    else:
        all_pairs, all_scores = np.zeros((0, 2), np.int64), np.zeros(0, np.float32)
    return MatchResult(
        np.ascontiguousarray(all_pairs),
        np.ascontiguousarray(all_scores),
        matcher.queries,
        matcher.documents,
        matcher.params,
    )
