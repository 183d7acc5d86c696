"""The exceptions neardup raises: one base class, and a kind per cause.

Every exception neardup raises on purpose derives from :class:`NeardupError`, so
``except neardup.errors.NeardupError`` catches all of them. Each also derives from the builtin
a caller would expect (``ValueError`` for a bad value, ``TypeError`` for a wrong type,
``MemoryError`` for an allocation the machine cannot make), so code written against builtins
keeps working. The Rust core's error kinds map onto these classes in one place
(``rust/bindings/mod.rs``: ``impl From<Error> for PyErr``).

>>> import neardup
>>> try:
...     neardup.find_duplicates(["a b"], threshold=2.0)
... except NeardupError as e:
...     print(type(e).__name__, isinstance(e, ValueError))
InvalidArgumentError True
"""

from __future__ import annotations

__all__ = [
    "ArgumentTypeError",
    "IndexCorruptError",
    "IndexMismatchError",
    "InputError",
    "InputTypeError",
    "InvalidArgumentError",
    "NeardupError",
    "NeardupWarning",
    "ResourceError",
]


class NeardupError(Exception):
    """Base class of every exception neardup raises on purpose.

    >>> issubclass(InputError, NeardupError)
    True
    """


class InvalidArgumentError(NeardupError, ValueError):
    """An argument is out of range or inconsistent with another; the message names it.

    >>> str(InvalidArgumentError("threshold must be in (0, 1], got 2.0"))
    'threshold must be in (0, 1], got 2.0'
    """


class ArgumentTypeError(NeardupError, TypeError):
    """An argument has the wrong type (``k="5"``, ``num_perm=True``); the message names it.

    >>> isinstance(ArgumentTypeError("k must be an int, got str"), TypeError)
    True
    """


class InputError(NeardupError, ValueError):
    """A document (or a file holding documents) cannot be read as text.

    The message is one line naming the place: ``texts[3]`` for in-memory input,
    ``file:line`` or ``file: row N`` for files.

    >>> str(InputError("data.jsonl:3: no field 'text'"))
    "data.jsonl:3: no field 'text'"
    """


class InputTypeError(NeardupError, TypeError):
    """A document (or the collection of documents) has the wrong type, e.g. ``None``.

    >>> isinstance(InputTypeError("texts[0] is None"), TypeError)
    True
    """


class ResourceError(NeardupError, MemoryError):
    """A requested size cannot be allocated (e.g. ``num_perm=2**40``); nothing was changed.

    >>> isinstance(ResourceError("too large"), MemoryError)
    True
    """


class IndexMismatchError(NeardupError, ValueError):
    """The index on disk was built with other parameters or other hash/normalisation bits.

    >>> raise IndexMismatchError("num_perm: index has 128, got 64")
    Traceback (most recent call last):
    neardup.errors.IndexMismatchError: num_perm: index has 128, got 64
    """


class IndexCorruptError(NeardupError):
    """The index file is damaged (not a neardup index, truncated, or inconsistent).

    No write is made to an index after this is raised.

    >>> raise IndexCorruptError("corpus.ndx: 10 band rows for 5 documents")
    Traceback (most recent call last):
    neardup.errors.IndexCorruptError: corpus.ndx: 10 band rows for 5 documents
    """


class NeardupWarning(UserWarning):
    """Something a run does that the caller should know before it happens: work predicted
    to grow quadratically, or recall traded for time. ``warnings.simplefilter("error",
    NeardupWarning)`` turns them into errors.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("slow", NeardupWarning)
    >>> caught[0].category.__name__
    'NeardupWarning'
    """
