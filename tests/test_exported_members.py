"""Every public module's __all__ matches its public names, and every export has a docstring."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import types

import pytest

import scorekit.checks
import scorekit.scorers


def _modules_of(package: types.ModuleType) -> list[str]:
    """Every module of ``package`` (one per scorer, check family or prompt set)."""
    prefix = f"{package.__name__}."
    return [info.name for info in pkgutil.iter_modules(package.__path__, prefix)]


MODULES = [
    "scorekit",
    "scorekit.errors",
    "scorekit.messages",
    "scorekit.pipeline",
    "scorekit.options",
    "scorekit.metrics",
    "scorekit.evals",
    "scorekit.evals.executor",
    "scorekit.evals.item",
    "scorekit.evals.recorder",
    "scorekit.evals.result",
    "scorekit.evals.run",
    "scorekit.evals.source",
    "scorekit.items",
    "scorekit.results",
    "scorekit.usage",
    "scorekit.summary",
    "scorekit.plan",
    "scorekit.run_log",
    "scorekit.console",
    "scorekit.store.rows",
    "scorekit.import_path",
    "scorekit.dataset",
    "scorekit.judge",
    "scorekit.scorers",
    "scorekit.scorers.registry",
    "scorekit.steps",
    "scorekit.text",
    "scorekit.store",
    "scorekit.checks",
    *_modules_of(scorekit.scorers),
    *_modules_of(scorekit.checks),
]


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
            assert inspect.getdoc(value), f"{name}.{attr} has no docstring"


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
