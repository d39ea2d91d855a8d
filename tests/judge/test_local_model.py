"""The real local judge: SmolLM2-135M-Instruct in llama.cpp (xllamacpp), on 127.0.0.1.

Few and short on purpose (CI has two cores). The tiny model only demonstrates the plumbing:
the tests assert the shape of its answers (schema-valid, allowed labels), never the labels.
Without the ``local`` extra or the model package they skip, naming the missing package.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import get_args

import pytest

from scorekit import JudgeContextWindowError, PromptStep, ScorerRunError, create_scorer
from scorekit.judge import Judge
from scorekit.judge.local import LocalModel
from tests.judge.conftest import Relevance, needs_smollm2

ALLOWED = set(get_args(Relevance.model_fields["label"].annotation))

PROMPT = (
    "Question: What is the capital of France?\n"
    "Context statement: Paris is the capital and largest city of France.\n"
    "How relevant is the context statement to the question? "
    'Answer with JSON like {"label": "high"}; the label is one of high, medium, low, none.'
)


@needs_smollm2
async def test_smollm2_labels_relevance_with_schema_valid_output(tmp_path: Path) -> None:
    judge = Judge("local/smollm2", cache_dir=tmp_path, max_tokens=32, seed=1)
    assert isinstance(judge.model, LocalModel)
    started = time.perf_counter()
    result = await judge.generate_object(PROMPT, Relevance, step="analyze")
    elapsed = time.perf_counter() - started
    assert isinstance(result.value, Relevance)
    assert result.value.label in ALLOWED
    assert Relevance.model_validate_json(result.raw_text) == result.value
    assert result.model_id == "local/smollm2"
    assert result.usage.calls == 1  # constrained decoding: no repair needed
    assert result.usage.input_tokens > 0
    assert result.usage.output_tokens > 0
    assert elapsed < 60
    server = judge.model.server
    assert server.running
    assert server.post("/tokenize", {"content": "x"})  # listening on 127.0.0.1
    # a second judge on the same file shares the server; the same request is a cache hit
    again = await Judge("local/smollm2", cache_dir=tmp_path, max_tokens=32, seed=1).generate_object(
        PROMPT, Relevance, step="analyze"
    )
    assert again.value == result.value
    assert again.usage.cache_hits == 1


@needs_smollm2
async def test_prompt_larger_than_the_window_fails_before_the_call() -> None:
    judge = Judge("local/smollm2", context_window=512, cache=False)
    scorer = (
        create_scorer("rel", description="d", judge=judge)
        .analyze(PromptStep("label", lambda ctx: ctx.run.output, Relevance))
        .generate_score(lambda ctx: 1.0)
    )
    with pytest.raises(ScorerRunError) as info:
        await scorer.run(output="the context says many things " * 200)
    cause = info.value.__cause__
    assert isinstance(cause, JudgeContextWindowError)
    assert cause.context_window == 512
    assert cause.prompt_tokens is not None
    assert cause.prompt_tokens > 512
    assert f"the prompt ({cause.prompt_tokens} tokens) does not fit" in str(cause)
    assert "(512 tokens)" in str(cause)
    partial = info.value.result
    assert partial is not None
    assert partial.status == "error"
    assert partial.error is not None
    assert partial.error.type == "JudgeContextWindowError"


def prompt_leaving(judge: Judge, room: int) -> str:
    """A prompt that leaves about ``room`` tokens of the window free (sized by the model)."""
    model = judge.model
    assert isinstance(model, LocalModel)
    window = model.context_window

    def free(words: int) -> int:
        text = "the context says many things " * words
        messages = [
            {"role": "system", "content": judge.instructions},
            {"role": "user", "content": text},
        ]
        return window - model.server.count_prompt_tokens(messages)

    low, high = 1, window  # free(low) > room >= free(high)
    while high - low > 1:
        middle = (low + high) // 2
        if free(middle) > room:
            low = middle
        else:
            high = middle
    assert 0 < free(high) <= room
    return "the context says many things " * high


@needs_smollm2
async def test_a_prompt_leaving_no_room_for_the_reply_fails_before_the_call() -> None:
    judge = Judge("local/smollm2", context_window=512, cache=False, max_tokens=4096)
    prompt = prompt_leaving(judge, 10)
    with pytest.raises(JudgeContextWindowError) as info:
        await judge.generate_object(prompt, Relevance)
    error = info.value
    assert error.context_window == 512
    assert error.prompt_tokens is not None
    assert 502 <= error.prompt_tokens < 512
    left = 512 - error.prompt_tokens
    assert f"leaves {left} tokens" in str(error)
    assert "4096" not in str(error)
    assert error.usage is not None
    assert error.usage.calls == 1  # one attempt, refused before anything was generated


@needs_smollm2
async def test_the_reply_budget_is_capped_to_the_room_left_in_the_window() -> None:
    judge = Judge("local/smollm2", context_window=512, cache=False)
    prompt = prompt_leaving(judge, 40) + "\nNow write a very long story about the sea."
    # free text runs until the window is full: a cut-off at the window is a window error,
    # not a retry asking max_tokens=4096 of a 512-token window
    with pytest.raises(JudgeContextWindowError, match="cut off") as info:
        await judge.generate_text(prompt)
    error = info.value
    assert error.context_window == 512
    assert error.prompt_tokens is not None
    assert "4096" not in str(error)
    assert error.usage is not None
    assert error.usage.calls == 1


def test_reply_budget_arithmetic() -> None:
    from scorekit.judge.local import MIN_REPLY_TOKENS, reply_budget

    assert reply_budget(prompt_tokens=100, context_window=512, requested=None) == 412
    assert reply_budget(prompt_tokens=100, context_window=512, requested=64) == 64
    assert reply_budget(prompt_tokens=100, context_window=512, requested=4096) == 412
    assert reply_budget(prompt_tokens=500, context_window=512, requested=None) is None
    assert reply_budget(prompt_tokens=508, context_window=512, requested=4) == 4  # asked little
    assert reply_budget(prompt_tokens=600, context_window=512, requested=None) is None
    assert MIN_REPLY_TOKENS == 16


@needs_smollm2
async def test_the_first_call_is_timed_without_the_model_loading() -> None:
    from scorekit.judge.local import stop_local_servers

    prompt = 'Paris, France: relevant? {"label": ...}'
    # the budget follows this machine's speed: three warm calls' time (at least 1 s, ~0.3 s a
    # call on two cores), well above one warm call but not above the load plus the call,
    # which used to count
    warm = Judge("local/smollm2", timeout=60.0, cache=False, max_tokens=16)
    await warm.generate_object(prompt, Relevance)
    started = time.perf_counter()
    await warm.generate_object(prompt, Relevance)
    budget = max(1.0, 3 * (time.perf_counter() - started))
    stop_local_servers()  # the next call loads the model again (0.5-1 s here, GIL held)
    judge = Judge("local/smollm2", timeout=budget, cache=False, max_tokens=16)
    result = await judge.generate_object(prompt, Relevance)
    assert result.value.label in ALLOWED
    assert judge.model.server.running
