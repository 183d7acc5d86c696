"""Progress display for the CLI: rich (or tqdm) on a terminal, silent otherwise.

>>> with progress_reporter(enabled=False) as tick:
...     tick("read", 10)
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from neardup.stores import no_progress

__all__ = ["progress_reporter", "want_progress"]


def want_progress(quiet: bool) -> bool:
    """True when progress bars should be shown: stderr is a terminal and not ``--quiet``.

    >>> want_progress(quiet=True)
    False
    """
    return not quiet and sys.stderr.isatty()


@contextmanager
def progress_reporter(enabled: bool) -> Iterator[Callable[..., None]]:
    """Yield ``tick(stage, n, unit="docs")``; shows one counter per stage when enabled (the
    reading passes count documents, the near stage's steps bands or pairs).

    >>> with progress_reporter(False) as tick:
    ...     tick("verify", 5, "pairs")
    """
    if not enabled:
        yield no_progress
        return
    try:
        from rich.progress import (
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )
    except ImportError:
        try:
            from tqdm import tqdm
        except ImportError:
            yield no_progress
            return
        bars: dict[str, tqdm] = {}

        def tick_tqdm(stage: str, n: int, unit: str = "docs") -> None:
            if stage not in bars:
                for bar in bars.values():  # stages run one after another: the last one is done
                    bar.close()
                bars[stage] = tqdm(desc=stage, unit=f" {unit}", file=sys.stderr)
            bars[stage].update(n)

        try:
            yield tick_tqdm
        finally:
            for b in bars.values():
                b.close()
        return
    prog = Progress(
        SpinnerColumn(),
        TextColumn("{task.description:>16}"),
        TextColumn("{task.completed:>12,.0f} {task.fields[unit]}"),
        TimeElapsedColumn(),
        transient=False,
    )
    tasks: dict[str, Any] = {}

    def finish_all() -> None:
        # A task is finished once its total is known: the spinner and the clock stop.
        for task in prog.tasks:
            if task.total is None:
                prog.update(task.id, total=task.completed)

    def tick(stage: str, n: int, unit: str = "docs") -> None:
        if stage not in tasks:
            finish_all()  # stages run one after another: the earlier ones are done
            tasks[stage] = prog.add_task(stage, total=None, unit=unit)
        prog.advance(tasks[stage], n)

    with prog:
        try:
            yield tick
        finally:
            finish_all()
