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
    "ChatMessage",
    "JudgeModel",
    "JudgeRequest",
    "JudgeResponse",
    "JudgeUsage",
    "PreparedJudgeModel",
]


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
    output_model: type[BaseModel] | None = field(default=None, compare=False, repr=False)

    @property
    def prompt(self) -> str:
        """The text of the last user message (the step's prompt)."""
        for message in reversed(self.messages):
            if message.role == "user":
                return message.content
        return ""


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
    """

    text: str
    finish_reason: str | None = "stop"
    input_tokens: int = 0
    output_tokens: int = 0
    model_id: str = "unknown"
    cache_hit: bool = False
    attempts: int = 1


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
