"""What a span says, under the OpenInference and the OpenTelemetry GenAI semantic conventions.

*Kind* (:func:`span_kind`): OpenInference's ``openinference.span.kind`` (``LLM``, ``CHAIN``,
``RETRIEVER``, ``TOOL``, ``AGENT``, ``EMBEDDING``, ``RERANKER``, ``GUARDRAIL``, ``EVALUATOR``)
as written; else GenAI's ``gen_ai.operation.name``: ``chat``, ``text_completion``,
``generate_content`` → ``LLM``; ``execute_tool`` → ``TOOL``; ``retrieval`` → ``RETRIEVER``;
``invoke_agent``, ``create_agent``, ``invoke_workflow`` → ``AGENT``; ``embeddings`` →
``EMBEDDING``; else ``None`` (a plain span).

*Messages* (:func:`input_messages`, :func:`output_messages`), as ``{"role", "content"}``
chat messages (the content is text):

* OpenInference: ``llm.input_messages.<i>.message.role`` / ``.content`` (or the texts of
  ``.contents.<j>.message_content.text`` joined with a space), and ``llm.output_messages``;
  without them, ``input.value`` / ``output.value`` as one user / assistant message.
* GenAI: ``gen_ai.system_instructions`` (a system message) and ``gen_ai.input.messages`` /
  ``gen_ai.output.messages`` (JSON: ``[{"role", "parts": [{"type": "text", "content"}]}]``,
  the text parts joined with a space); the older ``gen_ai.prompt.<i>.role`` / ``.content``
  and ``gen_ai.completion.<i>...`` attributes.

*Documents* (:func:`documents`): OpenInference ``retrieval.documents.<i>.document.content``;
GenAI ``gen_ai.retrieval.documents`` (JSON ``[{"id", "score", "content"}]``; ``text`` is read
too).

*Tool invocation* (:func:`tool_invocation`): in Mastra's shape
(``{"toolCallId", "toolName", "args", "result", "state"}``, see :mod:`scorekit.inputs.tool_calls`),
from OpenInference ``tool.name`` with ``input.value`` / ``output.value`` (JSON parsed when it
parses), or GenAI ``gen_ai.tool.name``, ``gen_ai.tool.call.id``,
``gen_ai.tool.call.arguments``, ``gen_ai.tool.call.result``. A span with status ``ERROR`` is
state ``output-error``. *Requested calls* (:func:`requested_tool_calls`): the tool calls an
LLM span's output messages ask for, state ``call``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from scorekit.traces.otlp import Span

__all__ = [
    "KINDS",
    "documents",
    "input_messages",
    "output_messages",
    "requested_tool_calls",
    "span_kind",
    "tool_invocation",
]

KINDS = frozenset(
    {
        "LLM",
        "CHAIN",
        "RETRIEVER",
        "TOOL",
        "AGENT",
        "EMBEDDING",
        "RERANKER",
        "GUARDRAIL",
        "EVALUATOR",
    }
)
"""The span kinds (OpenInference's names; GenAI operations map onto them)."""

_GENAI_KINDS = {
    "chat": "LLM",
    "text_completion": "LLM",
    "generate_content": "LLM",
    "execute_tool": "TOOL",
    "retrieval": "RETRIEVER",
    "invoke_agent": "AGENT",
    "create_agent": "AGENT",
    "invoke_workflow": "AGENT",
    "embeddings": "EMBEDDING",
}


def span_kind(span: Span) -> str | None:
    """The span's kind (see the module docstring), ``None`` for a plain span."""
    kind = span.attributes.get("openinference.span.kind")
    if isinstance(kind, str) and kind.strip():
        return kind.strip().upper()
    operation = span.attributes.get("gen_ai.operation.name")
    if isinstance(operation, str):
        return _GENAI_KINDS.get(operation)
    return None


def _json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _indexed(attributes: Mapping[str, Any], prefix: str) -> list[dict[str, Any]]:
    """``<prefix>.<i>.<rest>`` attributes as one dict (rest → value) per index, in index order."""
    pattern = re.compile(re.escape(prefix) + r"\.(\d+)\.(.+)")
    found: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        match = pattern.fullmatch(key)
        if match:
            found.setdefault(int(match[1]), {})[match[2]] = value
    return [found[i] for i in sorted(found)]


def _openinference_messages(span: Span, which: str) -> list[dict[str, Any]]:
    messages = []
    for fields in _indexed(span.attributes, f"llm.{which}_messages"):
        content = fields.get("message.content")
        if not isinstance(content, str):
            parts = _indexed(fields, "message.contents")
            texts = [
                p["message_content.text"]
                for p in parts
                if isinstance(p.get("message_content.text"), str)
            ]
            content = " ".join(texts)
        message: dict[str, Any] = {
            "role": str(fields.get("message.role", "user")),
            "content": content,
        }
        calls = _indexed(fields, "message.tool_calls")
        if calls:
            message["tool_calls"] = [
                {
                    "id": call.get("tool_call.id"),
                    "name": call.get("tool_call.function.name"),
                    "arguments": _json(call.get("tool_call.function.arguments")),
                }
                for call in calls
            ]
        messages.append(message)
    return messages


def _genai_parts(parts: Any) -> tuple[str, list[dict[str, Any]]]:
    texts, calls = [], []
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, Mapping):
            continue
        if part.get("type") == "text" and isinstance(part.get("content"), str):
            texts.append(part["content"])
        elif part.get("type") == "tool_call":
            calls.append(
                {"id": part.get("id"), "name": part.get("name"), "arguments": part.get("arguments")}
            )
    return " ".join(texts), calls


def _genai_messages(span: Span, which: str) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    if which == "input":
        system = _json(span.attributes.get("gen_ai.system_instructions"))
        if isinstance(system, list):
            text, _ = _genai_parts(system)
            if text:
                messages.append({"role": "system", "content": text})
        elif isinstance(system, str) and system:
            messages.append({"role": "system", "content": system})
    raw = _json(span.attributes.get(f"gen_ai.{which}.messages"))
    if isinstance(raw, list):
        for entry in raw:
            if not isinstance(entry, Mapping):
                continue
            text, calls = _genai_parts(entry.get("parts"))
            message: dict[str, Any] = {"role": str(entry.get("role", "user")), "content": text}
            if calls:
                message["tool_calls"] = calls
            messages.append(message)
        return messages
    legacy = "prompt" if which == "input" else "completion"
    for fields in _indexed(span.attributes, f"gen_ai.{legacy}"):
        if isinstance(fields.get("content"), str):
            role = str(fields.get("role", "user" if which == "input" else "assistant"))
            messages.append({"role": role, "content": fields["content"]})
    return messages


def _value_message(span: Span, which: str) -> list[dict[str, Any]]:
    value = span.attributes.get(f"{which}.value")
    if value is None:
        return []
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return [{"role": "user" if which == "input" else "assistant", "content": text}]


def input_messages(span: Span) -> list[dict[str, Any]]:
    """The span's input as chat messages (``[]`` when it records none)."""
    return (
        _openinference_messages(span, "input")
        or _genai_messages(span, "input")
        or _value_message(span, "input")
    )


def output_messages(span: Span) -> list[dict[str, Any]]:
    """The span's output as chat messages (``[]`` when it records none)."""
    return (
        _openinference_messages(span, "output")
        or _genai_messages(span, "output")
        or _value_message(span, "output")
    )


def documents(span: Span) -> list[str]:
    """The texts of the documents a retriever span returned, in order (``[]``: none)."""
    texts = [
        fields["document.content"]
        for fields in _indexed(span.attributes, "retrieval.documents")
        if isinstance(fields.get("document.content"), str)
    ]
    if texts:
        return texts
    raw = _json(span.attributes.get("gen_ai.retrieval.documents"))
    found = []
    for document in raw if isinstance(raw, list) else []:
        if isinstance(document, Mapping):
            text = document.get("content", document.get("text"))
            if isinstance(text, str):
                found.append(text)
        elif isinstance(document, str):
            found.append(document)
    return found


def tool_invocation(span: Span) -> dict[str, Any] | None:
    """The tool call a tool span made, in Mastra's invocation shape; ``None`` without a name."""
    attributes = span.attributes
    name = attributes.get("gen_ai.tool.name", attributes.get("tool.name"))
    if not isinstance(name, str) or not name:
        name = span.name or None
    if name is None:
        return None
    call_id = attributes.get("gen_ai.tool.call.id", attributes.get("tool_call.id"))
    args = attributes.get("gen_ai.tool.call.arguments", attributes.get("input.value"))
    result = attributes.get("gen_ai.tool.call.result", attributes.get("output.value"))
    failed = span.status_code == "ERROR"
    invocation: dict[str, Any] = {
        "toolCallId": str(call_id) if call_id else span.span_id,
        "toolName": name,
        "state": "output-error" if failed else "result",
    }
    if args is not None:
        invocation["args"] = _json(args)
    if result is not None and not failed:
        invocation["result"] = _json(result)
    if failed:
        invocation["errorText"] = span.status_message or "the tool failed"
        invocation["isError"] = True
    return invocation


def requested_tool_calls(span: Span) -> list[dict[str, Any]]:
    """The tool calls an LLM span's output asks for, as invocations with state ``call``."""
    found: list[dict[str, Any]] = []
    for message in output_messages(span):
        for call in message.get("tool_calls", []):
            if isinstance(call.get("name"), str) and call["name"]:
                invocation: dict[str, Any] = {
                    "toolCallId": str(call.get("id") or f"{span.span_id}-{len(found)}"),
                    "toolName": call["name"],
                    "state": "call",
                }
                if call.get("arguments") is not None:
                    invocation["args"] = _json(call["arguments"])
                found.append(invocation)
    return found
