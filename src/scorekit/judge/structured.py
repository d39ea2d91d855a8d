"""Structured output: schemas, tolerant JSON extraction and validation.

Parsing is tolerant only in well-defined ways: code fences are stripped, and when prose surrounds
a JSON value the outermost object (or array) is taken. Everything else is a validation failure,
including ``NaN`` and ``Infinity`` (Python's parser reads them; JSON does not allow them).
"""

from __future__ import annotations

import json
import re
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

import jsonschema
from pydantic import BaseModel, ValidationError

if TYPE_CHECKING:
    from scorekit.judge.logprobs import LogprobReader

__all__ = [
    "OutputSchema",
    "ParsedOutput",
    "SchemaSpec",
    "extract_json",
    "is_strict_schema",
    "is_unterminated",
    "parse_output",
    "schema_instruction",
]

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class SchemaSpec:
    """A resolved output schema.

    A spec may also be given as a prompt step's schema, for what neither a model class nor a
    dict says alone: a model validating replies *and* a JSON schema narrowed for one run (e.g.
    ``minItems``/``maxItems`` set to the number of claims), with the per-run facts its
    validators check passed as ``validation_context``. The JSON schema sent must then state
    the same constraints the validators enforce.

    Attributes:
        name: a short name (the model's class name, or the JSON schema's ``title``).
        json_schema: the JSON schema sent to the judge.
        model: the pydantic model class that validates replies, or ``None`` for a dict schema.
        validation_context: passed to the model's validators (pydantic's
            ``ValidationInfo.context``), or ``None``.
        reply_chars: a bound on the reply's compact JSON in characters that the schema
            cannot state (claims restate the text they come from, so their JSON is at most a
            few times its length), or ``None``. It sizes the reply budget with the schema's
            own bound (:func:`scorekit.judge.budget.spec_bound`); it is not validated.
        reader: asks for the reply tokens' log-probabilities and reads them into the validated
            value (:class:`~scorekit.judge.logprobs.LogprobReader`: ``scoring="expected"``),
            or ``None``; not part of equality.
    """

    name: str
    json_schema: dict[str, Any]
    model: type[BaseModel] | None
    validation_context: Mapping[str, Any] | None = None
    reply_chars: int | None = None
    reader: LogprobReader | None = field(default=None, compare=False)

    def check(self) -> SchemaSpec:
        """Return this spec after checking that its JSON schema is a valid schema (~3 ms).

        Raises:
            jsonschema.SchemaError: it is not.
        """
        jsonschema.Draft202012Validator.check_schema(self.json_schema)
        return self

    @classmethod
    def of(cls, schema: OutputSchema) -> SchemaSpec:
        """Resolve a pydantic model class, a JSON schema dict or a ready spec.

        Raises:
            TypeError: ``schema`` is none of these.
            jsonschema.SchemaError: a dict (or a spec's JSON schema) is not a valid schema.
        """
        if isinstance(schema, SchemaSpec):
            return schema  # taken as is: whoever made it checks it (see :meth:`check`)
        if isinstance(schema, type) and issubclass(schema, BaseModel):
            return _model_spec(schema)
        if isinstance(schema, dict):
            jsonschema.Draft202012Validator.check_schema(schema)
            return cls(str(schema.get("title", "output")), schema, None)
        raise TypeError(
            "output_schema must be a pydantic model class, a JSON schema dict or a SchemaSpec, "
            f"not {type(schema).__name__}"
        )


OutputSchema = Union[type[BaseModel], dict[str, Any], SchemaSpec]  # noqa: UP007 (a runtime alias)
"""A prompt step's output schema: a pydantic model class, a JSON schema dict, or a
:class:`SchemaSpec` (a model with a JSON schema narrowed for one run)."""


_model_specs: weakref.WeakKeyDictionary[type[BaseModel], SchemaSpec] = weakref.WeakKeyDictionary()


def _model_spec(model: type[BaseModel]) -> SchemaSpec:
    # building a model's JSON schema costs ~0.2 ms; prompt steps ask with the same class
    spec = _model_specs.get(model)
    if spec is None:
        spec = _model_specs[model] = SchemaSpec(model.__name__, model.model_json_schema(), model)
    return spec


@dataclass(frozen=True)
class ParsedOutput:
    """The outcome of parsing one reply: ``value`` when valid, else ``error`` says why."""

    value: Any
    error: str | None


def _reject_constant(name: str) -> Any:
    # Python's json reads NaN and Infinity, which JSON does not allow: a judge's NaN score
    # must fail validation (and get a repair request), never become a NaN result
    raise ValueError(f"the reply holds a non-finite number ({name}), which JSON does not allow")


def extract_json(text: str) -> Any:
    """Return the JSON value in a judge reply.

    Tries, in order: the whole text; the content of the first code fence; the span from the
    first ``{`` to the last ``}`` (or ``[`` to ``]``) when prose surrounds it.

    Raises:
        ValueError: no JSON value could be read, or it holds ``NaN`` / ``Infinity`` (not
            JSON, though Python's parser reads them); the message says why. A reply whose
            JSON starts but ends before it is closed (a reply cut off mid-value) is named
            so: ``the reply's JSON is unterminated (cut off after N characters)``, N the
            reply's length; text with no JSON in it: ``the reply holds no JSON value``.
    """
    candidates = [text.strip()]
    fence = _FENCE.search(text)
    if fence:
        candidates.append(fence.group(1).strip())
    for opener, closer in (("{", "}"), ("[", "]")):
        start, end = text.find(opener), text.rfind(closer)
        if start != -1 and end > start:
            candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate, parse_constant=_reject_constant)
        except json.JSONDecodeError:
            continue
    preview = text[:200] + ("…" if len(text) > 200 else "")
    if is_unterminated(text):
        raise ValueError(
            f"the reply's JSON is unterminated (cut off after {len(text)} characters): {preview!r}"
        )
    raise ValueError(f"the reply holds no JSON value: {preview!r}")


def is_unterminated(text: str) -> bool:
    """Whether ``text`` holds the start of a JSON object or array that ends before it closes.

    The JSON from the first ``{`` or ``[`` on (a code fence's opening stripped) must read
    as valid up to the end of the text: the parser runs out of input (inside a string, or
    expecting more) rather than meeting a character that is wrong.

    Example:
        >>> is_unterminated('{"label": "hi'), is_unterminated('{"label": hi}')
        (True, False)
    """
    starts = [i for i in (text.find("{"), text.find("[")) if i != -1]
    if not starts:
        return False
    candidate = text[min(starts) :].rstrip()
    if candidate.endswith("```"):
        return False  # a closed fence: the JSON inside ended where the author ended it
    try:
        json.loads(candidate, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        return exc.msg.startswith("Unterminated string") or exc.pos >= len(candidate)
    except ValueError:
        return False
    return False


def _format_pydantic_error(error: ValidationError) -> str:
    lines = []
    for item in error.errors(include_url=False):
        where = ".".join(str(p) for p in item["loc"]) or "root"
        lines.append(f"- {where}: {item['msg']}")
    return "\n".join(lines)


def parse_output(text: str, spec: SchemaSpec) -> ParsedOutput:
    """Extract and validate a structured reply.

    Returns:
        ``ParsedOutput(value, None)`` with a model instance (pydantic schema) or the JSON value
        (dict schema) on success; ``ParsedOutput(None, message)`` on failure, where the message
        lists each problem with its location.
    """
    try:
        data = extract_json(text)
    except ValueError as exc:
        return ParsedOutput(None, str(exc))
    if spec.model is not None:
        try:
            return ParsedOutput(
                spec.model.model_validate(data, context=spec.validation_context), None
            )
        except ValidationError as exc:
            return ParsedOutput(None, _format_pydantic_error(exc))
    validator = jsonschema.Draft202012Validator(spec.json_schema)
    problems = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if problems:
        lines = [
            f"- {'.'.join(str(p) for p in e.absolute_path) or 'root'}: {e.message}"
            for e in problems
        ]
        return ParsedOutput(None, "\n".join(lines))
    return ParsedOutput(data, None)


def schema_instruction(schema: dict[str, Any]) -> str:
    """Return the prompt text that asks for JSON satisfying ``schema``.

    Used where the provider cannot take the schema as a response format (JSON mode, plain
    prompts) and in repair requests.
    """
    return (
        "Answer with only a JSON value (no code fences, no other text) that satisfies this "
        f"JSON schema:\n{json.dumps(schema, ensure_ascii=False, sort_keys=True)}"
    )


def is_strict_schema(schema: Any) -> bool:
    """Whether ``schema`` meets OpenAI's strict structured-output rules.

    Strict mode needs every object to list all its properties as required and to forbid
    additional properties; a pydantic model with optional fields does not, and is then sent
    with ``strict: false`` (still validated here).
    """
    if isinstance(schema, list):
        return all(is_strict_schema(item) for item in schema)
    if not isinstance(schema, dict):
        return True
    if schema.get("type") == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            return False
        if set(schema.get("required", [])) != set(properties):
            return False
    return all(is_strict_schema(value) for value in schema.values())
