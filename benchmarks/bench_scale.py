"""run_evals on a local Ray cluster: code scorers on 1 and 2 workers, and a judge-bound run.

Part 1: ``--items`` (default 100,000) items (real STS-B sentence pairs, cycled, each with its
own id) streamed from a generator through four code scorers (content similarity, keyword
coverage, textual difference, tone), ``keep_items=False``, no store, on 1 then 2 Ray workers
(batches of 256, 8 items in flight per worker); then 1 worker again, so a change in the
machine's load shows. Figures: wall time, the part of it after the workers were up, items/s,
the driver's CPU per item (``time.process_time``) and the speedup from 1 to 2 workers
(target >= 1.6x). The machine has 2 cores: with 2 workers the driver shares them.

Part 2: ``--judge-items`` (default 10,000) items through a one-call judge scorer
(``tests.distributed.factories:create_judged_scorer``, ``reason=False``) against the scripted
judge server in its own process at 50 ms per reply (``--server asyncio``, the default: one
event loop, ``tests.servers.async_scripted``; ``threads``: a thread per connection, which
took 382 us of the shared 2 cores' CPU per request against 147 us, docs/scale.md), on 2
workers of 64 items in flight each (128 requests wanted at once) under a cluster-wide judge
concurrency of 64: wall time (after the workers were up) against the ideal
``items x 0.05 / 64`` s (target >= 85 % of the ideal throughput), the server's most requests
in flight (must never pass 64) and the slot coordinator's.

Part 3 (``--memory-items N``, off by default): N items through the same code scorers on 2
workers, with the driver's resident memory (``/proc/self/statm``) sampled every 0.5 s: at the
start, at each tenth of the items received, and its peak. The dataset is a generator read in
batches and ``keep_items=False``, so no item or result stays in the driver; what grows with N
is each scorer's summary, which keeps every ``ok`` score (packed, 8 bytes), and the digests of
the ids read (docs/scale.md gives the figures).

The cluster: ``ray.init(num_cpus=2)`` on 127.0.0.1, started by the benchmark, its workers at
niceness 0 (``RAY_worker_niceness``; Ray's default 15 yields their CPU to any other process).
Timing is printed, never asserted; report the machine's load with the figures (printed
before and after).

Run: ``.venv/bin/python benchmarks/bench_scale.py [--items N] [--judge-items N]
[--memory-items N]``
(``--items 20000 --judge-items 2000`` for a quick run).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_run_evals import items  # noqa: E402 - the same STS-B items

CODE_SCORERS = ("content-similarity", "keyword-coverage", "textual-difference", "tone")
LATENCY_S = 0.05
JUDGE_LIMIT = 64
SPEEDUP_TARGET = 1.6
IDEAL_TARGET = 0.85
NICENESS = "RAY_worker_niceness"  # Ray's own spelling of the setting


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


# -- the measurements -------------------------------------------------------------------------


def code_run(count: int, workers: int) -> dict[str, Any]:
    from scorekit.distributed import RayExecutor
    from scorekit.evals import run_evals
    from scorekit.scorers import build_scorer

    scorers = [build_scorer(name) for name in CODE_SCORERS]
    executor = RayExecutor(workers=workers, concurrency=8, batch_size=256)
    cpu, wall = time.process_time(), time.perf_counter()
    result = asyncio.run(run_evals(items(count), scorers, executor=executor, keep_items=False))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert result.total_items == count
    scoring = wall - executor.stats.startup_s
    return {
        "workers": workers,
        "wall": wall,
        "startup": executor.stats.startup_s,
        "scoring": scoring,
        "items_per_s": count / scoring,
        "driver_cpu_us": cpu / count * 1e6,
        "means": {sid: round(mean, 4) for sid, mean in result.scores.items()},
    }


def rss_mib() -> float:
    """This process's resident memory in MiB (Linux ``/proc/self/statm``)."""
    with open("/proc/self/statm", encoding="ascii") as handle:
        pages = int(handle.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def part_three(count: int) -> None:
    from scorekit.distributed import RayExecutor
    from scorekit.evals import run_evals
    from scorekit.scorers import build_scorer

    print(f"\npart 3: driver memory, {count} items x {len(CODE_SCORERS)} code scorers, 2 workers")
    print(f"  {load()}")
    fed = [0]

    def counted() -> Any:
        for item in items(count):
            fed[0] += 1
            yield item

    samples: list[tuple[int, float]] = [(0, rss_mib())]
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(0.5):
            samples.append((fed[0], rss_mib()))

    watcher = threading.Thread(target=watch, daemon=True)
    scorers = [build_scorer(name) for name in CODE_SCORERS]
    executor = RayExecutor(workers=2, concurrency=8, batch_size=256)
    started = time.perf_counter()
    watcher.start()
    result = asyncio.run(run_evals(counted(), scorers, executor=executor, keep_items=False))
    stop.set()
    watcher.join()
    samples.append((fed[0], rss_mib()))
    assert result.total_items == count
    wall = time.perf_counter() - started
    shown = []
    for tenth in range(11):
        mark = count * tenth // 10
        at = min(samples, key=lambda sample: abs(sample[0] - mark))
        shown.append(f"{at[0]:,}: {at[1]:.0f}")
    print(f"  {count:,} items in {wall:.0f} s ({count / wall:.0f} items/s)")
    print(f"  driver RSS MiB by items read: {'; '.join(shown)}")
    print(f"  driver RSS peak {max(rss for _, rss in samples):.0f} MiB")
    print(f"  {load()}")


def part_one(count: int) -> None:
    print(f"part 1: {count} items x {len(CODE_SCORERS)} code scorers ({', '.join(CODE_SCORERS)})")
    print(f"  {load()}")
    rows = [code_run(count, workers) for workers in (1, 2, 1)]
    print("  workers   wall s  startup s  scoring s   items/s  driver CPU/item")
    for row in rows:
        print(
            f"  {row['workers']:>7} {row['wall']:>8.1f} {row['startup']:>10.1f} "
            f"{row['scoring']:>10.1f} {row['items_per_s']:>9.0f} {row['driver_cpu_us']:>12.0f} us"
        )
    assert rows[0]["means"] == rows[1]["means"] == rows[2]["means"]
    one = (rows[0]["items_per_s"] + rows[2]["items_per_s"]) / 2
    speedup = rows[1]["items_per_s"] / one
    verdict = "met" if speedup >= SPEEDUP_TARGET else "missed"
    print(
        f"  speedup 1 -> 2 workers (scoring phase, 1-worker runs averaged): {speedup:.2f}x "
        f"(target {SPEEDUP_TARGET}x: {verdict})"
    )
    print(f"  means {rows[1]['means']}")
    print(f"  {load()}")


def part_two(count: int, engine: Literal["asyncio", "threads"]) -> None:
    from scorekit.distributed import RayExecutor
    from scorekit.evals import run_evals
    from scorekit.judge.spec import JudgeSpec
    from scorekit.scorers.registry import ScorerSpec

    print(
        f"\npart 2: {count} items x 1 judge call, scripted judge at {LATENCY_S * 1000:.0f} ms "
        f"in its own process, 2 workers x 64 in flight, cluster-wide judge concurrency "
        f"{JUDGE_LIMIT}"
    )
    print(f"  {load()}")
    from tests.distributed.factories import judge_reply
    from tests.servers.process import ServerProcess

    server = ServerProcess(LATENCY_S, judge_reply, engine=engine)
    with server as base_url:
        judge = JudgeSpec(
            "openai/scripted",
            None,
            {"base_url": base_url, "concurrency": JUDGE_LIMIT, "cache": False},
        )
        scorer = ScorerSpec(
            "tests.distributed.factories:create_judged_scorer", {"reason": False}, judge
        ).build()
        data = (
            {"id": str(n), "input": f"question {n}", "output": f"answer {n}"} for n in range(count)
        )
        executor = RayExecutor(
            workers=2, concurrency=64, batch_size=32, judge_concurrency=JUDGE_LIMIT
        )
        cpu, wall = time.process_time(), time.perf_counter()
        result = asyncio.run(run_evals(data, [scorer], executor=executor, keep_items=False))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    scoring = wall - executor.stats.startup_s
    ideal = count * LATENCY_S / JUDGE_LIMIT
    slots = executor.stats.judge_slots or {}
    share = ideal / scoring
    print(f"  statuses {result.summary.counts[scorer.id]}, judge calls {result.judge_usage.calls}")
    print(
        f"  wall {wall:.2f} s, of which starting the workers {executor.stats.startup_s:.2f} s; "
        f"scoring {scoring:.2f} s against the ideal {ideal:.2f} s: {share:.0%} of the ideal "
        f"throughput (target {IDEAL_TARGET:.0%}: {'met' if share >= IDEAL_TARGET else 'missed'})"
    )
    most = server.max_in_flight
    models = list(slots.get("models", {}).values())
    print(
        f"  most in flight at the server {most} (limit {JUDGE_LIMIT}: "
        f"{'never exceeded' if most <= JUDGE_LIMIT else 'EXCEEDED'}); the coordinator's "
        f"sharing: {models}"
    )
    print(f"  driver CPU {cpu:.1f} s ({cpu / count * 1e6:.0f} us per item)")
    print(
        f"  the {server.engine} server's CPU {server.server_cpu_s:.1f} s "
        f"({server.server_cpu_s / max(1, server.handled) * 1e6:.0f} us per request)"
    )
    print(f"  {load()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000, help="items of part 1")
    parser.add_argument("--judge-items", type=int, default=10_000, help="items of part 2")
    parser.add_argument("--memory-items", type=int, default=0, help="items of part 3 (0: none)")
    parser.add_argument(
        "--server", choices=("asyncio", "threads"), default="asyncio", help="part 2's server"
    )
    args = parser.parse_args()
    import ray

    os.environ.setdefault("OPENAI_API_KEY", "bench-key")  # the workers inherit it
    # Ray starts its workers at niceness 15 (below the driver and its own daemons); on this
    # shared 2-core machine that let any other process take their CPU. The cluster is the
    # benchmark's own, so its workers run at the driver's priority
    os.environ.setdefault(NICENESS, "0")
    started = time.perf_counter()
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "src")])}},
    )
    print(
        f"local Ray cluster of 2 CPUs up in {time.perf_counter() - started:.1f} s "
        f"(worker niceness {os.environ[NICENESS]})"
    )
    try:
        if args.items:
            part_one(args.items)
        if args.judge_items:
            part_two(args.judge_items, args.server)
        if args.memory_items:
            part_three(args.memory_items)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
