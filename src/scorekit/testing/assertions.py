"""LLM evaluations as unit tests: :func:`assert_score` and :func:`assert_scores`.

Each call scores one item with one or several scorers (through the per-item function
``run_evals`` uses, :func:`scorekit.evals.score_item`), checks every score against its bounds,
and raises :class:`ScoreAssertionError` when one fails. The message lists each score, its
bound and its reason; for an ``error`` result, the error and the judge's raw reply.

A result that is not ``ok`` never passes silently: ``skipped`` fails unless the call allows it
(``allow_skipped=True``), and ``error`` always fails (nothing was measured, and the cause is in
the message; mark a test whose judge is known to be unreliable ``xfail`` instead).

Under pytest, with scorekit's plugin active (:mod:`scorekit.testing.plugin`), every call is
also recorded in the session's stored run, its terminal summary and the JUnit properties. The
plugin receives the calls through :func:`recording`, which code outside pytest may use too.
Nothing here imports pytest.

Example::

    from scorekit.scorers import build_scorer
    from scorekit.testing import assert_score

    def test_answer_matches_reference():
        scorer = build_scorer("content-similarity")
        assert_score(scorer, input="Capital of France?", output="Paris",
                     ground_truth="Paris", min=0.9)
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scorekit._sync import run_sync
from scorekit.errors import ConfigError, JudgeBudgetError, ScorekitError
from scorekit.evals.gates import resolve_scorer_keys
from scorekit.evals.per_item import score_item
from scorekit.items import EvalItem, check_label
from scorekit.judge.spending import JUDGE_LEDGER
from scorekit.pipeline import Scorer
from scorekit.results import ScorerRunResult
from scorekit.steps import RECORD_FIELDS, RESULT_FIELDS, record_values

__all__ = [
    "Bound",
    "ScoreAssertionError",
    "ScoreCheck",
    "ScoreSink",
    "assert_score",
    "assert_scores",
    "recording",
    "repeating",
]

_PLACEHOLDER_ID = "assert_score"
"""The item id of a call; a recorder gives it its own (the pytest plugin: the test's node id)."""


@dataclass(frozen=True)
class Bound:
    """The range a score must fall in: ``minimum <= score <= maximum`` (either may be absent).

    Attributes:
        minimum: the lowest passing score, or ``None``.
        maximum: the highest passing score, or ``None``.
    """

    minimum: float | None = None
    maximum: float | None = None

    def holds(self, score: float) -> bool:
        """Whether ``score`` is within the bound (both ends inclusive)."""
        if self.minimum is not None and score < self.minimum:
            return False
        return not (self.maximum is not None and score > self.maximum)

    def __str__(self) -> str:
        parts = []
        if self.minimum is not None:
            parts.append(f"min {self.minimum:g}")
        if self.maximum is not None:
            parts.append(f"max {self.maximum:g}")
        return ", ".join(parts) or "no bound"


@dataclass(frozen=True)
class ScoreCheck:
    """One call of :func:`assert_score` / :func:`assert_scores`: the item, its results, verdicts.

    Attributes:
        item: the item scored (id ``"assert_score"`` until a recorder names it).
        output: the output scored.
        results: scorer id → result, in the order the scorers were given.
        bounds: scorer id → its bound.
        failures: scorer id → why its result failed (scorers that passed are absent).
        scorers: ``{"id", "name", "description"}`` of each scorer (the id alone for a result
            passed in directly).
        trials: scorer id → the repeats of its result under :func:`repeating` (the result in
            :attr:`results` is trial 0; empty for one trial).
    """

    item: EvalItem
    output: Any
    results: dict[str, ScorerRunResult]
    bounds: dict[str, Bound]
    failures: dict[str, str] = field(default_factory=dict)
    scorers: list[dict[str, str]] = field(default_factory=list)
    trials: dict[str, list[ScorerRunResult]] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """Whether every result passed."""
        return not self.failures


ScoreSink = Callable[[ScoreCheck], None]
"""Receives every :class:`ScoreCheck` made while it is :func:`recording`."""

_SINK: contextvars.ContextVar[ScoreSink | None] = contextvars.ContextVar(
    "scorekit_score_sink", default=None
)


@contextlib.contextmanager
def recording(sink: ScoreSink | None) -> Iterator[None]:
    """Send every check made in this context (and the tasks it starts) to ``sink``.

    Args:
        sink: called with each :class:`ScoreCheck`, passed or failed, before the assertion
            raises; ``None`` records nothing (inside a recording context, turns it off).
    """
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)


_TRIALS: contextvars.ContextVar[int] = contextvars.ContextVar("scorekit_trials", default=1)


@contextlib.contextmanager
def repeating(trials: int) -> Iterator[None]:
    """Score every item of the checks made in this context ``trials`` times.

    The first trial is the result the bounds check; the others sample the judge anew (as
    ``run_evals(trials=k)`` does) and go to :attr:`ScoreCheck.trials`. The pytest plugin sets
    it from ``@pytest.mark.scorekit(trials=k)``.

    Args:
        trials: ``1`` to :data:`~scorekit.evals.per_item.MAX_TRIALS` (checked when scoring).
    """
    token = _TRIALS.set(trials)
    try:
        yield
    finally:
        _TRIALS.reset(token)


class ScoreAssertionError(ScorekitError, AssertionError):
    """A score was out of its bound, or a result was ``skipped`` or ``error``.

    Attributes:
        check: the call's item, results, bounds and failures.
    """

    def __init__(self, message: str, check: ScoreCheck) -> None:
        super().__init__(message)
        self.check = check


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigError(f"{what} must be a finite number, got {value!r}", field=what)
    return float(value)


def _bounds(
    minimum: float | Mapping[str, float] | None,
    maximum: float | Mapping[str, float] | None,
    scorer_ids: Sequence[str],
) -> dict[str, Bound]:
    def per_scorer(raw: float | Mapping[str, float] | None, name: str) -> dict[str, float]:
        if raw is None:
            return {}
        if isinstance(raw, Mapping):
            found = resolve_scorer_keys(raw, scorer_ids, field=name)
            return {sid: _number(v, name) for sid, v in found.items()}
        return dict.fromkeys(scorer_ids, _number(raw, name))

    lows, highs = per_scorer(minimum, "min"), per_scorer(maximum, "max")
    bounds = {sid: Bound(lows.get(sid), highs.get(sid)) for sid in scorer_ids}
    for sid, bound in bounds.items():
        if (
            bound.minimum is not None
            and bound.maximum is not None
            and bound.minimum > bound.maximum
        ):
            raise ConfigError(
                f"{sid}: min {bound.minimum:g} is above max {bound.maximum:g}", field="min"
            )
    return bounds


def _reason_text(reason: Any) -> str:
    return reason if isinstance(reason, str) else repr(reason)


def _failure(result: ScorerRunResult, bound: Bound, allow_skipped: bool) -> str | None:
    if result.status == "error":
        return "error"
    if result.status == "skipped":
        return None if allow_skipped else "skipped, which fails unless allow_skipped=True"
    score = result.score
    assert score is not None  # an ok result has a finite score
    if bound.holds(score):
        return None
    if bound.minimum is not None and score < bound.minimum:
        return f"{score:.4f} < min {bound.minimum:g}"
    return f"{score:.4f} > max {bound.maximum:g}"


def _describe(check: ScoreCheck) -> str:
    """The failure message of a check: a line per score, its bound and reason; errors in full."""
    failed = len(check.failures)
    lines = [f"{failed} of {len(check.results)} scores failed"]
    for sid, result in check.results.items():
        bound = check.bounds[sid]
        mark = "FAIL" if sid in check.failures else "ok"
        if result.status == "ok":
            head = f"{sid}: {result.score:.4f} ({bound})"
        else:
            head = f"{sid}: {result.status} ({bound})"
        lines.append(f"  [{mark}] {head}")
        if result.reason is not None:
            lines.append(f"      reason: {_reason_text(result.reason)}")
        if result.error is not None:
            error = result.error
            where = f" in step {error.step}" if error.step else ""
            lines.append(f"      error: {error.type}{where}: {error.message}")
            if error.raw_output is not None:
                lines.append(f"      judge's raw reply: {error.raw_output!r}")
        if sid in check.failures and result.status == "skipped":
            lines.append("      skipped results fail unless allow_skipped=True")
    return "\n".join(lines)


def _scorer_row(scorer: Scorer) -> dict[str, str]:
    row = {"id": scorer.id, "name": scorer.name, "description": scorer.description}
    if scorer.judge is not None:  # the stored run's judge: its cost is priced by it
        row["judge"] = scorer.judge.model_id
    return row


def _check(
    scored: Mapping[str, ScorerRunResult],
    item: EvalItem,
    output: Any,
    bounds: dict[str, Bound],
    allow_skipped: bool,
    scorers: list[dict[str, str]],
    trials: Mapping[str, list[ScorerRunResult]],
) -> ScoreCheck:
    __tracebackhide__ = True  # pytest shows the caller's line, not this module's
    failures = {}
    for sid, result in scored.items():
        why = _failure(result, bounds[sid], allow_skipped)
        if why is not None:
            failures[sid] = why
    check = ScoreCheck(item, output, dict(scored), bounds, failures, scorers, dict(trials))
    sink = _SINK.get()
    if sink is not None:
        sink(check)
    if failures:
        raise ScoreAssertionError(_describe(check), check)
    return check


def assert_scores(
    scorers: Sequence[Scorer | ScorerRunResult],
    *,
    min: float | Mapping[str, float] | None = None,
    max: float | Mapping[str, float] | None = None,
    allow_skipped: bool = False,
    human_labels: Mapping[str, Any] | None = None,
    **record: Any,
) -> dict[str, ScorerRunResult]:
    """Score one item with several scorers (concurrently) and check every result.

    Args:
        scorers: the scorers (distinct ids), or results already made (their item fields are
            then those of the results), or a mix.
        **record: the item's fields (:data:`scorekit.steps.RECORD_FIELDS`) as keywords:

            * output: the output to score (required with any scorer).
            * input: the input that produced it.
            * ground_truth: the expected output, if any.
            * context: retrieved context pieces (a list of strings) for context scorers.
            * request_context: per-request data for the scorers.
            * expected_trajectory: the expected steps, for trajectory scorers.
            * additional_context: further data for the judge.
        min: the lowest passing score (inclusive): one number for every scorer, or scorer
            (id or registry name) → number; scorers left out have no minimum.
        max: the highest passing score (inclusive), given the same way (for scorers where
            lower is better: toxicity, bias, hallucination).
        allow_skipped: let a ``skipped`` result (nothing to measure) pass. An ``error``
            result always fails.
        human_labels: scorer (id or registry name) → a person's label of this item, ``0`` or
            ``1`` or graded in ``[0, 1]``: stored with the session's run and read by a
            ``@pytest.mark.scorekit(min_agreement=...)`` gate; never compared with the bounds.

    Returns:
        Scorer id → result, when every result passed.

    Raises:
        ScoreAssertionError: a score outside its bound, or a result ``skipped`` (not
            allowed) or ``error``; the message has every score, bound, reason and error.
        ConfigError: bad arguments (no scorer, two with one id, a keyword that is not a record
            field, a bound that is not a finite number or names no scorer, ``min`` above
            ``max``, no ``output`` to score, a human label that is not a number in ``[0, 1]``
            or names no scorer of the call, ``trials`` under :func:`repeating` out of range).
        JudgeBudgetError: under a judge budget (the pytest plugin's
            ``--scorekit-max-judge-calls``), the budget is spent or refused a call of this
            item: nothing is checked or recorded (the plugin skips the test).
    """
    __tracebackhide__ = True
    chosen = list(scorers) if not isinstance(scorers, (Scorer, ScorerRunResult)) else [scorers]
    if not chosen:
        raise ConfigError("assert_scores needs at least one scorer", field="scorers")
    ids: list[str] = []
    for one in chosen:
        if not isinstance(one, (Scorer, ScorerRunResult)):
            raise ConfigError(
                f"expected Scorer or ScorerRunResult objects, got {type(one).__name__}",
                field="scorers",
            )
        sid = one.id if isinstance(one, Scorer) else one.scorer_id
        if sid in ids:
            raise ConfigError(f"two scorers share the id {sid!r}", field="scorers")
        ids.append(sid)
    bounds = _bounds(min, max, ids)
    to_run = [s for s in chosen if isinstance(s, Scorer)]
    given = [r for r in chosen if isinstance(r, ScorerRunResult)]
    unknown = sorted(set(record) - set(RECORD_FIELDS))
    if unknown:
        raise ConfigError(
            f"unknown item field(s) {', '.join(unknown)}; known: {', '.join(RECORD_FIELDS)}",
            field=unknown[0],
        )
    if to_run and record.get("output") is None:
        raise ConfigError("assert_score needs the output= to score", field="output")
    context = record.get("context")
    if context is not None and (
        isinstance(context, str) or not all(isinstance(piece, str) for piece in context)
    ):
        raise ConfigError("context must be a list of strings", field="context")
    labels = {
        sid: check_label(value, f"human_labels.{sid}")
        for sid, value in resolve_scorer_keys(human_labels or {}, ids, field="human_labels").items()
    }
    first = given[0] if given and not to_run else None
    values = record if first is None else record_values(first, RESULT_FIELDS)
    item = EvalItem(
        id=_PLACEHOLDER_ID,
        has_output=True,
        human_labels=labels,
        **{**values, "context": None if context is None else tuple(context)},
    )
    fresh: dict[str, ScorerRunResult] = {}
    repeats: dict[str, list[ScorerRunResult]] = {}
    if to_run:
        ledger = JUDGE_LEDGER.get()  # a budget stop is not a score: no check is made
        if ledger is not None and ledger.exhausted:
            raise JudgeBudgetError(f"the judge budget is spent ({ledger.stopped_by})")
        done = run_sync(score_item(item, to_run, trials=_TRIALS.get()))
        fresh, repeats = done.scorer_results, done.trials
        refused = done.refused_by_budget()
        if refused:  # a refused call in any trial: nothing of the item is checked
            errors = [r.error for s in sorted(refused) for r in (fresh[s], *repeats.get(s, ()))]
            why = next(e.message for e in errors if e and e.type == JudgeBudgetError.__name__)
            raise JudgeBudgetError(why)
    scored = {
        sid: fresh[sid] if sid in fresh else next(r for r in given if r.scorer_id == sid)
        for sid in ids
    }
    rows = [
        _scorer_row(s) if isinstance(s, Scorer) else {"id": s.scorer_id, "name": s.scorer_id}
        for s in chosen
    ]
    for row in rows:
        row.setdefault("description", "")
    check = _check(scored, item, item.output, bounds, allow_skipped, rows, repeats)
    return check.results


def assert_score(
    scorer_or_result: Scorer | ScorerRunResult,
    *,
    min: float | None = None,
    max: float | None = None,
    allow_skipped: bool = False,
    human_label: Any = None,
    **record: Any,
) -> ScorerRunResult:
    """Score one item with one scorer (or take a result) and check it.

    Args:
        scorer_or_result: a scorer to run on the item, or a result it already produced.
        **record: the item's fields as keywords, as :func:`assert_scores` takes them
            (``output``, required with a scorer; ``input``, ``ground_truth``, ``context``,
            ``request_context``, ``expected_trajectory``, ``additional_context``).
        min: the lowest passing score (inclusive), or ``None``.
        max: the highest passing score (inclusive), or ``None``.
        allow_skipped: let a ``skipped`` result pass. An ``error`` result always fails.
        human_label: a person's label of this item for this scorer (``0``/``1`` or graded in
            ``[0, 1]``), or ``None``; see ``human_labels`` of :func:`assert_scores`.

    Returns:
        The result, when it passed.

    Raises:
        ScoreAssertionError: the score is outside ``[min, max]``, or the result is
            ``skipped`` (not allowed) or ``error``; the message has the score, its bound, the
            reason and, for an error, the error with the judge's raw reply.
        ConfigError: bad arguments (see :func:`assert_scores`).

    Example:
        >>> from scorekit import create_scorer
        >>> length = create_scorer("length", description="len / 10").generate_score(
        ...     lambda ctx: len(ctx.run.output) / 10)
        >>> assert_score(length, output="hello", min=0.5).score
        0.5
    """
    __tracebackhide__ = True
    if not isinstance(scorer_or_result, (Scorer, ScorerRunResult)):
        raise ConfigError(
            f"assert_score takes a Scorer or a ScorerRunResult, not "
            f"{type(scorer_or_result).__name__}",
            field="scorer",
        )
    sid = (
        scorer_or_result.id if isinstance(scorer_or_result, Scorer) else scorer_or_result.scorer_id
    )
    labels = None if human_label is None else {sid: human_label}
    results = assert_scores(
        [scorer_or_result],
        min=min,
        max=max,
        allow_skipped=allow_skipped,
        human_labels=labels,
        **record,
    )
    return next(iter(results.values()))
