"""Type stub of the compiled module ``neardup._core`` (Rust, see rust/bindings/).

``texts`` arguments are a list of str or a (uint8 UTF-8 data, int64 offsets) tuple; the public
wrappers in ``neardup.stages`` convert everything else. Errors are the classes of
``neardup.errors`` (one per kind of the Rust ``Error``; a failed file operation is the builtin
``OSError(errno, message)``; a panic, a bug, is ``RuntimeError``).
"""

import os
from collections.abc import Callable
from typing import Any, final

import numpy as np
import numpy.typing as npt

# The module's __all__ (pyo3 lists every exported name); stubtest checks it.
__all__ = [
    "BUCKET_LIMIT",
    "CANDIDATE_COST",
    "DEFAULT_RECALL",
    "DOCUMENT_COST",
    "HASH_VERSION",
    "HASH_VERSIONS",
    "MERGE_COST",
    "SAMPLE_SIZE",
    "STEEPEST",
    "UNIT_SEPARATOR",
    "BuiltSets",
    "FrequencyCounter",
    "IndexMirror",
    "ParagraphDedup",
    "QueryIndex",
    "Run",
    "SetSpill",
    "UnitJoiner",
    "all_pairs_count",
    "all_pairs_jaccard",
    "band_hashes",
    "banding_sample",
    "char_counts",
    "choose_banding",
    "cluster_labels",
    "clusters",
    "decide_banding",
    "estimate_jaccard",
    "exact_duplicates",
    "frequent_shingles",
    "hamming",
    "hamming_sample_plan",
    "hamming_search_plan",
    "hamming_table_within",
    "hamming_within",
    "index_band_keys",
    "jaccard",
    "jaccard_at_least",
    "jsonl_kept_lines",
    "jsonl_scan",
    "keep_mask",
    "label_pairs",
    "lsh_bucket_components",
    "lsh_bucket_pairs_bound",
    "lsh_candidate_search",
    "lsh_candidates",
    "lsh_duplicates",
    "lsh_expected_recall_of",
    "lsh_half_point",
    "lsh_params",
    "lsh_probability",
    "lsh_recall_bandings",
    "lsh_recall_params",
    "lsh_rows_in_candidates",
    "lsh_s_star",
    "lsh_screen_min_equal",
    "lsh_split_bucket",
    "minhash_sets",
    "minhash_texts",
    "mix64",
    "normalize",
    "pairs_within_groups",
    "paragraph_clean",
    "paragraph_units",
    "remove_shingles",
    "report_pairs",
    "resolve_plan",
    "run_report",
    "salt_signatures",
    "sample_keys",
    "set_digests",
    "sha256_digests",
    "shingle_offsets",
    "shingle_sets",
    "sign_texts",
    "simd",
    "simhash_radius",
    "simhash_sets",
    "simhash_sign_texts",
    "simhash_texts",
    "str_chars",
    "word_counts",
]

_Texts = list[str] | tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]
_Pairs = npt.NDArray[np.int64]
# One number per document that the keep policies compare, exactly in its own type.
_Measure = npt.NDArray[np.int64] | npt.NDArray[np.uint64] | npt.NDArray[np.float64]

HASH_VERSION: int
HASH_VERSIONS: tuple[int, ...]
UNIT_SEPARATOR: str

# The banding choice's constants (rust/lsh/choose.rs), read by neardup.banding.
DEFAULT_RECALL: float
BUCKET_LIMIT: int
SAMPLE_SIZE: int
STEEPEST: str
DOCUMENT_COST: int
CANDIDATE_COST: float
MERGE_COST: float

def normalize(text: str, hash_version: int) -> str: ...
def str_chars(items: list[Any]) -> int | None: ...
def word_counts(texts: _Texts, hash_version: int) -> npt.NDArray[np.int64]: ...
def shingle_offsets(
    text: str, k: int, unit: str, hash_version: int
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
def shingle_sets(
    texts: _Texts,
    k: int,
    unit: str,
    hash_version: int,
    selected: npt.NDArray[np.bool_] | None = None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint64]]: ...
def minhash_texts(
    texts: _Texts,
    num_perm: int,
    seed: int,
    k: int,
    unit: str,
    threads: int,
    algorithm: str,
    hash_version: int,
) -> npt.NDArray[np.uint32]: ...
def minhash_sets(
    offsets: npt.NDArray[np.int64],
    hashes: npt.NDArray[np.uint64],
    num_perm: int,
    seed: int,
    threads: int,
    algorithm: str,
    hash_version: int,
) -> npt.NDArray[np.uint32]: ...
def sign_texts(
    texts: _Texts,
    k: int,
    unit: str,
    hash_version: int,
    num_perm: int,
    seed: int,
    algorithm: str,
    threads: int,
    keep_sets: bool,
) -> tuple[
    npt.NDArray[np.uint32],
    npt.NDArray[np.uint64],
    npt.NDArray[np.int64],
    npt.NDArray[np.uint64] | None,
]: ...
def simhash_sign_texts(
    texts: _Texts,
    k: int,
    unit: str,
    hash_version: int,
    bits: int,
    threads: int,
    keep_sets: bool,
) -> tuple[
    npt.NDArray[np.uint64],
    npt.NDArray[np.uint64],
    npt.NDArray[np.int64],
    npt.NDArray[np.uint64] | None,
]: ...
def simhash_texts(
    texts: _Texts, bits: int, tf: bool, k: int, unit: str, threads: int, hash_version: int
) -> npt.NDArray[np.uint64]: ...
def simhash_sets(
    offsets: npt.NDArray[np.int64], hashes: npt.NDArray[np.uint64], bits: int, threads: int
) -> npt.NDArray[np.uint64]: ...
def lsh_params(threshold: float, num_perm: int) -> tuple[int, int]: ...
def lsh_s_star(bands: int, rows: int) -> float: ...
def lsh_half_point(bands: int, rows: int) -> float: ...
def lsh_probability(
    similarity: npt.NDArray[np.float64], bands: int, rows: int
) -> npt.NDArray[np.float64]: ...
def lsh_recall_bandings(
    threshold: float, num_perm: int, recall: float
) -> list[tuple[int, int]]: ...
def lsh_recall_params(threshold: float, num_perm: int, recall: float) -> tuple[int, int]: ...
def sample_keys(digests: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]: ...
def banding_sample(
    digests: npt.NDArray[np.uint64],
    signatures: npt.NDArray[np.uint32],
    size: int,
    sizes: npt.NDArray[np.int64] | None = None,
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint32], npt.NDArray[np.int64]]: ...
def choose_banding(
    threshold: float,
    num_perm: int,
    exact: bool,
    recall: float,
    bucket_limit: int | None,
    signatures: npt.NDArray[np.uint32] | None = None,
    positions: npt.NDArray[np.uint64] | None = None,
    sizes: npt.NDArray[np.float64] | None = None,
    sign_pass: tuple[int, int] | None = None,
    n: int | None = None,
) -> tuple[int, int, float, int | None, str]: ...
def decide_banding(
    threshold: float,
    num_perm: int,
    exact: bool,
    bucket_limit: int | None,
    bands: int,
    rows: int,
    *,
    given: bool,
    sample: npt.NDArray[np.uint32] | None = None,
    sizes: npt.NDArray[np.float64] | None = None,
    n: int = 0,
    sign_pass: tuple[int, int] | None = None,
) -> tuple[int, int, float, int | None, str]: ...
def band_hashes(
    signatures: npt.NDArray[np.uint32], bands: int, rows: int, threads: int = 1
) -> npt.NDArray[np.uint64]: ...
def lsh_bucket_pairs_bound(
    signatures: npt.NDArray[np.uint32],
    bands: int,
    rows: int,
    limit: int,
    threads: int = 1,
    threshold: float | None = None,
    bucket_limit: int | None = None,
) -> int: ...
def lsh_candidates(
    signatures: npt.NDArray[np.uint32],
    bands: int,
    rows: int,
    threads: int = 1,
    threshold: float | None = None,
    bucket_limit: int | None = None,
) -> _Pairs: ...
def lsh_candidate_search(
    signatures: npt.NDArray[np.uint32],
    bands: int,
    rows: int,
    threshold: float,
    bucket_limit: int | None,
    screen: bool,
    threads: int = 1,
    pair_limit: int | None = None,
) -> tuple[_Pairs | None, int, int, float, int | None]: ...
def lsh_screen_min_equal(num_perm: int, threshold: float) -> int: ...
def lsh_split_bucket(
    signatures: npt.NDArray[np.uint32],
    band: int,
    rows: int,
    key: int,
    threshold: float,
    bucket_limit: int | None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], int]: ...
def lsh_expected_recall_of(
    charged: npt.NDArray[np.int64], documents: int, bands: int, rows: int, threshold: float
) -> float: ...
def lsh_rows_in_candidates(
    signatures: npt.NDArray[np.uint32],
    bands: int,
    rows: int,
    threads: int = 1,
    threshold: float | None = None,
    bucket_limit: int | None = None,
) -> npt.NDArray[np.bool_]: ...
def lsh_bucket_components(
    signatures: npt.NDArray[np.uint32],
    bands: int,
    rows: int,
    threads: int = 1,
    threshold: float | None = None,
    bucket_limit: int | None = None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], int]: ...
def lsh_duplicates(
    signatures: npt.NDArray[np.uint32],
    bands: int,
    rows: int,
    threshold: float,
    offsets: npt.NDArray[np.int64] | None = None,
    hashes: npt.NDArray[np.uint64] | None = None,
    spanning: bool = False,
    threads: int = 1,
    bucket_limit: int | None = None,
) -> tuple[_Pairs, npt.NDArray[np.float32]]: ...
def estimate_jaccard(
    signatures: npt.NDArray[np.uint32], pairs: _Pairs
) -> npt.NDArray[np.float32]: ...
def jaccard(
    offsets: npt.NDArray[np.int64],
    hashes: npt.NDArray[np.uint64],
    pairs: _Pairs,
    threads: int = 1,
) -> npt.NDArray[np.float32]: ...
def jaccard_at_least(
    offsets: npt.NDArray[np.int64],
    hashes: npt.NDArray[np.uint64],
    pairs: _Pairs,
    threshold: float,
    threads: int = 1,
) -> tuple[_Pairs, npt.NDArray[np.float32]]: ...
def all_pairs_jaccard(
    offsets: npt.NDArray[np.int64], hashes: npt.NDArray[np.uint64], threshold: float
) -> tuple[_Pairs, npt.NDArray[np.float32]]: ...
def hamming(fingerprints: npt.NDArray[np.uint64], pairs: _Pairs) -> npt.NDArray[np.int32]: ...
def hamming_within(
    fingerprints: npt.NDArray[np.uint64],
    max_distance: int,
    active: npt.NDArray[np.bool_],
    threads: int = 1,
) -> tuple[_Pairs, npt.NDArray[np.int32]]: ...
def hamming_search_plan(
    fingerprints: npt.NDArray[np.uint64],
    max_distance: int,
    active: npt.NDArray[np.bool_],
    threads: int = 1,
) -> tuple[str, int, float, float, float]: ...
def hamming_sample_plan(
    sample: npt.NDArray[np.uint64], max_distance: int, distinct: int
) -> tuple[
    tuple[str, int, float, float, float], npt.NDArray[np.uint64], int, npt.NDArray[np.uint64]
]: ...
def hamming_table_within(
    fingerprints: npt.NDArray[np.uint64],
    max_distance: int,
    free: npt.NDArray[np.uint64],
    blocks: int,
    table: int,
) -> tuple[_Pairs, npt.NDArray[np.int32]]: ...
def exact_duplicates(
    texts: _Texts, normalized: bool, hash_version: int, threads: int = 1
) -> npt.NDArray[np.int64]: ...
def sha256_digests(
    texts: _Texts, normalized: bool, hash_version: int, threads: int = 1
) -> npt.NDArray[np.uint64]: ...
def clusters(pairs: _Pairs, n: int) -> npt.NDArray[np.int64]: ...
def mix64(values: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]: ...
def salt_signatures(
    signatures: npt.NDArray[np.uint32], partitions: npt.NDArray[np.uint64]
) -> None: ...
def simd() -> str: ...
def set_digests(
    offsets: npt.NDArray[np.int64], hashes: npt.NDArray[np.uint64]
) -> npt.NDArray[np.uint64]: ...
def pairs_within_groups(
    starts: npt.NDArray[np.int64], sizes: npt.NDArray[np.int64], items: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]: ...
def label_pairs(labels: npt.NDArray[np.int64]) -> _Pairs: ...
def cluster_labels(
    first: npt.NDArray[np.int64], selected: npt.NDArray[np.int64], pairs: _Pairs
) -> npt.NDArray[np.int64]: ...
def char_counts(
    texts: list[str] | tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]],
) -> npt.NDArray[np.int64]: ...
def keep_mask(
    labels: npt.NDArray[np.int64],
    policy: str,
    measure: _Measure | None = None,
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]: ...
def all_pairs_count(first: npt.NDArray[np.int64], pairs: _Pairs) -> int: ...
def report_pairs(
    first: npt.NDArray[np.int64], pairs: _Pairs, similarity: npt.NDArray[np.float32], mode: str
) -> tuple[_Pairs, npt.NDArray[np.float32]]: ...
def run_report(
    first: npt.NDArray[np.int64],
    pairs: _Pairs,
    similarity: npt.NDArray[np.float32],
    asked: str,
    *,
    searched_spanning: bool,
    spanning_limit: int,
    max_pairs: int,
) -> tuple[_Pairs, npt.NDArray[np.float32], str, int | None]: ...
def index_band_keys(
    signatures: npt.NDArray[np.uint32], bands: int, rows: int
) -> npt.NDArray[np.uint64]: ...
def jsonl_scan(
    block: npt.NDArray[np.uint8],
    start: int,
    text: npt.NDArray[np.uint8],
    last: bool,
    text_field: str,
    id_field: str | None,
    id_required: bool,
    max_rows: int,
    threads: int = 1,
) -> tuple[
    int,
    npt.NDArray[np.int64],
    npt.NDArray[np.uint8],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    int,
    int,
]: ...
def jsonl_kept_lines(
    block: npt.NDArray[np.uint8], last: bool, keep: npt.NDArray[np.bool_]
) -> tuple[int, bool, int, int, int]: ...

@final
class IndexMirror:
    def __new__(
        cls,
        num_perm: int,
        bands: int,
        rows: int,
        match_type: type[tuple[str, float]],
        threshold: float,
        bucket_limit: int | None,
    ) -> IndexMirror: ...
    def __len__(self) -> int: ...
    def bucket_splits(self) -> int: ...
    def expected_recall(self) -> float: ...
    def entry_count(self) -> int: ...
    def append(self, signatures: npt.NDArray[np.uint32], ids: list[str]) -> int: ...
    def forget(self, rows: npt.NDArray[np.int64]) -> None: ...
    def lookup(
        self, signatures: npt.NDArray[np.uint32], threshold: float, top_k: int
    ) -> list[list[tuple[str, float]]]: ...
    def containment(
        self,
        signatures: npt.NDArray[np.uint32],
        query_sizes: npt.NDArray[np.int64],
        stored_sizes: npt.NDArray[np.int64],
        threshold: float,
        top_k: int,
    ) -> list[list[tuple[str, float]]]: ...

# One run (rust/run/mod.rs): the plan's dict read once, the boilerplate counted in two passes
# (when the plan strips it), the sign pass per batch, then the collapse and the plan resolved
# for the unique documents (finish), the near stage (near), then the keep policy and the
# reported pairs (keep).
@final
class Run:
    def __new__(
        cls,
        spill: SetSpill,
        plan: dict[str, Any],
        *,
        salts: npt.NDArray[np.uint64] | None = None,
        budget: int = 0,
    ) -> Run: ...
    def __len__(self) -> int: ...
    def count_boilerplate(
        self,
        texts: list[str] | tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]],
        *,
        second: bool,
    ) -> None: ...
    def sign(
        self,
        texts: list[str] | tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]],
    ) -> None: ...
    def finish(self) -> dict[str, Any]: ...
    def near(
        self,
        *,
        verify_budget: int,
        before_search: Callable[[tuple[str, int, float, float, float]], object] | None = None,
        progress: Callable[[str, int, str], object] | None = None,
    ) -> dict[str, Any]: ...
    def keep(
        self,
        measure: _Measure | None = None,
        *,
        report: bool,
        max_pairs: int,
    ) -> tuple[
        npt.NDArray[np.bool_],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.float32],
        str | None,
        int | None,
    ]: ...

def resolve_plan(plan: dict[str, Any], n: int) -> dict[str, Any]: ...
def simhash_radius(threshold: float, bits: int) -> int: ...

# Rows joined into units (rust/units.rs): the units each batch of rows completes, in unit order,
# as Arrow-style texts.
@final
class UnitJoiner:
    def __new__(cls, of_row: npt.NDArray[np.int64], units: int) -> UnitJoiner: ...
    def add(
        self,
        texts: list[str] | tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]],
    ) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]: ...
    @property
    def units_left(self) -> int: ...

# The memory of shingle sets the crate built (rust/bindings/sets.rs): the base object of their
# read-only arrays, which stages take back without checking each set's order again.
@final
class BuiltSets: ...

# The spill file (rust/spill/mod.rs): the unique documents' sets on disk.
@final
class SetSpill:
    def __new__(cls, directory: str | os.PathLike[str] | None = None) -> SetSpill: ...
    def add(
        self,
        offsets: npt.NDArray[np.int64],
        hashes: npt.NDArray[np.uint64],
        rows: npt.NDArray[np.int64],
        at: npt.NDArray[np.int64],
    ) -> None: ...
    def finish(self, n: int) -> None: ...
    def sizes(self) -> npt.NDArray[np.int64]: ...
    def read(
        self, docs: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint64]]: ...
    @property
    def active(self) -> bool: ...
    @property
    def hashes(self) -> int: ...
    def close(self) -> None: ...
    def _fail_write_at(self, n: int | None) -> None: ...
    @property
    def _writes(self) -> int: ...
    @property
    def _reads(self) -> int: ...

# Boilerplate stripping (rust/boilerplate.rs) on shingle sets (offsets int64[n+1], hashes).
def frequent_shingles(
    offsets: npt.NDArray[np.int64], hashes: npt.NDArray[np.uint64], max_df: float
) -> npt.NDArray[np.uint64]: ...
def remove_shingles(
    offsets: npt.NDArray[np.int64], hashes: npt.NDArray[np.uint64], drop: npt.NDArray[np.uint64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint64], npt.NDArray[np.int64]]: ...

@final
class FrequencyCounter:
    def __new__(cls, max_df: float) -> FrequencyCounter: ...
    def add_candidates(
        self, offsets: npt.NDArray[np.int64], hashes: npt.NDArray[np.uint64]
    ) -> None: ...
    def count(self, offsets: npt.NDArray[np.int64], hashes: npt.NDArray[np.uint64]) -> None: ...
    def frequent(self) -> npt.NDArray[np.uint64]: ...
    @property
    def max_df(self) -> float: ...
    @property
    def n_docs(self) -> int: ...
    @property
    def candidates(self) -> npt.NDArray[np.uint64]: ...
    @property
    def counts(self) -> npt.NDArray[np.int64]: ...

# Paragraph dedup (rust/paragraphs.rs): (texts, removed, units, words, spans int64[m, 3]).
_ParagraphBatch = tuple[
    list[str],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
]

@final
class ParagraphDedup:
    def __new__(
        cls,
        split: str,
        hash_version: int,
        threads: int = 1,
        bloom_bits: int | None = None,
        bloom_hashes: int = 7,
    ) -> ParagraphDedup: ...
    def add(self, texts: _Texts) -> _ParagraphBatch: ...
    @property
    def units(self) -> int: ...
    @property
    def removed(self) -> int: ...
    @property
    def bloom(self) -> tuple[int, float, int] | None: ...

def paragraph_units(texts: _Texts, split: str) -> tuple[list[str], npt.NDArray[np.int64]]: ...
def paragraph_clean(
    texts: _Texts,
    split: str,
    hash_version: int,
    duplicate: npt.NDArray[np.bool_],
    threads: int = 1,
) -> _ParagraphBatch: ...

# One set against another (rust/matches.rs): the queries' exact inverted index.
@final
class QueryIndex:
    def __new__(cls, queries: _Texts, k: int, unit: str, hash_version: int) -> QueryIndex: ...
    def matches(
        self, texts: _Texts, measure: str, threshold: float, threads: int = 1
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]: ...
    def sizes(self) -> npt.NDArray[np.int64]: ...
    @property
    def nbytes(self) -> int: ...
    @property
    def distinct(self) -> int: ...
    def __len__(self) -> int: ...
