"""Inputs: format detection, :class:`Source`, opening several inputs, and the one loop that
numbers documents across them (:func:`iter_batches`).

>>> detect_format("x.jsonl.gz"), detect_format("x.parquet"), detect_format("-")
('jsonl', 'parquet', 'jsonl')

An input that can be read only once — stdin (``-``), a named pipe, a character device, a
path naming an open descriptor (``/dev/stdin``, ``<(...)``'s ``/dev/fd/63``) — is copied
to a temporary file on opening (a *spool*, deleted on close) and read from there: every
pass reads the same bytes, and no pass waits on a pipe whose writer has gone. Its format is
its extension's (``in.jsonl.gz``, ``in.csv`` through a pipe), else JSONL, as for ``-``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from neardup.errors import InputError
from neardup.io import csvfile, folder, jsonl, parquet
from neardup.io.atomic import is_streamed, signals_held
from neardup.io.base import DEFAULT_BATCH, Batch, Reader

#: The reader of each format, by the name :func:`detect_format` returns.
READERS: dict[str, Reader] = {
    "jsonl": jsonl.READER,
    "parquet": parquet.READER,
    "csv": csvfile.READER,
    "folder": folder.READER,
}

_SUFFIXES = (
    (".jsonl", "jsonl"),
    (".ndjson", "jsonl"),
    (".json", "jsonl"),
    (".parquet", "parquet"),
    (".pq", "parquet"),
    (".csv", "csv"),
)


def format_of_name(path: str | os.PathLike[str]) -> str | None:
    """The format a path's extension names (``.gz`` looked through), or None.

    >>> format_of_name("kept.jsonl.gz"), format_of_name("kept.PQ"), format_of_name("kept")
    ('jsonl', 'parquet', None)
    """
    low = os.fspath(path).lower()
    if low.endswith(".gz"):
        low = low[:-3]
    for suffix, fmt in _SUFFIXES:
        if low.endswith(suffix):
            return fmt
    return None


def detect_format(path: str | os.PathLike[str]) -> str:
    """Return the format of an input path: ``jsonl``, ``parquet``, ``csv`` or ``folder``.

    ``-`` (stdin) is JSONL; a directory is a folder of .txt/.md files.

    >>> detect_format("x.csv")
    'csv'
    """
    p = os.fspath(path)
    if p == "-":
        return "jsonl"
    if os.path.isdir(p):
        return "folder"
    fmt = format_of_name(p)
    if fmt is not None:
        return fmt
    if read_once(p):  # /dev/stdin, <(...), a pipe: JSONL like -
        return "jsonl"
    if not os.path.exists(p):
        raise InputError(f"{p}: no such file or directory")
    raise InputError(
        f"{p}: unknown input format (expected .jsonl, .jsonl.gz, .parquet, .csv, a folder or -)"
    )


def read_once(path: str | os.PathLike[str]) -> bool:
    """True for an input that can be read only once: ``-``, a named pipe, a character device
    or a path naming an open descriptor (such inputs are spooled, see the module).

    >>> read_once("-"), read_once("/dev/stdin"), read_once("corpus.jsonl")
    (True, True, False)
    """
    p = os.fspath(path)
    return p == "-" or is_streamed(p)


class Source:
    """One input (file, folder or stdin) of a known format.

    Use :func:`open_source`; then :meth:`batches` streams ``Batch`` objects. Stdin, a pipe
    or a device is spooled to a temporary file (read twice: once to sign, once to write the
    kept rows), which :meth:`close` deletes.

    >>> src = open_source("docs/", text_field="text")              # doctest: +SKIP
    >>> sum(len(b) for b in src.batches())                          # doctest: +SKIP
    42
    """

    def __init__(
        self,
        path: str,
        fmt: str,
        text_field: str = "text",
        id_field: str | None = "id",
        id_required: bool = False,
        threads: int = 1,
    ) -> None:
        self.path = path
        self.fmt = fmt
        self.reader: Reader = READERS[fmt]
        self.text_field = text_field
        self.id_field = id_field
        self.id_required = id_required
        #: Threads the reader may parse on (the JSONL fast path); the rows do not depend on it.
        self.threads = threads
        self.label = "<stdin>" if path == "-" else path
        self._spool: str | None = None
        self.n_rows: int | None = None
        if read_once(path):
            _spool(self)
        elif not os.path.exists(path):
            raise InputError(f"{path}: no such file or directory")
        try:
            #: Parquet schema or CSV header (inputs given together must agree on it).
            self.schema: Any = self.reader.check(self)
        except BaseException:
            self.close()
            raise

    @property
    def read_path(self) -> str:
        """The file to read: the input itself, or the stdin spool.

        >>> open_source("a.jsonl").read_path                           # doctest: +SKIP
        'a.jsonl'
        """
        return self._spool if self._spool is not None else self.path

    def close(self) -> None:
        """Delete the stdin spool file, if any.

        >>> Source.close  # doctest: +ELLIPSIS
        <function Source.close at ...>
        """
        with signals_held():
            if self._spool is not None:
                with contextlib.suppress(OSError):
                    os.unlink(self._spool)
                self._spool = None

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def row_id(self, where: str, obj: dict[str, Any], pos: int) -> Any:
        """The id of a record: its id field, else its global position (or an error when the
        id is required).

        >>> src.row_id("a.jsonl:1", {"id": 7}, 0)                      # doctest: +SKIP
        7
        """
        if self.id_field is not None and self.id_field in obj:
            return obj[self.id_field]
        if self.id_required:
            raise InputError(f"{where}: no field {self.id_field!r}")
        return pos

    def batches(self, batch_size: int = DEFAULT_BATCH, start: int = 0) -> Iterator[Batch]:
        """Yield batches of (texts, ids); ``start`` is the global position of the first row.

        Sets :attr:`n_rows` once the input has been read to the end.

        >>> [len(b) for b in open_source("a.jsonl").batches(2)]        # doctest: +SKIP
        [2, 2, 1]
        """
        n = 0
        for b in self.reader.batches(self, batch_size, start):
            n += len(b)
            yield b
        self.n_rows = n

    def files(self) -> list[Path]:
        """The .txt/.md files of a folder input, sorted by relative path.

        >>> open_source("docs/").files()[:1]                          # doctest: +SKIP
        [PosixPath('docs/a.txt')]
        """
        return folder.READER.files(self)

    def write_rows(self, keep: np.ndarray, out: Any, batch_size: int = DEFAULT_BATCH) -> int:
        """Copy this source's rows where ``keep`` is true to ``out``, a writer of
        :mod:`neardup.io.write` (see :func:`neardup.io.write_kept`). Returns rows written.

        >>> src.write_rows(np.array([True, False]), writer)            # doctest: +SKIP
        1
        """
        return int(out.write([(self, np.asarray(keep, dtype=bool))]))


def _spool(src: Source) -> None:
    """Copy stdin or a read-once input to a temporary file (``src._spool``, with the input's
    extension so ``.gz`` is still seen); on any exception, a signal included, delete it. A
    signal held below is raised on leaving the block, when the name is recorded."""
    name = os.path.basename(src.path).lower()
    suffix = next((s for s in (".gz", ".parquet", ".pq", ".csv") if name.endswith(s)), "")
    suffix = ".jsonl.gz" if suffix == ".gz" and format_of_name(name) == "jsonl" else suffix
    try:
        with signals_held():
            fd, src._spool = tempfile.mkstemp(prefix="neardup-stdin-", suffix=suffix or ".jsonl")
            out = os.fdopen(fd, "wb")
        with out:
            if src.path == "-":
                shutil.copyfileobj(sys.stdin.buffer, out, 1 << 20)
            else:
                try:
                    with open(src.path, "rb") as f:
                        shutil.copyfileobj(f, out, 1 << 20)
                except OSError as e:
                    if e.filename is not None:
                        raise
                    where = f"{src.path} (copied to {src._spool})"
                    raise type(e)(e.errno, e.strerror, where) from e
    except BaseException:
        src.close()
        raise


def open_source(
    path: str | os.PathLike[str],
    text_field: str = "text",
    id_field: str | None = "id",
    id_required: bool = False,
    threads: int = 1,
) -> Source:
    """Open one input, checking that it exists and (for Parquet/CSV) has the text column.

    >>> src = open_source("corpus.parquet", text_field="content")    # doctest: +SKIP
    >>> src.fmt                                                       # doctest: +SKIP
    'parquet'
    """
    p = os.fspath(path)
    if p != "-" and not os.path.exists(p):
        raise InputError(f"{p}: no such file or directory")
    return Source(p, detect_format(p), text_field, id_field, id_required, threads)


def open_sources(
    paths: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
    text_field: str = "text",
    id_field: str | None = "id",
    id_required: bool = False,
    threads: int = 1,
) -> list[Source]:
    """Open several inputs of one format (mixing formats is an error; so is ``-`` twice).
    A single path is one input.

    >>> [s.fmt for s in open_sources(["a.jsonl", "b.jsonl.gz"])]  # doctest: +SKIP
    ['jsonl', 'jsonl']
    """
    if isinstance(paths, (str, os.PathLike)):  # one path, not its characters
        paths = [paths]
    if not paths:
        raise InputError("no input given")
    if sum(1 for p in paths if os.fspath(p) == "-") > 1:
        raise InputError("stdin (-) can be given only once")
    fmts = {detect_format(p) for p in paths}
    if len(fmts) > 1:
        raise InputError(
            f"inputs mix formats ({', '.join(sorted(fmts))}); give one format at a time"
        )
    sources: list[Source] = []
    try:
        for p in paths:
            sources.append(open_source(p, text_field, id_field, id_required, threads))
        if sources[0].fmt in ("parquet", "csv"):
            first = sources[0].schema
            for s in sources[1:]:
                if s.schema != first:
                    raise InputError(f"{s.label}: columns differ from {sources[0].label}")
    except BaseException:
        for s in sources:
            s.close()
        raise
    return sources


def iter_batches(sources: Sequence[Source], batch_size: int = DEFAULT_BATCH) -> Iterator[Batch]:
    """The batches of several sources in turn, each ``start`` the global position of its row.

    This is the one loop that numbers documents across inputs: every command and executor
    reads through it, so positions (and so ``keep="first"``) agree everywhere.

    >>> for b in iter_batches(open_sources(["a.jsonl", "b.jsonl"])):  # doctest: +SKIP
    ...     print(b.start, len(b))
    """
    pos = 0
    for s in sources:
        yield from s.batches(batch_size, start=pos)
        pos += s.n_rows or 0


def require_column(
    sources: Sequence[Source], field: str, option: str, error: type[Exception] = InputError
) -> None:
    """Refuse, before any work, a column that a table input (Parquet, CSV) lacks, or an input
    without fields (a folder), as ``error`` naming the file and ``option``; JSONL rows are
    checked as they are read.

    >>> require_column([], "lang", "--within")
    """
    for src in sources:
        if src.fmt == "folder":
            raise error(f"{src.label}: a folder has no fields for {option}")
        names = list(src.schema.names) if src.fmt == "parquet" else list(src.schema or [])
        if src.fmt in ("parquet", "csv") and field not in names:
            raise error(
                f"{src.label}: no column {field!r} for {option} (columns: {', '.join(names[:8])})"
            )


def read_column(
    sources: Sequence[Source], field: str, batch_size: int = DEFAULT_BATCH, option: str = ""
) -> list[Any]:
    """The value of ``field`` in every row of ``sources``, in order (``--within``,
    ``--unit-key``): read by each format's reader as it reads ids, so a row without the field
    is an :class:`InputError` naming its file and line. A folder has no fields.

    >>> read_column(open_sources(["a.jsonl"]), "lang")                 # doctest: +SKIP
    ['en', 'de', 'en']
    """
    require_column(sources, field, option or field, InputError)
    saved = [(s.id_field, s.id_required) for s in sources]
    values: list[Any] = []
    try:
        for s in sources:
            s.id_field, s.id_required = field, True
        for batch in iter_batches(sources, batch_size):
            values.extend(batch.ids)
    finally:
        for s, (id_field, required) in zip(sources, saved, strict=True):
            s.id_field, s.id_required = id_field, required
    return values


def read_texts(
    paths: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
    text_field: str = "text",
    id_field: str | None = "id",
) -> tuple[list[Any], list[Any]]:
    """Read all (ids, texts) of one or more inputs into memory (small corpora, notebooks).

    >>> ids, texts = read_texts("corpus.jsonl")                      # doctest: +SKIP
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    ids: list[Any] = []
    texts: list[Any] = []
    sources = open_sources(paths, text_field, id_field)
    try:
        for b in iter_batches(sources):
            ids.extend(b.ids)
            texts.extend(b.texts.to_pylist() if hasattr(b.texts, "to_pylist") else b.texts)
    finally:
        for s in sources:
            s.close()
    return ids, texts
