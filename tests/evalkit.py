"""Small real scorers and data shared by the run_evals, store, CLI and report tests."""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel

from scorekit import PromptStep, create_scorer
from scorekit.judge import Judge, JudgeRequest, JudgeResponse
from scorekit.pipeline import Scorer, StepContext


def length_scorer(scorer_id: str = "length") -> Scorer:
    """Score = len(output) / 10."""
    return create_scorer(scorer_id, description="output length / 10").generate_score(
        lambda ctx: len(ctx.run.output) / 10
    )


def context_scorer() -> Scorer:
    """Score = number of context pieces; reason lists them."""

    def score(ctx: StepContext) -> float:
        return float(len(ctx.run.context or ()))

    def reason(ctx: StepContext) -> str:
        return "|".join(ctx.run.context or ())

    return (
        create_scorer("context-count", description="context pieces")
        .generate_score(score)
        .generate_reason(reason)
    )


def failing_on(ids: set[str], scorer_id: str = "picky") -> Scorer:
    """Raises for the given item outputs; else scores 1."""

    def score(ctx: StepContext) -> float:
        if ctx.run.output in ids:
            raise RuntimeError(f"cannot score {ctx.run.output}")
        return 1.0

    return create_scorer(scorer_id, description="fails on some").generate_score(score)


def slow_scorer(delay_s: float, scorer_id: str = "slow") -> Scorer:
    async def score(ctx: StepContext) -> float:
        await asyncio.sleep(delay_s)
        return 0.5

    return create_scorer(scorer_id, description="sleeps").generate_score(score)


class Verdict(BaseModel):
    verdict: str


class CachingModel:
    """A judge model whose every second call is marked as a cache hit."""

    def __init__(self) -> None:
        self.calls = 0

    @property
    def model_id(self) -> str:
        return "test/caching"

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        self.calls += 1
        text = '{"verdict": "yes"}' if request.step == "analyze" else "fine"
        return JudgeResponse(
            text=text,
            input_tokens=10,
            output_tokens=3,
            model_id=self.model_id,
            cache_hit=self.calls % 2 == 0,
        )


def judged_scorer(model: Any) -> Scorer:
    """analyze (judge) → score 1 for yes → reason (judge)."""
    return (
        create_scorer("judged", description="asks the judge", judge=Judge(model))
        .analyze(
            PromptStep(
                description="verdict",
                create_prompt=lambda ctx: f"Is this fine? {ctx.run.output}",
                output_schema=Verdict,
            )
        )
        .generate_score(lambda ctx: 1.0 if ctx.results.analyze_step_result.verdict == "yes" else 0)
        .generate_reason(PromptStep(description="why", create_prompt=lambda ctx: "Explain."))
    )
