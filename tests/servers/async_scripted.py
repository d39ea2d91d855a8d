"""The scripted server's replies from one asyncio event loop: a lean server for benchmarks.

:class:`~tests.servers.scripted_openai.ScriptedServer` answers each connection in a thread of
its own; at 64 connections and more that costs CPU in thread switches and in the interpreter's
lock, about 0.3 ms per request on a small machine. A benchmark on 2 cores then measures that
too. :class:`AsyncScriptedServer` gives the same replies (:func:`reply_payload`, the same
scripted latency, HTTP/1.1 keep-alive on 127.0.0.1) from one event loop in a daemon thread, and
counts the same figures (requests handled, the most at once, its own time per request). It
serves the default reply only (no queue, no recorded requests, no hanging replies): what
benchmarks need.
"""

from __future__ import annotations

import asyncio
import http
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from tests.servers.scripted_openai import Reply, reply_payload

__all__ = ["AsyncScriptedServer"]


class AsyncScriptedServer:
    """Scripted replies from an asyncio server; :meth:`start` and :meth:`stop` as the other's.

    Args:
        default: the reply (a ``Reply`` or a function of the request body returning one).
        latency: seconds every reply waits before it is sent.
    """

    def __init__(
        self, default: Reply | Callable[[Any], Reply] | None = None, *, latency: float = 0.0
    ) -> None:
        self.default = default or Reply()
        self.latency = latency
        self.max_in_flight = 0
        self.handling_s = 0.0
        self.handled = 0
        self._in_flight = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._server: asyncio.base_events.Server | None = None
        self.base_url = ""

    def start(self) -> AsyncScriptedServer:
        self._thread.start()
        self._ready.wait()
        return self

    def stop(self) -> None:
        """Close the listening socket and every connection, then end the loop's thread."""
        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(5)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        current = asyncio.current_task()
        connections = [task for task in asyncio.all_tasks() if task is not current]
        for task in connections:
            task.cancel()
        await asyncio.gather(*connections, return_exceptions=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._connection, "127.0.0.1", 0, backlog=256)
        )
        port = self._server.sockets[0].getsockname()[1]
        self.base_url = f"http://127.0.0.1:{port}/v1"
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            self._loop.close()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                started = time.perf_counter()
                lines = head.decode("latin-1").split("\r\n")
                path = lines[0].split(" ")[1]
                length = 0
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                raw = await reader.readexactly(length)
                try:
                    body: Any = json.loads(raw)
                except ValueError:
                    body = raw.decode(errors="replace")
                self._in_flight += 1
                self.max_in_flight = max(self.max_in_flight, self._in_flight)
                default = self.default
                reply = default(body) if callable(default) else default
                own = time.perf_counter() - started
                wait = reply.delay + self.latency
                if wait:
                    await asyncio.sleep(wait)
                started = time.perf_counter()
                payload = reply_payload(reply, path, body)
                head_lines = [
                    f"HTTP/1.1 {reply.status} {http.HTTPStatus(reply.status).phrase}",
                    f"Content-Type: {reply.content_type}",
                    f"Content-Length: {len(payload)}",
                    *(f"{name}: {value}" for name, value in reply.headers.items()),
                ]
                writer.write(("\r\n".join(head_lines) + "\r\n\r\n").encode("latin-1") + payload)
                self._in_flight -= 1
                self.handled += 1
                self.handling_s += own + time.perf_counter() - started
                await writer.drain()
        except asyncio.CancelledError:
            # stop() cancels open connections; ending normally keeps Python 3.11's start_server
            # callback (which asks the task for its exception) from reporting each one
            return
        finally:
            writer.close()
