"""The store at scale, SQLite and PostgreSQL: write throughput, and read latency at 1M rows.

For each backend: two runs of ROWS result rows each (ROWS / 2 items x 2 scorers; each row with
input, output, reason and a prompt, about a code scorer's row; 97 % ok, the rest error or
skipped) are written through ``Store.write_results`` in batches of 4,000 rows (the writer's
2,000 items x 2 scorers), and finished (``finish_run`` computes the totals from the rows). Then,
best of 3, on the second run:

* ``show``: ``get_run`` + ``run_summaries`` (the totals) + ``item_count``, what ``scorekit show``
  reads;
* ``stats from rows``: ``scorer_stats``, the summaries of a running (or crashed) run;
* ``compare``: ``Store.compare`` of the two runs (means, pairs, the 10 largest drops);
* ``report``: ``get_run`` + ``run_summaries`` + the first 200 items of ``results`` +
  ``item_count``, the report's queries (without the HTML).

PostgreSQL: ``--pg-url URL`` (an empty database), else a throw-away server is started from
the installed binaries as the tests do (tests/pgserver.py; fsync off, like a test server: the
write figure is an upper bound for a durable server).

Run: .venv/bin/python benchmarks/bench_store.py [--rows 1000000] [--backend sqlite postgresql]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from itertools import islice
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.pgserver

from synthetic_results import SCORERS, result_rows

from scorekit.store import Store

BATCH_ITEMS = 2000  # ResultWriter's items per transaction


def write_run(store: Store, rows: int, seed: int) -> tuple[str, float]:
    """Write one finished run of ``rows`` rows; returns (run id, seconds spent writing)."""
    run_id = str(uuid.uuid4())
    store.start_run(run_id, name=f"bench-{seed}", scorers=[{"id": s} for s in SCORERS])
    spent = 0.0
    items = rows // len(SCORERS)
    written = result_rows(run_id, items, random.Random(seed))
    while batch := list(islice(written, BATCH_ITEMS * len(SCORERS))):
        start = time.perf_counter()
        store.write_results(batch)
        spent += time.perf_counter() - start
    start = time.perf_counter()
    store.finish_run(run_id, status="finished", total_items=items, judge_usage={}, verdict=None)
    spent += time.perf_counter() - start
    return run_id, spent


def best_of(fn: Callable[[], object], times: int = 3) -> float:
    best = float("inf")
    for _ in range(times):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def measure(db: str | Path, rows: int) -> dict[str, float]:
    with Store(db) as store:
        first, spent_a = write_run(store, rows, 1)
        second, spent_b = write_run(store, rows, 2)
        figures = {"write rows/s": 2 * rows / (spent_a + spent_b)}

        def show() -> None:
            record = store.get_run(second[:8])
            store.run_summaries(record)
            store.item_count(record.id)

        def report() -> None:
            record = store.get_run(second[:8])
            store.run_summaries(record)
            list(islice(store.results(record.id), 200 * len(SCORERS)))
            store.item_count(record.id)

        figures["show s"] = best_of(show)
        figures["stats from rows s"] = best_of(lambda: store.scorer_stats(second))
        figures["compare s"] = best_of(lambda: store.compare(first, second))
        figures["report s"] = best_of(report)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="result rows per run")
    parser.add_argument("--backend", nargs="+", default=["sqlite", "postgresql"])
    parser.add_argument("--pg-url", help="an empty PostgreSQL database (else one is started)")
    args = parser.parse_args()
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        if "sqlite" in args.backend:
            results["sqlite"] = measure(Path(tmp) / "bench.db", args.rows)
            print("sqlite", results["sqlite"], flush=True)
        if "postgresql" in args.backend:
            if args.pg_url:
                results["postgresql"] = measure(args.pg_url, args.rows)
            else:
                from tests.pgserver import PostgresServer, find_binaries

                bindir = find_binaries()
                if bindir is None:
                    sys.exit("no PostgreSQL binaries: install Debian's postgresql package")
                server = PostgresServer(bindir)
                try:
                    server.start()
                    results["postgresql"] = measure(server.url(server.create_database()), args.rows)
                finally:
                    server.stop()
            print("postgresql", results["postgresql"], flush=True)
    print(f"\n{args.rows:,} result rows per run (two runs), best of 3 for the reads")
    names = list(next(iter(results.values())))
    print(f"{'':20}" + "".join(f"{backend:>14}" for backend in results))
    for name in names:
        cells = "".join(
            f"{found[name]:>14,.0f}" if name.endswith("/s") else f"{found[name]:>14.3f}"
            for found in results.values()
        )
        print(f"{name:20}{cells}")


if __name__ == "__main__":
    main()
