"""The scorer pipeline: ``create_scorer``, its steps, and the run algorithm.

A scorer is an immutable chain of up to four steps run in the canonical order
``preprocess → analyze → generate_score → generate_reason`` (Mastra evals ``createScorer``,
mastra-core.md §2). Each step is either a function (sync or async) receiving a
:class:`StepContext`, or a :class:`PromptStep` that asks the judge.

Differences from Mastra, by design: the canonical order and one step of each kind are enforced
when the scorer is built (Mastra runs steps in call order); a missing ``generate_score`` is
reported when ``run`` is called (as in Mastra); a score must be a finite number (never NaN,
divergences.md row 5); a step may return :func:`not_scorable` to end the run with status
``skipped``; a prompt step's ``create_prompt`` may return :func:`local_result` (or
:func:`not_scorable`) to settle the step without a judge call; a ``generate_score`` prompt
step's score must be in range (:class:`PromptStep`): 7 on a 0–1 scale is an ``error``.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import numbers
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from scorekit._sync import run_sync
from scorekit.errors import ConfigError, JudgeError, JudgeOutputError, ScorerRunError
from scorekit.judge.judge import Judge
from scorekit.judge.structured import OutputSchema
from scorekit.prompt_step import (
    SCORE_RANGE,
    PromptStep,
    ScoreOutput,
    Step,
    has_score_field,
    resolve_schema,
)
from scorekit.results import RunError, ScorerRunResult, Status
from scorekit.steps import (
    RECORD_FIELDS,
    RESULT_FIELDS,
    LocalResult,
    NotScorable,
    ScorerRun,
    StepContext,
    StepResults,
    local_result,
    not_scorable,
    record_values,
)
from scorekit.usage import JudgeUsage

__all__ = [
    "SCORE_RANGE",
    "STEP_NAMES",
    "LocalResult",
    "NotScorable",
    "PromptStep",
    "Rebuildable",
    "RunError",
    "Scorer",
    "ScorerRun",
    "ScorerRunResult",
    "Status",
    "StepContext",
    "StepInfo",
    "StepName",
    "StepResults",
    "create_scorer",
    "local_result",
    "not_scorable",
]

StepName = Literal["preprocess", "analyze", "generate_score", "generate_reason"]
STEP_NAMES: tuple[StepName, ...] = ("preprocess", "analyze", "generate_score", "generate_reason")
"""The step kinds in the order they run."""


@dataclass(frozen=True)
class StepInfo:
    """A step's description, as ``Scorer.get_steps`` lists it."""

    name: StepName
    type: Literal["function", "prompt"]
    description: str | None


@dataclass
class _RunState:
    """Mutable bookkeeping of one run (never shared between runs)."""

    results: StepResults = field(default_factory=StepResults)
    prompts: dict[str, str] = field(default_factory=dict)
    usage: JudgeUsage = field(default_factory=JudgeUsage)
    completed: list[StepName] = field(default_factory=list)
    reason: Any = None


def _is_finite_number(value: Any) -> bool:
    # numbers.Real covers numpy's scalars too; bool is a Real but never a score
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)


class Rebuildable(Protocol):
    """What a scorer's ``spec`` is: picklable data that builds the same scorer again.

    :class:`scorekit.scorers.ScorerSpec` is the one scorekit makes (``build_scorer`` attaches
    it); the pipeline needs only its ``build``, so it knows nothing of the scorer registry.
    """

    def build(self) -> Scorer:
        """Build the scorer this spec describes."""
        ...


def _rebuild(spec: Rebuildable) -> Scorer:
    return spec.build()  # what an unpickled scorer is made by: its spec, built again


class Scorer:
    """An immutable scorer: an id, descriptive fields, a default judge and its steps.

    Build it with :func:`create_scorer` and the step methods; each returns a new scorer.
    A scorer holds no per-run state, so one scorer may serve many concurrent runs.

    A scorer made by :func:`scorekit.scorers.build_scorer` carries its ``spec`` (the name,
    options and judge it was built from) and pickles as that spec (unpickling builds it again:
    how it reaches a worker process); its steps are closures, so a scorer without a spec does
    not pickle. The builder methods return scorers without a spec (their steps differ).

    Attributes:
        id: the stable id, kebab-case by convention.
        name: the display name (``id`` when none was given).
        description: what the scorer measures.
        judge: the default judge of its prompt steps, or ``None``.
        spec: what rebuilds it in another process, or ``None``.
    """

    __slots__ = ("_steps", "description", "id", "judge", "name", "spec")

    def __init__(
        self,
        id: str,
        *,
        name: str | None,
        description: str,
        judge: Judge | None,
        steps: tuple[tuple[StepName, Step], ...] = (),
        spec: Rebuildable | None = None,
    ) -> None:
        self.id = id
        self.name = name or id
        self.description = description
        self.judge = judge
        self._steps = steps
        self.spec = spec

    def __repr__(self) -> str:
        names = ", ".join(name for name, _ in self._steps)
        return f"Scorer(id={self.id!r}, steps=[{names}])"

    def __reduce__(self) -> tuple[Callable[[Rebuildable], Scorer], tuple[Rebuildable]]:
        if self.spec is None:
            raise TypeError(
                f"scorer {self.id!r} cannot be pickled: its steps are functions that do not "
                "travel between processes; build it with scorekit.scorers.build_scorer to "
                "send it to another process"
            )
        return (_rebuild, (self.spec,))

    # immutable: a copy is the scorer itself (and copying must not go through __reduce__)
    def __copy__(self) -> Scorer:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Scorer:
        return self

    @property
    def judge_models(self) -> list[str]:
        """The model ids (``"provider/model"``) of its judges, once each.

        Its default judge first, then any prompt step's own judge; ``[]`` for a scorer of plain
        functions (no judge call, no cost). What a run's price check and its stored prices read.
        """
        found: dict[str, None] = {}
        if self.judge is not None:
            found[self.judge.model_id] = None
        for _, step in self._steps:
            if isinstance(step, PromptStep) and step.judge is not None:
                found[step.judge.model_id] = None
        return list(found)

    def with_spec(self, spec: Rebuildable | None) -> Scorer:
        """Return this scorer carrying ``spec``, the data that builds it again.

        :func:`scorekit.scorers.build_scorer` calls it; a scorer factory of your own
        registered with scorekit needs nothing more.
        """
        return Scorer(
            self.id,
            name=self.name,
            description=self.description,
            judge=self.judge,
            steps=self._steps,
            spec=spec,
        )

    def _with(self, name: StepName, step: Step) -> Scorer:
        position = STEP_NAMES.index(name)
        for existing, _ in self._steps:
            if existing == name:
                raise ConfigError(
                    f"scorer {self.id!r} already has a {name} step; each step kind appears once",
                    field=name,
                )
            if STEP_NAMES.index(existing) > position:
                raise ConfigError(
                    f"scorer {self.id!r}: {name} must be added before {existing}; steps run in "
                    "the order preprocess → analyze → generate_score → generate_reason",
                    field=name,
                )
        if isinstance(step, PromptStep):
            if name in ("preprocess", "analyze") and step.output_schema is None:
                raise ConfigError(
                    f"the {name} prompt step of scorer {self.id!r} needs an output_schema",
                    field="output_schema",
                )
            if name == "generate_score" and not has_score_field(step.output_schema):
                raise ConfigError(
                    f"the generate_score prompt step of scorer {self.id!r}: its output_schema "
                    "needs a 'score' property",
                    field="output_schema",
                )
            if (step.judge or self.judge) is None:
                raise ConfigError(
                    f"the {name} prompt step of scorer {self.id!r} needs a judge: pass judge= "
                    "to create_scorer or to the PromptStep",
                    field="judge",
                )
        elif not callable(step):
            raise ConfigError(
                f"a {name} step must be a function or a PromptStep, not {type(step).__name__}",
                field=name,
            )
        return Scorer(
            self.id,
            name=self.name,
            description=self.description,
            judge=self.judge,
            steps=(*self._steps, (name, step)),
        )

    def preprocess(self, step: Step) -> Scorer:
        """Return a new scorer with ``step`` as its preprocess step."""
        return self._with("preprocess", step)

    def analyze(self, step: Step) -> Scorer:
        """Return a new scorer with ``step`` as its analyze step."""
        return self._with("analyze", step)

    def generate_score(self, step: Step) -> Scorer:
        """Return a new scorer with ``step`` as its score step (required before ``run``)."""
        return self._with("generate_score", step)

    def generate_reason(self, step: Step) -> Scorer:
        """Return a new scorer with ``step`` as its reason step."""
        return self._with("generate_reason", step)

    def get_steps(self) -> list[StepInfo]:
        """List the steps in order, with their kind and description."""
        return [
            StepInfo(name, "prompt", step.description)
            if isinstance(step, PromptStep)
            else StepInfo(name, "function", getattr(step, "description", None))
            for name, step in self._steps
        ]

    async def _run_step(
        self, name: StepName, step: Step, ctx: StepContext, state: _RunState
    ) -> Any:
        if not isinstance(step, PromptStep):
            value = step(ctx)
            if inspect.isawaitable(value):
                value = await value
            return value
        judge = step.judge or self.judge
        assert judge is not None  # checked when the step was added
        prompt = step.create_prompt(ctx)
        if inspect.isawaitable(prompt):
            prompt = await prompt
        if isinstance(prompt, NotScorable):
            return prompt
        if isinstance(prompt, LocalResult):
            return prompt.value
        if not isinstance(prompt, str):
            raise ConfigError(
                f"create_prompt of the {name} step returned {type(prompt).__name__}, not str",
                field="create_prompt",
            )
        state.prompts[name] = prompt
        if name == "generate_reason":
            text_result = await judge.generate_text(prompt, step=name)
            state.usage = state.usage + text_result.usage
            return text_result.value
        schema: OutputSchema = (
            ScoreOutput
            if name == "generate_score" and step.output_schema is None
            else await resolve_schema(step, ctx)
        )
        result = await judge.generate_object(prompt, schema, step=name)
        state.usage = state.usage + result.usage
        value = result.value
        if name != "generate_score":
            return value  # else run() checks that the score is a finite number
        return value.get("score") if isinstance(value, Mapping) else getattr(value, "score", None)

    def _result(
        self,
        run: ScorerRun,
        state: _RunState,
        started: float,
        *,
        status: Status,
        error: RunError | None = None,
    ) -> ScorerRunResult:
        score = state.results.generate_score_step_result if status == "ok" else None
        return ScorerRunResult(
            scorer_id=self.id,
            run_id=run.run_id,
            status=status,
            score=score,
            reason=state.reason,
            **record_values(run, RESULT_FIELDS),
            preprocess_step_result=state.results.preprocess_step_result,
            analyze_step_result=state.results.analyze_step_result,
            preprocess_prompt=state.prompts.get("preprocess"),
            analyze_prompt=state.prompts.get("analyze"),
            generate_score_prompt=state.prompts.get("generate_score"),
            generate_reason_prompt=state.prompts.get("generate_reason"),
            error=error,
            judge_usage=state.usage,
            duration_s=time.perf_counter() - started,
        )

    async def run(self, record: ScorerRun | None = None, /, **fields: Any) -> ScorerRunResult:
        """Score one record.

        Give the record (:class:`~scorekit.steps.ScorerRun`), or its fields as keywords (the
        keyword form builds the record): ``output`` (required), ``input``, ``ground_truth``,
        ``context``, ``request_context``, ``expected_trajectory``, ``additional_context``
        (:data:`~scorekit.steps.RECORD_FIELDS`) and ``run_id``.

        Args:
            record: the record to score; its empty ``run_id`` becomes a uuid4 string.
            **fields: the record's fields, when no record is given:

                * output: the output being scored (a string, chat messages, or Mastra agent
                  output).
                * input: the input that produced it (same shapes, or a Mastra agent run input).
                * ground_truth: the expected output or reference, if any.
                * context: retrieved context pieces for context scorers (``ctx.run.context``).
                * request_context: any per-request data, passed through to the steps and the
                  result.
                * expected_trajectory: the expected steps for trajectory scorers (a trajectory
                  ``{"steps": [...]}`` or a list of steps, in Mastra's shapes).
                * additional_context: further data for the judge
                  (``ctx.run.additional_context``).
                * run_id: an id for the run; a uuid4 string when omitted.

        Returns:
            The result: status ``"ok"`` with a finite ``score``, or ``"skipped"`` when a step
            returned :func:`not_scorable` (``score`` is ``None``, ``reason`` says why).

        Raises:
            ConfigError: the scorer has no ``generate_score`` step, a keyword is not a record
                field, both a record and keywords are given, ``output`` is ``None``,
                ``run_id`` is not a string, or ``context`` is not a list of strings.
            ScorerRunError: a step raised, or the score is not a finite number; ``.result``
                holds the partial result with status ``"error"``.
        """
        if not any(name == "generate_score" for name, _ in self._steps):
            raise ConfigError(
                f"scorer {self.id!r} cannot run without a generate_score step",
                field="generate_score",
            )
        run = _checked_record(self.id, record, fields)
        started = time.perf_counter()
        state = _RunState()
        for name, step in self._steps:
            ctx = StepContext(run, state.results, state.results.generate_score_step_result)
            try:
                value = await self._run_step(name, step, ctx, state)
                if isinstance(value, NotScorable):
                    state.reason = value.reason
                    return self._result(run, state, started, status="skipped")
                if name == "generate_score":
                    if not _is_finite_number(value):
                        raise ValueError(
                            f"generate_score returned {value!r}; a score must be a finite number"
                        )
                    value = float(value)  # a plain float, whatever the step returned
            except Exception as exc:
                raise self._failure(run, state, started, name, exc) from exc
            state.results = _store(state.results, name, value)
            if name == "generate_reason":
                state.reason = value
            state.completed.append(name)
        return self._result(run, state, started, status="ok")

    def _failure(
        self, run: ScorerRun, state: _RunState, started: float, name: StepName, exc: Exception
    ) -> ScorerRunError:
        raw = exc.raw_output if isinstance(exc, JudgeOutputError) else None
        if isinstance(exc, JudgeError) and exc.usage is not None:
            state.usage = state.usage + exc.usage
        error = RunError(type=type(exc).__name__, message=str(exc), step=name, raw_output=raw)
        partial = self._result(run, state, started, status="error", error=error)
        return ScorerRunError(
            f"Scorer Run Failed: {exc}",
            scorer_id=self.id,
            failed_step=name,
            completed_steps=tuple(state.completed),
            result=partial,
        )

    def run_sync(self, record: ScorerRun | None = None, /, **fields: Any) -> ScorerRunResult:
        """Blocking :meth:`run` (same arguments); works inside a running event loop too.

        Notebooks and FastAPI handlers call it where a loop already runs.
        A scorer whose steps are plain functions (no judge) runs at once, without the event
        loop's rounds (``run_sync(eager=True)``, :mod:`scorekit._sync`).
        """
        eager = not any(isinstance(step, PromptStep) for _, step in self._steps)
        return run_sync(self.run(record, **fields), eager=eager)


_RUN_KEYWORDS = frozenset({*RECORD_FIELDS, "run_id"})


def _checked_record(scorer_id: str, record: ScorerRun | None, given: dict[str, Any]) -> ScorerRun:
    """The record :meth:`Scorer.run` scores (built from keywords when none is given), checked."""
    if record is not None and given:
        raise ConfigError(
            f"give the record or its fields as keywords, not both ({', '.join(sorted(given))})",
            field=sorted(given)[0],
        )
    if record is None:
        unknown = sorted(set(given) - _RUN_KEYWORDS)
        if unknown:
            raise ConfigError(
                f"scorer {scorer_id!r}: unknown record field(s) {', '.join(unknown)}; "
                f"known: {', '.join(sorted(_RUN_KEYWORDS))}",
                field=unknown[0],
            )
        run_id = given.get("run_id")
        run_id = "" if run_id is None else run_id
        context = given.get("context")
        _check_fields(scorer_id, given.get("output"), run_id, context)
        # built once, filled in: a record is frozen, and replace() costs a second build
        return ScorerRun(
            **{**given, "run_id": run_id or str(uuid.uuid4()), "context": _pieces(context)}
        )
    if not isinstance(record, ScorerRun):
        raise ConfigError(
            f"the record must be a ScorerRun, not {type(record).__name__}", field="record"
        )
    _check_fields(scorer_id, record.output, record.run_id, record.context)
    if record.run_id and (record.context is None or isinstance(record.context, tuple)):
        return record  # nothing to fill in (frozen: the caller's record is safe to share)
    return dataclasses.replace(
        record, run_id=record.run_id or str(uuid.uuid4()), context=_pieces(record.context)
    )


def _check_fields(scorer_id: str, output: Any, run_id: Any, context: Any) -> None:
    """The record's checks: an output, a string run id, context as a list of strings."""
    if output is None:
        raise ConfigError(f"scorer {scorer_id!r}: output is required", field="output")
    if not isinstance(run_id, str):
        raise ConfigError(f"run_id must be a string, not {type(run_id).__name__}", field="run_id")
    if context is not None and (
        isinstance(context, (str, bytes, Mapping))
        or not isinstance(context, Sequence)
        or not all(isinstance(piece, str) for piece in context)
    ):
        raise ConfigError("context must be a list of strings", field="context")


def _pieces(context: Sequence[str] | None) -> tuple[str, ...] | None:
    return tuple(context) if context is not None else None


def _store(results: StepResults, name: StepName, value: Any) -> StepResults:
    # built directly: dataclasses.replace walks the fields in Python on every step
    if name == "preprocess":
        return StepResults(value, results.analyze_step_result, results.generate_score_step_result)
    if name == "analyze":
        return StepResults(
            results.preprocess_step_result, value, results.generate_score_step_result
        )
    if name == "generate_score":
        return StepResults(results.preprocess_step_result, results.analyze_step_result, value)
    return results


def create_scorer(
    id: str, *, description: str, name: str | None = None, judge: Judge | None = None
) -> Scorer:
    """Create an empty scorer; add steps with its builder methods.

    Args:
        id: a stable identifier, conventionally kebab-case (``"my-scorer"``); non-empty.
        description: what the scorer measures.
        name: a display name; defaults to ``id``.
        judge: the default judge of the scorer's prompt steps.

    Returns:
        A scorer with no steps.

    Raises:
        ConfigError: ``id`` is empty or not a string.

    Example:
        >>> scorer = create_scorer("length", description="Output length").generate_score(
        ...     lambda ctx: min(len(ctx.run.output) / 100, 1.0))
        >>> scorer.run_sync(output="x" * 50).score
        0.5
    """
    if not isinstance(id, str) or not id.strip():
        raise ConfigError("a scorer needs a non-empty string id", field="id")
    if not isinstance(description, str):
        raise ConfigError("a scorer's description must be a string", field="description")
    if judge is not None and not isinstance(judge, Judge):
        raise ConfigError(
            f"judge must be a scorekit.Judge, not {type(judge).__name__}", field="judge"
        )
    return Scorer(id, name=name, description=description, judge=judge)
