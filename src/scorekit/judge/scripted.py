"""``ScriptedJudge``: a judge model that replays given replies, for tests and demos.

It stands in for the judge in scorer tests; transport behaviour (retries, 429s, truncated JSON)
is tested against a real HTTP server instead. :func:`forbid_remote_requests` makes every call
to a real provider fail (servers on the loopback interface excepted), for unit-test suites; it
lives in :mod:`scorekit.judge.guard`, which the production adapters import, and is re-exported
here for test suites.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from pydantic import BaseModel

from scorekit.errors import ScorekitError
from scorekit.judge.guard import check_request_allowed, forbid_remote_requests
from scorekit.judge.model import JudgeRequest, JudgeResponse

__all__ = [
    "ScriptExhaustedError",
    "ScriptedJudge",
    "check_request_allowed",
    "forbid_remote_requests",
    "minimal_instance",
]

ScriptItem = dict[str, Any] | list[Any] | BaseModel | str | BaseException
Responder = Callable[[JudgeRequest], ScriptItem | Awaitable[ScriptItem]]


class ScriptExhaustedError(ScorekitError, RuntimeError):
    """The script has no reply left for a call; the message names the call number."""


def _count_tokens(text: str) -> int:
    # deterministic stand-in for a tokenizer: whitespace-separated words
    return len(text.split())


def minimal_instance(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> Any:
    """Return the smallest JSON value valid for a (simple) JSON schema.

    Objects get their required properties, arrays their ``minItems`` (default 0) minimal items,
    enums and ``anyOf`` / ``oneOf`` take their first choice, strings are empty, numbers are their
    minimum or 0, booleans are false.
    """
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return minimal_instance(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return minimal_instance(schema[key][0], defs)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = kind[0]
    if kind == "object":
        props = schema.get("properties", {})
        return {name: minimal_instance(props[name], defs) for name in schema.get("required", [])}
    if kind == "array":
        count = schema.get("minItems", 0)
        return [minimal_instance(schema.get("items", {}), defs) for _ in range(count)]
    if kind == "string":
        return ""
    if kind in ("number", "integer"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    return None


class ScriptedJudge:
    """A :class:`~scorekit.judge.model.JudgeModel` that answers from a script.

    Args:
        script: the replies in call order, each a dict or list (sent as JSON), a pydantic model
            instance (sent as its JSON), a raw string (sent as is, so malformed replies can be
            scripted), or an exception (raised); or a callable ``(request) -> reply``, sync or
            async. ``None`` answers every call with the minimal schema-valid value (``"ok"`` for
            text).
        name: the model name; ``model_id`` is ``"test/<name>"``.

    Attributes:
        calls: every request received, in order.

    Token usage is deterministic: the number of whitespace-separated words of the request's
    messages (input) and of the reply (output).
    """

    def __init__(
        self, script: Iterable[ScriptItem] | Responder | None = None, *, name: str = "scripted"
    ) -> None:
        self._responder: Responder | None = None
        self._script: list[ScriptItem] | None = None
        if callable(script):
            self._responder = script
        elif script is not None:
            self._script = list(script)
        self.name = name
        self.calls: list[JudgeRequest] = []

    @property
    def model_id(self) -> str:
        """``"test/<name>"``."""
        return f"test/{self.name}"

    def __repr__(self) -> str:
        return f"ScriptedJudge(name={self.name!r}, calls={len(self.calls)})"

    async def _next(self, request: JudgeRequest) -> ScriptItem:
        number = len(self.calls)
        if self._responder is not None:
            item = self._responder(request)
            if inspect.isawaitable(item):
                item = await item
            return item
        if self._script is None:
            if request.output_schema is None:
                return "ok"
            return json.dumps(minimal_instance(request.output_schema))
        if number > len(self._script):
            raise ScriptExhaustedError(
                f"ScriptedJudge has {len(self._script)} scripted replies; call {number} "
                f"(step {request.step!r}) has none"
            )
        return self._script[number - 1]

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Record the request and answer with the next scripted reply."""
        self.calls.append(request)
        item = await self._next(request)
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, BaseModel):
            text = item.model_dump_json()
        elif isinstance(item, str):
            text = item
        else:
            text = json.dumps(item, ensure_ascii=False)
        return JudgeResponse(
            text=text,
            finish_reason="stop",
            input_tokens=sum(_count_tokens(m.content) for m in request.messages),
            output_tokens=_count_tokens(text),
            model_id=self.model_id,
        )
