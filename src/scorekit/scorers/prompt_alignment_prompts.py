"""Prompt text of the Prompt Alignment scorer (our own wording, not Mastra's).

Kept apart from :mod:`scorekit.scorers.prompt_alignment` so that the scorer module shows the
algorithm and this one the prose. Every builder is a pure function of plain values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from scorekit.scorers.replies import LANGUAGE_RULE

__all__ = ["INSTRUCTIONS", "analyze_prompt", "reason_prompt"]

Mode = Literal["user", "system", "both"]

INSTRUCTIONS = (
    "You review AI agent replies for how closely they follow what they were asked: the user's "
    "request, the operator's system prompt, or both. You score each aspect on its own, from 0 "
    "to 1, apply the same standard to every reply, and answer exactly in the format asked for."
)
"""System instructions of the Prompt Alignment judge."""

_TASK: dict[Mode, str] = {
    "user": "how well an AI agent's response does what the user asked for",
    "system": "how well an AI agent's response keeps to the rules and persona of its system prompt",
    "both": "how well an AI agent's response does what the user asked for while keeping to "
    "the rules and persona of its system prompt",
}

_SOURCE: dict[Mode, str] = {
    "user": "the user prompt",
    "system": "the system prompt",
    "both": "the user prompt and the system prompt together",
}

_RULES: dict[Mode, str] = {
    "user": "the user prompt",
    "system": "the system prompt",
    "both": "either prompt",
}

_ASPECTS = """Rate four aspects, each with a score from 0 (not at all) to 1 (fully); a score
outside [0, 1] is invalid. Judge them against {source}:
- "intent_alignment": name the main purpose ("primary_intent"), say whether the response
  serves it ("is_addressed"), and score how well it does.
- "requirements_fulfillment": list each explicit requirement or rule of {rules}, one by
  one, with "is_fulfilled" and a one-sentence "reasoning"; "overall_score" is the share of them the
  response meets (1 when there are none).
- "completeness": score how fully the response covers what was asked; list what is missing in
  "missing_elements" (an empty list when nothing is).
- "response_appropriateness": say whether the format ("format_alignment") and the tone
  ("tone_alignment") fit what was asked, and score the fit.
Each aspect has a short "reasoning". End with "overall_assessment": one or two sentences."""

_SHAPE = """Answer with JSON only, in this shape:
{"intent_alignment": {"score": 0.9, "primary_intent": "...", "is_addressed": true,
  "reasoning": "..."},
 "requirements_fulfillment": {"requirements": [{"requirement": "...", "is_fulfilled": true,
  "reasoning": "..."}], "overall_score": 1.0},
 "completeness": {"score": 0.8, "missing_elements": ["..."], "reasoning": "..."},
 "response_appropriateness": {"score": 1.0, "format_alignment": true, "tone_alignment": true,
  "reasoning": "..."},
 "overall_assessment": "..."}"""

_EXAMPLE = """Example (user prompt "List three primary colours as a bulleted list", response
"Red, yellow and blue."): intent_alignment 1.0 (the colours are named); requirements: "name
three primary colours" fulfilled, "use a bulleted list" not fulfilled, overall_score 0.5;
completeness 1.0; response_appropriateness 0.4 (format_alignment false, tone_alignment true)."""

_HISTORY_NOTE = """The earlier turns are there only to make sense of the current prompt (a
short reply such as "yes" or "the second one" refers back to them). Grade only the response to
the current prompt; earlier turns earn the agent neither credit nor blame."""


def _section(title: str, text: str) -> str:
    return f"{title}:\n{text if text else '(none given)'}"


def _join(sections: Sequence[str]) -> str:
    return "\n\n".join(sections)


def analyze_prompt(mode: Mode, user: str, system: str, response: str, history: str | None) -> str:
    """Ask for the four alignment aspects of one response.

    Args:
        mode: which prompt the response is measured against.
        user: the user's message (``""`` when there is none).
        system: the combined system prompt (``""`` when there is none).
        response: the agent's response.
        history: the earlier turns as a transcript, or ``None``.
    """
    parts = [f"Assess {_TASK[mode]}."]
    if history:
        parts.append(_section("Earlier turns of the conversation (context only)", history))
    if mode in ("user", "both"):
        parts.append(_section("User prompt", user))
    if mode in ("system", "both"):
        parts.append(_section("System prompt", system))
    parts.append(_section("Agent response", response))
    if history:
        parts.append(_HISTORY_NOTE)
    parts += [
        _ASPECTS.format(source=_SOURCE[mode], rules=_RULES[mode]),
        _EXAMPLE,
        LANGUAGE_RULE,
        _SHAPE,
    ]
    return _join(parts)


def reason_prompt(
    mode: Mode,
    user: str,
    system: str,
    score: str,
    scale: str,
    breakdown: Sequence[str],
    overall: str,
) -> str:
    """Ask for a short explanation of a Prompt Alignment score.

    Args:
        mode: which prompt the response was measured against.
        user: the user's message (the explanation is written in its language).
        system: the combined system prompt.
        score: the score, formatted.
        scale: the maximum score, formatted.
        breakdown: one line per aspect with its weight, score and findings.
        overall: the judge's overall assessment.
    """
    shown = []
    if mode in ("user", "both") or user:
        shown.append(_section("User prompt", user))
    if mode in ("system", "both"):
        shown.append(_section("System prompt", system))
    lines = "\n".join(f"- {line}" for line in breakdown)
    return f"""Explain a prompt alignment score to a developer in two or three sentences.

{_join(shown)}

Score: {score} (0 is worst, {scale} is best), measured against {_SOURCE[mode]}.

Aspects (weight, score, findings):
{lines}

Overall assessment: {overall or "(none)"}

Begin with "The score is {score} because", name the strongest and the weakest aspects, and do
not compute the score again. Write in the language the user prompt is written in. Reply with the
explanation only."""
