"""The unique documents' shingle sets on disk: once the sign pass cannot hold them
(``engine.HOLD_SETS_BUDGET``), exact verification reads them back from one temporary file
instead of shingling the candidates again in a second pass over the store.

The sign pass appends each batch's sorted, stripped sets of its unique documents, in their
order, to one file written sequentially (:meth:`SetSpill.add`); only their sizes stay in memory
(int64 offsets at the end: 8 MB at 1,000,000 documents). Verification then gathers the sets of
the documents it wants with positioned reads of runs of consecutive documents
(:meth:`SetSpill.read`), so only the sets read count in the process's memory (the file's pages
are the page cache's). The file lives in a temporary directory (``spill.SPILL_DIR``, else the
system's) removed when the spill is closed, on an error too.

>>> from neardup import stages
>>> with SetSpill(k=1, unit="word") as spill:
...     spill.add(stages.shingles(["a b", "c", "d e f"], k=1), np.array([0, 2]), np.array([0, 1]))
...     spill.finish(2)
...     spill.read(np.array([1])).sizes().tolist()
[3]
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

import numpy as np

from neardup import stages

#: Hashes of the scratch buffer the sign pass writes a batch's sets into while spilling
#: (``_core.sign_texts(into=)``), reused batch after batch (64 MB; a larger batch gets its own).
SCRATCH_HASHES = 1 << 23

#: Where the spill file's temporary directory is made (None: the system's, ``TMPDIR``).
SPILL_DIR: str | None = None


def _spill(out: Any, hashes: np.ndarray) -> None:
    """Appends ``hashes`` to the spill file (one place, so a test can make it fail)."""
    out.write(hashes.data)


class SetSpill:
    """The sets of unique documents ``0, 1, ...`` (added in increasing order, any missing
    one empty) in one temporary file; a context manager that removes it on exit.

    The file is made at the first :meth:`add` (a run that never spills makes none).
    """

    def __init__(
        self, k: int, unit: str, hash_version: int = stages.HASH_VERSION, directory: Any = None
    ) -> None:
        self.k, self.unit, self.hash_version = k, unit, hash_version
        self.directory = directory
        self._tmp: str | None = None
        self._out: Any = None
        self._fd = -1
        self._at: list[np.ndarray] = []
        self._sizes: list[np.ndarray] = []
        self._next = 0  # documents below it were added (or are empty)
        self._scratch: np.ndarray | None = None
        self._offsets: np.ndarray | None = None
        self.hashes = 0  # hashes written

    @property
    def active(self) -> bool:
        """Whether anything was added (the file exists)."""
        return self._tmp is not None

    def __enter__(self) -> SetSpill:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes and removes the file and its directory (also after an error)."""
        try:
            if self._out is not None:
                self._out.close()
            if self._fd >= 0:
                os.close(self._fd)
        finally:
            self._out, self._fd, self._scratch = None, -1, None
            if self._tmp is not None:
                shutil.rmtree(self._tmp, ignore_errors=True)
                self._tmp = None

    def room(self) -> tuple[np.ndarray, int]:
        """(scratch buffer, 0): where the sign pass may write a batch's sets in place
        (``_core.sign_texts(into=, at=)``) before :meth:`add` copies the wanted ones out."""
        if self._scratch is None:
            self._scratch = np.empty(SCRATCH_HASHES, dtype=np.uint64)
        return self._scratch, 0

    def _open(self) -> None:
        self._tmp = tempfile.mkdtemp(prefix="neardup-spill-", dir=self.directory)
        self._out = open(os.path.join(self._tmp, "sets.u64"), "wb")

    def add(self, sets: stages.ShingleSets, rows: np.ndarray, at: np.ndarray) -> None:
        """Append the sets of ``rows`` (increasing) of a batch as unique documents ``at``
        (increasing, past those added before)."""
        if not len(rows):
            return
        at = np.asarray(at, dtype=np.int64)
        if int(at[0]) < self._next:
            raise ValueError(f"document {int(at[0])} added after {self._next - 1}")
        if self._tmp is None:
            self._open()
        rows = np.asarray(rows, dtype=np.int64)
        sizes = sets.sizes()[rows]
        # runs of consecutive rows written as slices of the hashes (no gather)
        breaks = np.flatnonzero(np.diff(rows) != 1) + 1
        firsts = rows[np.concatenate([[0], breaks])]
        lasts = rows[np.concatenate([breaks - 1, [len(rows) - 1]])]
        starts, ends = sets.offsets[firsts].tolist(), sets.offsets[lasts + 1].tolist()
        for a, b in zip(starts, ends, strict=True):
            if b > a:
                _spill(self._out, sets.hashes[a:b])
        self._at.append(at)
        self._sizes.append(sizes)
        self._next = int(at[-1]) + 1
        self.hashes += int(sizes.sum())

    def add_held(self, held: stages.ShingleSets) -> None:
        """Append the sets held so far (a :class:`neardup.evidence.SetBuilder`'s, of documents
        ``0 .. len(held) - 1``)."""
        self.add(held, np.arange(len(held)), np.arange(len(held)))

    def finish(self, n: int) -> None:
        """Ends the writing: the offsets of ``n`` documents; :meth:`read` may follow."""
        sizes = np.zeros(n, dtype=np.int64)
        if self._at:
            sizes[np.concatenate(self._at)] = np.concatenate(self._sizes)
        self._at, self._sizes = [], []
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        self._offsets = offsets
        self._scratch = None
        if self._out is not None:
            name = self._out.name
            self._out.close()
            self._out = None
            self._fd = os.open(name, os.O_RDONLY)

    def sizes(self) -> np.ndarray:
        """int64[n]: the set size of each document (after :meth:`finish`)."""
        assert self._offsets is not None, "finish() first"
        return np.diff(self._offsets)

    def read(self, docs: np.ndarray) -> stages.ShingleSets:
        """The sets of ``docs`` (increasing), one row each: positioned reads of each run of
        consecutive documents (the file read once, whatever the order of the calls)."""
        offsets = self._offsets
        assert offsets is not None, "finish() first"
        docs = np.asarray(docs, dtype=np.int64)
        begin, end = offsets[docs], offsets[docs + 1]
        own = np.zeros(len(docs) + 1, dtype=np.int64)
        np.cumsum(end - begin, out=own[1:])
        hashes = np.empty(int(own[-1]), dtype=np.uint64)
        if len(hashes):
            # a run: documents whose sets follow each other in the file
            breaks = np.flatnonzero(begin[1:] != end[:-1]) + 1
            run_first = np.concatenate([[0], breaks])
            run_last = np.concatenate([breaks, [len(docs)]])
            view = hashes.data.cast("B")
            fd = self._fd
            for a, b, put_a, put_b in zip(
                (begin[run_first] * 8).tolist(),
                (end[run_last - 1] * 8).tolist(),
                (own[run_first] * 8).tolist(),
                (own[run_last] * 8).tolist(),
                strict=True,
            ):
                while put_a < put_b:  # a short read continues where it stopped
                    got = os.preadv(fd, [view[put_a:put_b]], a)
                    if got <= 0:
                        raise OSError(f"the spill file ended at byte {a} of {b}")
                    a, put_a = a + got, put_a + got
        unit: Any = self.unit
        return stages.ShingleSets(own, hashes, k=self.k, unit=unit, hash_version=self.hash_version)
