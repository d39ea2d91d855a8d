"""The harness's command line: choose tasks, rows and variants, run them, print and save.

See docs/judge-quality.md for what is measured and the exact commands.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judge_quality.costset import run_cost_set_command
from judge_quality.cutting import Cutter, judge_server
from judge_quality.data import balanced_sample, load_ares
from judge_quality.probe import PROBE_VARIANTS, probe_figures, probe_rows
from judge_quality.report import figures, format_probe_table, format_table, write_json
from judge_quality.runner import JudgeOptions, VariantRun, VariantRunner, cut_row, run_variant
from judge_quality.tasks import DEFAULT_TASKS, TASKS

__all__ = ["main", "parse_args", "variants"]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The parsed options (``--help`` lists them)."""
    parser = argparse.ArgumentParser(
        prog="judge_agreement.py",
        description="Judgement quality and cost of scorekit's LLM scorers vs human labels.",
    )
    parser.add_argument("--model", required=True, help="judge, e.g. local/PATH.gguf")
    parser.add_argument("--tasks", nargs="+", default=list(DEFAULT_TASKS), choices=list(TASKS))
    parser.add_argument("--rows", type=int, default=None, help="rows per task (default: per task)")
    parser.add_argument("--seed", type=int, default=0, help="subset and judge seed")
    parser.add_argument(
        "--scoring",
        nargs="+",
        default=["label"],
        choices=["label", "expected"],
        help="the scorer's scoring= (expected: where the factory takes it)",
    )
    parser.add_argument(
        "--variants", nargs="+", default=["scorer", "baseline"], choices=["scorer", "baseline"]
    )
    parser.add_argument(
        "--repeat-rows",
        type=int,
        default=2,
        help="first rows of each task scored again with seed + 1",
    )
    parser.add_argument("--cut-tokens", type=int, default=512, help="cut texts to N tokens")
    parser.add_argument(
        "--cut",
        choices=["auto", "chars"],
        default="auto",
        help="auto: the local judge's tokenizer, else 4 characters per token",
    )
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per judge call")
    parser.add_argument("--max-tokens", type=int, default=None, help="scorer judge's reply budget")
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument("--context-window", type=int, default=None)
    parser.add_argument("--json", type=Path, default=None, metavar="OUT", help="write results here")
    parser.add_argument("--list", action="store_true", help="list the tasks and exit")
    parser.add_argument(
        "--cost-set",
        choices=["expertqa"],
        default=None,
        help="instead of the tasks: the 10-row ExpertQA cost set vs issue 12's peers",
    )
    parser.add_argument(
        "--probe",
        nargs="+",
        choices=list(PROBE_VARIANTS),
        default=None,
        metavar="VARIANT",
        help="instead of the tasks: probe these context relevance prompt variants' first label "
        f"token on ARES ({', '.join(PROBE_VARIANTS)}; local judge only; --rows N: a balanced "
        "sample, default all 104)",
    )
    return parser.parse_args(argv)  # fmt: skip


def variants(args: argparse.Namespace) -> list[str]:
    """The variant names: ``scorer:<scoring>`` for each ``--scoring``, then ``baseline``."""
    names = []
    if "scorer" in args.variants:
        names += [f"scorer:{s}" for s in args.scoring]
    if "baseline" in args.variants:
        names.append("baseline")
    return names


def _list() -> None:
    for name, task in TASKS.items():
        mark = "*" if name in DEFAULT_TASKS else " "
        print(f"{mark} {name:30} {task.rows:3d} rows  {task.factory.__name__}  ({task.data})")


async def _run(args: argparse.Namespace) -> tuple[list[VariantRun], dict[str, Any]]:
    options = JudgeOptions(args.model, args.seed, args.temperature, args.timeout,
                           args.max_tokens, args.context_window)  # fmt: skip
    runner = VariantRunner(options)
    server = judge_server(runner.judge("scorer", args.seed)) if args.cut == "auto" else None
    cutter = Cutter(args.cut_tokens, server)
    runs: list[VariantRun] = []
    sizes: dict[str, int] = {}
    started = time.perf_counter()
    for name in args.tasks:
        task = TASKS[name]
        rows = balanced_sample(task.load(), args.rows or task.rows, args.seed)
        rows = [cut_row(r, cutter) for r in rows]
        sizes[name] = len(rows)
        print(f"{name}: {len(rows)} rows ({sum(r.label for r in rows)} positive)", file=sys.stderr)
        for variant in variants(args):
            run = await run_variant(runner, task, variant, rows, args.repeat_rows)
            if run.skipped:
                print(f"  {name} {variant}: skipped: {run.skipped}", file=sys.stderr)
            runs.append(run)
    meta = {
        "model": args.model,
        "seed": args.seed,
        "temperature": args.temperature,
        "timeout_s": args.timeout,
        "max_tokens": args.max_tokens,
        "cut": cutter.method,
        "texts_cut": cutter.cut_count,
        "repeat_rows": args.repeat_rows,
        "rows": sizes,
        "wall_s": round(time.perf_counter() - started, 1),
        "cpu_s": round(time.process_time(), 1),
        "machine": f"{platform.machine()}, {platform.python_version()}",
    }
    return runs, meta


def _probe(args: argparse.Namespace) -> int:
    options = JudgeOptions(args.model, args.seed, context_window=args.context_window)
    server = judge_server(options.judge()) if args.model.startswith("local/") else None
    if server is None:
        print("--probe needs a local judge (local/PATH.gguf)", file=sys.stderr)
        return 2
    cutter = Cutter(args.cut_tokens, server)
    rows = load_ares("context_relevance")
    if args.rows is not None:
        rows = balanced_sample(rows, args.rows, args.seed)
    rows = [cut_row(r, cutter) for r in rows]
    table = []
    for name in args.probe:
        variant = PROBE_VARIANTS[name]
        table.append(probe_figures(variant, probe_rows(server, variant, rows)))
    print(f"model {args.model}; {len(rows)} ARES rows; documents cut to the {cutter.method} "
          f"({cutter.cut_count} texts cut)")  # fmt: skip
    print(format_probe_table(table))
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"model": args.model, "probe": table}, indent=1))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the harness; print the table; write ``--json``. Returns the exit code (0)."""
    args = parse_args(argv)
    if args.list:
        _list()
        return 0
    if args.probe is not None:
        return _probe(args)
    if args.cost_set is not None:
        options = JudgeOptions(args.model, args.seed, args.temperature, args.timeout,
                               args.max_tokens, args.context_window)  # fmt: skip
        return run_cost_set_command(options, args.json)
    runs, meta = asyncio.run(_run(args))
    print(
        f"model {meta['model']}; seed {meta['seed']}; documents cut to the {meta['cut']} "
        f"({meta['texts_cut']} texts cut); total {meta['wall_s']} s wall, {meta['cpu_s']} s CPU"
    )
    print(format_table([figures(r) for r in runs]))
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        write_json(args.json, meta, runs)
        print(f"results: {args.json}")
    return 0
