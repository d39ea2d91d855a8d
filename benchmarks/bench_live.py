"""Live scoring overhead: what wrapping a function costs the application's call.

The judge is the scripted OpenAI-compatible server answering after 50 ms, in its own process
(``bench_judge.ServerProcess``), so its CPU is not charged to the application; the scorer is
an LLM scorer built through the registry (so it carries a spec) and the background worker
scores up to 8 calls at once into a SQLite store: in the scoring process (the default for
scorers with a spec), and, for comparison, in a thread of the application's interpreter.

1. **Added latency** at sampling rates 0, 0.1 and 1 (target: p99 < 0.2 ms at any rate): the
   wrapped call's time minus the bare function's, at p50 and p99, over ``CALLS`` calls paced
   ``PACE_S`` apart (an application doing other work between calls, while the worker scores
   the sampled ones in the background; a thread worker competes for the interpreter's lock).
2. **Throughput with a full queue**: 10,000 calls while the queue (1,000 places) is full and
   the judge is slow; every sampled call is dropped and counted, none waits.

Run: ``.venv/bin/python benchmarks/bench_live.py``.
"""

from __future__ import annotations

import gc
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_judge import ServerProcess

from scorekit import PromptStep, create_scorer
from scorekit.judge import Judge
from scorekit.live import LiveScoring
from scorekit.pipeline import Scorer
from scorekit.scorers import build_scorer

LATENCY_S = 0.05
CALLS = 5000
WARMUP = 500
PACE_S = 0.0005
RATES = (0.0, 0.1, 1.0)
FULL_QUEUE = 1000
FULL_CALLS = 10_000
TARGET_P99_S = 0.2e-3


class Label(BaseModel):
    label: str


def create_judged_scorer(base_url: str) -> Scorer:
    """The benchmark's LLM scorer: one prompt step on the judge at ``base_url``."""
    judge = Judge("openai-compatible/bench", base_url=base_url, cache=False)
    return (
        create_scorer("judged", description="one judge call", judge=judge)
        .analyze(
            PromptStep(
                description="label", create_prompt=lambda ctx: "Label it", output_schema=Label
            )
        )
        .generate_score(lambda ctx: 1.0)
    )


def judged_scorer(base_url: str) -> Scorer:
    # built through the registry, so it carries a spec: the scoring process can rebuild it
    return build_scorer("bench_live:create_judged_scorer", base_url=base_url)


def answer(question: str) -> str:
    return question


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(share * len(ordered)), len(ordered) - 1)]


def timed(call: object, n: int) -> list[float]:
    timings = []
    clock = time.perf_counter
    for i in range(n):
        started = clock()
        call(f"question {i}")  # type: ignore[operator]
        timings.append(clock() - started)
        spin_until = clock() + PACE_S  # the application's other work (keeps the GIL, as code does)
        while clock() < spin_until:
            pass
    return timings


def added_latency(
    base_url: str, db: Path, rates: tuple[float, ...] = RATES, worker: str = "process"
) -> list[tuple[float, float, float, object]]:
    rows = []
    for rate in rates:
        live = LiveScoring(db, service=f"bench-{rate}", concurrency=8, worker=worker)  # type: ignore[arg-type]
        sampling = {"type": "ratio", "rate": rate}
        wrapped = live.wrap(answer, [{"scorer": judged_scorer(base_url), "sampling": sampling}])
        timed(wrapped, WARMUP)
        gc.collect()
        timings = timed(wrapped, CALLS)
        bare = timed(answer, CALLS)
        p50 = percentile(timings, 0.5) - percentile(bare, 0.5)
        p99 = percentile(timings, 0.99) - percentile(bare, 0.99)
        stats = live.close(30)
        rows.append((rate, p50, p99, stats))
    return rows


def full_queue(base_url: str, db: Path) -> tuple[float, object]:
    live = LiveScoring(db, service="bench-full", queue_size=FULL_QUEUE, concurrency=8)
    wrapped = live.wrap(answer, [judged_scorer(base_url)])
    for i in range(FULL_QUEUE + 50):  # fill the queue: the 50 ms judge empties it slowly
        wrapped(f"fill {i}")
    started = time.perf_counter()
    for i in range(FULL_CALLS):
        wrapped(f"call {i}")
    elapsed = time.perf_counter() - started
    stats = live.close(0.5)
    return FULL_CALLS / elapsed, stats


def main() -> None:
    with ServerProcess(LATENCY_S) as base_url, tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "bench.db"
        print(
            f"added latency of a wrapped call ({CALLS} calls, {PACE_S * 1e3:.1f} ms apart, "
            f"judge {LATENCY_S * 1e3:.0f} ms):"
        )
        print(f"  {'rate':>5}  {'p50 added':>10}  {'p99 added':>10}  counters")
        worst = 0.0
        for rate, p50, p99, stats in added_latency(base_url, db):
            worst = max(worst, p99)
            print(f"  {rate:>5}  {p50 * 1e6:>8.1f} us  {p99 * 1e6:>8.1f} us  {stats}")
        verdict = "met" if worst < TARGET_P99_S else "NOT met"
        print(f"  target p99 < {TARGET_P99_S * 1e6:.0f} us at every rate: {verdict}")
        # for comparison: the same scoring on a thread of the application's interpreter, whose
        # work holds the interpreter lock a call then waits for (up to the 5 ms switch interval)
        print("the same with worker='thread' (scoring in the application's interpreter):")
        for rate, p50, p99, stats in added_latency(base_url, db, (0.1, 1.0), worker="thread"):
            print(f"  {rate:>5}  {p50 * 1e6:>8.1f} us  {p99 * 1e6:>8.1f} us  {stats}")
        rate, stats = full_queue(base_url, db)
        print(f"full queue ({FULL_QUEUE} places): {FULL_CALLS} calls at {rate:,.0f} calls/s")
        print(f"  {stats}")


if __name__ == "__main__":
    main()
