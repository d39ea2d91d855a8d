"""Runs over many items: ``run_evals`` and the seams it is wired from.

Data flows one way (architecture.md)::

    data ─▶ ItemSource ─▶ Executor (LocalExecutor, or a distributed one)
         ─▶ ItemJob / score_item per item: target, then scorers ─▶ ItemResult
         ─▶ RunRecorder (one stored run; source TEST, LIVE or TRACE) ─▶ store
         ─▶ EvalRunResult (ScoreSummary per scorer, judge usage, verdict)

Each seam is public so that other ways of running (live scoring, trace scoring, a pytest
plugin, a Ray executor; none ships yet) can reuse it instead of reaching into private code:

* :func:`score_item` / :class:`ItemJob` — score one item;
* :class:`Executor` and :class:`LocalExecutor` — where items are scored;
* :class:`RunRecorder` — one stored run, any source;
* :func:`run_evals` / :func:`run_evals_sync` — the wiring for a dataset.

An item's ``context`` (from the data, or from a target returning ``{"output", "context"}``)
reaches every scorer as ``ctx.run.context``; context scorers built with
``context_extractor=item_context`` (:mod:`scorekit.inputs.retrieval_context`) judge it.
"""

from scorekit.evals.executor import Executor, ItemTask, LocalExecutor
from scorekit.evals.per_item import ItemJob, score_item
from scorekit.evals.recorder import ResumedRun, RunRecorder
from scorekit.evals.result import DataSourceError, EvalInterrupted, EvalRunResult, RunSummary
from scorekit.evals.run import ItemCallback, run_evals, run_evals_sync
from scorekit.inputs.retrieval_context import item_context
from scorekit.items import EvalItem, ItemResult, Target

__all__ = [
    "DataSourceError",
    "EvalInterrupted",
    "EvalItem",
    "EvalRunResult",
    "Executor",
    "ItemCallback",
    "ItemJob",
    "ItemResult",
    "ItemTask",
    "LocalExecutor",
    "ResumedRun",
    "RunRecorder",
    "RunSummary",
    "Target",
    "item_context",
    "run_evals",
    "run_evals_sync",
    "score_item",
]
