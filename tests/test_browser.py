"""The HTML report and an Explanation's HTML opened in a real browser (headless Chromium, as
Debian packages it; .ci/run installs it): the page loads with no console message (no error,
no blocked load), the DOM holds the highlighted spans and the plot, and a screenshot shows
them (their colours are on screen). The screenshots and pages are kept in
``$NEARDUP_ARTIFACTS`` (CI: .ci-artifacts/) or the test's temporary folder.

Skipped only when no Chromium binary exists (``$NEARDUP_CHROMIUM`` names one explicitly).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

import neardup
from neardup.dedup import dedup_files

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "chrome")
BROWSER = os.environ.get("NEARDUP_CHROMIUM") or next(
    (found for name in CANDIDATES if (found := shutil.which(name))), None
)
pytestmark = pytest.mark.skipif(
    BROWSER is None, reason="no chromium binary (apt-get install chromium; .ci/run does)"
)
Image = pytest.importorskip("PIL.Image")  # Pillow comes with matplotlib (the test extra)

CSP = (
    "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; "
    "style-src 'unsafe-inline'; img-src data:\">"
)


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    where = os.environ.get("NEARDUP_ARTIFACTS")
    path = Path(where) if where else tmp_path_factory.mktemp("browser")
    path.mkdir(parents=True, exist_ok=True)
    return path.resolve()


_PROFILE = tempfile.mkdtemp(prefix="neardup-chromium-")  # not an artefact


def _chromium(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = _PROFILE
    command = [
        str(BROWSER),
        "--headless",
        "--no-sandbox",  # CI runs as root
        "--disable-gpu",
        "--no-first-run",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        "--enable-logging=stderr",
        "--v=0",
        *args,
    ]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


def _console(proc: subprocess.CompletedProcess[str]) -> list[str]:
    """The page's console messages Chromium logged (it has no script: any is an error or a
    blocked load)."""
    return [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]


def _open(out: Path, page: Path, shot: str, height: int = 1200) -> tuple[str, np.ndarray]:
    """The page's DOM after load and a screenshot of its top ``height`` pixels (RGB array),
    both with no console message."""
    url = page.as_uri()
    dom = _chromium(out, "--dump-dom", url)
    assert _console(dom) == [], _console(dom)
    png = out / shot
    pic = _chromium(out, f"--window-size=1280,{height}", f"--screenshot={png}", url)
    assert _console(pic) == [], _console(pic)
    with Image.open(png) as im:
        return dom.stdout, np.asarray(im.convert("RGB"), dtype=np.int16)


def _pixels(rgb: np.ndarray, colour: tuple[int, int, int], tolerance: int = 12) -> int:
    return int((np.abs(rgb - np.array(colour)) <= tolerance).all(axis=2).sum())


def _highlight(rgb: np.ndarray) -> int:
    """Pixels of a highlight: yellow (the report's mark colour, or the browser's default)."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    return int(((r > 220) & (g > 200) & (b < 140)).sum())


def test_the_console_check_sees_a_blocked_load(out):
    page = out / "control.html"
    page.write_text(f"<!DOCTYPE html><html><head>{CSP}</head><body><img src='x.png'></body>")
    assert _console(_chromium(out, "--dump-dom", page.as_uri()))  # else the check is blind


def test_report_in_a_browser(out, tmp_path):
    corpus = neardup.synth.generate(bases=30, singles=60, seed=8)
    source = tmp_path / "c.jsonl"
    corpus_rows = [{"id": f"doc-{i}", "text": t} for i, t in enumerate(corpus.texts)]
    source.write_text("".join(json.dumps(r) + "\n" for r in corpus_rows))
    page = out / "report.html"
    dedup_files([str(source)], None, report=str(page))
    # one tall window: the whole page without scrolling (anchors and scrolling are not
    # reliable in a headless screenshot)
    dom, shot = _open(out, page, "report.png", height=12000)
    assert 'id="sweep-plot"' in dom and dom.count("<polyline") == 2
    assert "<mark>" in dom
    # the plot's two lines are drawn (their colours on screen)
    assert _pixels(shot, (31, 119, 180)) > 200 and _pixels(shot, (214, 39, 40)) > 200
    plot_bottom = np.flatnonzero((np.abs(shot - (31, 119, 180)) <= 12).all(axis=2).any(axis=1))
    marks = np.flatnonzero(
        ((shot[..., 0] > 220) & (shot[..., 1] > 200) & (shot[..., 2] < 140)).any(axis=1)
    )
    # the shared spans are highlighted on screen, in the pairs below the plot
    assert _highlight(shot) > 2000 and marks.max() > plot_bottom.max()


def test_explanation_in_a_browser(out):
    a = "Le café « Chez Zoë » ouvre à 8 h. Deux cafés, s'il vous plaît. 東京の天気は晴れです。"
    b = "Chez Zoë, le café ouvre à 8 h ! Deux cafés s'il vous plaît. 東京の天気は雨です。"
    e = neardup.explain(a, b, k=2)
    page = out / "explain.html"
    page.write_text(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'>{CSP}</head>"
        f"<body>{e._repr_html_()}</body></html>",
        encoding="utf-8",
    )
    dom, shot = _open(out, page, "explain.png")
    assert dom.count("<mark>") == len(e.spans[0]) + len(e.spans[1]) > 0
    for text in e.shared_text(0):
        assert text in dom
    assert _highlight(shot) > 500
    # nothing highlighted in an explanation with nothing shared
    blank = out / "explain-none.html"
    nothing = neardup.explain("alpha beta gamma", "delta epsilon zeta", k=2)._repr_html_()
    blank.write_text(f"<!DOCTYPE html><html><head>{CSP}</head><body>{nothing}</body></html>")
    _, empty = _open(out, blank, "explain-none.png")
    assert _highlight(empty) == 0
