"""A run stopped by its judge budget says so on its viewer page, as `show` and the report do."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the viewer needs the view extra (starlette)")

from pydantic import BaseModel
from starlette.testclient import TestClient

from scorekit import create_scorer
from scorekit.evals import run_evals_sync
from scorekit.judge import Judge
from scorekit.prompt_step import PromptStep
from scorekit.view import create_app
from tests.servers.scripted_openai import Reply, ScriptedServer


class Verdict(BaseModel):
    verdict: str


def test_a_budget_stopped_run_page_gives_the_stop(server: ScriptedServer, tmp_path: Path) -> None:
    server.default = Reply('{"verdict": "yes"}')
    judge = Judge(f"openai-compatible/v-{uuid.uuid4().hex[:8]}", base_url=server.base_url,
                  cache=False, max_retries=0)  # fmt: skip
    step = PromptStep(description="v", create_prompt=lambda ctx: f"Fine? {ctx.run.output}",
                      output_schema=Verdict)  # fmt: skip
    scorer = create_scorer("judged", description="asks", judge=judge).analyze(step)
    items = [{"id": f"i{n}", "output": f"answer {n}"} for n in range(4)]
    db = tmp_path / "v.db"
    stopped = run_evals_sync(items, [scorer.generate_score(lambda ctx: 1.0)], store=db,
                             max_judge_calls=2, concurrency=1)  # fmt: skip
    with TestClient(create_app(str(db)), base_url="http://127.0.0.1") as client:
        html = client.get(f"/runs/{stopped.run_id}").text
    assert "verdict failed: stopped by its judge budget: max_judge_calls 2 (2 calls" in html
    assert "No verdict" not in html
