"""What the prebuilt LLM scorers' judge replies share: field aliases and label handling.

Every reply schema of :mod:`scorekit.scorers` derives from :class:`JudgeReply`:

* fields are snake_case, and each also accepts its camelCase spelling (``wasUsed`` for
  ``was_used``), because Mastra's prompts ask for camelCase keys and replies recorded from Mastra
  (the conformance corpus) use them; results always hold the snake_case names (divergences.md
  row 10);
* the schema sent to the judge is closed (``additionalProperties: false``, as strict
  structured output needs), but a reply that has every field and adds keys of its own
  (``"confidence": 0.9``) is accepted as Mastra accepts it: the extra keys are kept in the step
  result, snake_cased, and never read for the score (a repair request for them would cost
  tokens and measure nothing);
* verdict labels are trimmed and lower-cased before they are checked against their closed set
  (divergences.md row 6): ``" YES "`` is stored as ``"yes"``; ``"maybe"`` is refused;
* a reply with one item per thing the judge was shown (context piece, claim, statement) derives
  from :class:`CountedReply`, whose :meth:`~CountedReply.expecting` asks for exactly that many
  items (JSON schema ``minItems`` / ``maxItems``) and refuses any other count
  (divergences.md rows 18 and 26); a list taken out of a text (claims, statements) is bounded
  by the text's length (:meth:`~CountedReply.at_most`, :func:`item_limit`), so a model that
  repeats itself under constrained decoding stops instead of running to its token limit.
"""

from __future__ import annotations

import functools
import inspect
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AliasChoices,
    AliasGenerator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    ValidationInfo,
    model_validator,
)
from pydantic.alias_generators import to_camel, to_snake

from scorekit.judge.structured import SchemaSpec

__all__ = [
    "CHARACTERS_PER_ITEM",
    "EXPECTED_ITEMS",
    "LANGUAGE_RULE",
    "MAX_ITEMS",
    "Claims",
    "CountedReply",
    "JudgeReply",
    "YesNo",
    "YesNoUnsure",
    "item_limit",
    "normalise_label",
]

EXPECTED_ITEMS = "expected_items"
"""The validation-context key holding the number of items a :class:`CountedReply` must have."""
MAX_ITEMS = "max_items"
"""The validation-context key holding the most items a :class:`CountedReply` may have."""
CHARACTERS_PER_ITEM = 3
"""A claim or statement takes at least this many characters of the text it comes from."""


LANGUAGE_RULE = (
    "Write every reason and explanation in the language the user's query is written in (a "
    "Japanese query gets Japanese reasons); keep JSON keys and verdict labels in English."
)
"""The prompts' rule for the language of free-text fields."""


def _both_spellings(name: str) -> AliasChoices:
    return AliasChoices(name, to_camel(name))


def normalise_label(value: Any) -> Any:
    """Trim and lower-case a string label; leave anything else for validation to refuse."""
    return value.strip().lower() if isinstance(value, str) else value


def _as_the_judge_sees_it(schema: dict[str, Any], model: type[Any]) -> None:
    """Make a reply model's JSON schema what the judge is sent.

    The schema is closed, without titles, and without the developer docstrings pydantic copies
    into ``description``. A description for the judge is given on purpose:
    ``Field(description=...)`` on a field, or ``JUDGE_NOTE`` on the model class (a short
    sentence written for the judge).
    """
    schema["additionalProperties"] = False
    schema.pop("title", None)
    docstring = inspect.cleandoc(model.__doc__ or "")
    if schema.get("description") == docstring:
        del schema["description"]
    note = model.__dict__.get("JUDGE_NOTE")
    if isinstance(note, str) and note:
        schema["description"] = note
    for field in schema.get("properties", {}).values():
        if isinstance(field, dict) and isinstance(field.get("title"), str):
            del field["title"]


class JudgeReply(BaseModel):
    """Base class of judge reply schemas.

    Keys may be snake_case or camelCase; the schema is closed, and a reply's extra keys are
    kept (snake_cased) but never read.
    """

    model_config = ConfigDict(
        extra="allow",
        alias_generator=AliasGenerator(validation_alias=_both_spellings),
        populate_by_name=True,
        json_schema_extra=_as_the_judge_sees_it,
    )

    @model_validator(mode="after")
    def _snake_case_extra_keys(self) -> JudgeReply:
        extra = self.__pydantic_extra__
        if extra and any(to_snake(key) != key for key in extra):
            renamed = {to_snake(key): value for key, value in extra.items()}
            extra.clear()
            extra.update(renamed)
        return self


YesNo = Annotated[Literal["yes", "no"], BeforeValidator(normalise_label)]
"""A binary verdict, normalised (``" Yes "`` → ``"yes"``)."""

YesNoUnsure = Annotated[Literal["yes", "no", "unsure"], BeforeValidator(normalise_label)]
"""A three-way verdict, normalised."""


class CountedReply(JudgeReply):
    """A reply whose list holds one item per thing the judge was shown, or a bounded list.

    Subclasses name the counted list field in ``ITEMS`` and what one item answers in
    ``ITEM_OF`` (``"claim"``). ``Model.expecting(n)`` is the prompt step's schema for a run
    with ``n`` things: its JSON schema bounds the list to exactly ``n`` items, so a judge with
    schema-constrained decoding (the local llama.cpp judge, strict structured output) produces
    exactly ``n``, and validation refuses any other count, so a reply that skips or repeats
    items is sent back for repair with the expected count. ``Model.at_most(n)`` bounds the list
    from above only. Without either (a model validated directly) the count is not checked.

    Where Mastra gives an empty list a score (context precision and relevance),
    ``EMPTY_ALLOWED`` makes ``expecting``'s schema and check accept no items as well.
    """

    ITEMS: ClassVar[str]
    """The counted list field."""
    ITEM_OF: ClassVar[str]
    """What one item answers, for messages (``"claim"``, ``"context piece"``)."""
    EMPTY_ALLOWED: ClassVar[bool] = False
    """Whether an empty list is a valid reply to ``expecting`` too."""

    @classmethod
    def expecting(cls, count: int) -> SchemaSpec:
        """The schema asking for exactly ``count`` items (``count >= 1``); cached per count.

        Raises:
            ValueError: ``count`` is below 1.
        """
        if count < 1:
            raise ValueError(f"a counted reply needs at least one item to ask for, not {count}")
        return _counted_spec(cls, count, exact=True)

    @classmethod
    def at_most(cls, limit: int) -> SchemaSpec:
        """The schema allowing at most ``limit`` items (``limit >= 1``); cached per limit.

        Raises:
            ValueError: ``limit`` is below 1.
        """
        if limit < 1:
            raise ValueError(f"a bounded reply needs a limit of at least 1, not {limit}")
        return _counted_spec(cls, limit, exact=False)

    def check_count(self, expected: int) -> None:
        """Raise ``ValueError`` unless the list holds ``expected`` items (or none, if allowed).

        Subclasses may check more (each context index once); the message is shown to the judge
        in the repair request, so it states what is expected.
        """
        got = len(getattr(self, self.ITEMS))
        if got == expected or (got == 0 and self.EMPTY_ALLOWED):
            return
        raise ValueError(
            f"expected exactly {expected} {self.ITEMS}, one per {self.ITEM_OF} in the order "
            f"given; got {got}"
        )

    @model_validator(mode="after")
    def _check_expected_count(self, info: ValidationInfo) -> CountedReply:
        context = info.context or {}
        expected = context.get(EXPECTED_ITEMS)
        if expected is not None:
            self.check_count(expected)
        limit = context.get(MAX_ITEMS)
        got = len(getattr(self, self.ITEMS))
        if limit is not None and got > limit:
            raise ValueError(f"expected at most {limit} {self.ITEMS} for this text; got {got}")
        return self


@functools.lru_cache(maxsize=1024)
def _counted_spec(model: type[CountedReply], count: int, *, exact: bool) -> SchemaSpec:
    schema = model.model_json_schema()  # a fresh dict each time; edited below
    prop = schema["properties"][model.ITEMS]
    if not exact:
        schema["properties"][model.ITEMS] = {**prop, "maxItems": count}
        return SchemaSpec(model.__name__, schema, model, {MAX_ITEMS: count}).check()
    bounded = {**prop, "minItems": count, "maxItems": count}
    if model.EMPTY_ALLOWED:
        bounded = {"anyOf": [{**prop, "maxItems": 0}, bounded]}
    schema["properties"][model.ITEMS] = bounded
    return SchemaSpec(model.__name__, schema, model, {EXPECTED_ITEMS: count}).check()


def item_limit(text: str) -> int:
    """The most claims or statements a text can hold: one per :data:`CHARACTERS_PER_ITEM`.

    A generous bound that no faithful extraction reaches (a claim needs words of its own),
    counted in characters so that it holds for scripts written without spaces too.

    Example:
        >>> item_limit("Paris is the capital of France.")
        11
    """
    return max(1, -(-len(text.strip()) // CHARACTERS_PER_ITEM))


class Claims(CountedReply):
    """The claims the judge extracted from a text (``at_most(item_limit(text))``)."""

    ITEMS: ClassVar[str] = "claims"
    ITEM_OF: ClassVar[str] = "claim"

    claims: list[str]
    """The atomic claims, in the order they appear."""
