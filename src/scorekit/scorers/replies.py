"""What the prebuilt LLM scorers' judge replies share: field aliases and label handling.

Every reply schema of :mod:`scorekit.scorers` derives from :class:`JudgeReply`:

* fields are snake_case, and each also accepts its camelCase spelling (``wasUsed`` for
  ``was_used``), because Mastra's prompts ask for camelCase keys and replies recorded from Mastra
  (the conformance corpus) use them; results always hold the snake_case names (divergences.md
  row 10);
* unknown keys are refused (``extra="forbid"``), so a malformed reply is repaired or fails
  instead of being half-read;
* verdict labels are trimmed and lower-cased before they are checked against their closed set
  (divergences.md row 6): ``" YES "`` is stored as ``"yes"``; ``"maybe"`` is refused.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AliasChoices, AliasGenerator, BaseModel, BeforeValidator, ConfigDict
from pydantic.alias_generators import to_camel

__all__ = [
    "LANGUAGE_RULE",
    "Claims",
    "JudgeReply",
    "YesNo",
    "YesNoUnsure",
    "normalise_label",
]


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


class JudgeReply(BaseModel):
    """Base class of judge reply schemas: snake_case or camelCase keys, no unknown keys."""

    model_config = ConfigDict(
        extra="forbid",
        alias_generator=AliasGenerator(validation_alias=_both_spellings),
        populate_by_name=True,
    )


YesNo = Annotated[Literal["yes", "no"], BeforeValidator(normalise_label)]
"""A binary verdict, normalised (``" Yes "`` → ``"yes"``)."""

YesNoUnsure = Annotated[Literal["yes", "no", "unsure"], BeforeValidator(normalise_label)]
"""A three-way verdict, normalised."""


class Claims(JudgeReply):
    """The claims the judge extracted from a text."""

    claims: list[str]
    """The atomic claims, in the order they appear."""
