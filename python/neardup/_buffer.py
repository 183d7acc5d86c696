"""Memory helpers of the sign pass and verification: buffers on small pages
(:func:`empty_small_pages`) and handing freed heap pages back (:func:`trim_heap`).

>>> empty_small_pages(2).shape
(2,)
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

import numpy as np


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
