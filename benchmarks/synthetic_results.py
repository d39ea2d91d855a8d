"""Result rows shaped like a real code scorer's, for the store benchmarks.

Each row has input, output, a reason and a prompt (about the size of a real code-scorer row);
97 % are ``ok`` with a random score, the rest ``error`` or ``skipped``. Used by
``bench_summaries.py`` and ``bench_store.py``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

SCORERS = ("alpha", "beta")


def result_rows(run_id: str, items: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    """The rows of ``items`` items × :data:`SCORERS` for ``Store.write_results``, item by item."""
    now = datetime.now(timezone.utc)
    for item in range(items):
        for scorer_id in SCORERS:
            roll = rng.random()
            status = "ok" if roll < 0.97 else ("error" if roll < 0.985 else "skipped")
            yield {
                "run_id": run_id,
                "item_id": f"item-{item}",
                "scorer_id": scorer_id,
                "scorer_run_id": run_id,
                "status": status,
                "score": rng.random() if status == "ok" else None,
                "reason": "a reason of about one line " * 4,
                "input": "the question text " * 8,
                "output": "an answer sentence " * 10,
                "generate_score_prompt": "prompt words " * 30,
                "created_at": now,
            }
