"""``scoring="expected"``: scores from the judge's label distribution instead of its label.

With ``scoring="label"`` (the default, Mastra's) a label-based step scores the label the
judge generated: a context piece rated ``high`` weighs 1.0, a ``yes`` verdict counts 1. With
``scoring="expected"`` the judge is also asked for its token log-probabilities
(``top_logprobs`` = :data:`EXPECTED_TOP_LOGPROBS`), the distribution over the allowed labels
at each label is read from them (:mod:`scorekit.judge.logprobs`, which says how), and each
item weighs its expectation::

    expected_weight(item) = Σ_label p(label) × weight(label)

(Context Relevance: ``p(high) × 1.0 + p(medium) × 0.7 + p(low) × 0.3``; a yes/no verdict whose
``yes`` weighs 1: ``p(yes)``). The scorer's formula is Mastra's with each item's weight
replaced by its expectation; everything else (penalties, counts, rounding) is unchanged.

Each item of the step result records what was read, as extra keys beside the judge's fields
(extra keys are kept in results and never read from a judge: :mod:`scorekit.scorers.replies`;
these are ours and overwrite any the judge wrote):

* ``label_probabilities``: ``{label: p}`` over the allowed labels, summing to 1;
* ``label_mass``: the probability the model put on the allowed labels before renormalising;
* ``expected_weight``: ``Σ p(label) × weight(label)``.

Nothing falls back silently to the argmax label: a judge whose provider returns no
log-probabilities (Anthropic, refused before the call; a server that ignores ``logprobs``),
or a reply whose labels cannot be found among its tokens, makes the run an ``error`` naming
why, with the raw reply kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, get_args

from pydantic import BaseModel

from scorekit.errors import ConfigError, JudgeOutputError
from scorekit.judge.logprobs import LogprobError, label_distributions
from scorekit.judge.model import TokenLogprob
from scorekit.judge.structured import SchemaSpec
from scorekit.rounding import round_to_two_decimals

__all__ = [
    "EXPECTED_TOP_LOGPROBS",
    "AnyLabelReader",
    "LabelReader",
    "Scoring",
    "allowed_labels",
    "check_scoring",
    "expected_share",
    "expected_weights",
    "reading",
]

Scoring = Literal["label", "expected"]
"""How a label-based step scores: the generated label (Mastra's), or its expectation."""

EXPECTED_TOP_LOGPROBS = 20
"""Alternatives per token asked for with ``scoring="expected"``: the most OpenAI allows. A
grammar-constrained decoder (llama.cpp) reports the model's distribution before the grammar,
whose top alternatives are often tokens no label starts with, so fewer would often leave only
the generated label."""


def check_scoring(value: Any) -> Scoring:
    """Validate a factory's ``scoring`` option.

    Raises:
        ConfigError: ``field="scoring"``; it is not ``"label"`` or ``"expected"``.
    """
    if value not in get_args(Scoring):
        raise ConfigError(f"scoring must be 'label' or 'expected', got {value!r}", field="scoring")
    result: Scoring = value
    return result


def allowed_labels(reply: type[BaseModel], items: str, field: str) -> tuple[str, ...]:
    """The closed label set of ``field`` in the items of the list ``items`` of ``reply``.

    Raises:
        TypeError: the field is not a ``Literal`` of strings (a programming error).
    """
    item = get_args(reply.model_fields[items].annotation)[0]
    labels = get_args(item.model_fields[field].annotation)
    if not labels or not all(isinstance(label, str) for label in labels):
        raise TypeError(f"{item.__name__}.{field} is not a closed set of string labels")
    return tuple(labels)


@dataclass(frozen=True)
class LabelReader:
    """Reads the label distribution of each item of a reply's list into the item.

    A :class:`~scorekit.judge.logprobs.LogprobReader`: give it to a step's schema with
    :func:`reading`.

    Attributes:
        items: the reply's list field (``"evaluations"``).
        field: each item's label field (``"relevance_level"``).
        weights: each label's weight in the score, in ``[0, 1]``; a label not listed weighs 0.
        labels: the allowed labels.
        top_logprobs: alternatives per token to ask for.
    """

    items: str
    field: str
    weights: Mapping[str, float]
    labels: tuple[str, ...]
    top_logprobs: int = EXPECTED_TOP_LOGPROBS

    @classmethod
    def of(
        cls, reply: type[BaseModel], items: str, field: str, weights: Mapping[Any, float]
    ) -> LabelReader:
        """The reader of ``reply``'s list ``items``, its labels read from the model."""
        plain = {str(label): float(weight) for label, weight in weights.items()}
        return cls(items, field, plain, allowed_labels(reply, items, field))

    def read(self, value: Any, text: str, tokens: tuple[TokenLogprob, ...] | None) -> Any:
        """Record each item's label distribution and expected weight (module docstring).

        Returns:
            ``value``, its items carrying ``label_probabilities``, ``label_mass`` and
            ``expected_weight``.

        Raises:
            JudgeOutputError: no log-probabilities came with the reply, or they do not give
                one label distribution per item matching the item's label; ``raw_output``
                holds the reply.
        """
        in_reply_order = getattr(value, "items_in_reply_order", None)
        entries = in_reply_order() if callable(in_reply_order) else getattr(value, self.items)
        if not entries:
            return value
        if tokens is None:
            raise self._error(
                "scoring='expected' needs the judge's token log-probabilities, and none came "
                "with its reply (OpenAI, vLLM and llama.cpp servers send them when asked; "
                "this provider or server did not)",
                text,
            )
        try:
            found = label_distributions(
                text, tokens, items=self.items, field=self.field, labels=self.labels
            )
        except LogprobError as exc:
            raise self._error(f"scoring='expected': {exc}", text) from None
        generated = [getattr(entry, self.field) for entry in entries]
        if [d.label for d in found] != generated:
            raise self._error(
                f"scoring='expected': the labels found among the reply's tokens "
                f"{[d.label for d in found]} are not the reply's {generated}",
                text,
            )
        for entry, distribution in zip(entries, found, strict=True):
            entry.label_probabilities = dict(distribution.probabilities)
            entry.label_mass = distribution.mass
            entry.expected_weight = distribution.expected(self.weights)
        return value

    def _error(self, message: str, text: str) -> JudgeOutputError:
        return JudgeOutputError(message, raw_output=text)


@dataclass(frozen=True)
class AnyLabelReader:
    """Reads the first of ``readers`` whose label field the reply writes (as a JSON key).

    A step that asks for one label field but also accepts a reply in Mastra's shape (another
    field, other weights: Hallucination's ``supported`` or ``verdict``, divergences.md row
    107) reads the distribution where the reply has it; a reply with neither is read by the
    first reader, which says what it did not find.
    """

    readers: tuple[LabelReader, ...]

    @property
    def top_logprobs(self) -> int:
        """Alternatives per token to ask for (the first reader's)."""
        return self.readers[0].top_logprobs

    def read(self, value: Any, text: str, tokens: tuple[TokenLogprob, ...] | None) -> Any:
        """:meth:`LabelReader.read` by the first reader whose field is in ``text``."""
        found = next((r for r in self.readers if f'"{r.field}"' in text), self.readers[0])
        return found.read(value, text, tokens)


def reading(spec: SchemaSpec, reader: LabelReader | AnyLabelReader | None) -> SchemaSpec:
    """``spec`` with ``reader`` (``None``: ``spec`` as it is, ``scoring="label"``)."""
    return spec if reader is None else replace(spec, reader=reader)


def expected_weights(reply: Any, items: str) -> list[float]:
    """The ``expected_weight`` of each item of ``reply``'s list ``items``.

    Raises:
        ValueError: an item has none (its step did not read log-probabilities).
    """
    weights = []
    for entry in getattr(reply, items):
        weight = getattr(entry, "expected_weight", None)
        if not isinstance(weight, float):
            raise ValueError(f"an item of {items} has no expected_weight to score")
        weights.append(weight)
    return weights


def expected_share(
    weights: Sequence[float], *, scale: float = 1.0, denominator: int | None = None
) -> float:
    """``round2(Σ expected_weight / #items × scale)``: the verdict share with expectations.

    :func:`scorekit.scorers.verdicts.share_score` with each label's weight replaced by the
    item's expected weight; ``denominator`` caps the share at 1 as there (Context Recall).

    Example:
        >>> expected_share([0.9, 0.25])
        0.58
        >>> expected_share([0.9, 0.8], denominator=1)
        1.0
    """
    count = len(weights) if denominator is None else denominator
    if count == 0:
        return 0.0
    share = sum(weights) / count
    return round_to_two_decimals((share if denominator is None else min(1.0, share)) * scale)
