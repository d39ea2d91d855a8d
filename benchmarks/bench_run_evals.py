"""run_evals throughput and memory; judge-bound wall time against the ideal.

Part 1: 100,000 items (real STS-B sentence pairs, cycled, each with its own id) streamed from a
generator through the Content Similarity scorer, keep_items=False, with and without the SQLite
store. Each size runs in a fresh process so its peak RSS (ru_maxrss) is its own; the 10,000-item
run shows that memory does not grow with the dataset. Target: < 300 MB at 100,000 items.

Part 2: 1,000 items through Context Relevance against the scripted judge server at 50 ms
latency, concurrency 32: wall time against the ideal (judge calls per item x 50 ms x items /
32). Needs the judge's HTTP layer and the context relevance scorer; skipped when absent.

Run: .venv/bin/python benchmarks/bench_run_evals.py [--quick]
"""

from __future__ import annotations

import csv
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "examples" / "stsb" / "sts-test-non-msr.tsv"


def items(count: int) -> Iterator[dict[str, Any]]:
    with DATA.open(encoding="utf-8", newline="") as handle:
        pairs = [(row[5], row[6]) for row in csv.reader(handle, delimiter="\t", quoting=3)]
    for n in range(count):
        reference, output = pairs[n % len(pairs)]
        yield {"id": str(n), "input": reference, "ground_truth": reference, "output": output}


def throughput(count: int, store: bool) -> dict[str, Any]:
    """One measurement, in this process (called in a fresh subprocess)."""
    from scorekit.evals import run_evals_sync
    from scorekit.scorers import create_content_similarity_scorer

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db" if store else None
        started = time.perf_counter()
        result = run_evals_sync(
            items(count),
            [create_content_similarity_scorer()],
            concurrency=8,
            keep_items=False,
            store=db,
        )
        elapsed = time.perf_counter() - started
        size = db.stat().st_size if db is not None else 0
    assert result.total_items == count
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "items": count,
        "store": store,
        "seconds": round(elapsed, 2),
        "items_per_s": round(count / elapsed),
        "peak_rss_mb": round(peak_mb, 1),
        "db_mb": round(size / 2**20, 1),
        "mean": round(result.scores["content-similarity-scorer"], 4),
    }


def measure(count: int, store: bool) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--one", str(count), "store" if store else "memory"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def part_one(sizes: list[int]) -> None:
    print("run_evals, content similarity, keep_items=False, concurrency 8")
    header = ("items", "store", "seconds", "items/s", "peak RSS MB", "db MB")
    print(" ".join(f"{h:>{w}}" for h, w in zip(header, (8, 7, 8, 8, 12, 6), strict=True)))
    for store in (False, True):
        for count in sizes:
            row = measure(count, store)
            print(
                f"{row['items']:>8} {'sqlite' if store else 'none':>7} {row['seconds']:>8} "
                f"{row['items_per_s']:>8} {row['peak_rss_mb']:>12} {row['db_mb']:>6}"
            )


JUDGE_LATENCY_S = 0.05
JUDGE_ITEMS = 1_000
JUDGE_CONCURRENCY = 32
ANALYSIS = json.dumps(
    {
        "evaluations": [
            {
                "context_index": i,
                "context_piece": f"piece {i}",
                "relevance_level": "high" if i == 0 else "low",
                "was_used": i == 0,
                "reasoning": "scripted",
            }
            for i in range(2)
        ],
        "missing_context": [],
        "overall_assessment": "scripted",
    }
)


def part_two() -> None:
    """1,000 items x context relevance against the scripted server at 50 ms per reply."""
    import os

    sys.path.insert(0, str(ROOT))
    try:
        from tests.servers.scripted_openai import Reply, ScriptedServer  # type: ignore[import-not-found]

        from scorekit.evals import item_context, run_evals_sync
        from scorekit.judge import Judge
        from scorekit.scorers import create_context_relevance_scorer_llm  # type: ignore[attr-defined]
    except ImportError as exc:
        print(f"\npart 2 skipped: needs the judge HTTP layer and context relevance ({exc})")
        return

    from http.server import ThreadingHTTPServer

    # the stdlib server's listen backlog is 5: 32 clients connecting at once would be refused
    # and retried, measuring the test server rather than run_evals
    ThreadingHTTPServer.request_queue_size = 128

    def reply(body: Any) -> Any:
        # structured requests (analyze) get the evaluations; the reason step gets text
        structured = "response_format" in body
        return Reply(content=ANALYSIS if structured else "The first piece answers the query.")

    with (
        ScriptedServer(reply, latency=JUDGE_LATENCY_S) as server,
        tempfile.TemporaryDirectory() as tmp,
    ):
        os.environ["OPENAI_API_KEY"] = "bench-key"
        judge = Judge(
            "openai/bench-judge",
            base_url=server.base_url,
            concurrency=JUDGE_CONCURRENCY * 2,
            cache=False,
        )
        scorer = create_context_relevance_scorer_llm(model=judge, context_extractor=item_context)
        data = (
            {
                "id": str(n),
                "input": f"question {n}",
                "output": f"answer {n}",
                "context": [f"relevant passage {n}", f"other passage {n}"],
            }
            for n in range(JUDGE_ITEMS)
        )
        started = time.perf_counter()
        result = run_evals_sync(
            data,
            [scorer],
            concurrency=JUDGE_CONCURRENCY,
            keep_items=False,
            store=Path(tmp) / "judge.db",
        )
        wall = time.perf_counter() - started
        calls = result.judge_usage.calls
        ideal = calls / JUDGE_ITEMS * JUDGE_LATENCY_S * JUDGE_ITEMS / JUDGE_CONCURRENCY
        print(
            f"\ncontext relevance, {JUDGE_ITEMS} items, judge latency "
            f"{JUDGE_LATENCY_S * 1000:.0f} ms, concurrency {JUDGE_CONCURRENCY}"
        )
        print(f"  statuses {result.summary.counts[scorer.id]}, mean {result.scores.get(scorer.id)}")
        print(
            f"  judge calls {calls} ({calls / JUDGE_ITEMS:.1f} per item), "
            f"most in flight at the server {server.max_in_flight}"
        )
        print(
            f"  wall {wall:.2f} s, ideal {ideal:.2f} s (calls x latency / concurrency): "
            f"{wall / ideal:.2f}x"
        )


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "--one":
        print(json.dumps(throughput(int(sys.argv[2]), sys.argv[3] == "store")))
    else:
        quick = "--quick" in sys.argv
        part_one([1_000, 10_000] if quick else [10_000, 100_000])
        part_two()
