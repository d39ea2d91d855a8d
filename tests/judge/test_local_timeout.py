"""The local judge's timeout fits its measured speed and the call's reply budget; its threads."""

from __future__ import annotations

import pytest

from scorekit.errors import ConfigError
from scorekit.judge import Judge
from scorekit.judge.budget import spec_bound
from scorekit.judge.local import (
    FIRST_CALLS_TIMEOUT_S,
    THREADS_ENV,
    LocalModel,
    SpeedMeter,
    fitted_timeout,
    local_threads,
)
from scorekit.judge.settings import FITTED_TIMEOUT_CAP_S
from scorekit.judge.structured import SchemaSpec
from tests.judge.conftest import Relevance, needs_smollm2

PROMPT = 'Paris is the capital of France. Relevant to "capital of France"? {"label": ...}'


def test_fitted_timeout_formula() -> None:
    # only the generation speed measured (a cached prompt timed too few tokens): it stands in
    # for the prompt's, 30 + 3 × ((1000 + 200) × 0.1)
    cached = SpeedMeter()
    cached.record({"prompt_n": 500, "prompt_ms": 1, "predicted_n": 50, "predicted_ms": 1})
    cached.record({"prompt_n": 1, "prompt_ms": 1.0, "predicted_n": 20, "predicted_ms": 2000})
    assert (cached.prompt_s_per_token, cached.reply_s_per_token) == (None, 0.1)
    assert fitted_timeout(cached, prompt_tokens=1000, budget=200) == 390.0

    speed = SpeedMeter()
    assert fitted_timeout(speed, prompt_tokens=1000, budget=200) == FIRST_CALLS_TIMEOUT_S
    # the first call warms the server up (pages the weights in): not measured
    speed.record({"prompt_n": 500, "prompt_ms": 90_000, "predicted_n": 50, "predicted_ms": 9e4})
    assert (speed.prompt_s_per_token, speed.reply_s_per_token) == (None, None)
    speed.record({"prompt_n": 500, "prompt_ms": 10_000.0, "predicted_n": 3, "predicted_ms": 90})
    # the reply speed is not measured yet (3 generated tokens are too few to time, 4 are not)
    assert speed.prompt_s_per_token == 0.02
    assert speed.reply_s_per_token is None
    assert fitted_timeout(speed, prompt_tokens=1000, budget=200) == FIRST_CALLS_TIMEOUT_S
    speed.record({"prompt_n": 3, "prompt_ms": 1.0, "predicted_n": 50, "predicted_ms": 5000})
    assert (speed.prompt_s_per_token, speed.reply_s_per_token) == (0.02, 0.1)
    # 30 + 3 × (1000 × 0.02 + 200 × 0.1) = 30 + 3 × 40
    assert fitted_timeout(speed, prompt_tokens=1000, budget=200) == 150.0
    # the slowest recent call counts: a busier moment raises the deadline
    speed.record({"prompt_n": 100, "prompt_ms": 4000, "predicted_n": 10, "predicted_ms": 2000})
    assert (speed.prompt_s_per_token, speed.reply_s_per_token) == (0.04, 0.2)
    assert fitted_timeout(speed, prompt_tokens=1000, budget=200) == 270.0
    assert fitted_timeout(speed, prompt_tokens=10**6, budget=200) == FITTED_TIMEOUT_CAP_S


@pytest.mark.parametrize(
    "timings", [None, "x", {"prompt_n": True, "prompt_ms": 5}, {"prompt_n": 50, "prompt_ms": -1}]
)
def test_malformed_timings_are_ignored(timings: object) -> None:
    speed = SpeedMeter()
    good = {"prompt_n": 10, "prompt_ms": 100, "predicted_n": 10, "predicted_ms": 100}
    speed.record(good)  # the warm-up call
    speed.record(timings)
    assert (speed.prompt_s_per_token, speed.reply_s_per_token) == (None, None)


@needs_smollm2
async def test_local_judge_without_timeout_fits_it_to_its_speed() -> None:
    # a window of its own: a fresh server, whose speed nothing has measured yet
    judge = Judge("local/smollm2", context_window=1280, cache=False, seed=1)
    assert isinstance(judge.model, LocalModel)
    assert judge.model.fitted
    budget = spec_bound(SchemaSpec.of(Relevance))
    assert budget is not None
    first = await judge.generate_object(PROMPT, Relevance)
    assert first.usage.timeout_s == FIRST_CALLS_TIMEOUT_S  # nothing measured before it
    assert first.usage.max_tokens == budget.tokens == 46
    speed = judge.model.server.speed
    assert (speed.prompt_s_per_token, speed.reply_s_per_token) == (None, None)  # a warm-up
    await judge.generate_text("Name three colours, separated by commas.")
    assert speed.reply_s_per_token is not None  # the reply's tokens (4 or more) were timed
    messages = [
        {"role": "system", "content": judge.instructions},
        {"role": "user", "content": PROMPT},
    ]
    tokens = judge.model.server.count_prompt_tokens(messages)
    s_reply = speed.reply_s_per_token
    s_prompt = speed.prompt_s_per_token or s_reply  # unmeasured: the generation speed
    again = await judge.generate_object(PROMPT, Relevance)
    # 30 s + 3 × (prompt tokens × s/prompt token + the 46-token budget × s/reply token)
    assert again.usage.timeout_s == min(
        FITTED_TIMEOUT_CAP_S, 30.0 + 3.0 * (tokens * s_prompt + 46 * s_reply)
    )


@needs_smollm2
async def test_local_judge_with_a_timeout_keeps_it() -> None:
    judge = Judge("local/smollm2", timeout=45.0, cache=False, seed=1)
    assert isinstance(judge.model, LocalModel)
    assert not judge.model.fitted
    result = await judge.generate_object(PROMPT, Relevance)
    assert (result.usage.timeout_s, result.usage.max_tokens) == (45.0, 46)


@pytest.mark.parametrize(("value", "threads"), [("", 3), ("1", 1), (" 2 ", 2), ("16", 16)])
def test_local_threads_default_to_half_the_cpus_unless_set(
    value: str, threads: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 7)
    assert local_threads({THREADS_ENV: value}) == threads


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5"])
def test_a_bad_thread_count_names_the_variable(value: str) -> None:
    with pytest.raises(ConfigError) as info:
        local_threads({THREADS_ENV: value})
    assert info.value.field == THREADS_ENV
    assert repr(value) in str(info.value)
