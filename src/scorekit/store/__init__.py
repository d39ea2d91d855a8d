"""The results database: runs and per-(item, scorer) results, through SQLAlchemy.

``run_evals(..., store=...)`` writes here; ``scorekit runs/show/compare/report`` read here.
"""

from scorekit.store.records import (
    ResultRecord,
    RunRecord,
    RunStatus,
    ScorerChange,
    ScoreRegression,
    ScorerStats,
)
from scorekit.store.store import DEFAULT_DB_PATH, Store, resolve_url
from scorekit.store.writer import ResultWriter, result_rows

__all__ = [
    "DEFAULT_DB_PATH",
    "ResultRecord",
    "ResultWriter",
    "RunRecord",
    "RunStatus",
    "ScoreRegression",
    "ScorerChange",
    "ScorerStats",
    "Store",
    "resolve_url",
    "result_rows",
]
