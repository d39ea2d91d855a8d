"""Rubric (LLM): whether a response meets every required criterion of a rubric.

Score ``0`` or ``scale``; higher is better. The rubric is a list of criteria, each required
(the default) or optional. A judge gives one verdict per criterion, by index: satisfied or not,
and why. Then (Mastra evals 1.10.2 rubric; mastra-scorers.md §4.12)::

    gate  = the required criteria (all criteria when none is required)
    score = scale if every criterion of the gate is satisfied else 0      (not rounded)

The reason is written locally: a header (``✅ Rubric satisfied: every required criterion is
met.`` when ``score >= 1``, else ``❌ Rubric not yet satisfied.``, as in Mastra, so that a
passing run with ``scale < 1`` reads "not yet satisfied"), one line per criterion, the judge's
overall assessment, and, below 1, how many required criteria are unmet.

The rubric is the factory's ``criteria`` when non-empty, else the ``rubric`` of the run's
``request_context``, then of its ``additional_context``, then of its ``input`` (a mapping). A
rubric is a list of criteria (``{"description", "required"?, "id"?}`` mappings or strings) or
a checklist string, one criterion per line (``-``, ``*``, ``•``, ``1.`` or ``1)`` markers are
removed; every line is required).

Divergences (docs/divergences.md): 1, 4 (``scale`` validated), 10; row 58 (required flags
and criterion texts are ours, never the judge's echo); row 59 (exactly one verdict per
criterion: a reply that leaves criteria out is repaired once, then ``error``; Mastra grades
what came back, and scores a reply without criteria 1); row 60 (no rubric anywhere:
``skipped`` without a judge call; Mastra asks the judge anyway and scores 1 unscaled, or grades
criteria the judge invented).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from scorekit.errors import ConfigError
from scorekit.inputs.messages import get_assistant_message, get_user_message
from scorekit.judge.judge import Judge
from scorekit.judge.model import JudgeModel
from scorekit.judge.structured import SchemaSpec
from scorekit.pipeline import NotScorable, PromptStep, Scorer, StepContext, not_scorable
from scorekit.scorers.entry import ScorerEntry
from scorekit.scorers.judged import judged_scorer
from scorekit.scorers.options import check_scale
from scorekit.scorers.replies import LANGUAGE_RULE, CountedReply, JudgeReply
from scorekit.steps import ScorerRun
from scorekit.text.whitespace import JS_WS_CLASS, js_trim

__all__ = [
    "EMPTY_RESPONSE_REASON",
    "ENTRY",
    "NO_RUBRIC_REASON",
    "SCORER_ID",
    "CriterionVerdict",
    "Rubric",
    "RubricCriterion",
    "RubricSource",
    "RubricVerdicts",
    "create_rubric_scorer",
    "parse_rubric",
    "resolve_rubric",
    "rubric_reason",
    "rubric_score",
]

SCORER_ID = "rubric-scorer"
"""The scorer's stable id (Mastra's)."""

RubricSource = Literal["criteria", "request_context", "additional_context", "input"]
"""Where a run's rubric came from: the factory's ``criteria`` or the run field of that name."""

EMPTY_RESPONSE_REASON = "The response is empty: there is nothing to grade against the rubric."
"""The reason of a run ``skipped`` because its response is blank (row 73)."""

NO_RUBRIC_REASON = (
    "No rubric to grade against: the scorer has no criteria, and the run's request_context, "
    "additional_context and input hold no 'rubric'."
)
"""The reason of a ``skipped`` result (row 60)."""

INSTRUCTIONS = (
    "You grade AI responses against rubrics. You decide every criterion on its own, strictly: "
    "a criterion is satisfied only when the response clearly meets it, and when in doubt it is "
    "not. You answer exactly in the format asked for."
)
"""System instructions of the Rubric judge."""

_MARKER = re.compile(rf"^{JS_WS_CLASS}*(?:[-*•]|\d+[.)]){JS_WS_CLASS}*")
# a checklist line's leading marker: "-", "*", "•", "1." or "1)" (Mastra's pattern, JS \s)

_CRITERION_KEYS = frozenset({"description", "required", "id"})


class RubricCriterion(BaseModel):
    """One criterion of a rubric."""

    model_config = ConfigDict(frozen=True)

    description: str
    """What the response must do."""
    required: bool = True
    """Whether the score depends on it (an optional criterion is graded and reported only)."""
    id: str | None = None
    """An id of the caller's, kept for reference."""


class Rubric(BaseModel):
    """The preprocess step's result: the criteria a run is graded against, numbered from 0."""

    model_config = ConfigDict(frozen=True)

    criteria: tuple[RubricCriterion, ...]
    """The criteria, in order (at least one)."""
    source: RubricSource
    """Where they came from."""


def _criterion(item: Any, field: str) -> RubricCriterion:
    if isinstance(item, RubricCriterion):
        return item
    if isinstance(item, str):
        item = {"description": item}
    if not isinstance(item, Mapping):
        raise ConfigError(
            f"{field} must be a string or a {{'description', 'required'?}} mapping, "
            f"not {type(item).__name__}",
            field=field,
        )
    unknown = sorted(str(key) for key in item if key not in _CRITERION_KEYS)
    if unknown:
        raise ConfigError(
            f"{field} has unknown key(s) {unknown}; a criterion has 'description', "
            "'required' and 'id'",
            field=field,
        )
    description, required = item.get("description"), item.get("required", True)
    if not isinstance(description, str) or not js_trim(description):
        raise ConfigError(f"{field}.description must be a non-blank string", field=field)
    if not isinstance(required, bool):
        raise ConfigError(f"{field}.required must be true or false, got {required!r}", field=field)
    ident = item.get("id")
    if ident is not None and not isinstance(ident, str):
        raise ConfigError(f"{field}.id must be a string, got {ident!r}", field=field)
    return RubricCriterion(description=description, required=required, id=ident)


def parse_rubric(value: Any, *, field: str = "criteria") -> tuple[RubricCriterion, ...]:
    """Read a rubric: a checklist string or a list of criteria.

    A string is split into lines; each line loses a leading ``-``, ``*``, ``•``, ``1.`` or
    ``1)`` marker and surrounding whitespace, blank lines are dropped, and every line is a
    required criterion (Mastra 1.10.2). A list holds :class:`RubricCriterion` objects,
    ``{"description": str, "required": bool (default true), "id": str}`` mappings (Mastra's
    ``RubricCriterion``) or strings (required criteria).

    Args:
        value: the rubric, or ``None``.
        field: the option or run field it came from, for error messages.

    Returns:
        The criteria; ``()`` for ``None``, an empty list or a blank checklist.

    Raises:
        ConfigError: another type, or a malformed criterion (naming ``field``).

    Example:
        >>> [c.description for c in parse_rubric("- Cites a source\\n2) Under 100 words")]
        ['Cites a source', 'Under 100 words']
    """
    if value is None:
        return ()
    if isinstance(value, str):
        lines = (js_trim(_MARKER.sub("", line, count=1)) for line in value.split("\n"))
        return tuple(RubricCriterion(description=line) for line in lines if line)
    if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        return tuple(_criterion(item, f"{field}[{i}]") for i, item in enumerate(value))
    raise ConfigError(
        f"{field} must be a checklist string or a list of criteria, not {type(value).__name__}",
        field=field,
    )


def _rubric_in(value: Any) -> Any:
    """The ``rubric`` entry of a run field: a mapping's key, or an object's ``.get``."""
    if isinstance(value, Mapping):
        return value.get("rubric")
    getter = getattr(value, "get", None)
    if value is not None and not isinstance(value, (str, list)) and callable(getter):
        return getter("rubric")
    return None


def resolve_rubric(static: tuple[RubricCriterion, ...], run: ScorerRun) -> Rubric | None:
    """The rubric a run is graded against (order in the module docstring), or ``None``.

    Raises:
        ConfigError: a run field's ``rubric`` is malformed (``field`` names it).
    """
    if static:
        return Rubric(criteria=static, source="criteria")
    sources: tuple[tuple[RubricSource, Any], ...] = (
        ("request_context", run.request_context),
        ("additional_context", run.additional_context),
        ("input", run.input),
    )
    for source, holder in sources:
        given = _rubric_in(holder)
        criteria = parse_rubric(given, field=f"{source}.rubric")
        if criteria:
            return Rubric(criteria=criteria, source=source)
        if isinstance(given, str):  # a rubric was given, but every line of it is blank
            raise ConfigError(f"{source}.rubric holds no criterion", field=f"{source}.rubric")
    return None


class CriterionVerdict(JudgeReply):
    """The judge's verdict on one criterion.

    Replies in Mastra's shape also echo each criterion's text (``criterion``) and its
    ``required`` flag; both are dropped when the reply is read (row 58): the criteria are
    ours.
    """

    criterion_index: int | None = Field(default=None, ge=0)
    """The criterion's number, from 0; may be left out by every verdict (then: in order)."""
    satisfied: bool
    """Whether the response meets the criterion."""
    reasoning: str
    """Why, in the language of the user's query."""

    @model_validator(mode="before")
    @classmethod
    def _drop_echoes(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            return {k: v for k, v in data.items() if k not in ("criterion", "required")}
        return data


class RubricVerdicts(CountedReply):
    """The analyze step's result: one verdict per criterion, and an overall assessment.

    ``RubricVerdicts.expecting(n)`` asks for exactly ``n`` verdicts; when they carry
    ``criterion_index``, each index from 0 to ``n - 1`` must appear once.
    """

    ITEMS: ClassVar[str] = "criteria"
    ITEM_OF: ClassVar[str] = "criterion"

    criteria: list[CriterionVerdict]
    """One verdict per criterion."""
    overall_assessment: str
    """A summary of how the response does against the rubric."""

    def check_count(self, expected: int) -> None:
        """Raise ``ValueError`` unless there are ``expected`` verdicts, indexed consistently."""
        super().check_count(expected)
        indices = [v.criterion_index for v in self.criteria]
        if all(i is None for i in indices):
            return
        if any(i is None for i in indices) or sorted(indices) != list(range(expected)):  # type: ignore[type-var]
            raise ValueError(
                f"expected exactly {expected} criteria verdicts, one for each criterion_index "
                f"from 0 to {expected - 1}; got criterion_index values {indices}"
            )

    def in_order(self) -> list[CriterionVerdict]:
        """The verdicts in criterion order (by ``criterion_index`` when given)."""
        if any(v.criterion_index is None for v in self.criteria):
            return list(self.criteria)
        return sorted(self.criteria, key=lambda v: v.criterion_index or 0)


def rubric_score(
    satisfied: Sequence[bool], required: Sequence[bool], *, scale: float = 1.0
) -> float:
    """Return the Rubric score (formula in the module docstring).

    Args:
        satisfied: whether each criterion is met, in criterion order (at least one).
        required: whether each criterion is required, in the same order.
        scale: the maximum score, ``> 0``.

    Raises:
        ValueError: no criteria, or lists of different lengths (nothing to grade is never a
            pass: row 59, row 60).

    Example:
        >>> rubric_score([True, False], [True, False])
        1.0
        >>> rubric_score([True, False], [False, False], scale=10)
        0.0
    """
    if not satisfied or len(satisfied) != len(required):
        raise ValueError(
            f"a rubric score needs one verdict per criterion: {len(satisfied)} verdicts for "
            f"{len(required)} criteria"
        )
    gate = [met for met, needed in zip(satisfied, required, strict=True) if needed]
    return float(scale) if all(gate or satisfied) else 0.0


def rubric_reason(
    criteria: Sequence[RubricCriterion],
    verdicts: Sequence[CriterionVerdict],
    overall_assessment: str,
    score: float,
) -> str:
    """Write the reason of a Rubric score (Mastra's layout, our criteria).

    Args:
        criteria: the rubric.
        verdicts: one verdict per criterion, in the same order.
        overall_assessment: the judge's summary (left out when empty).
        score: the score; ``>= 1`` gives the "satisfied" header, as in Mastra.
    """
    passed = score >= 1
    header = (
        "✅ Rubric satisfied: every required criterion is met."
        if passed
        else "❌ Rubric not yet satisfied."
    )
    lines = [
        f"{'✅' if v.satisfied else '❌'} [{'required' if c.required else 'optional'}] "
        f"{c.description}\n   → {v.reasoning}"
        for c, v in zip(criteria, verdicts, strict=True)
    ]
    text = header + "\n\n" + "\n".join(lines)
    if overall_assessment:
        text += "\n\n" + overall_assessment
    if not passed:
        unmet = sum(
            1 for c, v in zip(criteria, verdicts, strict=True) if c.required and not v.satisfied
        )
        noun = "criterion" if unmet == 1 else "criteria"
        text += f"\n\nTo finish, address the {unmet} unmet required {noun} above."
    return text


def _task(run: ScorerRun) -> str:
    original = run.input.get("originalTask") if isinstance(run.input, Mapping) else None
    if isinstance(original, str):
        return original
    return get_user_message(run.input) or "(no task provided)"


def _response_text(run: ScorerRun) -> str:
    text = get_assistant_message(run.output)
    if text:
        return text
    current = run.input.get("currentText") if isinstance(run.input, Mapping) else None
    return current if isinstance(current, str) else ""


def _response(run: ScorerRun) -> str:
    return _response_text(run) or "(empty output)"


def _analyze_prompt(task: str, criteria: Sequence[RubricCriterion], response: str) -> str:
    listed = "\n".join(
        f"[{i}] ({'required' if c.required else 'optional'}) {c.description}"
        for i, c in enumerate(criteria)
    )
    last = len(criteria) - 1
    return f"""Grade a response against a rubric, one criterion at a time.

Task the response was written for:
{task}

Rubric (criteria numbered from 0):
{listed}

Response:
{response}

Give exactly {len(criteria)} verdicts, one per criterion: criterion_index 0 to {last}, each
index once, in order. For each:
- "criterion_index": the criterion's number.
- "satisfied": true only when the response clearly meets the criterion, false when it does not
  or when you are unsure. Decide each criterion by itself; whether it is required or optional
  does not change how strictly you judge it.
- "reasoning": one or two sentences that point at what the response does or lacks.
Then "overall_assessment": one or two sentences on the response against the whole rubric.
{LANGUAGE_RULE}

Answer with JSON only:
{{"criteria": [{{"criterion_index": 0, "satisfied": true, "reasoning": "..."}}],
 "overall_assessment": "..."}}"""


def create_rubric_scorer(
    *,
    model: str | JudgeModel | Judge,
    criteria: str | Sequence[RubricCriterion | Mapping[str, Any] | str] | None = None,
    scale: float = 1.0,
) -> Scorer:
    """Create the Rubric (LLM) scorer.

    Args:
        model: the judge: a ``"provider/model"`` string, a ``JudgeModel`` or a ``Judge``.
        criteria: the rubric for every run: a checklist string (one required criterion per
            line) or a list of ``{"description": str, "required": bool (default true),
            "id": str}`` mappings, :class:`RubricCriterion` objects or strings. ``None`` or
            empty: each run's ``request_context["rubric"]`` (then ``additional_context``, then
            ``input``), in the same shapes.
        scale: the score of a pass, a finite number > 0.

    Returns:
        A scorer with one judge call per run; ``preprocess_step_result`` is the
        :class:`Rubric` used, ``analyze_step_result`` a :class:`RubricVerdicts`, and the reason
        is written locally. A run with no rubric anywhere is ``skipped`` without a judge call.

    Raises:
        ConfigError: malformed ``criteria`` or a bad ``scale``.

    Example:
        >>> from scorekit.judge import ScriptedJudge
        >>> judge = ScriptedJudge([{"criteria": [
        ...     {"criterion_index": 0, "satisfied": True, "reasoning": "it does"}],
        ...     "overall_assessment": "good"}])
        >>> scorer = create_rubric_scorer(model=judge, criteria="- Says hello")
        >>> result = scorer.run_sync(input="Greet me", output="Hello!")
        >>> result.score, result.reason.splitlines()[0]
        (1.0, '✅ Rubric satisfied: every required criterion is met.')
    """
    static = parse_rubric(criteria, field="criteria")
    scale = check_scale(scale)

    def preprocess(ctx: StepContext) -> Rubric | NotScorable:
        rubric = resolve_rubric(static, ctx.run)
        if rubric is None:
            return not_scorable(NO_RUBRIC_REASON)
        if not js_trim(_response_text(ctx.run)):  # row 73: nothing to grade
            return not_scorable(EMPTY_RESPONSE_REASON)
        return rubric

    def analyze_prompt(ctx: StepContext) -> str:
        rubric: Rubric = ctx.results.preprocess_step_result
        return _analyze_prompt(_task(ctx.run), rubric.criteria, _response(ctx.run))

    def analyze_schema(ctx: StepContext) -> SchemaSpec:
        rubric: Rubric = ctx.results.preprocess_step_result
        return RubricVerdicts.expecting(len(rubric.criteria))

    def generate_score(ctx: StepContext) -> float:
        rubric: Rubric = ctx.results.preprocess_step_result
        verdicts: RubricVerdicts = ctx.results.analyze_step_result
        return rubric_score(
            [v.satisfied for v in verdicts.in_order()],
            [c.required for c in rubric.criteria],
            scale=scale,
        )

    def generate_reason(ctx: StepContext) -> str:
        rubric: Rubric = ctx.results.preprocess_step_result
        verdicts: RubricVerdicts = ctx.results.analyze_step_result
        assert ctx.score is not None  # the reason step runs after the score
        return rubric_reason(
            rubric.criteria, verdicts.in_order(), verdicts.overall_assessment, ctx.score
        )

    return judged_scorer(
        SCORER_ID,
        name="Rubric (LLM)",
        description="Whether the response meets every required criterion of a rubric",
        model=model,
        instructions=INSTRUCTIONS,
        preprocess=preprocess,
        analyze=PromptStep("Grade each criterion of the rubric", analyze_prompt, analyze_schema),
        score=generate_score,
        reason=generate_reason,
    )


ENTRY = ScorerEntry(
    name="rubric",
    scorer_id=SCORER_ID,
    factory=create_rubric_scorer,
    kind="llm",
    summary="Whether the response meets every required criterion of a rubric",
)
"""This scorer in the registry (:mod:`scorekit.scorers.registry`)."""
