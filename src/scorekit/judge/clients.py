"""SDK clients kept per event loop and endpoint, closed when their loop shuts down.

An async HTTP client's connections belong to the event loop that opened them, and scorekit
runs judge calls on many loops: the caller's, and a fresh one per call when the sync bridge
(:mod:`scorekit._sync`) is used inside a running loop. So each adapter keeps its SDK clients
per loop, in one module-level :class:`LoopClients`, keyed by what makes a client differ
(protocol, endpoint, key, timeout): judges for the same endpoint share one client and its
connection pool, and judges made and dropped in a long-lived loop (a notebook, a web server)
reuse it instead of piling up clients.

Those clients must not outlive their loop: a client holds open sockets and, through them, a
reference to the loop, so a cache keyed weakly on the loop never lets the entry die (one
socket and ~1 MB per bridged call). Each loop's entry is therefore closed at the loop's
shutdown, through a hook every well-behaved loop owner runs: the entry registers a suspended
async generator with the loop, and ``loop.shutdown_asyncgens()`` (run by ``asyncio.run``,
``asyncio.Runner``, the sync bridge and pytest-asyncio before they close a loop) finalises it,
which closes the clients while the loop still runs, waits for their connections to close,
and drops the entry.

The clients do not belong to a judge: a judge dropped just before its loop ends (the usual
``async def main(): judge = Judge(...); ...`` under ``asyncio.run``) would otherwise leave
its clients to a finaliser task that the loop's shutdown does not wait for, and the aiohttp
transport then reports an unclosed session. A ``LoopClients`` that is itself dropped while
its loops run (only possible for one made outside the adapters) still closes its clients:
nothing but the suspended generator holds them, and the loop's finaliser hook runs it.

A loop left open at interpreter exit (a script that ran ``loop.run_until_complete`` and never
closed its loop) has its clients closed by an exit hook. A loop closed *without* that
shutdown (``loop.close()`` alone) cannot close its clients any more: the next time a client
is created, entries of closed loops are dropped so the map stays bounded, and the garbage
collector then closes their sockets (aiohttp reports each such session as unclosed).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import threading
import weakref
from collections.abc import AsyncGenerator, Awaitable, Callable, Hashable
from typing import Any, Generic, TypeVar

__all__ = ["LoopClients"]

C = TypeVar("C")


async def _close_at_shutdown(
    owner: weakref.ref[LoopClients[C]],
    loop: asyncio.AbstractEventLoop,
    clients: dict[Hashable, C],
    close: Callable[[C], Awaitable[None]],
) -> AsyncGenerator[None, None]:
    """Wait (suspended) until the loop shuts down or the owner is dropped; then close."""
    try:
        yield
    finally:
        registry = owner()
        if registry is not None:
            registry._forget(loop, clients)
        drained = list(clients.values())
        clients.clear()
        for client in drained:
            # a failing close must not keep the others open
            with contextlib.suppress(Exception):
                await close(client)


_registries: weakref.WeakSet[LoopClients[Any]] = weakref.WeakSet()


@atexit.register
def _close_loops_left_open() -> None:
    """At exit, close the clients of loops that are still open but no longer running."""
    for registry in list(_registries):
        with registry._lock:
            entries = list(registry._entries.items())
        for loop, entry in entries:
            closer = entry.closer
            if closer is None or loop.is_closed() or loop.is_running():
                continue
            with contextlib.suppress(Exception):
                loop.run_until_complete(closer.aclose())


class _Entry(Generic[C]):
    """One loop's clients by key, and the async generator that closes them at shutdown."""

    __slots__ = ("clients", "closer")

    def __init__(self) -> None:
        self.clients: dict[Hashable, C] = {}
        self.closer: AsyncGenerator[None, None] | None = None


class LoopClients(Generic[C]):
    """SDK clients per running event loop and key, closed when that loop shuts down.

    Args:
        close: closes a client (awaited on its own loop at the loop's shutdown).

    Example::

        _CLIENTS = LoopClients(lambda client: client.close())  # module level
        client = await _CLIENTS.get(("openai", base_url), lambda: openai.AsyncOpenAI(...))
    """

    def __init__(self, close: Callable[[C], Awaitable[None]]) -> None:
        self._close = close
        self._lock = threading.Lock()
        self._entries: dict[asyncio.AbstractEventLoop, _Entry[C]] = {}
        _registries.add(self)

    def __len__(self) -> int:
        """Running (not closed) loops that currently hold clients."""
        with self._lock:
            return sum(1 for loop in self._entries if not loop.is_closed())

    def count(self) -> int:
        """Clients currently held, over all loops that are not closed."""
        with self._lock:
            return sum(
                len(entry.clients) for loop, entry in self._entries.items() if not loop.is_closed()
            )

    async def get(self, key: Hashable, factory: Callable[[], C]) -> C:
        """Return the running loop's client for ``key``, made by ``factory`` if it has none.

        Args:
            key: what distinguishes one client from another (hashable; may hold a digest of
                the API key, never the key itself, so that it is safe to print).
            factory: makes the client; called at most once per loop and key.
        """
        loop = asyncio.get_running_loop()
        with self._lock:
            entry = self._entries.get(loop)
            if entry is not None:
                client = entry.clients.get(key)
                if client is not None:
                    return client
        if entry is None:
            entry = await self._new_entry(loop)
        with self._lock:
            client = entry.clients.get(key)
            if client is None:
                client = entry.clients[key] = factory()
        return client

    async def _new_entry(self, loop: asyncio.AbstractEventLoop) -> _Entry[C]:
        entry: _Entry[C] = _Entry()
        with self._lock:
            for stale in [other for other in self._entries if other.is_closed()]:
                del self._entries[stale]  # closed without shutdown_asyncgens: GC closes them
            existing = self._entries.get(loop)
            if existing is not None:
                return existing
            self._entries[loop] = entry
        # the generator holds the clients and a weak reference back: no cycle, so a
        # LoopClients dropped while its loops run frees the generator at once, and the
        # loop's finaliser hook closes the clients
        closer = _close_at_shutdown(weakref.ref(self), loop, entry.clients, self._close)
        entry.closer = closer  # the loop only holds it weakly
        # the first step runs to the ``yield`` and registers the generator with the loop
        await closer.__anext__()
        return entry

    def _forget(self, loop: asyncio.AbstractEventLoop, clients: dict[Hashable, C]) -> None:
        with self._lock:
            entry = self._entries.get(loop)
            if entry is not None and entry.clients is clients:
                del self._entries[loop]
                entry.closer = None

    async def aclose(self) -> None:
        """Close the running loop's clients now (they are recreated on next use)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            entry = self._entries.get(loop)
        if entry is not None and entry.closer is not None:
            await entry.closer.aclose()
