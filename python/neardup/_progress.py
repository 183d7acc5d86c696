"""Progress display for the CLI: rich (or tqdm) on a terminal, silent otherwise.

>>> with progress_reporter(enabled=False) as tick:
...     tick("read", 10)
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["progress_reporter", "want_progress"]


def want_progress(quiet: bool) -> bool:
    """True when progress bars should be shown: stderr is a terminal and not ``--quiet``.

    >>> want_progress(quiet=True)
    False
    """
    return not quiet and sys.stderr.isatty()


@contextmanager
def progress_reporter(enabled: bool) -> Iterator[Callable[[str, int], None]]:
    """Yield ``tick(stage, n_docs)``; shows one counter per stage when enabled.

    >>> with progress_reporter(False) as tick:
    ...     tick("verify", 5)
    """
    if not enabled:
        yield lambda stage, n: None
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
            yield lambda stage, n: None
            return
        bars: dict[str, tqdm] = {}

        def tick_tqdm(stage: str, n: int) -> None:
            if stage not in bars:
                bars[stage] = tqdm(desc=stage, unit=" docs", file=sys.stderr)
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
        TextColumn("{task.completed:>12,.0f} docs"),
        TimeElapsedColumn(),
        transient=False,
    )
    tasks: dict[str, int] = {}

    def tick(stage: str, n: int) -> None:
        if stage not in tasks:
            tasks[stage] = prog.add_task(stage, total=None)
        prog.advance(tasks[stage], n)

    with prog:
        yield tick
