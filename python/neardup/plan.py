"""The plan: every option of a deduplication run, validated once and resolved once.

``find_duplicates``, ``neardup dedup``, ``neardup calibrate``, :class:`neardup.Index` and the
Ray engine all start by calling :func:`make_plan` with the user's options, and then run the
same stages in the same order from the frozen :class:`Plan` it returns. Nothing else checks
an option's range or picks a default, so the executors cannot disagree.

Two steps, because some choices need the corpus: :func:`make_plan` checks every option
(whatever method will end up running, so a bad ``num_perm`` fails on 10 documents as on
10 million) and :meth:`Plan.resolve` fixes what depends on the number of documents
(``method="auto"``) and on the method (LSH banding, the SimHash radius).

>>> plan = make_plan(threshold=0.5).resolve(10_000)
>>> plan.method, plan.bands, plan.rows
('minhash', 42, 3)
>>> make_plan(num_perm=0)
Traceback (most recent call last):
...
neardup.errors.InvalidArgumentError: num_perm must be at least 1, got 0
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from neardup import _core
from neardup._validate import (
    check_choice,
    check_fraction,
    check_int,
    check_optional_int,
    check_seed,
    check_threshold,
)
from neardup.banding import BUCKET_LIMIT
from neardup.errors import InvalidArgumentError

Method = Literal["auto", "exact-jaccard", "minhash", "simhash", "sha256", "sha256-normalized"]

METHODS: tuple[str, ...] = (
    "auto",
    "exact-jaccard",
    "minhash",
    "simhash",
    "sha256",
    "sha256-normalized",
)
SHINGLE_METHODS: tuple[str, ...] = ("exact-jaccard", "minhash", "simhash")
UNITS: tuple[str, ...] = ("word", "char")
ALGORITHMS: tuple[str, ...] = ("classic", "oph")
VERIFY: tuple[str, ...] = ("exact", "estimate")
PAIRS: tuple[str, ...] = ("auto", "all", "spanning")
#: Keep policies (:mod:`neardup.keep`); "priority" takes one number per document, which
#: travels beside the plan in the document store (like the lengths "longest" measures).
KEEP: tuple[str, ...] = ("first", "longest", "priority")
SIMHASH_BITS: tuple[int, ...] = (64, 128)

#: Every hash version this build can compute (version 1 stays computable forever).
HASH_VERSIONS: tuple[int, ...] = tuple(range(1, _core.HASH_VERSION + 1))

#: ``method="auto"`` brute-forces exact Jaccard up to this many documents (the article's
#: advice: it is the accuracy ceiling and costs seconds) and uses MinHash + LSH above.
AUTO_EXACT_LIMIT = 5_000

#: ``pairs="auto"`` switches MinHash to spanning pairs when the LSH buckets hold more than this
#: many candidate pairs: one huge cluster of near-identical documents would otherwise cost
#: m(m - 1)/2 pairs of memory and verification.
SPANNING_LIMIT = 20_000_000


#: Upper bound on ``num_perm`` (a signature of 2**16 slots is 256 KiB per document already).
MAX_NUM_PERM = 1 << 16
#: Upper bound on ``k`` (longer shingles make every document a single shingle).
MAX_K = 1 << 16
#: Upper bound on ``threads``.
MAX_THREADS = 1 << 10
#: Upper bound on ``auto_exact_limit``, ``spanning_limit`` and ``bucket_limit`` (counts of
#: documents or pairs a machine word holds; larger means no limit, which ``bucket_limit=None``
#: says).
MAX_LIMIT = (1 << 63) - 1


@dataclass(frozen=True)
class Plan:
    """The resolved options of one run: what every executor reads, and what reports print.

    ``method`` is ``"auto"`` until :meth:`resolve` is called with the number of documents;
    ``bands``/``rows`` (MinHash) and ``max_hamming`` (SimHash) are filled in then. ``pairs``
    stays ``"auto"`` after resolution: the executor decides it from the candidate count
    (``spanning_limit``) and records what it did.

    >>> p = make_plan(method="minhash", threshold=0.3).resolve(100)
    >>> p.bands, p.rows, p.verify
    (64, 2, 'exact')
    """

    method: str = "auto"
    threshold: float = 0.3
    k: int = 5
    unit: str = "word"
    num_perm: int = 128
    seed: int = 0
    algorithm: str = "classic"
    bands: int | None = None
    rows: int | None = None
    verify: str = "exact"
    pairs: str = "auto"
    strip_boilerplate: float | None = None
    simhash_bits: int = 64
    max_hamming: int | None = None
    threads: int = 1
    keep: str = "first"
    hash_version: int = _core.HASH_VERSION
    auto_exact_limit: int = AUTO_EXACT_LIMIT
    spanning_limit: int = SPANNING_LIMIT
    bucket_limit: int | None = BUCKET_LIMIT
    #: The method the user asked for (``"auto"`` stays visible after resolution).
    requested_method: str = "auto"
    #: Only rows sharing a partition key are compared (``within=``, ``--within``); the keys
    #: travel beside the plan in the document store, as priorities do.
    within: bool = False
    #: Rows sharing a unit key are one document (``unit_of=``, ``--unit-key``).
    unit_of: bool = False

    @property
    def resolved(self) -> bool:
        """True once the method (and its banding or radius) is fixed.

        >>> make_plan().resolved, make_plan().resolve(10).resolved
        (False, True)
        """
        return self.method != "auto"

    @property
    def uses_shingles(self) -> bool:
        """True for the shingle-based methods (everything but SHA-256).

        >>> make_plan(method="sha256").uses_shingles
        False
        """
        return self.method not in ("sha256", "sha256-normalized")

    def resolve(self, n: int) -> Plan:
        """The plan for a corpus of ``n`` documents: ``auto`` becomes a method, and the
        method's banding (MinHash) or Hamming radius (SimHash) is fixed.

        >>> make_plan().resolve(5_000).method, make_plan().resolve(5_001).method
        ('exact-jaccard', 'minhash')
        """
        n = min(check_int("n", n, low=0), 2**63 - 1)  # past any limit a plan can hold
        return dataclasses.replace(self, **_core.resolve_plan(self.as_dict(), n))

    def as_dict(self) -> dict[str, Any]:
        """The plan as a JSON-ready dict (stored in reports and the index).

        >>> make_plan(k=3).as_dict()["k"]
        3
        """
        return dataclasses.asdict(self)

    def describe(self) -> str:
        """One line a human reads: the method and the options that shaped it.

        >>> print(make_plan(method="minhash", hash_version=1).resolve(10).describe())
        minhash, threshold 0.3, k=5 word shingles, P=128 classic, LSH 64x2, verify exact, ...
        """
        parts = [self.method, f"threshold {self.threshold:g}"]
        if self.uses_shingles:
            parts.append(f"k={self.k} {self.unit} shingles")
        if self.method in ("minhash", "auto"):
            parts.append(f"P={self.num_perm} {self.algorithm}")
            if self.bands is not None:
                parts.append(f"LSH {self.bands}x{self.rows}")
        if self.method == "simhash":
            parts.append(f"SimHash {self.simhash_bits} bits, radius {self.max_hamming}")
        if self.method in ("minhash", "simhash", "auto"):
            parts.append(f"verify {self.verify}")
        if self.method in ("minhash", "sha256", "sha256-normalized", "auto"):
            parts.append(f"pairs {self.pairs}")
        if self.strip_boilerplate is not None:
            parts.append(f"boilerplate df > {self.strip_boilerplate:g} stripped")
        if self.threads != 1:
            parts.append(f"{self.threads} threads")
        if self.keep != "first":
            parts.append(f"keep {self.keep}")
        if self.unit_of:
            parts.append("units of rows")
        if self.within:
            parts.append("within partitions")
        parts.append(f"hash v{self.hash_version}")
        return ", ".join(parts)


def make_plan(
    *,
    threshold: float = 0.3,
    method: str = "auto",
    num_perm: int = 128,
    k: int = 5,
    unit: str = "word",
    bands: int | None = None,
    rows: int | None = None,
    seed: int = 0,
    verify: str = "exact",
    pairs: str = "auto",
    strip_boilerplate: float | None = None,
    simhash_bits: int = 64,
    max_hamming: int | None = None,
    threads: int = 1,
    algorithm: str = "classic",
    keep: str = "first",
    hash_version: int | None = None,
    auto_exact_limit: int = AUTO_EXACT_LIMIT,
    spanning_limit: int = SPANNING_LIMIT,
    bucket_limit: int | None = BUCKET_LIMIT,
    within: bool = False,
    unit_of: bool = False,
) -> Plan:
    """Checks every option (whatever method will run) and returns the unresolved plan.

    Every error names the option: :class:`neardup.errors.InvalidArgumentError` (a
    ``ValueError``) for a bad value, :class:`neardup.errors.ArgumentTypeError` (a
    ``TypeError``) for a wrong type.

    >>> make_plan(method="simhash", threshold=0.3).resolve(10).max_hamming
    22
    """
    threshold = check_threshold(threshold)
    method = check_choice("method", method, METHODS)
    num_perm = check_int("num_perm", num_perm, low=1, high=MAX_NUM_PERM)
    k = check_int("k", k, low=1, high=MAX_K)
    unit = check_choice("unit", unit, UNITS)
    seed = check_seed(seed)
    verify = check_choice("verify", verify, VERIFY)
    pairs = check_choice("pairs", pairs, PAIRS)
    algorithm = check_choice("algorithm", algorithm, ALGORITHMS)
    keep = check_choice("keep", keep, KEEP)
    threads = check_int("threads", threads, low=1, high=MAX_THREADS)
    simhash_bits = check_int("simhash_bits", simhash_bits)
    if simhash_bits not in SIMHASH_BITS:
        raise InvalidArgumentError(f"simhash_bits must be 64 or 128, got {simhash_bits}")
    max_hamming = check_optional_int("max_hamming", max_hamming, low=0, high=simhash_bits)
    bands = check_optional_int("bands", bands, low=1)
    rows = check_optional_int("rows", rows, low=1)
    if (bands is None) != (rows is None):
        raise InvalidArgumentError("give both bands and rows, or neither")
    if bands is not None and rows is not None and bands * rows > num_perm:
        raise InvalidArgumentError(
            f"bands * rows = {bands} * {rows} = {bands * rows} exceeds num_perm = {num_perm}"
        )
    if strip_boilerplate is not None:
        strip_boilerplate = check_fraction("strip_boilerplate", strip_boilerplate)
        if method in ("sha256", "sha256-normalized"):
            raise InvalidArgumentError(
                "strip_boilerplate applies to shingle-based methods, not sha256"
            )
    if hash_version is None:
        hash_version = _core.HASH_VERSION
    hash_version = check_int("hash_version", hash_version)
    if hash_version not in HASH_VERSIONS:
        raise InvalidArgumentError(
            f"hash_version must be one of {', '.join(map(str, HASH_VERSIONS))}, got {hash_version}"
        )
    auto_exact_limit = check_int("auto_exact_limit", auto_exact_limit, low=0, high=MAX_LIMIT)
    spanning_limit = check_int("spanning_limit", spanning_limit, low=0, high=MAX_LIMIT)
    bucket_limit = check_optional_int("bucket_limit", bucket_limit, low=2, high=MAX_LIMIT)
    for name, flag in (("within", within), ("unit_of", unit_of)):
        if not isinstance(flag, bool):
            raise InvalidArgumentError(f"{name} must be True or False in a plan, got {flag!r}")
    return Plan(
        method=method,
        threshold=threshold,
        k=k,
        unit=unit,
        num_perm=num_perm,
        seed=seed,
        algorithm=algorithm,
        bands=bands,
        rows=rows,
        verify=verify,
        pairs=pairs,
        strip_boilerplate=strip_boilerplate,
        simhash_bits=simhash_bits,
        max_hamming=max_hamming,
        threads=threads,
        keep=keep,
        hash_version=hash_version,
        auto_exact_limit=auto_exact_limit,
        spanning_limit=spanning_limit,
        bucket_limit=bucket_limit,
        requested_method=method,
        within=within,
        unit_of=unit_of,
    )


def lsh_banding(threshold: float, num_perm: int, verify: str = "exact") -> tuple[int, int]:
    """The default (bands, rows) for a threshold, signature width and verification.

    The default banding rule is chosen in one place, :meth:`Plan.resolve` (the crate's
    ``RunPlan::resolve``, ``rust/run/mod.rs``; the executors never pick their own):
    :func:`neardup.banding.choose_banding` without a sample (recall-first when verification is
    exact; ``find_duplicates`` refines it on a sample of the signatures).

    >>> lsh_banding(0.3, 128), lsh_banding(0.3, 128, "estimate")
    ((64, 2), (42, 3))
    """
    threshold, num_perm = check_threshold(threshold), check_int("num_perm", num_perm, 1)
    verify = check_choice("verify", verify, VERIFY)
    resolved = Plan(
        method="minhash", threshold=threshold, num_perm=num_perm, verify=verify
    ).resolve(0)
    assert resolved.bands is not None and resolved.rows is not None
    return resolved.bands, resolved.rows


def simhash_max_hamming(threshold: float, bits: int) -> int:
    """The Hamming radius matching a Jaccard threshold for SimHash fingerprints.

    For two sets of equal size with Jaccard J, the cosine of their indicator vectors is
    2J / (1 + J), and SimHash bits differ with probability arccos(cosine) / pi (Charikar).

    >>> simhash_max_hamming(0.3, 64)
    22
    """
    return _core.simhash_radius(check_threshold(threshold), check_int("bits", bits, low=1))
