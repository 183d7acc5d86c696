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
