"""``judged_scorer``: the step chain every prebuilt LLM scorer is made of.

A prebuilt LLM scorer is a judge with the scorer's instructions, an optional ``preprocess``
step, an ``analyze`` step (the judge's structured reply), a ``generate_score`` step (the formula
over that reply) and, unless the caller turned it off, a ``generate_reason`` step. Each scorer
module writes its own prompts, schemas and formula; this module wires them in that order, once.
"""

from __future__ import annotations

from scorekit.judge.judge import Judge
from scorekit.judge.model import JudgeModel
from scorekit.judge.model_option import to_judge
from scorekit.pipeline import Scorer, create_scorer
from scorekit.prompt_step import Step

__all__ = ["judged_scorer"]


def judged_scorer(
    scorer_id: str,
    *,
    name: str,
    description: str,
    model: str | JudgeModel | Judge,
    instructions: str,
    analyze: Step,
    score: Step,
    reason: Step | None = None,
    preprocess: Step | None = None,
) -> Scorer:
    """Build a prebuilt LLM scorer from its steps, in the pipeline's order.

    Args:
        scorer_id: the scorer's stable id (Mastra's, kebab-case).
        name: its display name.
        description: what it measures, one line.
        model: the factory's ``model`` option: a ``"provider/model"`` string, a ``JudgeModel``
            or a ``Judge``; a ``Judge`` that already has instructions is kept as it is
            (:func:`scorekit.judge.model_option.to_judge`).
        instructions: the scorer's judge instructions (the system prompt).
        analyze: the analyze step, usually a ``PromptStep`` with the reply's schema.
        score: the score step: a function of the step context returning the score.
        reason: the reason step, or ``None`` for a scorer without a reason.
        preprocess: the preprocess step, or ``None``.

    Returns:
        The scorer: ``preprocess`` (when given), ``analyze``, ``generate_score``,
        ``generate_reason`` (when given).

    Raises:
        ConfigError: a bad ``model`` or an empty ``scorer_id``.

    Example:
        >>> from scorekit.judge import ScriptedJudge
        >>> from scorekit.pipeline import PromptStep
        >>> scorer = judged_scorer(
        ...     "shout-check", name="Shout check", description="Whether the answer shouts",
        ...     model=ScriptedJudge([{"shouts": True}]), instructions="You check tone.",
        ...     analyze=PromptStep("Ask", lambda ctx: f"Does this shout? {ctx.run.output}",
        ...                        {"type": "object", "properties": {"shouts": {"type": "boolean"}},
        ...                         "required": ["shouts"]}),
        ...     score=lambda ctx: 0.0 if ctx.results.analyze_step_result["shouts"] else 1.0)
        >>> scorer.run_sync(output="STOP IT").score
        0.0
    """
    scorer = create_scorer(
        scorer_id, name=name, description=description, judge=to_judge(model, instructions)
    )
    if preprocess is not None:
        scorer = scorer.preprocess(preprocess)
    scorer = scorer.analyze(analyze).generate_score(score)
    return scorer if reason is None else scorer.generate_reason(reason)
