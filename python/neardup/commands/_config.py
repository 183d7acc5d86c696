"""``--config FILE``: a TOML file of option values for repeatable runs.

Keys are a subcommand's long option names (``threshold``, ``strip-boilerplate``, ``text-field``;
underscores work too); values have TOML's types. Options given on the command line win over
the file. An unknown key, a value of the wrong type or outside an option's choices is an error
naming the key, before anything runs.

    # dedup.toml
    threshold = 0.5
    strip-boilerplate = true
    text-field = "body"
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from neardup.errors import InvalidArgumentError

#: The largest config file read (a file of option values is a few hundred bytes).
MAX_CONFIG_BYTES = 1 << 20


def add_config_option(parser: argparse.ArgumentParser) -> None:
    """Adds ``--config FILE`` to a subcommand's parser.

    >>> p = argparse.ArgumentParser(); add_config_option(p)
    >>> p.parse_args(["--config", "dedup.toml"]).config
    'dedup.toml'
    """
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="TOML file of option values (keys: long option names); command-line options win",
    )


def _option_actions(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    actions: dict[str, argparse.Action] = {}
    for action in parser._actions:
        for flag in action.option_strings:
            if flag.startswith("--") and flag not in ("--help", "--config"):
                actions[flag[2:]] = action
    return actions


def _convert(key: str, value: Any, action: argparse.Action) -> Any:
    flags = isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction))
    if flags or isinstance(action, argparse._StoreConstAction):
        if not isinstance(value, bool):
            raise InvalidArgumentError(f"config key {key!r} takes true or false, got {value!r}")
        if flags:
            return value if isinstance(action, argparse._StoreTrueAction) else not value
        return action.const if value else action.default
    if isinstance(value, (dict, list)) and action.nargs is None:
        raise InvalidArgumentError(f"config key {key!r} takes one value, got {value!r}")
    if isinstance(value, bool) and action.type is not None:
        raise InvalidArgumentError(f"config key {key!r} takes a value, got {value!r}")
    values = value if isinstance(value, list) else [value]
    if action.type is not None and callable(action.type):
        try:
            values = [action.type(v if isinstance(v, str) else str(v)) for v in values]
        except (TypeError, ValueError, argparse.ArgumentTypeError) as error:
            raise InvalidArgumentError(f"config key {key!r}: {error}") from None
    if action.choices is not None:
        for v in values:
            if v not in action.choices:
                listed = ", ".join(map(str, action.choices))
                raise InvalidArgumentError(f"config key {key!r} must be one of {listed}, got {v!r}")
    return values if isinstance(value, list) else values[0]


def _toml_reader() -> Any:
    """The standard library's TOML reader (Python 3.10: the ``tomli`` backport, if installed)."""
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib
    try:  # pragma: no cover - Python 3.10
        import tomli

        return tomli
    except ImportError:  # pragma: no cover
        raise InvalidArgumentError("--config needs Python 3.11+ or `pip install tomli`") from None


def apply_config(parser: argparse.ArgumentParser, path: str) -> None:
    """Sets the parser's defaults from the TOML file at ``path`` (then parse again).

    >>> p = argparse.ArgumentParser()
    >>> _ = p.add_argument("--k", type=int, default=5)
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
    ...     _ = f.write("k = 3\\n")
    >>> apply_config(p, f.name); os.unlink(f.name)
    >>> p.parse_args([]).k, p.parse_args(["--k", "7"]).k
    (3, 7)
    """
    tomllib = _toml_reader()
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)  # bounded: /dev/zero never ends
    except FileNotFoundError:
        raise InvalidArgumentError(f"--config {path}: no such file") from None
    except IsADirectoryError:
        raise InvalidArgumentError(f"--config {path}: is a folder, not a TOML file") from None
    except OSError as error:
        raise InvalidArgumentError(f"--config {path}: cannot read ({error.strerror})") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise InvalidArgumentError(
            f"--config {path}: larger than {MAX_CONFIG_BYTES // 1024} KiB, not an options file"
        )
    try:
        table = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise InvalidArgumentError(
            f"--config {path}: not UTF-8 text (byte {error.start}); TOML files are UTF-8"
        ) from None
    except tomllib.TOMLDecodeError as error:
        raise InvalidArgumentError(f"--config {path}: not valid TOML: {error}") from None
    actions = _option_actions(parser)
    defaults: dict[str, Any] = {}
    for raw_key, value in table.items():
        key = raw_key.replace("_", "-")
        action = actions.get(key)
        if action is None:
            known = ", ".join(sorted(actions))
            raise InvalidArgumentError(
                f"--config {path}: unknown key {raw_key!r} (options of this command: {known})"
            )
        defaults[action.dest] = _convert(raw_key, value, action)
    parser.set_defaults(**defaults)
