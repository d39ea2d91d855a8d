"""The judge against a real scripted OpenAI-compatible server, through the real ``openai`` SDK.

Each fault the issue lists gets its exact outcome asserted: status, attempts, raw text kept.
"""

from __future__ import annotations

import asyncio
import json
import socket
import ssl
import threading
import time
import uuid
from typing import Any

import httpx2
import openai
import pytest
from pydantic import BaseModel

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
from scorekit.judge.openai_compat import OpenAICompatibleModel
from scorekit.judge.retry import is_retryable
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
    assert body["max_tokens"] == 46  # Relevance's bound (budget.py), below max_tokens=64
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
    assert "ConnectionRefusedError" in str(info.value)  # not reported as a timeout
    assert info.value.usage is not None
    assert info.value.usage.attempts == 3


async def test_a_server_hanging_up_is_a_lost_connection_retried_not_a_timeout(
    server: ScriptedServer,
) -> None:
    # the server closes the connection without a reply; the SDK's aiohttp transport calls
    # that a connect timeout, scorekit names it for what it is and retries it
    server.enqueue(Reply(hang=True, hang_s=0.05))
    result = await make_judge(server, max_retries=1).generate_object("x", Relevance)
    assert result.value.label == "high"
    assert result.usage.attempts == 2
    server.enqueue(Reply(hang=True, hang_s=0.05), Reply(hang=True, hang_s=0.05))
    with pytest.raises(JudgeHTTPError, match="connection was lost") as info:
        await make_judge(server, max_retries=1).generate_object("x", Relevance)
    assert info.value.status_code == 0
    assert "ServerDisconnectedError" in str(info.value)
    assert info.value.usage is not None
    assert info.value.usage.attempts == 2


async def test_malformed_json_is_repaired_once(server: ScriptedServer) -> None:
    server.enqueue(Reply('{"label": "high"'), Reply('{"label": "high"}'))
    result = await make_judge(server).generate_object("x", Relevance)
    assert result.value.label == "high"
    assert result.usage.calls == 2
    repair = server.chat_requests[1]["messages"]
    assert repair[-2] == {"role": "assistant", "content": '{"label": "high"'}
    assert "did not match the required JSON schema" in repair[-1]["content"]
    assert "the reply's JSON is unterminated (cut off after 16 characters)" in repair[-1]["content"]


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


async def test_cut_off_below_the_bound_is_retried_once_at_the_bound(
    server: ScriptedServer,
) -> None:
    # max_tokens=16 is below Relevance's bound (46 tokens, 18 characters): one retry at the
    # bound measured at the reply's own density, ceil(1.25 × 18 × 7 / 5) + 32 = 64
    server.enqueue(Reply('{"lab', finish_reason="length"), Reply('{"label": "medium"}'))
    result = await make_judge(server, max_tokens=16).generate_object("x", Relevance)
    assert result.value.label == "medium"
    budgets = [body["max_tokens"] for body in server.chat_requests]
    assert budgets == [16, 64]
    assert result.usage.calls == 2
    assert (result.usage.max_tokens, result.usage.max_tokens_per_call) == (80, 64)


async def test_cut_off_twice_fails_with_raw_text(server: ScriptedServer) -> None:
    server.enqueue(*[Reply('{"lab', finish_reason="length") for _ in range(2)])
    with pytest.raises(JudgeOutputError, match="cut off at the token limit even with") as info:
        await make_judge(server).generate_object("x", Relevance)
    assert info.value.raw_output == '{"lab'
    assert info.value.attempts == 2
    budgets = [body["max_tokens"] for body in server.chat_requests]
    assert budgets == [46, 64]  # the bound's budget, then the bound at the reply's density


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
    # asked once more (the repair), then an error
    server.enqueue(Reply(""))
    server.enqueue(Reply(""))
    with pytest.raises(JudgeOutputError, match="empty"):
        await make_judge(server).generate_text("Why?")


# -- bodies that are not a chat completion: the raw text is kept, without the key ---------------

SECRET = "sk-scorekit-body-SECRET-777"


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        ('{"choices": [{"message": {"content": "{\\"label\\": ', "application/json"),
        ("<html><body>Bad gateway (proxy)</body></html>", "application/json"),
        ("<html><body>Bad gateway (proxy)</body></html>", "text/html"),
        ('{"object": "list", "data": []}', "application/json"),
    ],
    ids=["truncated-json", "html-as-json", "html", "json-not-a-completion"],
)
async def test_a_200_with_a_malformed_body_keeps_the_raw_body(
    server: ScriptedServer, body: str, content_type: str
) -> None:
    server.enqueue(Reply(body=body, content_type=content_type))
    with pytest.raises(ScorerRunError) as info:
        await relevance_scorer(make_judge(server)).run(output="o")
    cause = info.value.__cause__
    assert isinstance(cause, JudgeOutputError)
    assert cause.raw_output == body
    assert "malformed response body" in str(cause)
    assert body[:40] in str(cause)
    partial = info.value.result
    assert partial is not None
    assert partial.error is not None
    assert partial.error.raw_output == body
    assert len(server.requests) == 1  # not retried, not repaired


async def test_a_malformed_body_is_truncated_and_scrubbed_of_the_key(
    server: ScriptedServer,
) -> None:
    body = f"<html>echo: Authorization: Bearer {SECRET} " + "x" * 50_000 + "</html>"
    server.enqueue(Reply(body=body))
    with pytest.raises(JudgeOutputError) as info:
        await make_judge(server, api_key=SECRET).generate_object("x", Relevance)
    raw = info.value.raw_output
    assert raw is not None
    assert SECRET not in raw
    assert SECRET not in str(info.value)
    assert raw.startswith("<html>echo: Authorization: Bearer ***")
    assert 2000 <= len(raw) <= 2100  # the first 2,000 characters and a marker
    assert len(str(info.value)) < 1000


async def test_an_http_error_with_an_html_body_names_the_body(server: ScriptedServer) -> None:
    page = "<html><title>503 Service Unavailable</title><body>upstream down</body></html>"
    server.enqueue(*[Reply(status=503, body=page, content_type="text/html") for _ in range(2)])
    with pytest.raises(JudgeHTTPError) as info:
        await make_judge(server, max_retries=1, api_key=SECRET).generate_object("x", Relevance)
    assert info.value.status_code == 503
    assert "upstream down" in str(info.value)
    assert SECRET not in str(info.value)
    assert len(server.requests) == 2


# -- usage fields the server got wrong never fail the call -------------------------------------


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({"prompt_tokens": "abc", "completion_tokens": 5}, (0, 5)),
        ({"prompt_tokens": -3, "completion_tokens": -1}, (0, 0)),
        ({"prompt_tokens": 1e30, "completion_tokens": 2}, (10_000_000, 2)),
        ({"prompt_tokens": 12.0, "completion_tokens": "7"}, (12, 7)),
        ({"prompt_tokens": None, "completion_tokens": True}, (0, 0)),
        ({"prompt_tokens": float("nan"), "completion_tokens": []}, (0, 0)),
        ("lots", (0, 0)),
        (None, (0, 0)),
    ],
    ids=[
        "text",
        "negative",
        "absurd",
        "float-and-digits",
        "null-and-bool",
        "nan-and-list",
        "str",
        "null",
    ],
)
async def test_bad_usage_fields_count_zero_or_clamp(
    server: ScriptedServer, usage: Any, expected: tuple[int, int]
) -> None:
    body = {
        "choices": [
            {
                "message": {"role": "assistant", "content": '{"label": "low"}'},
                "finish_reason": "stop",
            }
        ],
        "usage": usage,
    }
    # NaN is not JSON: send it the way Python's encoder does, as a bare token
    server.enqueue(Reply(body=json.dumps(body)))
    result = await make_judge(server).generate_object("x", Relevance)
    assert result.value.label == "low"
    assert (result.usage.input_tokens, result.usage.output_tokens) == expected
    assert (result.usage.calls, result.usage.attempts) == (1, 1)


async def test_content_given_as_a_list_of_parts_is_joined(server: ScriptedServer) -> None:
    parts = [{"type": "text", "text": '{"label": '}, {"type": "text", "text": '"medium"}'}]
    server.enqueue(Reply(message={"role": "assistant", "content": parts}))
    result = await make_judge(server).generate_object("x", Relevance)
    assert result.value.label == "medium"
    assert result.raw_text == '{"label": "medium"}'


async def test_a_runaway_invalid_reply_is_kept_cut_to_20k_characters(
    server: ScriptedServer,
) -> None:
    long_reply = "I think " * 10_000  # 80,000 characters, no JSON
    server.enqueue(Reply(long_reply), Reply(long_reply))
    with pytest.raises(JudgeOutputError) as info:
        await make_judge(server).generate_object("x", Relevance)
    raw = info.value.raw_output
    assert raw is not None
    assert raw.startswith(long_reply[:20_000])
    assert raw.endswith("[60000 more characters]")
    assert len(str(info.value)) < 2000


class Score(BaseModel):
    score: float


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
async def test_non_finite_numbers_fail_validation_and_are_repaired(
    server: ScriptedServer, token: str
) -> None:
    server.enqueue(Reply(f'{{"score": {token}}}'), Reply('{"score": 0.5}'))
    result = await make_judge(server).generate_object("x", Score)
    assert result.value.score == 0.5
    assert result.usage.calls == 2
    assert token in server.chat_requests[1]["messages"][-1]["content"]


async def test_non_finite_numbers_twice_fail_with_raw_text(server: ScriptedServer) -> None:
    server.enqueue(Reply('{"score": NaN}'), Reply('{"score": Infinity}'))
    with pytest.raises(JudgeOutputError, match="non-finite") as info:
        await make_judge(server).generate_object("x", Score)
    assert info.value.raw_output == '{"score": Infinity}'


async def test_the_http_proxy_from_the_environment_is_used(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the scripted server stands in for an HTTP proxy: a proxied request names the whole URL
    monkeypatch.setenv("HTTP_PROXY", server.root_url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    judge = Judge(
        f"openai-compatible/p-{uuid.uuid4().hex[:6]}", base_url="http://127.0.0.2:9/v1", **FAST
    )
    result = await judge.generate_object("x", Relevance)
    assert result.value.label == "high"
    assert [r.path for r in server.requests] == ["http://127.0.0.2:9/v1/chat/completions"]


class RawReplyServer:
    """A TCP server on 127.0.0.1 answering every request with the same raw bytes, then
    closing the connection: for responses no HTTP library would write."""

    def __init__(self, reply: bytes) -> None:
        self.reply = reply
        self.requests = 0
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                self.requests += 1
                conn.sendall(self.reply)

    def close(self) -> None:
        self.sock.close()


_BODY = json.dumps(
    {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": '{"label": "high"}'},
                "finish_reason": "stop",
            }
        ],
    }
).encode()


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (b"HELLO WORLD\r\n\r\n", "Bad status line"),
        (b"HTTP/1.1 abc OK\r\nContent-Length: 0\r\n\r\n", "Invalid status code"),
        (
            b"HTTP/1.1 200 OK\r\nX-Big: "
            + b"a" * 10_000
            + b"\r\nContent-Length: %d\r\n\r\n%s" % (len(_BODY), _BODY),
            "8190 bytes",
        ),
    ],
)
async def test_an_unreadable_http_response_is_a_judge_http_error_retried(
    reply: bytes, why: str
) -> None:
    # aiohttp refuses these responses with its own error, which the SDK's transport passes
    # through unwrapped; scorekit turns it into a JudgeHTTPError (status 0) and retries
    server = RawReplyServer(reply)
    try:
        judge = Judge(
            f"openai-compatible/raw-{uuid.uuid4().hex[:6]}",
            base_url=server.base_url,
            max_retries=1,
            **FAST,
        )
        with pytest.raises(JudgeHTTPError, match="could not be read") as info:
            await judge.generate_object("x", Relevance)
    finally:
        server.close()
    assert info.value.status_code == 0
    assert why in str(info.value)
    assert "\n" not in str(info.value)
    assert "400" not in str(info.value)  # aiohttp's internal code, not a status the server sent
    assert info.value.usage is not None
    assert info.value.usage.attempts == 2
    assert server.requests == 2


def _sdk_error(kind: type[openai.APIConnectionError], *causes: BaseException) -> Exception:
    request = httpx2.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    error = kind(request=request)
    outer: BaseException = error
    for cause in causes:
        outer.__cause__ = cause
        outer = cause
    return error


@pytest.mark.parametrize(
    ("causes", "expected"),
    [
        # a read timeout; on Python 3.10 aiohttp's timeouts are asyncio.TimeoutError
        ((httpx2.ReadTimeout("t"), asyncio.TimeoutError()), JudgeTimeoutError),
        ((httpx2.ReadTimeout("t"), TimeoutError()), JudgeTimeoutError),
        ((), JudgeTimeoutError),
        # what the aiohttp transport calls a connect timeout: a refused connection
        ((httpx2.ConnectTimeout("c"), ConnectionRefusedError(111, "refused")), JudgeHTTPError),
    ],
)
def test_sdk_timeouts_are_told_apart_from_failed_connections(
    causes: tuple[BaseException, ...], expected: type[Exception]
) -> None:
    judge = Judge("openai-compatible/m", base_url="http://127.0.0.1:9/v1", cache=False)
    adapter = judge.model
    assert isinstance(adapter, OpenAICompatibleModel)
    translated = adapter._translate(_sdk_error(openai.APITimeoutError, *causes))  # type: ignore[arg-type]
    assert type(translated) is expected
    if expected is JudgeHTTPError:
        assert "ConnectionRefusedError" in str(translated)


def test_a_rejected_tls_certificate_is_not_retried() -> None:
    judge = Judge("openai-compatible/m", base_url="https://127.0.0.1:9/v1", cache=False)
    adapter = judge.model
    assert isinstance(adapter, OpenAICompatibleModel)
    error = _sdk_error(
        openai.APIConnectionError,
        httpx2.ConnectError("c"),
        ssl.SSLCertVerificationError(1, "certificate verify failed: self-signed certificate"),
    )
    translated = adapter._translate(error)  # type: ignore[arg-type]
    assert type(translated) is JudgeError  # not a JudgeHTTPError: retrying cannot help
    assert "TLS certificate" in str(translated)
    assert "SSL_CERT_FILE" in str(translated)
    assert not is_retryable(translated)


async def test_an_empty_text_reply_is_repaired_once_then_fails() -> None:
    from scorekit.errors import JudgeOutputError
    from scorekit.judge import Judge, ScriptedJudge

    script = ScriptedJudge(["", "a reason"])
    reply = await Judge(script, cache=False).generate_text("why?")
    assert reply.value == "a reason"
    assert len(script.calls) == 2
    assert script.calls[1].messages[-1].content == (
        "Your reply was empty. Answer again with the text asked for."
    )
    empty = ScriptedJudge(["", " "])
    with pytest.raises(JudgeOutputError, match="also after a repair request"):
        await Judge(empty, cache=False).generate_text("why?")
    assert len(empty.calls) == 2


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        # issue 34 #4: a 20 MB reply to a 237-token request was taken, sent back twice
        (Reply(content='{"label": "' + "high " * 400_000 + '"}'), "characters, more than"),
        (Reply(content='{"label": "maybe"}', completion_tokens=10_000), "10000 completion tokens"),
    ],
)
async def test_a_reply_longer_than_its_budget_fails_at_once(reply: Reply, problem: str) -> None:
    with ScriptedServer(reply) as server:
        with pytest.raises(JudgeOutputError) as info:
            await make_judge(server, max_tokens=50).generate_object("x", Relevance)
        error = info.value
        sent = server.requests[0].body["max_tokens"]
        assert sent <= 50
        assert str(error).startswith("degenerate reply for Relevance: ")
        assert problem in str(error) and f"max_tokens={sent}" in str(error)
        assert error.attempts == 1
        assert len(server.requests) == 1  # no repair request: never fed back to the judge
        assert error.raw_output is not None
        assert len(error.raw_output) < 21_000  # kept up to the cap


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed again when the block ends: refused


async def test_a_dead_judge_is_left_alone_after_calls_that_cannot_connect(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # issue 34: a dead judge got 3 retry lines per call for every item (~1 h for 10k items)
    from scorekit.errors import JudgeUnavailableError
    from scorekit.judge.retry import BREAK_AFTER, RETRY_LINES

    base_url = f"http://127.0.0.1:{_closed_port()}/v1"
    judge = Judge(f"openai-compatible/dead-{uuid.uuid4().hex[:8]}", base_url=base_url,
                  cache=False, retry_backoff=0.0, max_retries=2, timeout=5.0)  # fmt: skip
    caplog.set_level("WARNING", logger="scorekit.judge")
    for _ in range(BREAK_AFTER):
        with pytest.raises(JudgeHTTPError):
            await judge.generate_object("x", Relevance)
    started = time.perf_counter()
    for _ in range(20):
        with pytest.raises(JudgeUnavailableError, match="could not connect even after their"):
            await judge.generate_object("x", Relevance)
    assert time.perf_counter() - started < 1.0  # nothing sent: no connection attempted
    messages = [r.getMessage() for r in caplog.records]
    opened = [m for m in messages if "calls in a row could not connect" in m]
    assert len(opened) == 1  # said once
    retries = [m for m in messages if ": retry " in m]
    assert len(retries) == RETRY_LINES  # 5 calls x 2 retries = 10 lines, none past the cap
    assert sum("further retries are not printed" in m for m in messages) == 0
    # a judge on another endpoint is not affected
    other = Judge(f"openai-compatible/dead-{uuid.uuid4().hex[:8]}", base_url=base_url,
                  cache=False, retry_backoff=0.0, max_retries=0, timeout=5.0)  # fmt: skip
    with pytest.raises(JudgeHTTPError):
        await other.generate_object("x", Relevance)


def test_the_breaker_closes_when_a_call_gets_through() -> None:
    from scorekit.errors import JudgeUnavailableError
    from scorekit.judge.retry import BREAK_AFTER, COOL_DOWN_S, RETRY_LINES, ConnectionBreaker

    now = [100.0]
    breaker = ConnectionBreaker("m", clock=lambda: now[0])
    for _ in range(BREAK_AFTER - 1):
        breaker.failed()
    breaker.check()  # not yet
    breaker.failed()
    with pytest.raises(JudgeUnavailableError, match="another 60 s"):
        breaker.check()
    now[0] += COOL_DOWN_S + 0.1
    breaker.check()  # half open: one call may go
    breaker.failed()  # it failed too: open again
    with pytest.raises(JudgeUnavailableError):
        breaker.check()
    now[0] += COOL_DOWN_S + 0.1
    breaker.succeeded()
    breaker.failed()  # one failure after a success does not open it
    breaker.check()
    printed = [breaker.note_retry() for _ in range(RETRY_LINES + 5)]
    assert printed == [True] * (RETRY_LINES + 1) + [False] * 4
