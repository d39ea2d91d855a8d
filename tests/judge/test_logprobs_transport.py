"""Token log-probabilities through the judge's layers: asked for, parsed, cached, refused."""

from __future__ import annotations

import hashlib
import json
import math
import uuid
from pathlib import Path
from typing import Any

import pytest

from scorekit import JudgeOutputError, JudgeUnavailableError
from scorekit.judge import Judge
from scorekit.judge import cache as cache_module
from scorekit.judge.cache import cache_key
from scorekit.judge.model import ChatMessage, JudgeRequest, TokenLogprob
from tests.judge.conftest import Relevance
from tests.servers.scripted_openai import Reply, ScriptedServer, token_logprobs

CONTENT = '{"label": "medium"}'
TOP = {"medium": math.log(0.5), "high": math.log(0.25), "low": math.log(0.125)}


def make_judge(server: ScriptedServer, **options: Any) -> Judge:
    settings: dict[str, Any] = {"cache": False, "retry_backoff": 0.01, "timeout": 5.0}
    return Judge(
        f"openai-compatible/lp-{uuid.uuid4().hex[:8]}",
        base_url=server.base_url,
        **{**settings, **options},
    )


def with_logprobs() -> Reply:
    return Reply(CONTENT, logprobs=token_logprobs(CONTENT, "label", [TOP]))


async def test_the_request_asks_for_logprobs_and_the_reply_carries_them(
    server: ScriptedServer,
) -> None:
    server.enqueue(with_logprobs())
    result = await make_judge(server).generate_object("Label", Relevance, top_logprobs=3)
    body = server.requests[-1].body
    assert (body["logprobs"], body["top_logprobs"]) == (True, 3)
    assert result.value.label == "medium"
    tokens = result.logprobs
    assert tokens is not None
    assert b"".join(t.raw for t in tokens).decode() == CONTENT
    label = next(t for t in tokens if t.token == "medium")
    assert label == TokenLogprob(
        "medium",
        math.log(0.5),
        b"medium",
        (
            TokenLogprob("medium", math.log(0.5), b"medium"),
            TokenLogprob("high", math.log(0.25), b"high"),
            TokenLogprob("low", math.log(0.125), b"low"),
        ),
    )


async def test_a_request_without_top_logprobs_asks_for_none(server: ScriptedServer) -> None:
    server.enqueue(with_logprobs())  # a server sending them anyway: not read
    result = await make_judge(server).generate_object("Label", Relevance)
    assert "logprobs" not in server.requests[-1].body
    assert "top_logprobs" not in server.requests[-1].body
    assert result.logprobs is None


async def test_a_server_sending_none_leaves_them_none(server: ScriptedServer) -> None:
    server.enqueue(Reply(CONTENT))
    result = await make_judge(server).generate_object("Label", Relevance, top_logprobs=2)
    assert result.logprobs is None


async def test_malformed_logprobs_are_a_malformed_body(server: ScriptedServer) -> None:
    server.enqueue(Reply(CONTENT, logprobs={"content": [{"token": "x", "logprob": "high"}]}))
    with pytest.raises(JudgeOutputError, match=r"malformed choices\[0\]\.logprobs"):
        await make_judge(server).generate_object("Label", Relevance, top_logprobs=2)


async def test_a_cache_hit_returns_the_logprobs(server: ScriptedServer, tmp_path: Path) -> None:
    name = f"openai-compatible/lpc-{uuid.uuid4().hex[:6]}"
    server.enqueue(with_logprobs())

    def judge() -> Judge:
        return Judge(name, base_url=server.base_url, cache_dir=tmp_path)

    first = await judge().generate_object("Label", Relevance, top_logprobs=3)
    second = await judge().generate_object("Label", Relevance, top_logprobs=3)
    assert len(server.requests) == 1
    assert second.usage.cache_hits == 1
    assert second.logprobs == first.logprobs
    assert second.logprobs is not None
    # the same prompt without top_logprobs is another key: it goes to the server
    server.enqueue(Reply(CONTENT))
    third = await judge().generate_object("Label", Relevance)
    assert len(server.requests) == 2
    assert third.logprobs is None


async def test_a_reply_missing_the_asked_logprobs_is_not_cached(
    server: ScriptedServer, tmp_path: Path
) -> None:
    name = f"openai-compatible/lpn-{uuid.uuid4().hex[:6]}"
    server.enqueue(Reply(CONTENT), with_logprobs())
    for _ in range(2):
        judge = Judge(name, base_url=server.base_url, cache_dir=tmp_path)
        await judge.generate_object("Label", Relevance, top_logprobs=3)
    assert len(server.requests) == 2


def test_top_logprobs_joins_the_cache_key_only_when_set() -> None:
    base = JudgeRequest((ChatMessage("user", "x"),))
    identity = {"provider": "p", "model": "m"}
    keys = {
        cache_key(identity, base),
        cache_key(identity, JudgeRequest(base.messages, top_logprobs=5)),
        cache_key(identity, JudgeRequest(base.messages, top_logprobs=20)),
    }
    assert len(keys) == 3
    # a request without it keeps the key recipe of before (so no version bump is needed)
    payload = {
        "v": cache_module._KEY_VERSION,
        "model": identity,
        "messages": [{"role": "user", "content": "x"}],
        "schema": None,
        "temperature": 0.0,
        "max_tokens": None,
        "seed": None,
    }
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert cache_key(identity, base) == hashlib.sha256(canonical.encode()).hexdigest()


@pytest.mark.parametrize("bad", [0, 21, True, 2.0, "5"])
def test_top_logprobs_out_of_range_is_refused(bad: Any) -> None:
    with pytest.raises(ValueError, match=r"top_logprobs must be an int in \[1, 20\]"):
        JudgeRequest((ChatMessage("user", "x"),), top_logprobs=bad)


async def test_anthropic_refuses_logprobs_before_sending(server: ScriptedServer) -> None:
    judge = Judge(
        f"anthropic/claude-test-{uuid.uuid4().hex[:6]}",
        base_url=server.root_url,
        api_key="sk-ant-test",
        cache=False,
    )
    with pytest.raises(JudgeUnavailableError, match="returns no token log-probabilities"):
        await judge.generate_object("Label", Relevance, top_logprobs=5)
    assert server.requests == []
