"""``PromptStep``: a scorer step that asks the judge, and the rules its schema follows.

A step of a scorer (:mod:`scorekit.pipeline`) is either a function of the
:class:`~scorekit.steps.StepContext` or a :class:`PromptStep`, which builds a prompt, asks the
judge and validates the reply against its ``output_schema`` (fixed, or a function of the run).
Kept apart from the run algorithm so that each reads on its own.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeGuard

import jsonschema
from pydantic import BaseModel, ConfigDict, Field

from scorekit.errors import ConfigError
from scorekit.judge.judge import Judge
from scorekit.judge.structured import OutputSchema, SchemaSpec
from scorekit.steps import LocalResult, NotScorable, StepContext

__all__ = [
    "SCORE_RANGE",
    "PromptBuilder",
    "PromptStep",
    "SchemaFunction",
    "ScoreOutput",
    "Step",
    "StepFunction",
    "check_schema",
    "has_score_field",
    "is_schema_function",
    "resolve_schema",
]


PromptBuilder = Callable[
    [StepContext],
    str | LocalResult | NotScorable | Awaitable[str | LocalResult | NotScorable],
]
StepFunction = Callable[[StepContext], Any]
SchemaFunction = Callable[[StepContext], OutputSchema | Awaitable[OutputSchema]]
"""A prompt step's per-run schema: ``(ctx) -> schema``, sync or async (see :class:`PromptStep`)."""


def is_schema_function(value: Any) -> TypeGuard[SchemaFunction]:
    """Whether ``output_schema`` is a per-run schema function rather than a schema.

    A pydantic model class is callable too: a class, a dict or a ``SchemaSpec`` is a schema;
    any other callable builds one per run.
    """
    return callable(value) and not isinstance(value, (type, dict, SchemaSpec))


@dataclass(frozen=True)
class PromptStep:
    """A step that asks the judge.

    For ``preprocess`` / ``analyze`` the judge returns structured output validated against
    ``output_schema`` (required), and the step result is the validated value (a model instance
    for a pydantic schema). For ``generate_score`` the judge returns ``{"score": number}``, in
    :data:`SCORE_RANGE` without ``output_schema`` (row 81), else against the schema (which
    needs a ``score`` property: ``"maximum": 10`` or ``Field(le=10)`` for a 0–10 scale); a
    reply out of range is repaired once, then an ``error``. ``generate_reason`` returns text.

    The schema may depend on the run: a function ``(ctx) -> schema`` (sync or async), called once
    per run after ``create_prompt`` returned a prompt; the judge is asked with, and replies are
    validated against, what it returns. Prebuilt scorers ask so for exactly one verdict per
    context piece or claim (``minItems`` / ``maxItems``), which constrained decoding enforces.

    Attributes:
        description: what the step does (shown by ``Scorer.get_steps``).
        create_prompt: builds the prompt from the step context; sync or async. It may instead
            return :func:`local_result` (the step's result, no judge call) or
            :func:`not_scorable` (the run ends as ``skipped``, no judge call).
        output_schema: a pydantic model class, a JSON schema dict or a ``SchemaSpec`` (checked
            when the step is made), or a function ``(ctx) -> schema`` returning one per run (a
            class or dict is checked when it returns; a spec is taken as its maker checked it).
        judge: a judge for this step only; else the scorer's judge.
    """

    description: str
    create_prompt: PromptBuilder
    output_schema: OutputSchema | SchemaFunction | None = None
    judge: Judge | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.description, str):
            raise ConfigError("PromptStep description must be a string", field="description")
        if not callable(self.create_prompt):
            raise ConfigError("PromptStep create_prompt must be callable", field="create_prompt")
        if self.output_schema is not None and not is_schema_function(self.output_schema):
            check_schema(self.output_schema, made=True)
        if self.judge is not None and not isinstance(self.judge, Judge):
            raise ConfigError(
                f"PromptStep judge must be a scorekit.Judge, not {type(self.judge).__name__}",
                field="judge",
            )


Step = PromptStep | StepFunction


def check_schema(schema: Any, *, made: bool = False) -> None:
    """Check that ``schema`` is a usable output schema.

    Args:
        schema: a pydantic model class, a JSON schema dict or a ``SchemaSpec``.
        made: the schema was given when the step was made (a ``SchemaSpec`` is then checked
            too; one returned by a schema function is taken as its maker checked it).

    Raises:
        ConfigError: not a usable schema (``field="output_schema"``).
    """
    try:
        spec = SchemaSpec.of(schema)
        if made and isinstance(schema, SchemaSpec):
            spec.check()
    except (TypeError, jsonschema.SchemaError) as exc:
        raise ConfigError(
            f"PromptStep output_schema is not a usable schema: {exc}", field="output_schema"
        ) from exc


async def resolve_schema(step: PromptStep, ctx: StepContext) -> OutputSchema:
    """The step's schema for this run: the static one, or what its schema function returns."""
    schema = step.output_schema
    if isinstance(schema, (type, dict, SchemaSpec)):
        return schema
    assert is_schema_function(schema)  # PromptStep checked it when made
    value = schema(ctx)
    if inspect.isawaitable(value):
        value = await value
    check_schema(value)
    return value


SCORE_RANGE = (0.0, 1.0)
"""A ``generate_score`` prompt step's range without ``output_schema`` (Mastra: any number)."""


class ScoreOutput(BaseModel):
    """A score reply without ``output_schema``: a JSON number in range; extra keys ignored."""

    model_config = ConfigDict(extra="ignore", strict=True, allow_inf_nan=False)
    score: float = Field(ge=SCORE_RANGE[0], le=SCORE_RANGE[1])


def has_score_field(schema: OutputSchema | SchemaFunction | None) -> bool:
    """Whether a ``generate_score`` step's schema names a ``score`` property.

    A schema function's reply is checked when it runs (it must give a finite ``score``), so
    a function counts as having one.
    """
    if not isinstance(schema, (type, dict, SchemaSpec)):
        return True
    return "score" in SchemaSpec.of(schema).json_schema.get("properties", {})
