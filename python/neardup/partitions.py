"""Partitions (``within=``): only documents sharing a key are compared, in one run.

Each document's key is a 64-bit hash (:func:`neardup._validate.check_keys`), carried by the
document store. The run (``_core.Run``) mixes it into the exact-copy keys
(``rust/sign_pass.rs``) and into every MinHash slot (``rust/partitions.rs``), so exact
duplicates and LSH candidates are found per partition by the one pass and the one LSH run;
exact Jaccard and SimHash search each partition alone (``rust/near/within.rs``). The Ray
engine salts its blocks the same way (:mod:`neardup.ray._sign`).

>>> from neardup.plan import make_plan
>>> from neardup.stores import MemoryStore
>>> partition_salts(make_plan(), MemoryStore(["a", "b"])) is None
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from neardup.errors import InvalidArgumentError


def partition_salts(plan: Any, store: Any) -> np.ndarray | None:
    """The store's partition keys (uint64 per document, :func:`neardup._validate.check_keys`)
    when the plan runs within partitions, else None."""
    if not plan.within:
        return None
    salts = getattr(store, "partitions", None)
    if salts is None:
        raise InvalidArgumentError("within=True needs one partition key per document")
    return np.asarray(salts, dtype=np.uint64)
