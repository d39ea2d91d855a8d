"""Prompt text of the Tool-Call Accuracy (LLM) scorer (our own wording, not Mastra's).

Kept apart from :mod:`scorekit.scorers.tool_call_accuracy_llm` so that the scorer module shows
the algorithm and this one the prose. Every builder is a pure function of plain values.
"""

from __future__ import annotations

from collections.abc import Sequence

from scorekit.scorers.replies import LANGUAGE_RULE

__all__ = ["INSTRUCTIONS", "analyze_prompt", "reason_prompt"]

INSTRUCTIONS = (
    "You review the tool choices of AI agents: whether each tool an agent called was needed for "
    "what the user explicitly asked, and whether an agent that called no tool was right not to. "
    "You are strict and consistent, and you answer exactly in the format asked for."
)
"""System instructions of the Tool-Call Accuracy judge."""


def _tool_reference(tools: Sequence[tuple[str, str]]) -> str:
    return "\n".join(f"- {tool_id}: {description}" for tool_id, description in tools) or (
        "(the agent had no tools)"
    )


_CALLED_RULES = """Judge every call on its own, by the user's explicit request only:
- "was_appropriate": true only when the call directly obtains or does what the user asked for.
  A tool that is merely related to the topic, or that might be useful, is not appropriate; a
  tool the agent called on its own initiative, beyond what was asked, is not appropriate. A
  second call of the same tool is judged on its own too (a needless repeat is not appropriate).
- "reasoning": one sentence on why.
Then list in "missing_tools" the ids of available tools the request clearly needed but the
agent never called (an empty list when none)."""

_NONE_CALLED_RULES = """The agent called no tool. Decide whether that was the right choice:
- If the request was too vague to act on (it lacks details a tool would need, such as which
  city or which date) and the agent asked for those details, not calling a tool was right:
  "missing_tools" is an empty list.
- If the request was clear and specific and an available tool serves it, but the agent answered
  without it (a generic or guessed answer) or ignored the request, list in "missing_tools" the
  ids of the tools it should have called.
- If no available tool serves the request at all, "missing_tools" is an empty list.
"evaluations" must be an empty list, since there is no call to judge."""


def analyze_prompt(
    query: str, response: str, calls: Sequence[str], tools: Sequence[tuple[str, str]]
) -> str:
    """Ask for one evaluation per tool call (by index) and the tools that were missed.

    Args:
        query: the user's message.
        response: the agent's answer text.
        calls: the called tools' names, in call order (numbered from 0 in the prompt).
        tools: the agent's available tools as ``(id, description)``.
    """
    if calls:
        listed = "\n".join(f"[{index}] {name}" for index, name in enumerate(calls))
        task = (
            f"Return exactly {len(calls)} evaluations, one per tool call: tool_index 0 to "
            f"{len(calls) - 1}, each index exactly once. For every call give:\n"
            '- "tool_index": the call\'s number.\n' + _CALLED_RULES
        )
        example = (
            'Example: for the request "What\'s the weather in Rome?" with calls [0] weather and '
            '[1] news, answer {"evaluations": [{"tool_index": 0, "was_appropriate": true, '
            '"reasoning": "It fetches the weather the user asked for."}, {"tool_index": 1, '
            '"was_appropriate": false, "reasoning": "The user did not ask for news."}], '
            '"missing_tools": []}.'
        )
    else:
        listed = "(none: the agent called no tool)"
        task = _NONE_CALLED_RULES
        example = (
            'Example: for the request "Book me a table" answered with "Which restaurant, and '
            'for when?", answer {"evaluations": [], "missing_tools": []}; for "What\'s the '
            'weather in Rome?" answered with "It is usually sunny." when a weather tool was '
            'available, answer {"evaluations": [], "missing_tools": ["weather"]}.'
        )
    return f"""Review the tool choices an AI agent made for a user's request.

User request:
{query}

Agent response:
{response}

Tool calls the agent made (numbered from 0):
{listed}

Tools available to the agent:
{_tool_reference(tools)}

{task}

{LANGUAGE_RULE}

{example}

Answer with the JSON object only."""


def reason_prompt(
    query: str, score: str, judgements: Sequence[str], missing: Sequence[str] | None
) -> str:
    """Ask for a one-sentence explanation of a Tool-Call Accuracy score.

    Args:
        query: the user's message (the explanation is written in its language).
        score: the score, formatted.
        judgements: one line per call (``"call 1, weatherTool: appropriate (why)"``).
        missing: the tools the judge said were missing (``None`` when it named none).
    """
    lines = "\n".join(f"- {line}" for line in judgements) or "- (the agent called no tool)"
    missing_text = ", ".join(missing) if missing else "(none)"
    return f"""Explain a tool-selection score to a developer in ONE sentence.

User request:
{query}

Score: {score} (0 is worst, 1 is best; the share of tool calls that were appropriate, or, when
no tool was called, 1 if that was the right choice and 0 if tools were missed)

Judgement of each tool call:
{lines}

Tools the agent should have called but did not: {missing_text}

Begin with "The score is {score} because". Write in the language the user request is written in.
Reply with the sentence only."""
