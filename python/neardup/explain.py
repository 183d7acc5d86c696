"""Why two documents match: exact Jaccard, containment and the shared text, highlighted.

:func:`explain` (any two texts, any settings) and :meth:`neardup.DuplicateResult.explain`
(two documents of a run, with the run's settings) return an :class:`Explanation`. Its spans
come from the core's tokeniser (``_core.shingle_offsets``): every shingle's hash with the
range of characters of the *original* text that produced it, so they are right for CJK,
combining marks, NFC/NFD and case-folded text alike.
"""

from __future__ import annotations

import html
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from neardup import _core
from neardup.errors import InputError, InputTypeError
from neardup.plan import make_plan

#: Texts longer than this many characters are shown around their shared spans only.
ELIDE_OVER = 1200
#: Characters of context kept on each side of a span when a text is elided.
CONTEXT = 120


@dataclass(frozen=True)
class Explanation:
    """Why ``a`` and ``b`` match, on one shingle definition (``settings``).

    ``jaccard``: shared / union of the shingle sets (exact); ``containment``: (shared / |A|,
    shared / |B|), how much of a is in b and of b in a; ``shingles``: (|A|, |B|) distinct
    shingles; ``shared``; ``estimate``: the signatures' similarity (MinHash share of equal
    slots, SimHash 1 - distance/bits) when the run signed, else None; ``spans``: for each text
    an int64[r, 2] array of character ranges ``(start, end)`` (code points, end exclusive) of
    the original text covered by shared shingles, merged into runs (runs apart by spaces or
    punctuation only are one).
    """

    a: str
    b: str
    jaccard: float
    containment: tuple[float, float]
    shingles: tuple[int, int]
    shared: int
    spans: tuple[np.ndarray, np.ndarray]
    estimate: float | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    #: Input positions of the two documents when they come from a run.
    rows: tuple[int, int] | None = None

    def shared_text(self, which: int = 0) -> list[str]:
        """The shared runs of text ``which`` (0 for a, 1 for b) as strings.

        >>> explain("the cat sat on the mat", "a cat sat on a mat", k=2).shared_text(1)
        ['cat sat on']
        """
        text = self.b if which else self.a
        return [text[s:e] for s, e in self.spans[which].tolist()]

    def _figures(self) -> list[tuple[str, str]]:
        rows = [
            ("Jaccard", f"{self.jaccard:.4f}"),
            ("a in b", f"{self.containment[0]:.4f}"),
            ("b in a", f"{self.containment[1]:.4f}"),
            ("shingles", f"{self.shingles[0]:,} / {self.shingles[1]:,} ({self.shared:,} shared)"),
        ]
        if self.estimate is not None:
            rows.append(("signature estimate", f"{self.estimate:.4f}"))
        s = self.settings
        rows.append(
            (
                "shingles of",
                f"k={s.get('k')} {s.get('unit')}s, hash version {s.get('hash_version')}",
            )
        )
        return rows

    def __str__(self) -> str:
        names = ("a", "b") if self.rows is None else tuple(f"#{r}" for r in self.rows)
        lines = [f"{name}: {value}" for name, value in self._figures()]
        for which, name in enumerate(names):
            text = self.b if which else self.a
            pieces = _pieces(text, self.spans[which])
            shown = "".join(f"[[{t}]]" if marked else t for t, marked in pieces)
            lines.append(f"--- {name} (shared runs in [[ ]]) ---")
            lines.append(shown)
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        names = ("a", "b") if self.rows is None else tuple(f"#{r}" for r in self.rows)
        figures = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
            for k, v in self._figures()
        )
        columns = []
        for which, name in enumerate(names):
            text = self.b if which else self.a
            body = "".join(
                f"<mark>{html.escape(t)}</mark>" if marked else html.escape(t)
                for t, marked in _pieces(text, self.spans[which])
            )
            columns.append(
                "<div style='flex:1;min-width:0'>"
                f"<div><b>{html.escape(name)}</b> ({len(text):,} characters)</div>"
                f"<div style='white-space:pre-wrap;word-wrap:break-word;font-family:monospace;"
                f"border:1px solid #ccc;padding:4px'>{body}</div></div>"
            )
        return (
            f"<div class='neardup-explain'><table>{figures}</table>"
            f"<div style='display:flex;gap:12px'>{''.join(columns)}</div></div>"
        )


def _safe_cut(text: str, at: int) -> int:
    """``at`` moved back so a cut there leaves no combining mark without its base."""
    while 0 < at < len(text) and unicodedata.combining(text[at]):
        at -= 1
    return at


def _pieces(text: str, spans: np.ndarray) -> list[tuple[str, bool]]:
    """``text`` as (piece, highlighted) pieces; a long text keeps :data:`CONTEXT` characters
    around each span and ``…`` for the rest (cut between characters, marks kept with their
    base)."""
    runs = [(int(s), int(e)) for s, e in spans.tolist()]
    if len(text) <= ELIDE_OVER:
        shown = [(0, len(text))]
    else:
        windows = [(max(0, s - CONTEXT), min(len(text), e + CONTEXT)) for s, e in runs]
        windows = windows or [(0, min(len(text), 2 * CONTEXT))]
        shown = []
        for s, e in windows:
            s, e = _safe_cut(text, s), _safe_cut(text, e)
            if shown and s <= shown[-1][1]:
                shown[-1] = (shown[-1][0], max(shown[-1][1], e))
            else:
                shown.append((s, e))
    out: list[tuple[str, bool]] = []
    for number, (ws, we) in enumerate(shown):
        if ws > 0 or number:
            out.append(("…", False))
        at = ws
        for s, e in runs:
            s, e = max(s, ws), min(e, we)
            if s >= e:
                continue
            if at < s:
                out.append((text[at:s], False))
            out.append((text[s:e], True))
            at = e
        if at < we:
            out.append((text[at:we], False))
    if shown and shown[-1][1] < len(text):
        out.append(("…", False))
    return out


def merge_runs(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Ranges merged where they overlap or touch, int64[r, 2], sorted.

    >>> merge_runs(np.array([5, 0, 2]), np.array([9, 3, 4])).tolist()
    [[0, 4], [5, 9]]
    """
    if not len(starts):
        return np.zeros((0, 2), dtype=np.int64)
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], ends[order]
    reach = np.maximum.accumulate(e)
    new = np.ones(len(s), dtype=bool)
    new[1:] = s[1:] > reach[:-1]
    first = np.flatnonzero(new)
    last = np.append(first[1:], len(s)) - 1
    return np.stack([s[first], reach[last]], axis=1).astype(np.int64)


def _join_runs(text: str, runs: np.ndarray, hash_version: int) -> np.ndarray:
    """``runs`` with the ones separated by no word (spaces, punctuation) joined: the words
    of one shared passage are one run whatever k is."""
    if len(runs) < 2:
        return runs
    keep = [0]
    for r in range(1, len(runs)):
        gap = text[runs[keep[-1], 1] : runs[r, 0]]
        if _core.normalize(gap, hash_version):
            keep.append(r)
        else:
            runs[keep[-1], 1] = runs[r, 1]
    return runs[keep]


def _check_text(name: str, text: Any) -> str:
    if not isinstance(text, str):
        raise InputTypeError(f"{name} must be a str, got {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"{name} is not valid Unicode (it holds a lone surrogate)") from None
    return text


def compare(
    a: str,
    b: str,
    k: int,
    unit: str,
    hash_version: int,
    estimate: float | None = None,
    settings: dict[str, Any] | None = None,
    rows: tuple[int, int] | None = None,
) -> Explanation:
    """The :class:`Explanation` of ``a`` and ``b`` on the given shingle definition."""
    a, b = _check_text("a", a), _check_text("b", b)
    ha, sa, ea = _core.shingle_offsets(a, k, unit, hash_version)
    hb, sb, eb = _core.shingle_offsets(b, k, unit, hash_version)
    set_a, set_b = np.unique(ha), np.unique(hb)
    common = np.intersect1d(set_a, set_b, assume_unique=True)
    union = len(set_a) + len(set_b) - len(common)
    in_a, in_b = np.isin(ha, common), np.isin(hb, common)
    return Explanation(
        a=a,
        b=b,
        jaccard=len(common) / union if union else 0.0,
        containment=(
            len(common) / len(set_a) if len(set_a) else 0.0,
            len(common) / len(set_b) if len(set_b) else 0.0,
        ),
        shingles=(len(set_a), len(set_b)),
        shared=len(common),
        spans=(
            _join_runs(a, merge_runs(sa[in_a], ea[in_a]), hash_version),
            _join_runs(b, merge_runs(sb[in_b], eb[in_b]), hash_version),
        ),
        estimate=estimate,
        settings=dict(settings or {"k": k, "unit": unit, "hash_version": hash_version}),
        rows=rows,
    )


def explain(a: str, b: str, **settings: Any) -> Explanation:
    """Why ``a`` and ``b`` match: exact Jaccard, containment, shingle counts and the shared
    text of each, as :class:`Explanation` (``str()`` for a terminal, rich display in Jupyter).

    ``settings`` are those of :func:`neardup.find_duplicates` (``k``, ``unit``,
    ``hash_version``, ``method``, ``num_perm``, ``seed``, ``algorithm``, ``simhash_bits``...):
    they define the shingles and, for ``method="minhash"`` or ``"simhash"``, the signature
    estimate. ``strip_boilerplate`` is not applied (the explanation compares the full texts).

    >>> e = explain("The cat sat on the mat.", "the cat sat on a mat", k=2)
    >>> round(e.jaccard, 4), e.shared, e.spans[0].tolist()
    (0.4286, 3, [[0, 14]])
    """
    plan = make_plan(**settings)
    a, b = _check_text("a", a), _check_text("b", b)
    estimate = _estimate(plan, a, b)
    return compare(a, b, plan.k, plan.unit, plan.hash_version, estimate, plan.as_dict())


def _estimate(plan: Any, a: str, b: str) -> float | None:
    """The signatures' similarity of ``a`` and ``b`` under ``plan`` (MinHash or SimHash; the
    run's seeds give the run's signatures), None for other methods or an empty text."""
    if plan.method not in ("minhash", "simhash"):
        return None
    from neardup import stages

    unit: Any = plan.unit
    sets = stages.shingles([a, b], k=plan.k, unit=unit, hash_version=plan.hash_version)
    if not (sets.sizes() > 0).all():
        return None
    if plan.method == "simhash":
        signed = stages.simhash(sets, bits=plan.simhash_bits)
    else:
        algorithm: Any = plan.algorithm
        signed = stages.minhash(sets, plan.num_perm, plan.seed, algorithm=algorithm)
    return _signature_similarity(signed, plan.simhash_bits)


def _signature_similarity(signatures: np.ndarray, simhash_bits: int) -> float:
    """The similarity of rows 0 and 1 of MinHash signatures or SimHash fingerprints."""
    from neardup import stages

    pair = np.array([[0, 1]], dtype=np.int64)
    if signatures.dtype == np.uint32:
        return float(stages.estimate_jaccard(signatures, pair)[0])
    return float(1.0 - stages.hamming(signatures, pair)[0] / simhash_bits)


def explain_rows(result: Any, i: int, j: int) -> Explanation:
    """:meth:`neardup.DuplicateResult.explain`."""
    from neardup.errors import InvalidArgumentError

    n = result.n
    for name, row in (("i", i), ("j", j)):
        if isinstance(row, bool) or not isinstance(row, (int, np.integer)):
            raise InputTypeError(f"{name} must be a document index (int), got {row!r}")
        if not 0 <= row < n:
            raise InvalidArgumentError(f"{name}={row} is not a document index (0 to {n - 1})")
    if result.texts is None:
        raise InvalidArgumentError("this result holds no texts (built by hand): use explain(a, b)")
    a, b = _text_at(result.texts, int(i)), _text_at(result.texts, int(j))
    params = result.params
    k, unit = params.get("k", 5), params.get("unit", "word")
    version = params.get("hash_version", _core.HASH_VERSION)
    estimate = None
    signed = params.get("method") in ("minhash", "simhash")
    if signed and result._evidence is not None:
        first, evidence = result._evidence
        fi, fj = int(first[i]), int(first[j])
        sig = evidence.signatures
        if fi == fj:
            estimate = 1.0 if sig is not None else None
        elif sig is not None:
            at = np.searchsorted(evidence.selected, [fi, fj])
            if (at < len(evidence.selected)).all() and (evidence.selected[at] == [fi, fj]).all():
                estimate = _signature_similarity(
                    np.ascontiguousarray(sig[at]), evidence.simhash_bits
                )
    if signed and estimate is None:  # freed after exact verification: the two signed again
        names = ("num_perm", "seed", "algorithm", "simhash_bits", "hash_version", "k", "unit")
        plan = make_plan(method=params["method"], **{x: params[x] for x in names if x in params})
        estimate = _estimate(plan, a, b)
    return compare(a, b, k, unit, version, estimate, dict(params), rows=(int(i), int(j)))


def _text_at(texts: Any, i: int) -> str:
    """Document ``i`` of core texts (a list of str or (UTF-8 bytes, offsets))."""
    if isinstance(texts, tuple):
        data, offsets = texts
        return bytes(data[offsets[i] : offsets[i + 1]]).decode("utf-8")
    return str(texts[i])
