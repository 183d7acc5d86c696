"""Bad-input rows for the in-memory API: options are checked up front, whatever the size."""

from __future__ import annotations

from bad_input import Row

import neardup
from neardup.errors import ArgumentTypeError, InputTypeError, InvalidArgumentError

SMALL = ["one two three four five six", "one two three four five seven"]

# Validation must not depend on corpus size (issue 9 item 8): each bad option fails on a
# 2-document corpus (auto picks exact Jaccard) exactly as it would on a large one.
_BAD_OPTIONS = [
    ("num_perm=0", {"num_perm": 0}, InvalidArgumentError, "num_perm"),
    ("num_perm=2**40", {"num_perm": 2**40}, InvalidArgumentError, "num_perm"),
    ("num_perm=True", {"num_perm": True}, ArgumentTypeError, "num_perm"),
    ("seed=-1", {"seed": -1}, InvalidArgumentError, "seed"),
    ("seed=2**64", {"seed": 2**64}, InvalidArgumentError, "seed"),
    ("bands*rows>num_perm", {"bands": 50, "rows": 3}, InvalidArgumentError, "exceeds num_perm"),
    ("bands without rows", {"bands": 4}, InvalidArgumentError, "both bands and rows"),
    ("bands=0", {"bands": 0, "rows": 1}, InvalidArgumentError, "bands"),
    ("algorithm=bogus", {"algorithm": "bogus"}, InvalidArgumentError, "algorithm"),
    ("method=bogus", {"method": "bogus"}, InvalidArgumentError, "method"),
    ("unit=line", {"unit": "line"}, InvalidArgumentError, "unit"),
    ("k=0", {"k": 0}, InvalidArgumentError, "k must be"),
    ("k='5'", {"k": "5"}, ArgumentTypeError, "k must be an int"),
    ("verify=maybe", {"verify": "maybe"}, InvalidArgumentError, "verify"),
    ("pairs=some", {"pairs": "some"}, InvalidArgumentError, "pairs"),
    ("threads=0", {"threads": 0}, InvalidArgumentError, "threads"),
    ("simhash_bits=32", {"simhash_bits": 32}, InvalidArgumentError, "simhash_bits"),
    ("max_hamming=-1", {"max_hamming": -1}, InvalidArgumentError, "max_hamming"),
    ("threshold=0", {"threshold": 0}, InvalidArgumentError, "threshold"),
    ("threshold=1.5", {"threshold": 1.5}, InvalidArgumentError, "threshold"),
    ("threshold=nan", {"threshold": float("nan")}, InvalidArgumentError, "threshold"),
    ("threshold='x'", {"threshold": "x"}, ArgumentTypeError, "threshold"),
    ("strip_boilerplate=0", {"strip_boilerplate": 0.0}, InvalidArgumentError, "strip_boilerplate"),
    ("hash_version=99", {"hash_version": 99}, InvalidArgumentError, "hash_version"),
]


def _find(options):
    return lambda tmp: neardup.find_duplicates(SMALL, **options)


ROWS = [
    Row(f"find_duplicates({name})", _find(options), raises, match)
    for name, options, raises, match in _BAD_OPTIONS
]

# A single str where a sequence of documents (or ids) goes is refused, never iterated as
# characters (issue 26 item 2; Index.remove is in bad_input_index.py).
ROWS += [
    Row("calibrate('one str')", lambda tmp: neardup.calibrate("one two"), InputTypeError, "single"),
    Row(
        "strip_boilerplate('one str')",
        lambda tmp: neardup.strip_boilerplate("one two"),
        ArgumentTypeError,
        "must be a ShingleSets",
    ),
    Row(
        "pairs_within_groups('one str')",
        lambda tmp: neardup.pairs_within_groups("one two"),
        InvalidArgumentError,
        "1-d integer array",
    ),
    Row(
        "open_sources('one path') is one path",
        lambda tmp: _one_path(tmp),
        check=lambda n: n == 1,
    ),
]


def _one_path(tmp):
    from neardup import io as ndio

    (tmp / "c.jsonl").write_text('{"text": "one two"}\n')
    sources = ndio.open_sources(str(tmp / "c.jsonl"))
    try:
        return len(sources)
    finally:
        for s in sources:
            s.close()
