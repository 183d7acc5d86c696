"""Every shell block of README.md and of each docs/*.md page runs as written, in order, in one
empty folder per page — as a new user following a page's walkthrough literally would run it.
So each page's blocks start from their own setup (``neardup synth``), never from another page's.

A block that cannot run inside the test suite (it installs the package, builds, or runs for
minutes) is preceded by ``<!-- readme-test: skip: REASON -->``; every skip gives its reason.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(
    r"(<!-- readme-test: skip: (?P<reason>[^>]*?) -->\n)?```bash\n(?P<body>.*?)```", re.S
)


def shell_blocks(page: Path) -> list[tuple[int, str, str | None]]:
    """(line, script, skip reason or None) of every ```bash block of a page."""
    text = page.read_text(encoding="utf-8")
    return [
        (text[: m.start()].count("\n") + 1, m.group("body"), m.group("reason"))
        for m in _BLOCK.finditer(text)
    ]


def test_every_skip_names_its_reason():
    blocks = [(page, block) for page in PAGES for block in shell_blocks(page)]
    assert blocks, "README and docs have shell blocks"
    for page, (line, _, reason) in blocks:
        assert reason is None or reason.strip(), f"{page.name}:{line}: skip without a reason"
    assert any(reason is None for _, (_, _, reason) in blocks), "at least one block runs"


def _shell_prelude() -> str:
    # Where the package is installed (CI, a user's venv) `neardup` is on PATH; in a source
    # checkout run through PYTHONPATH, the module stands in for the script.
    if shutil.which("neardup"):
        return ""
    return f'neardup() {{ "{sys.executable}" -m neardup "$@"; }}\n'


@pytest.mark.parametrize(
    "page",
    [page for page in PAGES if any(reason is None for _, _, reason in shell_blocks(page))],
    ids=lambda page: str(page.relative_to(ROOT)),
)
def test_shell_blocks_run_in_order(page, tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg")
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    for line, body, reason in shell_blocks(page):
        if reason is not None:
            continue
        script = "set -euo pipefail\n" + _shell_prelude() + body
        proc = subprocess.run(
            ["bash", "-c", script],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, (
            f"{page.name}:{line}: block failed ({proc.returncode})\n{body}\n"
            f"stdout:\n{proc.stdout[-2000:]}\nstderr:\n{proc.stderr[-2000:]}"
        )
