"""Bad-input rows for one set against another (find_matches, Matcher, Index containment)."""

from __future__ import annotations

from bad_input import Row

import neardup
from neardup.errors import ArgumentTypeError, InputError, InputTypeError, InvalidArgumentError

Q = ["the quick brown fox jumps over the lazy dog"]


def _find(queries, corpus, threshold=0.5, **options):
    return lambda tmp: neardup.find_matches(queries, corpus, threshold, **options)


ROWS = [
    Row("find_matches(queries=[])", _find([], ["x"]), InvalidArgumentError, "queries is empty"),
    Row("find_matches(queries='one str')", _find("one str", ["x"]), InputTypeError, "single"),
    Row("find_matches(query None)", _find([*Q, None], ["x"]), InputTypeError, r"queries\[1\]"),
    Row("find_matches(query without words)", _find([*Q, "..."], ["x"]), InputError, "no words"),
    Row(
        "find_matches(corpus item None, streamed)",
        _find(Q, iter(["a", "b", None]), batch_size=2),
        InputTypeError,
        r"corpus\[2\]",
    ),
    Row("find_matches(threshold=0)", _find(Q, ["x"], 0), InvalidArgumentError, "threshold"),
    Row("find_matches(threshold=1.5)", _find(Q, ["x"], 1.5), InvalidArgumentError, "threshold"),
    Row("find_matches(threshold='x')", _find(Q, ["x"], "x"), ArgumentTypeError, "threshold"),
    Row(
        "find_matches(measure=cosine)",
        _find(Q, ["x"], measure="cosine"),
        InvalidArgumentError,
        "measure",
    ),
    Row(
        "Matcher.add('one str')",
        lambda tmp: neardup.Matcher(Q, 0.5).add("one str"),
        InputTypeError,
        "single",
    ),
    Row(
        "Index.query(measure=overlap)",
        lambda tmp: neardup.Index(tmp / "m.ndx").query(Q, measure="overlap"),
        InvalidArgumentError,
        "measure",
    ),
]
