"""Mastra's quick checks: small deterministic pass/fail scorers on an agent's reply and tool calls.

Each function returns a code :class:`~scorekit.pipeline.Scorer` (Mastra evals 1.10.2
``@mastra/evals/checks``, mastra-scorers.md §3.10), with Mastra's id and a
``preprocess_step_result`` in Mastra's shape (snake_case keys); the reason is ``None``::

    from scorekit import checks

    checks.includes("sunny")                    # the reply contains "sunny" (any case)
    checks.matches(checks.js_regex(r"\\d+°F"))   # a JS regex, with JS semantics
    checks.called_tool("search", times=2)

Text checks (:mod:`~scorekit.checks.text_checks`): :func:`includes`, :func:`excludes`,
:func:`equals`, :func:`matches`, :func:`similarity`. Tool checks
(:mod:`~scorekit.checks.tool_checks`): :func:`called_tool`, :func:`did_not_call`,
:func:`tool_order`, :func:`max_tool_calls`, :func:`used_no_tools`, :func:`no_tool_errors`.
The output must be a list of messages (:mod:`~scorekit.checks.check_scorer`).

Each check is also in :data:`ENTRIES` for the scorer registry, named as its id
(``check-<name>``, Mastra's ids), with keyword options only::

    build_scorer("check-called-tool", tool_name="search", times=2)

Divergences from Mastra: rows 30–34 (see the modules).
"""

from __future__ import annotations

from typing import Any

from scorekit.checks.js_regex import JsRegex, js_regex
from scorekit.checks.text_checks import (
    EQUALS_ID,
    EXCLUDES_ID,
    INCLUDES_ID,
    MATCHES_ID,
    SIMILARITY_ID,
    Pattern,
    equals,
    excludes,
    includes,
    matches,
    similarity,
)
from scorekit.checks.tool_checks import (
    CALLED_TOOL_ID,
    DID_NOT_CALL_ID,
    MAX_TOOL_CALLS_ID,
    NO_TOOL_ERRORS_ID,
    TOOL_ORDER_ID,
    USED_NO_TOOLS_ID,
    called_tool,
    did_not_call,
    max_tool_calls,
    no_tool_errors,
    tool_order,
    used_no_tools,
)
from scorekit.pipeline import Scorer
from scorekit.scorers.entry import ScorerEntry

__all__ = [
    "ENTRIES",
    "JsRegex",
    "called_tool",
    "did_not_call",
    "equals",
    "excludes",
    "includes",
    "js_regex",
    "matches",
    "max_tool_calls",
    "no_tool_errors",
    "similarity",
    "tool_order",
    "used_no_tools",
]


# The registry builds scorers from keyword options only; these take them and call the checks.


def _includes(*, expected: str, ignore_case: bool = True, scorer_id: str | None = None) -> Scorer:
    """The reply contains ``expected`` (:func:`includes`)."""
    return includes(expected, ignore_case=ignore_case, scorer_id=scorer_id)


def _excludes(*, unwanted: str, ignore_case: bool = True, scorer_id: str | None = None) -> Scorer:
    """The reply does not contain ``unwanted`` (:func:`excludes`)."""
    return excludes(unwanted, ignore_case=ignore_case, scorer_id=scorer_id)


def _equals(*, expected: str, ignore_case: bool = True, scorer_id: str | None = None) -> Scorer:
    """The reply is exactly ``expected`` (:func:`equals`)."""
    return equals(expected, ignore_case=ignore_case, scorer_id=scorer_id)


def _matches(*, pattern: Pattern, exact: bool = False, scorer_id: str | None = None) -> Scorer:
    """The reply matches ``pattern`` (:func:`matches`)."""
    return matches(pattern, exact=exact, scorer_id=scorer_id)


def _similarity(
    *,
    expected: str,
    ignore_case: bool = True,
    threshold: float | None = None,
    scorer_id: str | None = None,
) -> Scorer:
    """The reply's bigram similarity to ``expected`` (:func:`similarity`)."""
    return similarity(expected, ignore_case=ignore_case, threshold=threshold, scorer_id=scorer_id)


def _called_tool(*, tool_name: str, times: int = 1, scorer_id: str | None = None) -> Scorer:
    """The agent called ``tool_name`` at least ``times`` times (:func:`called_tool`)."""
    return called_tool(tool_name, times=times, scorer_id=scorer_id)


def _did_not_call(*, tool_name: str, scorer_id: str | None = None) -> Scorer:
    """The agent never called ``tool_name`` (:func:`did_not_call`)."""
    return did_not_call(tool_name, scorer_id=scorer_id)


def _tool_order(*, expected_order: list[str], scorer_id: str | None = None) -> Scorer:
    """The agent called these tools in this order (:func:`tool_order`)."""
    return tool_order(expected_order, scorer_id=scorer_id)


def _max_tool_calls(*, max_calls: float, scorer_id: str | None = None) -> Scorer:
    """The agent made at most ``max_calls`` tool calls (:func:`max_tool_calls`)."""
    return max_tool_calls(max_calls, scorer_id=scorer_id)


def _entry(scorer_id: str, factory: Any, summary: str) -> ScorerEntry:
    return ScorerEntry(
        name=scorer_id, scorer_id=scorer_id, factory=factory, kind="code", summary=summary
    )


ENTRIES: tuple[ScorerEntry, ...] = (
    _entry(INCLUDES_ID, _includes, "Whether the reply contains a text"),
    _entry(EXCLUDES_ID, _excludes, "Whether the reply avoids a text"),
    _entry(EQUALS_ID, _equals, "Whether the reply is exactly a text"),
    _entry(MATCHES_ID, _matches, "Whether the reply matches a regular expression"),
    _entry(SIMILARITY_ID, _similarity, "Bigram (Dice) similarity of the reply to a text"),
    _entry(CALLED_TOOL_ID, _called_tool, "Whether the agent called a tool (at least n times)"),
    _entry(DID_NOT_CALL_ID, _did_not_call, "Whether the agent never called a tool"),
    _entry(TOOL_ORDER_ID, _tool_order, "Whether the agent called tools in a given order"),
    _entry(MAX_TOOL_CALLS_ID, _max_tool_calls, "Whether the agent stayed within a call budget"),
    _entry(USED_NO_TOOLS_ID, used_no_tools, "Whether the agent answered without tools"),
    _entry(NO_TOOL_ERRORS_ID, no_tool_errors, "Whether every tool call succeeded"),
)
"""The checks as registry entries (name = id = ``check-<name>``), keyword options only."""
