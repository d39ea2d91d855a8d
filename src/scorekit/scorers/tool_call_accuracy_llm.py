"""Tool-Call Accuracy (LLM): whether the tools an agent called were the right ones.

Score range ``[0, 1]`` (there is no ``scale``, as in Mastra); higher is better. The tool calls
are read from the run's output (:func:`scorekit.inputs.tool_calls.run_tool_calls`, the same rules
as the code scorer: Mastra ``toolInvocations`` and ``tool-invocation`` parts merged, states
``result`` / ``call`` / ``output-error``). A judge sees the user's request, the agent's answer,
the calls numbered from 0 and the available tools, and returns one evaluation per call
(``was_appropriate``: the call directly serves what the user explicitly asked) plus the tools it
thinks were missed. Then (Mastra evals 1.10.2 ``llm/tool-call-accuracy``, spec
mastra-scorers.md §4.14)::

    calls made     score = round2(#appropriate / #calls)
    no call made   score = 0 if the judge named missing tools, else 1

``round2`` is Mastra's half-up rounding (:func:`scorekit.rounding.round_to_two_decimals`).

Two readings to know:

* With calls made, the score is the share of *those calls* that were appropriate (a
  precision): the tools the judge names as missing are kept in the result and shown to the
  reason, but do not lower the score (as in Mastra, whose score ignores ``missingTools`` once
  any tool was evaluated).
* With no call made, the score is the judge's verdict on that choice: 1 means it found that
  no tool was needed yet (asking for missing details was right, or no tool serves the request),
  0 that the agent should have used a tool it had. That is a measurement, so it is kept.

Divergences (docs/divergences.md): 10 (snake_case), row 52 (exactly one evaluation per
call, identified by its ``tool_index``; the tool name in the result is our copy, never the
judge's echo; another count is repaired once, then the run fails), row 53 (with no call
made, ``missing_tools`` is required), row 54 (``available_tools`` is validated at
construction). Extra keys of a reply are kept, as in Mastra (row 29); a string boolean
(``"true"``) is refused, as Mastra's schema refuses it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import Field, StrictBool, ValidationInfo, model_validator
from pydantic.json_schema import SkipJsonSchema

from scorekit.errors import ConfigError
from scorekit.inputs.messages import get_assistant_message, get_user_message
from scorekit.inputs.tool_calls import run_tool_calls
from scorekit.judge.judge import Judge
from scorekit.judge.model import JudgeModel
from scorekit.judge.structured import SchemaSpec
from scorekit.pipeline import PromptStep, Scorer, StepContext
from scorekit.rounding import js_number_text, round_to_two_decimals
from scorekit.scorers import tool_call_accuracy_llm_prompts as prompts
from scorekit.scorers.entry import ScorerEntry
from scorekit.scorers.judged import judged_scorer
from scorekit.scorers.replies import EXPECTED_ITEMS, CountedReply, JudgeReply

__all__ = [
    "CALLED_TOOLS",
    "ENTRY",
    "SCORER_ID",
    "NoToolCallAnalysis",
    "ToolCallAnalysis",
    "ToolEvaluation",
    "available_tool_list",
    "create_tool_call_accuracy_scorer_llm",
    "tool_call_accuracy_llm_score",
]

SCORER_ID = "llm-tool-call-accuracy-scorer"
"""The scorer's stable id (Mastra's)."""

CALLED_TOOLS = "called_tools"
"""The validation-context key holding the called tools' names, in call order."""
AVAILABLE_TOOLS = "available_tools"
"""The validation-context key holding the available tools' ids."""


class ToolEvaluation(JudgeReply):
    """The judge's evaluation of one tool call."""

    tool_index: int = Field(ge=0)
    """The call's position among the run's calls, from 0."""
    tool_called: SkipJsonSchema[str | None] = None
    """The called tool's name: our copy, filled in from the call list when the reply is
    validated (the judge is not asked for it; an echo it sends is replaced)."""
    was_appropriate: StrictBool
    """Whether the call directly serves what the user explicitly asked."""
    reasoning: str
    """Why, in the language of the user's request."""


class ToolCallAnalysis(CountedReply):
    """The analyze step's result when tools were called: one evaluation per call.

    Validated with the schema of :func:`analysis_spec`, each ``tool_index`` from 0 to
    ``#calls − 1`` must appear exactly once; the evaluations are then put in call order and each
    gets its ``tool_called`` from the call list.
    """

    ITEMS: ClassVar[str] = "evaluations"
    ITEM_OF: ClassVar[str] = "tool call"

    evaluations: list[ToolEvaluation]
    """One evaluation per call, in call order."""
    missing_tools: list[str] = Field(default_factory=list)
    """Ids of available tools the request needed but the agent did not call (optional, as in
    Mastra; ``[]`` when the judge left it out: row 106)."""

    def check_count(self, expected: int) -> None:
        """Raise ``ValueError`` unless each ``tool_index`` below ``expected`` appears once."""
        indices = [e.tool_index for e in self.evaluations]
        if sorted(indices) == list(range(expected)):
            return
        if expected == 0:
            raise ValueError(
                "the agent called no tool, so evaluations must be an empty list; got "
                f"{len(indices)} evaluations"
            )
        raise ValueError(
            f"expected exactly {expected} evaluations, one for each tool_index from 0 to "
            f"{expected - 1}; got tool_index values {indices}"
        )

    @model_validator(mode="after")
    def _missing_tools_are_available_tools(self, info: ValidationInfo) -> ToolCallAnalysis:
        ids = (info.context or {}).get(AVAILABLE_TOOLS)
        named = self.missing_tools
        if ids is None or not named:
            return self
        unknown = [name for name in named if name not in ids]
        if unknown:
            raise ValueError(
                f"missing_tools may name only available tools ({', '.join(ids) or 'none'}); "
                f"got {unknown}"
            )
        if len(set(named)) != len(named):
            raise ValueError(f"missing_tools names a tool more than once: {named}")
        return self

    @model_validator(mode="after")
    def _name_the_calls(self, info: ValidationInfo) -> ToolCallAnalysis:
        names = (info.context or {}).get(CALLED_TOOLS)
        if names is None:
            return self
        # the count check (CountedReply) refuses a reply whose indices do not cover the calls;
        # this runs on valid indices only
        if sorted(e.tool_index for e in self.evaluations) == list(range(len(names))):
            self.evaluations.sort(key=lambda e: e.tool_index)
            for evaluation in self.evaluations:
                evaluation.tool_called = names[evaluation.tool_index]
        return self


class NoToolCallAnalysis(ToolCallAnalysis):
    """The analyze step's result when no tool was called: no evaluations, and the missed tools.

    ``missing_tools`` is required here, since the score rests on it alone (row 53).
    """

    missing_tools: list[str]
    """Ids of available tools the agent should have called (empty: not calling was right)."""


@functools.lru_cache(maxsize=256)
def analysis_spec(calls: tuple[str, ...], available: tuple[str, ...] | None = None) -> SchemaSpec:
    """The analyze step's schema for a run with these calls (cached per call list).

    With calls: exactly ``len(calls)`` evaluations (``minItems`` = ``maxItems``), each
    ``tool_index`` in ``[0, len(calls) − 1]``. Without: an empty ``evaluations`` list and a
    required ``missing_tools`` (:class:`NoToolCallAnalysis`). ``missing_tools`` may name only
    available tools, each once (row 72).

    Args:
        calls: the called tools' names, in call order.
        available: the available tools' ids (``None``: not checked).
    """
    model: type[ToolCallAnalysis] = ToolCallAnalysis if calls else NoToolCallAnalysis
    schema = model.model_json_schema()  # a fresh dict each time; edited below
    count = len(calls)
    schema["properties"]["evaluations"] = {
        **schema["properties"]["evaluations"],
        "minItems": count,
        "maxItems": count,
    }
    if count:
        index = schema["$defs"]["ToolEvaluation"]["properties"]["tool_index"]
        index["maximum"] = count - 1
    context: dict[str, object] = {EXPECTED_ITEMS: count, CALLED_TOOLS: calls}
    if available is not None:
        context[AVAILABLE_TOOLS] = available
        missing = schema["properties"]["missing_tools"]
        listed = next((part for part in missing.get("anyOf", [missing]) if "items" in part), None)
        if listed is not None and available:
            listed["items"] = {"type": "string", "enum": list(available)}
            listed["uniqueItems"] = True
            listed["maxItems"] = len(available)  # each available tool at most once
    return SchemaSpec(model.__name__, schema, model, context).check()


def tool_call_accuracy_llm_score(appropriate: Sequence[bool], missing_tools: int) -> float:
    """Return the Tool-Call Accuracy (LLM) score (formula in the module docstring).

    Args:
        appropriate: ``was_appropriate`` of each call's evaluation (empty: no call was made).
        missing_tools: how many tools the judge said were missing, ``>= 0``; it counts only
            when no call was made.

    Example:
        >>> tool_call_accuracy_llm_score([True, False, True], 0)
        0.67
        >>> tool_call_accuracy_llm_score([], 1)
        0.0
    """
    if not appropriate:
        return 0.0 if missing_tools > 0 else 1.0
    return round_to_two_decimals(sum(1 for ok in appropriate if ok) / len(appropriate))


def _tool_field(tool: Any, key: str) -> Any:
    if isinstance(tool, Mapping):
        return tool.get(key)
    return getattr(tool, key, None)


def available_tool_list(tools: Any) -> tuple[tuple[str, str], ...]:
    """Validate the factory's ``available_tools`` and return ``(id, description)`` pairs.

    Args:
        tools: a list of tools, each a mapping ``{"id", "description"}`` (Mastra's shape) or an
            object with ``id`` and ``description`` attributes (a Mastra-like tool object).

    Raises:
        ConfigError: ``tools`` is missing or not a list, or a tool lacks a non-empty string
            ``id`` or a string ``description``.
    """
    if tools is None:
        raise ConfigError(
            "available_tools is required: the tools the agent could call, as "
            '[{"id": ..., "description": ...}]',
            field="available_tools",
        )
    if isinstance(tools, (str, bytes, Mapping)) or not isinstance(tools, Sequence):
        raise ConfigError(
            f"available_tools must be a list of tools, not {type(tools).__name__}",
            field="available_tools",
        )
    found = []
    for index, tool in enumerate(tools):
        tool_id = _tool_field(tool, "id")
        description = _tool_field(tool, "description")
        if not isinstance(tool_id, str) or not tool_id.strip():
            raise ConfigError(
                f"available_tools[{index}] needs a non-empty string id, got {tool_id!r}",
                field="available_tools",
            )
        if not isinstance(description, str):
            raise ConfigError(
                f"available_tools[{index}] ({tool_id!r}) needs a string description, "
                f"got {description!r}",
                field="available_tools",
            )
        found.append((tool_id, description))
    return tuple(found)


def _judgement_lines(analysis: ToolCallAnalysis) -> list[str]:
    return [
        f"call {e.tool_index + 1}, {e.tool_called}: "
        f"{'appropriate' if e.was_appropriate else 'not appropriate'} ({e.reasoning})"
        for e in analysis.evaluations
    ]


def create_tool_call_accuracy_scorer_llm(
    *, model: str | JudgeModel | Judge, available_tools: Sequence[Any] | None = None
) -> Scorer:
    """Create the Tool-Call Accuracy (LLM) scorer.

    Args:
        model: the judge: a ``"provider/model"`` string, a ``JudgeModel`` or a ``Judge``.
        available_tools: the tools the agent could call, required: a list of
            ``{"id": str, "description": str}`` (Mastra's shape, as given) or of objects with
            ``id`` and ``description`` attributes. An empty list is accepted (an agent without
            tools; then every call is judged against no reference).

    Returns:
        A scorer with three steps and two judge calls per run: ``preprocess`` (local) gives
        ``{"actual_tools": [str], "has_tool_calls": bool, "tool_call_infos": [{"tool_name",
        "tool_call_id", "message_index", "invocation_index"}]}``; ``analyze`` a
        :class:`ToolCallAnalysis` (:class:`NoToolCallAnalysis` when no tool was called) whose
        ``evaluations`` hold ``tool_index``, ``tool_called``, ``was_appropriate`` and
        ``reasoning`` in call order, and ``missing_tools``; the reason is one sentence by the
        judge, in the language of the user's request. A run whose input or output holds no
        message fails in ``preprocess`` (``ScorerRunError``), as in Mastra.

    Raises:
        ConfigError: ``available_tools`` is missing or malformed; ``model`` is of a wrong type.

    Example:
        >>> from scorekit.judge import ScriptedJudge
        >>> judge = ScriptedJudge([{"evaluations": [{"tool_index": 0, "was_appropriate": True,
        ...     "reasoning": "It fetches the weather asked for."}], "missing_tools": []},
        ...     "The score is 1 because the weather tool answers the request."])
        >>> scorer = create_tool_call_accuracy_scorer_llm(model=judge, available_tools=[
        ...     {"id": "weatherTool", "description": "Current weather for a city"}])
        >>> result = scorer.run_sync(input="Weather in Paris?", output=[{"role": "assistant",
        ...     "content": "", "tool_calls": [{"id": "1", "function": {"name": "weatherTool"}}]}])
        >>> result.score, result.analyze_step_result.evaluations[0].tool_called
        (1.0, 'weatherTool')
    """
    tools = available_tool_list(available_tools)

    def preprocess(ctx: StepContext) -> dict[str, Any]:
        calls = run_tool_calls(ctx.run.input, ctx.run.output)
        return {
            "actual_tools": [call.tool_name for call in calls],
            "has_tool_calls": bool(calls),
            "tool_call_infos": [call.to_dict() for call in calls],
        }

    def called(ctx: StepContext) -> tuple[str, ...]:
        return tuple(ctx.results.preprocess_step_result["actual_tools"])

    def analyze_prompt(ctx: StepContext) -> str:
        return prompts.analyze_prompt(
            get_user_message(ctx.run.input) or "",
            get_assistant_message(ctx.run.output) or "",
            called(ctx),
            tools,
        )

    def analyze_schema(ctx: StepContext) -> SchemaSpec:
        # one evaluation per call, by index (row 52); none, with missing_tools, when no
        # call was made (row 53)
        return analysis_spec(called(ctx), tuple(tool_id for tool_id, _ in tools))

    def generate_score(ctx: StepContext) -> float:
        analysis: ToolCallAnalysis = ctx.results.analyze_step_result
        return tool_call_accuracy_llm_score(
            [e.was_appropriate for e in analysis.evaluations], len(analysis.missing_tools or [])
        )

    def reason_prompt(ctx: StepContext) -> str:
        analysis: ToolCallAnalysis = ctx.results.analyze_step_result
        return prompts.reason_prompt(
            get_user_message(ctx.run.input) or "",
            js_number_text(ctx.score if ctx.score is not None else 0.0),
            _judgement_lines(analysis),
            analysis.missing_tools,
        )

    return judged_scorer(
        SCORER_ID,
        name="Tool Call Accuracy (LLM)",
        description="Whether the tools the agent called were appropriate for the request",
        model=model,
        instructions=prompts.INSTRUCTIONS,
        preprocess=preprocess,
        analyze=PromptStep(
            "Judge each tool call, or the choice to call none", analyze_prompt, analyze_schema
        ),
        score=generate_score,
        reason=PromptStep("Explain the score in one sentence", reason_prompt),
    )


ENTRY = ScorerEntry(
    name="tool-call-accuracy-llm",
    scorer_id=SCORER_ID,
    factory=create_tool_call_accuracy_scorer_llm,
    kind="llm",
    summary="Share of the agent's tool calls a judge finds appropriate for the request",
    required=("available_tools",),
)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
