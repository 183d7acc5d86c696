"""``neardup dedup --report report.html``: one self-contained page to trust or change a threshold.

The page holds the plan and the counts, the sweep (documents kept and removed at every
threshold from the run's threshold to 1, as a table and an inline SVG plot drawn here, so no
plotting library is needed), the largest duplicate groups with text previews
(:meth:`neardup.Groups._repr_html_`) and a sample of pairs on either side of a threshold with
their shared text highlighted (:meth:`neardup.Explanation._repr_html_`: one renderer for the
notebook and the page). Nothing is fetched when it is opened (inline CSS and SVG, and a
Content-Security-Policy that forbids any load), and every text is escaped.

Nothing is signed again: the sweep filters the run's pairs, the groups are the run's labels,
and the previews need the texts of a few dozen documents, which :func:`neardup.dedup.row_reasons`
collects on the one pass it makes anyway. A run keeps no pair below its own threshold T (the
candidates that fail verification are dropped as they are verified), so the pairs are shown
around the sweep's next threshold T' above T: "just below" are the run's pairs with the
highest similarity under T' (joined at T, not at T'), "just above" those with the lowest at or
above T' (joined at both).

>>> import neardup
>>> from neardup.html_report import sample_rows, plan_sample
>>> r = neardup.find_duplicates(["a b c d", "a b c e", "a b c d e", "x"], k=1, threshold=0.5)
>>> s = plan_sample(r); s.reference, sample_rows(s).tolist()
(0.55, [0, 1, 2])
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from neardup import _core
from neardup.errors import InvalidArgumentError
from neardup.groups import Groups, duplicate_groups

#: Pairs shown on each side of the reference threshold.
SAMPLE_PAIRS = 5
#: Groups shown, and members of each with a preview.
LARGEST_GROUPS = 10
MEMBERS_SHOWN = 5


def is_html(path: str | None) -> bool:
    """Whether ``--report PATH`` asks for the HTML page (``.html`` or ``.htm``).

    >>> is_html("r.HTML"), is_html("r.md"), is_html(None)
    (True, False, False)
    """
    return path is not None and path.lower().endswith((".html", ".htm"))


@dataclass
class Sample:
    """What the page shows of a run, chosen before any text is read: the sweep (None, with
    ``sweep_note``, where the run cannot give one), the groups, the reference threshold T'
    and the pairs just below and just above it (rows into the run's pairs)."""

    threshold: float
    reference: float
    sweep: Any
    sweep_note: str
    groups: Groups
    below: np.ndarray
    above: np.ndarray
    pairs: np.ndarray
    similarity: np.ndarray


def plan_sample(result: Any) -> Sample:
    """The :class:`Sample` of a :class:`neardup.DuplicateResult` (the local CLI builds one
    from its run, without texts): numpy work on the run's pairs and labels.

    >>> import neardup
    >>> r = neardup.find_duplicates(["a b c d", "a b c e", "x"], k=1, threshold=0.5)
    >>> s = plan_sample(r); s.below.tolist(), s.above.tolist(), len(s.groups)
    ([], [0], 1)
    """
    t = float(result.threshold)
    sweep, note = None, ""
    try:
        sweep = result.sweep()
        steps = sweep.threshold[sweep.threshold > t]
        reference = float(steps[0]) if len(steps) else t
    except InvalidArgumentError as error:
        note = str(error)
        reference = float(np.round(t + (1.0 - t) / 10, 4))
    sims = result.similarity.astype(np.float64)
    below = np.flatnonzero(sims < reference)
    above = np.flatnonzero(sims >= reference)
    # the closest to the reference on each side; ties by pair order (stable sorts)
    below = below[np.argsort(-sims[below], kind="stable")[:SAMPLE_PAIRS]]
    above = above[np.argsort(sims[above], kind="stable")[:SAMPLE_PAIRS]]
    groups = duplicate_groups(
        result.clusters, result.keep, result.representative, result.kept_similarity
    )
    return Sample(t, reference, sweep, note, groups, below, above, result.pairs, sims)


def sample_rows(sample: Sample) -> np.ndarray:
    """The sorted input positions whose texts the page shows (group previews, sampled pairs).

    >>> import neardup
    >>> r = neardup.find_duplicates(["a b", "x", "a b"], k=1)
    >>> sample_rows(plan_sample(r)).tolist()
    [0, 2]
    """
    g = sample.groups
    shown = [np.zeros(0, dtype=np.int64)]
    for i in range(min(LARGEST_GROUPS, len(g))):
        shown.append(g.members[g.offsets[i] : g.offsets[i + 1]][:MEMBERS_SHOWN])
    shown.append(sample.pairs[sample.below].ravel())
    shown.append(sample.pairs[sample.above].ravel())
    return np.unique(np.concatenate(shown)).astype(np.int64)


_STYLE = """
body{font-family:system-ui,sans-serif;margin:24px;max-width:1200px;color:#222}
table{border-collapse:collapse;margin:8px 0}
th,td{border:1px solid #ddd;padding:3px 8px;vertical-align:top;text-align:left}
mark{background:#ffe066}
.pair{border:1px solid #bbb;border-radius:4px;padding:8px;margin:12px 0}
.note{color:#555}
"""


def render(
    summary: Any, sample: Sample, texts: Mapping[int, str], ids: Any = None, settings: Any = None
) -> str:
    """The page: ``summary`` (:class:`neardup.dedup.DedupSummary`), the :class:`Sample`, the
    texts of :func:`sample_rows` by position, the documents' ids by position (or None) and
    the run's shingle settings (k, unit, hash_version).

    >>> import neardup
    >>> from neardup.dedup import DedupSummary
    >>> texts = ["a b c d", "a b c e", "<x>"]
    >>> r = neardup.find_duplicates(texts, k=1, threshold=0.5)
    >>> page = render(DedupSummary(documents=3), plan_sample(r), dict(enumerate(texts)))
    >>> page.startswith("<!DOCTYPE html>"), "&lt;x&gt;" in page, "<x>" in page
    (True, False, False)
    """
    from neardup.explain import compare

    settings = dict(settings or summary.plan or {})
    k, unit = int(settings.get("k", 5)), str(settings.get("unit", "word"))
    version = int(settings.get("hash_version", _core.HASH_VERSION))

    def name(row: int) -> str:
        return f"#{row}" if ids is None else f"{ids[row]} (#{row})"

    def pair_html(rows: np.ndarray) -> str:
        if not len(rows):
            return "<p class='note'>none</p>"
        out = []
        for p in rows.tolist():
            i, j = (int(x) for x in sample.pairs[p])
            e = compare(texts[i], texts[j], k, unit, version, None, settings, rows=(i, j))
            out.append(
                f"<div class='pair'><p><b>{html.escape(name(i))}</b> and "
                f"<b>{html.escape(name(j))}</b>: similarity reported by the run "
                f"{sample.similarity[p]:.4f}</p>{e._repr_html_()}</div>"
            )
        return "".join(out)

    t, ref = sample.threshold, sample.reference
    groups = dataclasses.replace(sample.groups, texts=texts)
    labels = None if ids is None else {r: name(r) for r in texts}
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; img-src data:\">",
        "<title>neardup deduplication report</title>",
        f"<style>{_STYLE}</style></head><body>",
        "<h1>Deduplication report</h1>",
        _table("Summary", _summary_rows(summary)),
        _table("Plan", [(str(a), str(b)) for a, b in (summary.plan or {}).items()]),
        "<h2 id='sweep'>Every threshold from this run</h2>",
    ]
    if sample.sweep is not None:
        parts += [sweep_svg(sample.sweep), sample.sweep._repr_html_()]
    else:
        parts.append(f"<p class='note'>No sweep: {html.escape(sample.sweep_note)}</p>")
    parts += [
        "<h2 id='groups'>Largest duplicate groups</h2>",
        groups._repr_html_(limit=LARGEST_GROUPS, preview=200, names=labels),
        f"<h2 id='pairs'>Pairs around threshold {ref:g}</h2>",
        f"<p class='note'>This run (threshold {t:g}) kept no pair below {t:g}: a pair under "
        "the threshold is dropped as soon as it is compared. So the pairs are shown around the "
        f"sweep's next threshold, {ref:g}: those just below it are joined by this run and not by "
        f"a run at {ref:g}; those just above are joined by both. To see pairs below {t:g}, run "
        "again with a lower threshold. Shared text is highlighted.</p>",
        f"<h3>Just below {ref:g} (joined at {t:g}, not at {ref:g})</h3>",
        pair_html(sample.below),
        f"<h3>Just above {ref:g} (joined at both)</h3>",
        pair_html(sample.above),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _summary_rows(summary: Any) -> list[tuple[str, str]]:
    rows = [
        ("inputs", ", ".join(summary.inputs)),
        ("documents", f"{summary.documents:,}"),
        ("kept", f"{summary.kept:,}"),
        ("removed", f"{summary.removed:,} ({summary.removed / max(summary.documents, 1):.2%})"),
        ("exact duplicates removed", f"{summary.exact_duplicates:,}"),
        ("near-duplicates removed", f"{summary.near_duplicates:,}"),
        ("duplicate clusters", f"{summary.clusters:,}"),
        ("candidate pairs", f"{summary.candidates:,}"),
        ("verified pairs", f"{summary.pairs:,}"),
    ]
    rows += [(f"reason: {k}", f"{v:,}") for k, v in (summary.reasons or {}).items()]
    rows += [(f"seconds: {k}", f"{v:.2f}") for k, v in summary.seconds.items()]
    return rows


def _table(title: str, rows: list[tuple[str, str]]) -> str:
    body = "".join(f"<tr><th>{html.escape(a)}</th><td>{html.escape(b)}</td></tr>" for a, b in rows)
    return f"<h2>{html.escape(title)}</h2><table>{body}</table>"


def sweep_svg(sweep: Any, width: int = 640, height: int = 300) -> str:
    """The sweep as an inline SVG line plot: documents kept and removed against the
    threshold (drawn here: no plotting library, nothing to load).

    >>> import neardup
    >>> r = neardup.find_duplicates(["a b c d", "a b c e", "x"], k=1, threshold=0.5)
    >>> svg = sweep_svg(r.sweep([0.5, 0.8])); svg.count("<polyline")
    2
    """
    left, right, top, bottom = 60, 20, 20, 45
    xs = np.asarray(sweep.threshold, dtype=np.float64)
    series = (
        ("documents kept", sweep.kept, "#1f77b4"),
        ("documents removed", sweep.removed, "#d62728"),
    )
    x0, x1 = float(xs.min()), float(xs.max())
    x1 = x1 if x1 > x0 else x0 + 1e-9
    y1 = max(1.0, float(max(np.max(s) for _, s, _ in series)))

    def px(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * (width - left - right)

    def py(y: float) -> float:
        return height - bottom - y / y1 * (height - top - bottom)

    out = [
        f"<svg id='sweep-plot' role='img' width='{width}' height='{height}' "
        f"viewBox='0 0 {width} {height}' style='background:#fff;border:1px solid #ddd'>",
        "<title>documents kept and removed against the threshold</title>",
        f"<line x1='{left}' y1='{py(0):.1f}' x2='{width - right}' y2='{py(0):.1f}' stroke='#333'/>",
        f"<line x1='{left}' y1='{top}' x2='{left}' y2='{py(0):.1f}' stroke='#333'/>",
    ]
    for x in np.linspace(x0, x1, 6) if x1 - x0 > 1e-6 else [x0]:
        out.append(
            f"<text x='{px(x):.1f}' y='{height - bottom + 16}' font-size='11' "
            f"text-anchor='middle'>{x:.3g}</text>"
        )
    for y in np.linspace(0, y1, 5):
        out.append(
            f"<text x='{left - 6}' y='{py(y) + 4:.1f}' font-size='11' "
            f"text-anchor='end'>{y:,.0f}</text>"
        )
    out.append(
        f"<text x='{(left + width - right) / 2:.0f}' y='{height - 6}' font-size='12' "
        "text-anchor='middle'>threshold</text>"
    )
    for number, (label, values, colour) in enumerate(series):
        points = " ".join(
            f"{px(x):.1f},{py(float(y)):.1f}" for x, y in zip(xs.tolist(), values, strict=True)
        )
        out.append(
            f"<polyline class='series' points='{points}' fill='none' stroke='{colour}' "
            "stroke-width='2'/>"
        )
        for x, y in zip(xs.tolist(), values, strict=True):
            out.append(f"<circle cx='{px(x):.1f}' cy='{py(float(y)):.1f}' r='3' fill='{colour}'/>")
        ly = top + 4 + 16 * number
        out.append(
            f"<rect x='{width - right - 150}' y='{ly}' width='12' height='3' fill='{colour}'/>"
            f"<text x='{width - right - 132}' y='{ly + 5}' font-size='12'>"
            f"{html.escape(label)}</text>"
        )
    out.append("</svg>")
    return "".join(out)
