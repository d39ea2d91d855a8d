"""The viewer tests' database: real runs made by run_evals, plus a live run still growing.

Two dataset runs of the same eight questions (``baseline``, ``candidate``) with a code scorer
(content similarity against the ground truth), an LLM scorer answered by a ScriptedJudge
(analyze: a yes/no verdict; reason: a sentence quoting the output) and a scorer that raises on
some outputs; the candidate answers worse, so the compare page has regressions and a newly
failing item. One item carries a ``<script>`` payload in its input, output and (through the
judge) its reason. A third run, ``live-sample`` (source LIVE), is left ``running``.
"""

from __future__ import annotations

import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from scorekit import PromptStep, create_scorer
from scorekit.evals import run_evals_sync
from scorekit.judge import Judge, JudgeRequest
from scorekit.judge.scripted import ScriptedJudge
from scorekit.pipeline import Scorer
from scorekit.scorers import create_content_similarity_scorer
from scorekit.store import Store

from ..evalkit import failing_on

EVIL = "<script>alert(1)</script>"

QUESTIONS: list[dict[str, Any]] = [
    {
        "id": "capital-fr",
        "input": "What is the capital of France?",
        "ground_truth": "Paris is the capital of France.",
        "context": ["Paris is the capital and most populous city of France."],
        "metadata": {"topic": "geography"},
    },
    {
        "id": "boiling-point",
        "input": "At what temperature does water boil at sea level?",
        "ground_truth": "Water boils at 100 degrees Celsius at sea level.",
        "context": ["At sea level water boils at 100 °C (212 °F)."],
        "metadata": {"topic": "physics"},
    },
    {
        "id": "largest-planet",
        "input": "Which planet is the largest in the solar system?",
        "ground_truth": "Jupiter is the largest planet in the solar system.",
        "metadata": {"topic": "astronomy"},
    },
    {
        "id": "author-hamlet",
        "input": "Who wrote Hamlet?",
        "ground_truth": "William Shakespeare wrote Hamlet.",
        "metadata": {"topic": "literature"},
    },
    {
        "id": "speed-light",
        "input": "How fast does light travel in a vacuum?",
        "ground_truth": "Light travels at about 299,792 kilometres per second in a vacuum.",
        "metadata": {"topic": "physics"},
    },
    {
        "id": "photosynthesis",
        "input": "What gas do plants take in for photosynthesis?",
        "ground_truth": "Plants take in carbon dioxide for photosynthesis.",
        "metadata": {"topic": "biology"},
    },
    {
        "id": "xss-probe",
        "input": f"Render this: {EVIL}",
        "ground_truth": "A refusal to render markup.",
        "context": [f"context {EVIL}"],
        "metadata": {"note": EVIL},
    },
    {
        "id": "unicode-é",
        "input": "Comment dit-on « merci » en anglais ?",
        "ground_truth": "On dit « thank you ».",
        "metadata": {"topic": "langues"},
    },
]

BASELINE = {
    "capital-fr": "Paris is the capital of France.",
    "boiling-point": "Water boils at 100 degrees Celsius at sea level.",
    "largest-planet": "Jupiter is the largest planet in the solar system.",
    "author-hamlet": "William Shakespeare wrote Hamlet.",
    "speed-light": "Light travels at about 300,000 kilometres per second.",
    "photosynthesis": "Plants take in carbon dioxide.",
    "xss-probe": f"I will not render {EVIL}",
    "unicode-é": "On dit « thank you ».",
}

CANDIDATE = {
    **BASELINE,
    "capital-fr": "The capital is Lyon, I think.",
    "boiling-point": "It boils when it is hot.",
    "speed-light": "BROKEN",  # the picky scorer raises on this output: newly failing
    "photosynthesis": "Plants take in carbon dioxide for photosynthesis.",
}


@dataclass(frozen=True)
class ViewerRuns:
    """The ids of the test database's runs."""

    db: Path
    baseline: str
    candidate: str
    live: str


class Verdict(BaseModel):
    verdict: str


def judged_scorer(judge: ScriptedJudge) -> Scorer:
    """analyze (judge: yes or no) → score 1 for yes → reason (judge, seeing the output)."""
    return (
        create_scorer("answer-judge", description="asks the judge", judge=Judge(judge))
        .analyze(
            PromptStep(
                description="verdict",
                create_prompt=lambda ctx: f"Does this answer the question? {ctx.run.output}",
                output_schema=Verdict,
            )
        )
        .generate_score(lambda ctx: 1.0 if ctx.results.analyze_step_result.verdict == "yes" else 0)
        .generate_reason(
            PromptStep(
                description="why",
                create_prompt=lambda ctx: f"Explain the verdict on: {ctx.run.output}",
            )
        )
    )


def _responder(request: JudgeRequest) -> Any:
    prompt = request.prompt
    if request.step == "analyze":
        if any("it is hot" in message.content for message in request.messages):
            return "I think so, yes."  # not JSON, even when asked again: an error, raw reply kept
        bad = any(word in prompt for word in ("Lyon", "BROKEN"))
        return {"verdict": "no" if bad else "yes"}
    # the reason quotes the output the judge saw, markup and all
    answer = prompt.removeprefix("Explain the verdict on: ")
    return f"The answer «{answer[:60]}» was judged against the question."


def _run(db: Path, name: str, outputs: dict[str, str]) -> str:
    judge = ScriptedJudge(_responder, name="viewer")
    scorers = [
        create_content_similarity_scorer(compare_to="ground_truth"),
        judged_scorer(judge),
        failing_on({"BROKEN"}),
    ]
    items = [{**q, "output": outputs[q["id"]]} for q in QUESTIONS]
    result = run_evals_sync(
        items,
        scorers,
        store=db,
        run_name=name,
        thresholds={"content-similarity-scorer": 0.5},
        max_error_rate=0.2,
        config={"dataset": "viewer questions", "note": EVIL},
        concurrency=1,  # the written order is the data's order, whatever the machine's load
    )
    return result.run_id


def live_run(db: Path) -> str:
    """Start the LIVE run ``live-sample`` with three results; it stays ``running``."""
    run_id = str(uuid.uuid4())
    now = datetime.now(timezone.utc)
    with Store(db) as store:
        store.start_run(
            run_id,
            name="live-sample",
            scorers=[
                {"id": "answer-judge", "name": "answer-judge", "description": "asks the judge"}
            ],
            source="LIVE",
            started_at=now - timedelta(seconds=30),
        )
        store.write_results([_live_row(run_id, i, now) for i in range(3)])
    return run_id


def _live_row(run_id: str, number: int, now: datetime) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "item_id": f"call-{number}",
        "scorer_id": "answer-judge",
        "scorer_run_id": str(uuid.uuid4()),
        "status": "ok",
        "score": 1.0 if number % 2 == 0 else 0.0,
        "reason": "sampled live call",
        "input": f"live question {number}",
        "output": f"live answer {number}",
        "source": "LIVE",
        "created_at": now,
    }


def add_live_results(db: Path, run_id: str, start: int, count: int) -> None:
    """Store ``count`` more results in the live run (it grows while a page watches)."""
    now = datetime.now(timezone.utc)
    with Store(db) as store:
        store.write_results([_live_row(run_id, i, now) for i in range(start, start + count)])


def finish_live_run(db: Path, run_id: str, total: int) -> None:
    """End the live run."""
    with Store(db) as store:
        store.finish_run(run_id, status="finished", total_items=total, judge_usage={}, verdict=None)


def build_viewer_db(db: Path) -> ViewerRuns:
    """Make the test database at ``db``: the baseline, the candidate, the live run."""
    baseline = _run(db, "baseline", BASELINE)
    candidate = _run(db, "candidate", CANDIDATE)
    return ViewerRuns(db, baseline, candidate, live_run(db))


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """Serve an ASGI app with uvicorn on 127.0.0.1 (a free port) in a thread; yield its URL."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
