"""Response times of the web viewer's pages on a run of 100,000 items (2 scorers).

Builds a SQLite store with two finished runs of ITEMS items (``alpha`` on every item, 1 % of
them errors; ``beta`` on all but each 1,000th; the second run's scores shifted), written with
one driver-level executemany each (``tests/view/bulk.py``, as the viewer's 100k test does), then
times each page through Starlette's TestClient (the full app: routing, SQL, templates), best
of 3: the runs page, the run's first and last pages, sorted by a scorer both ways (first and a
deep page), filtered by status, score range and text, one item, and the compare page of the
first run against the second.

Run: .venv/bin/python benchmarks/bench_view.py [--items 100000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from starlette.testclient import TestClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.view.bulk

from tests.view.bulk import build_big_run

from scorekit.view import create_app


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
    a = build_big_run(db, args.items, name="big-a", padding=25)
    b = build_big_run(db, args.items, name="big-b", shift=1, padding=25)
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
