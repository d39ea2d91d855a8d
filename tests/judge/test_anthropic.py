"""The Anthropic adapter, through the real ``anthropic`` SDK, against the scripted server."""

from __future__ import annotations

import uuid

import pytest

from scorekit import JudgeHTTPError
from scorekit.judge import Judge
from tests.judge.conftest import Relevance
from tests.servers.scripted_openai import Reply, ScriptedServer


def anthropic_judge(server: ScriptedServer, **options: object) -> Judge:
    return Judge(
        f"anthropic/claude-test-{uuid.uuid4().hex[:6]}",
        base_url=server.root_url,
        api_key="sk-ant-test",
        cache=False,
        retry_backoff=0.01,
        **options,
    )


async def test_structured_output_is_a_forced_tool_call(server: ScriptedServer) -> None:
    server.enqueue(Reply('{"label": "medium"}', prompt_tokens=30, completion_tokens=9))
    result = await anthropic_judge(server, max_tokens=100).generate_object("Label", Relevance)
    assert result.value.label == "medium"
    assert (result.usage.input_tokens, result.usage.output_tokens) == (30, 9)
    request = server.requests[-1]
    assert request.path == "/v1/messages"
    sent_key = (
        request.headers.get("x-api-key") or request.headers["authorization"][len("Bearer ") :]
    )
    assert sent_key == "sk-ant-test"
    body = request.body
    assert body["system"].startswith("You are a careful")
    assert body["messages"] == [{"role": "user", "content": "Label"}]
    assert body["max_tokens"] == 46  # the schema's bound (budget.py), below max_tokens=100
    assert body["tools"][0]["input_schema"] == Relevance.model_json_schema()
    assert body["tool_choice"] == {"type": "tool", "name": body["tools"][0]["name"]}


async def test_text_and_retry_after_429(server: ScriptedServer) -> None:
    server.enqueue(Reply(status=429, headers={"retry-after": "0"}), Reply("Because."))
    result = await anthropic_judge(server).generate_text("Why?")
    assert result.value == "Because."
    assert result.usage.attempts == 2
    assert server.requests[-1].body["max_tokens"] == 4096


async def test_http_errors_are_translated(server: ScriptedServer) -> None:
    server.enqueue(Reply(status=400))
    with pytest.raises(JudgeHTTPError) as info:
        await anthropic_judge(server).generate_text("Why?")
    assert info.value.status_code == 400
