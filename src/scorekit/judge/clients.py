"""SDK clients kept per event loop and closed when their loop shuts down.

An async HTTP client's connections belong to the event loop that opened them, and scorekit
runs judge calls on many loops: the caller's, and a fresh one per call when the sync bridge
(:mod:`scorekit._sync`) is used inside a running loop. So each adapter keeps its SDK clients
per loop, in a :class:`LoopClients`.

Those clients must not outlive their loop: a client holds open sockets and, through them, a
reference to the loop, so a cache keyed weakly on the loop never lets the entry die (one
socket and ~1 MB per bridged call). Each loop's entry is therefore closed at the loop's
shutdown, through a hook every well-behaved loop owner runs: the entry registers a suspended
async generator with the loop, and ``loop.shutdown_asyncgens()`` (run by ``asyncio.run``,
``asyncio.Runner``, the sync bridge and pytest-asyncio before they close a loop) finalises it,
which closes the clients while the loop still runs and drops the entry.

A ``LoopClients`` dropped while its loops still run (a judge gone out of scope in a long-lived
loop) closes its clients at once: nothing but the suspended generator holds them, and the
loop's finaliser hook runs its clean-up.

A loop closed *without* that shutdown (``loop.close()`` alone) cannot close its clients any
more: the next time a client is created, entries of closed loops are dropped so the map
stays bounded, and the garbage collector then closes their sockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import weakref
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Generic, TypeVar

__all__ = ["LoopClients"]

C = TypeVar("C")


async def _close_at_shutdown(
    owner: weakref.ref[LoopClients[C]],
    loop: asyncio.AbstractEventLoop,
    clients: list[C],
    close: Callable[[C], Awaitable[None]],
) -> AsyncGenerator[None, None]:
    """Wait (suspended) until the loop shuts down or the owner is dropped; then close."""
    try:
        yield
    finally:
        registry = owner()
        if registry is not None:
            registry._forget(loop, clients)
        drained = list(clients)
        clients.clear()
        for client in drained:
            # a failing close must not keep the others open
            with contextlib.suppress(Exception):
                await close(client)


class _Entry(Generic[C]):
    """One loop's clients, and the async generator that closes them at the loop's shutdown."""

    __slots__ = ("clients", "closer", "turn")

    def __init__(self) -> None:
        self.clients: list[C] = []
        self.turn = 0
        self.closer: AsyncGenerator[None, None] | None = None


class LoopClients(Generic[C]):
    """SDK clients per running event loop, closed when that loop shuts down.

    Args:
        close: closes a client (awaited on its own loop at the loop's shutdown).
        per_loop: clients per loop, handed out in turn (``>= 1``).

    Example::

        clients = LoopClients(lambda client: client.close())
        client = await clients.get(lambda: openai.AsyncOpenAI(...))
    """

    def __init__(self, close: Callable[[C], Awaitable[None]], *, per_loop: int = 1) -> None:
        self._close = close
        self._per_loop = max(1, per_loop)
        self._lock = threading.Lock()
        self._entries: dict[asyncio.AbstractEventLoop, _Entry[C]] = {}

    def __len__(self) -> int:
        """Loops that currently hold clients."""
        with self._lock:
            return len(self._entries)

    async def get(self, factory: Callable[[], C]) -> C:
        """Return a client for the running loop, made by ``factory`` if the loop needs one."""
        loop = asyncio.get_running_loop()
        with self._lock:
            entry = self._entries.get(loop)
            if entry is not None:
                entry.turn = (entry.turn + 1) % self._per_loop
                if entry.turn < len(entry.clients):
                    return entry.clients[entry.turn]
        if entry is None:
            entry = await self._new_entry(loop)
        client = factory()
        with self._lock:
            entry.clients.append(client)
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
        # LoopClients dropped while its loops run (a judge gone out of scope) frees the
        # generator at once, and the loop's finaliser hook closes the clients
        closer = _close_at_shutdown(weakref.ref(self), loop, entry.clients, self._close)
        entry.closer = closer  # the loop only holds it weakly
        # the first step runs to the ``yield`` and registers the generator with the loop
        await closer.__anext__()
        return entry

    def _forget(self, loop: asyncio.AbstractEventLoop, clients: list[C]) -> None:
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
