"""Response times of the web viewer's pages on a run of 100,000 items (2 scorers).

Builds a SQLite store with one finished run of ITEMS items (``alpha`` on every item, 1 % of
them errors; ``beta`` on all but each 1,000th), written with one driver-level executemany, then
times each page through Starlette's TestClient (the full app: routing, SQL, templates), best
of 3: the runs page, the run's first and last pages, sorted by a scorer both ways (first and a
deep page), filtered by status, score range and text, one item, and the compare page of the
run against a copy of itself.

Run: .venv/bin/python benchmarks/bench_view.py [--items 100000]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import uuid
from pathlib import Path

from sqlalchemy import create_engine
from starlette.testclient import TestClient

from scorekit.store import Store
from scorekit.view import create_app

COLUMNS = (
    "run_id, item_id, scorer_id, scorer_run_id, status, score, reason, input, output, "
    "created_at, judge_calls, judge_input_tokens, judge_output_tokens, judge_cache_hits, "
    "judge_latency_s, source, duration_s"
)


def build(db: Path, items: int, name: str, shift: int) -> str:
    run_id = str(uuid.uuid4())
    with Store(db) as store:
        store.start_run(run_id, name=name, scorers=[{"id": "alpha"}, {"id": "beta"}])
    rows = []
    for n in range(items):
        question = json.dumps(f"question number {n} " + "words " * 20)
        answer = json.dumps(f"answer number {n} " + "more words " * 30)
        a = None if n % 100 == 7 else ((n + shift) * 7919 % 10_007) / 10_007
        status = "error" if a is None else "ok"
        rows.append((run_id, f"item-{n:06d}", "alpha", run_id, status, a, "r", question, answer))
        if n % 1000 != 999:
            b = ((n + shift) * 104_729 % 99_991) / 99_991
            rows.append((run_id, f"item-{n:06d}", "beta", run_id, "ok", b, "r", question, answer))
    engine = create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:
        conn.exec_driver_sql(
            f"INSERT INTO results ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?,"
            " datetime('now'), 0, 0, 0, 0, 0, 'TEST', 0)",
            rows,
        )
    engine.dispose()
    with Store(db) as store:
        store.finish_run(run_id, status="finished", total_items=items, judge_usage={}, verdict=None)
    return run_id


def best(client: TestClient, url: str, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - start)
        if response.status_code != 200:
            sys.exit(f"{url}: HTTP {response.status_code}")
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=100_000)
    args = parser.parse_args()
    db = Path(tempfile.mkdtemp()) / "view.db"
    start = time.perf_counter()
    a = build(db, args.items, "big-a", 0)
    b = build(db, args.items, "big-b", 1)
    print(f"built 2 runs x {args.items:,} items in {time.perf_counter() - start:.1f} s: {db}")
    last = -(-args.items // 50)
    pages = {
        "runs page": "/",
        "run, page 1 (written order)": f"/runs/{a}",
        f"run, page {last} (written order)": f"/runs/{a}?page={last}",
        "run, page 1 by item id": f"/runs/{a}?sort=id",
        "sorted by beta, page 1": f"/runs/{a}?sort=score:beta",
        "sorted by beta desc, page 1000": f"/runs/{a}?sort=score:beta&order=desc&page=1000",
        f"sorted by beta, page {last} (unscored last)": f"/runs/{a}?sort=score:beta&page={last}",
        "filter status=error": f"/runs/{a}?status=error",
        "filter alpha in [0.25, 0.26], sorted": (
            f"/runs/{a}?scorer=alpha&min=0.25&max=0.26&sort=score:alpha"
        ),
        "text search 'number 4242'": f"/runs/{a}?q=number+4242",
        "one item": f"/runs/{a}/item?id=item-004242",
        "compare A with B, page 1": f"/compare?a={a}&b={b}",
        "compare, regressed only, page 100": f"/compare?a={a}&b={b}&show=regressed&page=100",
        "one item side by side": f"/compare/item?a={a}&b={b}&id=item-004242",
    }
    with TestClient(create_app(db), base_url="http://127.0.0.1") as client:
        for label, url in pages.items():
            print(f"{label:<48} {best(client, url) * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
