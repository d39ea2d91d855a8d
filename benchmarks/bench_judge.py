"""Judge benchmark against the scripted OpenAI-compatible server (127.0.0.1 only).

1. Client-side overhead per judge call, instant server: the mean time of a full judge call
   (layers + openai SDK + HTTP + parse/validate) and, for reference, of a bare typed ``openai``
   SDK call to the same server; and scorekit's own cost per call (every layer, prompt building,
   parsing and validation) with an in-process instant model. Target: <= 1 ms.
2. Throughput: 1,000 judge calls with 50 ms server latency at concurrency 32, against the ideal
   1000 x 0.05 / 32 s. Target: >= 90 % of ideal throughput. Client and server CPU are printed
   too: on a small machine the HTTP client stack's CPU per request bounds the throughput, so
   the same run with an in-process 50 ms model shows what scorekit's own layers and limiter
   allow.

The server runs in its own process so that it does not share the client's GIL.

Run: ``.venv/bin/python benchmarks/bench_judge.py`` (or ``make bench``).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.servers.scripted_openai import ScriptedServer

from scorekit.judge import Judge, JudgeRequest, JudgeResponse

OVERHEAD_CALLS = 400
WARMUP_CALLS = 30
THROUGHPUT_CALLS = 1000
LATENCY_S = 0.05
CONCURRENCY = 32
THROUGHPUT_RUNS = 3


class Relevance(BaseModel):
    label: Literal["high", "medium", "low", "none"]


class InstantModel:
    """An in-process model answering after ``delay`` seconds (no HTTP): the judge's own cost."""

    model_id = "bench/instant"

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        if self.delay:
            await asyncio.sleep(self.delay)
        return JudgeResponse('{"label": "high"}', input_tokens=10, output_tokens=5)


async def scheduling() -> float:
    """Wall time of the throughput run with an in-process 50 ms model: scorekit's own
    layers and limiter, without the HTTP client stack."""
    judge = Judge(InstantModel(LATENCY_S), cache=False, concurrency=CONCURRENCY)
    started = time.perf_counter()
    await asyncio.gather(
        *(judge.generate_object(f"item {i}", Relevance) for i in range(THROUGHPUT_CALLS))
    )
    return time.perf_counter() - started


def _serve(latency: float, conn) -> None:  # type: ignore[no-untyped-def]
    server = ScriptedServer(latency=latency).start()
    conn.send(server.base_url)
    conn.recv()  # wait until told to stop
    server.stop()
    conn.send(time.process_time())


class ServerProcess:
    def __init__(self, latency: float) -> None:
        self.parent, child = multiprocessing.Pipe()
        self.process = multiprocessing.Process(target=_serve, args=(latency, child), daemon=True)

    def __enter__(self) -> str:
        self.process.start()
        return str(self.parent.recv())

    def __exit__(self, *exc: object) -> None:
        self.parent.send("stop")
        self.server_cpu_s = float(self.parent.recv())
        self.process.join(5)


async def _mean_call_s(call, n: int) -> float:  # type: ignore[no-untyped-def]
    for _ in range(WARMUP_CALLS):
        await call()
    timings = []
    for _ in range(n):
        started = time.perf_counter()
        await call()
        timings.append(time.perf_counter() - started)
    return statistics.fmean(timings)


async def overhead() -> dict[str, float]:
    import openai

    with ServerProcess(0.0) as base_url:
        judge = Judge("openai-compatible/bench", base_url=base_url, cache=False)
        sdk = openai.AsyncOpenAI(base_url=base_url, api_key="x", max_retries=0)
        schema = Relevance.model_json_schema()

        async def judge_call() -> None:
            await judge.generate_object("Label it", Relevance)

        async def sdk_call() -> None:
            reply = await sdk.chat.completions.create(
                model="bench",
                messages=[{"role": "user", "content": "Label it"}],
                temperature=0,
                response_format={
                    "type": "json_schema",
                    "json_schema": {"name": "R", "schema": schema, "strict": True},
                },
            )
            Relevance.model_validate_json(reply.choices[0].message.content or "")

        # interleave to share any drift in machine load
        judge_s = sdk_s = 0.0
        for _ in range(2):
            judge_s += await _mean_call_s(judge_call, OVERHEAD_CALLS // 2) / 2
            sdk_s += await _mean_call_s(sdk_call, OVERHEAD_CALLS // 2) / 2
        await sdk.close()
    instant = Judge(InstantModel(), cache=False)

    async def instant_call() -> None:
        await instant.generate_object("Label it", Relevance)

    own_s = await _mean_call_s(instant_call, OVERHEAD_CALLS * 5)
    return {"judge": judge_s, "sdk": sdk_s, "own": own_s}


async def throughput() -> tuple[float, float, float]:
    """Return (wall s, client CPU s, server CPU s) of the throughput run."""
    server = ServerProcess(LATENCY_S)
    with server as base_url:
        judge = Judge(
            "openai-compatible/bench-throughput",
            base_url=base_url,
            cache=False,
            concurrency=CONCURRENCY,
        )
        await asyncio.gather(*(judge.generate_object("warm", Relevance) for _ in range(64)))
        cpu = time.process_time()
        started = time.perf_counter()
        await asyncio.gather(
            *(judge.generate_object(f"item {i}", Relevance) for i in range(THROUGHPUT_CALLS))
        )
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu
    return wall, cpu, server.server_cpu_s


def main() -> None:
    figures = asyncio.run(overhead())
    own = figures["own"]
    print(f"instant server, {OVERHEAD_CALLS} sequential calls each:")
    print(
        f"  full judge call (all layers + SDK + HTTP + validate) {figures['judge'] * 1e3:7.3f} ms"
    )
    print(f"  bare typed openai SDK call + validate (reference)    {figures['sdk'] * 1e3:7.3f} ms")
    verdict = "OK" if own <= 1e-3 else "ABOVE TARGET"
    print(
        f"  scorekit's own cost per call (in-process model)      {own * 1e3:7.3f} ms "
        f"(target <= 1 ms: {verdict})"
    )
    ideal = THROUGHPUT_CALLS * LATENCY_S / CONCURRENCY
    print(
        f"{THROUGHPUT_CALLS} calls, {LATENCY_S * 1e3:.0f} ms server latency, concurrency "
        f"{CONCURRENCY}, ideal {ideal:.3f} s (best of {THROUGHPUT_RUNS} runs counts):"
    )
    best = float("inf")
    for _ in range(THROUGHPUT_RUNS):
        wall, client_cpu, server_cpu = asyncio.run(throughput())
        best = min(best, wall)
        print(
            f"  wall {wall:.3f} s = {ideal / wall:.1%} of ideal throughput; client CPU "
            f"{client_cpu / THROUGHPUT_CALLS * 1e3:.2f} ms/call, server CPU {server_cpu:.2f} s"
        )
    verdict = "OK" if ideal / best >= 0.9 else "BELOW TARGET"
    in_process = asyncio.run(scheduling())
    print(
        f"  same run with an in-process 50 ms model (no HTTP stack): wall {in_process:.3f} s = "
        f"{ideal / in_process:.1%} of ideal"
    )
    print(f"  best: {ideal / best:.1%} of ideal (target >= 90%: {verdict})")
    print(f"  load average during the run: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
