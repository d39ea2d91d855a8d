"""How close ``--estimate`` comes to what a run really spent (issue 32's targets).

Given a stored run of a config (``scorekit run CONFIG --model M --db DB --name NAME`` with an
empty judge cache), this script estimates the same config with an empty judge cache and
compares, per LLM scorer, the estimate with the run's stored usage:

- **no history**: the estimate of all items with an empty store (typical replies give the
  completion tokens);
- **an earlier run** (``--history DB``): all items, with the earlier runs that store holds;
- **two folds**: the items split in half (in id order); each half is estimated with a store
  that holds only the run's rows of the *other* half (so the measured means come from items
  it does not estimate), and compared with the run's rows of the estimated half.

Printed per scorer and figure: actual, expected, error of expected in percent, upper bound and
whether it holds (upper >= actual). Targets: prompt tokens within ±10 %, completion tokens
within ±30 % (with history), calls exact for a scorer whose calls are exact, upper bounds never
below the actual.

Run: ``.venv/bin/python benchmarks/estimate_accuracy.py CONFIG --model M --db DB --run NAME``
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from scorekit.cli.config import load_config
from scorekit.cli.plan import plan_from_config
from scorekit.cost import estimate_run
from scorekit.cost.estimate import RunEstimate
from scorekit.store import Store


def actual_usage(db: Path, run_id: str, items: set[str] | None) -> dict[str, dict[str, int]]:
    """Per scorer, the stored calls and tokens of ``run_id`` (on ``items`` only, if given)."""
    found: dict[str, dict[str, int]] = {}
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT item_id, scorer_id, judge_calls, judge_input_tokens, judge_output_tokens"
            " FROM results WHERE run_id = ?",
            (run_id,),
        ).fetchall()
    for item_id, scorer_id, calls, prompt, completion in rows:
        if items is not None and item_id not in items:
            continue
        entry = found.setdefault(scorer_id, {"calls": 0, "prompt": 0, "completion": 0})
        entry["calls"] += calls
        entry["prompt"] += prompt
        entry["completion"] += completion
    return found


def history_store(db: Path, run_id: str, keep: set[str], folder: Path) -> Path:
    """A copy of ``db`` whose run holds only the rows of the items in ``keep``."""
    copy = folder / "history.db"
    with sqlite3.connect(db) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    with sqlite3.connect(copy) as conn:
        ids = [r[0] for r in conn.execute("SELECT DISTINCT item_id FROM results WHERE run_id = ?",
                                          (run_id,))]  # fmt: skip
        for item_id in ids:
            if item_id not in keep:
                conn.execute("DELETE FROM results WHERE run_id = ? AND item_id = ?",
                             (run_id, item_id))  # fmt: skip
    return copy


def estimate(args: argparse.Namespace, cache: Path, items: set[str] | None,
             store: Path | None) -> RunEstimate:  # fmt: skip
    """Estimate the config's run (its items in ``items`` only) with an empty judge cache."""
    plan = plan_from_config(
        load_config(args.config), model=args.model, concurrency=None, correlate=None,
        judge_options={"cache_dir": str(cache)},
    )  # fmt: skip
    chosen = [item for item in plan.items if items is None or item.id in items]
    return asyncio.run(estimate_run(chosen, plan.scorers, concurrency=plan.concurrency,
                                    store=store, sample_items=None))  # fmt: skip


def report(title: str, found: RunEstimate, actual: dict[str, dict[str, int]]) -> None:
    """Print the estimate against the actual usage, per scorer."""
    print(f"\n{title}")
    for s in found.scorers:
        real = actual.get(s.scorer_id, {"calls": 0, "prompt": 0, "completion": 0})
        rows: list[tuple[str, Any, Any, Any]] = [
            ("calls", real["calls"], s.calls, s.calls_upper),
            ("prompt", real["prompt"], s.prompt_tokens, s.prompt_tokens_upper),
            ("completion", real["completion"], s.completion_tokens, s.completion_tokens_upper),
        ]
        print(f"  {s.scorer_id} (calls {'exact' if s.exact else 'expected'}, "
              f"completion from {s.completion_from}):")  # fmt: skip
        for name, act, exp, upper in rows:
            error = 100 * (exp - act) / act if act else float("nan")
            holds = "n/a" if upper is None else ("yes" if upper >= act else "NO")
            print(f"    {name:<10} actual {act:>7,}  expected {exp:>7,} ({error:+6.1f} %)  "
                  f"upper {upper if upper is not None else '—':>8}  holds {holds}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", type=Path)
    parser.add_argument("--model", required=True)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--run", required=True, help="the stored run's name or id")
    parser.add_argument("--history", type=Path, default=None,
                        help="also estimate every item with this store's earlier runs")  # fmt: skip
    args = parser.parse_args()
    with Store(args.db, read_only=True) as store:
        run_id = store.get_run(args.run).id
    all_items = sorted(actual_usage_items(args.db, run_id))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        report("all items, no history", estimate(args, folder / "c0", None, None),
               actual_usage(args.db, run_id, None))  # fmt: skip
        if args.history is not None:
            report(f"all items, history from {args.history.name}",
                   estimate(args, folder / "c1", None, args.history),
                   actual_usage(args.db, run_id, None))  # fmt: skip
        half = len(all_items) // 2
        folds = [(set(all_items[:half]), set(all_items[half:])),
                 (set(all_items[half:]), set(all_items[:half]))]  # fmt: skip
        for n, (known, estimated) in enumerate(folds, 1):
            fold = folder / f"f{n}"
            fold.mkdir()
            history = history_store(args.db, run_id, known, fold)
            found = estimate(args, fold / "cache", estimated, history)
            report(f"fold {n}: {len(estimated)} items estimated, history from the other "
                   f"{len(known)}", found, actual_usage(args.db, run_id, estimated))  # fmt: skip
            shutil.rmtree(fold)


def actual_usage_items(db: Path, run_id: str) -> set[str]:
    """The item ids of a stored run."""
    with sqlite3.connect(db) as conn:
        return {r[0] for r in conn.execute("SELECT DISTINCT item_id FROM results WHERE run_id = ?",
                                           (run_id,))}  # fmt: skip


if __name__ == "__main__":
    main()
