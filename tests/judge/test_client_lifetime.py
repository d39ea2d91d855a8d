"""SDK clients live as long as their event loop: no socket or client leaks per loop.

The sync bridge runs each call made inside a running loop on a fresh loop in a worker thread,
and each plain thread gets its own loop; a client cached per loop must be closed when that
loop ends, or every call leaks a socket (both of its ends here: the scripted server runs in
this process) and about a megabyte.
"""

from __future__ import annotations

import asyncio
import gc
import os
import threading
import time
import uuid
import warnings
from pathlib import Path
from typing import Any

import pytest

from scorekit import PromptStep, create_scorer
from scorekit.judge import Judge
from scorekit.judge.clients import LoopClients
from scorekit.judge.openai_compat import OpenAICompatibleModel
from tests.judge.conftest import Relevance
from tests.servers.scripted_openai import ScriptedServer

CALLS = 40
SLACK_FDS = 4  # the server's handler threads close their end a moment after the client

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def settled_fds(limit: int) -> int:
    """The fd count, given the server's threads a moment to close their ends."""
    deadline = time.monotonic() + 2.0
    while True:
        gc.collect()
        count = open_fds()
        if count <= limit or time.monotonic() > deadline:
            return count
        time.sleep(0.02)


def scorer_and_model(server: ScriptedServer):
    judge = Judge(
        f"openai-compatible/life-{uuid.uuid4().hex[:6]}", base_url=server.base_url, cache=False
    )
    assert isinstance(judge.model, OpenAICompatibleModel)
    scorer = (
        create_scorer("rel", description="d", judge=judge)
        .analyze(PromptStep("label", lambda ctx: f"label {ctx.run.output}", Relevance))
        .generate_score(lambda ctx: 1.0)
    )
    return scorer, judge.model


async def test_bridged_calls_inside_a_running_loop_keep_fds_and_clients_flat(
    server: ScriptedServer,
) -> None:
    scorer, model = scorer_and_model(server)
    assert scorer.run_sync(output="warm-up").status == "ok"
    before = settled_fds(0)
    for i in range(CALLS):
        assert scorer.run_sync(output=f"item {i}").status == "ok"
        assert len(model.clients) == 0  # the worker loop's clients closed with it
    assert settled_fds(before + SLACK_FDS) <= before + SLACK_FDS
    assert len(server.requests) == CALLS + 1


def test_calls_from_short_lived_threads_keep_fds_and_clients_flat(
    server: ScriptedServer,
) -> None:
    scorer, model = scorer_and_model(server)

    def call(output: str) -> None:
        assert scorer.run_sync(output=output).status == "ok"

    def in_thread(output: str) -> None:
        thread = threading.Thread(target=call, args=(output,))
        thread.start()
        thread.join()

    in_thread("warm-up")
    before = settled_fds(0)
    for i in range(CALLS):
        in_thread(f"item {i}")
    assert len(model.clients) == 0  # each thread's loop closed its clients at the thread's end
    assert settled_fds(before + SLACK_FDS) <= before + SLACK_FDS
    assert len(server.requests) == CALLS + 1


class _Client:
    def __init__(self) -> None:
        self.closed = False

    async def close(self) -> None:
        await asyncio.sleep(0)  # closing may await: it runs while the loop still runs
        self.closed = True


async def _close(client: _Client) -> None:
    await client.close()


def test_clients_are_kept_per_key_and_closed_at_loop_shutdown() -> None:
    clients: LoopClients[_Client] = LoopClients(_close)

    async def use() -> list[_Client]:
        return [await clients.get(key, _Client) for key in ("a", "b", "a", "b")]

    handed = asyncio.run(use())
    assert handed[0] is not handed[1]
    assert handed[2] is handed[0] and handed[3] is handed[1]
    assert all(client.closed for client in handed)
    assert len(clients) == 0


def test_entries_of_loops_closed_without_shutdown_are_dropped() -> None:
    clients: LoopClients[_Client] = LoopClients(_close)
    loop = asyncio.new_event_loop()
    loop.run_until_complete(clients.get("k", _Client))
    loop.close()  # no shutdown_asyncgens: the clients cannot be closed any more
    assert len(clients) == 0  # a closed loop's entry does not count
    asyncio.run(clients.get("k", _Client))  # a new loop's entry sweeps the stale one
    assert clients._entries == {}


async def test_aclose_closes_the_running_loops_clients() -> None:
    clients: LoopClients[_Client] = LoopClients(_close)
    first = await clients.get("k", _Client)
    await clients.aclose()
    assert first.closed
    assert len(clients) == 0
    assert await clients.get("k", _Client) is not first


async def test_a_bridged_call_does_not_rebuild_the_tls_context(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # each bridged call runs on a new loop, so it makes a new SDK client; building one used
    # to load the CA bundle again (~20 ms, most of a megabyte), now one context is shared.
    # Counted, not timed: CA loads after the warm-up must be none (timing lives in benchmarks/)
    import ssl

    scorer, _ = scorer_and_model(server)
    assert scorer.run_sync(output="warm-up").status == "ok"
    loads: list[str] = []
    for name in ("load_verify_locations", "load_default_certs"):
        original = getattr(ssl.SSLContext, name)

        def counted(
            self: ssl.SSLContext, *args: Any, _o: Any = original, _n: str = name, **kw: Any
        ) -> Any:
            loads.append(_n)
            return _o(self, *args, **kw)

        monkeypatch.setattr(ssl.SSLContext, name, counted)
    fresh = ssl.create_default_context()  # the counter sees a real CA load
    assert loads and fresh.cert_store_stats()["x509_ca"] >= 0
    loads.clear()
    for i in range(20):
        assert scorer.run_sync(output=f"item {i}").status == "ok"
    assert loads == []


async def test_clients_of_a_dropped_registry_are_closed_while_the_loop_runs() -> None:
    # a judge gone out of scope in a long-lived loop (a notebook) closes its clients at once,
    # instead of leaving them to the garbage collector (aiohttp warns, sockets linger)
    clients: LoopClients[_Client] = LoopClients(_close)
    client = await clients.get("k", _Client)
    del clients
    for _ in range(5):
        await asyncio.sleep(0)
    assert client.closed


def _unclosed_reports(caplog: pytest.LogCaptureFixture, caught: list[warnings.WarningMessage]):
    logged = [r.getMessage() for r in caplog.records if "nclosed" in r.getMessage()]
    warned = [str(w.message) for w in caught if "nclosed" in str(w.message)]
    return logged + warned


def test_a_judge_dropped_just_before_its_loop_ends_has_its_clients_closed(
    server: ScriptedServer, caplog: pytest.LogCaptureFixture
) -> None:
    # the usual script: the judge is a local of main(), dropped when main() returns and
    # before asyncio.run shuts the loop down; its SDK clients must still be closed, and
    # waited for, by the loop's shutdown (a close left to a finaliser task may be cut off
    # when the loop closes, and the aiohttp transport then reports an unclosed session)
    captured: list[Any] = []

    async def main() -> None:
        judge = Judge(
            f"openai-compatible/drop-{uuid.uuid4().hex[:6]}",
            base_url=server.base_url,
            cache=False,
            concurrency=32,
        )
        replies = await asyncio.gather(
            *(judge.generate_object(f"item {i}", Relevance) for i in range(64))
        )
        assert len(replies) == 64
        entry = judge.model.clients._entries[asyncio.get_running_loop()]
        captured.extend(entry.clients.values())
        del judge, entry
        gc.collect()  # the judge is garbage now, its loop not yet shut down

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(main())
        gc.collect()
    assert len(captured) == 1
    client = captured[0]
    assert client.is_closed()
    session = client._client._transport.client  # the aiohttp session of the SDK's transport
    assert session.closed
    assert _unclosed_reports(caplog, caught) == []
    registry = Judge("openai-compatible/any", base_url=server.base_url, cache=False).model
    assert isinstance(registry, OpenAICompatibleModel)
    assert len(registry.clients) == 0


async def test_judges_made_and_dropped_in_one_loop_share_one_client(
    server: ScriptedServer,
) -> None:
    # a long-lived loop (a notebook, a web server) making a judge per request: one SDK client
    # per endpoint, not one per judge
    model_name = f"openai-compatible/share-{uuid.uuid4().hex[:6]}"
    first = Judge(model_name, base_url=server.base_url, cache=False)
    await first.generate_object("warm-up", Relevance)
    registry = first.model.clients
    held = registry.count()
    before = settled_fds(0)
    for i in range(CALLS):
        judge = Judge(model_name, base_url=server.base_url, cache=False)
        await judge.generate_object(f"item {i}", Relevance)
        del judge
    assert registry.count() == held
    assert settled_fds(before + SLACK_FDS) <= before + SLACK_FDS


def test_a_loop_left_open_at_exit_has_its_clients_closed() -> None:
    # an old-style script: run_until_complete on a loop it never closes; the exit hook closes
    # the judge's clients on that loop instead of leaving them to the garbage collector
    import subprocess
    import sys

    code = (
        "import asyncio, uuid\n"
        "from scorekit.judge import Judge\n"
        "from tests.judge.conftest import Relevance\n"
        "from tests.servers.scripted_openai import ScriptedServer\n"
        "server = ScriptedServer().start()\n"
        "judge = Judge(f'openai-compatible/x-{uuid.uuid4().hex[:6]}', base_url=server.base_url,"
        " cache=False)\n"
        "loop = asyncio.new_event_loop()\n"
        "print(loop.run_until_complete(judge.generate_object('x', Relevance)).value.label)\n"
    )
    out = subprocess.run(
        [sys.executable, "-W", "default", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert out.stdout.strip() == "high"
    # (Python's own "unclosed event loop" warning is about the script's loop, not ours)
    for leak in ("Unclosed client session", "Unclosed connector", "unclosed transport"):
        assert leak not in out.stderr, out.stderr
    assert "unclosed <socket" not in out.stderr, out.stderr
