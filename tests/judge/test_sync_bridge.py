"""The sync API inside a running event loop (a notebook, a FastAPI handler), twice in a row."""

from __future__ import annotations

import asyncio
import uuid

from scorekit import PromptStep, create_scorer
from scorekit.judge import Judge
from tests.judge.conftest import Relevance
from tests.servers.scripted_openai import Reply, ScriptedServer


def scorer_for(judge: Judge):
    return (
        create_scorer("rel", description="d", judge=judge)
        .analyze(PromptStep("label", lambda ctx: f"label {ctx.run.output}", Relevance))
        .generate_score(lambda ctx: 1.0 if ctx.results.analyze_step_result.label == "high" else 0)
    )


async def test_run_sync_inside_a_running_loop_twice(server: ScriptedServer) -> None:
    asyncio.get_running_loop()  # we are inside a running loop
    judge = Judge(
        f"openai-compatible/sync-{uuid.uuid4().hex[:6]}", base_url=server.base_url, cache=False
    )
    scorer = scorer_for(judge)
    server.enqueue(Reply('{"label": "high"}'), Reply('{"label": "low"}'))
    first = scorer.run_sync(output="a")
    second = scorer.run_sync(output="b")
    assert (first.status, first.score) == ("ok", 1.0)
    assert (second.status, second.score) == ("ok", 0.0)
    # and the async path on this loop still works with the same judge
    third = await scorer.run(output="c")
    assert third.status == "ok"
    assert len(server.requests) == 3


def test_run_sync_outside_a_loop_twice_and_after_a_closed_loop(server: ScriptedServer) -> None:
    judge = Judge(
        f"openai-compatible/sync-{uuid.uuid4().hex[:6]}", base_url=server.base_url, cache=False
    )
    scorer = scorer_for(judge)
    assert scorer.run_sync(output="a").status == "ok"
    assert asyncio.run(scorer.run(output="b")).status == "ok"  # another loop, since closed
    assert scorer.run_sync(output="c").status == "ok"
