"""Getting a usable reply: the structured-output repair loop and the larger-budget retry.

For structured output (:func:`ask_structured`):

1. Send the request.
2. If the reply was cut off (``finish_reason == "length"``), send it once more with a larger
   token budget (4x the budget, or :data:`LENGTH_RETRY_TOKENS` when none was set).
3. Parse tolerantly (code fences stripped, the JSON value taken out of surrounding prose;
   :func:`~scorekit.judge.structured.parse_output`) and validate.
4. If it fails, make one repair request: the conversation so far, the faulty reply, and a
   user message showing the validation errors.
5. If that fails too (or a reply is still cut off after the larger budget), raise
   :class:`~scorekit.errors.JudgeOutputError` with the raw text: never a made-up value.

So one structured answer takes at most three requests. Free text (:func:`ask_text`) gets the
larger-budget retry only; an empty reply is an error.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from scorekit.errors import JudgeOutputError
from scorekit.judge.model import ChatMessage, JudgeRequest, JudgeResponse
from scorekit.judge.structured import SchemaSpec, parse_output
from scorekit.judge.translate import clip

__all__ = [
    "LENGTH_RETRY_TOKENS",
    "RAW_OUTPUT_CHARS",
    "ask_structured",
    "ask_text",
    "larger_budget",
    "repair_message",
]

Send = Callable[[JudgeRequest], Awaitable[JudgeResponse]]

LENGTH_RETRY_TOKENS = 4096
"""The reply budget of the retry after a cut-off reply when the request set none."""
RAW_OUTPUT_CHARS = 20_000
"""Characters of a failed reply kept in ``JudgeOutputError.raw_output`` (and so in results and
reports); a runaway reply is cut there, with a marker saying how much was left out."""
_BUDGET_FACTOR = 4
"""How much the budget grows for the retry after a cut-off reply."""


def larger_budget(max_tokens: int | None) -> int:
    """The token budget for the retry after a reply was cut off at ``max_tokens``."""
    if max_tokens is None:
        return LENGTH_RETRY_TOKENS
    return max_tokens * _BUDGET_FACTOR


def repair_message(problem: str) -> ChatMessage:
    """The user message of a repair request, showing the validation errors."""
    return ChatMessage(
        "user",
        "Your reply did not match the required JSON schema:\n"
        f"{problem}\nAnswer again with only the corrected JSON.",
    )


Check = Callable[[JudgeResponse], tuple[Any, str | None]]
"""Reads a reply: ``(value, None)``, or ``(None, problem)`` when it is not valid."""
Failure = Callable[[str, JudgeResponse, JudgeRequest, int, bool], JudgeOutputError]
"""Builds the error from ``(problem, reply, request, calls, cut_off)``."""


async def _ask(
    send: Send,
    request: JudgeRequest,
    check: Check,
    repair: Callable[[str], ChatMessage],
    failure: Failure,
    *,
    cut_off_is_final: bool,
) -> tuple[Any, JudgeResponse]:
    """Send ``request`` until ``check`` accepts a reply: the one loop of every kind of request.

    A reply cut off at the token limit is retried once with a larger budget; an invalid one is
    sent back once with ``repair(problem)``; ``failure(...)`` is raised when that does not
    help, and at once for a reply still cut off after the larger budget when
    ``cut_off_is_final``.
    """
    current = request
    extended = repaired = False
    calls = 0
    while True:
        response = await send(current)
        calls += 1
        if response.finish_reason == "length" and not extended:
            extended = True
            current = replace(current, max_tokens=larger_budget(current.max_tokens))
            continue
        value, problem = check(response)
        if problem is None:
            return value, response
        cut_off = cut_off_is_final and response.finish_reason == "length"
        if cut_off or repaired:
            raise failure(problem, response, current, calls, cut_off)
        repaired = True
        current = replace(
            current,
            messages=(
                *current.messages,
                ChatMessage("assistant", response.text),
                repair(problem),
            ),
        )


async def ask_structured(
    send: Send, request: JudgeRequest, spec: SchemaSpec
) -> tuple[Any, JudgeResponse]:
    """Send ``request`` until a reply validates against ``spec`` (at most three requests).

    Args:
        send: sends one request through the judge's layers.
        request: the first request (its ``output_schema`` is ``spec``'s schema).
        spec: the schema replies must satisfy.

    Returns:
        The validated value (a model instance for a pydantic schema) and the reply it came
        from.

    Raises:
        JudgeOutputError: no valid reply after the repair (or a reply still cut off after the
            larger budget); ``raw_output`` holds the last reply's text (its first
            :data:`RAW_OUTPUT_CHARS` characters).
    """

    def check(response: JudgeResponse) -> tuple[Any, str | None]:
        parsed = parse_output(response.text, spec)
        return parsed.value, parsed.error

    def failure(
        problem: str, response: JudgeResponse, current: JudgeRequest, calls: int, cut_off: bool
    ) -> JudgeOutputError:
        message = (
            f"the reply for {spec.name} was cut off at the token limit even with "
            f"max_tokens={current.max_tokens}: {problem}"
            if cut_off
            else f"Structured output validation failed for {spec.name} after a repair "
            f"request: {problem}"
        )
        return JudgeOutputError(
            message,
            raw_output=clip(response.text, RAW_OUTPUT_CHARS),
            schema_name=spec.name,
            attempts=calls,
        )

    return await _ask(send, request, check, repair_message, failure, cut_off_is_final=True)


EMPTY_REPLY_REPAIR = "Your reply was empty. Answer again with the text asked for."
"""The user message of the repair request after an empty free-text reply."""


def _text_reply(response: JudgeResponse) -> tuple[Any, str | None]:
    return (response.text, None) if response.text.strip() else (None, "empty")


def _empty_reply(
    _problem: str, response: JudgeResponse, _current: JudgeRequest, calls: int, _cut_off: bool
) -> JudgeOutputError:
    return JudgeOutputError(
        "the judge returned an empty text reply, also after a repair request",
        raw_output=clip(response.text, RAW_OUTPUT_CHARS),
        attempts=calls,
    )


async def ask_text(send: Send, request: JudgeRequest) -> JudgeResponse:
    """Send a free-text request and return a reply that is not empty.

    A reply cut off at the token limit is retried once with a larger budget, and an empty
    reply is asked for once more (the repair-then-error rule of structured steps).

    Raises:
        JudgeOutputError: the reply is still empty after the repair request.
    """
    _, response = await _ask(
        send,
        request,
        _text_reply,
        lambda _problem: ChatMessage("user", EMPTY_REPLY_REPAIR),
        _empty_reply,
        cut_off_is_final=False,
    )
    return response
