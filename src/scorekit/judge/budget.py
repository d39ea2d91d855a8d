"""Reply budgets from output schemas, and what a reply cut off at its budget means.

A structured reply cannot be longer than its JSON schema allows once every string has a
``maxLength``, every array a ``maxItems`` and every object a closed set of properties. This
module turns that bound into the request's reply budget (``max_tokens``), so a judge that runs
away (repeats itself until the token limit) stops at what the schema allows instead of at a
large fixed limit, and it decides what a reply cut off at the budget means.

**The bound** (:func:`schema_bound`) of a reply is counted in two parts over its compact JSON
text, each an upper bound:

* ``text``: characters of string contents, object keys, numbers and ``true``/``false``/``null``;
  a string counts its ``maxLength`` (escapes counted as one character), an integer the digits
  of its ``minimum``/``maximum`` (:data:`INTEGER_CHARS` without both), any other number
  :data:`NUMBER_CHARS`;
* ``marks``: JSON punctuation (quotes, braces, brackets, colons, commas): an object ``2 +
  Σ (2 + 1)`` per property plus commas, an array ``2`` plus ``maxItems - 1`` commas, a string 2.

Every property of an object is counted as present (required or not); an object without
``additionalProperties`` counts as closed, as llama.cpp's schema grammar treats it. ``enum``
and ``const`` count their longest value, ``anyOf``/``oneOf`` and a list of types their largest
branch, ``allOf`` its smallest. A string without ``maxLength``, an array without ``maxItems``,
an open object (``additionalProperties`` true or a schema), a ``$ref`` cycle or a schema that
allows anything leaves the reply **unbounded** (``None``). A :class:`SchemaSpec` may also carry
``reply_chars``, a bound the schema cannot state (claims restate their text: their JSON is at
most a few times its length); the smaller of the two holds.

**The budget** (:func:`tokens_for`) of a bound is::

    tokens = ceil(MARGIN × (text / CHARS_PER_TOKEN + marks)) + PAD

with :data:`CHARS_PER_TOKEN` = 3 (English text runs ~4 characters per token in the BPE
vocabularies of current judges), one token per punctuation mark (they often merge, and the
surplus pays for the whitespace constrained decoders may put between them), :data:`MARGIN` =
1.25 and :data:`PAD` = 32 tokens (what a reply may hold besides its JSON: a code fence, the
framing of a forced tool call, a chat template's end-of-turn token). A request whose
schema is bounded is sent with this budget, or with the judge's ``max_tokens`` when that is
smaller; an unbounded one with the judge's ``max_tokens`` (``None``: the provider's default).

**A reply cut off at its budget** (``finish_reason == "length"``, :func:`retry_budget`):

* when the reply already holds at least the bound's characters, the budget covered everything
  the schema allows and the judge kept going: a **degenerate** (repeating) reply. It fails at
  once with :class:`~scorekit.errors.JudgeOutputError`. It is *not* retried: at temperature 0
  the same prompt regenerates the same tokens (the first reply of such a retry is an exact
  prefix of the second), so a larger budget only buys a longer copy, and a retry at another
  seed or temperature would make the judgement depend on which call failed and defeat the
  cache, for a reply a schema-abiding judge never needs;
* when it holds fewer characters, the budget did not cover the bound: the judge's tokens hold
  fewer characters than assumed (a script written with a token per character or two, such as
  Japanese) or the judge's ``max_tokens`` was smaller than the bound. It gets **one** retry
  with the bound's budget, measured at the cut-off reply's own characters per token
  (``ceil(MARGIN × chars × tokens_spent / reply_chars) + PAD``) when that is larger; a reply
  cut off again fails;
* an unbounded reply (or free text) cut off at its budget fails at once: nothing says how much
  more would be enough, and repeating at the same temperature repeats the same tokens. Raise
  the judge's ``max_tokens`` or bound the schema.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scorekit.judge.structured import SchemaSpec

__all__ = [
    "CHARS_PER_TOKEN",
    "INTEGER_CHARS",
    "MARGIN",
    "NUMBER_CHARS",
    "PAD",
    "ReplyBound",
    "first_budget",
    "retry_budget",
    "schema_bound",
    "spec_bound",
    "tokens_for",
]

CHARS_PER_TOKEN = 3
"""Characters of JSON text (string contents, keys, numbers) assumed per token."""
MARGIN = 1.25
"""The budget's margin over the bound's token estimate."""
PAD = 32
"""Tokens added to every budget: a code fence, a tool call's framing, an end-of-turn token."""
INTEGER_CHARS = 20
"""Characters of an integer without both a ``minimum`` and a ``maximum`` (a 64-bit value and
its sign)."""
NUMBER_CHARS = 24
"""Characters of a non-integer number (the longest shortest-repr of a double, sign and
exponent included)."""


@dataclass(frozen=True)
class ReplyBound:
    """The most a reply satisfying a schema can hold, in characters of compact JSON.

    Attributes:
        text: characters of string contents, keys, numbers and literals (``>= 0``).
        marks: JSON punctuation characters (``>= 0``).
    """

    text: int
    marks: int

    @property
    def chars(self) -> int:
        """The whole compact JSON text's characters: ``text + marks``."""
        return self.text + self.marks

    @property
    def tokens(self) -> int:
        """The reply budget covering this bound (:func:`tokens_for`)."""
        return tokens_for(self)


def tokens_for(bound: ReplyBound) -> int:
    """The reply budget in tokens covering ``bound``.

    Formula (module docstring): ``ceil(MARGIN × (text / CHARS_PER_TOKEN + marks)) + PAD``.

    Example:
        >>> tokens_for(ReplyBound(text=11, marks=7))  # {"label": "medium"}
        46
    """
    return math.ceil(MARGIN * (bound.text / CHARS_PER_TOKEN + bound.marks)) + PAD


def schema_bound(schema: Mapping[str, Any]) -> ReplyBound | None:
    """The bound of a reply satisfying the JSON schema ``schema``, or ``None`` when unbounded.

    Args:
        schema: a JSON schema (``$ref`` into its own ``$defs`` / ``definitions`` resolved).

    Returns:
        The bound (see the module docstring for what counts), or ``None``.

    Example:
        >>> schema_bound({"type": "string", "maxLength": 10})
        ReplyBound(text=10, marks=2)
        >>> schema_bound({"type": "array", "items": {"type": "string"}}) is None
        True
    """
    defs: dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        found = schema.get(key)
        if isinstance(found, Mapping):
            defs.update({f"#/{key}/{name}": value for name, value in found.items()})
    return _bound(schema, defs, ())


def spec_bound(spec: SchemaSpec) -> ReplyBound | None:
    """The bound of a reply to ``spec``: its schema's, capped by its ``reply_chars``.

    A schema bound larger than ``reply_chars`` is scaled down to it, keeping its split of text
    and punctuation; an unbounded schema is bounded by ``reply_chars`` alone, counted as text.

    Example:
        >>> from scorekit.judge.structured import SchemaSpec
        >>> words = {"type": "array", "maxItems": 100, "items": {"type": "string", "maxLength": 8}}
        >>> spec_bound(SchemaSpec("Words", words, None, reply_chars=110))
        ReplyBound(text=79, marks=31)
    """
    bound = _schema_bound_cached(spec.json_schema)
    cap = spec.reply_chars
    if cap is None or (bound is not None and bound.chars <= cap):
        return bound
    marks = 0 if bound is None else math.ceil(bound.marks * cap / bound.chars)
    return ReplyBound(text=cap - marks, marks=marks)


_BOUNDS: dict[int, tuple[Mapping[str, Any], ReplyBound | None]] = {}
"""Bounds of schemas seen, by the schema object's id (the object kept, so the id stays its)."""
_BOUNDS_KEPT = 1024


def _schema_bound_cached(schema: Mapping[str, Any]) -> ReplyBound | None:
    # prompt steps ask with the same (cached) spec objects call after call: their schemas are
    # not edited once made, so a bound is computed once per schema object (~10-50 µs saved)
    found = _BOUNDS.get(id(schema))
    if found is not None and found[0] is schema:
        return found[1]
    bound = schema_bound(schema)
    if len(_BOUNDS) >= _BOUNDS_KEPT:
        _BOUNDS.clear()
    _BOUNDS[id(schema)] = (schema, bound)
    return bound


def first_budget(bound: ReplyBound | None, configured: int | None) -> int | None:
    """The ``max_tokens`` of a request's first call.

    Args:
        bound: the reply's bound, or ``None`` (unbounded schema, free text).
        configured: the judge's ``max_tokens`` option, or ``None``.

    Returns:
        ``bound.tokens`` (or ``configured`` when smaller), or ``configured`` without a bound.
    """
    if bound is None:
        return configured
    return bound.tokens if configured is None else min(configured, bound.tokens)


def retry_budget(
    bound: ReplyBound | None, sent: int | None, reply_chars: int, reply_tokens: int
) -> int | None:
    """The budget of the one retry a reply cut off at ``sent`` tokens gets, or ``None``.

    ``None`` means no retry: the reply is unbounded (or free text), or it already holds the
    bound's characters (a degenerate reply, see the module docstring).

    Args:
        bound: the reply's bound, or ``None``.
        sent: the ``max_tokens`` the cut-off call was sent with (``None``: the provider's).
        reply_chars: characters of the cut-off reply's text, ``>= 0``.
        reply_tokens: completion tokens the provider billed for it (``0`` when it did not
            say: ``sent`` is then taken).

    Returns:
        A budget larger than ``sent``, or ``None``.

    Example:
        >>> bound = ReplyBound(text=300, marks=12)  # 312 characters, a 172-token budget
        >>> retry_budget(bound, 172, reply_chars=600, reply_tokens=172) is None  # degenerate
        True
        >>> retry_budget(bound, 172, reply_chars=200, reply_tokens=172)  # dense tokens
        368
    """
    if bound is None or reply_chars >= bound.chars:
        return None
    needed = bound.tokens
    spent = reply_tokens or sent or 0
    if spent > 0 and reply_chars > 0:
        measured = math.ceil(MARGIN * bound.chars * spent / reply_chars) + PAD
        needed = max(needed, measured)
    if sent is not None and needed <= sent:
        return None
    return needed


def _bound(schema: Any, defs: Mapping[str, Any], seen: tuple[str, ...]) -> ReplyBound | None:
    """The bound of one (sub)schema; ``seen`` holds the ``$ref`` chain, to stop at cycles."""
    if schema is True or not isinstance(schema, Mapping):
        return None  # ``true`` / ``{}``-like: anything
    ref = schema.get("$ref")
    if isinstance(ref, str):
        if ref in seen or ref not in defs:
            return None
        target = _bound(defs[ref], defs, (*seen, ref))
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return _smallest(target, _bound(rest, defs, seen)) if _constrains(rest) else target
    if "const" in schema:
        return _value_bound(schema["const"])
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return _largest([_value_bound(value) for value in schema["enum"]])
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            return _largest([_bound(branch, defs, seen) for branch in branches])
    parts = schema.get("allOf")
    if isinstance(parts, list) and parts:
        found: ReplyBound | None = None
        for part in parts:
            found = _smallest(found, _bound(part, defs, seen))
        return found
    kind = schema.get("type")
    if isinstance(kind, list):
        if not kind:
            return None
        return _largest([_bound({**schema, "type": one}, defs, seen) for one in kind])
    return _typed_bound(kind, schema, defs, seen)


def _typed_bound(
    kind: Any, schema: Mapping[str, Any], defs: Mapping[str, Any], seen: tuple[str, ...]
) -> ReplyBound | None:
    if kind == "string":
        longest = _count(schema.get("maxLength"))
        return ReplyBound(longest, 2) if longest is not None else None
    if kind == "integer":
        low, high = _number(schema.get("minimum")), _number(schema.get("maximum"))
        if low is not None and high is not None:
            return ReplyBound(max(len(str(int(low))), len(str(int(high)))), 0)
        return ReplyBound(INTEGER_CHARS, 0)
    if kind == "number":
        return ReplyBound(NUMBER_CHARS, 0)
    if kind == "boolean":
        return ReplyBound(5, 0)
    if kind == "null":
        return ReplyBound(4, 0)
    if kind == "array":
        return _array_bound(schema, defs, seen)
    if kind == "object" or "properties" in schema:
        return _object_bound(schema, defs, seen)
    return None


def _array_bound(
    schema: Mapping[str, Any], defs: Mapping[str, Any], seen: tuple[str, ...]
) -> ReplyBound | None:
    most = _count(schema.get("maxItems"))
    if most is None:
        return None
    if most == 0:
        return ReplyBound(0, 2)
    item = _bound(schema.get("items", True), defs, seen)
    if item is None:
        return None
    return ReplyBound(most * item.text, 2 + (most - 1) + most * item.marks)


def _object_bound(
    schema: Mapping[str, Any], defs: Mapping[str, Any], seen: tuple[str, ...]
) -> ReplyBound | None:
    extra = schema.get("additionalProperties", False)
    if extra is not False or schema.get("patternProperties"):
        return None
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        return None
    text, marks = 0, 2 + max(0, len(properties) - 1)
    for name, value in properties.items():
        found = _bound(value, defs, seen)
        if found is None:
            return None
        text += len(str(name)) + found.text
        marks += 3 + found.marks  # the key's quotes and its colon
    return ReplyBound(text, marks)


def _value_bound(value: Any) -> ReplyBound | None:
    """The bound of one JSON value given in a schema (``enum`` / ``const``)."""
    if isinstance(value, str):
        return ReplyBound(len(value), 2)
    if value is None:
        return ReplyBound(4, 0)
    if isinstance(value, bool):
        return ReplyBound(5, 0)
    if isinstance(value, (int, float)):
        return ReplyBound(len(repr(value)), 0)
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return ReplyBound(len(text), 0)


def _largest(bounds: list[ReplyBound | None]) -> ReplyBound | None:
    if not bounds or any(b is None for b in bounds):
        return None
    return ReplyBound(max(b.text for b in bounds if b), max(b.marks for b in bounds if b))


def _smallest(a: ReplyBound | None, b: ReplyBound | None) -> ReplyBound | None:
    if a is None:
        return b
    if b is None:
        return a
    return ReplyBound(min(a.text, b.text), min(a.marks, b.marks))


def _constrains(schema: Mapping[str, Any]) -> bool:
    """Whether a schema beside a ``$ref`` says anything about size (not just a description)."""
    sizing = {"type", "enum", "const", "maxLength", "maxItems", "properties", "anyOf", "oneOf"}
    return any(key in schema for key in sizing)


def _count(value: Any) -> int | None:
    """``value`` when it is a count (an int ``>= 0``), else ``None``."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def _number(value: Any) -> float | None:
    """``value`` when it is a finite number, else ``None``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None
