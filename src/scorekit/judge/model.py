"""The contract between scorekit and a language model used as a judge.

``JudgeModel`` is the lowest layer: one chat completion in, raw text and token counts out. It knows
nothing about schemas' meaning, retries or scorers. ``scorekit.judge.Judge`` sits on top and
turns raw replies into validated structured output.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from scorekit.usage import JudgeUsage

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = [
    "MAX_TOP_LOGPROBS",
    "ChatMessage",
    "JudgeModel",
    "JudgeRequest",
    "JudgeResponse",
    "JudgeUsage",
    "PreparedJudgeModel",
    "TokenLogprob",
]

MAX_TOP_LOGPROBS = 20
"""The most alternatives per token a request may ask for (OpenAI's limit; vLLM and llama.cpp
accept it too)."""


@dataclass(frozen=True)
class ChatMessage:
    """One chat message sent to the judge."""

    role: Literal["system", "user", "assistant"]
    """Who speaks."""
    content: str
    """The message text."""


@dataclass(frozen=True)
class JudgeRequest:
    """One request to a judge model.

    Attributes:
        messages: the chat messages, system instructions first.
        output_schema: the JSON schema the reply must satisfy, or ``None`` for free text.
        schema_name: a short name for the schema (``"text"`` for free text).
        step: the scorer step asking (``"analyze"`` ...), for logs and test doubles.
        temperature: sampling temperature, ``>= 0`` (default 0: repeatable judgements).
        max_tokens: the most tokens the reply may have, or ``None`` for the model's default.
        seed: a sampling seed passed where the provider accepts one.
        top_logprobs: ask for the log-probabilities of each generated token and of this many
            most likely alternatives at its position (``1`` to :data:`MAX_TOP_LOGPROBS`), or
            ``None`` for none. A provider that cannot return them fails the call with
            ``JudgeUnavailableError`` before sending it (Anthropic).
        output_model: the pydantic model that validates replies when the schema came from
            one (its validators can reject what the JSON schema allows); not sent, and not
            part of equality or cache keys.
    """

    messages: tuple[ChatMessage, ...]
    output_schema: dict[str, Any] | None = None
    schema_name: str = "text"
    step: str | None = None
    temperature: float = 0.0
    max_tokens: int | None = None
    seed: int | None = None
    top_logprobs: int | None = None
    output_model: type[BaseModel] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        k = self.top_logprobs
        if k is not None and (
            isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_TOP_LOGPROBS
        ):
            raise ValueError(f"top_logprobs must be an int in [1, {MAX_TOP_LOGPROBS}], got {k!r}")

    @property
    def prompt(self) -> str:
        """The text of the last user message (the step's prompt)."""
        for message in reversed(self.messages):
            if message.role == "user":
                return message.content
        return ""


@dataclass(frozen=True)
class TokenLogprob:
    """One generated token with its log-probability, or one alternative to it.

    Attributes:
        token: the token's text as the provider sent it (a token that ends inside a
            multi-byte character may show a replacement character here).
        logprob: its natural-log probability, ``<= 0``.
        token_bytes: its exact UTF-8 bytes when the provider sent them (OpenAI's ``bytes``),
            else ``None`` (then ``token`` encoded stands for them).
        top: the most likely tokens at this position, most likely first, each with its own
            logprob (their own ``top`` is empty); may not hold the generated token itself.
    """

    token: str
    logprob: float
    token_bytes: bytes | None = None
    top: tuple[TokenLogprob, ...] = ()

    @property
    def raw(self) -> bytes:
        """The token's bytes: :attr:`token_bytes`, or :attr:`token` encoded as UTF-8."""
        return self.token_bytes if self.token_bytes is not None else self.token.encode()


@dataclass(frozen=True)
class JudgeResponse:
    """What a judge model answered to one request.

    Attributes:
        text: the raw reply text.
        finish_reason: the provider's finish reason (``"stop"``, ``"length"`` ...), if known.
        input_tokens: prompt tokens billed, ``>= 0``.
        output_tokens: completion tokens billed, ``>= 0``.
        model_id: the model that answered (``"provider/name"``).
        cache_hit: whether the reply came from scorekit's judge-call cache.
        attempts: transport attempts this reply took (``1`` without retries, ``0`` for a
            cache hit).
        logprobs: the generated tokens with their log-probabilities and top alternatives,
            in order, when the request asked for them and the provider sent them; else
            ``None``.
        max_tokens: the reply budget the call was sent with when a layer changed the
            request's (the local judge caps it to its window), else ``None``.
        timeout_s: the deadline in seconds the call ran under, set by the layer that applied
            it (:mod:`scorekit.judge.timeout`, the local judge), else ``None``.
    """

    text: str
    finish_reason: str | None = "stop"
    input_tokens: int = 0
    output_tokens: int = 0
    model_id: str = "unknown"
    cache_hit: bool = False
    attempts: int = 1
    logprobs: tuple[TokenLogprob, ...] | None = None
    max_tokens: int | None = None
    timeout_s: float | None = None


@runtime_checkable
class JudgeModel(Protocol):
    """Anything that can answer a :class:`JudgeRequest`.

    Implementations translate their own failures into :mod:`scorekit.errors` judge errors
    (``JudgeHTTPError``, ``JudgeTimeoutError`` ...). They do not parse or validate the reply.
    """

    @property
    def model_id(self) -> str:
        """``"provider/name"`` of the model, for results and cache keys."""
        ...

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Send one request and return the raw reply."""
        ...


@runtime_checkable
class PreparedJudgeModel(Protocol):
    """A judge model with a one-time start-up (loading a model, starting a server).

    The judge awaits :meth:`prepare` before each call's timeout clock starts, so a slow first
    start-up never times out a call; it must be cheap once done.
    """

    async def prepare(self) -> None:
        """Get ready to answer; return at once when already ready."""
        ...
