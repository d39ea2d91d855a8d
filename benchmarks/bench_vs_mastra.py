"""scorekit's code scorers against the real ``@mastra/evals`` 1.10.2, per call, in one run.

Text: real English prose, the STS-B test sentences of ``examples/stsb`` in file order (the ASCII
pairs, as ``bench_code_scorers.py`` reads them). For each length (1k and 10k characters by
default) there are ten different input/output pairs: pair k is the first sentences from
sentence 50 × k on, joined until the length is reached (input), and the second sentences of the
same pairs (output). Calls cycle over the ten pairs, so that no memo of the last text helps
either side.

Timing, the same on both sides: for each scorer and length, one warm-up call, then two rounds
of N calls (N fitted so that a round takes about ``--target-ms``, at least one call per pair);
the figure is the best round's milliseconds per call. scorekit's side calls
``Scorer.run_sync(input=..., output=...)`` with each scorer's defaults; Mastra's side calls
``scorer.run({input: {inputMessages: [user message]}, output: [assistant message]})`` with
each factory's defaults, in Node (``benchmarks/vs_mastra/time_mastra.mjs``).

Mastra is run, not read from a file: the first run installs the pinned package
(``benchmarks/vs_mastra/package.json`` and its ``package-lock.json``, ``npm ci``) into
``benchmarks/vs_mastra/node_modules`` (ignored by git; a throw-away folder, never a dependency
of scorekit, never run by ``make test``). Needs ``node`` and ``npm`` (Node 20) and the npm
registry once.

Run: ``.venv/bin/python benchmarks/bench_vs_mastra.py [--sizes 1000 10000] [--json OUT]``
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_code_scorers import cut, load_sentences

from scorekit.pipeline import Scorer
from scorekit.scorers import (
    create_completeness_scorer,
    create_content_similarity_scorer,
    create_keyword_coverage_scorer,
    create_textual_difference_scorer,
    create_tone_scorer,
)
from scorekit.text.compiled import core_status

NODE_DIR = Path(__file__).resolve().parent / "vs_mastra"
PAIRS = 10
STRIDE = 50
"""Pair k starts at sentence ``STRIDE × k``."""

SCORERS: dict[str, Callable[[], Scorer]] = {
    "completeness": create_completeness_scorer,
    "content-similarity": create_content_similarity_scorer,
    "textual-difference": create_textual_difference_scorer,
    "keyword-coverage": create_keyword_coverage_scorer,
    "tone": create_tone_scorer,
}


def pairs_of(length: int) -> list[tuple[str, str]]:
    """The ten input/output pairs of ``length`` characters (module docstring)."""
    firsts, seconds = load_sentences()
    return [
        (cut(firsts[STRIDE * k :], length), cut(seconds[STRIDE * k :], length))
        for k in range(PAIRS)
    ]


def time_scorekit(scorer: Scorer, pairs: list[tuple[str, str]], target_ms: float) -> float:
    """Best of two rounds, ms per call (module docstring)."""
    started = time.perf_counter()
    scorer.run_sync(input=pairs[0][0], output=pairs[0][1])
    first_ms = (time.perf_counter() - started) * 1000
    calls = max(len(pairs), int(target_ms / max(first_ms, 0.001)) + 1)
    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        for i in range(calls):
            given, output = pairs[i % len(pairs)]
            scorer.run_sync(input=given, output=output)
        best = min(best, (time.perf_counter() - t0) * 1000 / calls)
    return best


def ensure_node_modules() -> None:
    """Install the pinned package once (``npm ci``)."""
    if (NODE_DIR / "node_modules" / "@mastra" / "evals").is_dir():
        return
    if shutil.which("npm") is None:
        raise SystemExit("node and npm are needed for Mastra's side (Node 20)")
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR, check=True)


def time_mastra(sizes: dict[int, list[tuple[str, str]]], names: list[str], target_ms: float) -> Any:
    """Mastra's ms per call, ``{scorer: {size: ms}}``, from ``time_mastra.mjs``."""
    ensure_node_modules()
    spec = {"sizes": {str(k): v for k, v in sizes.items()}, "scorers": names,
            "target_ms": target_ms, "rounds": 2}  # fmt: skip
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(spec, handle)
    try:
        done = subprocess.run(["node", "time_mastra.mjs", handle.name], cwd=NODE_DIR,
                              check=True, capture_output=True, text=True)  # fmt: skip
    finally:
        Path(handle.name).unlink()
    return {
        name: {int(k): v for k, v in row.items()} for name, row in json.loads(done.stdout).items()
    }


def table(ours: dict[str, dict[int, float]], theirs: dict[str, dict[int, float]]) -> str:
    """The markdown table: per size, scorekit / Mastra ms and their ratio."""
    sizes = sorted(next(iter(ours.values())))
    head = "| scorer | " + " | ".join(
        f"{s // 1000}k chars: scorekit / Mastra ms | ratio" for s in sizes
    )
    lines = [head + " |", "|---" * (1 + 2 * len(sizes)) + "|"]
    for name in ours:
        cells = []
        for s in sizes:
            a, b = ours[name][s], theirs[name][s]
            cells += [f"{a:.3g} / {b:.3g}", f"{a / b:.3f}"]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000])
    parser.add_argument("--scorers", nargs="+", default=list(SCORERS), choices=list(SCORERS))
    parser.add_argument("--target-ms", type=float, default=500.0, help="about this long a round")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    print(f"text core: {core_status()}", file=sys.stderr)
    sizes = {size: pairs_of(size) for size in args.sizes}
    ours = {name: {size: time_scorekit(SCORERS[name](), pairs, args.target_ms)
                   for size, pairs in sizes.items()} for name in args.scorers}  # fmt: skip
    theirs = time_mastra(sizes, args.scorers, args.target_ms)
    print(table(ours, theirs))
    if args.json is not None:
        args.json.write_text(json.dumps({"scorekit": ours, "mastra": theirs}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
