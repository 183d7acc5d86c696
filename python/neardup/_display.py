"""Notebook display of :class:`~neardup.DuplicateResult`: HTML summary and similarity histogram.

>>> import neardup
>>> r = neardup.find_duplicates(["a b c d", "a b c d e", "x y"], k=2, threshold=0.5)
>>> "<table" in r._repr_html_()
True
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np

__all__ = ["result_html", "result_plot", "text_at"]

_CLIP = 400


def text_at(texts: Any, i: int) -> str | None:
    """Document ``i`` of texts kept by a result (a list of str or Arrow-style (data, offsets)).

    >>> text_at(["a", "b"], 1)
    'b'
    """
    if texts is None:
        return None
    if isinstance(texts, tuple) and len(texts) == 2 and isinstance(texts[0], np.ndarray):
        data, offsets = texts
        return bytes(data[offsets[i] : offsets[i + 1]]).decode("utf-8", "replace")
    try:
        item = texts[i]
    except (TypeError, IndexError, KeyError):
        return None
    return item if isinstance(item, str) else str(item)


def _clip(text: str | None) -> str:
    if text is None:
        return "<i>(text not kept)</i>"
    t = text if len(text) <= _CLIP else text[:_CLIP] + " …"
    return html.escape(t).replace("\n", "<br>")


def result_html(result: Any, texts: Any = None, examples: int = 5) -> str:
    """HTML: counts, parameters and the example pairs closest to the threshold, side by side.

    >>> import neardup
    >>> result_html(neardup.find_duplicates(["a b", "a b"], k=1), ["a b", "a b"])[:5]
    '<div>'
    """
    counts = [
        ("documents", f"{result.n:,}"),
        ("pairs", f"{len(result.pairs):,}"),
        ("clusters", f"{result.num_clusters:,}"),
        ("removed", f"{result.num_removed:,}"),
        ("method", html.escape(str(result.method))),
        ("threshold", f"{result.threshold:g}"),
    ]
    params = _describe(result.params)
    head = "".join(f"<th style='text-align:left'>{k}</th>" for k, _ in counts)
    row = "".join(f"<td>{v}</td>" for _, v in counts)
    parts = [
        "<div>",
        "<b>DuplicateResult</b>",
        f"<table><tr>{head}</tr><tr>{row}</tr></table>",
        f"<p style='color:#666'>{html.escape(params)}</p>" if params else "",
    ]
    if len(result.pairs):
        order = np.argsort(result.similarity, kind="stable")[:examples]
        parts.append(
            f"<p>{len(order)} pair(s) closest to the threshold:</p>"
            "<table><tr><th>similarity</th><th>i</th><th>document i</th>"
            "<th>j</th><th>document j</th></tr>"
        )
        for m in order.tolist():
            i, j = (int(x) for x in result.pairs[m])
            cell = "style='vertical-align:top;text-align:left;max-width:40em'"
            parts.append(
                f"<tr><td>{float(result.similarity[m]):.3f}</td><td>{i}</td>"
                f"<td {cell}>{_clip(text_at(texts, i))}</td><td>{j}</td>"
                f"<td {cell}>{_clip(text_at(texts, j))}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</div>")
    return "".join(parts)


def result_plot(result: Any, ax: Any = None, bins: int = 50) -> Any:
    """Histogram of the pairs' similarity with the threshold marked; returns the Axes.

    >>> r.plot()                                                        # doctest: +SKIP
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError("plot() needs matplotlib: pip install matplotlib") from e
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.5))
    lo = min(float(result.threshold), float(result.similarity.min()) if len(result.pairs) else 1)
    ax.hist(
        np.asarray(result.similarity, dtype=np.float64),
        bins=np.linspace(lo, 1.0, bins + 1),
        color="#4c72b0",
    )
    ax.axvline(result.threshold, color="#c44e52", ls="--", label=f"threshold {result.threshold:g}")
    ax.set_xlabel("similarity of duplicate pairs")
    ax.set_ylabel("pairs")
    ax.set_title(f"{len(result.pairs):,} pairs, {result.num_clusters:,} clusters ({result.method})")
    ax.legend()
    return ax


def _describe(params: dict[str, Any]) -> str:
    """The plan in one line plus what the run decided (or every parameter, for a hand-built
    result whose params are not a plan).

    >>> import neardup
    >>> _describe(neardup.find_duplicates(["a b", "a b"], k=1).params)[:13]
    'exact-jaccard'
    """
    import dataclasses

    from neardup.plan import Plan

    names = {f.name for f in dataclasses.fields(Plan)}
    if not names <= params.keys():
        return ", ".join(f"{k}={v}" for k, v in params.items() if k != "boilerplate")
    plan = Plan(**{k: params[k] for k in names})
    shown = ("pairs_used", "simhash_search", "candidates", "unique")
    run = [f"{k}={params[k]}" for k in shown if k in params]
    return plan.describe() + ("; " + ", ".join(run) if run else "")
