"""The scorer tables in README.md and docs/scorers.md are the ones the registry generates."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "scorer_table.py"


def _tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), *args], capture_output=True, text=True, cwd=ROOT, check=False
    )


def test_the_docs_tables_are_current() -> None:
    checked = _tool("--check")
    assert checked.returncode == 0, checked.stderr


def test_a_stale_table_fails_the_check_and_is_rewritten(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Scorers\n\n<!-- scorers:begin -->\n| old |\n<!-- scorers:end -->\n\nEnd.\n")
    stale = _tool("--check", str(page))
    assert stale.returncode == 1
    assert "stale" in stale.stderr
    assert _tool(str(page)).returncode == 0
    text = page.read_text()
    assert "| old |" not in text
    assert "| `faithfulness` | `faithfulness-scorer` | llm |" in text
    assert text.endswith("<!-- scorers:end -->\n\nEnd.\n")
    assert _tool("--check", str(page)).returncode == 0
