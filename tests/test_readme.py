"""The README's ten-line example runs and gives the values its comments promise."""

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"


def test_ten_line_example_matches_its_comments():
    text = README.read_text()
    section = text[text.index("## In ten lines") :]
    code = section[section.index("```python") + len("```python") : section.index("```\n", 10)]
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    result = namespace["result"]
    promised = dict(re.findall(r"^result\.(\w+)\s.*->\s*(.+)$", code, flags=re.MULTILINE))
    assert set(promised) == {"pairs", "similarity", "clusters", "keep"}
    for name, value in promised.items():
        assert np.asarray(getattr(result, name)).tolist() == eval(value), name


def test_table_examples_give_what_their_comments_say():
    import pytest

    text = README.read_text()
    section = text[
        text.index("## Tables in, tables out") : text.index("## Every stage is a function")
    ]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 3
    for block, needs in zip(blocks, ("pandas", "polars", "datasets"), strict=True):
        pytest.importorskip(needs)
        namespace: dict = {}
        lines = block.splitlines()
        for number, line in enumerate(lines):
            code, _, promised = line.partition("# ->")
            if promised:
                value = eval(code, namespace)
                assert (value.tolist() if hasattr(value, "tolist") else value) == eval(promised), (
                    needs,
                    number,
                )
            else:
                exec(compile(line, "README.md", "exec"), namespace)
