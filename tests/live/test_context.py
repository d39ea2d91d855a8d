"""The request-context snapshot (Mastra's rule plus secret-looking keys) and the span ids."""

from __future__ import annotations

import asyncio
import threading

import pytest
from opentelemetry.sdk.trace import TracerProvider

from scorekit.live import current_request_context, looks_secret, request_context
from scorekit.live.context import current_span_ids, snapshot_request_context


def test_snapshot_keeps_primitives_flattened_to_dotted_keys() -> None:
    cyclic: dict[str, object] = {"name": "loop"}
    cyclic["self"] = cyclic
    deep: dict[str, object] = {"v": 0}
    for level in range(1, 11):
        deep = {"v": level, "d": deep}
    snapshot = snapshot_request_context(
        {
            "user": {"id": "u1", "plan": "pro", "roles": ["admin"]},
            "n": 3,
            "ratio": 0.5,
            "flag": False,
            "nan": float("nan"),
            "none": None,
            "raw": b"bytes",
            "cyclic": cyclic,
            "deep": deep,
            "mastra__authToken": "Bearer x",
            "OPENAI_API_KEY": "sk-1",
            "auth": {"user": "u"},
            "session_id": "s",
            "password": "p",
            "max_tokens": 256,
            "author": "Ann",
        }
    )
    assert snapshot == {
        "user.id": "u1",
        "user.plan": "pro",
        "n": 3,
        "ratio": 0.5,
        "flag": False,
        "cyclic.name": "loop",
        **{f"deep{'.d' * k}.v": 10 - k for k in range(8)},  # 8 levels below the top
        "max_tokens": 256,
        "author": "Ann",
    }


def test_not_a_mapping_gives_an_empty_snapshot() -> None:
    assert snapshot_request_context(None) == {}
    assert snapshot_request_context(["a"]) == {}


@pytest.mark.parametrize(
    ("key", "secret"),
    [
        ("api_key", True),
        ("apiKey", True),
        ("X-Api-Key", True),
        ("Authorization", True),
        ("refresh_token", True),
        ("client_secret", True),
        ("cookie", True),
        ("auth", True),
        ("max_tokens", False),
        ("prompt_token_count", False),
        ("author", False),
        ("tenant", False),
        ("user_id", False),
    ],
)
def test_secret_looking_keys(key: str, secret: bool) -> None:
    assert looks_secret(key) is secret


def test_request_context_is_per_thread_and_per_task() -> None:
    seen: dict[str, object] = {}

    def in_thread() -> None:
        seen["thread"] = current_request_context()

    async def task(name: str) -> None:
        with request_context({"tenant": name}):
            await asyncio.sleep(0.01)
            seen[name] = dict(current_request_context() or {})

    async def both() -> None:
        await asyncio.gather(task("a"), task("b"))

    with request_context({"tenant": "main"}):
        worker = threading.Thread(target=in_thread)
        worker.start()
        worker.join()
        asyncio.run(both())
        assert current_request_context() == {"tenant": "main"}
    assert current_request_context() is None
    assert seen == {"thread": None, "a": {"tenant": "a"}, "b": {"tenant": "b"}}


def test_request_context_refuses_a_non_mapping() -> None:
    with pytest.raises(TypeError), request_context(["x"]):  # type: ignore[arg-type]
        pass


def test_span_ids_of_the_current_span() -> None:
    assert current_span_ids() == (None, True)
    tracer = TracerProvider().get_tracer("t")
    with tracer.start_as_current_span("call") as span:
        context = span.get_span_context()
        assert current_span_ids() == (
            (f"{context.trace_id:032x}", f"{context.span_id:016x}"),
            True,
        )
