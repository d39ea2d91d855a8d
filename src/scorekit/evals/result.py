"""What a run hands back: ``EvalRunResult`` and the two ways a run can stop early."""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING, Any, Literal

from scorekit.errors import ConfigError, ScorekitError
from scorekit.evals.gates import error_rate, format_rate, run_verdict, scorer_failures
from scorekit.items import ItemResult
from scorekit.notebook import MAX_ITEMS, TABLE, cell, head, score_colour, score_text, short
from scorekit.results import Status, trial_row
from scorekit.store.records import RunStatus
from scorekit.summary import ScoreSummary
from scorekit.usage import JudgeUsage

if TYPE_CHECKING:
    from scorekit.trust.min_agreement import AgreementGate
    from scorekit.trust.trials import TrialSummary

__all__ = ["DataSourceError", "EvalInterrupted", "EvalRunResult", "RunSummary", "run_verdict"]


@dataclass(frozen=True)
class RunSummary:
    """Counts over a whole run (``EvalRunResult.summary``).

    Attributes:
        total_items: items processed (Mastra ``summary.totalItems``).
        counts: scorer id → results per status (``ok``, ``skipped``, ``error``).
    """

    total_items: int
    counts: dict[str, dict[Status, int]]


@dataclass
class EvalRunResult:
    """The outcome of :func:`~scorekit.evals.run_evals`.

    Attributes:
        run_id: this run's id (the stored run's id when a store is used).
        run_name: the caller's name for it, if any.
        summaries: scorer id → summary (counts by status, mean, median, min, max).
        total_items: items processed.
        judge_usage: judge usage summed over every scorer run (calls, tokens, cache hits).
        items: per-item results, in completion order (empty when ``keep_items=False``).
        thresholds: scorer id → minimum mean, as given.
        max_error_rates: scorer id → the most ``error`` results (as a share of the scorer's
            results) the verdict allows (see :mod:`scorekit.evals.gates`).
        status: ``"running"`` while the run goes on, then ``"finished"``; ``"interrupted"``
            for the partial result of a cancelled run, ``"failed"`` for one that stopped on
            an error.
        store_url: the database the run was stored in (password masked), or ``None``.
        resumed: whether this run continued a stored run (``resume=``); its summaries then
            cover the whole run, stored results included.
        min_agreement: scorer id → its agreement gates (:mod:`scorekit.trust.min_agreement`).
        label_pairs: gated scorer id → (score, human label) of its labelled ``ok`` items.
        trials: how many times each item was scored (``run_evals(trials=k)``).
        trial_scores: scorer id → item id → its scores in trial order (``None``: not ``ok``),
            for the items scored in this session with ``trials > 1``.
        budget_stop: set when the judge budget stopped the run (``status`` is then
            ``"interrupted"`` and the verdict ``"failed"``): ``{"limit", "budget", "calls",
            "tokens", "unscored"}`` (:mod:`scorekit.judge.spending`); ``None`` otherwise.
    """

    run_id: str
    run_name: str | None
    summaries: dict[str, ScoreSummary]
    total_items: int = 0
    judge_usage: JudgeUsage = field(default_factory=JudgeUsage)
    items: list[ItemResult] = field(default_factory=list)
    thresholds: dict[str, float] = field(default_factory=dict)
    max_error_rates: dict[str, float] = field(default_factory=dict)
    status: RunStatus = "running"
    store_url: str | None = None
    resumed: bool = False
    min_agreement: dict[str, list[AgreementGate]] = field(default_factory=dict)
    label_pairs: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    trials: int = 1
    trial_scores: dict[str, dict[str, list[float | None]]] = field(default_factory=dict)
    budget_stop: dict[str, Any] | None = None

    def add(self, outcome: ItemResult) -> None:
        """Count one finished item's results (stored ones included) in the summaries.

        A gated scorer's ``ok`` score of an item with a human label for it is kept with the
        label (:attr:`label_pairs`), for its agreement gate.
        """
        self.total_items += 1
        for scorer_id, repeats in outcome.trials.items():
            for repeat in repeats:  # the repeats' judge calls are the run's too
                self.judge_usage = self.judge_usage + repeat.judge_usage
            first = outcome.scorer_results[scorer_id]
            self.trial_scores.setdefault(scorer_id, {})[outcome.item.id] = trial_row(
                (first, *repeats)
            )
        labels = outcome.item.human_labels
        for result in outcome.scorer_results.values():
            self.summaries[result.scorer_id].add(result)
            self.judge_usage = self.judge_usage + result.judge_usage
            label = labels.get(result.scorer_id)
            if (
                label is not None
                and result.scorer_id in self.min_agreement
                and result.status == "ok"
                and result.score is not None
            ):
                self.label_pairs.setdefault(result.scorer_id, []).append((result.score, label))

    def trial_summaries(self, *, threshold: float = 0.5) -> dict[str, TrialSummary]:
        """Each scorer's self-consistency over its trials (``trials > 1``; else ``{}``).

        See :func:`scorekit.trust.trials.trial_summary`; a scorer without an item scored ``ok``
        in every trial is left out.
        """
        from scorekit.trust.trials import trial_summary  # numpy: only for runs with trials

        found = {}
        for sid, scores in self.trial_scores.items():
            summary = trial_summary(scores, threshold=threshold)
            if summary is not None:
                found[sid] = summary
        return found

    def label_agreement(self) -> dict[str, dict[str, Any]]:
        """Each gated scorer's agreement with the labels seen so far (``Agreement.to_dict()``).

        A gated scorer without any labelled ``ok`` item is left out.
        """
        from scorekit.trust.agreement import agreement  # numpy: only for runs with gates

        return {
            sid: agreement([s for s, _ in pairs], [lab for _, lab in pairs]).to_dict()
            for sid, pairs in self.label_pairs.items()
        }

    @property
    def scores(self) -> dict[str, float]:
        """Scorer id → mean score over ``ok`` results (scorers with none are left out)."""
        return {sid: s.mean for sid, s in self.summaries.items() if s.mean is not None}

    @property
    def summary(self) -> RunSummary:
        """Items processed and per-scorer counts by status."""
        return RunSummary(
            self.total_items, {sid: dict(s.counts) for sid, s in self.summaries.items()}
        )

    @property
    def unmeasured(self) -> list[str]:
        """Ids of the scorers that got no ``ok`` result (they fail the verdict)."""
        return [sid for sid, s in self.summaries.items() if s.counts["ok"] == 0]

    @property
    def failures(self) -> dict[str, list[str]]:
        """Scorer id → the gates it failed, as short reasons (empty: it passed).

        See :func:`scorekit.verdict.scorer_failures`.
        """
        return scorer_failures(
            self.summaries, self.thresholds, self.max_error_rates, self._agreement_failures()
        )

    def _agreement_failures(self) -> dict[str, list[str]] | None:
        if not self.min_agreement:
            return None
        from scorekit.trust.min_agreement import agreement_failures

        return agreement_failures(self.min_agreement, self.label_agreement())

    @property
    def verdict(self) -> Literal["passed", "failed"] | None:
        """The verdict of a ``finished`` run; ``None`` for a run that did not finish.

        ``"failed"`` when a scorer got no ``ok`` result, missed its threshold, had more
        errors than its ``max_error_rate`` or failed its ``min_agreement``; else
        ``"passed"``. A run that is still going, was interrupted or stopped on an error has no
        verdict: what it measured is partial. A run its judge budget stopped has failed: it
        did not measure what it was asked to (:attr:`budget_stop`).
        """
        if self.budget_stop is not None:
            return "failed"
        if self.status != "finished":
            return None
        return run_verdict(
            self.summaries, self.thresholds, self.max_error_rates, self._agreement_failures()
        )

    def totals(self) -> dict[str, dict[str, Any]]:
        """Scorer id → the summary as JSON data (:meth:`ScoreSummary.to_dict`)."""
        return {sid: s.to_dict() for sid, s in self.summaries.items()}

    def to_pandas(self, *, wide: bool = False) -> Any:
        """The per-item results as a pandas DataFrame (needs ``scorekit[pandas]``).

        Args:
            wide: one row per item (a score and a status column per scorer) instead of one
                row per item and scorer (see :func:`scorekit.datasets.frames.results_frame`).

        Raises:
            ConfigError: the run kept no items (``keep_items=False``).
            ImportError: pandas is not installed.
        """
        from scorekit.datasets.frames import items_frame

        if not self.items and self.total_items:
            raise ConfigError(
                f"run {self.run_id} kept no per-item results (keep_items=False); run with "
                "keep_items=True, or read the stored run with Store.results_frame",
                field="keep_items",
            )
        return items_frame(self.items, wide=wide)

    def _repr_html_(self) -> str:
        return _run_html(self)


def _run_html(result: EvalRunResult, *, max_items: int = MAX_ITEMS) -> str:
    """A run as HTML: its summary table (with gates and verdict) and its weakest items.

    Args:
        result: the run.
        max_items: items listed, lowest ``ok`` score first, then ``error`` and ``skipped``.
    """
    failures = result.failures if result.status == "finished" else {}
    verdict = result.verdict
    title = (
        f"run {result.run_id[:8]}"
        + (f" ({result.run_name})" if result.run_name else "")
        + f" · {result.total_items} items · {result.status}"
        + (f" · verdict {verdict}" if verdict else "")
    )
    parts = [f"<div><b>{escape(title)}</b></div><table {TABLE}>"]
    parts.append(
        head(
            "scorer", "ok", "skipped", "error", "error rate", "mean", "median", "min", "max", "gate"
        )
    )
    for sid, s in result.summaries.items():
        failed = failures.get(sid, [])
        gate = ("FAIL: " + "; ".join(failed)) if failed else ("pass" if verdict else "—")
        parts.append(
            "<tr>"
            + cell(sid)
            + "".join(cell(s.counts[k], align="right") for k in ("ok", "skipped", "error"))
            + cell(format_rate(error_rate(s)), align="right")
            + cell(score_text(s.mean), align="right", colour=score_colour(s.mean))
            + "".join(cell(score_text(v), align="right") for v in (s.median, s.minimum, s.maximum))
            + cell(gate, colour="#f8d0d0" if failed else None)
            + "</tr>"
        )
    parts.append("</table>")
    listed = [(o.item.id, r) for o in result.items for r in o.scorer_results.values()]
    order = {"ok": 0, "error": 1, "skipped": 2}
    listed.sort(key=lambda pair: (order[pair[1].status], pair[1].score or 0.0))
    if listed:
        parts.append(f"<div>weakest {min(max_items, len(listed))} of {len(listed)} results</div>")
        parts.append(f"<table {TABLE}>" + head("item", "scorer", "status", "score", "reason"))
        for item_id, r in listed[:max_items]:
            why = r.reason if r.error is None else f"{r.error.type}: {r.error.message}"
            parts.append(
                "<tr>"
                + cell(item_id)
                + cell(r.scorer_id)
                + cell(r.status)
                + cell(score_text(r.score), align="right", colour=score_colour(r.score))
                + cell("" if why is None else short(why))
                + "</tr>"
            )
        parts.append("</table>")
    return "".join(parts)


class DataSourceError(ScorekitError):
    """The dataset iterable raised while being read.

    The items read before it were scored (and stored, with a store); the run is marked
    ``failed``.

    Attributes:
        partial: the result of the items that were scored.
    """

    def __init__(self, message: str, *, partial: EvalRunResult | None = None) -> None:
        super().__init__(message)
        self.partial = partial


class EvalInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped :func:`~scorekit.evals.run_evals_sync`; what finished is stored.

    A ``KeyboardInterrupt``, so code that does not care still stops as usual.

    Attributes:
        result: the partial result (``status == "interrupted"``), counting the items that
            finished.
    """

    def __init__(self, result: EvalRunResult) -> None:
        super().__init__(f"run {result.run_id} interrupted after {result.total_items} items")
        self.result = result
