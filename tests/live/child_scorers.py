"""Scorers with a spec (built through the registry), so the scoring process can rebuild them.

``build_scorer("tests.live.child_scorers:create_length_scorer")`` and the like: the child
process imports this module by name (the parent's ``sys.path`` is passed to it).
"""

from __future__ import annotations

import asyncio
import os
import time

from scorekit import create_scorer
from scorekit.pipeline import Scorer, StepContext

MODULE = "tests.live.child_scorers"


def create_length_scorer() -> Scorer:
    """Score = len(output) / 10 (id ``length``)."""
    return create_scorer("length", description="output length / 10").generate_score(
        lambda ctx: len(ctx.run.output) / 10
    )


def create_picky_scorer() -> Scorer:
    """Raises for the output ``"bad"``; else 1 (id ``picky``)."""

    def score(ctx: StepContext) -> float:
        if ctx.run.output == "bad":
            raise RuntimeError("cannot score bad")
        return 1.0

    return create_scorer("picky", description="fails on bad").generate_score(score)


def create_slow_scorer(delay_s: float = 0.0) -> Scorer:
    """Waits ``delay_s`` seconds, then scores 1 (id ``slow``)."""

    async def score(ctx: StepContext) -> float:
        await asyncio.sleep(delay_s)
        return 1.0

    return create_scorer("slow", description="waits").generate_score(score)


def create_crashing_scorer() -> Scorer:
    """Ends the scoring process (``os._exit(3)``) on the output ``"crash"`` (id ``crash``)."""

    def score(ctx: StepContext) -> float:
        if ctx.run.output == "crash":
            os._exit(3)
        return 1.0

    return create_scorer("crash", description="crashes its process").generate_score(score)


def create_blocking_scorer(delay_s: float = 60.0) -> Scorer:
    """Blocks its thread ``delay_s`` seconds (no cancelling it), then scores 1 (id ``blocking``)."""

    def score(ctx: StepContext) -> float:
        time.sleep(delay_s)
        return 1.0

    return create_scorer("blocking", description="blocks").generate_score(score)


def create_judged_scorer(base_url: str) -> Scorer:
    """One judge call per scored call, to the OpenAI-compatible server at ``base_url``
    (id ``judged``; the reply must hold ``{"verdict": ...}``); score 1."""
    from pydantic import BaseModel

    from scorekit.judge import Judge
    from scorekit.prompt_step import PromptStep

    class Verdict(BaseModel):
        verdict: str

    judge = Judge("openai-compatible/live-budget", base_url=base_url, cache=False, max_retries=0)
    step = PromptStep(description="v", create_prompt=lambda ctx: f"Fine? {ctx.run.output}",
                      output_schema=Verdict)  # fmt: skip
    return (
        create_scorer("judged", description="asks the judge", judge=judge)
        .analyze(step)
        .generate_score(lambda ctx: 1.0)
    )
