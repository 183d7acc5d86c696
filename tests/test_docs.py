"""Every docstring example in the package runs and prints what it says."""

import doctest
import importlib
import pkgutil

import pytest

import neardup

MODULES = sorted(
    name
    for _, name, _ in pkgutil.walk_packages(neardup.__path__, prefix="neardup.")
    if not name.endswith("__main__")
)


@pytest.mark.parametrize("name", ["neardup", *MODULES])
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
