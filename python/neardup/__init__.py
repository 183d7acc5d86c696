"""neardup: find near-duplicate documents cheaply.

Exact hashing, exact Jaccard, MinHash with LSH banding and SimHash, with a Rust core and numpy
arrays in and out. Start with :func:`find_duplicates`; every stage is also a function of its own.

>>> import neardup
>>> neardup.find_duplicates(["one two three four", "one two three four!"], k=2).pairs.tolist()
[[0, 1]]
"""

from typing import TYPE_CHECKING, Any

from neardup import errors
from neardup._core import HASH_VERSION
from neardup._version import version as _version
from neardup.banding import (
    Banding,
    choose_banding,
    lsh_half_point,
    lsh_params,
    lsh_probability,
    lsh_threshold,
)
from neardup.boilerplate import StripStats, strip_boilerplate
from neardup.calibrate import Calibration, calibrate
from neardup.errors import IndexMismatchError
from neardup.evaluate import Evaluation, evaluate
from neardup.explain import Explanation, explain
from neardup.groups import Groups
from neardup.matches import Matcher, MatchResult, find_matches
from neardup.paragraphs import ParagraphDeduper, ParagraphResult, dedup_paragraphs
from neardup.pipeline import DuplicateResult, find_duplicates, pairs_within_groups
from neardup.plan import AUTO_EXACT_LIMIT, Plan, make_plan, simhash_max_hamming
from neardup.stages import (
    ShingleSets,
    all_pairs_jaccard,
    band_hashes,
    clusters,
    estimate_jaccard,
    exact_duplicates,
    hamming,
    hamming_within,
    jaccard,
    lsh_candidate_rows,
    lsh_candidates,
    lsh_duplicates,
    minhash,
    normalize,
    shingles,
    simhash,
    verify_jaccard,
    word_counts,
)
from neardup.sweep import Sweep

if TYPE_CHECKING:
    from neardup import synth
    from neardup.index import Index, Match

    __version__: str

#: Names imported on first use (``import neardup`` stays cheap): name -> (module, attribute).
_LAZY = {
    "synth": ("neardup.synth", None),
    "Index": ("neardup.index", "Index"),
    "Match": ("neardup.index", "Match"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module_name, attribute = _LAZY[name]
        module = importlib.import_module(module_name)
        value = module if attribute is None else getattr(module, attribute)
        globals()[name] = value
        return value
    # `__version__` comes from the installed package metadata, read on first use.
    if name == "__version__":
        return _version()
    raise AttributeError(f"module 'neardup' has no attribute {name!r}")


__all__ = [
    "AUTO_EXACT_LIMIT",
    "HASH_VERSION",
    "Banding",
    "Calibration",
    "DuplicateResult",
    "Evaluation",
    "Explanation",
    "Groups",
    "Index",
    "IndexMismatchError",
    "Match",
    "MatchResult",
    "Matcher",
    "ParagraphDeduper",
    "ParagraphResult",
    "Plan",
    "ShingleSets",
    "StripStats",
    "Sweep",
    "__version__",
    "all_pairs_jaccard",
    "band_hashes",
    "calibrate",
    "choose_banding",
    "clusters",
    "dedup_paragraphs",
    "errors",
    "estimate_jaccard",
    "evaluate",
    "exact_duplicates",
    "explain",
    "find_duplicates",
    "find_matches",
    "hamming",
    "hamming_within",
    "jaccard",
    "lsh_candidate_rows",
    "lsh_candidates",
    "lsh_duplicates",
    "lsh_half_point",
    "lsh_params",
    "lsh_probability",
    "lsh_threshold",
    "make_plan",
    "minhash",
    "normalize",
    "pairs_within_groups",
    "shingles",
    "simhash",
    "simhash_max_hamming",
    "strip_boilerplate",
    "synth",
    "verify_jaccard",
    "word_counts",
]
