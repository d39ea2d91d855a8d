"""Whether a run's messages are well formed: each malformed one is a ``ConfigError`` naming it.

Mastra reads a malformed message (a number in a list, a message without content, content of a
wrong type) as empty text, and a scorer then scores that silently; scorekit refuses it, naming
the place: ``input[2].content``, ``output[0].content[1].text`` (row 87). Used by every
reader of :mod:`scorekit.inputs.messages`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorekit.errors import ConfigError

__all__ = ["check_message", "checked_messages", "kind_name"]


def kind_name(value: Any) -> str:
    """How an error message names a value's type (``null`` for ``None``)."""
    return "null" if value is None else type(value).__name__


def _refuse(where: str, problem: str) -> ConfigError:
    return ConfigError(f"{where} {problem}", field=where)


def _check_parts(parts: Sequence[Any], where: str) -> None:
    for index, part in enumerate(parts):
        at = f"{where}[{index}]"
        if not isinstance(part, Mapping):
            raise _refuse(
                at, f"must be a content part mapping ({{'type': ...}}), not {kind_name(part)}"
            )
        kind = part.get("type")
        if not isinstance(kind, str):
            missing = "missing" if "type" not in part else kind_name(kind)
            raise _refuse(f"{at}.type", f"must be a string (the part's kind), not {missing}")
        if kind == "text" and not isinstance(part.get("text"), str):
            raise _refuse(f"{at}.text", f"must be a string, not {kind_name(part.get('text'))}")


def _carries_tool_calls(message: Mapping[str, Any]) -> bool:
    return any(key in message for key in ("tool_calls", "toolInvocations", "function_call"))


def _check_content(message: Mapping[str, Any], where: str) -> None:
    content = message["content"]
    if isinstance(content, str):
        return
    if content is None:
        if _carries_tool_calls(message) or message.get("role") == "assistant":
            return  # an assistant turn may have no text (OpenAI: null beside tool calls)
        raise _refuse(where, "is null (only an assistant message may lack its text)")
    if isinstance(content, list):
        _check_parts(content, where)
        return
    if isinstance(content, Mapping):  # Mastra stored content: {format: 2, parts, content?}
        for key in ("content", "text"):
            inner = content.get(key)
            if inner is not None and not isinstance(inner, str):
                raise _refuse(f"{where}.{key}", f"must be a string, not {kind_name(inner)}")
        parts = content.get("parts")
        if parts is not None:
            if not isinstance(parts, list):
                raise _refuse(f"{where}.parts", f"must be a list of parts, not {kind_name(parts)}")
            _check_parts(parts, f"{where}.parts")
        return
    raise _refuse(
        where,
        f"must be a string, a list of content parts or a Mastra content object, not "
        f"{kind_name(content)}",
    )


def check_message(message: Any, where: str) -> None:
    """Refuse a malformed message; ``where`` is its path (``input[2]``).

    A message is a string, or a mapping with a string ``role`` (optional) and either
    ``content`` (a string; a list of ``{"type": ...}`` parts, a text part with a string
    ``text``; a Mastra content object ``{format, parts, content?}``; ``null`` in an assistant
    message or one carrying tool calls), a string ``text`` (the legacy ``{role, text}``
    shape) or ``parts`` (a UI message). A message carrying tool calls (``tool_calls``,
    ``toolInvocations``, ``function_call``) may have none of them.

    Raises:
        ConfigError: the message is malformed; ``field`` (and the message) name the offending
            place, e.g. ``input[2].content`` or ``input[2].content[0].text``.
    """
    if isinstance(message, str):
        return
    if not isinstance(message, Mapping):
        raise _refuse(where, f"must be a string or a message mapping, not {kind_name(message)}")
    role = message.get("role")
    if role is not None and not isinstance(role, str):
        raise _refuse(f"{where}.role", f"must be a string, not {kind_name(role)}")
    if "content" in message:
        _check_content(message, f"{where}.content")
    elif "text" in message:
        if not isinstance(message["text"], str):
            raise _refuse(f"{where}.text", f"must be a string, not {kind_name(message['text'])}")
    elif "parts" in message:  # a UI message (AI SDK): its text and tool calls are parts
        parts = message["parts"]
        if not isinstance(parts, list):
            raise _refuse(f"{where}.parts", f"must be a list of parts, not {kind_name(parts)}")
        _check_parts(parts, f"{where}.parts")
    elif not _carries_tool_calls(message):
        keys = ", ".join(repr(k) for k in list(message)[:5]) or "none"
        raise _refuse(f"{where}.content", f"is missing: a message needs its text (keys: {keys})")


def checked_messages(items: Any, field: str) -> list[Any]:
    """Return ``items`` as a list when every item is a well-formed message."""
    if not isinstance(items, Sequence) or isinstance(items, (str, bytes, bytearray)):
        raise ConfigError(
            f"{field} must be a list of messages, not {kind_name(items)}", field=field
        )
    found = list(items)
    for index, item in enumerate(found):
        check_message(item, f"{field}[{index}]")
    return found
