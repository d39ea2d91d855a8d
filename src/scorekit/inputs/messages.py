"""Input and output shapes of a scorer run, and how text is taken out of them.

A run's ``input`` / ``output`` (and ``ground_truth``) may be:

* a string (one message);
* a list of messages: each a string, an OpenAI-style chat message ``{"role", "content"}`` whose
  content is a string or a list of ``{"type": "text", "text": ...}`` parts, or a Mastra
  ``MastraDBMessage`` whose ``content`` holds ``parts`` / ``content`` / ``text``;
* a single such message (a dict);
* a Mastra agent run input ``{"inputMessages", "rememberedMessages", "systemMessages",
  "taggedSystemMessages"}`` (``ScorerRunInputForAgent``).

The extraction rules follow Mastra evals 1.10.2 ``scorers/utils.ts`` (mastra-scorers.md §1.2):
the text of a message is its string content, else (a Mastra stored message) the last text part
of its ``parts``; LLM judges read the *first* user message of the input and the *last* assistant
message with text of the output; code scorers join the texts of *all* messages with ``", "``.

Two rules of ours for OpenAI-style chat messages, which Mastra's stored-message rules were not
made for (docs/messages.md):

* content given as a list of parts (``[{"type": "text", "text": ...}, ...]``) is the texts of
  all its text parts joined with one space (:data:`PART_SEPARATOR`), not its last part
  (row 85);
* a plain *chat list* (:func:`is_chat_list`: every element a ``{"role", "content"}`` mapping
  with an OpenAI role and no Mastra stored content) is a conversation: the user's message is
  its *last* user message (row 84) and the turns before it are the history
  (:func:`get_conversation_history`, row 86). Mastra agent run inputs
  (``inputMessages``) keep Mastra's first-user-message rule.

A malformed message (a number in a list, a message without content, content of a wrong type, a
part without a type) is a :class:`~scorekit.errors.ConfigError` whose ``field`` names it, e.g.
``input[2].content`` (row 87; Mastra reads such a message as empty text).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from scorekit.errors import ConfigError
from scorekit.inputs.message_validation import check_message, checked_messages

__all__ = [
    "JOIN_SEPARATOR",
    "PART_SEPARATOR",
    "check_message",
    "get_assistant_message",
    "get_combined_system_prompt",
    "get_conversation_history",
    "get_system_messages",
    "get_user_message",
    "ground_truth_text",
    "is_chat_list",
    "joined_text",
    "message_role",
    "message_text",
    "messages_of",
]

JOIN_SEPARATOR = ", "
"""How code scorers join the texts of several messages (Mastra: ``', '``)."""

PART_SEPARATOR = " "
"""How the text parts of one message's list content are joined (row 85); Mastra joins the
parts of a system message so too."""

CHAT_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
"""The roles of an OpenAI-style chat message."""


def _is_chat_message(message: Any) -> bool:
    return (
        isinstance(message, Mapping)
        and message.get("role") in CHAT_ROLES
        and "content" in message
        and not isinstance(message["content"], Mapping)
        and "toolInvocations" not in message
        and "parts" not in message
    )


def is_chat_list(value: Any) -> bool:
    """Whether ``value`` is a plain OpenAI-style chat list (row 84).

    That is a non-empty list whose every element is a mapping with a ``role`` of
    :data:`CHAT_ROLES` and a ``content`` that is not a Mastra content object (a string, a list
    of parts, or ``null``), without Mastra's ``toolInvocations`` / ``parts`` keys. A list
    holding a bare string, or a Mastra stored message, is not one.
    """
    return isinstance(value, list) and bool(value) and all(_is_chat_message(m) for m in value)


def _joined_parts(parts: Sequence[Any]) -> str:
    return PART_SEPARATOR.join(
        part["text"]
        for part in parts
        if isinstance(part, Mapping)
        and part.get("type") == "text"
        and isinstance(part.get("text"), str)
    )


def _last_text_part(parts: Sequence[Any]) -> str | None:
    """Text of the last ``{"type": "text", "text": str}`` part, or ``None``."""
    for part in reversed(parts):
        if isinstance(part, Mapping) and part.get("type") == "text":
            text = part.get("text")
            if isinstance(text, str):
                return text
    return None


def message_text(message: Any, *, field: str = "message") -> str:
    """Return the text of one message, never ``None``.

    Rules (Mastra ``getTextContentFromMastraDBMessage``, 1.10.2): a string message is its own
    text; with ``c = message["content"]``: a string ``c`` is returned; a list ``c`` (OpenAI
    content parts) gives the texts of all its text parts joined with one space (row 85;
    Mastra: the last text part); a dict ``c`` (Mastra stored content) gives its non-empty
    ``content``, else its non-empty ``text``, else the last text part of its ``parts``;
    otherwise ``""``. A message dict without ``content`` but with a string ``text`` (the legacy
    ``{role, text}`` shape) gives that text.

    Args:
        message: a string or a message mapping.
        field: the message's path, used in error messages.

    Returns:
        The text, possibly empty.

    Raises:
        ConfigError: the message is malformed (:func:`check_message`).
    """
    check_message(message, field)
    return _text_ofchecked_messages(message)


def _text_ofchecked_messages(message: Any) -> str:
    """:func:`message_text` of a message :func:`check_message` accepted."""
    if isinstance(message, str):
        return message
    if not isinstance(message, Mapping):
        return ""
    content = message.get("content")
    if content is None:
        text = message.get("text")
        return text if isinstance(text, str) else ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return _joined_parts(content)
    if isinstance(content, Mapping):
        inner = content.get("content")
        if isinstance(inner, str) and inner:
            return inner
        text = content.get("text")
        if isinstance(text, str) and text:
            return text
        parts = content.get("parts")
        if isinstance(parts, list):
            return _last_text_part(parts) or ""
    return ""


def message_role(message: Any) -> str | None:
    """Return the effective role of a message (``None`` for a bare string).

    A Mastra ``signal`` message takes its role from ``content.metadata.signal.tagName``, then
    ``.type``, then the message's top-level ``type`` (Mastra evals 1.10.2).
    """
    if not isinstance(message, Mapping):
        return None
    role = message.get("role")
    if role == "signal":
        content = message.get("content")
        signal: Any = None
        if isinstance(content, Mapping):
            metadata = content.get("metadata")
            if isinstance(metadata, Mapping):
                signal = metadata.get("signal")
        if isinstance(signal, Mapping):
            for key in ("tagName", "type"):
                value = signal.get(key)
                if isinstance(value, str):
                    return value
        top = message.get("type")
        return top if isinstance(top, str) else None
    return role if isinstance(role, str) else None


def _is_agent_input(value: Mapping[str, Any]) -> bool:
    return "inputMessages" in value or "rememberedMessages" in value


def messages_of(value: Any, *, field: str) -> list[Any]:
    """Return the list of messages a run value holds.

    Args:
        value: a run ``input``, ``output`` or ``ground_truth`` in any accepted shape (see the
            module docstring). ``None`` gives ``[]``.
        field: the run field's name, used in error messages.

    Returns:
        The messages: for a Mastra agent input, its ``inputMessages``; for a string or a single
        message, a one-element list.

    Raises:
        ConfigError: the value, or one of its messages, is of no accepted shape (e.g. a
            number), naming ``field``.
    """
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        if _is_agent_input(value):
            return checked_messages(value.get("inputMessages") or [], f"{field}.inputMessages")
        if isinstance(value.get("messages"), list):
            return checked_messages(value["messages"], f"{field}.messages")
        if "content" in value or "text" in value or "role" in value:
            check_message(value, field)
            return [value]
        raise ConfigError(
            f"{field} is a mapping with none of the keys 'content', 'text', 'role', "
            f"'messages' or 'inputMessages'",
            field=field,
        )
    if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        return checked_messages(value, field)
    raise ConfigError(
        f"{field} must be a string, a message, or a list of messages, not {type(value).__name__}",
        field=field,
    )


def joined_text(value: Any, *, field: str) -> str:
    """Return the texts of all messages of ``value`` joined with ``", "`` (code scorers).

    Every message counts, whatever its role (Mastra evals 1.10.2 code scorers).

    Args:
        value: a run value in any accepted shape; ``None`` gives ``""``.
        field: the run field's name, used in error messages.

    Raises:
        ConfigError: the value is of no accepted shape.
    """
    messages = messages_of(value, field=field)  # checked: message_text need not check again
    return JOIN_SEPARATOR.join(_text_ofchecked_messages(m) for m in messages)


def _text_from_value(value: Any) -> str | None:
    """Mastra's ``getTextFromValue``: a loose text finder for content-like values."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, list):  # content given as parts: all joined (row 85)
        return _joined_parts(value) or None
    if isinstance(value, Mapping):
        found = _text_from_value(value.get("content"))
        if found is not None:
            return found
        for key in ("text", "body"):
            candidate = value.get(key)
            if isinstance(candidate, str) and candidate:
                return candidate
        parts = value.get("parts")  # Mastra stored content: its last text part, as Mastra
        return _last_text_part(parts) if isinstance(parts, list) else None
    return None


def _checked_list(value: Any, field: str) -> Any:
    """Check the messages of ``value`` when it is a list; return it."""
    if isinstance(value, list):
        checked_messages(value, field)
    return value


def _first_user_text(messages: Any) -> str | None:
    if not isinstance(messages, list):
        return None
    for message in messages:
        if isinstance(message, str):
            return message
        if message_role(message) == "user":
            return _text_ofchecked_messages(message)
    return None


def _last_user_index(messages: Sequence[Any]) -> int | None:
    for index in range(len(messages) - 1, -1, -1):
        if message_role(messages[index]) == "user":
            return index
    return None


def get_user_message(value: Any, *, field: str = "input") -> str | None:
    """Return the user's message of a run input, as LLM judges read it.

    Rules (Mastra ``getUserMessageFromRunInput``, 1.10.2): a string is returned as is; a plain
    chat list (:func:`is_chat_list`) gives the text of its *last* user message, the query of
    the conversation (row 84; Mastra: the first); another list of messages gives the text
    of its first user message (a bare string in the list counts as one); a mapping gives the
    first user message of ``inputMessages``, then of ``messages``, then its string ``prompt``
    or ``text``, then text found in ``content``, ``input`` or ``user``.

    Args:
        value: a run input in any accepted shape, or ``None``.
        field: the run field's name, used in error messages.

    Returns:
        The text, or ``None`` when there is no user message.

    Raises:
        ConfigError: a message of a list read here is malformed (:func:`check_message`).

    Example:
        >>> get_user_message([{"role": "user", "content": "Hi"},
        ...                   {"role": "assistant", "content": "Hello!"},
        ...                   {"role": "user", "content": "What is 2+2?"}])
        'What is 2+2?'
    """
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        checked_messages(value, field)
        if is_chat_list(value):
            last = _last_user_index(value)
            return None if last is None else _text_ofchecked_messages(value[last])
        return _first_user_text(value)
    if not isinstance(value, Mapping):
        return None
    for key in ("inputMessages", "messages"):
        found = _first_user_text(_checked_list(value.get(key), f"{field}.{key}"))
        if found is not None:
            return found
    for key in ("prompt", "text"):
        candidate = value.get(key)
        if isinstance(candidate, str):
            return candidate
    for key in ("content", "input", "user"):
        found = _text_from_value(value.get(key))
        if found is not None:
            return found
    return None


def get_assistant_message(value: Any, *, field: str = "output") -> str | None:
    """Return the assistant's answer of a run output, as LLM judges read it.

    Rules (Mastra ``getAssistantMessageFromRunOutput``, 1.10.2): a string is returned as is; a
    list gives the last assistant message (or bare string) with non-empty text, scanning from the
    end so that a trailing tool-call-only message is skipped; a single message mapping with role
    ``assistant`` or no role gives its ``text``, else its string ``content``, else text found in
    its structured ``content``. Content given as a list of parts is all its text parts joined
    (row 85).

    Args:
        value: a run output in any accepted shape, or ``None``.
        field: the run field's name, used in error messages.

    Returns:
        The text, or ``None`` when there is no assistant text.

    Raises:
        ConfigError: a message of the list, or the output as one message, is malformed
            (:func:`check_message`).
    """
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        checked_messages(value, field)
        for message in reversed(value):
            if isinstance(message, str):
                if message:
                    return message
                continue
            if message_role(message) == "assistant":
                text = _text_from_value(message)
                if text:
                    return text
        return None
    if isinstance(value, Mapping) and value.get("role") in (None, "assistant"):
        if "content" in value or "role" in value:  # a message (not, e.g., a trajectory)
            check_message(value, field)
        text = value.get("text")
        if isinstance(text, str):
            return text
        content = value.get("content")
        if isinstance(content, str):
            return content
        return _text_from_value(content)
    return None


def _system_text(message: Any) -> str:
    if isinstance(message, str):
        return message
    if not isinstance(message, Mapping):
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            part["text"]
            for part in content
            if isinstance(part, Mapping)
            and part.get("type") == "text"
            and isinstance(part.get("text"), str)
        ]
        return " ".join(texts)
    return _text_ofchecked_messages(message)


def get_system_messages(value: Any, *, field: str = "input") -> list[str]:
    """Return the system prompts of a run input, in order, empty ones dropped.

    Order (Mastra ``getSystemMessagesFromRunInput``, 1.10.2): ``systemMessages``; role-``system``
    messages of ``inputMessages``; of ``messages``; then every message of every
    ``taggedSystemMessages`` entry. A plain list of chat messages gives its system messages.

    Raises:
        ConfigError: a message of a list read here is malformed (:func:`check_message`).
    """
    found: list[str] = []
    if isinstance(value, list):
        checked_messages(value, field)
        found = [_system_text(m) for m in value if message_role(m) == "system"]
    elif isinstance(value, Mapping):
        system = value.get("systemMessages")
        for message in _checked_list(system, f"{field}.systemMessages") or []:
            found.append(_system_text(message))
        for key in ("inputMessages", "messages"):
            messages = _checked_list(value.get(key), f"{field}.{key}")
            if isinstance(messages, list):
                found.extend(_system_text(m) for m in messages if message_role(m) == "system")
        tagged = value.get("taggedSystemMessages")
        if isinstance(tagged, Mapping):
            for tag, messages in tagged.items():
                if isinstance(messages, list):
                    checked_messages(messages, f"{field}.taggedSystemMessages.{tag}")
                    found.extend(_system_text(m) for m in messages)
    return [text for text in found if text]


def get_combined_system_prompt(value: Any, *, field: str = "input") -> str:
    """Return :func:`get_system_messages` joined with a blank line (``"\\n\\n"``)."""
    return "\n\n".join(get_system_messages(value, field=field))


def get_conversation_history(
    value: Any, *, max_messages: int = 10, field: str = "input"
) -> str | None:
    """Return the remembered turns of an agent run input as a ``role: text`` transcript.

    Rules (Mastra ``getConversationHistoryFromRunInput``, 1.10.2; mastra-scorers.md §1.2): the
    last ``max_messages`` entries of the input's ``rememberedMessages`` are taken, each rendered
    as ``"<role>: <text>"`` with its effective role (:func:`message_role`) and its text
    (:func:`message_text`), both trimmed; an entry whose role or text is empty is dropped (after
    the last ``max_messages`` were taken); the lines are joined with ``"\\n"``.

    An agent run input has remembered turns: a mapping with ``inputMessages`` or
    ``rememberedMessages``, as elsewhere in this module. (Mastra also wants
    ``systemMessages`` and ``taggedSystemMessages`` present; the agent inputs Mastra builds always
    have them.) A plain chat list (:func:`is_chat_list`) has the turns before its last user
    message, its system messages left out, rendered the same way (row 86; Mastra: no
    history). Other shapes, strings and other lists have no history.

    Args:
        value: a run input in any accepted shape, or ``None``.
        max_messages: how many of the latest remembered messages to keep; ``<= 0`` keeps none.
        field: the run field's name, used in error messages.

    Returns:
        The transcript, or ``None`` when no remembered message has both a role and text, or
        ``max_messages <= 0``.

    Raises:
        ConfigError: ``max_messages`` is not an integer (``field="max_messages"``); a message
            read is malformed (:func:`check_message`).

    Example:
        >>> get_conversation_history({"inputMessages": [], "rememberedMessages": [
        ...     {"role": "user", "content": "Pick a colour"},
        ...     {"role": "assistant", "content": " Red or blue? "}]})
        'user: Pick a colour\\nassistant: Red or blue?'
    """
    if isinstance(max_messages, bool) or not isinstance(max_messages, int):
        raise ConfigError(
            f"max_messages must be an integer, not {type(max_messages).__name__}",
            field="max_messages",
        )
    if max_messages <= 0:
        return None
    if isinstance(value, list) and is_chat_list(checked_messages(value, field)):
        last = _last_user_index(value)
        remembered: Any = [
            m for m in value[: last or 0] if message_role(m) not in ("system", "developer")
        ]
    elif isinstance(value, Mapping) and _is_agent_input(value):
        remembered = value.get("rememberedMessages")
        if not isinstance(remembered, list):
            return None
        checked_messages(remembered, f"{field}.rememberedMessages")
    else:
        return None
    lines = []
    for message in remembered[-max_messages:]:
        role = (message_role(message) or "").strip()
        text = _text_ofchecked_messages(message).strip()
        if role and text:
            lines.append(f"{role}: {text}")
    return "\n".join(lines) or None


def ground_truth_text(value: Any) -> str:
    """Return a ground truth as the text a judge is shown.

    Args:
        value: the run's ground truth: a string (returned as is) or any JSON value (a number,
            a mapping, a list), written as compact JSON (``{"born":"Ulm"}``, ``0``).

    Raises:
        TypeError: ``value`` is neither a string nor JSON-serialisable.
    """
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
