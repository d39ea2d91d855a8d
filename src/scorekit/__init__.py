"""scorekit: score the outputs of LLM applications, agents and RAG pipelines.

A Python port of Mastra's evals scorer system. The core API is re-exported here; prebuilt
scorers live in :mod:`scorekit.scorers`, judge parts in :mod:`scorekit.judge`, text
algorithms in :mod:`scorekit.text`. The layout, one package per concern, is in the README.
"""

from scorekit import _moved
from scorekit.cost import estimate_run
from scorekit.errors import (
    ConfigError,
    JudgeBudgetError,
    JudgeContextWindowError,
    JudgeError,
    JudgeHTTPError,
    JudgeOutputError,
    JudgeTimeoutError,
    JudgeUnavailableError,
    ScorekitError,
    ScorerRunError,
    StoreError,
)
from scorekit.evals import EvalItem, EvalRunResult, ItemResult, run_evals, run_evals_sync
from scorekit.judge.judge import Judge
from scorekit.judge.model import JudgeModel, JudgeUsage
from scorekit.pipeline import (
    PromptStep,
    RunError,
    Scorer,
    ScorerRun,
    ScorerRunResult,
    StepContext,
    create_scorer,
    local_result,
    not_scorable,
)
from scorekit.summary import ScoreSummary

__version__ = "0.1.0"

_moved.install()  # old module paths (scorekit.messages, ...) still import: scorekit._moved

__all__ = [
    "ConfigError",
    "EvalItem",
    "EvalRunResult",
    "ItemResult",
    "Judge",
    "JudgeBudgetError",
    "JudgeContextWindowError",
    "JudgeError",
    "JudgeHTTPError",
    "JudgeModel",
    "JudgeOutputError",
    "JudgeTimeoutError",
    "JudgeUnavailableError",
    "JudgeUsage",
    "PromptStep",
    "RunError",
    "ScoreSummary",
    "ScorekitError",
    "Scorer",
    "ScorerRun",
    "ScorerRunError",
    "ScorerRunResult",
    "StepContext",
    "StoreError",
    "create_scorer",
    "estimate_run",
    "local_result",
    "not_scorable",
    "run_evals",
    "run_evals_sync",
]
