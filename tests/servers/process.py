"""The scripted server in a process of its own, for benchmarks.

In the client's process the server's threads share the interpreter's lock with the client's
event loop, so every reply it sends is CPU taken from the client: a benchmark then measures the
two together. :class:`ServerProcess` starts :class:`~tests.servers.scripted_openai.ScriptedServer`
in a *spawned* child (not forked: it does not start as a copy of the client's heap) and reports,
once stopped, what the server cost: its CPU time, its mean handling time per request, the
requests it handled and the most it handled at once.

The reply is a :class:`~tests.servers.scripted_openai.Reply` or a function of the request body
returning one; it is sent to the child by pickling, so a function must be defined at a module's
top level. ``engine="asyncio"`` serves it from one event loop
(:class:`~tests.servers.async_scripted.AsyncScriptedServer`) instead of a thread per
connection: the same replies at a fraction of the server's CPU, for benchmarks where the server
shares the machine's cores with what they measure.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, Literal

from tests.servers.async_scripted import AsyncScriptedServer
from tests.servers.scripted_openai import Reply, ScriptedServer

__all__ = ["ServerProcess"]


Engine = Literal["threads", "asyncio"]


def _serve(
    default: Reply | Callable[[Any], Reply] | None,
    latency: float,
    conn: Connection,
    engine: Engine = "threads",
) -> None:
    kind = AsyncScriptedServer if engine == "asyncio" else ScriptedServer
    server = kind(default, latency=latency).start()
    started_cpu = time.process_time()  # the interpreter's start-up is not serving
    conn.send(server.base_url)
    conn.recv()  # wait until told to stop
    server.stop()
    handled = max(1, server.handled)
    conn.send(
        (
            time.process_time() - started_cpu,
            server.handling_s / handled,
            server.handled,
            server.max_in_flight,
        )
    )


class ServerProcess:
    """The scripted server in a child process; a context manager giving its base URL.

    Args:
        latency: seconds every reply waits before it is sent.
        default: the reply (or a top-level function of the request body returning one);
            ``Reply()`` when omitted.
        engine: ``"threads"`` (:class:`ScriptedServer`, a thread per connection) or
            ``"asyncio"`` (:class:`AsyncScriptedServer`, one event loop).

    After the ``with`` block: ``server_cpu_s`` (the server's CPU seconds while serving),
    ``handling_s`` (its mean own time per request, scripted waits excluded), ``handled``
    (requests answered) and ``max_in_flight`` (the most handled at once).
    """

    def __init__(
        self,
        latency: float,
        default: Reply | Callable[[Any], Reply] | None = None,
        *,
        engine: Engine = "threads",
    ) -> None:
        spawn = multiprocessing.get_context("spawn")
        self.parent, child = spawn.Pipe()
        self.engine = engine
        self.process = spawn.Process(
            target=_serve, args=(default, latency, child, engine), daemon=True
        )
        self.server_cpu_s = 0.0
        self.handling_s = 0.0
        self.handled = 0
        self.max_in_flight = 0

    def __enter__(self) -> str:
        self.process.start()
        return str(self.parent.recv())

    def __exit__(self, *exc: object) -> None:
        self.parent.send("stop")
        self.server_cpu_s, self.handling_s, self.handled, self.max_in_flight = self.parent.recv()
        self.process.join(5)
