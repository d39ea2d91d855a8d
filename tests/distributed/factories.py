"""Scorers and targets the Ray tests send to workers (importable there: the repository root is
on the workers' ``PYTHONPATH``).

* ``create_judged_scorer``: a score step and, with ``reason=True``, a reason step, each one
  judge call, whose prompts carry the item's output (``answer N``); :func:`judge_reply` is
  the scripted server's answer to them, so scores and reasons differ per item.
* :class:`CallLog`: a target that records each call (item input, process id) in a file, then
  answers after ``delay`` seconds.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

from scorekit import PromptStep, create_scorer
from scorekit.judge import to_judge
from scorekit.pipeline import Scorer
from tests.servers.scripted_openai import Reply

_NUMBER = re.compile(r"answer (\d+)")


def create_judged_scorer(*, model: Any, reason: bool = True) -> Scorer:
    """A judge scores ``answer N`` (the scripted server gives N % 10 / 10) and explains it."""
    scorer = create_scorer(
        "judged-scorer", description="scores the answer", judge=to_judge(model, "Score it.")
    ).generate_score(PromptStep("score", lambda ctx: f"Score: {ctx.run.output}"))
    if reason:
        scorer = scorer.generate_reason(
            PromptStep("reason", lambda ctx: f"Why {ctx.score} for: {ctx.run.output}")
        )
    return scorer


def judge_reply(body: Any) -> Reply:
    """The scripted server's reply: the score from the prompt's ``answer N``, or a reason."""
    prompt = body["messages"][-1]["content"]
    found = _NUMBER.search(prompt)
    number = int(found.group(1)) if found else 0
    if "response_format" in body:
        return Reply(content=json.dumps({"score": (number % 10) / 10}))
    return Reply(content=f"answer {number} earns its score")


class CallLog:
    """A target that appends ``{"input", "pid"}`` to ``path`` on each call, then answers.

    Args:
        path: the log file (one JSON line per call, written when the call starts).
        delay: seconds each call takes.
    """

    def __init__(self, path: Path, delay: float = 0.0) -> None:
        self.path = str(path)
        self.delay = delay

    def __call__(self, input: Any) -> str:
        with open(self.path, "a", encoding="utf-8") as log:
            log.write(json.dumps({"input": input, "pid": os.getpid()}) + "\n")
        if self.delay:
            time.sleep(self.delay)
        return f"the answer to {input}"

    def calls(self) -> list[dict[str, Any]]:
        """The calls logged so far."""
        path = Path(self.path)
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def echo_target(input: Any) -> str:
    """A module-level target: sent to workers by reference."""
    return f"the answer to {input}"


def create_length_scorer(*, limit: int = 20) -> Scorer:
    """A code scorer: 1.0 when the output has at most ``limit`` characters, else 0.0."""
    return create_scorer("length-scorer", description="output length").generate_score(
        lambda ctx: 1.0 if len(str(ctx.run.output)) <= limit else 0.0
    )
