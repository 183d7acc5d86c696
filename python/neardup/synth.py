"""Synthetic corpus with known near-duplicates (the reference article's design).

The corpus is built so that every labelled duplicate pair is known exactly:

* ``bases`` originals, each followed by seven edited variants (:data:`EDITS`), so one
  *group* is 8 documents and 28 labelled duplicate pairs;
* ``singles`` unrelated documents, each alone in its group;
* every document ends with the same short boilerplate footer (as in the article, this
  is what gives unrelated documents their Jaccard floor of about 0.05);
* optionally (``boilerplate_share > 0``) one identical block of text is put at the top of
  every document, cut to take that share of the document's words (the article's last
  experiment).

Document design (the article's): a vocabulary of 20,000 words of which the first 800 are
"common"; every document draws 40-69 topic words from the other 19,200; a sentence has
8-19 words, each a topic word with probability 0.45 and a common word otherwise; a
paragraph has 4-7 sentences; a document has 3-5 paragraphs plus the footer.

Vocabulary: :func:`vocabulary` builds 20,000 distinct lowercase pseudo-words (``a-z``
only, 4-18 letters, 8.3 on average) from a fixed table of syllables, choosing the
syllables with the SplitMix64 hash of the word's index. It needs no file and no random
generator, so it is the same on every machine and every numpy version.

Reproducibility: the corpus is a pure function of the arguments and the seed, drawn
with ``numpy.random.default_rng(seed)``; the same seed and numpy version give a
byte-identical corpus.

Example:
    >>> from neardup import synth
    >>> c = synth.generate(bases=2, singles=1, seed=1)
    >>> len(c.texts), c.group.tolist()
    (17, [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, -1])
    >>> c.duplicate_pairs().shape
    (56, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from neardup._synth_text import (
    N_COMMON,
    VOCAB_SIZE,
    _Body,
    _edit_one_char,
    _edit_whitespace,
    _paragraphs,
    _ragged_index,
    _render,
    _replace_words,
    _select,
    _starts,
    vocabulary,
)
from neardup.errors import InvalidArgumentError

__all__ = [
    "EDITS",
    "FOOTER",
    "N_COMMON",
    "PRESETS",
    "VOCAB_SIZE",
    "Corpus",
    "generate",
    "preset",
    "vocabulary",
]

#: The seven controlled edits, in the order the variants follow their original.
EDITS: tuple[str, ...] = (
    "whitespace",  # spaces doubled at random (15 %), blank lines tripled, trailing spaces
    "one-char",  # one lowercase letter replaced by a random letter (1 in 26: itself)
    "one-word",  # one word of the body replaced by a random topic-pool word
    "reorder-sentences",  # sentences shuffled inside every body paragraph
    "replace-5pct",  # 5 % of the body words replaced by random topic-pool words
    "append-10pct",  # new same-topic paragraphs adding >= 10 % of the characters
    "append-50pct",  # new same-topic paragraphs adding >= 50 % of the characters
)
#: Edit label of an original document and of an unrelated one.
ORIGINAL = "original"
SINGLE = "single"
#: Pair kind of a labelled pair between two edited variants (neither is the original).
BETWEEN_VARIANTS = "between-variants"

#: The footer every document carries (26 words, ~150 characters).
FOOTER = (
    "Prepared by the records office for internal circulation only. "
    "Please do not forward, quote or republish any part of this material "
    "without written consent from the responsible editor."
)

#: Corpus sizes of the article and of the reproduction: n_docs -> (bases, singles).
PRESETS: dict[int, tuple[int, int]] = {
    3_100: (300, 700),
    10_000: (1_000, 2_000),
    100_000: (10_000, 20_000),
}

_APPEND_SHARE = {"append-10pct": 0.10, "append-50pct": 0.50}
_GROUP = 1 + len(EDITS)


# ----------------------------------------------------------------------------- the corpus


@dataclass
class Corpus:
    """A generated corpus and its labels.

    Attributes:
        texts: the documents. Group ``b`` occupies indices ``8*b .. 8*b+7`` (the original,
            then one variant per :data:`EDITS` entry, in that order); the singles follow.
        group: int64[n]; ``b`` (>= 0) for the documents of group ``b``, and ``-1 - i`` for
            the i-th single, so two documents are labelled duplicates exactly when their
            group labels are equal.
        edit: str[n]; ``"original"``, one of :data:`EDITS`, or ``"single"``.
        seed, bases, singles, boilerplate_share, footer: the arguments.
        block: the full boilerplate text ("" if none); every document starts with a prefix
            of it (see ``boilerplate_share`` in :func:`generate`).

    Example:
        >>> c = generate(bases=1, singles=2, seed=0)
        >>> c.edit[:3].tolist(), c.group[-2:].tolist()
        (['original', 'whitespace', 'one-char'], [-1, -2])
    """

    texts: list[str]
    group: npt.NDArray[np.int64]
    edit: npt.NDArray[np.str_]
    seed: int
    bases: int
    singles: int
    boilerplate_share: float = 0.0
    footer: bool = True
    block: str = ""
    _pairs: npt.NDArray[np.int64] | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.texts)

    def __repr__(self) -> str:
        return (
            f"Corpus(n={len(self.texts)}, bases={self.bases}, singles={self.singles}, "
            f"seed={self.seed}, boilerplate_share={self.boilerplate_share})"
        )

    def duplicate_pairs(self) -> npt.NDArray[np.int64]:
        """All labelled duplicate pairs, int64[m, 2] with i < j, sorted.

        Example:
            >>> generate(bases=1, singles=0, seed=0).duplicate_pairs()[:3].tolist()
            [[0, 1], [0, 2], [0, 3]]
        """
        if self._pairs is None:
            self._pairs = group_pairs(self.group)
        return self._pairs

    def pair_kind(self, pairs: npt.ArrayLike) -> npt.NDArray[np.str_]:
        """Edit type of each labelled pair: the variant's edit for (original, variant),
        ``"between-variants"`` for two variants, ``""`` for a pair that is not labelled.

        Example:
            >>> c = generate(bases=1, singles=1, seed=0)
            >>> c.pair_kind([[0, 2], [1, 2], [0, 8]]).tolist()
            ['one-char', 'between-variants', '']
        """
        p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        return pair_kinds(self.group, self.edit, p)


def group_pairs(group: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """All pairs i < j with ``group[i] == group[j] >= 0``, int64[m, 2] sorted.

    Example:
        >>> group_pairs([0, 1, 0, -1, 0]).tolist()
        [[0, 2], [0, 4], [2, 4]]
    """
    g = np.asarray(group, dtype=np.int64)
    idx = np.flatnonzero(g >= 0)
    order = idx[np.argsort(g[idx], kind="stable")]
    gs = g[order]
    if gs.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    bounds = np.flatnonzero(np.diff(gs)) + 1
    starts = np.concatenate([[0], bounds])
    sizes = np.diff(np.concatenate([starts, [gs.size]]))
    out = []
    for s in np.unique(sizes):
        if s < 2:
            continue
        sel = starts[sizes == s]
        members = order[sel[:, None] + np.arange(s)]  # [groups, s]
        members.sort(axis=1)
        a, b = np.triu_indices(int(s), k=1)
        out.append(np.stack([members[:, a].ravel(), members[:, b].ravel()], axis=1))
    if not out:
        return np.zeros((0, 2), dtype=np.int64)
    pairs = np.concatenate(out)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def pair_kinds(
    group: npt.ArrayLike, edit: npt.ArrayLike, pairs: npt.NDArray[np.int64]
) -> npt.NDArray[np.str_]:
    """Edit type of each pair (see :meth:`Corpus.pair_kind`).

    Example:
        >>> e = ["original", "one-word", "one-char"]
        >>> pair_kinds([0, 0, 0], e, np.array([[0, 1], [1, 2]])).tolist()
        ['one-word', 'between-variants']
    """
    g = np.asarray(group, dtype=np.int64)
    e = np.asarray(edit).astype(str)
    i, j = pairs[:, 0], pairs[:, 1]
    labelled = (g[i] == g[j]) & (g[i] >= 0)
    ei, ej = e[i], e[j]
    width = max(len(BETWEEN_VARIANTS), int(np.char.str_len(e).max()) if e.size else 0)
    out = np.full(pairs.shape[0], "", dtype=f"<U{width}")
    orig_i, orig_j = ei == ORIGINAL, ej == ORIGINAL
    out[labelled & orig_i] = ej[labelled & orig_i]
    out[labelled & orig_j & ~orig_i] = ei[labelled & orig_j & ~orig_i]
    out[labelled & ~orig_i & ~orig_j] = BETWEEN_VARIANTS
    return out


#: The largest synthetic corpus (about 100 GB of text): past it a size is a typo.
MAX_DOCS = 10**9


def preset(n_docs: int) -> tuple[int, int]:
    """(bases, singles) for a corpus of ``n_docs`` documents.

    The article's sizes come from :data:`PRESETS`; any other size uses
    ``bases = n_docs // 10`` and fills the rest with singles.

    Example:
        >>> preset(3_100), preset(100_000), preset(500)
        ((300, 700), (10000, 20000), (50, 100))
    """
    if n_docs in PRESETS:
        return PRESETS[n_docs]
    if n_docs < 1:
        raise InvalidArgumentError(f"n_docs must be >= 1, got {n_docs}")
    if n_docs > MAX_DOCS:
        raise InvalidArgumentError(f"n_docs must be at most {MAX_DOCS:,}, got {n_docs}")
    bases = n_docs // 10
    return bases, n_docs - _GROUP * bases


def generate(
    bases: int = 300,
    singles: int = 700,
    seed: int = 20260831,
    boilerplate_share: float = 0.0,
    *,
    footer: bool = True,
    edits: Sequence[str] = EDITS,
) -> Corpus:
    """Generate the synthetic corpus (see the module docstring for the design).

    Args:
        bases: originals; each gets one variant per entry of ``edits``.
        singles: unrelated documents.
        seed: seed of ``numpy.random.default_rng``; same seed -> identical corpus.
        boilerplate_share: in [0, 1). If > 0, every document starts with a paragraph cut from
            one fixed boilerplate text (the same for every document: a longer document gets a
            longer prefix), its length chosen so that it is this share of the document's words.
        footer: end every document with :data:`FOOTER` (the article does).
        edits: which edits to make (a subset of :data:`EDITS`, kept in :data:`EDITS` order).

    Example:
        >>> c = generate(bases=3, singles=4, seed=7)
        >>> len(c), int((c.edit == "single").sum()), c.duplicate_pairs().shape[0]
        (28, 4, 84)
        >>> generate(bases=3, singles=4, seed=7).texts == c.texts
        True
    """
    if bases < 0 or singles < 0:
        raise InvalidArgumentError("bases and singles must be >= 0")
    if not 0.0 <= boilerplate_share < 1.0:
        raise InvalidArgumentError(f"boilerplate_share must be in [0, 1), got {boilerplate_share}")
    unknown = set(edits) - set(EDITS)
    if unknown:
        raise InvalidArgumentError(f"unknown edits {sorted(unknown)}; known: {list(EDITS)}")
    edit_list = [e for e in EDITS if e in set(edits)]
    rng = np.random.default_rng(seed)
    n0 = bases + singles

    # Topics and bodies of the originals (0..bases-1) and singles (bases..n0-1).
    topic_size = 40 + rng.integers(0, 30, n0)
    topic_start = _starts(topic_size)
    topic_words = rng.integers(N_COMMON, VOCAB_SIZE, int(topic_size.sum()))
    text_npara = 3 + rng.integers(0, 3, n0)
    para_doc = np.repeat(np.arange(n0), text_npara)
    words, sent_len, para_nsent = _paragraphs(rng, para_doc, topic_start, topic_size, topic_words)
    body = _Body(words, sent_len, para_nsent, text_npara)
    tail = "\n\n" + FOOTER if footer else ""
    plain = [t + tail for t in _render(body)]

    group_size = 1 + len(edit_list)
    n = group_size * bases + singles
    texts: list[str] = [""] * n
    edit = np.empty(n, dtype=f"<U{max(len(ORIGINAL), len(SINGLE), *map(len, EDITS))}")
    group = np.empty(n, dtype=np.int64)
    orig_idx = np.arange(bases) * group_size
    for b in range(bases):
        texts[orig_idx[b]] = plain[b]
    edit[orig_idx] = ORIGINAL
    for k in range(group_size):
        group[orig_idx + k] = np.arange(bases)
    texts[group_size * bases :] = plain[bases:]
    edit[group_size * bases :] = SINGLE
    group[group_size * bases :] = -1 - np.arange(singles)

    base_ids = np.arange(bases)
    base_body = _select(body, base_ids)
    bstart = base_body.word_starts()
    bcount = np.diff(bstart)
    for k, name in enumerate(edit_list, start=1):
        slot = orig_idx + k
        edit[slot] = name
        if name == "whitespace":
            for b in range(bases):
                texts[slot[b]] = _edit_whitespace(rng, plain[b])
        elif name == "one-char":
            for b in range(bases):
                texts[slot[b]] = _edit_one_char(rng, plain[b])
        elif name in ("one-word", "replace-5pct"):
            w = base_body.words.copy()
            if name == "one-word":
                # one word away from both ends of the body
                lo = np.minimum(5, bcount // 4)
                pos = bstart[:-1] + lo + (rng.random(bases) * (bcount - 2 * lo)).astype(np.int64)
            else:
                nrep = np.maximum(1, np.rint(0.05 * bcount).astype(np.int64))
                # the nrep positions with the smallest random keys in each body: distinct words
                keys = rng.random(w.size) + np.repeat(np.arange(bases), bcount)
                order = np.argsort(keys, kind="stable")
                rank = np.empty(w.size, dtype=np.int64)
                rank[order] = np.arange(w.size) - np.repeat(bstart[:-1], bcount)
                pos = np.flatnonzero(rank < np.repeat(nrep, bcount))
            _replace_words(rng, w, pos)
            edited = _Body(w, base_body.sent_len, base_body.para_nsent, base_body.text_npara)
            for b, t in enumerate(_render(edited)):
                texts[slot[b]] = t + tail
        elif name == "reorder-sentences":
            nsent = base_body.para_nsent
            para_of_sent = np.repeat(np.arange(nsent.size), nsent)
            order = np.argsort(para_of_sent + rng.random(para_of_sent.size), kind="stable")
            sstart = _starts(base_body.sent_len)
            widx = _ragged_index(sstart[order], base_body.sent_len[order])
            edited = _Body(
                base_body.words[widx], base_body.sent_len[order], nsent, base_body.text_npara
            )
            for b, t in enumerate(_render(edited)):
                texts[slot[b]] = t + tail
        else:  # append-10pct / append-50pct
            share = _APPEND_SHARE[name]
            target = np.array([share * len(plain[b]) for b in range(bases)])
            added = np.zeros(bases)
            pieces: list[list[str]] = [[] for _ in range(bases)]
            need = base_ids[added < target]
            while need.size:
                pw, ps, pn = _paragraphs(rng, need, topic_start, topic_size, topic_words)
                new = _render(_Body(pw, ps, pn, np.ones(need.size, dtype=np.int64)))
                for b, t in zip(need.tolist(), new, strict=True):
                    pieces[b].append(t)
                    added[b] += len(t) + 2
                need = need[added[need] < target[need]]
            for b in range(bases):
                texts[slot[b]] = plain[b] + "\n\n" + "\n\n".join(pieces[b])

    block = ""
    if boilerplate_share > 0 and n > 0:
        words = np.array([len(t.split()) for t in texts], dtype=np.int64)
        want = np.maximum(1, np.rint(boilerplate_share / (1 - boilerplate_share) * words))
        tokens = _boilerplate_block(seed, int(want.max())).split(" ")
        block = " ".join(tokens)
        texts = [_cut(tokens, int(w)) + "\n\n" + t for w, t in zip(want, texts, strict=True)]
    return Corpus(
        texts=texts,
        group=group,
        edit=edit,
        seed=seed,
        bases=bases,
        singles=singles,
        boilerplate_share=boilerplate_share,
        footer=footer,
        block=block,
    )


def _cut(tokens: list[str], n_words: int) -> str:
    """The first ``n_words`` words of the block, ending with a full stop."""
    out = " ".join(tokens[:n_words])
    return out if out.endswith(".") else out + "."


def _boilerplate_block(seed: int, n_words: int) -> str:
    """An identical block of ``n_words`` vocabulary words in sentences of 12 words."""
    rng = np.random.default_rng([seed, 0xB10C])
    words = rng.integers(0, VOCAB_SIZE, n_words)
    sent_len = np.full((n_words + 11) // 12, 12, dtype=np.int64)
    sent_len[-1] = n_words - 12 * (sent_len.size - 1)
    body = _Body(words, sent_len, np.array([sent_len.size]), np.array([1]))
    return _render(body)[0]
