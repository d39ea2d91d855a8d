"""The prebuilt scorers, and the name → factory table the CLI uses.

Each scorer lives in its own module. ``SCORERS`` maps a short name (the scorer id without its
``-scorer`` suffix) to a :class:`ScorerEntry`; :func:`get_scorer_entry` also accepts full ids.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from scorekit.errors import ConfigError
from scorekit.pipeline import Scorer
from scorekit.scorers.completeness import create_completeness_scorer
from scorekit.scorers.content_similarity import create_content_similarity_scorer
from scorekit.scorers.keyword_coverage import create_keyword_coverage_scorer
from scorekit.scorers.textual_difference import create_textual_difference_scorer
from scorekit.scorers.tone import create_tone_scorer
from scorekit.scorers.tool_call_accuracy import create_tool_call_accuracy_scorer_code

__all__ = [
    "SCORERS",
    "ScorerEntry",
    "ScorerOption",
    "create_completeness_scorer",
    "create_content_similarity_scorer",
    "create_keyword_coverage_scorer",
    "create_textual_difference_scorer",
    "create_tone_scorer",
    "create_tool_call_accuracy_scorer_code",
    "get_scorer_entry",
]


@dataclass(frozen=True)
class ScorerOption:
    """One keyword option of a scorer factory, as ``scorekit scorers`` lists it."""

    name: str
    default: Any
    annotation: str
    required: bool


@dataclass(frozen=True)
class ScorerEntry:
    """A prebuilt scorer in the table.

    Attributes:
        name: the short name used on the command line (``"content-similarity"``).
        scorer_id: the id of the scorers it makes (``"content-similarity-scorer"``).
        factory: the ``create_*`` function.
        kind: ``"code"`` (deterministic) or ``"llm"`` (needs a judge ``model``).
        summary: one line on what it measures.
    """

    name: str
    scorer_id: str
    factory: Callable[..., Scorer]
    kind: Literal["code", "llm"]
    summary: str

    def options(self) -> list[ScorerOption]:
        """The factory's keyword options with their defaults, read from its signature."""
        found = []
        for param in inspect.signature(self.factory).parameters.values():
            required = param.default is inspect.Parameter.empty
            annotation = param.annotation
            found.append(
                ScorerOption(
                    param.name,
                    None if required else param.default,
                    annotation
                    if isinstance(annotation, str)
                    else getattr(annotation, "__name__", str(annotation)),
                    required,
                )
            )
        return found


SCORERS: dict[str, ScorerEntry] = {
    entry.name: entry
    for entry in (
        ScorerEntry(
            "content-similarity",
            "content-similarity-scorer",
            create_content_similarity_scorer,
            "code",
            "Bigram (Dice) similarity of the output and the reference text",
        ),
        ScorerEntry(
            "completeness",
            "completeness-scorer",
            create_completeness_scorer,
            "code",
            "Share of the reference's content words (nouns, verbs, terms) the output covers",
        ),
        ScorerEntry(
            "keyword-coverage",
            "keyword-coverage-scorer",
            create_keyword_coverage_scorer,
            "code",
            "Share of the reference's keywords (stop words removed) found in the output",
        ),
        ScorerEntry(
            "textual-difference",
            "textual-difference-scorer",
            create_textual_difference_scorer,
            "code",
            "Longest-common-subsequence ratio of the output and the reference text",
        ),
        ScorerEntry(
            "tone",
            "tone-scorer",
            create_tone_scorer,
            "code",
            "Sentiment stability of the output, or closeness to a reference tone",
        ),
        ScorerEntry(
            "code-tool-call-accuracy",
            "code-tool-call-accuracy-scorer",
            create_tool_call_accuracy_scorer_code,
            "code",
            "Whether the agent called the expected tool, or tools in the expected order",
        ),
    )
}
"""Short name → entry, in listing order."""


def get_scorer_entry(name: str) -> ScorerEntry:
    """Return the table entry for a short name or a full scorer id.

    Raises:
        ConfigError: unknown name; the message suggests the closest known names.
    """
    if name in SCORERS:
        return SCORERS[name]
    for entry in SCORERS.values():
        if entry.scorer_id == name:
            return entry
    close = difflib.get_close_matches(name, list(SCORERS), n=3)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise ConfigError(
        f"unknown scorer {name!r}; known scorers: {', '.join(SCORERS)}.{hint}", field="scorer"
    )
