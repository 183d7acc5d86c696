"""``DuplicateResult.reason`` and ``DuplicateResult.groups()``, in Python and from the CLI
(``--annotate``'s reason column, ``--groups``), against plain-Python definitions."""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import neardup
from neardup.dedup import dedup_files
from neardup.groups import duplicate_groups, same_bytes

DOCS = [
    "the cat sat on the mat today",  # 0 kept
    "the cat sat on the mat today",  # 1 exact
    "The cat sat on the mat, today!",  # 2 normalized
    "the cat sat on the mat yesterday",  # 3 near
    "something else entirely here",  # 4 kept alone
    "something else entirely here",  # 5 exact
    "",  # 6 empty: kept
    "",  # 7 empty: never a duplicate
]


def _reasons_by_definition(result, texts):
    """Each row's reason from the plain definitions."""
    out = []
    for i, text in enumerate(texts):
        rep = int(result.representative[i])
        if result.keep[i]:
            out.append("kept")
        elif text == texts[rep]:
            out.append("exact")
        elif neardup.normalize(text) == neardup.normalize(texts[rep]):
            out.append("normalized")
        else:
            out.append("near")
    return out


def test_reason_values():
    r = neardup.find_duplicates(DOCS, k=2, threshold=0.5)
    assert (
        r.reason.tolist() == ["kept", "exact", "normalized", "near", "kept", "exact"] + ["kept"] * 2
    )
    assert r.reason.tolist() == _reasons_by_definition(r, DOCS)


@pytest.mark.parametrize("kind", ["list", "arrow"])
@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a b c d", "A b c d", "a b c d!", "a b c e", "x y z", "X Y Z", ""]),
        max_size=20,
    ),
    st.sampled_from(["first", "longest"]),
)
def test_reason_matches_the_definition(kind, docs, keep):
    texts = docs
    if kind == "arrow":
        pa = pytest.importorskip("pyarrow")
        texts = pa.array(docs, type=pa.string())
    r = neardup.find_duplicates(texts, k=2, threshold=0.5, keep=keep)
    assert r.reason.tolist() == _reasons_by_definition(r, docs)


def test_same_bytes_on_buffers():
    data = np.frombuffer(b"abcabdab", dtype=np.uint8)
    offsets = np.array([0, 3, 6, 8, 8, 8], dtype=np.int64)  # abc, abd, ab, "", ""
    rows, other = np.array([1, 2, 4, 0]), np.array([0, 0, 3, 0])
    assert same_bytes((data, offsets), rows, other).tolist() == [False, False, True, True]


def test_annotate_has_the_reason_column():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"text": DOCS})
    r = neardup.find_duplicates(frame["text"], k=2, threshold=0.5)
    assert frame.pipe(r.annotate)["reason"].tolist() == r.reason.tolist()
    # Re-chosen kept documents: the reasons follow them.
    scores = np.arange(len(DOCS))[::-1].copy()
    scores[0] = -1
    again = r.annotate(frame.assign(score=scores), keep="score")
    assert again["reason"].tolist()[:4] == ["exact", "kept", "normalized", "near"]


def _groups_by_definition(result):
    members = defaultdict(list)
    for i, c in enumerate(result.clusters.tolist()):
        members[c].append(i)
    out = []
    for rows in members.values():
        if len(rows) < 2:
            continue
        kept = int(result.representative[rows[0]])
        ordered = [kept] + [m for m in rows if m != kept]
        low = min(float(result.kept_similarity[m]) for m in rows)
        out.append((len(rows), kept, ordered, low))
    out.sort(key=lambda g: (-g[0], g[1]))
    return out


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a b c d", "a b c e", "a b x e", "x y z", "x y w", "q"]), max_size=30
    ),
    st.sampled_from(["first", "longest"]),
)
def test_groups_match_the_definition(docs, keep):
    r = neardup.find_duplicates(docs, k=1, threshold=0.5, keep=keep)
    g = r.groups()
    want = _groups_by_definition(r)
    assert len(g) == len(want) == r.num_clusters
    for got, (size, kept, ordered, low) in zip(g, want, strict=True):
        assert (got["size"], got["kept"]) == (size, kept)
        assert got["members"].tolist() == ordered
        assert got["min_similarity"] == pytest.approx(low)


def test_groups_tables_and_html():
    r = neardup.find_duplicates(DOCS, k=2, threshold=0.5)
    g = r.groups()
    assert g.size.tolist() == [4, 2] and g.kept.tolist() == [0, 4]
    frame = g.to_pandas()
    assert frame["members"].map(list).tolist() == [[0, 1, 2, 3], [4, 5]]
    table = g.to_arrow()
    assert table.column("members").to_pylist() == [[0, 1, 2, 3], [4, 5]]
    page = g._repr_html_()
    assert "the cat sat" in page and "2 duplicate groups" in page
    assert len(neardup.find_duplicates(["a", "b"], k=1).groups()) == 0
    with pytest.raises(IndexError):
        g[2]


def test_groups_nan_similarity_of_a_hand_built_result():
    g = duplicate_groups(
        np.array([0, 0, 2]),
        np.array([True, False, True]),
        np.array([0, 0, 2]),
        np.array([1.0, np.nan, 1.0]),
    )
    assert np.isnan(g.min_similarity[0]) and g.size.tolist() == [2]


def test_cli_groups_and_reason(tmp_path):
    rows = [{"id": f"d{i}", "text": t} for i, t in enumerate(DOCS)]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    groups, annotated, report = tmp_path / "g.jsonl", tmp_path / "all.jsonl", tmp_path / "r.md"
    summary = dedup_files(
        [str(source)],
        None,
        annotate=str(annotated),
        groups=str(groups),
        report=str(report),
        k=2,
        threshold=0.5,
        batch_size=3,
    )
    lines = [json.loads(line) for line in groups.read_text().splitlines()]
    expected = neardup.find_duplicates(DOCS, k=2, threshold=0.5).groups()
    assert [line["members"] for line in lines] == [
        [f"d{m}" for m in expected[g]["members"].tolist()] for g in range(len(expected))
    ]
    assert lines[0]["kept"] == "d0" and lines[0]["size"] == 4
    reasons = [json.loads(line)["reason"] for line in annotated.read_text().splitlines()]
    assert reasons == neardup.find_duplicates(DOCS, k=2, threshold=0.5).reason.tolist()
    assert summary.reasons == {"kept": 4, "exact": 2, "normalized": 1, "near": 1}
    assert "reason: normalized | 1" in report.read_text()
