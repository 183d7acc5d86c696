"""The CLI keeps exactly the rows ``find_duplicates(...).keep`` keeps (issue 10 §1).

For every method x pairs mode x verification x keep policy, on a boilerplate-heavy synthetic
corpus and on real text present on every machine with Python (the docstrings of standard
library modules), ``neardup dedup`` (in-process, small batches so documents cross batch
boundaries) and ``find_duplicates`` (one in-memory batch) must keep the same rows.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

import neardup
from neardup.cli import main

_STDLIB = (
    "argparse", "collections", "csv", "email.message", "json", "logging", "os", "pathlib",
    "shutil", "subprocess", "tarfile", "unittest", "urllib.parse", "zipfile",
)  # fmt: skip


def _stdlib_docstrings() -> list[str]:
    """Docstrings of the public functions, classes and methods of a few stdlib modules (their
    near-duplicates are real: overloads, aliases, sibling methods)."""
    import importlib

    texts: list[str] = []
    for name in _STDLIB:
        module = importlib.import_module(name)
        for _, obj in sorted(vars(module).items()):
            members = [obj, *vars(obj).values()] if inspect.isclass(obj) else [obj]
            for member in members:
                doc = inspect.getdoc(member) if callable(member) else None
                if doc and len(doc.split()) >= 12 and doc not in texts[-3:]:
                    texts.append(doc)
    texts = texts[:400]
    return texts + texts[:10] + ["", "   "]  # exact copies and empty documents too


CORPORA = {
    "synthetic-boilerplate": list(
        neardup.synth.generate(bases=8, singles=24, boilerplate_share=0.3, seed=11).texts
    ),
    "stdlib-docstrings": _stdlib_docstrings(),
}
# Estimate verification only differs for the signature methods; "auto" resolves to one of the
# others (here: MinHash, past auto_exact_limit unique documents), checked once per policy.
COMBOS = [
    (method, pairs, verify, keep)
    for method in ("exact-jaccard", "minhash", "simhash", "sha256", "sha256-normalized")
    for pairs in ("all", "spanning", "auto")
    for verify in (("exact", "estimate") if method in ("minhash", "simhash") else ("exact",))
    for keep in ("first", "longest")
] + [("auto", "auto", "exact", "first"), ("auto", "auto", "exact", "longest")]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("agreement")
    paths = {}
    for name, texts in CORPORA.items():
        path = folder / f"{name}.jsonl"
        path.write_text(
            "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(texts)),
            encoding="utf-8",
        )
        paths[name] = path
    return paths


def test_corpora_have_duplicates_and_boilerplate():
    for name, texts in CORPORA.items():
        result = neardup.find_duplicates(texts, threshold=0.5, method="exact-jaccard")
        assert len(texts) >= 80 and result.num_removed >= 10, name


@pytest.mark.parametrize("corpus", sorted(CORPORA))
@pytest.mark.parametrize(("method", "pairs", "verify", "keep"), COMBOS)
def test_cli_keeps_the_rows_find_duplicates_keeps(
    inputs, tmp_path, capsys, monkeypatch, corpus, method, pairs, verify, keep
):
    texts = CORPORA[corpus]
    if keep == "longest":  # half the matrix shingles the candidates in a second pass
        monkeypatch.setattr(neardup.engine, "HOLD_SETS_BUDGET", 0)
    options = {"threshold": 0.5, "method": method, "verify": verify, "keep": keep, "k": 3}
    options["pairs"] = pairs
    # pairs="auto" with a low limit: both executors must switch to spanning pairs alike
    limit = 40 if pairs == "auto" else neardup.plan.SPANNING_LIMIT
    strip = (
        0.3
        if corpus.startswith("synthetic") and method not in ("sha256", "sha256-normalized")
        else None
    )
    api = neardup.find_duplicates(
        texts, strip_boilerplate=strip, spanning_limit=limit, auto_exact_limit=60, **options
    )
    out = tmp_path / "kept.jsonl"
    argv = ["dedup", str(inputs[corpus]), "-o", str(out), "-q", "--json", "--batch-size", "37"]
    for name, value in options.items():
        argv += [f"--{name.replace('_', '-')}", str(value)]
    argv += ["--spanning-limit", str(limit), "--auto-exact-limit", "60"]
    if strip is not None:
        argv += ["--strip-boilerplate", "--max-df", str(strip)]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    kept = [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert kept == [i for i in range(len(texts)) if api.keep[i]]
    assert summary["params"]["method"] == api.params["method"] == api.method
    assert summary["params"]["pairs_used"] == api.params["pairs_used"]
    assert summary["counts"]["clusters"] == api.num_clusters


@pytest.mark.parametrize("hash_version", neardup.plan.HASH_VERSIONS)
@pytest.mark.parametrize("extra", [{"unit": "char", "k": 7}, {"algorithm": "oph"}])
def test_hash_version_unit_and_algorithm_reach_both_executors(
    inputs, tmp_path, capsys, hash_version, extra
):
    texts = CORPORA["stdlib-docstrings"]
    options = {"threshold": 0.5, "method": "minhash", "hash_version": hash_version, **extra}
    api = neardup.find_duplicates(texts, **options)
    out = tmp_path / "kept.jsonl"
    argv = ["dedup", str(inputs["stdlib-docstrings"]), "-o", str(out), "-q", "--json"]
    for name, value in options.items():
        argv += [f"--{name.replace('_', '-')}", str(value)]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    kept = [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert kept == [i for i in range(len(texts)) if api.keep[i]]
    assert summary["params"]["hash_version"] == api.params["hash_version"] == hash_version
    assert {k: summary["params"][k] for k in extra} == extra
