"""``import neardup`` stays cheap: numpy is the only dependency it loads, and the optional
parts (files, the index, the synthetic corpus, pyarrow, pandas, rich, matplotlib) load on use."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("pyarrow", "pandas", "polars", "rich", "matplotlib", "ray", "datasets", "sqlite3")
LAZY = ("neardup.io", "neardup.index", "neardup.synth")


def _modules_after(code: str) -> set[str]:
    script = f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout))


def test_import_loads_numpy_only():
    loaded = _modules_after("import neardup")
    assert "numpy" in loaded
    assert not [m for m in HEAVY if m in loaded]
    assert not [m for m in LAZY if m in loaded]


def test_lazy_names_load_on_use():
    loaded = _modules_after("import neardup\nneardup.Index, neardup.synth.generate, neardup.Match")
    assert {"neardup.index", "neardup.synth"} <= loaded
    import neardup

    assert neardup.Index.__name__ == "Index" and callable(neardup.evaluate)
