"""The Ray run's banding, decided from the sample of every partition's signatures
(:func:`neardup.banding.planned_sample`, merged by the driver) by the one decision every
executor makes, the crate's ``decide_banding`` (:func:`run_banding`; a local run makes it
inside ``_core.Run.near``, ``rust/near/stage.rs``). Nothing here imports Ray.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from neardup import _core
from neardup.banding import banding_info


def run_banding(
    plan: Any,
    resolved: Any,
    sample: np.ndarray | None,
    n: int,
    info: dict[str, Any],
    sizes: np.ndarray | None = None,
    sign_pass: tuple[int, int] | None = None,
) -> Any:
    """The resolved plan with the MinHash banding of a run, the one decision every executor
    makes (``_core.decide_banding``; the local engine's near stage makes it in the crate): the
    plan's when it came with one (or without a ``sample``), else the one the cost model picks
    from ``sample``, the signatures of :func:`banding_sample` over the ``n`` unique documents
    (the Ray engine merges it from every partition's), with their shingle counts ``sizes``,
    against the sign pass's ``(documents, shingles)``. Its expected recall, predicted
    candidates and reason go to ``info``.

    >>> from neardup.plan import make_plan
    >>> plan = make_plan(method="minhash", bands=20, rows=5)
    >>> info = {}
    >>> run_banding(plan, plan.resolve(10), None, 0, info).bands, info["banding_reason"]
    (20, 'given')
    """
    assert resolved.bands is not None and resolved.rows is not None
    chosen = _core.decide_banding(
        resolved.threshold,
        resolved.num_perm,
        resolved.verify == "exact",
        resolved.bucket_limit,
        resolved.bands,
        resolved.rows,
        given=plan.bands is not None,
        sample=None if sample is None else np.ascontiguousarray(sample, dtype=np.uint32),
        sizes=None if sizes is None else np.ascontiguousarray(sizes, dtype=np.float64),
        n=n,
        sign_pass=sign_pass,
    )
    bands, rows = banding_info(chosen, info)
    return dataclasses.replace(resolved, bands=bands, rows=rows)
