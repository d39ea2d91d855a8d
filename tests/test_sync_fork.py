"""``run_sync``'s per-thread loops survive a forked child that runs Python (scorekit._sync).

A child forked with ``preexec_fn`` (as Ray starts its processes) drops the other threads'
locals; had it closed their loops, it would have unregistered their self-pipes from epoll
instances it shares with this process, and those loops could no longer be woken from another
thread: a local scorer call's cancel after ``scorer_timeout`` was then never delivered.
"""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

import pytest

from scorekit import _sync
from scorekit._sync import run_sync

WAIT_S = 30.0  # a bound on each wait, far past what the steps take; no duration is asserted


def _preexec_fork() -> None:
    """A child that runs Python between fork and exec (as Ray's process starts do)."""
    subprocess.run(["true"], check=True, preexec_fn=lambda: None)


def _fork_and_collect() -> None:
    """A child that goes on in Python after ``os.fork`` and collects its garbage."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        gc.collect()
        os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0


@pytest.mark.skipif(sys.platform == "win32", reason="no fork on Windows")
@pytest.mark.parametrize("fork", [_preexec_fork, _fork_and_collect], ids=["preexec", "os-fork"])
def test_a_forked_child_leaves_the_other_threads_loops_wakeable(fork: Callable[[], None]) -> None:
    made, go, waiting, done = (threading.Event() for _ in range(4))
    box: dict[str, Any] = {}

    async def wait_for_the_main_thread() -> str:
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        box["loop"], box["future"] = asyncio.get_running_loop(), future
        waiting.set()
        return await future  # nothing else to wake the loop: only call_soon_threadsafe

    def worker() -> None:
        run_sync(asyncio.sleep(0))  # this thread's loop now exists, idle
        box["made"] = id(_sync._local.holder.loop)  # no reference: the child may collect it
        made.set()
        go.wait(WAIT_S)
        box["result"] = run_sync(wait_for_the_main_thread())
        done.set()

    threading.Thread(target=worker, daemon=True).start()
    assert made.wait(WAIT_S)
    fork()  # in the child, the worker's thread is gone and its locals are dropped
    go.set()
    assert waiting.wait(WAIT_S)
    assert id(box["loop"]) == box["made"]  # the same loop, reused after the fork
    box["loop"].call_soon_threadsafe(box["future"].set_result, "woken")
    assert done.wait(WAIT_S)
    assert box["result"] == "woken"
