"""The judge against a real scripted OpenAI-compatible server, through the real ``openai`` SDK.

Each fault the issue lists gets its exact outcome asserted: status, attempts, raw text kept.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import pytest

from scorekit import (
    JudgeContextWindowError,
    JudgeError,
    JudgeHTTPError,
    JudgeOutputError,
    JudgeTimeoutError,
    PromptStep,
    ScorerRunError,
    create_scorer,
)
from scorekit.judge import Judge
from tests.judge.conftest import Relevance
from tests.servers.scripted_openai import Reply, ScriptedServer

FAST = {"cache": False, "retry_backoff": 0.01, "timeout": 5.0}


def make_judge(server: ScriptedServer, **options: Any) -> Judge:
    # a fresh model name per judge: a fresh shared limiter, so tests do not interact
    settings = {**FAST, **options}
    return Judge(
        f"openai-compatible/m-{uuid.uuid4().hex[:8]}", base_url=server.base_url, **settings
    )


def relevance_scorer(judge: Judge):
    return (
        create_scorer("relevance", description="labels relevance", judge=judge)
        .analyze(PromptStep("label", lambda ctx: f"How relevant is {ctx.run.output}?", Relevance))
        .generate_score(
            lambda ctx: {"high": 1.0, "medium": 0.6, "low": 0.3, "none": 0.0}[
                ctx.results.analyze_step_result.label
            ]
        )
    )


async def test_valid_reply_is_parsed_and_usage_recorded(server: ScriptedServer) -> None:
    server.enqueue(Reply('{"label": "medium"}', prompt_tokens=40, completion_tokens=6))
    result = await make_judge(server).generate_object("Label it", Relevance, step="analyze")
    assert result.value == Relevance(label="medium")
    assert result.raw_text == '{"label": "medium"}'
    usage = result.usage
    assert (usage.calls, usage.attempts, usage.cache_hits) == (1, 1, 0)
    assert (usage.input_tokens, usage.output_tokens) == (40, 6)
    assert usage.latency_s > 0


async def test_request_asks_for_json_schema_with_deterministic_sampling(
    server: ScriptedServer,
) -> None:
    await make_judge(server, seed=7, max_tokens=64).generate_object("Label it", Relevance)
    body = server.chat_requests[-1]
    assert body["temperature"] == 0
    assert body["seed"] == 7
    assert body["max_tokens"] == 64
    assert body["messages"][0]["role"] == "system"
    assert body["messages"][1] == {"role": "user", "content": "Label it"}
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "Relevance"
    assert fmt["json_schema"]["schema"] == Relevance.model_json_schema()
    # all properties required and no extras: strict mode is allowed
    assert fmt["json_schema"]["strict"] is True


async def test_429_with_retry_after_is_honoured_then_succeeds(server: ScriptedServer) -> None:
    server.enqueue(Reply(status=429, headers={"Retry-After": "0.3"}), Reply('{"label": "low"}'))
    started = time.perf_counter()
    result = await make_judge(server).generate_object("x", Relevance)
    assert time.perf_counter() - started >= 0.3
    assert result.value.label == "low"
    assert (result.usage.calls, result.usage.attempts) == (1, 2)
    assert len(server.requests) == 2


async def test_429_every_time_fails_with_status_and_attempts(server: ScriptedServer) -> None:
    server.enqueue(*[Reply(status=429, headers={"Retry-After": "0"}) for _ in range(3)])
    with pytest.raises(JudgeHTTPError) as info:
        await make_judge(server, max_retries=2).generate_object("x", Relevance)
    error = info.value
    assert error.status_code == 429
    assert error.retry_after == 0
    assert error.usage is not None
    assert (error.usage.calls, error.usage.attempts) == (1, 3)
    assert len(server.requests) == 3


async def test_500_is_retried(server: ScriptedServer) -> None:
    server.enqueue(Reply(status=500), Reply(status=503), Reply('{"label": "none"}'))
    result = await make_judge(server).generate_object("x", Relevance)
    assert result.value.label == "none"
    assert result.usage.attempts == 3


async def test_500_after_all_retries_is_an_error_result(server: ScriptedServer) -> None:
    server.enqueue(*[Reply(status=500) for _ in range(2)])
    scorer = relevance_scorer(make_judge(server, max_retries=1))
    with pytest.raises(ScorerRunError) as info:
        await scorer.run(output="o")
    partial = info.value.result
    assert partial is not None
    assert partial.status == "error"
    assert partial.score is None
    assert partial.error is not None
    assert partial.error.type == "JudgeHTTPError"
    assert "HTTP 500" in partial.error.message
    assert partial.judge_usage.attempts == 2


async def test_400_is_not_retried(server: ScriptedServer) -> None:
    server.enqueue(Reply(status=400))
    with pytest.raises(JudgeHTTPError) as info:
        await make_judge(server).generate_object("x", Relevance)
    assert info.value.status_code == 400
    assert len(server.requests) == 1


async def test_a_reply_that_never_comes_is_cancelled_at_the_timeout(
    server: ScriptedServer,
) -> None:
    server.enqueue(Reply(hang=True))
    started = time.perf_counter()
    with pytest.raises(JudgeTimeoutError, match=r"0\.5 s timeout") as info:
        await make_judge(server, timeout=0.5).generate_object("x", Relevance)
    elapsed = time.perf_counter() - started
    assert 0.5 <= elapsed < 2.0
    assert info.value.usage is not None
    assert (info.value.usage.calls, info.value.usage.attempts) == (1, 1)
    assert len(server.requests) == 1  # timeouts are not retried


async def test_connection_refused_is_retried_then_status_0(server: ScriptedServer) -> None:
    judge = Judge("openai-compatible/gone", base_url="http://127.0.0.1:9/v1", max_retries=2, **FAST)
    with pytest.raises(JudgeHTTPError, match="could not connect") as info:
        await judge.generate_object("x", Relevance)
    assert info.value.status_code == 0
    assert info.value.usage is not None
    assert info.value.usage.attempts == 3


async def test_malformed_json_is_repaired_once(server: ScriptedServer) -> None:
    server.enqueue(Reply('{"label": "high"'), Reply('{"label": "high"}'))
    result = await make_judge(server).generate_object("x", Relevance)
    assert result.value.label == "high"
    assert result.usage.calls == 2
    repair = server.chat_requests[1]["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"label": "high"'}
    assert "did not match the required JSON schema" in repair[-1]["content"]
    assert "holds no JSON value" in repair[-1]["content"]


async def test_malformed_json_twice_fails_with_raw_text(server: ScriptedServer) -> None:
    server.enqueue(Reply('{"label": "high"'), Reply("sorry, I cannot"))
    with pytest.raises(JudgeOutputError) as info:
        await make_judge(server).generate_object("x", Relevance)
    error = info.value
    assert error.raw_output == "sorry, I cannot"
    assert error.schema_name == "Relevance"
    assert error.attempts == 2
    assert error.usage is not None
    assert error.usage.calls == 2
    assert error.usage.input_tokens == 22


async def test_json_in_fences_is_accepted(server: ScriptedServer) -> None:
    server.enqueue(Reply('Here you go:\n```json\n{"label": "low"}\n```'))
    result = await make_judge(server).generate_object("x", Relevance)
    assert result.value.label == "low"
    assert result.usage.calls == 1


async def test_json_with_trailing_prose_is_accepted(server: ScriptedServer) -> None:
    server.enqueue(Reply('{"label": "none"}\n\nI chose none because the text is off-topic.'))
    result = await make_judge(server).generate_object("x", Relevance)
    assert result.value.label == "none"
    assert result.usage.calls == 1


async def test_reply_failing_the_schema_is_repaired_with_the_error_shown(
    server: ScriptedServer,
) -> None:
    server.enqueue(Reply('{"label": "very high"}'), Reply('{"label": "high"}'))
    result = await make_judge(server).generate_object("x", Relevance)
    assert result.value.label == "high"
    assert "label" in server.chat_requests[1]["messages"][-1]["content"]


async def test_reply_failing_the_schema_twice_gives_an_error_result_with_raw_output(
    server: ScriptedServer,
) -> None:
    server.enqueue(Reply('{"label": "very high"}'), Reply('{"label": "extreme"}'))
    with pytest.raises(ScorerRunError) as info:
        await relevance_scorer(make_judge(server)).run(output="o")
    partial = info.value.result
    assert partial is not None
    assert partial.status == "error"
    assert partial.score is None
    assert partial.error is not None
    assert partial.error.type == "JudgeOutputError"
    assert partial.error.raw_output == '{"label": "extreme"}'
    assert partial.judge_usage.calls == 2


async def test_cut_off_reply_is_retried_once_with_a_larger_budget(server: ScriptedServer) -> None:
    server.enqueue(Reply('{"lab', finish_reason="length"), Reply('{"label": "medium"}'))
    result = await make_judge(server, max_tokens=16).generate_object("x", Relevance)
    assert result.value.label == "medium"
    budgets = [body["max_tokens"] for body in server.chat_requests]
    assert budgets == [16, 64]
    assert result.usage.calls == 2


async def test_cut_off_twice_fails_with_raw_text(server: ScriptedServer) -> None:
    server.enqueue(*[Reply('{"lab', finish_reason="length") for _ in range(2)])
    with pytest.raises(JudgeOutputError, match="cut off") as info:
        await make_judge(server).generate_object("x", Relevance)
    assert info.value.raw_output == '{"lab'
    assert info.value.attempts == 2
    assert server.chat_requests[1]["max_tokens"] == 4096  # none set: the default retry budget


async def test_malformed_http_body_is_a_judge_error(server: ScriptedServer) -> None:
    server.enqueue(Reply(body="<html>bad gateway</html>"))
    with pytest.raises(JudgeError, match="malformed response body"):
        await make_judge(server).generate_object("x", Relevance)


async def test_provider_context_length_error_names_both_sizes(server: ScriptedServer) -> None:
    message = (
        "This model's maximum context length is 8192 tokens. However, your messages "
        "resulted in 9001 tokens. Please reduce the length of the messages."
    )
    server.enqueue(
        Reply(status=400, body={"error": {"message": message, "code": "context_length_exceeded"}})
    )
    with pytest.raises(ScorerRunError) as info:
        await relevance_scorer(make_judge(server)).run(output="o")
    cause = info.value.__cause__
    assert isinstance(cause, JudgeContextWindowError)
    assert (cause.prompt_tokens, cause.context_window) == (9001, 8192)
    assert "the prompt (9001 tokens) does not fit the context window (8192 tokens)" in str(cause)
    assert info.value.result is not None
    assert info.value.result.status == "error"
    assert len(server.requests) == 1


async def test_rejected_response_format_falls_back_to_json_mode(server: ScriptedServer) -> None:
    server.enqueue(
        Reply(status=400, body={"error": {"message": "response_format json_schema unsupported"}}),
        Reply('{"label": "low"}'),
    )
    judge = make_judge(server)
    result = await judge.generate_object("Label it", Relevance)
    assert result.value.label == "low"
    second = server.chat_requests[1]
    assert second["response_format"] == {"type": "json_object"}
    assert "JSON schema" in second["messages"][-1]["content"]
    assert (
        json.dumps(Relevance.model_json_schema(), sort_keys=True)
        in second["messages"][-1]["content"]
    )
    # remembered for the next call
    await judge.generate_object("again", Relevance)
    assert server.chat_requests[2]["response_format"] == {"type": "json_object"}


async def test_generate_text(server: ScriptedServer) -> None:
    server.enqueue(Reply("Because it answers the question."))
    result = await make_judge(server).generate_text("Why?", step="generate_reason")
    assert result.value == "Because it answers the question."
    assert "response_format" not in server.chat_requests[-1]


async def test_empty_text_reply_is_an_output_error(server: ScriptedServer) -> None:
    server.enqueue(Reply(""))
    with pytest.raises(JudgeOutputError, match="empty"):
        await make_judge(server).generate_text("Why?")
