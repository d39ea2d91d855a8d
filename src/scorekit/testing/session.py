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
import math
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pydantic_core import to_jsonable_python

from scorekit.errors import ConfigError
from scorekit.items import EvalItem, ItemResult
from scorekit.results import ScorerRunResult
from scorekit.steps import record_values
from scorekit.summary import ScoreSummary
from scorekit.testing import Bound, ScoreCheck
from scorekit.usage import JudgeUsage

__all__ = ["SessionScores", "check_thresholds_marker"]


def check_thresholds_marker(raw: Any, where: str) -> dict[str, float]:
    """Validate the ``thresholds`` of a ``@pytest.mark.scorekit`` marker.

    Args:
        raw: the marker's ``thresholds``: scorer (id or registry name) → minimum mean.
        where: the test, for the message.

    Raises:
        ConfigError: not a non-empty mapping of names to finite numbers
            (``field="thresholds"``).
    """
    if not isinstance(raw, Mapping) or not raw:
        raise ConfigError(
            f"{where}: @pytest.mark.scorekit(thresholds=...) takes a mapping of scorer to "
            f"minimum mean, not {raw!r}",
            field="thresholds",
        )
    found = {}
    for key, value in raw.items():
        if (
            not isinstance(key, str)
            or isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
        ):
            raise ConfigError(
                f"{where}: threshold {key!r}: {value!r} is not a finite number",
                field="thresholds",
            )
        found[key] = float(value)
    return found


def _jsonable(value: Any) -> Any:
    return to_jsonable_python(value, fallback=repr, serialize_unknown=True, bytes_mode="base64")


def _check_to_data(check: ScoreCheck, group: str | None) -> dict[str, Any]:
    item = check.item
    return {
        "group": group,
        "item": {
            "id": item.id,
            **{name: _jsonable(value) for name, value in record_values(item).items()},
            "output": None,  # the check's output below is the one that was scored
            "metadata": _jsonable(dict(item.metadata)),
        },
        "output": _jsonable(check.output),
        "results": [r.to_dict() for r in check.results.values()],
        "bounds": {sid: [b.minimum, b.maximum] for sid, b in check.bounds.items()},
        "failures": dict(check.failures),
        "scorers": check.scorers,
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
    check = ScoreCheck(item, data["output"], results, bounds, data["failures"], data["scorers"])
    return check, data["group"]


@dataclass
class SessionScores:
    """Every check of one pytest session (or of one xdist worker, until merged).

    Attributes:
        checks: the checks, each with its item id (a test's node id), in the order recorded.
        groups: the test (node id without its parameters) of each check that has a
            ``@pytest.mark.scorekit`` marker → the marker's thresholds.
        members: marked test → the indexes in :attr:`checks` of its cases' checks.
    """

    checks: list[ScoreCheck] = field(default_factory=list)
    groups: dict[str, dict[str, float]] = field(default_factory=dict)
    members: dict[str, list[int]] = field(default_factory=dict)
    _calls: dict[str, int] = field(default_factory=dict)

    def add(
        self, check: ScoreCheck, node_id: str, group: tuple[str, dict[str, float]] | None = None
    ) -> ScoreCheck:
        """Record a check made by the test ``node_id``; return it named by the test.

        Args:
            check: the check.
            node_id: the test's node id.
            group: for a test with a ``scorekit`` marker, (the test without its parameters,
                the marker's thresholds).
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

    # -- workers ---------------------------------------------------------------------------

    def to_json(self) -> str:
        """The checks and marker thresholds as JSON text (what a worker sends the controller)."""
        groups_of = {i: g for g, members in self.members.items() for i in members}
        return json.dumps(
            {
                "checks": [_check_to_data(c, groups_of.get(i)) for i, c in enumerate(self.checks)],
                "groups": self.groups,
            }
        )

    def merge_json(self, text: str) -> None:
        """Add what :meth:`to_json` wrote (a worker's checks) to these."""
        data = json.loads(text)
        self.groups.update(data["groups"])
        for raw in data["checks"]:
            check, group = _check_of(raw)
            self._append(check, group)

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
        """Marked test → the thresholds its cases' means missed (tests that passed are absent).

        A threshold naming a scorer none of the test's cases recorded fails too.
        """
        from scorekit.evals.gates import resolve_scorer_keys, scorer_failures

        failed: dict[str, list[str]] = {}
        for group, thresholds in self.groups.items():
            members = self.members.get(group, [])
            if not members:  # no case scored anything: nothing to gate (unchecked_markers)
                continue
            summaries = self.summaries(members)
            limits: dict[str, float] = {}
            reasons: list[str] = []
            for key, minimum in thresholds.items():
                try:
                    limits.update(resolve_scorer_keys({key: minimum}, list(summaries), field="t"))
                except ConfigError:
                    reasons.append(f"{key}: no score recorded in its {len(members)} cases")
            gated = {sid: summaries[sid] for sid in limits}
            for sid, why in scorer_failures(gated, limits).items():
                reasons.extend(f"{sid}: {reason} over {len(members)} cases" for reason in why)
            if reasons:
                failed[group] = reasons
        return failed

    def unchecked_markers(self) -> list[str]:
        """The marked tests none of whose cases recorded a score (all skipped, or none asked).

        Their thresholds gate nothing; the session's summary says so.
        """
        return [group for group in self.groups if not self.members.get(group)]

    def verdict(self) -> Literal["passed", "failed"]:
        """``failed`` when an assertion or a marker failed, or a scorer got no ``ok`` result."""
        from scorekit.verdict import run_verdict

        if self.failed_checks() or self.marker_failures():
            return "failed"
        return run_verdict(self.summaries(), {}, None)

    # -- storing ---------------------------------------------------------------------------

    def store(
        self, db: str | Path | None, *, name: str | None, config: Mapping[str, Any]
    ) -> tuple[str, str]:
        """Store the session as one run (source ``TEST``); return (run id, store URL).

        Args:
            db: the database (``None``: the default ``.scorekit/scorekit.db``), a SQLite path
                or a SQLAlchemy URL.
            name: the run's name.
            config: JSON data stored with the run.

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
            ItemResult(check.item, check.output, None, dict(check.results)) for check in self.checks
        ]
        usage = JudgeUsage()
        for outcome in outcomes:
            for result in outcome.scorer_results.values():
                usage = usage + result.judge_usage
        run_id = str(uuid.uuid4())
        with Store(db) as opened, RunRecorder(opened, source="TEST") as recorder:
            recorder.start(
                run_id,
                scorers=[scorers[sid] for sid in self.summaries()],
                name=name,
                config=config,
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
