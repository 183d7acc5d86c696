"""Reproduce every table of the reference article on this machine (``neardup reproduce``).

The article ("How do you find near-duplicate documents cheaply?") measures exact hashing,
brute-force Jaccard, MinHash, SimHash and LSH banding on a synthetic corpus with seven
controlled edits (:mod:`neardup.synth`). :func:`run` regenerates that corpus, runs every
experiment through neardup's public API, scores it with :mod:`neardup.evaluate`, and writes
``REPORT.md`` (each table with the article's figure beside ours), ``results.json`` and, when
matplotlib is installed (``pip install neardup[plot]``), PNG plots.

Sizes: the accuracy experiments use the article's 3,100-document corpus; costs and the
brute-force-vs-LSH comparison use 10,000 documents; the LSH run at scale uses ``docs``
(default 100,000). Everything is single-threaded, like the article.

Example:
    >>> from neardup.reproduce import ReproConfig
    >>> ReproConfig.quick().docs
    10000
"""

from __future__ import annotations

from neardup.reproduce.config import ARTICLE, BANDINGS, ReproConfig
from neardup.reproduce.report import run

__all__ = ["ARTICLE", "BANDINGS", "ReproConfig", "run"]
