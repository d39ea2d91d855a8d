"""The docstring examples of every scorer module run, found by walking the scorer packages.

No hand list: a new module of :mod:`scorekit.scorers` or :mod:`scorekit.checks` has its
examples run as soon as it exists, and a module that registers a scorer must show one.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

from scorekit.scorers.registry import BUILTIN_PACKAGES, builtin_modules

EXTRA = ["scorekit.rounding", "scorekit.judge.logprobs"]
"""Modules outside the scorer packages whose examples the scorers rely on."""


def scorer_package_modules() -> list[str]:
    names = []
    for package_name in BUILTIN_PACKAGES:
        package = importlib.import_module(package_name)
        names.append(package_name)
        names += [i.name for i in pkgutil.iter_modules(package.__path__, prefix=f"{package_name}.")]
    return names


@pytest.mark.parametrize("name", [*scorer_package_modules(), *EXTRA])
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module)
    assert result.failed == 0
    is_package = hasattr(module, "__path__")
    if (name in builtin_modules() and not is_package) or name in EXTRA:
        assert result.attempted > 0, f"{name} registers a scorer but shows no example"


def test_the_walk_finds_every_registered_scorer_module() -> None:
    walked = set(scorer_package_modules())
    assert set(builtin_modules()) <= walked
    assert len(walked) > 40
