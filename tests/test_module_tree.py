"""docs/modules.md lists every module of src/scorekit, as tools/module_tree.py renders it."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "module_tree.py"


def _tool_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("module_tree", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_module_list_is_current() -> None:
    checked = subprocess.run(
        [sys.executable, str(TOOL), "--check"], capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stdout


def test_every_module_has_one_line_with_a_description() -> None:
    text = _tool_module().render()
    modules = sorted((ROOT / "src" / "scorekit").rglob("*.py"))
    lines = [line for line in text.splitlines() if line.startswith("- `")]
    assert len(lines) == len(modules)
    assert all(not line.endswith(": ") for line in lines)


def test_a_stale_list_is_found(tmp_path: Path) -> None:
    tool = _tool_module()
    page = f"# Modules\n\n{tool.BEGIN}\n- `gone.py`: a module that no longer is\n{tool.END}\n"
    assert tool.replaced(page, tool.render()) != page
    assert "gone.py" not in tool.replaced(page, tool.render())
