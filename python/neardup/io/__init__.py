"""Read and write document collections: JSONL (optionally gzipped, or stdin), Parquet, CSV,
folders of .txt/.md files.

One module per format (:mod:`~neardup.io.jsonl`, :mod:`~neardup.io.parquet`,
:mod:`~neardup.io.csvfile`, :mod:`~neardup.io.folder`), each a reader and a writer behind the
protocols of :mod:`~neardup.io.base`; :mod:`~neardup.io.source` opens inputs and numbers
their documents (:func:`iter_batches`), :mod:`~neardup.io.write` writes the kept rows in the
format the output's name asks for, and :mod:`~neardup.io.atomic` makes every output appear
whole or not at all.

>>> src = open_source("corpus.jsonl", text_field="text")
>>> for batch in iter_batches([src], 10_000):
...     print(batch.start, len(batch))
0 6
"""

from __future__ import annotations

from neardup.errors import InputError
from neardup.io.atomic import (
    OutputGroup,
    atomic_path,
    is_streamed,
    output_group,
    output_target,
    signals_held,
)
from neardup.io.base import DEFAULT_BATCH, Batch, Output, Reader, Writer
from neardup.io.folder import TEXT_SUFFIXES
from neardup.io.source import (
    Source,
    detect_format,
    format_of_name,
    iter_batches,
    open_source,
    open_sources,
    read_column,
    read_once,
    read_texts,
    require_column,
)
from neardup.io.write import (
    check_annotated_output,
    check_output,
    output_format,
    write_annotated,
    write_kept,
    write_table,
)

__all__ = [
    "DEFAULT_BATCH",
    "TEXT_SUFFIXES",
    "Batch",
    "InputError",
    "Output",
    "OutputGroup",
    "Reader",
    "Source",
    "Writer",
    "atomic_path",
    "check_annotated_output",
    "check_output",
    "detect_format",
    "format_of_name",
    "is_streamed",
    "iter_batches",
    "open_source",
    "open_sources",
    "output_format",
    "output_group",
    "output_target",
    "read_column",
    "read_once",
    "read_texts",
    "require_column",
    "signals_held",
    "write_annotated",
    "write_kept",
    "write_table",
]
