"""A matrix that grows by rows without a second copy: the sign pass appends each batch's
signatures, and the run reads them as one array at the end.

Growth reallocates in place (``ndarray.resize``: ``realloc``, which moves the pages of a large
block without copying them on Linux), so a million documents' MinHash signatures (512 MB) peak
at about their own size (plus at most a quarter of growth room); a list of batches joined by
``np.concatenate`` held them twice.

>>> buf = RowBuffer()
>>> buf.append(np.ones((2, 3), np.uint32)); buf.append(np.zeros((1, 3), np.uint32))
>>> buf.take((0, 3), np.uint32).tolist()
[[1, 1, 1], [1, 1, 1], [0, 0, 0]]
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

import numpy as np

#: Rows of the first allocation are chosen to make it at least this many bytes: a block this
#: large is its own mapping, which ``realloc`` grows without a copy.
FIRST_BYTES = 1 << 25


class RowBuffer:
    """Rows appended batch by batch (all of one dtype and width), taken once as one array."""

    def __init__(self) -> None:
        self._rows: np.ndarray | None = None
        self.n = 0

    def append(self, rows: np.ndarray) -> None:
        """Copy ``rows`` (2-d) after those appended before."""
        if self._rows is None:
            width = max(rows.shape[1], 1) * rows.dtype.itemsize
            first = max(len(rows), FIRST_BYTES // width, 1)
            self._rows = np.empty((first, rows.shape[1]), dtype=rows.dtype)
        elif rows.dtype != self._rows.dtype or rows.shape[1:] != self._rows.shape[1:]:
            raise ValueError(f"rows of {rows.dtype}{rows.shape[1:]} after {self._rows.dtype}")
        need = self.n + len(rows)
        if need > len(self._rows):
            # No view of the buffer outlives a call, so the in-place resize is safe. numpy
            # zero-fills the new rows (resident at once), so the buffer grows by a quarter:
            # at most a quarter more than the rows, at the price of a few more (page-moving)
            # reallocations.
            grown = max(need, len(self._rows) + len(self._rows) // 4)
            self._rows.resize((grown, rows.shape[1]), refcheck=False)
        self._rows[self.n : need] = rows
        self.n = need

    def take(self, empty_shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        """The rows appended, as one array (``empty_shape`` when none were); empties the buffer."""
        rows, self._rows = self._rows, None
        if rows is None:
            return np.zeros(empty_shape, dtype=dtype)
        rows.resize((self.n, rows.shape[1]), refcheck=False)  # shrinks in place
        self.n = 0
        return rows


def empty_small_pages(n: int) -> np.ndarray:
    """An uninitialised uint64[n] whose pages Linux backs with small (4 KiB) pages: NumPy
    asks for transparent huge pages on every large array (``madvise(MADV_HUGEPAGE)``), and
    this declines them (``MADV_NOHUGEPAGE``; elsewhere, a plain ``np.empty``).

    For a buffer written once, front to back, as it fills (the sets held for exact
    verification): each huge page's first touch zeroes 2 MB taken from the kernel's free
    blocks, which on a virtual machine are often memory the host has not backed yet, so
    the first touch faults it in on the host too; small pages are mostly reused ones. On a
    2-vCPU VM, SimHash on 200,000 article documents (about 0.5 GB of held sets) spent 1.1 s
    in the kernel with huge pages, 0.3 s with small ones and the one-call sign pass
    (docs/performance.md); the pages untouched still cost nothing.

    >>> buffer = empty_small_pages(3)
    >>> buffer.dtype, buffer.shape
    (dtype('uint64'), (3,))
    """
    out = np.empty(n, dtype=np.uint64)
    madvise = _libc_function("madvise")
    if madvise:
        start = -(-out.ctypes.data // PAGE) * PAGE  # the whole pages inside the array
        end = (out.ctypes.data + out.nbytes) // PAGE * PAGE
        if end > start:
            madvise(ctypes.c_void_p(start), ctypes.c_size_t(end - start), MADV_NOHUGEPAGE)
    return out


#: Linux's ``MADV_NOHUGEPAGE`` (the same on every architecture) and the small page size.
MADV_NOHUGEPAGE = 15
PAGE = 4096


def _libc_function(name: str) -> Any:
    """The C library's function ``name`` on Linux (glibc or not), else False; looked up once."""
    if name not in _LIBC:
        _LIBC[name] = False
        if sys.platform.startswith("linux"):
            try:
                _LIBC[name] = getattr(ctypes.CDLL(None), name)
            except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
                pass
    return _LIBC[name]


_LIBC: dict[str, Any] = {}


def trim_heap() -> None:
    """Hands the C heap's free pages back to the system (glibc's ``malloc_trim``; elsewhere
    nothing). Arrays of a few MB (a batch's signatures, sets or band keys) come from the heap,
    and freeing them in the middle of it keeps their pages resident: at 1,000,000 documents
    the batches' signatures (450 MB), freed once joined, stayed in the peak RSS.

    >>> trim_heap()
    """
    malloc_trim = _libc_function("malloc_trim")
    if malloc_trim:
        malloc_trim(0)
