"""Every shell block of the README runs as written, in order, in one empty folder — as a new
user following the walkthroughs literally would run them.

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

README = Path(__file__).resolve().parents[1] / "README.md"
_BLOCK = re.compile(
    r"(<!-- readme-test: skip: (?P<reason>[^>]*?) -->\n)?```bash\n(?P<body>.*?)```", re.S
)


def _blocks() -> list[tuple[int, str, str | None]]:
    text = README.read_text(encoding="utf-8")
    return [
        (text[: m.start()].count("\n") + 1, m.group("body"), m.group("reason"))
        for m in _BLOCK.finditer(text)
    ]


def test_every_skip_names_its_reason():
    blocks = _blocks()
    assert blocks, "README has shell blocks"
    for line, _, reason in blocks:
        assert reason is None or reason.strip(), f"README.md:{line}: skip without a reason"
    assert any(reason is None for _, _, reason in blocks), "at least one block runs"


def _shell_prelude() -> str:
    # Where the package is installed (CI, a user's venv) `neardup` is on PATH; in a source
    # checkout run through PYTHONPATH, the module stands in for the script.
    if shutil.which("neardup"):
        return ""
    return f'neardup() {{ "{sys.executable}" -m neardup "$@"; }}\n'


def test_readme_shell_blocks_run_in_order(tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg")
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    ran = 0
    for line, body, reason in _blocks():
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
            f"README.md:{line}: block failed ({proc.returncode})\n{body}\n"
            f"stdout:\n{proc.stdout[-2000:]}\nstderr:\n{proc.stderr[-2000:]}"
        )
        ran += 1
    if ran == 0:
        pytest.fail("no README shell block ran")
