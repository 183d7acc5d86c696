"""Bad input to the Rust core: sizes that would abort the interpreter, panics reachable from
arguments, and shingle sets that would give a wrong Jaccard silently.

``ROWS`` are rows of the bad-input matrix (``tests/test_bad_input.py`` collects every
``bad_input_<area>.py``): each call must raise the given class of :mod:`neardup.errors` with a
message matching the regular expression. The rows go through the public API where it reaches
the Rust check, and call ``neardup._core`` directly where Python validates first (so the Rust
guard itself is tested).

No row allocates much: every impossible size is refused before anything is touched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from bad_input import Row

import neardup
from neardup import _core
from neardup.errors import InputError, InputTypeError, InvalidArgumentError, ResourceError

GOOD = ["alpha beta gamma delta epsilon", "alpha beta gamma delta zeta"]
NO_PAIRS = np.zeros((0, 2), dtype=np.int64)


def _sets(offsets: list[int], hashes: list[int]) -> neardup.ShingleSets:
    return neardup.ShingleSets(np.array(offsets, dtype=np.int64), np.array(hashes, dtype=np.uint64))


# Set 0 is out of order; set 1 repeats a hash.
UNSORTED = _sets([0, 3, 5], [30, 10, 20, 40, 50])
REPEATED = _sets([0, 2, 5], [1, 2, 7, 7, 9])


GOOD_SETS = neardup.shingles(GOOD, k=2)


def _frequent_without_count() -> Any:
    counter = _core.FrequencyCounter(0.5)
    counter.add_candidates(GOOD_SETS.offsets, GOOD_SETS.hashes)
    return counter.frequent()


def _frequent_after_uneven_passes() -> Any:
    counter = _core.FrequencyCounter(0.5)
    counter.add_candidates(GOOD_SETS.offsets, GOOD_SETS.hashes)
    counter.add_candidates(GOOD_SETS.offsets, GOOD_SETS.hashes)
    counter.count(GOOD_SETS.offsets, GOOD_SETS.hashes)
    return counter.frequent()


def _signatures(n: int = 3, num_perm: int = 8) -> np.ndarray:
    return neardup.minhash(GOOD + ["other words here"] * (n - 2), num_perm=num_perm)


def _run(plan: dict[str, Any], steps: int = 0) -> Any:
    """A ``_core.Run`` of ``plan`` over GOOD, then ``near()`` after ``steps`` finishes (0: no
    finish, 2: a second ``near()`` after the first)."""
    spill = _core.SetSpill()
    run = _core.Run(spill, plan, budget=1 << 16)
    run.sign(GOOD)
    if steps:
        run.finish()
    result = run.near(verify_budget=1 << 16)
    return run.near(verify_budget=1 << 16) if steps == 2 else result


def _kept(plan: dict[str, Any], near: bool = True, twice: bool = False) -> Any:
    """``Run.keep`` of a finished run of ``plan`` over GOOD: before ``near()`` when not
    ``near``, a second time when ``twice``."""
    run = _core.Run(_core.SetSpill(), plan, budget=1 << 16)
    run.sign(GOOD)
    run.finish()
    if near:
        run.near(verify_budget=1 << 16)
    result = run.keep(report=True, max_pairs=10)
    return run.keep(report=True, max_pairs=10) if twice else result


def _plan(**changes: Any) -> dict[str, Any]:
    plan = neardup.make_plan(method="minhash").as_dict()
    plan.update(changes)
    return plan


def _row(name: str, call: Callable[[], Any], raises: type[BaseException], match: str) -> Row:
    return Row(name=f"core: {name}", call=lambda _tmp: call(), raises=raises, match=match)


ROWS = [
    # Sizes that aborted the process (allocation failure) become ResourceError (MemoryError).
    _row(
        "minhash-num_perm-2**40",
        lambda: neardup.minhash(GOOD, num_perm=2**40),
        ResourceError,
        "num_perm hash functions",
    ),
    _row(
        "minhash-no-texts-num_perm-2**40",
        lambda: neardup.minhash([], num_perm=2**40),
        ResourceError,
        "num_perm",
    ),
    _row(
        "minhash-sets-num_perm-2**40",
        lambda: neardup.minhash(neardup.shingles(GOOD), num_perm=2**40),
        ResourceError,
        "num_perm",
    ),
    _row(
        "core-minhash-num_perm-2**64-1",
        lambda: _core.minhash_texts(GOOD, 2**64 - 1, 0, 5, "word", 1, "classic", 2),
        ResourceError,
        "num_perm",
    ),
    _row(
        "minhash-oph-num_perm-2**40",
        lambda: neardup.minhash(GOOD, num_perm=2**40, algorithm="oph"),
        InvalidArgumentError,
        r"num_perm must be at most 2\*\*32 with algorithm='oph'",
    ),
    _row(
        "minhash-threads-10**6",
        lambda: neardup.minhash(GOOD, threads=10**6),
        InvalidArgumentError,
        "threads must be at most 1024",
    ),
    _row(
        "simhash-threads-10**6",
        lambda: neardup.simhash(GOOD, threads=10**6),
        InvalidArgumentError,
        "threads must be at most 1024",
    ),
    _row(
        "core-simhash-bits-2**40",
        lambda: _core.simhash_texts(GOOD, 2**40, False, 5, "word", 1, 2),
        InvalidArgumentError,
        "bits must be 64 or 128",
    ),
    _row(
        "clusters-n-2**32",
        lambda: neardup.clusters(NO_PAIRS, 2**32),
        InvalidArgumentError,
        r"n must be below 2\*\*32",
    ),
    _row(
        "core-lsh_params-num_perm-2**40",
        lambda: _core.lsh_params(0.5, 2**40),
        InvalidArgumentError,
        "num_perm must be in",
    ),
    # The banding choice: the crate's guards behind neardup.banding's checks.
    _row(
        "core-choose_banding-threshold-0",
        lambda: _core.choose_banding(0.0, 128, True, 0.99, 32),
        InvalidArgumentError,
        r"threshold must be in \(0, 1\]",
    ),
    _row(
        "core-choose_banding-recall-1",
        lambda: _core.choose_banding(0.5, 128, True, 1.0, 32),
        InvalidArgumentError,
        r"recall must be in \(0, 1\)",
    ),
    _row(
        "core-choose_banding-num_perm-0",
        lambda: _core.choose_banding(0.5, 0, True, 0.99, 32),
        InvalidArgumentError,
        "num_perm must be at least 1",
    ),
    _row(
        "core-choose_banding-bucket_limit-1",
        lambda: _core.choose_banding(0.5, 8, True, 0.99, 1, _signatures()),
        InvalidArgumentError,
        "bucket_limit must be at least 2",
    ),
    _row(
        "core-choose_banding-narrow-signatures",
        lambda: _core.choose_banding(0.5, 16, True, 0.99, 32, _signatures()),
        InvalidArgumentError,
        "signatures have 8 slots, fewer than num_perm = 16",
    ),
    _row(
        "core-choose_banding-strided-signatures",
        lambda: _core.choose_banding(0.5, 4, True, 0.99, 32, _signatures(num_perm=8)[:, ::2]),
        InvalidArgumentError,
        "signatures must be a C-contiguous array",
    ),
    _row(
        "core-choose_banding-sizes-length",
        lambda: _core.choose_banding(0.5, 8, True, 0.99, 32, _signatures(), None, np.ones(2)),
        InvalidArgumentError,
        r"sizes must be 3 shingle counts, one per signature, got shape \(2,\)",
    ),
    _row(
        "core-choose_banding-sizes-nan",
        lambda: _core.choose_banding(
            0.5, 8, True, 0.99, 32, _signatures(), None, np.array([1.0, np.nan, 2.0])
        ),
        InvalidArgumentError,
        "sizes must be finite and non-negative",
    ),
    _row(
        "choose_banding-sizes-negative",
        lambda: neardup.choose_banding(0.5, 8, "exact", _signatures(), sizes=[1, -1, 2]),
        InvalidArgumentError,
        "sizes must be finite and non-negative",
    ),
    _row(
        "core-choose_banding-position-past-the-end",
        lambda: _core.choose_banding(
            0.5, 8, True, 0.99, 32, _signatures(), np.array([0, 3], np.uint64)
        ),
        InvalidArgumentError,
        "sample position 3 is past the 3 signatures",
    ),
    _row(
        "core-banding_sample-three-lanes",
        lambda: _core.banding_sample(np.zeros((3, 3), np.uint64), _signatures(), 2),
        InvalidArgumentError,
        r"digests must be uint64\[n, 2\]",
    ),
    _row(
        "core-banding_sample-rows",
        lambda: _core.banding_sample(np.zeros((2, 2), np.uint64), _signatures(), 2),
        InvalidArgumentError,
        "2 digests for 3 signatures: one digest per row",
    ),
    _row(
        "core-banding_sample-size-0",
        lambda: _core.banding_sample(np.zeros((3, 2), np.uint64), _signatures(), 0),
        InvalidArgumentError,
        "size must be at least 1",
    ),
    _row(
        "banding_sample-sizes",
        lambda: neardup.banding.banding_sample(
            np.zeros((3, 2), np.uint64), _signatures(), sizes=np.ones(4)
        ),
        InvalidArgumentError,
        "4 sizes for 3 digests: one per row",
    ),
    _row(
        "core-sample_keys-one-lane",
        lambda: _core.sample_keys(np.zeros((3, 1), np.uint64)),
        InvalidArgumentError,
        r"digests must be uint64\[n, 2\]",
    ),
    # Panics reachable from arguments (they surfaced as RuntimeError "internal error").
    _row(
        "core-lsh_duplicates-no-columns",
        lambda: _core.lsh_duplicates(np.zeros((3, 0), dtype=np.uint32), 1, 1, 0.5),
        InvalidArgumentError,
        r"bands \* rows must not exceed num_perm",
    ),
    _row(
        "core-estimate-strided-signatures",
        lambda: _core.estimate_jaccard(_signatures(num_perm=8)[:, ::2], NO_PAIRS),
        InvalidArgumentError,
        "signatures must be a C-contiguous array",
    ),
    _row(
        "core-lsh_duplicates-offsets-without-hashes",
        lambda: _core.lsh_duplicates(_signatures(), 4, 2, 0.5, np.zeros(4, dtype=np.int64)),
        InvalidArgumentError,
        "offsets and hashes go together",
    ),
    _row(
        "core-estimate-pair-out-of-range",
        lambda: _core.estimate_jaccard(_signatures(), np.array([[0, 3]], dtype=np.int64)),
        InvalidArgumentError,
        r"pairs\[0\] = \(0, 3\) is out of range for 3 documents",
    ),
    _row(
        "core-minhash-unit-bogus",
        lambda: _core.minhash_texts(GOOD, 8, 0, 5, "bogus", 1, "classic", 2),
        InvalidArgumentError,
        "unit must be 'word' or 'char'",
    ),
    _row(
        "core-minhash-algorithm-bogus",
        lambda: _core.minhash_texts(GOOD, 8, 0, 5, "word", 1, "bogus", 2),
        InvalidArgumentError,
        "algorithm must be 'classic' or 'oph'",
    ),
    # Documents the core cannot read: the error names the document.
    _row(
        "core-minhash-int-item",
        lambda: _core.minhash_texts(["ok", 3], 8, 0, 5, "word", 1, "classic", 2),  # type: ignore[list-item]
        InputTypeError,
        r"texts\[1\] is int, expected str",
    ),
    _row(
        "core-minhash-not-a-list",
        lambda: _core.minhash_texts(3, 8, 0, 5, "word", 1, "classic", 2),  # type: ignore[arg-type]
        InputTypeError,
        "texts must be a list of str",
    ),
    _row(
        "core-minhash-lone-surrogate",
        lambda: _core.minhash_texts(["ok", "bad \udc80"], 8, 0, 5, "word", 1, "classic", 2),
        InputError,
        r"texts\[1\] is not valid Unicode",
    ),
    _row(
        "core-buffer-invalid-utf8",
        lambda: _core.word_counts(
            (np.frombuffer(b"ok\xff", dtype=np.uint8), np.array([0, 2, 3], dtype=np.int64)),
            2,
        ),
        InputError,
        r"texts\[1\] is not valid UTF-8",
    ),
    _row(
        "core-buffer-offsets-past-the-data",
        lambda: _core.word_counts(
            (np.frombuffer(b"okay", dtype=np.uint8), np.array([0, 9], dtype=np.int64)),
            2,
        ),
        InputError,
        r"text offsets are inconsistent at texts\[0\]",
    ),
    _row(
        "core-buffer-wrong-dtype",
        lambda: _core.word_counts(
            (np.zeros(3, dtype=np.int8), np.array([0, 3], dtype=np.int64)),  # type: ignore[arg-type]
            2,
        ),
        InputTypeError,
        r"texts as a tuple must be \(uint8 data, int64 offsets\)",
    ),
    # Shingle sets built by hand that are not sorted and duplicate-free (a wrong Jaccard).
    _row(
        "jaccard-unsorted-set",
        lambda: neardup.jaccard(UNSORTED, [[0, 1]]),
        InputError,
        r"shingle set 0 is not sorted and duplicate-free: hashes\[0\] = 30 is followed by 10",
    ),
    _row(
        "jaccard-repeated-hash",
        lambda: neardup.jaccard(REPEATED, [[0, 1]]),
        InputError,
        r"shingle set 1 is not sorted and duplicate-free: hashes\[2\] = 7 is followed by 7",
    ),
    _row(
        "all_pairs-unsorted-set",
        lambda: neardup.all_pairs_jaccard(UNSORTED, 0.5),
        InputError,
        "shingle set 0",
    ),
    _row(
        "verify_jaccard-repeated-hash",
        lambda: neardup.verify_jaccard(REPEATED, [[0, 1]], 0.5),
        InputError,
        "shingle set 1",
    ),
    _row(
        "minhash-unsorted-set",
        lambda: neardup.minhash(UNSORTED, num_perm=8),
        InputError,
        "shingle set 0",
    ),
    _row(
        "simhash-repeated-hash",
        lambda: neardup.simhash(REPEATED),
        InputError,
        "shingle set 1",
    ),
    # The crate's one copy of the digests of exact sets and of pairs within groups.
    _row(
        "set_digests-unsorted-set",
        lambda: _core.set_digests(UNSORTED.offsets, UNSORTED.hashes),
        InputError,
        "shingle set 0 is not sorted and duplicate-free",
    ),
    _row(
        "pairs_within_groups-group-outside-the-items",
        lambda: _core.pairs_within_groups(
            np.array([2], np.int64), np.array([3], np.int64), np.arange(4, dtype=np.int64)
        ),
        InvalidArgumentError,
        r"group 0 \(start 2, size 3\) is outside the 4 items",
    ),
    _row(
        "pairs_within_groups-lengths-differ",
        lambda: _core.pairs_within_groups(
            np.array([0], np.int64), np.array([], np.int64), np.arange(4, dtype=np.int64)
        ),
        InvalidArgumentError,
        "starts and sizes must have the same length",
    ),
    # After the pass (rust/report.rs, keep.rs, cluster.rs): shapes and positions are checked.
    _row(
        "report_pairs-pairs-of-three-columns",
        lambda: _core.report_pairs(
            np.array([0, 0]), np.zeros((1, 3), np.int64), np.zeros(1, np.float32), "all"
        ),
        InvalidArgumentError,
        r"pairs must have shape \(m, 2\), got \[1, 3\]",
    ),
    _row(
        "report_pairs-one-dimensional-pairs",
        lambda: _core.report_pairs(
            np.array([0, 0]), np.zeros(2, np.int64), np.zeros(1, np.float32), "spanning"
        ),
        InvalidArgumentError,
        r"pairs must have shape \(m, 2\)",
    ),
    _row(
        "report_pairs-pair-out-of-range",
        lambda: _core.report_pairs(
            np.array([0, 1]), np.array([[0, 7]]), np.ones(1, np.float32), "all"
        ),
        InvalidArgumentError,
        r"pairs\[0\] = \(0, 7\) must join two different first occurrences of the 2 documents",
    ),
    _row(
        "report_pairs-first-not-a-first-occurrence",
        lambda: _core.report_pairs(np.array([0, 2, 2]), NO_PAIRS, np.ones(0, np.float32), "all"),
        InvalidArgumentError,
        r"first\[1\] = 2 is not a first exact duplicate",
    ),
    _row(
        "report_pairs-similarity-of-another-length",
        lambda: _core.report_pairs(
            np.array([0, 1]), np.array([[0, 1]]), np.ones(2, np.float32), "all"
        ),
        InvalidArgumentError,
        "similarity has 2 values for 1 pairs",
    ),
    # The near-pair stage (rust/near/) reads its options from the run's plan; what it checks
    # of its arrays (rows, widths, sets) is tested in rust/near/stage.rs.
    _row(
        "Run-plan-unknown-pairs-mode",
        lambda: _core.Run(_core.SetSpill(), _plan(pairs="most")),
        InvalidArgumentError,
        "pairs must be 'auto', 'all' or 'spanning', got \"most\"",
    ),
    _row(
        "Run-plan-without-verify",
        lambda: _core.Run(_core.SetSpill(), {k: v for k, v in _plan().items() if k != "verify"}),
        InvalidArgumentError,
        'the plan has no "verify"',
    ),
    _row(
        "Run-plan-with-a-word-for-k",
        lambda: _core.Run(_core.SetSpill(), _plan(k="five")),
        InvalidArgumentError,
        'the plan\'s "k" is not what a plan holds: five',
    ),
    _row(
        "Run-plan-unknown-method",
        lambda: _core.Run(_core.SetSpill(), _plan(method="sha512")),
        InvalidArgumentError,
        "method must be 'auto', 'exact-jaccard', 'minhash', 'simhash', 'sha256' or",
    ),
    _row(
        "Run-near-before-finish",
        lambda: _run(_plan()),
        InvalidArgumentError,
        r"near\(\) comes once, after finish\(\)",
    ),
    _row(
        "Run-near-twice",
        lambda: _run(_plan(), steps=2),
        InvalidArgumentError,
        r"near\(\) comes once, after finish\(\)",
    ),
    _row(
        "make_plan-auto_exact_limit-2**70",
        lambda: neardup.make_plan(auto_exact_limit=2**70),
        InvalidArgumentError,
        "auto_exact_limit must be at most 9223372036854775807",
    ),
    _row(
        "make_plan-spanning_limit-2**64",
        lambda: neardup.make_plan(spanning_limit=2**64),
        InvalidArgumentError,
        "spanning_limit must be at most 9223372036854775807",
    ),
    _row(
        "make_plan-bucket_limit-2**70",
        lambda: neardup.make_plan(bucket_limit=2**70),
        InvalidArgumentError,
        "bucket_limit must be at most 9223372036854775807",
    ),
    _row(
        "Run-keep-before-near",
        lambda: _kept(_plan(), near=False),
        InvalidArgumentError,
        r"keep\(\) comes once, after near\(\)",
    ),
    _row(
        "Run-keep-twice",
        lambda: _kept(_plan(), twice=True),
        InvalidArgumentError,
        r"keep\(\) comes once, after near\(\)",
    ),
    _row(
        "Run-keep-longest-without-lengths",
        lambda: _kept(_plan(keep="longest")),
        InvalidArgumentError,
        "keep='longest' needs one measure per document",
    ),
    _row(
        "resolve_plan-threshold-above-one",
        lambda: _core.resolve_plan(_plan(threshold=1.5), 10),
        InvalidArgumentError,
        "threshold",
    ),
    _row(
        "run_report-unknown-asked-mode",
        lambda: _core.run_report(
            np.array([0]),
            NO_PAIRS,
            np.ones(0, np.float32),
            "most",
            searched_spanning=False,
            spanning_limit=10,
            max_pairs=10,
        ),
        InvalidArgumentError,
        "asked must be 'auto', 'all' or 'spanning', got \"most\"",
    ),
    _row(
        "report_pairs-unknown-mode",
        lambda: _core.report_pairs(np.array([0]), NO_PAIRS, np.ones(0, np.float32), "some"),
        InvalidArgumentError,
        "mode must be 'all' or 'spanning'",
    ),
    _row(
        "all_pairs_count-negative-position",
        lambda: _core.all_pairs_count(np.array([0, 1]), np.array([[-1, 1]])),
        InvalidArgumentError,
        r"pairs\[0\] = \(-1, 1\)",
    ),
    _row(
        "cluster_labels-selected-out-of-range",
        lambda: _core.cluster_labels(np.array([0, 1]), np.array([0, 5]), NO_PAIRS),
        InvalidArgumentError,
        r"selected\[1\] = 5 is not an increasing position of the 2 documents",
    ),
    _row(
        "cluster_labels-pair-past-selected",
        lambda: _core.cluster_labels(np.array([0, 1]), np.array([0, 1]), np.array([[0, 2]])),
        InvalidArgumentError,
        r"pairs\[0\] = \(0, 2\) is out of range for n = 2",
    ),
    _row(
        "keep_mask-label-out-of-range",
        lambda: _core.keep_mask(np.array([0, 3]), "first"),
        InvalidArgumentError,
        r"labels\[1\] = 3 is not a position of the 2 documents",
    ),
    _row(
        "keep_mask-measure-of-another-length",
        lambda: _core.keep_mask(np.array([0, 0]), "longest", np.array([1, 2, 3])),
        InvalidArgumentError,
        "measure has 3 values for 2 documents",
    ),
    _row(
        "keep_mask-measure-of-strings",
        lambda: _core.keep_mask(np.array([0, 0]), "priority", np.array(["a", "b"])),
        InputTypeError,
        "measure must be a 1-d int64, uint64 or float64 array",
    ),
    _row(
        "keep_mask-unknown-policy",
        lambda: _core.keep_mask(np.array([0]), "last"),
        InvalidArgumentError,
        "keep must be 'first', 'longest' or 'priority'",
    ),
    _row(
        "keep_mask-longest-without-a-measure",
        lambda: _core.keep_mask(np.array([0]), "longest"),
        InvalidArgumentError,
        "needs one measure per document",
    ),
    # Boilerplate stripping (rust/boilerplate.rs): sets checked as everywhere, max_df, pass order.
    _row(
        "strip_boilerplate-unsorted-set",
        lambda: neardup.strip_boilerplate(UNSORTED, 0.5),
        InputError,
        r"shingle set 0 is not sorted and duplicate-free: hashes\[0\] = 30 is followed by 10",
    ),
    _row(
        "core-frequent_shingles-max_df-0",
        lambda: _core.frequent_shingles(GOOD_SETS.offsets, GOOD_SETS.hashes, 0.0),
        InvalidArgumentError,
        r"max_df must be in \(0, 1\], got 0",
    ),
    _row(
        "core-frequent_shingles-offsets-past-hashes",
        lambda: _core.frequent_shingles(np.array([0, 9]), np.zeros(2, np.uint64), 0.5),
        InvalidArgumentError,
        r"offsets must end at len\(hashes\) = 2, got 9",
    ),
    _row(
        "core-remove_shingles-repeated-hash",
        lambda: _core.remove_shingles(REPEATED.offsets, REPEATED.hashes, np.zeros(1, np.uint64)),
        InputError,
        "shingle set 1 is not sorted and duplicate-free",
    ),
    _row(
        "core-remove_shingles-drop-strided",
        lambda: _core.remove_shingles(
            GOOD_SETS.offsets, GOOD_SETS.hashes, np.zeros(4, np.uint64)[::2]
        ),
        InvalidArgumentError,
        "drop must be a C-contiguous array",
    ),
    _row(
        "core-FrequencyCounter-max_df-nan",
        lambda: _core.FrequencyCounter(float("nan")),
        InvalidArgumentError,
        r"max_df must be in \(0, 1\], got NaN",
    ),
    _row(
        "core-FrequencyCounter-frequent-before-count",
        lambda: _frequent_without_count(),
        InvalidArgumentError,
        r"call count\(\) on every batch before frequent\(\)",
    ),
    _row(
        "core-FrequencyCounter-uneven-passes",
        lambda: _frequent_after_uneven_passes(),
        InvalidArgumentError,
        r"count\(\) saw 2 documents, add_candidates\(\) saw 4",
    ),
    _row(
        "core-FrequencyCounter-count-unsorted",
        lambda: _core.FrequencyCounter(0.5).count(UNSORTED.offsets, UNSORTED.hashes),
        InputError,
        "shingle set 0 is not sorted",
    ),
]
