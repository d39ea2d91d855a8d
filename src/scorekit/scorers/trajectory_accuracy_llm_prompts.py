"""Prompt text of the Trajectory Accuracy (LLM) scorer (our own wording, not Mastra's).

Kept apart from :mod:`scorekit.scorers.trajectory_accuracy_llm` so that the scorer module shows
the algorithm and this one the prose. Every builder is a pure function of plain values.
"""

from __future__ import annotations

from collections.abc import Sequence

from scorekit.scorers.replies import LANGUAGE_RULE

__all__ = ["INSTRUCTIONS", "analyze_prompt", "reason_prompt"]

INSTRUCTIONS = (
    "You review the actions AI agents take to serve a request: which tools they called, "
    "which models and workflows ran, in what order. You judge each step for whether the task "
    "needed it and whether it came at a sensible point, you notice steps that are missing, and "
    "you answer exactly in the format asked for."
)
"""System instructions of the Trajectory Accuracy judge."""

_EXAMPLE = """Example (a request with no expected trajectory)
User request: What is the weather in Oslo tomorrow, in Fahrenheit?
Steps the agent took:
1. [tool_call] weather (args: {"city":"Oslo","day":"tomorrow"}, result: {"celsius":4})
2. [tool_call] weather (args: {"city":"Oslo","day":"tomorrow"}, result: {"celsius":4})
Answer:
{"step_evaluations": [
  {"was_necessary": true, "was_in_order": true, "reasoning": "Fetching the forecast is the first thing the request needs."},
  {"was_necessary": false, "was_in_order": true, "reasoning": "Repeats step 1 with the same arguments and learns nothing new."}],
 "missing_steps": ["convert the temperature to Fahrenheit"],
 "extra_steps": ["the second weather call"],
 "overall_assessment": "The forecast was fetched (twice), but the conversion the user asked for never happened."}"""  # noqa: E501


def analyze_prompt(
    request: str, response: str, steps: str, count: int, expected: str | None
) -> str:
    """Ask for one evaluation per top-level step, the missing and extra steps, and a summary.

    Args:
        request: the user's message.
        response: the agent's final answer (``""`` when there is none).
        steps: the agent's steps, numbered from 1; children indented under their parent.
        count: the number of top-level steps (``0`` when the agent took none).
        expected: the expected steps, numbered the same way, or ``None`` without any.
    """
    if expected is not None:
        reference = f"""Expected steps (a guide to what the task needs; their order is a guideline):
{expected or "(no steps are expected)"}

Judge each step the agent took against the expected steps: does it correspond to one, was it
needed, and is it where it belongs? List as missing the expected steps the agent did not take,
and as extra the steps it took that the expectation does not call for."""
    else:
        reference = """No expected steps are given: judge the steps against what the request needs.
A good trajectory takes every step the task depends on, no redundant or useless step, and respects
dependencies (a result is fetched before it is used)."""
    if count:
        wanted = f"""Return exactly {count} step evaluations, one per top-level step (the unindented
lines 1 to {count}), in that order; an indented line is a sub-step of the step above it and
is judged as part of it. For every step give:
- "was_necessary": true when the task needed this step, false when it was redundant or useless.
- "was_in_order": true when the step comes at a sensible point of the sequence.
- "reasoning": one sentence."""
    else:
        wanted = """The agent took no steps: return an empty "step_evaluations" list, and judge
whether the request needed steps the agent did not take."""
    return f"""Assess the sequence of actions an AI agent took to serve a user request.

User request:
{request}

Agent's final response:
{response or "(none)"}

Steps the agent took (numbered from 1):
{steps or "(no steps)"}

{reference}

{wanted}

Then give:
- "missing_steps": the steps the task needed that the agent did not take (an empty list when
  none is missing).
- "extra_steps": the steps the agent took that the task did not need (an empty list when none).
- "overall_assessment": one or two sentences on the trajectory as a whole.

{LANGUAGE_RULE}

{_EXAMPLE}

Answer with the JSON object only."""


def reason_prompt(
    request: str,
    score: str,
    judgements: Sequence[str],
    missing: Sequence[str],
    extra: Sequence[str],
) -> str:
    """Ask for a one-sentence explanation of a Trajectory Accuracy score.

    Args:
        request: the user's message (the explanation is written in its language).
        score: the score, formatted.
        judgements: one line per top-level step (``"step 1 search: necessary, in order"``).
        missing: the missing steps the judge named.
        extra: the extra steps the judge named.
    """
    lines = "\n".join(f"- {line}" for line in judgements) or "- (the agent took no steps)"
    return f"""Explain a trajectory accuracy score to a developer in one sentence.

User request:
{request}

Score: {score} (0 is worst; 0.9 is the best a trajectory with steps can get: 60% for necessary
steps, 30% for steps in order, minus up to 10% for missing steps)

Judgement of each step:
{lines}

Missing steps: {", ".join(missing) or "(none)"}
Extra steps: {", ".join(extra) or "(none)"}

Begin with "The score is {score} because" and name the steps that cost points, if any. Write in
the language the user request is written in. Reply with the sentence only."""
