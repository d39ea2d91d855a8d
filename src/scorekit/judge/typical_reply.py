"""A typical reply to a judge request: valid for its schema, of the size a judge usually writes.

A dry run (:mod:`scorekit.judge.dry_run`) answers each request it does not find in the judge
cache with this stand-in, so that a scorer's later steps build their prompts as the run would.
Its shape, documented in docs/cost.md:

- an object has every property of its schema, in order; a ``$ref`` is followed, the first
  non-null choice of an ``anyOf``/``oneOf`` taken;
- a list has :data:`TYPICAL_ITEMS` entries (within its ``minItems`` and ``maxItems``);
- a string of a fixed set (``enum``, ``const``) is its first value; any other string is
  :data:`TYPICAL_WORDS` words taken in turn from the request's own prompt (so its tokens per
  word are the prompt language's);
- a number is the middle of its range (``0.5`` without one); an integer inside a list's entry
  is the entry's position (entries are usually numbered: ``context_index`` 0, 1, 2), kept
  within its ``minimum`` and ``maximum``, any other integer its minimum (or 1); a boolean
  ``true``;
- free text (no schema) is :data:`TYPICAL_REASON_WORDS` words;
- a reply longer than the request's reply budget is made again with fewer words a string
  (halved until it fits, down to one), as a judge writes within its budget.

When the request asks for log-probabilities, the reply comes with tokens that spell it, each
string value one token certain of itself (log-probability 0), so a label reader finds every
label where it expects it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from scorekit.judge.model import TokenLogprob

__all__ = [
    "TYPICAL_ITEMS",
    "TYPICAL_REASON_WORDS",
    "TYPICAL_WORDS",
    "TypicalReply",
    "typical_reply",
]

TYPICAL_ITEMS = 3
"""Entries of a list in a typical reply."""

TYPICAL_WORDS = 12
"""Words of a free string field in a typical reply (a claim, a reasoning)."""

TYPICAL_REASON_WORDS = 40
"""Words of a free-text reply (a reason)."""

_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class TypicalReply:
    """A stand-in reply: its text, and its tokens when log-probabilities were asked for."""

    text: str
    logprobs: tuple[TokenLogprob, ...] | None


class _Words:
    """Words taken in turn from a prompt, cycling."""

    def __init__(self, prompt: str) -> None:
        self.words = _WORD.findall(prompt) or ["word"]
        self.at = 0

    def take(self, count: int) -> str:
        taken = [self.words[(self.at + i) % len(self.words)] for i in range(count)]
        self.at = (self.at + count) % len(self.words)
        return " ".join(taken)


def _resolve(node: Any, root: dict[str, Any]) -> dict[str, Any]:
    """``node`` with its ``$ref`` followed and the first non-null choice taken."""
    seen = 0
    while isinstance(node, dict) and seen < 32:
        seen += 1
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            target: Any = root
            for part in ref[2:].split("/"):
                target = target.get(part, {}) if isinstance(target, dict) else {}
            node = target
            continue
        choices = node.get("anyOf") or node.get("oneOf")
        if isinstance(choices, list) and choices:
            usable = [c for c in choices if not (isinstance(c, dict) and c.get("type") == "null")]
            node = (usable or choices)[0]
            continue
        return node
    return node if isinstance(node, dict) else {}


def _number(node: dict[str, Any], integer: bool, position: int | None) -> float | int:
    low, high = node.get("minimum"), node.get("maximum")
    if integer:
        value = position if position is not None else None
        if value is None:
            return int(low) if isinstance(low, (int, float)) else 1
        if isinstance(low, (int, float)):
            value = max(value, int(low))
        if isinstance(high, (int, float)):
            value = min(value, int(high))
        return value
    if isinstance(low, (int, float)) and isinstance(high, (int, float)):
        return (low + high) / 2
    if isinstance(low, (int, float)):
        return low
    return 0.5 if not isinstance(high, (int, float)) or high >= 0.5 else high


def _value(
    node: Any,
    root: dict[str, Any],
    words: _Words,
    depth: int = 0,
    position: int | None = None,
    per_string: int = TYPICAL_WORDS,
) -> Any:
    node = _resolve(node, root)
    if "const" in node:
        return node["const"]
    if isinstance(node.get("enum"), list) and node["enum"]:
        return node["enum"][0]
    kind = node.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if depth > 16:
        return None
    if kind == "object" or (kind is None and "properties" in node):
        properties = node.get("properties") or {}
        return {
            name: _value(sub, root, words, depth + 1, position, per_string)
            for name, sub in properties.items()
        }
    if kind == "array":
        count = TYPICAL_ITEMS
        low, high = node.get("minItems"), node.get("maxItems")
        if isinstance(low, int):
            count = max(count, low)
        if isinstance(high, int):
            count = min(count, high)
        entry = node.get("items", {})
        return [_value(entry, root, words, depth + 1, index, per_string) for index in range(count)]
    if kind == "string" or kind is None:
        text = words.take(per_string)
        limit = node.get("maxLength")
        return text[:limit] if isinstance(limit, int) else text
    if kind in ("number", "integer"):
        return _number(node, kind == "integer", position)
    if kind == "boolean":
        return True
    return None


def _pieces(value: Any, out: list[tuple[str, bool]]) -> None:
    """``value`` as compact JSON, in pieces; each string's content is a piece of its own."""
    if isinstance(value, dict):
        out.append(("{", False))
        for index, (key, item) in enumerate(value.items()):
            out.append(((", " if index else "") + json.dumps(key) + ": ", False))
            _pieces(item, out)
        out.append(("}", False))
    elif isinstance(value, list):
        out.append(("[", False))
        for index, item in enumerate(value):
            if index:
                out.append((", ", False))
            _pieces(item, out)
        out.append(("]", False))
    elif isinstance(value, str):
        out.append(('"', False))
        out.append((json.dumps(value)[1:-1], True))
        out.append(('"', False))
    else:
        out.append((json.dumps(value), False))


def typical_reply(
    schema: dict[str, Any] | None,
    prompt: str,
    top_logprobs: int | None = None,
    *,
    words: int | None = None,
) -> TypicalReply:
    """A typical reply to a request with ``schema`` (``None``: free text) and ``prompt``.

    Args:
        schema: the request's JSON schema, or ``None`` for free text.
        prompt: the request's user prompt (the words of free strings come from it).
        top_logprobs: whether (and how many) log-probabilities the request asks for.
        words: words per free string (default :data:`TYPICAL_WORDS`; free text
            :data:`TYPICAL_REASON_WORDS`): fewer make a reply fit a small reply budget.

    Example:
        >>> schema = {"type": "object", "properties": {
        ...     "verdicts": {"type": "array", "items": {"type": "object", "properties": {
        ...         "verdict": {"enum": ["yes", "no"]}}}}}}
        >>> typical_reply(schema, "Is it?").text
        '{"verdicts": [{"verdict": "yes"}, {"verdict": "yes"}, {"verdict": "yes"}]}'
    """
    source = _Words(prompt)
    if schema is None:
        text = source.take(words or TYPICAL_REASON_WORDS)
        pieces = [(text, True)]
    else:
        pieces = []
        _pieces(_value(schema, schema, source, per_string=words or TYPICAL_WORDS), pieces)
        text = "".join(piece for piece, _ in pieces)
    if top_logprobs is None:
        return TypicalReply(text, None)
    tokens = tuple(
        TokenLogprob(piece, 0.0, top=(TokenLogprob(piece, 0.0),)) for piece, _ in pieces if piece
    )
    return TypicalReply(text, tokens)
