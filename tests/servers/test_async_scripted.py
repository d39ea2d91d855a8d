"""The asyncio scripted server answers as the threaded one does, over real HTTP."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import openai
import pytest

from tests.servers.async_scripted import AsyncScriptedServer
from tests.servers.process import ServerProcess
from tests.servers.scripted_openai import Reply


def _numbered(body: Any) -> Reply:
    prompt = body["messages"][-1]["content"]
    return Reply(content=json.dumps({"echo": prompt}), prompt_tokens=len(prompt))


async def _ask(base_url: str, prompts: list[str]) -> list[Any]:
    client = openai.AsyncOpenAI(base_url=base_url, api_key="k", max_retries=0)
    try:
        return await asyncio.gather(
            *(
                client.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": prompt}]
                )
                for prompt in prompts
            )
        )
    finally:
        await client.close()


def test_concurrent_requests_get_their_own_replies_after_the_latency() -> None:
    server = AsyncScriptedServer(_numbered, latency=0.05).start()
    try:
        prompts = [f"question {n}" for n in range(12)]
        replies = asyncio.run(_ask(server.base_url, prompts))
    finally:
        server.stop()
    assert [json.loads(r.choices[0].message.content)["echo"] for r in replies] == prompts
    assert [r.usage.prompt_tokens for r in replies] == [len(p) for p in prompts]
    assert {r.choices[0].finish_reason for r in replies} == {"stop"}
    assert server.handled == 12
    assert 2 <= server.max_in_flight <= 12  # they waited their 50 ms side by side
    assert server.handling_s > 0


def test_an_error_status_reaches_the_client_as_that_status() -> None:
    server = AsyncScriptedServer(Reply(status=429, headers={"retry-after": "0"})).start()
    try:
        with pytest.raises(openai.RateLimitError) as caught:
            asyncio.run(_ask(server.base_url, ["q"]))
    finally:
        server.stop()
    assert caught.value.status_code == 429
    assert caught.value.response.headers["retry-after"] == "0"


def test_in_its_own_process_it_reports_what_it_handled() -> None:
    server = ServerProcess(0.01, _numbered, engine="asyncio")
    with server as base_url:
        replies = asyncio.run(_ask(base_url, ["a", "b", "c"]))
    assert [json.loads(r.choices[0].message.content)["echo"] for r in replies] == ["a", "b", "c"]
    assert server.handled == 3
    assert 1 <= server.max_in_flight <= 3
