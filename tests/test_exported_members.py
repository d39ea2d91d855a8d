"""Every public module's __all__ matches its public names, and every export has a docstring."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import types
from pathlib import Path

import pytest

import scorekit


def _public_modules() -> list[str]:
    """Every public module of scorekit, found by walking its packages (no hand list).

    A module whose name (or a package's on its path) starts with ``_`` is private and skipped.
    """
    found = ["scorekit"]
    for info in pkgutil.walk_packages(scorekit.__path__, "scorekit."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            found.append(info.name)
    return found


MODULES = _public_modules()


def _source_doc(module: types.ModuleType, attr: str) -> str | None:
    """The docstring of ``attr`` in the module's source (mypyc-compiled classes lose theirs)."""
    compiled = str(getattr(module, "__file__", "")).endswith((".so", ".pyd"))
    if not compiled:
        return None
    relative = Path(*module.__name__.split(".")[1:]).with_suffix(".py")
    source = Path(scorekit.__file__).parent / relative
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name == attr:
            return ast.get_docstring(node)
    return None


def test_the_walk_finds_every_package() -> None:
    for name in (
        "scorekit.cli.commands.run_dataset",
        "scorekit.inputs.messages",
        "scorekit.datasets.files",
        "scorekit.testing.plugin",
        "scorekit.view.app",
        "scorekit.scorers.faithfulness",
        "scorekit.checks.text_checks",
        "scorekit.verdict",
    ):
        assert name in MODULES  # fmt: skip
    assert len(MODULES) > 150


@pytest.mark.parametrize("name", MODULES)
def test_all_is_sorted_unique_and_documented(name: str) -> None:
    module = importlib.import_module(name)
    exported = module.__all__
    assert len(exported) == len(set(exported))
    for attr in exported:
        value = getattr(module, attr)
        # type aliases (Callable[...], unions) are documented by the attribute docstring
        is_alias = isinstance(value, types.GenericAlias)
        if (inspect.isclass(value) and not is_alias) or inspect.isfunction(value):
            assert inspect.getdoc(value) or _source_doc(module, attr), (
                f"{name}.{attr} has no docstring"
            )


@pytest.mark.parametrize("name", MODULES)
def test_public_functions_and_classes_are_exported(name: str) -> None:
    module = importlib.import_module(name)
    if module.__name__ in ("scorekit", "scorekit.judge", "scorekit.scorers", "scorekit.text"):
        return  # packages re-export a chosen surface
    public = {
        attr
        for attr, value in vars(module).items()
        if not attr.startswith("_")
        and attr.isidentifier()  # pydantic files parametrised generics under "Name[Arg]"
        and (inspect.isclass(value) or inspect.isfunction(value))
        and getattr(value, "__module__", None) == module.__name__
    }
    assert public <= set(module.__all__), public - set(module.__all__)


def test_importing_scorekit_does_not_load_sqlalchemy() -> None:
    # the store (SQLAlchemy) loads when a store is used; scoring without one never needs it,
    # and a smaller heap keeps the garbage collector's full passes short during judge runs
    import subprocess
    import sys

    code = (
        "import sys, scorekit, scorekit.judge, scorekit.scorers\n"
        "assert 'sqlalchemy' not in sys.modules, 'sqlalchemy imported'\n"
        "from scorekit.store import Store, ResultWriter, resolve_url, DEFAULT_DB_PATH\n"
        "assert 'sqlalchemy' in sys.modules\n"
        "import scorekit.store as store\n"
        "assert all(getattr(store, name) is not None for name in store.__all__)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
