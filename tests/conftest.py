"""Suite-wide fixtures: no test may call a real judge provider.

Two guards: scorekit's own (``forbid_remote_requests``: adapters refuse non-loopback hosts with
a clear error) and a socket-level one (any TCP connection to a non-loopback address fails), so
a provider SDK used directly cannot reach the network either. The scripted server and the
local llama.cpp judge listen on 127.0.0.1 and stay reachable. ``server`` is the scripted judge
(tests/servers/scripted_openai.py), one per session, reset around each test that asks for it.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from scorekit.judge.scripted import forbid_remote_requests
from tests.servers.scripted_openai import ScriptedServer

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _check(sock: socket.socket, address: Any) -> None:
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    host = address[0] if isinstance(address, tuple) else str(address)
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ConnectionRefusedError(f"tests may not connect to {host}: real providers are off")


def _guarded_connect(self: socket.socket, address: Any) -> None:
    _check(self, address)
    _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> int:
    _check(self, address)
    return _real_connect_ex(self, address)


@pytest.fixture(autouse=True)
def _no_real_judges(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)
    with forbid_remote_requests():
        yield


@pytest.fixture(scope="session")
def _session_server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as server:
        yield server


@pytest.fixture
def server(_session_server: ScriptedServer) -> Iterator[ScriptedServer]:
    """The scripted OpenAI-compatible judge on 127.0.0.1, shared by the session, reset per test."""
    _session_server.reset()
    yield _session_server
    _session_server.reset()


# PostgreSQL: a server of the tests' own (tests/pgserver.py); `store_db` runs a test on both
# backends, `postgres_url` on PostgreSQL only
from tests.pgserver import postgres_server, postgres_url, store_db  # noqa: E402, F401
