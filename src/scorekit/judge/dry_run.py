"""A dry run of the judge: every request is recorded and answered by a stand-in, none is sent.

``estimate_run`` (:mod:`scorekit.cost.estimate`) runs the scorers on a run's items with a
:class:`DryRun` in :data:`DRY_RUN`. The top layer of every judge's stack
(:class:`DryRunModel`, above the judge-call cache) then answers each request itself:

- a request the judge cache holds is answered from it (read only: nothing is written), and
  recorded as a cache hit (no money, no tokens);
- any other is recorded (its model, step, prompt tokens counted by the judge's own tokenizer
  where it has one offline, else :func:`approx_prompt_tokens`, and its reply budget) and
  answered with a *typical reply* (:mod:`scorekit.judge.typical_reply`): valid for the
  request's schema, so the scorer's later steps build their prompts as they would in the run.

Nothing reaches the model, the retries, the run's budget or the rate limiter below. A call is
*exact* when no stand-in reply came before it in the same scorer run (its prompt is the one the
run will send); later calls are *typical* (their prompts quote stand-in replies).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field

from scorekit.judge.cache import JudgeCache, cache_key
from scorekit.judge.model import ChatMessage, JudgeModel, JudgeRequest, JudgeResponse
from scorekit.judge.typical_reply import TYPICAL_REASON_WORDS, TYPICAL_WORDS, typical_reply

__all__ = [
    "APPROX_CHARS_PER_TOKEN",
    "APPROX_MESSAGE_TOKENS",
    "DRY_RUN",
    "DryRun",
    "DryRunCall",
    "DryRunModel",
    "approx_prompt_tokens",
]

APPROX_CHARS_PER_TOKEN = 4.5
"""ASCII characters per token of :func:`approx_prompt_tokens`, calibrated on the benchmark
judge's tokenizer (Qwen2.5, a 151k-token BPE like GPT-4o's): on the 132 prompts five LLM scorers
send for the 12 ExpertQA answers the approximation is 1.2 % above the count in all, -7 % to +11 %
per prompt (docs/cost.md)."""

APPROX_MESSAGE_TOKENS = 4
"""Tokens a chat message adds around its text (role and separators), and once per request."""


def approx_prompt_tokens(messages: Iterable[ChatMessage]) -> int:
    """The tokens of a chat prompt, approximated for a model without an offline tokenizer.

    ``ceil(ascii characters / 4.5)`` plus one token per other character, per message, plus
    :data:`APPROX_MESSAGE_TOKENS` per message and once for the request (the chat template).

    Example:
        >>> approx_prompt_tokens([ChatMessage("user", "Is Paris the capital of France?")])
        15
    """
    total = APPROX_MESSAGE_TOKENS
    for message in messages:
        narrow = len(message.content.encode("ascii", "ignore"))
        other = len(message.content) - narrow
        total += math.ceil(narrow / APPROX_CHARS_PER_TOKEN) + other + APPROX_MESSAGE_TOKENS
    return total


@dataclass(frozen=True)
class DryRunCall:
    """One request of a dry run.

    Attributes:
        model_id: the judge model (``"provider/name"``).
        step: the asking step (``"analyze"`` ...), or ``None``.
        prompt_tokens: its prompt's tokens (counted or approximated).
        completion_tokens: the reply's tokens, the stand-in's or the cached one's
            (approximated).
        max_tokens: its reply budget (``None``: none was set).
        structured: whether it asks for a schema (else free text).
        cache_hit: whether the judge cache answered it (it would cost nothing).
        exact: whether its prompt is the one the run sends (no stand-in reply before it).
        counted: whether ``prompt_tokens`` came from the judge's tokenizer.
    """

    model_id: str
    step: str | None
    prompt_tokens: int
    completion_tokens: int
    max_tokens: int | None
    structured: bool
    cache_hit: bool
    exact: bool
    counted: bool


@dataclass
class DryRun:
    """The requests of one scorer run in a dry run, in the order they were asked."""

    calls: list[DryRunCall] = field(default_factory=list)

    @property
    def exact_so_far(self) -> bool:
        """Whether no stand-in reply was given yet (the next prompt is the run's own)."""
        return all(call.cache_hit for call in self.calls)


DRY_RUN: ContextVar[DryRun | None] = ContextVar("scorekit_dry_run", default=None)
"""The dry run in progress; ``None`` (the default) sends requests as usual."""

TokenCounter = Callable[[JudgeRequest], int]
"""Counts a request's prompt tokens with the model's own tokenizer (blocking)."""


def _text_tokens(text: str) -> int:
    """A reply's tokens, approximated as a prompt's are (without the message overhead)."""
    return approx_prompt_tokens([ChatMessage("assistant", text)]) - 2 * APPROX_MESSAGE_TOKENS


class DryRunModel:
    """The judge's top layer: passes requests through, or answers them in a dry run.

    Args:
        inner: the layers below (the cache, when on).
        cache: the judge-call cache to read in a dry run (``None``: the judge has none).
        identity: the model's identity for cache keys (``None``: never cached).
        counter: the model's own tokenizer, where it has one offline (the local judge).
    """

    def __init__(
        self,
        inner: JudgeModel,
        cache: JudgeCache | None,
        identity: dict[str, object] | None,
        counter: TokenCounter | None = None,
    ) -> None:
        self.inner = inner
        self.cache = cache
        self.identity = identity
        self.counter = counter

    @property
    def model_id(self) -> str:
        """The inner model's id."""
        return self.inner.model_id

    def __repr__(self) -> str:
        return f"DryRunModel({self.inner!r})"

    def _call(
        self,
        request: JudgeRequest,
        prompt_tokens: int,
        completion_tokens: int,
        *,
        cache_hit: bool,
        exact: bool,
        counted: bool = False,
    ) -> DryRunCall:
        return DryRunCall(
            model_id=self.model_id,
            step=request.step,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            max_tokens=request.max_tokens,
            structured=request.output_schema is not None,
            cache_hit=cache_hit,
            exact=exact,
            counted=counted,
        )

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Send ``request`` below, or, in a dry run, record it and answer it (module doc)."""
        book = DRY_RUN.get()
        if book is None:
            return await self.inner.complete(request)
        exact = book.exact_so_far
        counted = self.counter is not None
        if self.counter is not None:
            tokens = self.counter(request)
        else:
            tokens = approx_prompt_tokens(request.messages)
        if self.cache is not None and self.identity is not None:
            cached = self.cache.get(cache_key(self.identity, request))
            if cached is not None:  # free now; a repeated trial would send it (its tokens)
                completion = _text_tokens(cached.text)
                book.calls.append(
                    self._call(request, tokens, completion, cache_hit=True, exact=exact,
                               counted=counted)
                )  # fmt: skip
                return cached
        reply = typical_reply(request.output_schema, request.prompt, request.top_logprobs)
        completion = _text_tokens(reply.text)
        words = TYPICAL_REASON_WORDS if request.output_schema is None else TYPICAL_WORDS
        while request.max_tokens is not None and completion > request.max_tokens and words > 1:
            words //= 2  # a judge writes within its reply budget
            reply = typical_reply(
                request.output_schema, request.prompt, request.top_logprobs, words=words
            )
            completion = _text_tokens(reply.text)
        book.calls.append(
            self._call(request, tokens, completion, cache_hit=False, exact=exact, counted=counted)
        )
        return JudgeResponse(
            text=reply.text,
            input_tokens=tokens,
            output_tokens=completion,
            model_id=self.model_id,
            attempts=0,
            logprobs=reply.logprobs,
        )
