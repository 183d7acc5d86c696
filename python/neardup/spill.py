"""The unique documents' shingle sets on disk: once the sign pass cannot hold them
(``engine.HOLD_SETS_BUDGET``), exact verification reads them back from one temporary file
instead of shingling the candidates again in a second pass over the store.

The file is the crate's (``_core.SetSpill``, ``rust/spill/mod.rs``, written by the run's sign
pass, ``_core.Run.sign``); this module turns what it reads into :class:`neardup.stages.ShingleSets`.
The sign pass appends each batch's sorted, stripped sets of its unique documents, in their
order, to one file written sequentially (each run of consecutive rows one write, no gather);
only their sizes stay in memory (int64 offsets at the end: 8 MB at 1,000,000 documents).
Verification then gathers the sets of the documents it wants with positioned reads of runs of
consecutive documents (:meth:`SetSpill.read`), so only the sets read count in the process's
memory (the file's pages are the page cache's). The file lives in a temporary directory
(``spill.SPILL_DIR``, else the system's) removed when the spill is closed, on an error too. A
failed write (a full disk) raises ``OSError`` with the OS's ``errno``.

>>> from neardup import stages
>>> with SetSpill(k=1, unit="word") as spill:
...     spill.add(stages.shingles(["a b", "c", "d e f"], k=1), np.array([0, 2]), np.array([0, 1]))
...     spill.finish(2)
...     spill.read(np.array([1])).sizes().tolist()
[3]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from neardup import _core, stages

#: Where the spill file's temporary directory is made (None: the system's, ``TMPDIR``).
SPILL_DIR: str | None = None

#: Test hook: while set to n, every spill made fails its nth write (1-based) as a full disk
#: would (``OSError``, errno ENOSPC), in the crate, where the real write is.
_FAIL_WRITE_AT: int | None = None


def _int64(values: Any) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.int64)


class SetSpill:
    """The sets of unique documents ``0, 1, ...`` (added in increasing order, any missing
    one empty) in one temporary file; a context manager that removes it on exit.

    The file is made at the first :meth:`add` that writes a hash (a run that never spills
    makes none).
    """

    def __init__(
        self, k: int, unit: str, hash_version: int = stages.HASH_VERSION, directory: Any = None
    ) -> None:
        self.k, self.unit, self.hash_version = k, unit, hash_version
        self.directory = directory
        self._core = _core.SetSpill(directory)
        if _FAIL_WRITE_AT is not None:
            self._core._fail_write_at(_FAIL_WRITE_AT)

    @property
    def active(self) -> bool:
        """Whether anything was written (the file exists) and the spill is not closed."""
        return self._core.active

    @property
    def core(self) -> _core.SetSpill:
        """The crate's spill object (``_core.SetSpill``), which the sign pass writes to."""
        return self._core

    @property
    def hashes(self) -> int:
        """Hashes written so far."""
        return self._core.hashes

    @property
    def _writes(self) -> int:
        """Writes made so far (one per run of consecutive rows with a hash; for tests)."""
        return self._core._writes

    @property
    def _reads(self) -> int:
        """Reads made so far (one per read, the crate's verification included; for tests)."""
        return self._core._reads

    def __enter__(self) -> SetSpill:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes and removes the file and its directory (also after an error; again: nothing)."""
        self._core.close()

    def add(self, sets: stages.ShingleSets, rows: np.ndarray, at: np.ndarray) -> None:
        """Append the sets of ``rows`` (increasing) of a batch as unique documents ``at``
        (increasing, past those added before: else ``InvalidArgumentError``)."""
        self._core.add(sets.offsets, sets.hashes, _int64(rows), _int64(at))

    def finish(self, n: int) -> None:
        """Ends the writing: the offsets of ``n`` documents; :meth:`read` may follow."""
        self._core.finish(n)

    def sizes(self) -> np.ndarray:
        """int64[n]: the set size of each document (after :meth:`finish`)."""
        return self._core.sizes()

    def read(self, docs: np.ndarray) -> stages.ShingleSets:
        """The sets of ``docs`` (increasing), one row each: positioned reads of each run of
        consecutive documents (the file read once, whatever the order of the calls)."""
        offsets, hashes = self._core.read(_int64(docs))
        unit: Any = self.unit
        return stages.ShingleSets(
            offsets, hashes, k=self.k, unit=unit, hash_version=self.hash_version
        )
