"""SIGINT and SIGTERM during ``neardup dedup``: no partial output, no temporary file, and a
message that says what was written.

Real signals: to a subprocess at several points of a run (while stdin is being spooled, and
at delays spread over a whole run), and to this process from inside the rename of the
outputs (the "late" interrupt), where the point is exact.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from neardup import cli
from neardup import io as ndio

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _corpus(path: Path, n: int = 400) -> None:
    from neardup import synth

    c = synth.generate(bases=n // 10, singles=n - 8 * (n // 10), seed=3)
    with open(path, "w", encoding="utf-8") as f:
        for i, t in enumerate(c.texts):
            f.write(json.dumps({"id": i, "text": t}) + "\n")


def _env(tmp: Path) -> dict[str, str]:
    # the neardup this test imports (installed, or PYTHONPATH) runs in the subprocess too;
    # the stdin spool goes to TMPDIR, which must be empty afterwards
    return dict(os.environ, TMPDIR=str(tmp))


def _leftovers(*folders: Path) -> list[str]:
    return sorted(
        p.name
        for d in folders
        for p in d.iterdir()
        if p.name.endswith(".tmp") or p.name.startswith("neardup-")
    )


def _dedup(work: Path, spool: Path, stdin: bool) -> subprocess.Popen[bytes]:
    inp = "-" if stdin else str(work / "c.jsonl")
    cmd = [sys.executable, "-m", "neardup", "dedup", inp, "-o", str(work / "kept.jsonl")]
    cmd += ["--clusters", str(work / "clusters.csv"), "--report", str(work / "report.md"), "-q"]
    return subprocess.Popen(
        cmd,
        env=_env(spool),
        cwd=work,
        stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


OUTPUTS = ("kept.jsonl", "clusters.csv", "report.md")


def _check_after(work: Path, spool: Path, code: int, err: str, reference: dict[str, bytes]):
    """The invariants, wherever the signal fell."""
    assert _leftovers(work, spool) == [], err
    present = {name: (work / name).read_bytes() for name in OUTPUTS if (work / name).exists()}
    if code == 0:
        assert present.keys() == reference.keys()
    else:
        assert code in (130, 143, -signal.SIGINT, -signal.SIGTERM), (code, err)
        if "no output written" in err:
            assert present == {}, err
        elif code > 0:  # interrupted after the outputs were renamed into place, and says so
            assert "already written" in err, err
        # code < 0: killed before the handler was installed or after it was removed
    # what exists is whole: never a partial file, never one output without the others
    assert present == {} or present.keys() == reference.keys(), present.keys()
    for name, data in present.items():
        if name != "report.md":  # the report holds timings
            assert data == reference[name], name


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    work = tmp_path_factory.mktemp("ref")
    _corpus(work / "c.jsonl")
    t0 = time.monotonic()
    proc = _dedup(work, work, stdin=False)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return work, time.monotonic() - t0, {n: (work / n).read_bytes() for n in OUTPUTS}


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_while_stdin_is_spooled_leaves_no_spool(tmp_path, reference, signum):
    ref_dir, _, _ = reference
    data = (ref_dir / "c.jsonl").read_bytes()
    spool = tmp_path / "tmp"
    spool.mkdir()
    proc = _dedup(tmp_path, spool, stdin=True)
    assert proc.stdin is not None
    proc.stdin.write(data[: len(data) // 2])
    proc.stdin.flush()
    deadline = time.monotonic() + 60
    while not any(p.name.startswith("neardup-stdin-") for p in spool.iterdir()):
        assert time.monotonic() < deadline, "the spool file never appeared"
        time.sleep(0.02)
    time.sleep(0.1)  # the handler is installed before the spool is made
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == (143 if signum == signal.SIGTERM else 130), err
    assert b"no output written" in err
    assert _leftovers(tmp_path, spool) == []
    assert not (tmp_path / "kept.jsonl").exists()


@pytest.mark.parametrize(
    "signum, share",
    [
        (signal.SIGTERM, 0.5),
        (signal.SIGINT, 0.65),
        (signal.SIGTERM, 0.8),
        (signal.SIGINT, 0.9),
        (signal.SIGTERM, 1.0),
    ],
)
def test_signal_during_a_run(tmp_path, reference, signum, share):
    """``share`` of an uninterrupted run's time (startup included): mostly past the imports."""
    ref_dir, seconds, expected = reference
    (tmp_path / "c.jsonl").write_bytes((ref_dir / "c.jsonl").read_bytes())
    proc = _dedup(tmp_path, tmp_path, stdin=False)
    time.sleep(seconds * share)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    _check_after(tmp_path, tmp_path, proc.returncode, err.decode(), expected)


def _fake_dedup(tmp_path: Path, kill_at: str | None):
    """A stand-in for ``dedup_files`` that writes two outputs through neardup.io."""

    def dedup_files(inputs, output, **kw):
        with ndio.atomic_path(output) as tmp:
            Path(tmp).write_text("kept\n")
        if kill_at == "run":
            os.kill(os.getpid(), signal.SIGTERM)
        with ndio.atomic_path(kw["report"]) as tmp:
            Path(tmp).write_text("report\n")
        return type("S", (), {"text": lambda self: "ok", "as_dict": lambda self: {}})()

    return dedup_files


def test_sigterm_mid_run_in_process_writes_nothing(tmp_path, monkeypatch, capsys):
    import neardup.dedup

    monkeypatch.setattr(neardup.dedup, "dedup_files", _fake_dedup(tmp_path, "run"))
    (tmp_path / "in.jsonl").write_text('{"text": "x"}\n')
    argv = ["dedup", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "kept.jsonl")]
    assert cli.main([*argv, "--report", str(tmp_path / "r.md"), "-q"]) == 143
    assert sorted(os.listdir(tmp_path)) == ["in.jsonl"]
    assert "no output written" in capsys.readouterr().err
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # handler restored


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_late_signal_during_the_rename_says_what_was_written(tmp_path, monkeypatch, capsys, signum):
    import neardup.dedup
    import neardup.io.atomic

    monkeypatch.setattr(neardup.dedup, "dedup_files", _fake_dedup(tmp_path, None))
    real_replace = os.replace

    def replace_then_signal(src, dst):  # the signal arrives while the outputs are renamed
        os.kill(os.getpid(), signum)
        real_replace(src, dst)

    monkeypatch.setattr(neardup.io.atomic.os, "replace", replace_then_signal)
    (tmp_path / "in.jsonl").write_text('{"text": "x"}\n')
    argv = ["dedup", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "kept.jsonl")]
    code = cli.main([*argv, "--report", str(tmp_path / "r.md"), "-q"])
    assert code == (130 if signum == signal.SIGINT else 143)
    # both renames completed (the signal was held), and the message says so
    assert sorted(os.listdir(tmp_path)) == ["in.jsonl", "kept.jsonl", "r.md"]
    err = capsys.readouterr().err
    assert "already written" in err and "kept.jsonl" in err and "no output written" not in err


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
def test_a_signal_reaches_python_while_a_long_crate_call_runs():
    # A brute-force SimHash search of 100,000 fingerprints (5e9 pairs: seconds), and 0.2 s into
    # it a signal whose handler raises KeyboardInterrupt, as Ctrl-C's does. The handler runs
    # while the crate's worker thread is still searching (one thread more than after the
    # call), the work stops, and the call ends with the handler's exception.
    from neardup import _core
    from neardup.plan import make_plan
    from neardup.spill import SetSpill

    m = 100_000
    words = np.random.default_rng(0).integers(0, 10**9, size=(m, 4)).astype(str)
    texts = [" ".join(row) for row in words.tolist()]
    # radius 22 of 64 bits: no index pays, every pair is compared
    plan = make_plan(method="simhash", threshold=0.3, k=1, verify="estimate")

    def stage(rows, before_search=None):
        with SetSpill(1, "word") as spill:
            run = _core.Run(spill.core, plan.as_dict(), budget=1 << 20)
            run.sign(texts[:rows])
            run.finish()
            return run.near(verify_budget=1 << 20, before_search=before_search)

    threads_at_signal: list[int] = []
    searches: list[str] = []

    def handler(signum, frame):
        threads_at_signal.append(len(os.listdir("/proc/self/task")))
        raise KeyboardInterrupt

    def before_search(plan):
        searches.append(plan[0])
        signal.setitimer(signal.ITIMER_REAL, 0.2)

    old = signal.signal(signal.SIGALRM, handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            stage(m, before_search)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert searches == ["brute force"]
    assert threads_at_signal == [len(os.listdir("/proc/self/task")) + 1]
    # the stop was for that call only: the next one runs to its end
    assert len(stage(2_000)["labels"]) == 2_000
