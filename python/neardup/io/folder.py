"""A folder of ``.txt``/``.md`` files: one document per file, its id the relative path.

Writing a folder copies the kept files (same relative paths, times kept); a folder's rows
can also be written as JSONL or Parquet records ``{id field: relative path, text field: text}``.

>>> READER.name, OUTPUT.name
('folder', 'folder')
"""

from __future__ import annotations

import shutil
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from neardup.errors import InputError, NeardupWarning
from neardup.io.base import Batch, Input, Writer, changed, grouped

TEXT_SUFFIXES = (".txt", ".md")


def _is_text(path: Path) -> bool:
    return path.suffix.lower() in TEXT_SUFFIXES


class FolderReader:
    """Reads the .txt/.md files under a folder, sorted by relative path.

    >>> READER.name
    'folder'
    """

    name = "folder"

    def check(self, src: Input) -> Any:
        """Nothing to check before the files are listed.

        >>> READER.check(None) is None
        True
        """
        return None

    def files(self, src: Input) -> list[Path]:
        """The .txt/.md files of the folder, sorted by relative path.

        >>> READER.files(src)[:1]                                      # doctest: +SKIP
        [PosixPath('docs/a.txt')]
        """
        root = Path(src.path)
        every = [p for p in root.rglob("*") if p.is_file()]
        skipped = sorted(p.relative_to(root).as_posix() for p in every if not _is_text(p))
        if skipped:  # never silently: say what was left out
            shown = ", ".join(skipped[:3]) + (", ..." if len(skipped) > 3 else "")
            warnings.warn(
                f"{src.label}: {len(skipped):,} file(s) not read, only .txt and .md files are "
                f"documents ({shown})",
                NeardupWarning,
                stacklevel=1,  # one place, so listed twice in a run it is said once
            )
        return sorted(
            (p for p in every if _is_text(p)), key=lambda p: p.relative_to(root).as_posix()
        )

    def _read(self, p: Path) -> str:
        try:
            return p.read_bytes().decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(f"{p}: invalid UTF-8 at byte {e.start}") from e
        except OSError as e:
            raise InputError(f"{p}: cannot read ({e.strerror})") from e

    def _rows(self, src: Input) -> Iterator[tuple[str, Any]]:
        root = Path(src.path)
        for p in self.files(src):
            yield self._read(p), p.relative_to(root).as_posix()

    def batches(self, src: Input, batch_size: int, start: int) -> Iterator[Batch]:
        """Batches of (texts, relative paths).

        >>> [b.ids for b in READER.batches(src, 10, 0)]                # doctest: +SKIP
        [['a.md', 'sub/b.txt']]
        """
        return grouped(self._rows(src), batch_size, start)

    def kept_files(self, src: Input, keep: np.ndarray) -> Iterator[Path]:
        """The kept files; checks the count against ``keep``.

        >>> list(READER.kept_files(src, np.array([True, False])))       # doctest: +SKIP
        [PosixPath('docs/a.md')]
        """
        files = self.files(src)
        if len(files) != len(keep):
            raise changed(src)
        return (p for p, k in zip(files, keep, strict=True) if k)

    def records(self, src: Input, keep: np.ndarray) -> Iterator[tuple[str, dict[str, Any]]]:
        """(path, {id field: relative path, text field: text}) of every kept file.

        >>> next(READER.records(src, keep))                            # doctest: +SKIP
        ('docs/a.md', {'id': 'a.md', 'text': 'ay'})
        """
        root = Path(src.path)
        id_field = src.id_field or "id"
        for p in self.kept_files(src, keep):
            yield str(p), {id_field: p.relative_to(root).as_posix(), src.text_field: self._read(p)}


READER = FolderReader()


class FolderWriter:
    """Copies kept files into a (temporary) folder under their relative paths.

    >>> FolderWriter("kept").close()
    """

    def __init__(self, root: str) -> None:
        self.root = Path(root)

    def write(self, parts: Sequence[tuple[Input, np.ndarray]]) -> int:
        """Copy every part's kept files.

        >>> FolderWriter(tmp).write([(src, keep)])                     # doctest: +SKIP
        2
        """
        written = 0
        for src, keep in parts:
            root = Path(src.path)
            for p in READER.kept_files(src, keep):
                dest = self.root / p.relative_to(root)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(p, dest)
                written += 1
        return written

    def close(self) -> None:
        """Nothing to flush.

        >>> FolderWriter("kept").close()
        """


class FolderOutput:
    """A folder as an output: folder inputs only (a JSONL row has no file name).

    >>> OUTPUT.check("kept/", [])
    """

    name = "folder"

    def check(self, output: str, sources: Sequence[Input]) -> None:
        """Refuse inputs that are not folders.

        >>> OUTPUT.check("kept/", [jsonl_source])                      # doctest: +SKIP
        Traceback (most recent call last):
        neardup.errors.InputError: kept/: a folder output needs folder input ...
        """
        for src in sources:
            if src.fmt != "folder":
                raise InputError(
                    f"{output}: a folder output needs folder input (the input is {src.fmt}); "
                    "write .jsonl, .parquet or .csv instead"
                )

    def open(self, tmp: str, output: str, sources: Sequence[Input], batch_size: int) -> Writer:
        """A writer into the temporary folder ``tmp``.

        >>> OUTPUT.open("tmp", "kept", [], 8192).root
        PosixPath('tmp')
        """
        return FolderWriter(tmp)


OUTPUT = FolderOutput()
