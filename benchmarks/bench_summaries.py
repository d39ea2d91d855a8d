"""How long a stored run's summaries take to read: from its result rows, or from its totals.

Builds a SQLite store of RUNS runs of 100,000 results each (2 scorers x 50,000 items; every row
with input, output, reason and a prompt, about the size of a real code-scorer row; 97 % ok,
the rest error or skipped), written with ``Store.write_results`` in batches of 5,000. Then:

* ``scorer_stats`` of one run: the summaries read from its 100,000 rows (best of 3);
* ``run_summaries`` of all RUNS runs while they are ``running`` (read from rows), which is
  what ``scorekit runs`` would cost if it always recomputed;
* ``finish_run`` of each run (it computes the totals from the rows and writes them);
* ``run_summaries`` of all RUNS runs once ``finished`` (read from their totals);
* ``scorekit runs`` and ``scorekit show`` as commands (a fresh process each, imports included).

Run: .venv/bin/python benchmarks/bench_summaries.py [--runs 20] [--results 100000] [--db PATH]
(an existing PATH from an earlier call is reused as it is: its runs are timed again).
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from itertools import islice
from pathlib import Path

from synthetic_results import SCORERS, result_rows

from scorekit.store import Store


def build(store: Store, runs: int, per_run: int) -> None:
    rng = random.Random(1)
    for n in range(runs):
        run_id = str(uuid.uuid4())
        store.start_run(run_id, name=f"bench-{n}", scorers=[{"id": s} for s in SCORERS])
        rows = result_rows(run_id, per_run // len(SCORERS), rng)
        while batch := list(islice(rows, 5000)):
            store.write_results(batch)


def best(action: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def command(*args: str) -> float:
    start = time.perf_counter()
    scorekit = Path(sys.executable).with_name("scorekit")
    subprocess.run([scorekit, *args], check=True, capture_output=True, env={"COLUMNS": "200"})
    return time.perf_counter() - start


def show(label: str, seconds: float) -> None:
    print(f"{label:<48} {seconds:8.4f} s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--results", type=int, default=100_000)
    parser.add_argument("--db", type=Path)
    args = parser.parse_args()
    db = args.db or Path(tempfile.mkdtemp()) / "bench.db"
    with Store(db) as store:
        if not store.list_runs(1):
            start = time.perf_counter()
            build(store, args.runs, args.results)
            show(f"write {args.runs} x {args.results:,} results", time.perf_counter() - start)
        listed = store.list_runs(args.runs)
        first = listed[0].id
        count = sum(s.total for s in store.scorer_stats(first).values())
        print(f"{db}: {len(listed)} runs, {count:,} results in the newest")
        show("scorer_stats, one run (rows, best of 3)", best(lambda: store.scorer_stats(first)))
        for record in listed:
            if record.status != "running":
                store.reopen_run(record.id)
        running = store.list_runs(args.runs)
        took = best(lambda: [store.run_summaries(r) for r in running], repeat=1)
        show(f"run_summaries, {len(running)} running runs (rows)", took)
        show(f"scorekit runs, {len(running)} running runs", command("runs", "--db", str(db)))
        start = time.perf_counter()
        for record in running:
            store.finish_run(
                record.id, status="finished", total_items=0, judge_usage={}, verdict=None
            )
        show("finish_run, per run (totals from rows)", (time.perf_counter() - start) / len(running))
        finished = store.list_runs(args.runs)
        took = best(lambda: [store.run_summaries(r) for r in finished])
        show(f"run_summaries, {len(finished)} finished runs (totals)", took)
        show(f"scorekit runs, {len(finished)} finished runs", command("runs", "--db", str(db)))
        show("scorekit show, a finished run", command("show", first, "--db", str(db)))
        show("scorekit --help (start-up and imports alone)", command("--help"))


if __name__ == "__main__":
    main()
