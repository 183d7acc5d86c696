"""Every Python block of README.md and docs/*.md runs and gives the values its comments promise.

A block runs on its own (a fresh namespace, in an empty folder), statement by statement. An
expression statement whose comment holds ``->`` promises a value: ``result.keep  # -> [True,
False]`` (the text after the last ``->`` is evaluated in the block's namespace and compared
with the value, numpy arrays through ``tolist()``). A block that imports an optional package
(pandas, polars, datasets) is skipped where that package is missing. A block that cannot run
in the test suite (it needs a Ray cluster, say) is preceded by ``<!-- readme-test: skip:
REASON -->``; every skip gives its reason.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(
    r"(<!-- readme-test: skip: (?P<reason>[^>]*?) -->\n)?```python\n(?P<body>.*?)```", re.S
)


def python_blocks(page: Path) -> list[tuple[int, str, str | None]]:
    """(line, code, skip reason or None) of every ```python block of a page."""
    text = page.read_text(encoding="utf-8")
    return [
        (text[: m.start("body")].count("\n") + 1, m.group("body"), m.group("reason"))
        for m in _BLOCK.finditer(text)
    ]


def _blocks() -> list:
    return [
        pytest.param(page, line, code, reason, id=f"{page.relative_to(ROOT)}:{line}")
        for page in PAGES
        for line, code, reason in python_blocks(page)
    ]


def _promises(code: str) -> dict[int, str]:
    """Line number -> the promised value's source, for every comment holding ``->``."""
    found = {}
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT and "->" in token.string:
            found[token.start[0]] = token.string.rsplit("->", 1)[1].strip()
    return found


def _plain(value):
    return value.tolist() if isinstance(value, np.ndarray | np.generic) else value


def run_block(code: str, where: str) -> int:
    """Run one block; return how many promised values it checked."""
    tree = ast.parse(code)
    for node in ast.walk(tree):  # an optional package missing here skips the block
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            for name in names:
                if name and name.split(".")[0] != "neardup":
                    pytest.importorskip(name.split(".")[0])
    promises = _promises(code)
    namespace: dict = {}
    checked = 0
    for statement in tree.body:
        promise = promises.pop(statement.end_lineno, None)
        source = ast.Module(body=[statement], type_ignores=[])
        if promise is None:
            exec(compile(source, where, "exec"), namespace)
            continue
        assert isinstance(statement, ast.Expr), (
            f"{where}: line {statement.end_lineno} promises a value but is not an expression"
        )
        value = eval(compile(ast.Expression(statement.value), where, "eval"), namespace)
        expected = eval(promise, namespace)
        assert _plain(value) == expected, f"{where}: line {statement.end_lineno}: {value!r}"
        checked += 1
    assert not promises, f"{where}: promises inside a statement, not after it: {promises}"
    return checked


@pytest.mark.parametrize(("page", "line", "code", "reason"), _blocks())
def test_python_block_gives_what_its_comments_say(page, line, code, reason, tmp_path, monkeypatch):
    if reason is not None:
        assert reason.strip(), f"{page.name}:{line}: skip without a reason"
        pytest.skip(reason)
    monkeypatch.chdir(tmp_path)  # blocks may write files (an index, say)
    run_block(code, f"{page.name}:{line}")


def test_ten_line_example_promises_every_result_field():
    # the README's first example is the one every reader runs: its four promises stay checked
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    line, code, reason = next(
        block for block in python_blocks(ROOT / "README.md") if "find_duplicates" in block[1]
    )
    assert reason is None
    assert "## In ten lines" in text[: text.index(code)]
    promised = {
        re.match(r"result\.(\w+)", code.splitlines()[number - 1]).group(1)
        for number in _promises(code)
    }
    assert promised == {"pairs", "similarity", "clusters", "keep"}
    assert run_block(code, f"README.md:{line}") == 4


def test_a_wrong_promise_fails():
    with pytest.raises(AssertionError):
        run_block("x = [1, 2]\nlen(x)  # -> 3\n", "example")
    with pytest.raises(AssertionError, match="not an expression"):
        run_block("x = 2  # -> 2\n", "example")
    assert run_block("import numpy as np\nnp.arange(2)  # an array -> [0, 1]\n", "example") == 1
