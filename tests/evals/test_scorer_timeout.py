"""``scorer_timeout``: a local scorer call that takes too long is that item's error, no more.

The slow steps here really block (a thread waits on an event far longer than the limit, or an
async step awaits forever); each test releases them at its end. No duration is asserted: only
statuses, messages and scores.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from scorekit import ConfigError, create_scorer
from scorekit.cli import app
from scorekit.cli.config import RunConfig, load_config
from scorekit.cli.plan import plan_from_config
from scorekit.evals import ItemJob, run_evals, score_item
from scorekit.evals import scorer_threads as local_module
from scorekit.evals.scorer_threads import (
    DEFAULT_SCORER_TIMEOUT,
    check_scorer_timeout,
    is_local,
    stuck_calls,
)
from scorekit.items import EvalItem
from scorekit.judge.judge import Judge
from scorekit.pipeline import PromptStep, Scorer, StepContext

BLOCK_S = 30.0  # how long a blocked step would wait if never released: far past the limits


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """An event the slow steps wait on; set when the test ends, so their threads return."""
    event = threading.Event()
    yield event
    event.set()


def blocking_scorer(release: threading.Event, slow_output: str) -> Scorer:
    """A code scorer whose sync step blocks its thread on ``slow_output`` until released."""

    def score(ctx: StepContext) -> float:
        if ctx.run.output == slow_output:
            release.wait(BLOCK_S)
        return len(ctx.run.output) / 10

    return create_scorer("blocking", description="blocks on one output").generate_score(score)


def length_scorer() -> Scorer:
    return create_scorer("length", description="length / 10").generate_score(
        lambda ctx: len(ctx.run.output) / 10
    )


ITEMS = [
    {"id": "a", "input": "q", "output": "abcde"},
    {"id": "slow", "input": "q", "output": "stall"},
    {"id": "c", "input": "q", "output": "ab"},
]

TIMEOUT_MESSAGE = (
    "scorer 'blocking' took longer than scorer_timeout=0.2 s on this item; its call was "
    "abandoned (a synchronous step's thread runs on until the step returns, and its result is "
    "discarded)"
)


async def test_a_slow_sync_step_is_that_items_error_and_the_run_goes_on(
    release: threading.Event,
) -> None:
    result = await run_evals(
        ITEMS,
        [blocking_scorer(release, "stall"), length_scorer()],
        scorer_timeout=0.2,
        max_error_rate=1,
    )
    statuses = {
        (o.item.id, sid): (r.status, r.score)
        for o in result.items
        for sid, r in o.scorer_results.items()
    }
    assert statuses == {
        ("a", "blocking"): ("ok", 0.5),
        ("a", "length"): ("ok", 0.5),
        ("slow", "blocking"): ("error", None),
        ("slow", "length"): ("ok", 0.5),
        ("c", "blocking"): ("ok", 0.2),
        ("c", "length"): ("ok", 0.2),
    }
    slow = next(o for o in result.items if o.item.id == "slow").scorer_results["blocking"]
    assert slow.error is not None
    assert slow.error.type == "ScorerTimeoutError"
    assert slow.error.message == TIMEOUT_MESSAGE
    assert slow.output == "stall"
    assert result.summary.counts["blocking"] == {"ok": 2, "skipped": 0, "error": 1}
    assert result.verdict == "passed"
    assert stuck_calls() == 1  # the blocked thread still runs; released below
    release.set()
    for _ in range(200):
        if stuck_calls() == 0:
            break
        await asyncio.sleep(0.01)
    assert stuck_calls() == 0


async def test_a_sync_step_does_not_block_the_event_loop() -> None:
    # the step of item "first" waits until the loop has finished item "second": on the loop
    # it could never see that, in its own thread it does
    second_done = threading.Event()

    def score(ctx: StepContext) -> float:
        if ctx.run.output == "first":
            return 1.0 if second_done.wait(BLOCK_S) else 0.0
        return 0.5

    scorer = create_scorer("waiter", description="waits").generate_score(score)

    def on_item(item: EvalItem, output: Any, results: dict[str, Any]) -> None:
        if item.id == "second":
            second_done.set()

    result = await run_evals(
        [
            {"id": "first", "input": "q", "output": "first"},
            {"id": "second", "input": "q", "output": "x"},
        ],
        [scorer],
        on_item_complete=on_item,
        scorer_timeout=None,
    )
    second_done.set()
    assert {o.item.id: o.scorer_results["waiter"].score for o in result.items} == {
        "first": 1.0,
        "second": 0.5,
    }


async def test_an_async_step_that_never_returns_is_cancelled() -> None:
    cancelled = threading.Event()

    async def score(ctx: StepContext) -> float:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return 1.0

    scorer = create_scorer("hang", description="hangs").generate_score(score)
    item = EvalItem(id="x", input="q", output="o", has_output=True)
    outcome = await score_item(item, [scorer], scorer_timeout=0.1)
    result = outcome.scorer_results["hang"]
    assert (result.status, result.score) == ("error", None)
    assert result.error is not None
    assert result.error.type == "ScorerTimeoutError"
    assert result.error.message.startswith(
        "scorer 'hang' took longer than scorer_timeout=0.1 s on this item"
    )
    assert await asyncio.to_thread(cancelled.wait, BLOCK_S)
    for _ in range(200):
        if stuck_calls() == 0:
            break
        await asyncio.sleep(0.01)
    assert stuck_calls() == 0


async def test_past_the_stuck_cap_a_call_is_not_started(
    release: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(local_module, "MAX_STUCK_CALLS", 1)
    started: list[str] = []

    def score(ctx: StepContext) -> float:
        started.append(ctx.run.output)
        release.wait(BLOCK_S)
        return 1.0

    scorer = create_scorer("blocking", description="blocks").generate_score(score)
    first = await score_item(
        EvalItem(id="1", input="q", output="one", has_output=True), [scorer], scorer_timeout=0.1
    )
    second = await score_item(
        EvalItem(id="2", input="q", output="two", has_output=True), [scorer], scorer_timeout=0.1
    )
    assert first.scorer_results["blocking"].status == "error"
    error = second.scorer_results["blocking"].error
    assert error is not None
    assert (error.type, error.message) == (
        "ScorerTimeoutError",
        "scorer 'blocking' was not started: 1 earlier local scorer calls exceeded "
        "scorer_timeout and are still running (at most 1)",
    )
    assert started == ["one"]
    release.set()
    for _ in range(200):
        if stuck_calls() == 0:
            break
        await asyncio.sleep(0.01)
    assert stuck_calls() == 0


async def test_context_variables_and_step_errors_cross_the_thread() -> None:
    var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="unset")

    def score(ctx: StepContext) -> float:
        if var.get() != "set":
            raise RuntimeError(f"var is {var.get()}")
        if ctx.run.output == "bad":
            raise ValueError("bad output")
        return 0.25

    scorer = create_scorer("ctx", description="reads a contextvar").generate_score(score)
    var.set("set")
    good = await score_item(EvalItem(id="g", input="q", output="ok", has_output=True), [scorer])
    bad = await score_item(EvalItem(id="b", input="q", output="bad", has_output=True), [scorer])
    assert good.scorer_results["ctx"].score == 0.25
    error = bad.scorer_results["ctx"].error
    assert error is not None
    assert (error.type, error.message, error.step) == (
        "ValueError",
        "bad output",
        "generate_score",
    )


def test_only_scorers_without_judge_steps_are_local() -> None:
    judge = Judge("test/scripted")
    prompt = PromptStep(description="ask", create_prompt=lambda ctx: "score it")
    with_judge = create_scorer("j", description="judged", judge=judge).generate_score(prompt)
    assert is_local(length_scorer()) is True
    assert is_local(with_judge) is False


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "5", True])
def test_a_bad_scorer_timeout_is_a_config_error(bad: Any) -> None:
    with pytest.raises(ConfigError) as raised:
        ItemJob((length_scorer(),), scorer_timeout=bad)
    assert raised.value.field == "scorer_timeout"


def test_the_default_and_no_limit() -> None:
    assert DEFAULT_SCORER_TIMEOUT == 60.0
    assert ItemJob((length_scorer(),)).scorer_timeout == 60.0
    assert ItemJob((length_scorer(),), scorer_timeout=None).scorer_timeout is None
    assert check_scorer_timeout(2) == 2.0


# --- the command line and the YAML config -------------------------------------------------

CLI_RELEASE = threading.Event()


def create_stalling_scorer() -> Scorer:
    """A ``module:factory`` code scorer for the CLI tests: blocks on the output ``stall``."""
    return blocking_scorer(CLI_RELEASE, "stall")


def test_the_cli_flag_limits_a_code_scorer_call(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(
        "".join(json.dumps({"id": i["id"], "input": i["input"], "output": i["output"]}) + "\n"
                for i in ITEMS)
    )  # fmt: skip
    out = tmp_path / "r.jsonl"
    factory = "tests.evals.test_scorer_timeout:create_stalling_scorer"
    try:
        result = CliRunner().invoke(
            app,
            ["run", str(data), "-s", factory, "--scorer-timeout", "0.2", "--no-store",
             "--out", str(out)],
        )  # fmt: skip
    finally:
        CLI_RELEASE.set()
    assert result.exit_code == 1, result.output  # an error fails the default error-rate gate
    records = {r["item_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert {k: (r["status"], r["score"]) for k, r in records.items()} == {
        "a": ("ok", 0.5),
        "slow": ("error", None),
        "c": ("ok", 0.2),
    }
    assert records["slow"]["error"]["type"] == "ScorerTimeoutError"


def test_the_config_key_and_the_flag(tmp_path: Path) -> None:
    base = {"data": {"path": "d.jsonl"}, "scorers": ["content-similarity"]}
    assert RunConfig.model_validate(base).scorer_timeout == 60.0
    assert RunConfig.model_validate({**base, "scorer_timeout": 5}).scorer_timeout == 5.0
    assert RunConfig.model_validate({**base, "scorer_timeout": None}).scorer_timeout is None
    for bad in (-1, "5", float("inf")):
        with pytest.raises(ValidationError):
            RunConfig.model_validate({**base, "scorer_timeout": bad})
    (tmp_path / "d.jsonl").write_text('{"input": "q", "output": "a"}\n')
    config = tmp_path / "run.yaml"
    config.write_text("data: {path: d.jsonl}\nscorers: [content-similarity]\nscorer_timeout: 0\n")
    plan = plan_from_config(
        load_config(config), model=None, concurrency=None, correlate=None, judge_options={}
    )
    assert plan.scorer_timeout is None  # 0: no limit
    config.write_text("data: {path: d.jsonl}\nscorers: [content-similarity]\nscorer_timeout: 7\n")
    plan = plan_from_config(
        load_config(config), model=None, concurrency=None, correlate=None, judge_options={}
    )
    assert plan.scorer_timeout == 7.0
