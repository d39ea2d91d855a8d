"""Parity of scorekit.checks with Mastra evals 1.10.2 ``checks.*`` on the catalog corpus.

Every case matches Mastra (score ``==``, the preprocess step result after snake-casing, an error
where Mastra raised), except where a divergence applies; each is recognised by the case's
content, never by its id:

* row 30: the case's output is an empty message list → ``skipped`` (no reply to inspect);
* row 31: an option that decides the result alone → ``ConfigError`` at construction: a text
  target that is the empty string (``includes``, ``excludes``, ``equals``) or blank
  (``similarity``), ``times`` below 1, a ``threshold`` outside (0, 1], an empty tool order, a
  negative or infinite ``maxToolCalls`` limit, a tool name that is not a non-empty string;
* row 32: ``matches`` with ``exact`` → the whole text must match: the expected result is
  Mastra's own construction with the source grouped, ``/^(?:source)$/``;
* row 33: ``noToolErrors`` over invocations in the ``partial-call`` state → those are not
  calls: ``total_calls`` leaves them out, and no call left → ``skipped``.
"""

from __future__ import annotations

from typing import Any

import pytest

from scorekit import checks
from scorekit.checks.check_scorer import NO_MESSAGES
from scorekit.checks.tool_checks import NO_CALLS
from scorekit.errors import ConfigError, ScorerRunError
from scorekit.pipeline import Scorer
from tests.conformance import CATALOG, cases_for, catalog_run_args, snake, to_snake

CASES = cases_for("checks", corpus=CATALOG)


def test_corpus_is_present() -> None:
    assert CASES
    assert {case["check"] for case, _ in CASES} <= {
        "includes",
        "excludes",
        "equals",
        "matches",
        "similarity",
        "calledTool",
        "didNotCall",
        "toolOrder",
        "maxToolCalls",
        "usedNoTools",
        "noToolErrors",
    }


def _is_regex(value: Any) -> bool:
    return isinstance(value, dict) and "$regex" in value


def split_args(case: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """The case's positional arguments (regex markers as JsRegex) and its snake_case options."""
    args = list(case["args"])
    options: dict[str, Any] = {}
    if args and isinstance(args[-1], dict) and not _is_regex(args[-1]):
        options = {snake(key): value for key, value in args.pop().items()}
    positional = [
        checks.js_regex(arg["$regex"], arg["flags"]) if _is_regex(arg) else arg for arg in args
    ]
    return positional, options


def build(case: dict[str, Any]) -> Scorer:
    positional, options = split_args(case)
    check = getattr(checks, snake(case["check"]))
    scorer: Scorer = check(*positional, **options)
    return scorer


def _invocations(case: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for message in case.get("output") or []:
        if isinstance(message, dict):
            found.extend(message.get("toolInvocations", []))
            found.extend(
                part["toolInvocation"]
                for part in message.get("parts", [])
                if part.get("type") == "tool-invocation"
            )
    return found


TEXT_TARGETS = ("includes", "excludes", "equals", "similarity")
TOOL_NAMES = ("calledTool", "didNotCall")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def vacuous_option(case: dict[str, Any]) -> bool:
    """row 31, as its text states it: an option that decides the result alone."""
    positional, options = split_args(case)
    check = case["check"]
    first = positional[0] if positional else None
    times = options.get("times")
    threshold = options.get("threshold")
    return (
        (check in TEXT_TARGETS and isinstance(first, str) and first == "")
        or (check == "similarity" and isinstance(first, str) and not first.strip())
        or (check in TOOL_NAMES and not (isinstance(first, str) and first))
        or (_number(times) and (times < 1 or times != int(times)))
        or (_number(threshold) and not 0 < threshold <= 1)
        or (check == "toolOrder" and positional == [[]])
        or (check == "maxToolCalls" and _number(first) and (first < 0 or first == float("inf")))
    )


@pytest.mark.parametrize(("case", "expected"), CASES, ids=[c["id"] for c, _ in CASES])
def test_conformance(case: dict[str, Any], expected: dict[str, Any]) -> None:
    if "error" in expected:
        with pytest.raises((ConfigError, ScorerRunError)):
            build(case).run_sync(**catalog_run_args(case))
        return
    if vacuous_option(case):  # row 31
        with pytest.raises(ConfigError):
            build(case)
        return
    result = build(case).run_sync(**catalog_run_args(case))
    if case.get("output") == []:  # row 30
        assert result.status == "skipped"
        assert result.reason == NO_MESSAGES
        assert result.score is None
        return
    mastra_step = to_snake(expected["preprocessStepResult"])
    score = expected["score"]
    if case["check"] == "noToolErrors":  # row 33
        partial = sum(inv.get("state") == "partial-call" for inv in _invocations(case))
        mastra_step["total_calls"] -= partial
        if mastra_step["total_calls"] == 0:
            assert result.status == "skipped"
            assert result.reason == NO_CALLS
            return
    positional, options = split_args(case)
    if case["check"] == "matches" and options.get("exact"):  # row 32
        regex = positional[0]
        grouped = checks.js_regex(f"^(?:{regex.source})$", regex.flags)
        mastra_step["matched"] = grouped.test(mastra_step["output"])
        score = 1 if mastra_step["matched"] else 0
    assert result.status == "ok"
    assert result.score == score
    assert isinstance(result.score, float)
    assert result.preprocess_step_result == mastra_step
    assert result.analyze_step_result is None
    assert result.reason is None


def test_the_divergent_cases_are_few() -> None:
    # the rules above touch only what they name; everything else is plain parity
    touched = [
        case
        for case, _ in CASES
        if case.get("output") == []
        or vacuous_option(case)
        or (case["check"] == "matches" and split_args(case)[1].get("exact"))
        or (
            case["check"] == "noToolErrors"
            and any(inv.get("state") == "partial-call" for inv in _invocations(case))
        )
    ]
    # a bound on the share, not the shared corpus's count: most cases are plain parity
    assert len(touched) <= len(CASES) // 4
