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
  items (JSON schema ``minItems`` / ``maxItems``) and refuses any other count, an empty list
  included (divergences.md rows 18, 19 and 26); items that carry an index (``context_index``)
  must cover each index exactly once; a list taken out of a text (claims, statements) is bounded
  by the text's length (:meth:`~CountedReply.at_most`, :func:`item_limit`), so a model that
  repeats itself under constrained decoding stops instead of running to its token limit;
* the judge is never asked to copy back the text it was shown: a field of an item that holds
  that text (``ECHO``: ``context_piece``, ``statement``) is left out of the schema and filled
  from the scorer's own copy, whatever the judge wrote there;
* every reply is bounded, so its reply budget follows from its schema
  (:mod:`scorekit.judge.budget`): a free-text field without a ``maxLength`` of its own gets
  :data:`TEXT_CHARS` and a list without a ``maxItems`` of its own :data:`LIST_ITEMS`, in the
  schema sent to the judge (which constrained decoding enforces: a judge repeating itself inside
  a reason or a claim stops there); validation does not refuse a longer reply from a judge that
  ignores them. A list of units taken out of a text (``at_most``) is also bounded as a whole:
  its JSON holds at most :data:`UNITS_REPLY_FACTOR` times the text's characters
  (:func:`units_reply_chars`).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Sequence
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AliasChoices,
    AliasGenerator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    PrivateAttr,
    ValidationInfo,
    model_validator,
)
from pydantic.alias_generators import to_camel, to_snake

from scorekit.judge.dry_run import DRY_RUN
from scorekit.judge.structured import SchemaSpec
from scorekit.scorers.unit_sources import stray_units

__all__ = [
    "CHARACTERS_PER_ITEM",
    "EXPECTED_ITEMS",
    "LANGUAGE_RULE",
    "LIST_ITEMS",
    "MAX_ITEMS",
    "POSITIONS",
    "SHOWN",
    "SOURCE",
    "TEXT_CHARS",
    "UNITS_REPLY_FACTOR",
    "UNITS_REPLY_SLACK",
    "Claims",
    "CountedReply",
    "JudgeReply",
    "YesNo",
    "YesNoUnsure",
    "item_limit",
    "normalise_label",
    "taken_from",
    "units_reply_chars",
]

EXPECTED_ITEMS = "expected_items"
"""The validation-context key holding the number of items a :class:`CountedReply` must have."""
MAX_ITEMS = "max_items"
"""The validation-context key holding the most items a :class:`CountedReply` may have."""
SHOWN = "shown"
"""The validation-context key holding the texts the judge was shown, in its numbering."""
POSITIONS = "positions"
"""The validation-context key holding, for each index the judge saw, the index to report."""
SOURCE = "source"
"""The validation-context key holding the text that bounded units must come from
(:mod:`scorekit.scorers.unit_sources`)."""
CHARACTERS_PER_ITEM = 3
"""A claim or statement takes at least this many characters of the text it comes from."""
TEXT_CHARS = 500
"""The ``maxLength`` of a reply's free-text field (a reason, a claim) that sets none itself."""
LIST_ITEMS = 10
"""The ``maxItems`` of a reply's list that sets none itself (nor gets one per run)."""
UNITS_REPLY_FACTOR = 4
"""A list of units (claims, statements) restates the text it comes from: its JSON is at most
this many times the text's characters (enumerations restated one item per claim run long),
plus :data:`UNITS_REPLY_SLACK`."""
UNITS_REPLY_SLACK = 256
"""Characters added to every units reply's bound."""


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
        _bounded(field)


def _bounded(schema: Any) -> None:
    """Give a field's free text a ``maxLength`` and its lists a ``maxItems`` where it has none.

    Nested models (``$ref``) are bounded by their own schema hook; closed strings (``enum``,
    ``const``) need no bound.
    """
    if not isinstance(schema, dict) or "$ref" in schema:
        return
    kind = schema.get("type")
    if kind == "string" and not {"enum", "const", "maxLength"} & schema.keys():
        schema["maxLength"] = TEXT_CHARS
    if kind == "array":
        schema.setdefault("maxItems", LIST_ITEMS)
        _bounded(schema.get("items"))
    for key in ("anyOf", "oneOf"):
        for branch in schema.get(key, ()):
            _bounded(branch)


class JudgeReply(BaseModel):
    """Base class of judge reply schemas.

    Keys may be snake_case or camelCase; the schema is closed, and a reply's extra keys are
    kept (snake_cased) but never read.
    """

    model_config = ConfigDict(
        extra="allow",
        strict=True,  # a judge that writes "0.5" or true for a number is repaired, not read
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

    Subclasses name the counted list field in ``ITEMS`` and what one item answers in ``ITEM_OF``
    (``"claim"``). ``Model.expecting(n)`` is the prompt step's schema for a run with ``n``
    things: its JSON schema bounds the list to exactly ``n`` items, so a judge with
    schema-constrained decoding (the local llama.cpp judge, strict structured output) produces
    exactly ``n``, and validation refuses any other count (an empty list too), so a reply that
    skips or repeats items is sent back for repair with the expected count. When ``INDEX`` names
    an index field of the items, each index from 0 to ``n - 1`` must appear exactly once; else
    items answer the things in order. With ``INDEX_IN_ORDER`` the judge is not asked for
    ``INDEX``: items answer in order and the scorer fills it from the item's place, unless the
    reply gave it (a reply in Mastra's shape), when it is checked as above.
    ``Model.at_most(n)`` bounds the list from above only. Without either (a model validated
    directly) the count is not checked.

    ``expecting(n, shown=texts, positions=...)`` also fills each item's ``ECHO`` field with the
    text of the thing it answers and, with ``positions``, replaces each ``INDEX`` by the index
    to report (a context piece's position before blank pieces were dropped).
    """

    ITEMS: ClassVar[str]
    """The counted list field."""
    ITEM_OF: ClassVar[str]
    """What one item answers, for messages (``"claim"``, ``"context piece"``)."""
    INDEX: ClassVar[str | None] = None
    """The items' index field (``"context_index"``), or ``None`` when items go in order."""
    INDEX_IN_ORDER: ClassVar[bool] = False
    """``INDEX`` is not asked of the judge: items go in order unless the reply gave it."""
    SORTED_BY_INDEX: ClassVar[bool] = False
    """The step result holds the items sorted by ``INDEX`` (Mastra's stored order), whatever
    order the judge gave them in (:meth:`items_in_reply_order` keeps the reply's)."""
    _reply_order: list[Any] | None = PrivateAttr(default=None)
    ECHO: ClassVar[str | None] = None
    """The items' field filled with the text of the thing answered, or ``None``."""

    @classmethod
    def expecting(
        cls,
        count: int,
        *,
        shown: Sequence[str] | None = None,
        positions: Sequence[int] | None = None,
    ) -> SchemaSpec:
        """The schema asking for exactly ``count`` items (``count >= 1``).

        Args:
            count: the number of things shown to the judge.
            shown: their texts (``count`` of them), to fill each item's ``ECHO`` field.
            positions: the index each item reports in place of the one the judge gave.

        Raises:
            ValueError: ``count`` is below 1, or ``shown`` / ``positions`` do not hold
                ``count`` values.
        """
        if count < 1:
            raise ValueError(f"a counted reply needs at least one item to ask for, not {count}")
        spec = _counted_spec(cls, count, exact=True)
        extra: dict[str, Any] = {}
        for key, values in ((SHOWN, shown), (POSITIONS, positions)):
            if values is not None:
                if len(values) != count:
                    raise ValueError(f"{key} holds {len(values)} values for {count} items")
                extra[key] = tuple(values)
        if not extra:
            return spec
        return dataclasses.replace(
            spec, validation_context={**(spec.validation_context or {}), **extra}
        )

    @classmethod
    def at_most(cls, limit: int) -> SchemaSpec:
        """The schema allowing at most ``limit`` items (``limit >= 1``); cached per limit.

        The reply is also bounded as a whole (``reply_chars``) by :func:`units_reply_chars`
        of ``limit``, the units of a text of ``limit`` × :data:`CHARACTERS_PER_ITEM`
        characters (:func:`item_limit`).

        Raises:
            ValueError: ``limit`` is below 1.
        """
        if limit < 1:
            raise ValueError(f"a bounded reply needs a limit of at least 1, not {limit}")
        return _counted_spec(cls, limit, exact=False)

    def _items(self) -> list[Any]:
        items: list[Any] = getattr(self, self.ITEMS)
        return items

    def items_in_reply_order(self) -> list[Any]:
        """The counted items in the order the judge wrote them.

        A log-probability reader matches them with the reply's text; they are the same
        objects as the step result's.
        """
        return self._reply_order if self._reply_order is not None else self._items()

    def check_count(self, expected: int) -> None:
        """Raise ``ValueError`` unless the items cover the ``expected`` things exactly once.

        With ``INDEX``, each index from 0 to ``expected - 1`` must appear once; else the list
        must hold ``expected`` items. Subclasses may check more; the message is shown to the
        judge in the repair request, so it states what is expected.
        """
        items = self._items()
        index = self.INDEX
        if index is None or self._in_order():
            if len(items) == expected:
                return
            raise ValueError(
                f"expected exactly {expected} {self.ITEMS}, one per {self.ITEM_OF} in the order "
                f"given; got {len(items)}"
            )
        indices = [getattr(item, index) for item in items]
        if sorted(indices) == list(range(expected)):
            return
        raise ValueError(
            f"expected exactly {expected} {self.ITEMS}, one for each {index} from 0 to "
            f"{expected - 1}, each exactly once; got {index} values {indices}"
        )

    def _in_order(self) -> bool:
        """Whether the items answer the things in order (no index was asked or given)."""
        if self.INDEX is None:
            return True
        index = self.INDEX
        return self.INDEX_IN_ORDER and not any(
            index in item.model_fields_set for item in self._items()
        )

    def _fill_from_our_copy(self, shown: Sequence[str] | None, positions: Any) -> None:
        in_order = self._in_order()
        for place, item in enumerate(self._items()):
            index = place if in_order or self.INDEX is None else getattr(item, self.INDEX)
            if shown is not None and self.ECHO is not None:
                setattr(item, self.ECHO, shown[index])
            if self.INDEX is not None and (positions is not None or self.INDEX_IN_ORDER):
                setattr(item, self.INDEX, index if positions is None else positions[index])

    @model_validator(mode="after")
    def _check_expected_count(self, info: ValidationInfo) -> CountedReply:
        context = info.context or {}
        expected = context.get(EXPECTED_ITEMS)
        if expected is not None:
            self.check_count(expected)
            self._fill_from_our_copy(context.get(SHOWN), context.get(POSITIONS))
            index = self.INDEX
            if self.SORTED_BY_INDEX and index is not None:
                items = self._items()
                indices = [getattr(item, index) for item in items]
                if indices != sorted(indices):
                    self._reply_order = items
                    setattr(self, self.ITEMS, sorted(items, key=lambda item: getattr(item, index)))
        limit = context.get(MAX_ITEMS)
        got = len(self._items())
        if limit is not None and got > limit:
            raise ValueError(f"expected at most {limit} {self.ITEMS} for this text; got {got}")
        if limit is not None:  # units taken out of a text: each says something, once
            self._check_units(self._items(), context.get(SOURCE))
        return self

    def _check_units(self, units: list[Any], source: str | None) -> None:
        texts = [unit for unit in units if isinstance(unit, str)]
        blank = [i for i, text in enumerate(texts) if not text.strip()]
        if blank:
            raise ValueError(f"{self.ITEMS} at positions {blank} are blank; leave them out")
        seen: set[str] = set()
        for text in texts:
            if text.strip() in seen:
                raise ValueError(f"{self.ITEMS} repeat {text!r}; list each one once")
            seen.add(text.strip())
        # a dry run's stand-in units come from no text (scorekit.judge.dry_run)
        checked = source is not None and DRY_RUN.get() is None
        strays = stray_units(texts, source) if checked and source is not None else []
        if strays:
            quoted = "; ".join(repr(texts[i][:80]) for i in strays[:3])
            raise ValueError(
                f"{self.ITEMS} at positions {strays} do not come from the text given (fewer "
                f"than a quarter of their words are in it: {quoted}); list only what the text "
                "says, in its own words and its own language"
            )


@functools.lru_cache(maxsize=1024)
def _counted_spec(model: type[CountedReply], count: int, *, exact: bool) -> SchemaSpec:
    schema = model.model_json_schema()  # a fresh dict each time; edited below
    prop = schema["properties"][model.ITEMS]
    if not exact:
        items = prop.get("items")
        if isinstance(items, dict) and items.get("type") == "string":
            # a unit says something: no empty string (constrained decoding then cannot emit
            # the runaway list of "" a small judge fell into; blank units are refused anyway)
            prop = {**prop, "items": {**items, "minLength": 1}}
        schema["properties"][model.ITEMS] = {**prop, "maxItems": count}
        context = {MAX_ITEMS: count}
        chars = units_reply_chars(count)
        return SchemaSpec(model.__name__, schema, model, context, reply_chars=chars).check()
    schema["properties"][model.ITEMS] = {**prop, "minItems": count, "maxItems": count}
    return SchemaSpec(model.__name__, schema, model, {EXPECTED_ITEMS: count}).check()


def taken_from(spec: SchemaSpec, text: str) -> SchemaSpec:
    """``spec`` (an :meth:`CountedReply.at_most` one) whose units must come from ``text``.

    Each unit must have at least :data:`~scorekit.scorers.unit_sources.MIN_FOUND` of its words
    in ``text``; a reply with a unit that does not is invalid (repaired once, then an error).
    """
    return dataclasses.replace(
        spec, validation_context={**(spec.validation_context or {}), SOURCE: text}
    )


def item_limit(text: str) -> int:
    """The most claims or statements a text can hold: one per :data:`CHARACTERS_PER_ITEM`.

    A generous bound that no faithful extraction reaches (a claim needs words of its own),
    counted in characters so that it holds for scripts written without spaces too.

    Example:
        >>> item_limit("Paris is the capital of France.")
        11
    """
    return max(1, -(-len(text.strip()) // CHARACTERS_PER_ITEM))


def units_reply_chars(limit: int) -> int:
    """The most characters of JSON a reply listing at most ``limit`` units may hold.

    ``UNITS_REPLY_FACTOR × CHARACTERS_PER_ITEM × limit + UNITS_REPLY_SLACK``: the units
    restate a text of ``CHARACTERS_PER_ITEM × limit`` characters (:func:`item_limit`) at most
    :data:`UNITS_REPLY_FACTOR` times over, quotes and commas included.

    Example:
        >>> units_reply_chars(item_limit("Paris is the capital of France."))  # 11 units
        388
    """
    return UNITS_REPLY_FACTOR * CHARACTERS_PER_ITEM * limit + UNITS_REPLY_SLACK


class Claims(CountedReply):
    """The claims the judge extracted from a text (``at_most(item_limit(text))``)."""

    ITEMS: ClassVar[str] = "claims"
    ITEM_OF: ClassVar[str] = "claim"

    claims: list[str]
    """The atomic claims, in the order they appear."""
