"""Peak memory of each code scorer per MB of input (issue 34 #3).

Each scorer runs in a fresh Python process on prose that never repeats (the answers, passages
and dialogue turns of the shared ExpertQA, RAGChecker and BEGIN data, as ``bench_code_scorers``
takes them; ``../shared`` or ``$SCOREKIT_SHARED`` is needed): the process builds the scorer,
scores a short text once (imports and first-call caches), reads the reference and the output
of the measured size from a file (nothing else was loaded that could leave freed memory for the
scorer to reuse unseen), resets the kernel's peak of its resident memory
(``/proc/self/clear_refs``, Linux), scores them once and reads the peak (``VmHWM``). The
growth divided by the output's size in MB (10**6 characters, one byte each: the prose is ASCII)
is the scorer's memory per MB of input, measured at two sizes. Textual difference is a
quadratic-time LCS and runs at a tenth of the size. Scorers that read a text a slice at a time
grow less than in proportion; completeness keeps a parse of the whole text.

The run's per-field limit (``max_text_chars``, a million characters by default,
:mod:`scorekit.evals.text_limits`) bounds what a scorer is given; at that limit the largest
figure (completeness, about 130 to 160 MiB per MB) is what one item can cost.

The agent scorers (the tool checks, code tool-call accuracy, trajectory accuracy, the unified
trajectory scorer) read tool calls and trajectory steps, not prose: each is measured the same
way on an output of 10,000 calls or steps, its size the output's JSON in MB.

Run: ``.venv/bin/python benchmarks/bench_memory.py [--sizes 500000 1000000]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

_CHILD = """
import json, sys
sys.path.insert(0, {here!r})
from bench_code_scorers import text_scorers
name, path = sys.argv[1], sys.argv[2]
scorer = text_scorers()[name]
def as_input(value):  # the checks read messages
    return [{{"role": "assistant", "content": value}}] if name.startswith("check-") else value
scorer.run_sync(input="A short text.", output=as_input("Another short text."), ground_truth="A.")
with open(path, encoding="ascii") as handle:
    reference, output = json.load(handle)
output = as_input(output)
def status(key):
    with open("/proc/self/status") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith(key))
with open("/proc/self/clear_refs", "w") as handle:  # the peak starts again from here
    handle.write("5")
before = status("VmRSS:")
result = scorer.run_sync(input=reference, output=output, ground_truth=reference)
after = status("VmHWM:")
print(json.dumps({{"before_kib": before, "after_kib": after, "status": result.status}}))
"""

_AGENT_CHILD = """
import json, sys
sys.path.insert(0, {here!r})
from bench_code_scorers import assistant, trajectory
from scorekit import checks
from scorekit.scorers import (
    create_tool_call_accuracy_scorer_code,
    create_trajectory_accuracy_scorer_code,
    create_trajectory_scorer_code,
)
name, count = sys.argv[1], int(sys.argv[2])
steps = trajectory(count, shift=1)["steps"]
scorers = {{
    "check-called-tool": (checks.called_tool("search"), assistant),
    "check-tool-order": (checks.tool_order(["search", "weather", "calendar"]), assistant),
    "check-no-tool-errors": (checks.no_tool_errors(), assistant),
    "tool-call-accuracy-code": (
        create_tool_call_accuracy_scorer_code(expected_tool_order=["search", "weather"]),
        assistant,
    ),
    "trajectory-accuracy (relaxed)": (
        create_trajectory_accuracy_scorer_code(expected_trajectory=steps), None
    ),
    "trajectory (unified)": (
        create_trajectory_scorer_code(defaults={{"steps": steps, "max_steps": count}}), None
    ),
}}
scorer, make = scorers[name]
build = (lambda n: make("ok", n)) if make is not None else (lambda n: trajectory(n))
scorer.run_sync(input="q", output=build(3))
output = build(count)
size = len(json.dumps(output))
def status(key):
    with open("/proc/self/status") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith(key))
with open("/proc/self/clear_refs", "w") as handle:
    handle.write("5")
before = status("VmRSS:")
result = scorer.run_sync(input="q", output=output)
after = status("VmHWM:")
print(json.dumps({{"before_kib": before, "after_kib": after, "status": result.status,
                  "bytes": size}}))
"""

AGENT_SCORERS = (
    "check-called-tool",
    "check-tool-order",
    "check-no-tool-errors",
    "tool-call-accuracy-code",
    "trajectory-accuracy (relaxed)",
    "trajectory (unified)",
)
"""The agent scorers, measured on outputs of many tool calls or trajectory steps."""

SLOW = {"textual-difference": 10}
"""Scorers measured at a fraction of each size (quadratic time)."""


def measure(name: str, text: str, size: int) -> dict[str, float | str]:
    """One fresh process: the peak growth in MiB and per MB of output."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="ascii") as handle:
        json.dump([text[:size], text[size : 2 * size]], handle)
        handle.flush()
        done = subprocess.run(
            [sys.executable, "-c", _CHILD.format(here=str(HERE)), name, handle.name],
            capture_output=True,
            text=True,
            check=True,
        )
    found = json.loads(done.stdout.splitlines()[-1])
    grown_mib = (found["after_kib"] - found["before_kib"]) / 1024
    return {"grown_mib": grown_mib, "per_mb": grown_mib / (size / 1e6), "status": found["status"]}


def measure_agent(name: str, count: int) -> dict[str, float | str]:
    """One fresh process: the peak growth in MiB and per MB of the output's JSON."""
    done = subprocess.run(
        [sys.executable, "-c", _AGENT_CHILD.format(here=str(HERE)), name, str(count)],
        capture_output=True,
        text=True,
        check=True,
    )
    found = json.loads(done.stdout.splitlines()[-1])
    grown_mib = (found["after_kib"] - found["before_kib"]) / 1024
    per_mb = grown_mib / (found["bytes"] / 1e6)
    return {
        "grown_mib": grown_mib,
        "per_mb": per_mb,
        "status": found["status"],
        "mb": found["bytes"] / 1e6,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500_000, 1_000_000])
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from bench_code_scorers import shared_texts, text_scorers

    text = " ".join(shared_texts())
    if len(text) < 2 * max(args.sizes):
        print("needs ../shared (or $SCOREKIT_SHARED) for unrepeated prose", file=sys.stderr)
        return 2
    head = " | ".join(f"{s:,} chars: MiB grown, MiB per MB" for s in args.sizes)
    print(f"| scorer | {head} |")
    print("|---" * (1 + len(args.sizes)) + "|")
    for name in text_scorers():
        cells = []
        for size in args.sizes:
            at = size // SLOW.get(name, 1)
            found = measure(name, text, at)
            note = "" if at == size else f" (at {at:,})"
            cells.append(f"{found['grown_mib']:.1f}, {found['per_mb']:.1f}{note} {found['status']}")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print("\n| agent scorer | 10,000 calls / steps: MB of JSON, MiB grown, MiB per MB |")
    print("|---|---|")
    for name in AGENT_SCORERS:
        found = measure_agent(name, 10_000)
        print(
            f"| {name} | {found['mb']:.2f}, {found['grown_mib']:.1f}, "
            f"{found['per_mb']:.1f} {found['status']} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
