"""The one JSON summary every command prints with ``--json``.

Every summary has the same top-level keys, with the same types whatever the command:

- ``command`` (str): ``"dedup"``, ``"calibrate"``, ``"index add"``, ``"index query"``,
  ``"index stats"``;
- ``version`` (str): the neardup version that ran;
- ``params`` (object): the resolved parameters (for ``dedup`` the plan,
  :meth:`neardup.Plan.as_dict`, plus what the run decided, e.g. ``pairs_used``; for the index
  its stored parameters);
- ``inputs`` (list of str): the input paths (``-`` for stdin);
- ``outputs`` (object, str → str or null): each output the command can write and its path,
  null when not asked for (``-`` is stdout);
- ``counts`` (object, str → int): document and pair counts (``documents`` is always there);
- ``seconds`` (object, str → float): wall-clock seconds per stage;
- ``result`` (object): what the command found beyond the counts (calibrate's recommended
  threshold and quantiles, the boilerplate statistics, the index's file size...).

:data:`SCHEMA` is the JSON Schema of it; ``tests/test_json_summary.py`` checks every command's
output against it.

>>> s = summary("index stats", params={}, inputs=[], outputs={}, counts={"documents": 3})
>>> sorted(s) == sorted(SCHEMA["required"])
True
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from neardup._version import version

#: The JSON Schema every ``--json`` summary satisfies.
SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": [
        "command",
        "version",
        "params",
        "inputs",
        "outputs",
        "counts",
        "seconds",
        "result",
    ],
    "additionalProperties": False,
    "properties": {
        "command": {"type": "string"},
        "version": {"type": "string"},
        "params": {"type": "object"},
        "inputs": {"type": "array", "items": {"type": "string"}},
        "outputs": {"type": "object", "additionalProperties": {"type": ["string", "null"]}},
        "counts": {
            "type": "object",
            "required": ["documents"],
            "additionalProperties": {"type": "integer"},
        },
        "seconds": {"type": "object", "additionalProperties": {"type": "number"}},
        "result": {"type": "object"},
    },
}


def summary(
    command: str,
    *,
    params: Mapping[str, Any],
    inputs: Sequence[Any],
    outputs: Mapping[str, Any],
    counts: Mapping[str, Any],
    seconds: Mapping[str, float] | None = None,
    result: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A summary with every key of :data:`SCHEMA`, its values coerced to the schema's types.

    >>> summary("dedup", params={}, inputs=["a.jsonl"], outputs={"kept": None},
    ...         counts={"documents": 2})["inputs"]
    ['a.jsonl']
    """
    return {
        "command": command,
        "version": version(),
        "params": dict(params),
        "inputs": [str(i) for i in inputs],
        "outputs": {k: None if v is None else str(v) for k, v in outputs.items()},
        "counts": {k: int(v) for k, v in counts.items()},
        "seconds": {k: round(float(v), 4) for k, v in (seconds or {}).items()},
        "result": dict(result or {}),
    }


#: ``DedupSummary`` fields that are counts (the rest are parameters, paths or findings).
_DEDUP_COUNTS = (
    "documents",
    "empty",
    "exact_duplicates",
    "near_duplicates",
    "clusters",
    "removed",
    "kept",
    "candidates",
    "pairs",
)


def dedup_summary(s: Any) -> dict[str, Any]:
    """The ``neardup dedup --json`` summary of a :class:`neardup.dedup.DedupSummary`
    (local or Ray; the Ray engine's extra numbers go to ``result``).

    >>> from neardup.dedup import DedupSummary
    >>> dedup_summary(DedupSummary(documents=4, kept=3))["counts"]["kept"]
    3
    """
    fields = s.as_dict()
    known = {*_DEDUP_COUNTS, "inputs", "output", "clusters_path", "annotate_path", "seconds"}
    known.add("groups_path")
    known.add("plan")
    known |= {"method", "verify", "pairs_mode", "threshold", "num_perm", "k", "bands", "rows"}
    known |= {"keep", "boilerplate"}
    result = {"boilerplate": s.boilerplate} if s.boilerplate else {}
    result.update({k: v for k, v in fields.items() if k not in known})
    counts = {k: fields[k] for k in _DEDUP_COUNTS}
    if "unique" in s.plan:
        counts["unique"] = s.plan["unique"]
    moved = {*_DEDUP_COUNTS, "unique", "pairs_reported", "boilerplate"}
    return summary(
        "dedup",
        params={k: v for k, v in s.plan.items() if k not in moved},
        inputs=s.inputs,
        outputs={
            "kept": s.output,
            "clusters": s.clusters_path,
            "annotate": s.annotate_path,
            "groups": getattr(s, "groups_path", None),
        },
        counts=counts,
        seconds=s.seconds,
        result=result,
    )


def print_summary(value: dict[str, Any], to_stderr: bool = False) -> None:
    """Print a summary as one line of JSON: on stdout, or on stderr when stdout carries the
    command's data (``-o -``, the index's match lines).

    >>> print_summary({"command": "x"})
    {"command": "x"}
    """
    print(json.dumps(value), file=sys.stderr if to_stderr else sys.stdout)
