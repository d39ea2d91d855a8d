"""Retrieval context: where the context pieces that RAG scorers judge come from.

A scorer's context is either a fixed list of pieces given when the scorer is built, or a
*context extractor* called with each run's input and output (sync or async) that returns the
pieces for that run; the extractor wins when both are given (Mastra evals 1.10.2
``contextExtractor``). Faithfulness may also read the context from the tool results in the
output (:func:`tool_result_context`).

An extractor is called once per run, however many steps read the context: the resolved pieces
are remembered for the run being scored (see :meth:`ContextSource.resolve`).

A run may also carry its own context (``scorer.run(context=[...])``; in ``run_evals``, the
item's ``context`` or what the target returned with its output): a scorer built with
``context_extractor=item_context`` judges that.

Blank pieces are dropped first, wherever the context comes from: a piece that is empty or only
whitespace is not context (:class:`Pieces`). A run whose pieces were all blank is ``skipped``
with :data:`ALL_BLANK_REASON`. The pieces kept are numbered from 0 for the judge in their order;
each keeps its position in the context as given (:attr:`Pieces.positions`), which is the index
the step results report: of ``["a", " ", "b"]`` the judge sees ``[0] a`` and ``[1] b``, and the
results name them 0 and 2.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from scorekit.errors import ConfigError
from scorekit.inputs.messages import message_role
from scorekit.inputs.tool_calls import message_tool_invocations
from scorekit.steps import ScorerRun

__all__ = [
    "ALL_BLANK_REASON",
    "ContextExtractor",
    "ContextSource",
    "Pieces",
    "format_pieces",
    "item_context",
    "tool_result_context",
]

ContextExtractor = Callable[[Any, Any], Sequence[str] | Awaitable[Sequence[str]]]
"""``(input, output) -> list[str]``, sync or async: the context pieces of one run."""

ALL_BLANK_REASON = (
    "No context to evaluate: the context pieces were all blank (empty or whitespace only)."
)
"""The reason of a run ``skipped`` because every context piece it has is blank."""


@dataclass(frozen=True)
class Pieces:
    """A run's context pieces, blank ones dropped.

    Attributes:
        texts: the pieces that are not blank, in order.
        positions: the position of each of them in the context as given (from 0).
        given: how many pieces there were before the blank ones were dropped.
    """

    texts: tuple[str, ...]
    positions: tuple[int, ...]
    given: int

    @classmethod
    def of(cls, pieces: Sequence[str]) -> Pieces:
        """Drop the blank pieces of ``pieces``.

        Example:
            >>> Pieces.of(["a", "  ", "b"])
            Pieces(texts=('a', 'b'), positions=(0, 2), given=3)
        """
        kept = [(index, piece) for index, piece in enumerate(pieces) if piece.strip()]
        return cls(
            tuple(piece for _, piece in kept), tuple(index for index, _ in kept), len(pieces)
        )

    def skip_reason(self, empty: str) -> str | None:
        """Why a run with these pieces is ``skipped``, or ``None`` when some piece is kept.

        ``empty`` when there were no pieces, :data:`ALL_BLANK_REASON` when all were blank.
        """
        if self.texts:
            return None
        return ALL_BLANK_REASON if self.given else empty


# The pieces resolved for the run being scored in this task. A scorer run executes its steps
# in one coroutine, so later steps of the same run find them here; concurrent runs execute in
# separate asyncio tasks, each with its own copy of this variable.
_RESOLVED: ContextVar[tuple[ScorerRun, Pieces] | None] = ContextVar(
    "scorekit_resolved_context", default=None
)


def item_context(input: Any, output: Any) -> list[str]:
    """The context extractor that stands for "the run's own context".

    Build a context scorer with ``context_extractor=item_context`` and it judges the context
    the run carries: ``scorer.run(..., context=[...])``, or in :func:`scorekit.run_evals` the
    item's ``context`` field or the ``context`` a target returned with its output
    (``ctx.run.context``). A run without context then has an empty context (status
    ``skipped``). ``scorekit run`` gives it to every context scorer that has neither
    ``context`` nor ``context_extractor`` in its options.

    It is a marker that :class:`ContextSource` recognises, not a function to call.

    Raises:
        ConfigError: always, when called directly.

    Example:
        >>> from scorekit.scorers import create_context_relevance_scorer_llm  # doctest: +SKIP
        >>> scorer = create_context_relevance_scorer_llm(
        ...     model="openai/gpt-4o-mini", context_extractor=item_context)  # doctest: +SKIP
    """
    raise ConfigError(
        "item_context is a marker for a scorer's context_extractor option, not a function to "
        "call; read ctx.run.context in your own steps",
        field="context_extractor",
    )


def _check_pieces(value: Any, *, field: str) -> tuple[str, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ConfigError(
            f"{field} must be a list of strings, not {type(value).__name__}", field=field
        )
    for index, piece in enumerate(value):
        if not isinstance(piece, str):
            raise ConfigError(
                f"{field}[{index}] must be a string, not {type(piece).__name__}", field=field
            )
    return tuple(value)


@dataclass(frozen=True)
class ContextSource:
    """Where a scorer takes its context pieces from.

    Attributes:
        pieces: the fixed context, or ``None``.
        extractor: the per-run context extractor, or ``None``; it wins over ``pieces``.
    """

    pieces: tuple[str, ...] | None
    extractor: ContextExtractor | None

    @classmethod
    def of(
        cls,
        context: Sequence[str] | None,
        context_extractor: ContextExtractor | None,
        *,
        scorer: str,
        required: bool = True,
    ) -> ContextSource:
        """Validate a factory's ``context`` / ``context_extractor`` options.

        Args:
            context: a non-empty list of strings, or ``None``.
            context_extractor: a callable ``(input, output) -> list[str]``, or ``None``.
            scorer: the scorer's display name, for messages.
            required: whether one of the two must be given.

        Raises:
            ConfigError: neither is given (when ``required``); ``context`` is empty, holds only
                blank pieces, or is not a list of strings; ``context_extractor`` is not
                callable.
        """
        if context_extractor is not None and not callable(context_extractor):
            raise ConfigError(
                "context_extractor must be a function (input, output) -> list[str]",
                field="context_extractor",
            )
        pieces = None
        if context is not None:
            pieces = _check_pieces(context, field="context")
            if not pieces:
                raise ConfigError("context cannot be empty if given", field="context")
            if not any(piece.strip() for piece in pieces):
                raise ConfigError(
                    "context holds only blank pieces (empty or whitespace only); give at least "
                    "one piece with text",
                    field="context",
                )
        if required and pieces is None and context_extractor is None:
            raise ConfigError(
                f"either context or context_extractor is required for {scorer} scoring",
                field="context",
            )
        return cls(pieces, context_extractor)

    async def resolve(self, run: ScorerRun) -> Pieces:
        """Return the context pieces of ``run``, blank ones dropped.

        The extractor is called at most once per run.

        Raises:
            ConfigError: the extractor returned something other than a list of strings.
        """
        if self.extractor is item_context:
            return Pieces.of(run.context or ())
        if self.extractor is None:
            return Pieces.of(self.pieces or ())
        remembered = _RESOLVED.get()
        if remembered is not None and remembered[0] is run:
            return remembered[1]
        value = self.extractor(run.input, run.output)
        if inspect.isawaitable(value):
            value = await value
        pieces = Pieces.of(_check_pieces(value, field="context_extractor result"))
        _RESOLVED.set((run, pieces))
        return pieces


def format_pieces(pieces: Sequence[str]) -> str:
    """Number context pieces for a prompt: ``[0] first piece``, one per line."""
    return "\n".join(f"[{index}] {piece}" for index, piece in enumerate(pieces))


def _result_text(result: Any) -> str:
    if isinstance(result, str) and not result.strip():
        return ""
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))


def tool_result_context(output: Any) -> tuple[str, ...]:
    """Return the results of the completed tool calls in an agent's output, as JSON text.

    Rule (Mastra evals 1.10.2 faithfulness): for every ``assistant`` message, each tool
    invocation whose ``state`` is ``"result"`` gives ``JSON.stringify(result)`` (compact
    separators), except that a result that is a blank string gives a blank piece (``""``, which
    :class:`Pieces` drops: no context), not the JSON text ``'""'``. The invocations are those
    of :func:`scorekit.inputs.tool_calls.message_tool_invocations`:
    the legacy ``toolInvocations`` list merged with ``tool-invocation`` parts (Mastra 1.10.2
    reads only the legacy list; docs/divergences.md row 24).

    Args:
        output: a run output; anything other than a list of messages gives ``()``.
    """
    if not isinstance(output, list):
        return ()
    pieces = []
    for message in output:
        if not isinstance(message, Mapping) or message_role(message) != "assistant":
            continue
        for invocation in message_tool_invocations(message):
            if (
                isinstance(invocation, Mapping)
                and invocation.get("state") == "result"
                and "result" in invocation
            ):
                pieces.append(_result_text(invocation["result"]))
    return tuple(pieces)
