"""A run of many items, written fast: one executemany on the driver (the test and benchmark).

``alpha`` scores every item, ``beta`` every item but each 1,000th (those items have no beta
row, so sorting by beta must list them after the scored ones); 1 % of the alpha results are
errors. Scores are exact functions of the item number, so expected pages can be computed.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy import create_engine

from scorekit.store import Store

COLUMNS = (
    "run_id, item_id, scorer_id, scorer_run_id, status, score, reason, input, output, "
    "created_at, judge_calls, judge_input_tokens, judge_output_tokens, judge_cache_hits, "
    "judge_latency_s, source, duration_s"
)


def item_id(number: int) -> str:
    return f"item-{number:06d}"


def alpha(number: int, shift: int = 0) -> float | None:
    """Alpha's score of an item (``None``: an error); ``shift`` moves the scores, not the errors."""
    return None if number % 100 == 7 else ((number + shift) * 7919 % 10_007) / 10_007


def beta(number: int, shift: int = 0) -> float | None:
    """Beta's score (``None``: no beta row at all)."""
    return None if number % 1000 == 999 else ((number + shift) * 104_729 % 99_991) / 99_991


def build_big_run(
    db: Path, items: int, *, name: str = "big", shift: int = 0, padding: int = 0
) -> str:
    """Store a finished run of ``items`` items at ``db``; return its id.

    Args:
        db: the SQLite file.
        items: how many items.
        name: the run's name.
        shift: moves every score (a second run that differs from the first, for compare).
        padding: words added to each input and output (rows the size of real ones).
    """
    run_id = str(uuid.uuid4())
    with Store(db) as store:
        store.start_run(run_id, name=name, scorers=[{"id": "alpha"}, {"id": "beta"}])
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
    rows = []
    for n in range(items):
        question = json.dumps(f"question number {n}" + " words" * padding)
        answer = json.dumps(f"answer number {n}" + " more words" * padding)
        score = alpha(n, shift)
        status = "error" if score is None else "ok"
        rows.append(
            (run_id, item_id(n), "alpha", run_id, status, score, "r", question, answer, now)
        )
        if (b := beta(n, shift)) is not None:
            rows.append((run_id, item_id(n), "beta", run_id, "ok", b, "r", question, answer, now))
    engine = create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:
        conn.exec_driver_sql(
            f"INSERT INTO results ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0, 0,"
            " 'TEST', 0)",
            rows,
        )
    engine.dispose()
    with Store(db) as store:
        store.finish_run(run_id, status="finished", total_items=items, judge_usage={}, verdict=None)
    return run_id
