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
from judge_quality.data import DATA, balanced_sample, load_ares
from judge_quality.probe import (
    TOP_K,
    ProbeFileError,
    ProbeRow,
    probe_figures,
    probe_rows,
    read_probe_file,
    reference_check,
)
from judge_quality.probe_variants import DEFAULT_PROBE, PROBE_VARIANTS, ProbeVariant
from judge_quality.report import figures, format_probe_table, format_table, write_json
from judge_quality.runner import JudgeOptions, VariantRun, VariantRunner, cut_row, run_variant
from judge_quality.tasks import DEFAULT_TASKS, TASKS

__all__ = ["main", "parse_args", "probe_table", "variants"]


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
        "--variants",
        nargs="+",
        default=["scorer", "baseline"],
        choices=["scorer", "baseline", "reference"],
        help="reference: the shared README's reference prompt (context relevance, local judge)",
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
        nargs="*",
        choices=list(PROBE_VARIANTS),
        default=None,
        metavar="VARIANT",
        help="instead of the tasks: probe these context relevance prompt variants' first label "
        f"token on ARES ({', '.join(PROBE_VARIANTS)}; none named: {' '.join(DEFAULT_PROBE)}; "
        "local judge only; --rows N: a balanced sample, default all 104; the table pairs "
        "each variant with the first)",
    )
    parser.add_argument(
        "--rows-out",
        type=Path,
        default=None,
        metavar="FILE.jsonl",
        help="--probe: append each measured row here and resume from what the file holds",
    )
    return parser.parse_args(argv)  # fmt: skip


def variants(args: argparse.Namespace) -> list[str]:
    """The variant names: ``scorer:<scoring>`` per ``--scoring``, ``baseline``, ``reference``."""
    names = []
    if "scorer" in args.variants:
        names += [f"scorer:{s}" for s in args.scoring]
    if "baseline" in args.variants:
        names.append("baseline")
    if "reference" in args.variants:
        names.append("reference")
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
    runner.server = server
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


def _reference_weights() -> dict[str, float]:
    path = DATA / "ares_databricks_human_dev" / "reference_probe_qwen1.5b.jsonl"
    if not path.exists():
        return {}
    lines = path.read_text(encoding="utf-8").splitlines()
    return {f"ares:{r['row']}": float(r["expected"]) for r in map(json.loads, lines)}


def _probe(args: argparse.Namespace) -> int:
    options = JudgeOptions(args.model, args.seed, context_window=args.context_window)
    server = judge_server(options.judge()) if args.model.startswith("local/") else None
    if server is None:
        print("--probe needs a local judge (local/PATH.gguf)", file=sys.stderr)
        return 2
    cutter = Cutter(args.cut_tokens, server)
    rows = load_ares("context_relevance")
    rows = balanced_sample(rows, args.rows or len(rows), args.seed)
    rows = [cut_row(r, cutter) for r in rows]
    names = args.probe or DEFAULT_PROBE
    chosen = [variant for name, variant in PROBE_VARIANTS.items() if name in names]
    settings = {"model": args.model, "cut": cutter.method, "top_k": TOP_K}
    measured: list[ProbeRow] = []
    if args.rows_out is not None:
        try:
            measured = read_probe_file(args.rows_out, settings)
        except ProbeFileError as exc:
            print(exc, file=sys.stderr)
            return 2
        print(f"{args.rows_out}: {len(measured)} probe rows kept", file=sys.stderr)
    done = {(p.variant, p.key) for p in measured}
    keys = {r.key for r in rows}
    measured = [p for p in measured if p.key in keys]
    measured += probe_rows(server, chosen, rows, done=done, out=args.rows_out)
    table = probe_table(chosen, measured, [r.key for r in rows])
    paired = table[0]["rows"] if table else 0
    print(f"model {args.model}; {paired} ARES rows probed by every variant; documents cut to "
          f"the {cutter.method} ({cutter.cut_count} texts cut)")  # fmt: skip
    print(format_probe_table(table))
    reference = [p for p in measured if p.variant == "reference"]
    check = reference_check(reference, _reference_weights(), PROBE_VARIANTS["reference"].weights)
    if check is not None:
        print(f"reference vs the shared per-row reference: {check}")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"settings": settings, "probe": table,
                                         "reference_check": check}, indent=1))  # fmt: skip
    return 0


def probe_table(
    variants: Sequence[ProbeVariant], measured: Sequence[ProbeRow], order: Sequence[str]
) -> list[dict[str, object]]:
    """Each variant's figures on the rows every variant has measured, paired with the first.

    Args:
        variants: the variants, the first one the pairing partner of the others.
        measured: probe rows of any variants and rows.
        order: the row keys in the order rows are reported.
    """
    by_variant = {v.name: {p.key: p for p in measured if p.variant == v.name} for v in variants}
    shared = [k for k in order if all(k in rows for rows in by_variant.values())]
    if not variants or not shared:
        return []
    first = variants[0]
    first_rows = [by_variant[first.name][k] for k in shared]
    table = []
    for variant in variants:
        rows = [by_variant[variant.name][k] for k in shared]
        paired = None if variant is first else (first, first_rows)
        table.append({**probe_figures(variant, rows, paired), "factor": variant.factor})
    return table


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
