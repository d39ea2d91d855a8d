"""What every quick check shares: the output it reads and the two-step scorer it is.

A check is a code scorer with two steps, as in Mastra evals 1.10.2 (``checks/*``,
mastra-scorers.md §3.10): ``preprocess`` measures and returns a small dict of what it found
(Mastra's ``preprocessStepResult`` in snake_case), ``generate_score`` reads the score from it.
There is no ``analyze`` step and no reason (``None``, Mastra's ``null``).

The output must be a list of messages (Mastra reads ``run.output`` as ``MastraDBMessage[]``
and fails on anything else, e.g. a string); a message is a mapping in Mastra's or the
OpenAI chat shape. A list with no messages at all is ``skipped`` by every check: there is no
reply to inspect (row 30).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from scorekit.errors import ConfigError
from scorekit.inputs.messages import message_text, messages_of
from scorekit.pipeline import Scorer, StepContext, create_scorer, not_scorable
from scorekit.steps import NotScorable

__all__ = [
    "NO_MESSAGES",
    "NO_TEXT",
    "Preprocess",
    "assistant_texts",
    "check_scorer",
    "output_messages",
    "passed_score",
]

NO_MESSAGES = "the output has no messages, so there is nothing to check"
"""The reason of a check skipped on an empty message list (row 30)."""

NO_TEXT = "the output has no assistant text to check"
"""The reason of a text check skipped because no assistant message has text (row 30)."""

Preprocess = Callable[[list[Any]], dict[str, Any] | NotScorable]
"""A check's measurement: the output messages → its step result, or a skip."""


def output_messages(output: Any) -> list[Any]:
    """Return the run's output messages, checked.

    Args:
        output: the run output: a list of messages (mappings) or strings.

    Returns:
        The messages, as a list.

    Raises:
        ConfigError: the output is not a list (a string, a single message dict, ...), or holds
            something that is neither a string nor a mapping (``field="output"``).
    """
    if isinstance(output, (str, bytes, bytearray, Mapping)) or not isinstance(output, Sequence):
        raise ConfigError(
            f"the checks read a list of output messages, not {type(output).__name__} "
            "(give [{'role': 'assistant', 'content': ...}])",
            field="output",
        )
    return messages_of(list(output), field="output")


def assistant_texts(messages: list[Any]) -> list[str]:
    """Return the text of every ``role == "assistant"`` message, in order (Mastra's checks).

    The text of a message follows :func:`scorekit.inputs.messages.message_text`
    (``getTextContentFromMastraDBMessage``); a tool-call-only message gives ``""``.
    """
    return [
        message_text(message)
        for message in messages
        if isinstance(message, Mapping) and message.get("role") == "assistant"
    ]


def check_scorer(
    scorer_id: str, *, description: str, preprocess: Preprocess, score: Callable[[Any], float]
) -> Scorer:
    """Build a check: ``preprocess`` measures the output messages, ``score`` reads the result.

    Args:
        scorer_id: the check's id (``check-includes``, ...).
        description: what it checks, with its arguments.
        preprocess: output messages → the step result dict, or :func:`not_scorable`.
        score: the step result → the score.

    Returns:
        The scorer. An output with no messages is skipped before ``preprocess`` is called.
    """

    def preprocess_step(ctx: StepContext) -> dict[str, Any] | NotScorable:
        messages = output_messages(ctx.run.output)
        if not messages:
            return not_scorable(NO_MESSAGES)
        return preprocess(messages)

    def generate_score(ctx: StepContext) -> float:
        return score(ctx.results.preprocess_step_result)

    return (
        create_scorer(scorer_id, description=description)
        .preprocess(preprocess_step)
        .generate_score(generate_score)
    )


def passed_score(key: str) -> Callable[[Any], float]:
    """A ``score`` for :func:`check_scorer`: 1.0 when the step result's ``key`` is true."""

    def score(result: Any) -> float:
        return 1.0 if result[key] else 0.0

    return score
