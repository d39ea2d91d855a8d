"""The scores of one pytest session: collected, merged across workers, gated, stored once.

:mod:`scorekit.testing.plugin` keeps one :class:`SessionScores` on the pytest config object.
Every :func:`~scorekit.testing.assert_score` call of a test becomes one item named by the
test's node id (a second call in the same test ``<node id>#2``, as ``run_evals`` names a
repeated id). Under pytest-xdist each worker keeps its own and hands it to the controller as
JSON text (:meth:`SessionScores.to_json`, merged with :meth:`SessionScores.merge_json`), so the
controller alone holds the whole session: it checks the markers' thresholds, prints the one
summary and stores the one run.

The run is stored when the session ends (source ``TEST``), through the same
:class:`~scorekit.evals.recorder.RunRecorder` every run uses, so ``scorekit show``, ``report``
and ``compare`` read test sessions like any run. Nothing here imports pytest.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic_core import to_jsonable_python

from scorekit.errors import ConfigError
from scorekit.items import EvalItem, ItemResult
from scorekit.judge.prices import PriceTable
from scorekit.judge.spending import BUDGET_STOP_KEY
from scorekit.results import ScorerRunResult, trial_row
from scorekit.steps import record_values
from scorekit.summary import ScoreSummary
from scorekit.testing import Bound, ScoreCheck
from scorekit.testing.marker import MarkerSpec
from scorekit.usage import JudgeUsage

if TYPE_CHECKING:
    from scorekit.trust.trials import TrialSummary

__all__ = ["SessionScores"]


def _jsonable(value: Any) -> Any:
    return to_jsonable_python(value, fallback=repr, serialize_unknown=True, bytes_mode="base64")


def _check_to_data(check: ScoreCheck, group: str | None) -> dict[str, Any]:
    item = check.item
    return {
        "group": group,
        "item": {
            "id": item.id,
            **{name: _jsonable(value) for name, value in record_values(item).items()},
            "human_labels": dict(item.human_labels),
            "output": None,  # the check's output below is the one that was scored
            "metadata": _jsonable(dict(item.metadata)),
        },
        "output": _jsonable(check.output),
        "results": [r.to_dict() for r in check.results.values()],
        "bounds": {sid: [b.minimum, b.maximum] for sid, b in check.bounds.items()},
        "failures": dict(check.failures),
        "scorers": check.scorers,
        "trials": {sid: [r.to_dict() for r in rs] for sid, rs in check.trials.items()},
    }


def _result_of(data: Mapping[str, Any]) -> ScorerRunResult:
    values = dict(data)
    usage = JudgeUsage(**values.pop("judge_usage", {}))
    return ScorerRunResult.model_validate({**values, "judge_usage": usage})


def _check_of(data: Mapping[str, Any]) -> tuple[ScoreCheck, str | None]:
    raw = dict(data["item"])
    context = raw.pop("context")
    item = EvalItem(
        **{**raw, "output": data["output"]},
        has_output=True,
        context=None if context is None else tuple(context),
    )
    results = {r["scorer_id"]: _result_of(r) for r in data["results"]}
    bounds = {sid: Bound(low, high) for sid, (low, high) in data["bounds"].items()}
    trials = {sid: [_result_of(r) for r in rs] for sid, rs in data.get("trials", {}).items()}
    check = ScoreCheck(
        item, data["output"], results, bounds, data["failures"], data["scorers"], trials
    )
    return check, data["group"]


@dataclass
class SessionScores:
    """Every check of one pytest session (or of one xdist worker, until merged).

    Attributes:
        checks: the checks, each with its item id (a test's node id), in the order recorded.
        groups: the test (node id without its parameters) of each check that has a
            ``@pytest.mark.scorekit`` marker → the marker's settings.
        members: marked test → the indexes in :attr:`checks` of its cases' checks.
        budget_stop: under a judge budget (``--scorekit-max-judge-calls``), what it spent:
            the ledger's figures and ``unscored``, the tests it skipped (the session fails
            when there is one, :attr:`stopped`).
    """

    checks: list[ScoreCheck] = field(default_factory=list)
    groups: dict[str, MarkerSpec] = field(default_factory=dict)
    members: dict[str, list[int]] = field(default_factory=dict)
    budget_stop: dict[str, Any] | None = None
    _calls: dict[str, int] = field(default_factory=dict)

    def add(
        self, check: ScoreCheck, node_id: str, group: tuple[str, MarkerSpec] | None = None
    ) -> ScoreCheck:
        """Record a check made by the test ``node_id``; return it named by the test.

        Args:
            check: the check.
            node_id: the test's node id.
            group: for a test with a ``scorekit`` marker, (the test without its parameters,
                the marker's settings).
        """
        count = self._calls.get(node_id, 0) + 1
        self._calls[node_id] = count
        item_id = node_id if count == 1 else f"{node_id}#{count}"
        named = replace(
            check,
            item=replace(check.item, id=item_id, metadata={**check.item.metadata, "test": node_id}),
        )
        self._append(named, None if group is None else group[0])
        if group is not None:
            self.groups[group[0]] = group[1]
        return named

    def _append(self, check: ScoreCheck, group: str | None) -> None:
        self.checks.append(check)
        if group is not None:
            self.members.setdefault(group, []).append(len(self.checks) - 1)

    def spent(self, ledger: Mapping[str, Any], skipped: int) -> None:
        """Add a judge budget's figures (one process's share) and the tests it skipped.

        :attr:`budget_stop` is set once any share skipped a test; the shares' budgets, calls,
        tokens and money (under a money budget) add up to the session's.
        """
        stop = self.budget_stop or {"limit": None, "budget": {}, "calls": 0, "tokens": 0,
                                    "unscored": 0}  # fmt: skip
        budget = dict(stop["budget"])
        for name, value in ledger["budget"].items():
            total = budget.get(name, 0) + value  # calls and tokens: ints; max_cost: dollars
            budget[name] = round(total, 12) if isinstance(total, float) else total  # shares' sum
        self.budget_stop = {
            "limit": stop["limit"] or (ledger["limit"] if skipped else None),
            "budget": budget,
            "calls": int(stop["calls"]) + int(ledger["calls"]),
            "tokens": int(stop["tokens"]) + int(ledger["tokens"]),
            "unscored": int(stop["unscored"]) + skipped,
        }
        if "cost" in stop or "cost" in ledger:
            self.budget_stop["cost"] = float(stop.get("cost", 0.0)) + float(ledger.get("cost", 0.0))

    @property
    def stopped(self) -> bool:
        """Whether the judge budget skipped a test (the session then fails)."""
        return bool(self.budget_stop and self.budget_stop["unscored"])

    # -- workers ---------------------------------------------------------------------------

    def to_json(self) -> str:
        """The checks and markers as JSON text (what a worker sends the controller)."""
        groups_of = {i: g for g, members in self.members.items() for i in members}
        return json.dumps(
            {
                "checks": [_check_to_data(c, groups_of.get(i)) for i, c in enumerate(self.checks)],
                "groups": {group: spec.to_dict() for group, spec in self.groups.items()},
                "budget_stop": self.budget_stop,
            }
        )

    def merge_json(self, text: str) -> None:
        """Add what :meth:`to_json` wrote (a worker's checks) to these."""
        data = json.loads(text)
        self.groups.update(
            {group: MarkerSpec.from_dict(spec) for group, spec in data["groups"].items()}
        )
        for raw in data["checks"]:
            check, group = _check_of(raw)
            self._append(check, group)
        stop = data.get("budget_stop")
        if stop:
            self.spent(stop, int(stop["unscored"]))

    # -- views -----------------------------------------------------------------------------

    def summaries(self, indexes: Sequence[int] | None = None) -> dict[str, ScoreSummary]:
        """Scorer id → summary of the checks (all, or those at ``indexes``), in first-seen order."""
        found: dict[str, ScoreSummary] = {}
        chosen = self.checks if indexes is None else [self.checks[i] for i in indexes]
        for check in chosen:
            for sid, result in check.results.items():
                found.setdefault(sid, ScoreSummary(sid)).add(result)
        return found

    def failed_checks(self) -> list[ScoreCheck]:
        """The checks that failed an assertion."""
        return [c for c in self.checks if c.failures]

    def marker_failures(self) -> dict[str, list[str]]:
        """Marked test → the gates its cases missed (tests that passed are absent).

        The thresholds on the cases' means, then the agreement gates on the cases' human
        labels (:mod:`scorekit.testing.marker`). A gate naming a scorer none of the test's
        cases recorded fails too.
        """
        from scorekit.evals.gates import resolve_scorer_keys, scorer_failures

        failed: dict[str, list[str]] = {}
        for group, spec in self.groups.items():
            members = self.members.get(group, [])
            if not members:  # no case scored anything: nothing to gate (unchecked_markers)
                continue
            summaries = self.summaries(members)
            cases = f"{len(members)} cases"
            limits: dict[str, float] = {}
            reasons: list[str] = []
            for key, minimum in spec.thresholds.items():
                try:
                    limits.update(resolve_scorer_keys({key: minimum}, list(summaries), field="t"))
                except ConfigError:
                    reasons.append(f"{key}: no score recorded in its {cases}")
            gated = {sid: summaries[sid] for sid in limits}
            for sid, why in scorer_failures(gated, limits).items():
                reasons.extend(f"{sid}: {reason} over {cases}" for reason in why)
            reasons.extend(self._agreement_failures(spec, members, list(summaries)))
            if reasons:
                failed[group] = reasons
        return failed

    def _agreement_failures(
        self, spec: MarkerSpec, members: Sequence[int], scorer_ids: list[str]
    ) -> list[str]:
        if not spec.min_agreement:
            return []
        from scorekit.evals.gates import resolve_scorer_keys
        from scorekit.trust.agreement import agreement
        from scorekit.trust.min_agreement import agreement_failures, check_min_agreement

        reasons: list[str] = []
        resolved: dict[str, Any] = {}
        for key, figures in spec.min_agreement.items():
            try:
                resolved.update(resolve_scorer_keys({key: figures}, scorer_ids, field="a"))
            except ConfigError:
                reasons.append(f"{key}: no score recorded in its {len(members)} cases")
        gates = check_min_agreement(resolved, list(resolved))
        pairs: dict[str, list[tuple[float, float]]] = {sid: [] for sid in gates}
        for index in members:
            check = self.checks[index]
            for sid in gates:
                result, label = check.results.get(sid), check.item.human_labels.get(sid)
                score = None if result is None or result.status != "ok" else result.score
                if score is not None and label is not None:
                    pairs[sid].append((score, label))
        figures = {
            sid: agreement([s for s, _ in found], [lab for _, lab in found]).to_dict()
            for sid, found in pairs.items()
            if found
        }
        for sid, why in agreement_failures(gates, figures).items():
            reasons.extend(f"{sid}: {reason} ({len(pairs[sid])} labelled)" for reason in why)
        return reasons

    def marker_trials(self) -> dict[str, dict[str, TrialSummary]]:
        """Marked test with ``trials > 1`` → each scorer's self-consistency over its cases.

        See :func:`scorekit.trust.trials.trial_summary`; a scorer without a case scored ``ok``
        in every trial is left out.
        """
        from scorekit.trust.trials import trial_summary

        found: dict[str, dict[str, TrialSummary]] = {}
        for group, spec in self.groups.items():
            if spec.trials < 2:
                continue
            scores: dict[str, dict[str, list[float | None]]] = {}
            for index in self.members.get(group, []):
                check = self.checks[index]
                for sid, repeats in check.trials.items():
                    first = check.results[sid]
                    scores.setdefault(sid, {})[check.item.id] = trial_row((first, *repeats))
            summaries = {}
            for sid, by_item in scores.items():
                summary = trial_summary(by_item)
                if summary is not None:
                    summaries[sid] = summary
            if summaries:
                found[group] = summaries
        return found

    def unchecked_markers(self) -> list[str]:
        """The marked tests none of whose cases recorded a score (all skipped, or none asked).

        Their thresholds gate nothing; the session's summary says so.
        """
        return [group for group in self.groups if not self.members.get(group)]

    def verdict(self) -> Literal["passed", "failed"]:
        """``failed`` when an assertion or a marker failed, or a scorer got no ``ok`` result."""
        from scorekit.verdict import run_verdict

        if self.failed_checks() or self.marker_failures() or self.stopped:
            return "failed"
        return run_verdict(self.summaries(), {}, None)

    # -- storing ---------------------------------------------------------------------------

    def store(
        self,
        db: str | Path | None,
        *,
        name: str | None,
        config: Mapping[str, Any],
        prices: PriceTable | None = None,
    ) -> tuple[str, str]:
        """Store the session as one run (source ``TEST``); return (run id, store URL).

        Args:
            db: the database (``None``: the default ``.scorekit/scorekit.db``), a SQLite path
                or a SQLAlchemy URL.
            name: the run's name.
            config: JSON data stored with the run.
            prices: the session's prices (``None``: the table); its judges' are stored with it.

        Raises:
            StoreError: the database cannot be opened or written.
        """
        from scorekit._sync import run_sync
        from scorekit.evals.recorder import RunRecorder
        from scorekit.store.store import Store

        scorers: dict[str, dict[str, str]] = {}
        for check in self.checks:
            for row in check.scorers:
                scorers.setdefault(row["id"], row)
        outcomes = [
            ItemResult(check.item, check.output, None, dict(check.results), trials=check.trials)
            for check in self.checks
        ]
        usage = JudgeUsage()
        for outcome in outcomes:
            for result in outcome.scorer_results.values():
                usage = usage + result.judge_usage
            for again in outcome.trials.values():  # the repeats' judge calls count too
                for result in again:
                    usage = usage + result.judge_usage
        repeats = [len(rs) + 1 for check in self.checks for rs in check.trials.values()]
        if repeats and max(repeats) > 1:  # the views read the repeats with the run's count
            config = {**config, "trials": max(repeats)}
        if self.stopped:  # show says why the verdict failed
            config = {**config, BUDGET_STOP_KEY: self.budget_stop}
        run_id = str(uuid.uuid4())
        with Store(db) as opened, RunRecorder(opened, source="TEST") as recorder:
            recorder.start(
                run_id,
                scorers=[scorers[sid] for sid in self.summaries()],
                name=name,
                config=config,
                prices=prices,
            )

            async def record_all() -> None:
                for outcome in outcomes:
                    await recorder.record(outcome)

            try:
                run_sync(record_all())
            except BaseException:
                recorder.finish("failed", total_items=len(outcomes), judge_usage=usage)
                raise
            recorder.finish(
                "finished", total_items=len(outcomes), judge_usage=usage, verdict=self.verdict()
            )
            url = recorder.url
        return run_id, url
