"""Tool calls recorded in a run's output: Mastra agent messages and OpenAI-style chat messages.

Rules (Mastra evals 1.10.2 ``scorers/utils.ts`` ``mergeToolInvocations`` / ``extractToolCalls``,
mastra-scorers.md §1.3):

* A Mastra message may hold its invocations in the legacy ``toolInvocations`` list and in
  ``parts`` entries ``{"type": "tool-invocation", "toolInvocation": {...}}`` (both inside
  ``content`` for a ``MastraDBMessage``, or at the top level for a UI message). The two lists are
  merged: on a shared ``toolCallId`` the part wins; legacy-only calls are kept before the next
  shared call; the remaining legacy-only calls are appended.
* An invocation counts when it has a ``toolName`` and its ``state`` is ``result``, ``call`` or
  ``output-error`` (a tool that threw still ran); ``partial-call`` does not.
* An OpenAI-style assistant message ``{"role": "assistant", "tool_calls": [{"id", "function":
  {"name", "arguments"}}]}`` counts each call (state ``call``), after the message's Mastra
  invocations.
* A call without an id gets ``"{message_index}-{invocation_index}"``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from scorekit.errors import ConfigError
from scorekit.inputs.messages import messages_of

__all__ = [
    "CALLED_STATES",
    "ToolCallInfo",
    "called_invocations",
    "extract_tool_calls",
    "message_tool_invocations",
    "run_tool_calls",
]

CALLED_STATES = frozenset({"result", "call", "output-error"})
"""Invocation states that count as a call (Mastra 1.10.2)."""


@dataclass(frozen=True)
class ToolCallInfo:
    """One tool call found in a run's output (Mastra ``ToolCallInfo``)."""

    tool_name: str
    """The called tool's name."""
    tool_call_id: str
    """The call's id, or ``"{message_index}-{invocation_index}"`` when it has none."""
    message_index: int
    """Index of the message holding the call (0-based)."""
    invocation_index: int
    """Index of the call among the message's merged invocations (0-based)."""

    def to_dict(self) -> dict[str, Any]:
        """Return the call as a JSON-ready dict with snake_case keys."""
        return {
            "tool_name": self.tool_name,
            "tool_call_id": self.tool_call_id,
            "message_index": self.message_index,
            "invocation_index": self.invocation_index,
        }


def _field(message: Mapping[str, Any], key: str) -> Any:
    """``message.content[key]`` for a MastraDBMessage, else ``message[key]`` (UI message)."""
    content = message.get("content")
    if isinstance(content, Mapping) and key in content:
        return content[key]
    return message.get(key)


_UI_STATES = {
    "input-streaming": "partial-call",
    "input-available": "call",
    "output-available": "result",
    "output-error": "output-error",
}
"""AI SDK 5 UI tool-part states → the invocation states Mastra's scorers count."""


def _ui_tool_part(part: Mapping[str, Any]) -> dict[str, Any] | None:
    """Return an AI SDK 5 UI tool part as a Mastra tool invocation (``None``: another part).

    The part is ``{"type": "tool-<name>", ...}``, or ``{"type": "dynamic-tool", "toolName"}``.
    """
    kind = part.get("type")
    if not isinstance(kind, str) or kind == "tool-invocation":
        return None
    if kind == "dynamic-tool":
        name = part.get("toolName")
    elif kind.startswith("tool-") and len(kind) > len("tool-"):
        name = kind[len("tool-") :]
    else:
        return None
    invocation: dict[str, Any] = {
        "toolCallId": part.get("toolCallId"),
        "toolName": name,
        "args": part.get("input"),
        "state": _UI_STATES.get(str(part.get("state")), part.get("state")),
    }
    if "output" in part:
        invocation["result"] = part["output"]
    if "errorText" in part:
        invocation["errorText"] = part["errorText"]
    return invocation


def _mastra_invocations(message: Mapping[str, Any]) -> list[Any]:
    legacy_value = _field(message, "toolInvocations")
    legacy: list[Any] = list(legacy_value) if isinstance(legacy_value, list) else []
    parts = _field(message, "parts")
    from_parts: list[Any] = []
    if isinstance(parts, list):
        for part in parts:
            if not isinstance(part, Mapping):
                continue
            if part.get("type") == "tool-invocation":
                invocation = part.get("toolInvocation")
                if invocation:
                    from_parts.append(invocation)
            else:
                found = _ui_tool_part(part)
                if found is not None:
                    from_parts.append(found)

    def call_id(invocation: Any) -> Any:
        return invocation.get("toolCallId") if isinstance(invocation, Mapping) else None

    part_ids = {call_id(inv) for inv in from_parts if call_id(inv)}
    legacy_positions: dict[Any, int] = {}
    for index, invocation in enumerate(legacy):
        legacy_positions[call_id(invocation)] = index  # the last one wins, as with a JS Map
    merged: list[Any] = []
    legacy_index = 0
    for invocation in from_parts:
        key = call_id(invocation)
        shared = legacy_positions.get(key) if key else None
        if shared is not None and shared >= legacy_index:
            for previous in legacy[legacy_index:shared]:
                if previous and call_id(previous) not in part_ids:
                    merged.append(previous)
            legacy_index = shared + 1
        merged.append(invocation)
    merged.extend(inv for inv in legacy[legacy_index:] if inv and call_id(inv) not in part_ids)
    return merged


def _openai_invocations(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    calls = message.get("tool_calls")
    if not isinstance(calls, list):
        return []
    found = []
    for call in calls:
        if not isinstance(call, Mapping):
            continue
        function = call.get("function")
        name = function.get("name") if isinstance(function, Mapping) else call.get("name")
        found.append({"toolName": name, "toolCallId": call.get("id"), "state": "call"})
    return found


def message_tool_invocations(message: Any) -> list[Any]:
    """Return the merged tool invocations of one message, in order (possibly empty).

    Args:
        message: a Mastra message, an OpenAI-style chat message, or anything else (``[]``).

    Returns:
        The invocations as found (mappings with ``toolName``, ``toolCallId``, ``state``, ...);
        OpenAI calls are given the state ``call``.
    """
    if not isinstance(message, Mapping):
        return []
    return _mastra_invocations(message) + _openai_invocations(message)


def called_invocations(message: Any) -> Iterator[tuple[int, Mapping[str, Any], str]]:
    """The invocations of one message that count as tool calls, with their positions.

    Args:
        message: a Mastra message, an OpenAI-style chat message, or anything else (nothing).

    Yields:
        ``(index among the message's invocations, invocation, tool name)`` for each invocation
        that is a mapping with a non-empty string ``toolName`` and a state in
        :data:`CALLED_STATES` (Mastra 1.10.2's filter, used by every tool scorer and check).
    """
    for index, invocation in enumerate(message_tool_invocations(message)):
        if not isinstance(invocation, Mapping):
            continue
        name = invocation.get("toolName")
        if name and isinstance(name, str) and invocation.get("state") in CALLED_STATES:
            yield index, invocation, name


def extract_tool_calls(output: Any) -> list[ToolCallInfo]:
    """Return every tool call of a run's output, in message order.

    Args:
        output: a run output in any shape :func:`scorekit.inputs.messages.messages_of` accepts.

    Returns:
        The calls whose invocation has a tool name and a state in :data:`CALLED_STATES`.

    Raises:
        ConfigError: the output has no accepted shape.

    Example:
        >>> extract_tool_calls([{"role": "assistant", "content": "",
        ...     "tool_calls": [{"id": "c1", "function": {"name": "weather", "arguments": "{}"}}]}])
        [ToolCallInfo(tool_name='weather', tool_call_id='c1', message_index=0, invocation_index=0)]
    """
    calls: list[ToolCallInfo] = []
    for message_index, message in enumerate(messages_of(output, field="output")):
        for invocation_index, invocation, name in called_invocations(message):
            call_id = invocation.get("toolCallId")
            calls.append(
                ToolCallInfo(
                    tool_name=name,
                    tool_call_id=str(call_id) if call_id else f"{message_index}-{invocation_index}",
                    message_index=message_index,
                    invocation_index=invocation_index,
                )
            )
    return calls


def run_tool_calls(input: Any, output: Any) -> list[ToolCallInfo]:
    """Return the tool calls of a run's output, as Mastra's tool-call scorers read a run.

    Args:
        input: the run's input; it must hold at least one message.
        output: the run's output; it must hold at least one message.

    Raises:
        ConfigError: the input or the output holds no message, or is malformed (``field``
            ``"input"`` / ``"output"``).
    """
    if not messages_of(input, field="input"):
        raise ConfigError("input must hold at least one message", field="input")
    if not messages_of(output, field="output"):
        raise ConfigError("output must hold at least one message", field="output")
    return extract_tool_calls(output)
