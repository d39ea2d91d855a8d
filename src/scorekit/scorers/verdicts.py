"""The verdict recipe: extract units, judge each one, score the share, explain the score.

Faithfulness, Hallucination, Context Recall and Answer Relevancy share one shape, which
:func:`verdict_scorer` builds from a :class:`VerdictRecipe`:

1. ``preprocess`` (:class:`Units`): a run whose context is empty, or whose context pieces are
   all blank, is ``skipped`` (:class:`ContextCheck`; blank pieces are dropped and never shown
   to the judge); then the judge lists the *units* of a text (the answer's claims or
   statements, the ground truth's claims), at most ``item_limit(text)`` of them. A blank text
   has no units and needs no judge call, or skips the run when the scorer needs that text.
2. ``analyze`` (:class:`VerdictStep`): one verdict per unit, in unit order
   (``expecting(#units)``: any other count, none included, is repaired, then an ``error``); a
   verdict field that would echo the unit (``ECHO``, Hallucination's ``statement``) is not asked
   of the judge and holds the unit as the preprocess step found it. A blank
   text has no units, no verdicts and no judge call; a text that is not blank but in which the
   judge found no units is ``skipped`` (nothing was measured: divergences.md row 28).
3. ``generate_score``: :func:`share_score` of the verdict labels; with ``scoring="expected"``
   the share of the verdicts' expected weights (:mod:`scorekit.scorers.expected`: the
   analyze step also asks for the judge's token log-probabilities).
4. ``generate_reason`` (:class:`ReasonStep`): the judge explains the score (``reason="llm"``,
   Mastra's); or :func:`template_reason` states the verdicts the score came from, with no
   judge call (``"template"``: the reason cannot contradict them); or there is no reason step
   (``"none"``). A run without units gets a local reason.

A scorer module keeps its prompts, reply models (on :class:`Verdict` and
:class:`VerdictList`), constants and docstrings; its factory validates the options and calls
:func:`verdict_scorer`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Generic, TypeVar

from scorekit.inputs.messages import get_assistant_message, get_user_message
from scorekit.inputs.retrieval_context import ContextExtractor, ContextSource, Pieces
from scorekit.judge.judge import Judge
from scorekit.judge.model import JudgeModel
from scorekit.judge.structured import SchemaSpec
from scorekit.pipeline import (
    LocalResult,
    NotScorable,
    PromptStep,
    Scorer,
    ScorerRun,
    StepContext,
    local_result,
    not_scorable,
)
from scorekit.rounding import js_number_text, round_to_two_decimals
from scorekit.scorers.entry import ScorerEntry
from scorekit.scorers.expected import (
    AnyLabelReader,
    LabelReader,
    Scoring,
    check_scoring,
    expected_share,
    expected_weights,
    reading,
)
from scorekit.scorers.judged import judged_scorer
from scorekit.scorers.options import ReasonMode, check_reason, check_scale
from scorekit.scorers.replies import CountedReply, JudgeReply, item_limit, taken_from

__all__ = [
    "YES",
    "AskedLabel",
    "ContextCheck",
    "ContextReader",
    "ReasonStep",
    "ToExplain",
    "Units",
    "Verdict",
    "VerdictList",
    "VerdictRecipe",
    "VerdictStep",
    "answer_text",
    "grounded_scorer",
    "numbered",
    "share_score",
    "template_reason",
    "verdict_scorer",
]

L = TypeVar("L")
T = TypeVar("T", bound=JudgeReply)
V = TypeVar("V", bound=CountedReply)

YES: Mapping[str, float] = MappingProxyType({"yes": 1.0})
"""Label weights where only a ``yes`` counts."""


def share_score(
    labels: Sequence[str],
    weights: Mapping[str, float] = YES,
    *,
    scale: float = 1.0,
    denominator: int | None = None,
) -> float:
    """Return the weighted share of the labels: ``round2(Σ weight / #labels × scale)``.

    Args:
        labels: normalised verdict labels.
        weights: each label's weight in ``[0, 1]``; a label not listed weighs 0.
        scale: the maximum score, ``> 0``.
        denominator: divide by this count instead of ``#labels``, capping the share at 1
            (Context Recall: ``min(1, #yes / #claims)``).

    Returns:
        The score; 0 when there is nothing to divide by.

    Example:
        >>> share_score(["yes", "unsure", "no"], {"yes": 1.0, "unsure": 0.3})
        0.43
        >>> share_score(["yes", "yes"], denominator=1)
        1.0
    """
    count = len(labels) if denominator is None else denominator
    if count == 0:
        return 0.0
    share = sum(weights.get(label, 0.0) for label in labels) / count
    return round_to_two_decimals((share if denominator is None else min(1.0, share)) * scale)


UNIT_CHARS = 80
"""Characters of a unit quoted in a template reason (longer ones end with an ellipsis)."""


def _quoted(unit: str) -> str:
    text = " ".join(unit.split())
    return f'"{text[: UNIT_CHARS - 1]}…"' if len(text) > UNIT_CHARS else f'"{text}"'


def template_reason(score: str, item_of: str, units: Sequence[str], labels: Sequence[str]) -> str:
    """The reason of a verdict scorer without a judge call: the verdicts the score came from.

    Args:
        score: the score, formatted (:func:`scorekit.rounding.js_number_text`).
        item_of: what a unit is (``"claim"``, ``"statement"``).
        units: the judged units, in order.
        labels: their verdict labels, one per unit.

    Returns:
        ``"The score is <score> because the verdicts on the <n> <item_of>s were <label>
        <count>, ...: 1. "<unit>": <label>; ..."``, units quoted up to :data:`UNIT_CHARS`
        characters, label counts in order of first appearance.

    Raises:
        ValueError: ``units`` and ``labels`` differ in length, or are empty.

    Example:
        >>> template_reason("0.5", "claim", ["Paris is in France.", "It has 9M people."],
        ...                 ["yes", "no"])
        'The score is 0.5 because the verdicts on the 2 claims were yes 1, no 1: 1. "Paris is \
in France.": yes; 2. "It has 9M people.": no.'
    """
    if not units or len(units) != len(labels):
        raise ValueError(f"{len(labels)} labels for {len(units)} units")
    tally = ", ".join(f"{label} {count}" for label, count in Counter(labels).items())
    plural = item_of if len(units) == 1 else f"{item_of}s"
    pairs = enumerate(zip(units, labels, strict=True))
    listed = "; ".join(f"{i + 1}. {_quoted(unit)}: {label}" for i, (unit, label) in pairs)
    return (
        f"The score is {score} because the verdicts on the {len(units)} {plural} were "
        f"{tally}: {listed}."
    )


def numbered(items: Sequence[str]) -> str:
    """Number items for a prompt, one per line: ``1. first``."""
    return "\n".join(f"{i + 1}. {item}" for i, item in enumerate(items))


def answer_text(run: ScorerRun) -> str:
    """The run's answer as judges read it (``""`` when there is none)."""
    return get_assistant_message(run.output) or ""


class Verdict(JudgeReply, Generic[L]):
    """A judge's verdict on one unit: a label from ``L`` and why (subclassed per scorer)."""

    verdict: L
    """The label; the scorer's module docstring says what each one means."""
    reason: str
    """Why, in the language of the user's query."""


class VerdictList(CountedReply, Generic[T]):
    """An analyze step's reply, one verdict per unit (subclassed per scorer, with ``ITEM_OF``)."""

    ITEMS: ClassVar[str] = "verdicts"

    verdicts: list[T]
    """One verdict per unit, in unit order."""


@dataclass(frozen=True)
class Units:
    """The preprocess step: which text a scorer splits into units, and how it asks for them."""

    description: str
    """The step's description."""
    reply: type[CountedReply]
    """The reply holding the units (:class:`~scorekit.scorers.replies.Claims` ...)."""
    prompt: Callable[[str], str]
    """Builds the prompt from the text."""
    text: Callable[[ScorerRun], str] = answer_text
    """The text the units come from; its length bounds their number."""
    missing: str | None = None
    """When set, a run whose text is blank is ``skipped`` with this reason; else it has no
    units."""
    none_found: str = ""
    """The reason of a run ``skipped`` because the judge found no units in a text that is not
    blank (nothing was measured; divergences.md row 28); a generic one when empty."""

    judge_whole_when_none: bool = False
    """When the judge finds no units in a text that is not blank, judge the whole text as one
    unit instead of skipping the run (Bias: Mastra's verdict prompt tells its judge to)."""

    def judged(self, ctx: StepContext) -> list[str]:
        """Return the units the verdict step judges.

        They are the preprocess step's, or the whole text when ``judge_whole_when_none`` is set
        and the judge found none in a text that is not blank.
        """
        found = self.of(ctx.results.preprocess_step_result)
        if found or not self.judge_whole_when_none:
            return found
        text = self.text(ctx.run)
        return [text] if text.strip() else []

    def none_found_reason(self) -> str:
        """Why a run whose non-blank text yielded no units is ``skipped``."""
        return self.none_found or (
            f"The judge found no {self.reply.ITEM_OF}s in the text, so there is nothing to score."
        )

    def create_prompt(self, ctx: StepContext) -> str | LocalResult | NotScorable:
        """The prompt for the run's text; no units (no judge call) or a skip for a blank one."""
        text = self.text(ctx.run)
        if text.strip():
            return self.prompt(text)
        if self.missing is not None:
            return not_scorable(self.missing)
        return local_result(self.reply(**{self.reply.ITEMS: []}))

    def schema(self, ctx: StepContext) -> SchemaSpec:
        """The reply's schema, bounded by the length of the run's text.

        Its units must come from that text, or the user's query, whose terms a unit may take
        to stand alone (:mod:`scorekit.scorers.unit_sources`).
        """
        text = self.text(ctx.run)
        query = get_user_message(ctx.run.input) or ""
        return taken_from(self.reply.at_most(item_limit(text)), f"{text}\n{query}")

    def of(self, reply: Any) -> list[str]:
        """The units in a preprocess step result."""
        units: list[str] = getattr(reply, self.reply.ITEMS)
        return units


@dataclass(frozen=True)
class AskedLabel:
    """The label field the judge writes when a scorer's own label is derived from it.

    Hallucination counts ``verdict: "yes"`` (a hallucination) but asks its judge whether the
    context supports each claim (``supported``, divergences.md row 107): with
    ``scoring="expected"`` the distribution is read at this field, and ``weights`` give each of
    its labels' weight in the score.
    """

    field: str
    """The field the judge writes."""
    weights: Mapping[str, float]
    """Each of its labels' weight in the score, in ``[0, 1]``; a label not listed weighs 0."""


@dataclass(frozen=True)
class VerdictStep(Generic[V]):
    """The analyze step."""

    description: str
    """The step's description."""
    reply: type[V]
    """The reply, asked for with ``expecting(#units)``."""
    prompt: Callable[[str, tuple[str, ...], Sequence[str]], str]
    """Builds the prompt from the user's query, the context (``()`` without one) and the units."""
    label: str = "verdict"
    """The field of each verdict holding its label."""
    asked: AskedLabel | None = None
    """Where the judge answers another question than the label the score counts (the label
    derived from it); ``None``: the judge writes ``label`` itself."""
    per_unit: bool = False
    """Divide by the number of units, not of verdicts (Context Recall, as in Mastra)."""
    answer_shown: bool = False
    """Show the judge the whole answer beside its units (the prompt gets it as its context):
    a unit cut out of an answer can lose what it refers to (Answer Relevancy)."""


@dataclass(frozen=True)
class ToExplain(Generic[V]):
    """What a reason prompt is built from."""

    query: str
    """The user's message (``""`` when there is none)."""
    answer: str
    """The run's answer (``""`` when there is none)."""
    verdicts: V
    """The analyze step's reply."""
    lines: str
    """One line per unit: ``- <unit>: <label> (<reason>)``."""
    score: str
    """The score, as reasons write it."""
    scale: str
    """The maximum score, as reasons write it."""


@dataclass(frozen=True)
class ReasonStep(Generic[V]):
    """The reason step."""

    prompt: Callable[[ToExplain[V]], str]
    """Builds the prompt."""
    no_units: str
    """Ends the local reason ``"The score is <score> because …"`` of a run without units."""


@dataclass(frozen=True)
class VerdictRecipe(Generic[V]):
    """What a verdict scorer is: its identity, its judge's instructions and its steps."""

    scorer_id: str
    """The scorer's stable id."""
    name: str
    """Its display name."""
    description: str
    """What it measures."""
    instructions: str
    """The judge's system instructions."""
    units: Units
    """The preprocess step."""
    verdicts: VerdictStep[V]
    """The analyze step."""
    reason: ReasonStep[V]
    """The reason step."""
    no_context: str | None = None
    """For a scorer judged against the run's context (:func:`grounded_scorer`): the reason
    of a run skipped because its resolved context is empty."""

    def entry(
        self, name: str, factory: Callable[..., Scorer], *, summary: str | None = None
    ) -> ScorerEntry:
        """The scorer's registry entry: an LLM scorer with this recipe's id.

        Args:
            name: the short name (``"faithfulness"``).
            factory: the module's ``create_*`` function.
            summary: one line on what it measures; the recipe's description by default.
        """
        return ScorerEntry(name, self.scorer_id, factory, "llm", summary or self.description)


ContextReader = Callable[[ScorerRun], Awaitable[Pieces | Sequence[str]]]
"""An async function giving a run's context pieces (blank ones are dropped if it did not)."""


@dataclass(frozen=True)
class ContextCheck:
    """A scorer's context: where it comes from, and why a run without any is skipped."""

    read: ContextReader
    """Gives the run's context pieces."""
    missing: str
    """The reason of a run skipped because its context is empty (one whose pieces are all
    blank gets :data:`scorekit.inputs.retrieval_context.ALL_BLANK_REASON`)."""

    async def pieces(self, run: ScorerRun) -> Pieces:
        """The run's context pieces, blank ones dropped."""
        found = await self.read(run)
        return found if isinstance(found, Pieces) else Pieces.of(found)


def verdict_scorer(
    recipe: VerdictRecipe[V],
    model: str | JudgeModel | Judge,
    scale: float,
    *,
    context: ContextCheck | None = None,
    weights: Mapping[str, float] = YES,
    scoring: Scoring = "label",
    reason: ReasonMode = "llm",
) -> Scorer:
    """Build the four-step scorer of ``recipe`` (see the module docstring).

    Args:
        recipe: the scorer's parts.
        model: the judge, as a factory's ``model`` option.
        scale: the maximum score, ``> 0`` (already checked).
        context: the context the verdicts prompt shows; a run without any (or with blank
            pieces only) is ``skipped``.
        weights: each verdict label's weight in the score (:func:`share_score`).
        scoring: ``"label"`` (the labels' share) or ``"expected"`` (the share of each
            verdict's expected weight; :mod:`scorekit.scorers.expected`), already checked.
        reason: ``"llm"`` (the judge explains), ``"template"`` (:func:`template_reason`, no
            judge call) or ``"none"`` (no reason step).

    Raises:
        ConfigError: ``model`` is not a judge, a judge model or a model string; a bad
            ``reason``.
        JudgeUnavailableError: the model string cannot be resolved.
    """
    units, verdicts, explain = recipe.units, recipe.verdicts, recipe.reason
    reason = check_reason(reason)
    items = verdicts.reply.ITEMS
    reader: LabelReader | AnyLabelReader | None = None
    if scoring == "expected":
        reader = LabelReader.of(verdicts.reply, items, verdicts.label, weights)
        if verdicts.asked is not None:  # the asked field, or a reply in Mastra's shape
            asked = LabelReader.of(
                verdicts.reply, items, verdicts.asked.field, verdicts.asked.weights
            )
            reader = AnyLabelReader((asked, reader))

    async def units_step(ctx: StepContext) -> str | LocalResult | NotScorable:
        if context is not None:
            skip = (await context.pieces(ctx.run)).skip_reason(context.missing)
            if skip is not None:
                return not_scorable(skip)
        return units.create_prompt(ctx)

    async def verdicts_step(ctx: StepContext) -> str | LocalResult | NotScorable:
        judged = units.judged(ctx)
        if not judged and units.text(ctx.run).strip():
            return not_scorable(units.none_found_reason())
        if not judged:
            return local_result(verdicts.reply(**{verdicts.reply.ITEMS: []}))
        pieces = (await context.pieces(ctx.run)).texts if context is not None else ()
        if verdicts.answer_shown:
            pieces = (answer_text(ctx.run),)
        return verdicts.prompt(get_user_message(ctx.run.input) or "", pieces, judged)

    def verdicts_schema(ctx: StepContext) -> SchemaSpec:
        judged = units.judged(ctx)
        if verdicts.reply.ECHO is None:
            return reading(verdicts.reply.expecting(len(judged)), reader)
        return reading(verdicts.reply.expecting(len(judged), shown=judged), reader)

    def labels(reply: Any) -> list[Any]:
        return [getattr(item, verdicts.label) for item in getattr(reply, verdicts.reply.ITEMS)]

    def generate_score(ctx: StepContext) -> float:
        count = len(units.judged(ctx)) if verdicts.per_unit else None
        reply = ctx.results.analyze_step_result
        if reader is not None:
            return expected_share(expected_weights(reply, items), scale=scale, denominator=count)
        return share_score(labels(reply), weights, scale=scale, denominator=count)

    def reason_step(ctx: StepContext) -> str | LocalResult:
        score = js_number_text(ctx.score or 0.0)
        judged = units.judged(ctx)
        if not judged:
            return local_result(f"The score is {score} because {explain.no_units}")
        reply = ctx.results.analyze_step_result
        if reason == "template":
            return local_result(template_reason(score, units.reply.ITEM_OF, judged, labels(reply)))
        items = getattr(reply, verdicts.reply.ITEMS)
        lines = "\n".join(
            f"- {unit}: {label} ({item.reason})"
            for unit, label, item in zip(judged, labels(reply), items, strict=False)
        )
        return explain.prompt(
            ToExplain(
                get_user_message(ctx.run.input) or "",
                answer_text(ctx.run),
                reply,
                lines,
                score,
                js_number_text(scale),
            )
        )

    return judged_scorer(
        recipe.scorer_id,
        name=recipe.name,
        description=recipe.description,
        model=model,
        instructions=recipe.instructions,
        preprocess=PromptStep(units.description, units_step, units.schema),
        analyze=PromptStep(verdicts.description, verdicts_step, verdicts_schema),
        score=generate_score,
        reason=None if reason == "none" else PromptStep("Explain the score", reason_step),
    )


def grounded_scorer(
    recipe: VerdictRecipe[V],
    model: str | JudgeModel | Judge,
    scale: float,
    context: Sequence[str] | None,
    context_extractor: ContextExtractor | None,
    *,
    scoring: Scoring = "label",
    reason: ReasonMode = "llm",
) -> Scorer:
    """Build a verdict scorer that judges its units against the run's context.

    The context is a fixed list (``context``) or what ``context_extractor(input, output)``
    returns per run (it wins); blank pieces are dropped; a run whose resolved context is empty
    is ``skipped`` with the reason ``recipe.no_context``, one whose pieces are all blank with
    :data:`scorekit.inputs.retrieval_context.ALL_BLANK_REASON`, without a judge call. Hallucination
    and Context Recall are built so.

    Args:
        recipe: the scorer's parts, ``no_context`` set.
        model: the judge, as a factory's ``model`` option.
        scale: the maximum score, a finite number > 0.
        context: the context pieces, a non-empty list of strings, or ``None``.
        context_extractor: ``(input, output) -> list[str]``, sync or async, or ``None``.
        scoring: ``"label"`` or ``"expected"`` (:func:`verdict_scorer`).
        reason: ``"llm"``, ``"template"`` or ``"none"`` (:func:`verdict_scorer`).

    Raises:
        ConfigError: neither ``context`` nor ``context_extractor``; an empty or all-blank
            ``context``; a bad ``scale`` or ``scoring``; ``model`` is not a judge, a judge
            model or a model string.
        JudgeUnavailableError: the model string cannot be resolved.
        ValueError: ``recipe.no_context`` is not set (a programming error).
    """
    if recipe.no_context is None:
        raise ValueError(f"recipe {recipe.scorer_id!r} has no no_context reason")
    source = ContextSource.of(
        context, context_extractor, scorer=recipe.name.removesuffix(" Scorer")
    )
    check = ContextCheck(source.resolve, recipe.no_context)
    return verdict_scorer(
        recipe,
        model,
        check_scale(scale),
        context=check,
        scoring=check_scoring(scoring),
        reason=reason,
    )
