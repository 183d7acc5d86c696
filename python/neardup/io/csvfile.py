"""CSV with a header row (UTF-8, an optional BOM; quoted fields may span lines).

Quotes are parsed strictly: a quoted field that never closes is an error naming the line it
opened on, never a silent merge of the rows after it. CSV output needs CSV input (CSV holds
text columns only, so rows from JSONL or Parquet could not be written back faithfully).

>>> READER.name, OUTPUT.name
('csv', 'csv')
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator, Sequence
from typing import IO, Any

import numpy as np

from neardup.errors import InputError
from neardup.io.base import Batch, Input, Writer, changed, grouped, shown_names

# Control characters other than tab, CR and LF: never in a text header, always in binary files.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


class CsvReader:
    """Reads one CSV file with a header row.

    >>> READER.name
    'csv'
    """

    name = "csv"

    def _open(self, src: Input) -> IO[str]:
        csv.field_size_limit(2**31 - 1)
        return open(src.read_path, encoding="utf-8-sig", errors="surrogateescape", newline="")

    def check(self, src: Input) -> list[str]:
        """The header (fails early on an empty file or missing columns).

        >>> READER.check(src)                                          # doctest: +SKIP
        ['id', 'text']
        """
        with self._open(src) as f:
            try:
                header = next(csv.reader(f, strict=True))
            except StopIteration:
                raise InputError(f"{src.label}: empty CSV file (no header row)") from None
            except csv.Error as e:
                raise InputError(f"{src.label}:1: invalid CSV ({e})") from e
        joined = "".join(header)
        if _CONTROL.search(joined) or not _is_utf8(joined):
            raise InputError(f"{src.label}:1: not a UTF-8 CSV file (binary data in the header)")
        if src.text_field not in header:
            raise InputError(
                f"{src.label}: no column {src.text_field!r} (columns: {shown_names(header)})"
            )
        if src.id_required and src.id_field not in header:
            raise InputError(f"{src.label}: no column {src.id_field!r}")
        return header

    def rows(self, src: Input) -> Iterator[tuple[int, int, list[str]]]:
        """(row number, first line, fields) of every non-empty data row.

        >>> next(READER.rows(src))                                     # doctest: +SKIP
        (1, 2, ['1', 'hello'])
        """
        with self._open(src) as f:
            reader = csv.reader(f, strict=True)
            first_line = 1
            try:
                next(reader)
                row_no = 0
                first_line = reader.line_num + 1
                for row in reader:
                    if row:
                        row_no += 1
                        if not _is_utf8("\x1f".join(row)):
                            raise InputError(f"{src.label}: row {row_no}: invalid UTF-8")
                        yield row_no, first_line, row
                    first_line = reader.line_num + 1
            except csv.Error as e:
                if "end of data" in str(e):
                    raise InputError(
                        f"{src.label}:{first_line}: unbalanced quote (the quoted field opened "
                        "on this line never closes)"
                    ) from e
                raise InputError(f"{src.label}:{reader.line_num}: invalid CSV ({e})") from e

    def _rows_with_ids(self, src: Input, start: int) -> Iterator[tuple[str, Any]]:
        header = self.check(src)
        ti = header.index(src.text_field)
        ii = header.index(src.id_field) if src.id_field in header else None
        for pos, (row_no, _, row) in enumerate(self.rows(src), start):
            if ti >= len(row):
                raise InputError(
                    f"{src.label}: row {row_no}: row without text "
                    f"({len(row)} fields, header has {len(header)})"
                )
            yield row[ti], (row[ii] if ii is not None and ii < len(row) else pos)

    def batches(self, src: Input, batch_size: int, start: int) -> Iterator[Batch]:
        """Batches of (texts, ids) in row order; ids are strings as CSV holds them.

        >>> [b.ids for b in READER.batches(src, 10, 0)]                # doctest: +SKIP
        [['1', '2']]
        """
        return grouped(self._rows_with_ids(src, start), batch_size, start)

    def kept_rows(self, src: Input, keep: np.ndarray) -> Iterator[tuple[int, list[str]]]:
        """(first line, fields) of the kept rows; checks the count against ``keep``.

        >>> list(READER.kept_rows(src, np.array([False, True])))        # doctest: +SKIP
        [(3, ['2', 'ok'])]
        """
        i = -1
        for i, (_, line, row) in enumerate(self.rows(src)):
            if i >= len(keep):
                raise changed(src)
            if keep[i]:
                yield line, row
        if i + 1 != len(keep):
            raise changed(src)

    def records(self, src: Input, keep: np.ndarray) -> Iterator[tuple[str, dict[str, Any]]]:
        """(where, header → field) of every kept row; short rows lack the last fields.

        >>> next(READER.records(src, keep))                            # doctest: +SKIP
        ('a.csv:2', {'id': '1', 'text': 'hello'})
        """
        header = src.schema
        for line, row in self.kept_rows(src, keep):
            if len(row) > len(header):
                raise InputError(
                    f"{src.label}:{line}: {len(row)} fields, header has {len(header)}; "
                    "the extra fields have no column name"
                )
            yield f"{src.label}:{line}", dict(zip(header, row, strict=False))


READER = CsvReader()


class CsvWriter:
    """Writes kept CSV rows unchanged under the inputs' header.

    >>> CsvWriter(tmp, ["id", "text"]).close()                         # doctest: +SKIP
    """

    def __init__(self, path: str, header: list[str]) -> None:
        self._file = open(path, "w", encoding="utf-8", errors="surrogateescape", newline="")
        self._writer = csv.writer(self._file, lineterminator="\n")
        self._writer.writerow(header)

    def write(self, parts: Sequence[tuple[Input, np.ndarray]]) -> int:
        """Write every part's kept rows.

        >>> CsvWriter(tmp, header).write([(src, keep)])                # doctest: +SKIP
        2
        """
        written = 0
        for src, keep in parts:
            for _, row in READER.kept_rows(src, keep):
                self._writer.writerow(row)
                written += 1
        return written

    def close(self) -> None:
        """Close the file.

        >>> writer.close()                                             # doctest: +SKIP
        """
        self._file.close()


class CsvOutput:
    """CSV as an output format: CSV inputs only.

    >>> OUTPUT.check("kept.csv", [])
    """

    name = "csv"

    def check(self, output: str, sources: Sequence[Input]) -> None:
        """Refuse inputs of another format, before anything is written.

        >>> OUTPUT.check("kept.csv", [jsonl_source])                   # doctest: +SKIP
        Traceback (most recent call last):
        neardup.errors.InputError: kept.csv: CSV output needs CSV input ...
        """
        for src in sources:
            if src.fmt != "csv":
                raise InputError(
                    f"{output}: CSV output needs CSV input (CSV holds text columns only, the "
                    f"input is {src.fmt}); write .jsonl or .parquet instead"
                )

    def open(self, tmp: str, output: str, sources: Sequence[Input], batch_size: int) -> Writer:
        """A writer to ``tmp`` with the first input's header.

        >>> OUTPUT.open(tmp, "kept.csv", [src], 8192)                  # doctest: +SKIP
        <neardup.io.csvfile.CsvWriter object at ...>
        """
        return CsvWriter(tmp, list(sources[0].schema))


OUTPUT = CsvOutput()


def _is_utf8(text: str) -> bool:
    """False when ``text`` (read with ``surrogateescape``) held bytes that are not UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
