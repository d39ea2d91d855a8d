"""The old import paths of modules moved into packages keep working (scorekit._moved)."""

from __future__ import annotations

import importlib
import importlib.metadata
import subprocess
import sys

import pytest

from scorekit._moved import MOVED_MODULES


@pytest.mark.parametrize(("old", "new"), sorted(MOVED_MODULES.items()))
def test_an_old_path_gives_the_module_at_its_new_path_with_a_warning(old: str, new: str) -> None:
    # in a fresh interpreter: here the old name may already sit in sys.modules
    code = (
        "import importlib, warnings\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    warnings.simplefilter('always')\n"
        f"    old = importlib.import_module({old!r})\n"
        f"new = importlib.import_module({new!r})\n"
        "assert old is new, (old, new)\n"
        f"assert any({new!r} in str(w.message) and w.category is DeprecationWarning "
        "for w in seen), [str(w.message) for w in seen]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_from_imports_of_moved_names_work() -> None:
    code = (
        "import warnings\nwarnings.simplefilter('ignore')\n"
        "from scorekit import exit_codes, console\n"
        "from scorekit.messages import messages_of\n"
        "from scorekit.dataset import read_dataset\n"
        "from scorekit.judge.testing import ScriptedJudge\n"
        "import scorekit.cli.exit_codes as e\nassert exit_codes is e\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_every_new_path_exists_and_no_old_path_is_a_file() -> None:
    from pathlib import Path

    package = Path(importlib.import_module("scorekit").__file__).parent  # type: ignore[arg-type]
    for old, new in MOVED_MODULES.items():
        importlib.import_module(new)
        relative = Path(*old.split(".")[1:])
        assert not (package / relative).with_suffix(".py").exists(), old
        assert not (package / relative / "__init__.py").exists(), old


def test_the_public_names_and_entry_points_stay() -> None:
    from scorekit.cli import app, main
    from scorekit.testing import assert_score, assert_scores

    assert callable(main) and app is not None and callable(assert_score) and callable(assert_scores)
    points = importlib.metadata.entry_points(group="pytest11")
    assert [p.value for p in points if p.name == "scorekit"] == ["scorekit.testing.plugin"]
    scripts = importlib.metadata.entry_points(group="console_scripts")
    assert [p.value for p in scripts if p.name == "scorekit"] == ["scorekit.cli:main"]
