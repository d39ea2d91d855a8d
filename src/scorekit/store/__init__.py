"""The results database: runs and per-(item, scorer) results, through SQLAlchemy.

``run_evals(..., store=...)`` writes here; ``scorekit runs/show/compare/report`` read here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scorekit.store.records import (
    RUN_SOURCES,
    ResultRecord,
    RunRecord,
    RunSource,
    RunStatus,
    ScorerChange,
    ScoreRegression,
)

if TYPE_CHECKING:
    from scorekit.store.labels import HumanLabel, add_labels, current_labels, label_history
    from scorekit.store.rows import result_rows
    from scorekit.store.store import DEFAULT_DB_PATH, Store, resolve_url
    from scorekit.store.writer import ResultWriter

# imported on first use: SQLAlchemy is a large import that scoring without a store never needs
_LAZY = {
    "DEFAULT_DB_PATH": "scorekit.store.store",
    "Store": "scorekit.store.store",
    "resolve_url": "scorekit.store.store",
    "ResultWriter": "scorekit.store.writer",
    "result_rows": "scorekit.store.rows",
    "HumanLabel": "scorekit.store.labels",
    "add_labels": "scorekit.store.labels",
    "current_labels": "scorekit.store.labels",
    "label_history": "scorekit.store.labels",
}


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    "DEFAULT_DB_PATH",
    "RUN_SOURCES",
    "HumanLabel",
    "ResultRecord",
    "ResultWriter",
    "RunRecord",
    "RunSource",
    "RunStatus",
    "ScoreRegression",
    "ScorerChange",
    "Store",
    "add_labels",
    "current_labels",
    "label_history",
    "resolve_url",
    "result_rows",
]
