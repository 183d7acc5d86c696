"""The text of :mod:`neardup.synth`'s corpus: its vocabulary of pseudo-words (SplitMix64 hashes
of a word's index choose its syllables), the structure of a document (topic words, sentences,
paragraphs, rendered from a byte table of words and separators) and the article's edits of a
variant. :mod:`neardup.synth` draws the corpus from these and labels it.

>>> len(vocabulary()), VOCAB_SIZE, N_COMMON
(20000, 20000, 800)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from neardup import _core

#: Words in the vocabulary; the first :data:`N_COMMON` are "common".
VOCAB_SIZE = 20_000
N_COMMON = 800


# ----------------------------------------------------------------------------- vocabulary

_ONSETS = (
    "b c d f g h j k l m n p r s t v w z br cr dr fr gr pr tr bl cl fl gl pl "
    "sl st sp sk sh ch th qu"
).split()
_VOWELS = "a e i o u a e i o ai ea ou io y".split()
_CODAS = ("", "", "", "", "", "", "n", "r", "s", "l", "m", "t", "nd", "st", "rk", "ng")


def _splitmix64(x: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """SplitMix64's output for states ``x``: the crate's mix64 of ``x`` plus the golden gamma."""
    return _core.mix64(x + np.uint64(0x9E3779B97F4A7C15))


@functools.cache
def vocabulary() -> tuple[str, ...]:
    """The 20,000 pseudo-words of the corpus; the first :data:`N_COMMON` are "common".

    Word ``i`` has 2 or 3 syllables (onset + vowel + optional coda) chosen by
    SplitMix64 hashes of ``i``; candidates that repeat an earlier word are skipped.

    Example:
        >>> v = vocabulary()
        >>> len(v), len(set(v)), all(w.isalpha() and w.islower() for w in v)
        (20000, 20000, True)
    """
    with np.errstate(over="ignore"):
        words: dict[str, None] = {}
        start = 0
        while len(words) < VOCAB_SIZE:
            idx = np.arange(start, start + 2 * VOCAB_SIZE, dtype=np.uint64)
            h = [_splitmix64(idx * np.uint64(8) + np.uint64(k)) for k in range(7)]
            n_syll = 2 + (h[0] % np.uint64(4) == 0)  # 2 syllables, 3 one time in four
            parts = []
            for s in range(3):
                hs = h[1 + 2 * s]
                ht = h[2 + 2 * s]
                onset = (hs % np.uint64(len(_ONSETS))).astype(np.int64)
                vowel = ((hs >> np.uint64(20)) % np.uint64(len(_VOWELS))).astype(np.int64)
                coda = (ht % np.uint64(len(_CODAS))).astype(np.int64)
                parts.append((onset, vowel, coda))
            for i in range(idx.size):
                w = "".join(
                    _ONSETS[o[i]] + _VOWELS[v[i]] + _CODAS[c[i]]
                    for o, v, c in parts[: int(n_syll[i])]
                )
                if w not in words:
                    words[w] = None
                    if len(words) == VOCAB_SIZE:
                        break
            start += 2 * VOCAB_SIZE
    return tuple(words)


@functools.cache
def _token_table() -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Byte table of ``word + separator`` for every word and the 4 separators.

    Token ``4 * w + s`` is word ``w`` followed by ``" "``, ``". "``, ``".\\n\\n"`` or
    ``"."`` for ``s`` = 0 (inside a sentence), 1 (end of sentence), 2 (end of paragraph),
    3 (end of text).
    """
    seps = (" ", ". ", ".\n\n", ".")
    toks = "".join(w + s for w in vocabulary() for s in seps).encode("ascii")
    lens = np.array([len(w) + len(s) for w in vocabulary() for s in seps], dtype=np.int64)
    offs = np.zeros(lens.size + 1, dtype=np.int64)
    np.cumsum(lens, out=offs[1:])
    return np.frombuffer(toks, dtype=np.uint8), offs, lens


# ----------------------------------------------------------------------------- text structure


@dataclass
class _Body:
    """Ragged structure of several texts: words -> sentences -> paragraphs -> texts."""

    words: npt.NDArray[np.int64]  # vocabulary ids, flat
    sent_len: npt.NDArray[np.int64]  # words per sentence
    para_nsent: npt.NDArray[np.int64]  # sentences per paragraph
    text_npara: npt.NDArray[np.int64]  # paragraphs per text

    def word_counts(self) -> npt.NDArray[np.int64]:
        """Words of each text."""
        sent_of_para = _starts(self.para_nsent)
        words_per_para = (
            np.add.reduceat(self.sent_len, sent_of_para)
            if self.para_nsent.size
            else (np.zeros(0, np.int64))
        )
        para_start = _starts(self.text_npara)
        out = np.zeros(self.text_npara.size, dtype=np.int64)
        nz = self.text_npara > 0
        out[nz] = np.add.reduceat(words_per_para, para_start[nz])
        return out

    def word_starts(self) -> npt.NDArray[np.int64]:
        """Index of the first word of each text (size n + 1)."""
        return np.concatenate([[0], np.cumsum(self.word_counts())])


def _starts(counts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Start offsets of consecutive runs with the given lengths."""
    out = np.zeros(counts.size, dtype=np.int64)
    if counts.size > 1:
        np.cumsum(counts[:-1], out=out[1:])
    return out


def _paragraphs(
    rng: np.random.Generator,
    para_doc: npt.NDArray[np.int64],
    topic_start: npt.NDArray[np.int64],
    topic_size: npt.NDArray[np.int64],
    topic_words: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Draw paragraphs; ``para_doc[p]`` is the document whose topic paragraph p uses.

    Returns (words, sent_len, para_nsent).
    """
    para_nsent = 4 + rng.integers(0, 4, para_doc.size)
    sent_doc = np.repeat(para_doc, para_nsent)
    sent_len = 8 + rng.integers(0, 12, sent_doc.size)
    word_doc = np.repeat(sent_doc, sent_len)
    is_topic = rng.random(word_doc.size) < 0.45
    common = rng.integers(0, N_COMMON, word_doc.size)
    pick = (rng.random(word_doc.size) * topic_size[word_doc]).astype(np.int64)
    topical = topic_words[topic_start[word_doc] + pick]
    words = np.where(is_topic, topical, common)
    return words, sent_len, para_nsent


def _render(body: _Body, last_sep: int = 3) -> list[str]:
    """Render texts: words joined by spaces, sentences end with '.', paragraphs by a blank line."""
    n = body.text_npara.size
    if body.words.size == 0:
        return [""] * n
    sep = np.zeros(body.words.size, dtype=np.int64)
    sent_end = np.cumsum(body.sent_len) - 1
    sep[sent_end] = 1
    para_end_sent = np.cumsum(body.para_nsent) - 1
    sep[sent_end[para_end_sent]] = 2
    wstart = body.word_starts()
    ends = wstart[1:][body.text_npara > 0] - 1
    sep[ends] = last_sep
    tok = body.words * 4 + sep
    table, offs, lens = _token_table()
    out: list[str] = []
    chunk = 4096
    for a in range(0, n, chunk):
        b = min(n, a + chunk)
        t = tok[wstart[a] : wstart[b]]
        tl = lens[t]
        ostart = np.zeros(t.size, dtype=np.int64)
        np.cumsum(tl[:-1], out=ostart[1:])
        src = np.repeat(offs[t] - ostart, tl) + np.arange(int(tl.sum()), dtype=np.int64)
        buf = table[src].tobytes()
        # byte offset of each text in buf
        doc_bytes = np.zeros(b - a + 1, dtype=np.int64)
        cum = np.concatenate([[0], np.cumsum(tl)])
        doc_bytes[:] = cum[wstart[a : b + 1] - wstart[a]]
        out.extend(buf[doc_bytes[i] : doc_bytes[i + 1]].decode("ascii") for i in range(b - a))
    return out


def _select(body: _Body, texts: npt.NDArray[np.int64]) -> _Body:
    """Sub-structure of the given texts (in the given order)."""
    pstart = _starts(body.text_npara)
    sstart = _starts(body.para_nsent)
    wstart_s = _starts(body.sent_len)
    paras = _ragged_index(pstart[texts], body.text_npara[texts])
    sents = _ragged_index(sstart[paras], body.para_nsent[paras])
    words = _ragged_index(wstart_s[sents], body.sent_len[sents])
    return _Body(
        words=body.words[words],
        sent_len=body.sent_len[sents],
        para_nsent=body.para_nsent[paras],
        text_npara=body.text_npara[texts],
    )


def _ragged_index(
    start: npt.NDArray[np.int64], count: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """Concatenation of ``arange(start[i], start[i] + count[i])`` over i."""
    total = int(count.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    out_start = _starts(count)
    return np.repeat(start - out_start, count) + np.arange(total, dtype=np.int64)


# ----------------------------------------------------------------------------- the edits


def _edit_whitespace(rng: np.random.Generator, text: str) -> str:
    b = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    reps = np.ones(b.size, dtype=np.int64)
    spaces = np.flatnonzero(b == 32)
    reps[spaces[rng.random(spaces.size) < 0.15]] = 2
    nl = (b[:-1] == 10) & (b[1:] == 10)
    reps[:-1][nl] = 2  # "\n\n" -> "\n\n\n"
    return np.repeat(b, reps).tobytes().decode("ascii") + "\n   "


def _edit_one_char(rng: np.random.Generator, text: str) -> str:
    b = np.frombuffer(text.encode("ascii"), dtype=np.uint8).copy()
    lower = np.flatnonzero((b >= 97) & (b <= 122))
    lower = lower[(lower >= 20) & (lower < b.size - 20)]
    pos = lower[rng.integers(0, lower.size)]
    b[pos] = 97 + rng.integers(0, 26)  # may draw the same letter: the article's no-op edit
    return b.tobytes().decode("ascii")


def _replace_words(
    rng: np.random.Generator, words: npt.NDArray[np.int64], positions: npt.NDArray[np.int64]
) -> None:
    """Replace words in place by random topic-pool words that differ from the old ones."""
    new = rng.integers(N_COMMON, VOCAB_SIZE, positions.size)
    same = new == words[positions]
    new[same] = N_COMMON + (new[same] - N_COMMON + 1) % (VOCAB_SIZE - N_COMMON)
    words[positions] = new
