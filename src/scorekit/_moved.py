"""Old import paths of modules that moved into packages, kept working.

scorekit's modules were grouped by concern (the command line into :mod:`scorekit.cli`, the
input shapes into :mod:`scorekit.inputs`, datasets into :mod:`scorekit.datasets`, the users'
tests into :mod:`scorekit.testing`). Code written against the old paths
(``import scorekit.messages``, ``from scorekit.dataset import read_dataset``) still runs: a
finder on ``sys.meta_path`` answers an old name with the module at its new path, the same
module object, so ``scorekit.messages is scorekit.inputs.messages``. Each use warns once with
a :class:`DeprecationWarning` naming the new path. Type checkers do not see the old paths: use
the new ones in new code.

Ground floor: imports no module of ours.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType

__all__ = ["MOVED_MODULES", "install"]

MOVED_MODULES: dict[str, str] = {
    "scorekit.commands": "scorekit.cli.commands",
    "scorekit.config": "scorekit.cli.config",
    "scorekit.console": "scorekit.cli.console",
    "scorekit.plan": "scorekit.cli.plan",
    "scorekit.run_log": "scorekit.cli.run_log",
    "scorekit.exit_codes": "scorekit.cli.exit_codes",
    "scorekit.metrics": "scorekit.cli.correlation",
    "scorekit.pytest_plugin": "scorekit.testing.plugin",
    "scorekit.session_run": "scorekit.testing.session",
    "scorekit.judge.testing": "scorekit.judge.scripted",
    "scorekit.messages": "scorekit.inputs.messages",
    "scorekit.message_checks": "scorekit.inputs.message_validation",
    "scorekit.tool_calls": "scorekit.inputs.tool_calls",
    "scorekit.trajectories": "scorekit.inputs.trajectories",
    "scorekit.context": "scorekit.inputs.retrieval_context",
    "scorekit.trajectory_checks": "scorekit.scorers.trajectory_criteria",
    "scorekit.options": "scorekit.scorers.options",
    "scorekit.dataset": "scorekit.datasets.files",
    "scorekit.frames": "scorekit.datasets.frames",
    "scorekit.evals.item": "scorekit.evals.per_item",
    "scorekit.traces.items": "scorekit.traces.trace_items",
    "scorekit.store.summaries": "scorekit.store.stored_summaries",
}
"""Old module path → new module path."""


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module path and loads it as the module at its new path."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED_MODULES:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = MOVED_MODULES[spec.name]
        warnings.warn(
            f"{spec.name} moved to {new}; import it from there",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module at the new path is already loaded."""


_FINDER = _MovedFinder()


def install() -> None:
    """Put the finder on ``sys.meta_path`` (once; later calls do nothing)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.append(_FINDER)
