"""Getting a usable reply: the structured-output repair loop and the cut-off rule.

For structured output (:func:`ask_structured`):

1. Send the request; its reply budget comes from the schema's bound
   (:func:`scorekit.judge.budget.first_budget`).
2. Parse tolerantly (code fences stripped, the JSON value taken out of surrounding prose;
   :func:`~scorekit.judge.structured.parse_output`) and validate. A valid reply is the answer,
   even one that ended exactly at the token limit.
3. If the reply was cut off (``finish_reason == "length"``) and is not valid, the cut-off rule
   of :mod:`scorekit.judge.budget` decides: a budget that already covered the schema's bound
   means a **degenerate** (repeating) reply, which fails at once; an unbounded schema fails at
   once too; only a budget below the bound (measured at the reply's own characters per
   token) gets one retry at the bound's budget. Never a retry with a multiplied budget at the
   same temperature: it regenerates the same tokens.
4. If the reply is invalid (and not cut off), make one repair request: the conversation so
   far, the faulty reply, and a user message showing the validation errors.
5. If that fails too, raise :class:`~scorekit.errors.JudgeOutputError` with the raw text:
   never a made-up value.

Before any of this, a reply longer than its request's token budget can explain is
**degenerate**: more completion tokens than ``max_tokens`` as the provider counts them, or more
than :data:`MAX_CHARS_PER_TOKEN` characters a budgeted token. No tokenizer writes that much, so
the server is broken or hostile; the reply fails at once (:func:`oversized_problem`), is never
sent back to the judge in a repair request, and is kept only up to :data:`RAW_OUTPUT_CHARS`.

So one structured answer takes at most three requests. Free text (:func:`ask_text`) has no
schema to bound it: a reply cut off at the judge's ``max_tokens`` fails at once (a truncated
reason is not a reason), and an empty reply is asked for once more, then an error.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from scorekit.errors import JudgeOutputError
from scorekit.judge.budget import ReplyBound, retry_budget
from scorekit.judge.model import ChatMessage, JudgeRequest, JudgeResponse
from scorekit.judge.structured import SchemaSpec, parse_output
from scorekit.judge.translate import clip

__all__ = [
    "EMPTY_REPLY_REPAIR",
    "MAX_CHARS_PER_TOKEN",
    "RAW_OUTPUT_CHARS",
    "ask_structured",
    "ask_text",
    "cut_off_message",
    "oversized_problem",
    "repair_message",
]

Send = Callable[[JudgeRequest], Awaitable[JudgeResponse]]

RAW_OUTPUT_CHARS = 20_000
"""Characters of a failed reply kept in ``JudgeOutputError.raw_output`` (and so in results and
reports); a runaway reply is cut there, with a marker saying how much was left out."""


MAX_CHARS_PER_TOKEN = 64
"""The most characters one budgeted token may stand for. Real vocabularies' longest tokens are
runs of spaces or punctuation of a few dozen characters; English text averages about 4."""


def oversized_problem(response: JudgeResponse, max_tokens: int | None) -> str | None:
    """Why a reply is longer than its token budget can explain, or ``None`` when it is not.

    Args:
        response: the reply.
        max_tokens: the request's reply budget (``None``: no budget was sent, nothing to check).

    Returns:
        The problem, naming the reply's size and the budget.
    """
    if max_tokens is None:
        return None
    if response.output_tokens > max_tokens:
        return (
            f"the reply has {response.output_tokens} completion tokens, more than the "
            f"max_tokens={max_tokens} the request allowed"
        )
    if len(response.text) > max_tokens * MAX_CHARS_PER_TOKEN:
        return (
            f"the reply has {len(response.text):,} characters, more than max_tokens={max_tokens} "
            f"tokens can hold (at most {MAX_CHARS_PER_TOKEN} characters a token)"
        )
    return None


def repair_message(problem: str) -> ChatMessage:
    """The user message of a repair request, showing the validation errors."""
    return ChatMessage(
        "user",
        "Your reply did not match the required JSON schema:\n"
        f"{problem}\nAnswer again with only the corrected JSON.",
    )


def cut_off_message(
    name: str, bound: ReplyBound | None, sent: int | None, reply_chars: int, *, retried: bool
) -> str:
    """Why a reply cut off at the token limit fails (the start of the error message).

    Args:
        name: the schema's name (``"text"`` for free text).
        bound: the reply's bound, or ``None`` when its schema sets none.
        sent: the ``max_tokens`` the cut-off call was sent with, or ``None``.
        reply_chars: characters of the cut-off reply.
        retried: whether the cut-off call was already the retry at the bound's budget.
    """
    limit = f"max_tokens={sent}" if sent is not None else "the provider's token limit"
    if retried:
        return (
            f"the judge's reply for {name} was cut off at the token limit even with {limit}, "
            f"the budget for the schema's bound at this reply's characters per token"
        )
    if bound is None:
        return (
            f"the judge's reply for {name} was cut off at {limit} after {reply_chars:,} "
            "characters, and no schema bound sizes a larger budget (a retry at the same "
            "temperature repeats the same tokens): raise the judge's max_tokens, or bound "
            "the schema (maxLength, maxItems)"
        )
    return (
        f"the judge's reply ran past the schema's bound of {bound.tokens:,} tokens "
        f"({bound.chars:,} characters of JSON for {name}; cut off at {limit} after "
        f"{reply_chars:,} characters): a degenerate (repeating) reply, failed without a retry "
        "(at the same temperature a retry repeats it)"
    )


Check = Callable[[JudgeResponse], tuple[Any, str | None]]
"""Reads a reply: ``(value, None)``, or ``(None, problem)`` when it is not valid."""
Failure = Callable[[str, JudgeResponse, int], JudgeOutputError]
"""Builds the error from ``(message, reply, calls)``."""


async def _ask(
    send: Send,
    request: JudgeRequest,
    check: Check,
    repair: Callable[[str], ChatMessage],
    failure: Failure,
    *,
    name: str,
    bound: ReplyBound | None,
) -> tuple[Any, JudgeResponse]:
    """Send ``request`` until ``check`` accepts a reply: the one loop of every kind of request.

    An invalid reply cut off at the token limit follows the cut-off rule (module docstring):
    at most one retry, at a larger budget, only when the budget was below ``bound``. An
    invalid reply that was not cut off is sent back once with ``repair(problem)``.
    ``failure(...)`` is raised when neither helps.
    """
    current = request
    extended = repaired = False
    calls = 0
    while True:
        response = await send(current)
        calls += 1
        oversized = oversized_problem(response, current.max_tokens)
        if oversized is not None:  # degenerate: never fed back to the judge
            raise failure(f"degenerate reply for {name}: {oversized}", response, calls)
        value, problem = check(response)
        if problem is None:
            return value, response
        if response.finish_reason == "length":
            larger = (
                None
                if extended
                else retry_budget(
                    bound, current.max_tokens, len(response.text), response.output_tokens
                )
            )
            if larger is None:
                message = cut_off_message(
                    name, bound, current.max_tokens, len(response.text), retried=extended
                )
                raise failure(f"{message}: {problem}", response, calls)
            extended = True
            current = replace(current, max_tokens=larger)
            continue
        if repaired:
            raise failure(
                f"Structured output validation failed for {name} after a repair request: {problem}",
                response,
                calls,
            )
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
    send: Send, request: JudgeRequest, spec: SchemaSpec, bound: ReplyBound | None
) -> tuple[Any, JudgeResponse]:
    """Send ``request`` until a reply validates against ``spec`` (at most three requests).

    Args:
        send: sends one request through the judge's layers.
        request: the first request (its ``output_schema`` is ``spec``'s schema, its
            ``max_tokens`` the first budget).
        spec: the schema replies must satisfy.
        bound: the reply's bound (:func:`scorekit.judge.budget.spec_bound`), or ``None``.

    Returns:
        The validated value (a model instance for a pydantic schema) and the reply it came
        from.

    Raises:
        JudgeOutputError: no valid reply after the repair, or a reply cut off that the cut-off
            rule does not retry (a degenerate reply, an unbounded schema, a second cut-off);
            ``raw_output`` holds the last reply's text (its first :data:`RAW_OUTPUT_CHARS`
            characters).
    """

    def check(response: JudgeResponse) -> tuple[Any, str | None]:
        parsed = parse_output(response.text, spec)
        return parsed.value, parsed.error

    def failure(message: str, response: JudgeResponse, calls: int) -> JudgeOutputError:
        return JudgeOutputError(
            message,
            raw_output=clip(response.text, RAW_OUTPUT_CHARS),
            schema_name=spec.name,
            attempts=calls,
        )

    return await _ask(send, request, check, repair_message, failure, name=spec.name, bound=bound)


EMPTY_REPLY_REPAIR = "Your reply was empty. Answer again with the text asked for."
"""The user message of the repair request after an empty free-text reply."""


def _text_reply(response: JudgeResponse) -> tuple[Any, str | None]:
    if response.finish_reason == "length":
        return None, "the text was cut off"
    return (response.text, None) if response.text.strip() else (None, "empty")


def _text_failure(message: str, response: JudgeResponse, calls: int) -> JudgeOutputError:
    if message.endswith(": empty"):
        message = "the judge returned an empty text reply, also after a repair request"
    return JudgeOutputError(
        message, raw_output=clip(response.text, RAW_OUTPUT_CHARS), attempts=calls
    )


async def ask_text(send: Send, request: JudgeRequest) -> JudgeResponse:
    """Send a free-text request and return a reply that is not empty.

    A reply cut off at the token limit fails at once (free text has no bound to size a larger
    budget by), and an empty reply is asked for once more (the repair-then-error rule of
    structured steps).

    Raises:
        JudgeOutputError: the reply was cut off, or is still empty after the repair request.
    """
    _, response = await _ask(
        send,
        request,
        _text_reply,
        lambda _problem: ChatMessage("user", EMPTY_REPLY_REPAIR),
        _text_failure,
        name="text",
        bound=None,
    )
    return response
