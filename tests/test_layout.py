"""The package imports downwards: no import circle among the modules of python/neardup,
counting every import (module level, inside functions, and under ``TYPE_CHECKING``), and no
function reaching back up to the package top for a name it re-exports (``from neardup import
shingles`` inside a function; importing a submodule, ``from neardup import io``, is fine).

A package importing its own children (``neardup/__init__.py``, ``io/__init__.py``) is not a
circle of design and is left out, as are imports of the compiled ``neardup._core``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "python"


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted((ROOT / "neardup").rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = path
    return out


def _imports(mods: dict[str, Path]) -> tuple[dict[str, set[str]], list[str]]:
    """(module -> the package modules it imports, the function-local imports of the top)."""
    graph: dict[str, set[str]] = {m: set() for m in mods}
    upward = []
    for m, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = m.split(".") if path.name == "__init__.py" else m.split(".")[:-1]
        local = {
            id(node)
            for f in ast.walk(tree)
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            for node in ast.walk(f)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    stem = package[: len(package) - node.level + 1]
                    base = ".".join([*stem, *([base] if base else [])])
                targets = [f"{base}.{a.name}" for a in node.names] + [base]
                names = {f"neardup.{a.name}" for a in node.names} - {*mods, "neardup._core"}
                if base == "neardup" and id(node) in local and names:
                    upward.append(f"{path.name}:{node.lineno}")
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for t in targets:
                while t not in mods and "." in t:
                    t = t.rsplit(".", 1)[0]
                if t in mods and t != m and not t.startswith(m + ".") and t != "neardup":
                    graph[m].add(t)
    return graph, upward


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_circle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_in_the_package():
    graph, _ = _imports(_modules())
    assert len(graph) > 50  # the walk found the package
    assert _circles(graph) == []


def test_no_function_imports_from_the_package_top():
    _, upward = _imports(_modules())
    assert upward == []


RUST = ROOT.parent / "rust"


def _rust_modules() -> dict[str, Path]:
    """Module path (``minhash::v2``; ``crate`` for lib.rs) -> file, unit-test files left out."""
    out = {}
    for path in sorted(RUST.rglob("*.rs")):
        if path.name == "tests.rs" or path.stem.endswith("_tests"):
            continue
        parts = list(path.relative_to(RUST).with_suffix("").parts)
        if parts[-1] in ("mod", "lib"):
            parts = parts[:-1]
        out["::".join(parts) or "crate"] = path
    return out


def _rust_uses(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the modules its code (comments and unit tests left out) names through a
    ``crate::`` or ``super::`` path; a module naming its own parent or child is not counted:
    a stage's folder is one piece."""
    graph: dict[str, set[str]] = {m: set() for m in mods}
    longest = sorted(mods, key=len, reverse=True)
    for m, path in mods.items():
        text = path.read_text("utf-8")
        src = re.split(r"#\[cfg\(test\)\]\s*(?:#\[path[^\]]*\]\s*)?mod tests", text)[0]
        src = re.sub(r"//[^\n]*", "", src)
        own = [] if m == "crate" else m.split("::")
        for supers, rest in re.findall(r"\b((?:super::)+|crate::)([A-Za-z0-9_:]+)", src):
            # `super` is the parent of this file's module (inline modules are left out)
            base = [] if supers == "crate::" else own[: len(own) - supers.count("super::")]
            full = "::".join([*base, rest])
            for n in longest:
                if n != "crate" and (full == n or full.startswith(n + "::")):
                    if n != m and not m.startswith(n + "::") and not n.startswith(m + "::"):
                        graph[m].add(n)
                    break
    return graph


def test_no_module_circle_in_the_crate():
    graph = _rust_uses(_rust_modules())
    assert len(graph) > 30  # the walk found the crate
    assert "normalize" in graph["shingle"]  # and sees the modules a file names
    assert "minhash" in graph["signing"]
    assert _circles(graph) == []
