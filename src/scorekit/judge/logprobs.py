"""Label distributions from token log-probabilities: where a label sits, how likely each was.

A judge asked for a closed label (``"relevance_level": "high"``) generates one of a few
strings; the log-probabilities of the tokens it generated there, and of the top alternatives
at each position (OpenAI-compatible ``logprobs: true, top_logprobs: k``), say how likely each
other label was. This module turns them into a distribution over the allowed labels.

1. :func:`string_values` walks the reply's JSON value (from its first ``{`` or ``[``) and
   gives every string value with its path (``("evaluations", 0, "relevance_level")``) and the
   offset where its content starts (just after the opening quote).
2. The generated tokens are laid end to end (their UTF-8 bytes), which places each token at a
   byte offset of the reply.
3. :func:`label_distribution` starts at the token holding the label's first byte and walks
   the labels as a trie along the generated tokens. At each token every alternative
   (the generated token included, with its own log-probability, whether or not it is among
   the top ones) is compared with the allowed labels, each followed by its closing quote
   (so ``no`` and ``none`` differ): an alternative that fits exactly one label adds
   ``exp(logprob of the path so far + its logprob)`` to that label; the generated token, when it
   still fits several labels (a shared prefix, ``no`` of ``no``/``none``), extends the path to
   the next token, where they part. So a label is scored at the first token that tells it
   apart from the generated one (the chain rule along the generated path).
4. The masses are renormalised over the allowed labels: ``p(label) = mass(label) / Σ mass``.

What is left out, on purpose, and so renormalised away: alternatives that fit no label
(a grammar-constrained decoder, llama.cpp's, reports the model's distribution *before* the
grammar, so tokens the grammar forbids are among the top ones), alternatives that fit several
labels off the generated path (their mass cannot be split), alternatives whose text before the
label differs from the generated one (``"high`` where `` "`` was generated), and labels not
among the top ``k`` at all, which get probability 0 (a larger ``k`` gives a finer
distribution). The generated label always has mass (its own tokens' log-probabilities), so a
distribution always exists once the label is found; ``mass`` records how much probability
the model put on the allowed labels before renormalising. Nothing is guessed: a reply whose
tokens do not spell it, or a label that cannot be found among the tokens, raises
:class:`LogprobError`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from scorekit.errors import ScorekitError
from scorekit.judge.model import TokenLogprob

__all__ = [
    "LabelDistribution",
    "LogprobError",
    "LogprobReader",
    "StringValue",
    "label_distribution",
    "label_distributions",
    "string_values",
]

Path = tuple[str | int, ...]
"""Where a value sits in a JSON document: keys and list indices from the root."""

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
_SPACE = re.compile(r"\s*")


class LogprobError(ScorekitError, ValueError):
    """The log-probabilities do not give a label distribution (the message says why)."""


class LogprobReader(Protocol):
    """Reads a structured reply's token log-probabilities into its validated value.

    A :class:`~scorekit.judge.structured.SchemaSpec` with a reader makes
    :meth:`~scorekit.judge.judge.Judge.generate_object` ask for ``top_logprobs`` alternatives
    per token and hand the final reply to :meth:`read`.
    """

    @property
    def top_logprobs(self) -> int:
        """How many alternatives per token to ask for (``1``-``20``)."""
        ...

    def read(self, value: Any, text: str, tokens: tuple[TokenLogprob, ...] | None) -> Any:
        """Return the value with what the log-probabilities say; raise to fail the call.

        Args:
            value: the validated reply.
            text: the reply text it was read from.
            tokens: the reply's tokens with their log-probabilities, or ``None`` when the
                provider sent none.
        """
        ...


@dataclass(frozen=True)
class StringValue:
    """A string value of a JSON document.

    Attributes:
        path: its keys and indices from the root.
        value: the decoded string.
        start: the character offset of its content (just after the opening quote).
    """

    path: Path
    value: str
    start: int


class _Scanner:
    """A JSON reader that records each string value's path and offset (recursive descent)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.found: list[StringValue] = []

    def _space(self, at: int) -> int:
        match = _SPACE.match(self.text, at)
        assert match is not None  # \s* always matches
        return match.end()

    def _string(self, at: int) -> tuple[str, int]:
        match = _STRING.match(self.text, at)
        if match is None:
            raise LogprobError(f"a JSON string was expected at offset {at}")
        return json.loads(match.group()), match.end()

    def _expect(self, at: int, char: str) -> int:
        at = self._space(at)
        if self.text[at : at + 1] != char:
            raise LogprobError(f"{char!r} was expected at offset {at}")
        return at + 1

    def value(self, at: int, path: Path) -> int:
        """Read the value at ``at``; return the offset after it."""
        at = self._space(at)
        head = self.text[at : at + 1]
        if head == '"':
            value, end = self._string(at)
            self.found.append(StringValue(path, value, at + 1))
            return end
        if head in ("{", "["):
            return self._container(at, path, head)
        match = _SCALAR.match(self.text, at)
        if match is None:
            raise LogprobError(f"a JSON value was expected at offset {at}")
        return match.end()

    def _container(self, at: int, path: Path, head: str) -> int:
        close = "}" if head == "{" else "]"
        at = self._space(at + 1)
        if self.text[at : at + 1] == close:
            return at + 1
        index = 0
        while True:
            if head == "{":
                key, at = self._string(self._space(at))
                at = self.value(self._expect(at, ":"), (*path, key))
            else:
                at = self.value(at, (*path, index))
                index += 1
            at = self._space(at)
            sep = self.text[at : at + 1]
            if sep == close:
                return at + 1
            if sep != ",":
                raise LogprobError(f"',' or {close!r} was expected at offset {at}")
            at += 1


def string_values(text: str) -> list[StringValue]:
    """Every string value of the JSON value that starts at the text's first ``{`` or ``[``.

    Args:
        text: a reply holding a JSON object or array (prose before it is skipped).

    Returns:
        The string values in document order (keys are not values).

    Raises:
        LogprobError: the text holds no JSON object or array, or it is malformed.

    Example:
        >>> [(v.path, v.value, v.start) for v in string_values('{"a": [{"b": "x"}]}')]
        [(('a', 0, 'b'), 'x', 14)]
    """
    starts = [at for at in (text.find("{"), text.find("[")) if at >= 0]
    if not starts:
        raise LogprobError("the reply holds no JSON object or array")
    scanner = _Scanner(text)
    scanner.value(min(starts), ())
    return scanner.found


@dataclass(frozen=True)
class LabelDistribution:
    """How likely each allowed label was at one place of a reply.

    Attributes:
        label: the label generated there (lower-cased).
        probabilities: each allowed label's probability, in the order given, summing to 1;
            ``0.0`` for a label not among the top alternatives.
        mass: the probability the model put on the allowed labels before renormalising, in
            ``(0, 1]``; small when most of it went to tokens the labels do not start with.
    """

    label: str
    probabilities: Mapping[str, float]
    mass: float

    def expected(self, weights: Mapping[str, float]) -> float:
        """``Σ p(label) × weight(label)``; a label missing from ``weights`` weighs 0."""
        return sum(p * weights.get(label, 0.0) for label, p in self.probabilities.items())


def _fits(rest: bytes, tail: bytes) -> bool:
    """Whether a token's text ``rest`` can continue a label whose remaining text is ``tail``."""
    rest = rest.lower()
    return bool(rest) and (tail.startswith(rest) or rest.startswith(tail))


def label_distribution(
    tokens: Sequence[TokenLogprob], start: int, labels: Sequence[str]
) -> LabelDistribution:
    """The distribution over ``labels`` of the label whose first byte is at ``start``.

    The method (trie walk, renormalisation, what is left out) is in the module docstring.

    Args:
        tokens: the reply's generated tokens, in order.
        start: the byte offset, in the tokens laid end to end, of the label's first byte (just
            after its opening quote).
        labels: the allowed labels (lower case, at least one, none repeated).

    Returns:
        The distribution.

    Raises:
        LogprobError: ``start`` is past the tokens, or the generated text there is none of
            the labels.

    Example:
        >>> from scorekit.judge.model import TokenLogprob as T
        >>> quote = T(' "', 0.0)
        >>> yes = T("yes", math.log(0.6), top=(T("yes", math.log(0.6)), T("no", math.log(0.2))))
        >>> d = label_distribution([quote, yes, T('"', 0.0)], 2, ["yes", "no"])
        >>> {k: round(v, 4) for k, v in d.probabilities.items()}, round(d.mass, 4)
        ({'yes': 0.75, 'no': 0.25}, 0.8)
    """
    tails = {label: label.encode() + b'"' for label in labels}
    ends: list[int] = []
    offset = 0
    for token in tokens:
        offset += len(token.raw)
        ends.append(offset)
    index = next((i for i, end in enumerate(ends) if end > start), None)
    if index is None:
        raise LogprobError(f"no generated token holds byte {start} of the reply")
    prefix = tokens[index].raw[: start - (ends[index] - len(tokens[index].raw))]
    consumed = 0  # label bytes the generated path has covered before the current token
    path = 0.0  # log-probability of the generated path so far
    open_labels = list(labels)
    mass = dict.fromkeys(labels, 0.0)
    generated_text = b""
    while True:
        token = tokens[index]
        own = token.raw[len(prefix) :]
        going = [label for label in open_labels if _fits(own, tails[label][consumed:])]
        if not going:
            seen = (generated_text + own).decode(errors="replace")
            raise LogprobError(f"the generated text {seen!r} is none of the labels {labels!r}")
        for alternative in {alt.raw: alt.logprob for alt in token.top}.items():
            raw, logprob = alternative
            if raw == token.raw or not raw.startswith(prefix):
                continue
            rest = raw[len(prefix) :]
            fitting = [one for one in open_labels if _fits(rest, tails[one][consumed:])]
            if len(fitting) == 1:
                mass[fitting[0]] += math.exp(path + logprob)
        if len(going) == 1:
            mass[going[0]] += math.exp(path + token.logprob)
            break
        path += token.logprob
        consumed += len(own)
        generated_text += own
        open_labels, prefix, index = going, b"", index + 1
        if index == len(tokens):
            raise LogprobError("the reply ends before its label does")
    total = sum(mass.values())
    if total <= 0.0:  # every probability underflowed: the generated label is all there is
        return LabelDistribution(going[0], {one: float(one == going[0]) for one in labels}, 0.0)
    return LabelDistribution(going[0], {one: m / total for one, m in mass.items()}, total)


def _key_matches(key: str | int, name: str) -> bool:
    """Whether a JSON key is ``name`` in snake_case or camelCase (replies accept both)."""
    if not isinstance(key, str):
        return False
    head, *rest = name.split("_")
    return key in (name, head + "".join(part.title() for part in rest))


def label_distributions(
    text: str,
    tokens: Sequence[TokenLogprob],
    *,
    items: str,
    field: str,
    labels: Sequence[str],
) -> list[LabelDistribution]:
    """The label distribution of each item of a reply's list, in list order.

    Args:
        text: the reply text the value was read from.
        tokens: its generated tokens with their log-probabilities.
        items: the top-level list field (``"evaluations"``, ``"verdicts"``).
        field: each item's label field (``"relevance_level"``, ``"verdict"``); its camelCase
            spelling is found too.
        labels: the allowed labels, lower case.

    Returns:
        One distribution per item whose label field holds a string.

    Raises:
        LogprobError: the tokens do not spell the reply, its JSON cannot be read, or a label
            cannot be found among the tokens.
    """
    laid = b"".join(token.raw for token in tokens)
    spelled = laid.decode("utf-8", errors="replace")
    if not text.strip() or text.strip() not in spelled:
        raise LogprobError("the log-probabilities do not spell the reply text")
    found = [
        value
        for value in string_values(spelled)
        if len(value.path) == 3
        and _key_matches(value.path[0], items)
        and isinstance(value.path[1], int)
        and _key_matches(value.path[2], field)
    ]
    return [
        label_distribution(tokens, len(spelled[: value.start].encode()), labels) for value in found
    ]
