"""The installed package's version, read on first use: ``importlib.metadata`` costs
milliseconds, so ``import neardup`` does not pay for it.

>>> version() == __import__("neardup").__version__
True
"""

from __future__ import annotations

import functools


@functools.cache
def version() -> str:
    """The version maturin wrote from Cargo.toml into the package metadata (``"0+unknown"``
    for a source tree on ``sys.path`` that was never installed).

    >>> isinstance(version(), str)
    True
    """
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as metadata_version

    try:
        return metadata_version("neardup")
    except PackageNotFoundError:
        return "0+unknown"
