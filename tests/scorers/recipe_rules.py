"""What scorekit's documented rules make of a catalog case of a verdict-recipe scorer.

Mastra's expected result holds where no rule of docs/divergences.md applies. Each rule is
recognised from the case's content (Mastra's own step results and the case's options), never
from its id:

* ``context=[]`` given explicitly → ``ConfigError`` at construction (row 25);
* a blank reference text (context recall's ground truth) → ``skipped`` (row 22);
* a blank answer → score 0 without a judge call, with a local reason (row 20);
* the judge found no units in a text that is not blank → ``skipped`` (row 28);
* a verdict count other than the unit count → repair, then ``error`` (row 26);
* a verdict label outside the closed set after trimming and lower-casing → repair, then
  ``error`` (row 23);
* a unit that does not come from its text (fewer than a quarter of its words in it or the query,
  :func:`scorekit.scorers.unit_sources.stray_units`) → repair, then ``error`` at the
  preprocess step (row 107's neighbour, row 108).

:func:`covers_each_index` is the rule of the per-piece replies (context precision and
relevance): each context index exactly once. :func:`with_optional_lists` is row 106: an
optional list field of a reply that the judge left out is ``[]`` in scorekit's step result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel

from scorekit.errors import ConfigError, ScorerRunError
from scorekit.scorers.unit_sources import stray_units
from tests.conformance import to_snake
from tests.scorers.labels import normalise_labels


@dataclass(frozen=True)
class Outcome:
    """What scorekit must give: ``kind`` is ``"mastra"`` (Mastra's result), ``"config"``,
    ``"skipped"``, ``"error"`` or ``"zero"`` (score 0 with a local reason)."""

    kind: str
    row: int | None = None


def outcome(
    case: dict[str, Any],
    expected: dict[str, Any],
    *,
    blank: Outcome | None,
    units_key: str = "claims",
    labels: frozenset[str] = frozenset({"yes", "no"}),
    verdicts_key: str = "verdicts",
    label_key: str = "verdict",
    required: frozenset[str] = frozenset(),
    source: str | None = None,
) -> Outcome:
    """The outcome scorekit's rules give ``case``.

    Args:
        case: the catalog case.
        expected: Mastra's result for it.
        blank: the outcome when the text the units come from is blank (``None``: it is not).
        units_key: the preprocess step result's list of units.
        labels: the closed set of verdict labels.
        verdicts_key: the analyze step result's list of verdicts.
        label_key: each verdict's label field.
        required: ``{"context"}`` for a scorer that needs a context or an extractor.
        source: the text the units are taken from (the answer; context recall's ground truth).
    """
    given = case.get("options") or {}
    if given.get("context") == []:
        return Outcome("config", 25)
    if "context" in required and not ({"context", "contextExtractor", "getContext"} & set(given)):
        return Outcome("config", 21)  # neither context nor an extractor
    if "error" in expected:
        return Outcome("error")
    if blank is not None:
        return blank
    units = (expected.get("preprocessStepResult") or {}).get(units_key)
    if units == []:
        return Outcome("skipped", 28)
    if source is not None and units_not_from_text(case, expected, units_key, source):
        return Outcome("error", 108)
    verdicts = (expected.get("analyzeStepResult") or {}).get(verdicts_key, [])
    if units is not None and len(verdicts) != len(units):
        return Outcome("error", 26)
    if labels_outside(expected, labels, verdicts_key=verdicts_key, label_key=label_key):
        return Outcome("error", 23)
    return Outcome("mastra")


def units_not_from_text(
    case: dict[str, Any], expected: dict[str, Any], units_key: str, source: str
) -> bool:
    """Row 108: Mastra's units hold one that does not come from ``source``.

    scorekit sends such a reply back for repair; the case's next scripted reply is then read
    as the units reply. Where it is one whose units do come from the text the run would go on
    with it, which no rule here covers, so the test fails saying so.
    """
    units = (expected.get("preprocessStepResult") or {}).get(units_key) or []
    if not stray_units([str(unit) for unit in units], source):
        return False
    replies = case.get("judgeResponses") or []
    following = replies[1] if len(replies) > 1 else None
    if isinstance(following, dict) and isinstance(following.get(units_key), list):
        repaired = [str(unit) for unit in following[units_key]]
        if repaired and not stray_units(repaired, source):
            pytest.fail("row 108: the repair reply would be accepted; no rule covers the rest")
    return True


def answer_of(case: dict[str, Any]) -> str:
    """The answer text of a case (its output, or the last assistant message of it)."""
    from scorekit.inputs.messages import get_assistant_message

    output = case.get("output")
    return output if isinstance(output, str) else get_assistant_message(output) or ""


def labels_outside(
    expected: dict[str, Any],
    labels: frozenset[str],
    *,
    verdicts_key: str = "verdicts",
    label_key: str = "verdict",
) -> bool:
    """Row 23: a label of Mastra's stored verdicts is outside ``labels`` once trimmed and
    lower-cased (scorekit repairs such a reply, then fails)."""
    verdicts = (expected.get("analyzeStepResult") or {}).get(verdicts_key) or []
    return any(str(v.get(label_key, "")).strip().lower() not in labels for v in verdicts)


def no_output(case: dict[str, Any]) -> bool:
    """Row 105: the run has no output at all (``None``): refused before any step."""
    from tests.conformance import catalog_run_args

    return catalog_run_args(case).get("output") is None


def covers_each_index(items: list[dict[str, Any]], count: int, key: str = "context_index") -> bool:
    """Whether Mastra's per-piece ``items`` name each index below ``count`` exactly once.

    scorekit repairs, then fails, a reply that does not (an empty list, a missing, repeated or
    out-of-range index: divergences.md rows 18, 19 and row 80); Mastra scores it.
    """
    return sorted(item.get(key, item.get("contextIndex")) for item in items) == list(range(count))


def assert_as_mastra(
    result: Any,
    expected: dict[str, Any],
    *,
    calls: int,
    as_mastra_holds_it: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> None:
    """Assert a run that no rule touches gave Mastra's result: status, score, reason, both step
    results (keys snake_cased, labels normalised) and the judge calls consumed.

    ``as_mastra_holds_it`` turns scorekit's analyze step result into Mastra's shape where a
    divergence row adds to it (and checks what it removes).
    """
    assert result.status == "ok"
    assert (result.score, result.reason) == (expected["score"], expected["reason"])
    assert result.preprocess_step_result.model_dump() == to_snake(expected["preprocessStepResult"])
    ours = result.analyze_step_result.model_dump()
    assert (ours if as_mastra_holds_it is None else as_mastra_holds_it(ours)) == normalise_labels(
        to_snake(expected["analyzeStepResult"])
    )
    assert calls == len(expected["judgeCalls"])


def with_optional_lists(step_result: dict[str, Any], model: type[BaseModel]) -> dict[str, Any]:
    """Mastra's step result (snake_case) as scorekit's holds it under row 106.

    Every optional list field of ``model`` (a reply model) that Mastra's step result lacks is
    added as ``[]``; nested reply models are not walked (their lists are required).
    """
    filled = dict(step_result)
    for name, field in model.model_fields.items():
        if name not in filled and not field.is_required() and field.default_factory is list:
            filled[name] = []
    return filled


def blank_answer(case: dict[str, Any]) -> Outcome | None:
    """Row 20: a blank answer scores 0 without a judge call (``None``: the answer is not)."""
    return Outcome("zero", 20) if not answer_of(case).strip() else None


def run_by_rule(
    rule: Outcome,
    build: Callable[[], Any],
    args: dict[str, Any],
) -> Any:
    """Build and run as ``rule`` says, asserting what it prescribes; the result to compare
    with Mastra's when the rule is ``"mastra"`` or ``"zero"``, else ``None`` (handled here).

    Args:
        rule: :func:`outcome`'s answer for the case.
        build: makes the scorer (``ConfigError`` expected there for ``"config"``).
        args: the run's keyword arguments.
    """
    if rule.kind == "config":
        with pytest.raises(ConfigError):
            build()
        return None
    scorer = build()
    if rule.kind == "error":
        with pytest.raises(ScorerRunError) as info:
            scorer.run_sync(**args)
        assert info.value.result is None or info.value.result.status == "error"
        return None
    result = scorer.run_sync(**args)
    if rule.kind == "skipped":
        assert (result.status, result.score) == ("skipped", None)
        assert result.reason
        return None
    if rule.kind == "zero":
        assert (result.status, result.score) == ("ok", 0.0)
        return None
    return result


def refused_or_repaired(
    case: dict[str, Any],
    expected: dict[str, Any],
    run_case: Callable[[dict[str, Any]], tuple[Any, Any]],
    *,
    verdicts_key: str,
    label_key: str,
) -> bool:
    """Rows 105 and 23 for a case of a yes/no verdict scorer: assert what they prescribe.

    Args:
        run_case: builds and runs the case, giving ``(result or ScorerRunError, judge)``.

    Returns:
        Whether one of the rows applied (the test is then done).
    """
    if no_output(case):  # row 105: refused before any step
        with pytest.raises(ConfigError):
            run_case(case)
        return True
    yes_no = frozenset({"yes", "no"})
    if "error" not in expected and labels_outside(
        expected, yes_no, verdicts_key=verdicts_key, label_key=label_key
    ):  # row 23: repaired, then an error at analyze
        outcome, _ = run_case(case)
        assert isinstance(outcome, ScorerRunError)
        assert outcome.failed_step == "analyze"
        return True
    return False
