"""How long ``estimate_run`` takes on a large run: 10,000 items, 5 LLM scorers (issue 32).

The items are the 12 ExpertQA RAG answers of ``examples/expertqa`` (question, answer, the
retrieved passages, the expert's revision) repeated under new ids up to ``--items``; the
scorers are context relevance, faithfulness, answer relevancy, hallucination and context
precision, judged by ``--model`` (default ``openai/gpt-4o-mini``: a hosted judge, so prompts
are approximated; nothing is sent, and a placeholder API key is set when none is). The judge
cache is read as a run would read it (an empty one in a temporary folder).

Run: ``.venv/bin/python benchmarks/bench_estimate.py [--items 10000] [--model M]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from scorekit.cost import estimate_run
from scorekit.judge import Judge
from scorekit.scorers import build_scorer

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "expertqa" / "expertqa-sample.jsonl"
SCORERS = ("context-relevance", "faithfulness", "answer-relevancy", "hallucination",
           "context-precision")  # fmt: skip


def items(count: int) -> list[dict[str, Any]]:
    """``count`` items cycling through the ExpertQA sample, each under its own id."""
    rows = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line]
    return [
        {"id": f"r{n}", "input": row["question"], "output": row["answer"],
         "ground_truth": row["reference"], "context": row["context"]}
        for n, row in ((n, rows[n % len(rows)]) for n in range(count))
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--model", default="openai/gpt-4o-mini")
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-placeholder-never-sent")
    data = items(args.items)
    with tempfile.TemporaryDirectory() as cache:
        judge = Judge(args.model, cache_dir=cache)
        scorers = [build_scorer(name, model=judge) for name in SCORERS]
        started = time.perf_counter()
        found = asyncio.run(estimate_run(data, scorers))
        seconds = time.perf_counter() - started
    print(f"estimate_run: {args.items:,} items x {len(scorers)} LLM scorers ({args.model}): "
          f"{seconds:.2f} s ({seconds / args.items * 1e3:.3f} ms an item)")  # fmt: skip
    for s in found.scorers:
        print(f"  {s.scorer_id}: {s.calls:,} calls (<= {s.calls_upper:,}), "
              f"{s.prompt_tokens:,} prompt tokens, {s.completion_tokens:,} completion tokens, "
              f"cost {s.cost}, errors {s.errors}")  # fmt: skip


if __name__ == "__main__":
    main()
