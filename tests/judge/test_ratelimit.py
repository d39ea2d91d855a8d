from __future__ import annotations

import asyncio
import threading
import uuid

from scorekit.judge import Judge
from scorekit.judge.ratelimit import AdaptiveLimiter, shared_limiter
from tests.judge.conftest import Relevance
from tests.servers.scripted_openai import Reply, ScriptedServer


async def test_429_halves_the_window_once_per_burst() -> None:
    limiter = AdaptiveLimiter(8)
    epochs = [await limiter.acquire() for _ in range(4)]
    for epoch in epochs:  # four 429s of one burst: one decrease
        limiter.release("throttled", epoch)
    assert limiter.limit == 4
    epoch = await limiter.acquire()
    limiter.release("throttled", epoch)  # a 429 after the decrease halves again
    assert limiter.limit == 2


async def test_success_creeps_back_up_additively() -> None:
    limiter = AdaptiveLimiter(8)
    limiter.release("throttled", await limiter.acquire())
    limiter.release("throttled", await limiter.acquire())
    assert limiter.limit == 2
    for _ in range(3):  # about a window's worth of successes adds one slot: 2 + 1/2 + 1/2.5 ...
        limiter.release("ok", await limiter.acquire())
    assert limiter.limit == 3
    for _ in range(100):
        limiter.release("ok", await limiter.acquire())
    assert limiter.limit == 8  # never above the ceiling


async def test_failures_other_than_429_leave_the_window() -> None:
    limiter = AdaptiveLimiter(4)
    limiter.release("failed", await limiter.acquire())
    assert limiter.limit == 4


async def test_waiters_are_admitted_in_order_and_cancellation_frees_nothing_twice() -> None:
    limiter = AdaptiveLimiter(1)
    first = await limiter.acquire()
    order: list[int] = []

    async def wait(n: int) -> None:
        epoch = await limiter.acquire()
        order.append(n)
        limiter.release("ok", epoch)

    tasks = [asyncio.create_task(wait(n)) for n in range(3)]
    await asyncio.sleep(0.01)
    tasks[1].cancel()
    limiter.release("ok", first)
    await asyncio.gather(tasks[0], tasks[2])
    assert order == [0, 2]
    assert limiter.active == 0


def test_limiter_works_across_threads_and_loops() -> None:
    limiter = AdaptiveLimiter(2)
    peak = 0
    active = 0
    lock = threading.Lock()

    async def work() -> None:
        nonlocal peak, active
        epoch = await limiter.acquire()
        with lock:
            active += 1
            peak = max(peak, active)
        await asyncio.sleep(0.01)
        with lock:
            active -= 1
        limiter.release("ok", epoch)

    async def many() -> None:
        await asyncio.gather(*(work() for _ in range(10)))

    threads = [threading.Thread(target=asyncio.run, args=(many(),)) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert peak == 2
    assert limiter.active == 0


def test_judges_on_one_model_share_a_limiter_with_the_smallest_ceiling() -> None:
    key = f"k-{uuid.uuid4()}"
    assert shared_limiter(key, 8) is shared_limiter(key, 4)
    assert shared_limiter(key, 16).ceiling == 4


async def test_concurrency_limit_holds_across_judges_on_one_model(server: ScriptedServer) -> None:
    server.latency = 0.05
    name = f"openai-compatible/shared-{uuid.uuid4().hex[:6]}"
    judges = [Judge(name, base_url=server.base_url, cache=False, concurrency=3) for _ in range(2)]
    await asyncio.gather(*(judges[i % 2].generate_object("x", Relevance) for i in range(12)))
    assert server.max_in_flight == 3


async def test_429s_lower_the_concurrency_of_the_model(server: ScriptedServer) -> None:
    name = f"openai-compatible/aimd-{uuid.uuid4().hex[:6]}"
    judge = Judge(name, base_url=server.base_url, cache=False, concurrency=8, retry_backoff=0.01)
    server.enqueue(Reply(status=429, headers={"Retry-After": "0"}))
    await judge.generate_object("x", Relevance)
    assert judge.limiter.limit == 4
    assert judge.limiter.ceiling == 8


def test_a_judge_asking_for_less_holds_the_ceiling_down_only_while_it_lives() -> None:
    import gc
    import uuid

    from scorekit.judge import Judge

    model = f"openai-compatible/lim-{uuid.uuid4().hex[:6]}"
    url = "http://127.0.0.1:9/v1"
    wide = Judge(model, base_url=url, concurrency=8, cache=False)
    narrow = Judge(model, base_url=url, concurrency=1, cache=False)
    twin = narrow.with_instructions("Other instructions.")
    assert wide.limiter is narrow.limiter is twin.limiter
    assert (wide.limiter.ceiling, wide.limiter.limit) == (1, 1)
    del narrow
    gc.collect()
    assert wide.limiter.ceiling == 1  # the twin shares the narrow judge's settings
    del twin
    gc.collect()
    assert (wide.limiter.ceiling, wide.limiter.limit) == (8, 8)
