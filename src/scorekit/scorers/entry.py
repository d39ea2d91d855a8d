"""``ScorerEntry``: how a scorer is named, what it is, and the factory that makes it.

Each scorer module declares its entry once, next to its factory (``ENTRY = ScorerEntry(...)``,
or ``ENTRIES = (...)`` for a module of several small scorers such as the checks); the registry
(:mod:`scorekit.scorers.registry`) finds the modules that declare one. Kept apart from the
registry so that a scorer module imports this small module, never the registry that imports it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

from scorekit.errors import ConfigError
from scorekit.pipeline import Scorer

__all__ = ["ScorerEntry", "ScorerKind", "ScorerOption", "keyword_parameters"]

ScorerKind = Literal["code", "llm"]
"""``"code"``: deterministic; ``"llm"``: asks a judge, so it needs ``model=``."""


@dataclass(frozen=True)
class ScorerOption:
    """One keyword option of a scorer factory, as ``scorekit scorers`` lists it.

    Attributes:
        name: the keyword (snake_case, docs/scorers.md).
        default: its default, or ``None`` when it is required.
        annotation: its type annotation, as text.
        required: whether it has no default.
    """

    name: str
    default: Any
    annotation: str
    required: bool


def keyword_parameters(factory: Callable[..., Any]) -> list[inspect.Parameter]:
    """The factory's parameters that can be given by keyword."""
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # a callable without a readable signature
        return []
    return [
        param
        for param in signature.parameters.values()
        if param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY)
    ]


@dataclass(frozen=True)
class ScorerEntry:
    """A scorer in the registry: how to name it, what it is, and the factory that makes it.

    Declare one per scorer module, at module level, next to the factory::

        ENTRY = ScorerEntry(
            name="brevity",
            scorer_id=SCORER_ID,
            factory=create_brevity_scorer,
            kind="code",
            summary="Whether the output stays under a word budget",
        )

    Attributes:
        name: the short name used on the command line and in configs (``"content-similarity"``).
        scorer_id: the id of the scorers it makes (``"content-similarity-scorer"``); ``""``
            for an ad-hoc entry made from a bare factory, whose id is known once built.
        factory: the ``create_*`` function; keyword options only, snake_case (docs/scorers.md).
        kind: ``"code"`` (deterministic) or ``"llm"`` (needs a judge ``model``).
        summary: one line on what it measures.
        required: options the factory cannot do without although its signature gives them a
            ``None`` default (so that leaving one out is a ``ConfigError`` naming it, not a
            ``TypeError``); listed as required.
        aliases: older short names that still find the entry (configs and stored runs written
            before a rename); ``scorekit scorers`` lists the entry under ``name`` only.
    """

    name: str
    scorer_id: str
    factory: Callable[..., Scorer]
    kind: ScorerKind
    summary: str
    required: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ConfigError("a ScorerEntry needs a non-empty name", field="name")
        if self.kind not in get_args(ScorerKind):
            raise ConfigError(
                f"ScorerEntry {self.name!r}: kind must be 'code' or 'llm', not {self.kind!r}",
                field="kind",
            )
        if not callable(self.factory):
            raise ConfigError(
                f"ScorerEntry {self.name!r}: factory must be callable", field="factory"
            )

    def options(self) -> list[ScorerOption]:
        """The factory's keyword options with their defaults, read from its signature."""
        found = []
        for param in keyword_parameters(self.factory):
            required = param.default is inspect.Parameter.empty or param.name in self.required
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
