"""``Judge``: a model plus instructions, asked for structured output or text by prompt steps."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from scorekit.errors import ConfigError, JudgeOutputError, JudgeUnavailableError
from scorekit.judge.model import ChatMessage, JudgeModel, JudgeRequest, JudgeResponse, JudgeUsage
from scorekit.judge.structured import OutputSchema, SchemaSpec, parse_output

__all__ = ["DEFAULT_INSTRUCTIONS", "Judge", "JudgeResult", "to_judge"]

T = TypeVar("T")

DEFAULT_INSTRUCTIONS = (
    "You are a careful, impartial evaluator of AI system outputs. Follow the task exactly and "
    "answer only in the requested format."
)
"""System instructions used when a judge is created without its own."""


@dataclass(frozen=True)
class JudgeResult(Generic[T]):
    """What a judge call produced.

    Attributes:
        value: the validated output (a model instance, a JSON value, or text).
        raw_text: the reply text the value was read from.
        usage: the usage of every request made for this result (repairs included).
        model_id: the model that answered.
    """

    value: T
    raw_text: str
    usage: JudgeUsage
    model_id: str


class Judge:
    """A judge model with its system instructions.

    Args:
        model: a :class:`~scorekit.judge.model.JudgeModel` object.
        instructions: the system prompt sent with every request (non-empty).

    Raises:
        ConfigError: ``instructions`` is empty.
        JudgeUnavailableError: ``model`` is a model string and no provider resolver is available.
    """

    def __init__(self, model: JudgeModel | str, instructions: str = DEFAULT_INSTRUCTIONS) -> None:
        if isinstance(model, str):
            raise JudgeUnavailableError(
                f"model strings such as {model!r} need the provider table; pass a JudgeModel"
            )
        if not isinstance(instructions, str) or not instructions.strip():
            raise ConfigError("instructions must be a non-empty string", field="instructions")
        self.model = model
        self.instructions = instructions

    @property
    def model_id(self) -> str:
        """The model's ``"provider/name"``."""
        return self.model.model_id

    def __repr__(self) -> str:
        return f"Judge(model={self.model_id!r})"

    def _request(
        self,
        prompt: str,
        spec: SchemaSpec | None,
        step: str | None,
        history: tuple[ChatMessage, ...],
    ) -> JudgeRequest:
        messages = (
            ChatMessage("system", self.instructions),
            ChatMessage("user", prompt),
            *history,
        )
        return JudgeRequest(
            messages=messages,
            output_schema=spec.json_schema if spec else None,
            schema_name=spec.name if spec else "text",
            step=step,
        )

    async def _send(self, request: JudgeRequest) -> tuple[JudgeResponse, JudgeUsage]:
        started = time.perf_counter()
        response = await self.model.complete(request)
        usage = JudgeUsage(
            calls=1,
            input_tokens=response.input_tokens,
            output_tokens=response.output_tokens,
            latency_s=time.perf_counter() - started,
            cache_hits=int(response.cache_hit),
        )
        return response, usage

    async def generate_object(
        self, prompt: str, schema: OutputSchema, *, step: str | None = None
    ) -> JudgeResult[Any]:
        """Ask for output that satisfies ``schema``.

        A reply that fails validation gets one repair request showing the errors.

        Args:
            prompt: the user prompt.
            schema: a pydantic model class or a JSON schema dict.
            step: the asking step's name, for logs and test doubles.

        Returns:
            The validated value: a model instance for a pydantic schema, else the JSON value.

        Raises:
            JudgeOutputError: the reply is still invalid after the repair; holds the raw text.
        """
        spec = SchemaSpec.of(schema)
        usage = JudgeUsage()
        history: tuple[ChatMessage, ...] = ()
        response: JudgeResponse | None = None
        problem = ""
        for _attempt in range(2):
            response, used = await self._send(self._request(prompt, spec, step, history))
            usage = usage + used
            parsed = parse_output(response.text, spec)
            if parsed.error is None:
                return JudgeResult(parsed.value, response.text, usage, self.model_id)
            problem = parsed.error
            history = (
                ChatMessage("assistant", response.text),
                ChatMessage(
                    "user",
                    "Your reply did not match the required JSON schema:\n"
                    f"{problem}\nAnswer again with only the corrected JSON.",
                ),
            )
        raise JudgeOutputError(
            f"Structured output validation failed for {spec.name}: {problem}",
            raw_output=response.text if response else None,
            schema_name=spec.name,
            attempts=usage.calls,
            usage=usage,
        )

    async def generate_text(self, prompt: str, *, step: str | None = None) -> JudgeResult[str]:
        """Ask for free text (e.g. a reason).

        Raises:
            JudgeOutputError: the reply is empty.
        """
        response, usage = await self._send(self._request(prompt, None, step, ()))
        if not response.text.strip():
            raise JudgeOutputError(
                "the judge returned an empty text reply",
                raw_output=response.text,
                attempts=1,
                usage=usage,
            )
        return JudgeResult(response.text, response.text, usage, self.model_id)


def to_judge(model: Judge | JudgeModel | str, instructions: str) -> Judge:
    """Return a :class:`Judge` for a scorer factory's ``model`` argument.

    Args:
        model: a ready ``Judge`` (returned as is, keeping its own instructions), a
            ``JudgeModel`` object, or a ``"provider/model"`` string.
        instructions: the scorer's judge instructions, used when a judge is created here.

    Raises:
        ConfigError: ``model`` is of none of these types.
        JudgeUnavailableError: the model string cannot be resolved.
    """
    if isinstance(model, Judge):
        return model
    if isinstance(model, (str, JudgeModel)):
        return Judge(model, instructions)
    raise ConfigError(
        f"model must be a 'provider/model' string, a JudgeModel or a Judge, "
        f"not {type(model).__name__}",
        field="model",
    )
