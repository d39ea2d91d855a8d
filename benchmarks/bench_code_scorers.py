"""Speed of the deterministic scorers and the quick checks on text of every kind and size.

Part 1, text scorers: ms per ``run_sync`` call on 1k, 10k, 100k and 1M characters of six kinds
of text (real English prose from the STS-B examples, the same prose without sentence marks, one
long word, CJK, Python code, a repeated short pattern), and the growth ratio of each 10× step
(time at 10n / time at n; linear time gives about 10, the target is ≤ 12). Reference and output
are different texts of the same kind and length, and each kind has the same make-up at every
size: the English kinds are ASCII (see ``load_sentences``), the CJK kind is not. Each figure is
the best of 5 rounds (of 3 single calls where one call takes over 0.6 s), and every call of a
timing scores another text of the kind, so that a scorer that remembers what it tagged lately
is timed on new text at every size. The STS-B kinds repeat their 870 sentence pairs to reach
1M characters, which scorers that remember repeated text profit from; a seventh kind, prose
that never repeats (the answers, passages and dialogue turns of the shared ExpertQA,
RAGChecker and BEGIN data, 2M characters and more), is
measured when ``../shared`` (or ``$SCOREKIT_SHARED``) is there.

Part 2, agent scorers: ms per call on outputs with 10, 100, 1,000 and 10,000 tool calls or
trajectory steps (the tool checks, code tool-call accuracy, trajectory accuracy and the unified
trajectory scorer), with the same growth ratios. It runs first, on a heap that part 1's
megabyte texts have not yet churned: built after them, the 10,000-call outputs lie scattered
in memory, and reading them costs up to 1.4 times as much per call (the 1,000 → 10,000 step
then shows 12-14 instead of 10-12).

Textual difference is a longest common subsequence, quadratic by nature (no algorithm is
known to be much faster on arbitrary text); it is measured up to ``--lcs-max`` characters
(default 100k) and its 1M cell says so. Mastra reference (the real package, Node 20, same
machine kind): textual difference 24.7 ms at 1k characters and 2,336 ms at 10k.

It prints first which text core runs: the mypyc-compiled completeness modules (``make core``)
or the Python sources, about 1.5 times as slow (``SCOREKIT_PURE_PYTHON=1`` forces them).

Run: ``.venv/bin/python benchmarks/bench_code_scorers.py [--max-size N] [--lcs-max N]``
"""

from __future__ import annotations

import argparse
import csv
import functools
import itertools
import json
import os
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from scorekit import checks
from scorekit.evals.heap import FrozenHeap
from scorekit.pipeline import Scorer
from scorekit.scorers import (
    create_completeness_scorer,
    create_content_similarity_scorer,
    create_keyword_coverage_scorer,
    create_textual_difference_scorer,
    create_tone_scorer,
    create_tool_call_accuracy_scorer_code,
    create_trajectory_accuracy_scorer_code,
    create_trajectory_scorer_code,
)
from scorekit.text.compiled import core_status

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "examples" / "stsb" / "sts-test-non-msr.tsv"
SIZES = (1_000, 10_000, 100_000, 1_000_000)
STEPS = (10, 100, 1_000, 10_000)
CJK = "東京は日本の首都です。人口は約一千四百万人で、世界有数の大都市である。"
CODE_FILE = ROOT / "src" / "scorekit" / "pipeline.py"
SINGLE_S = 5.0
"""A first call that takes longer than this many seconds is timed once."""


def load_sentences() -> tuple[list[str], list[str]]:
    """The STS-B sentence pairs whose two sentences are ASCII (870 of the 879).

    The 9 others hold a curly quote or an accented letter. One of them in a 30k text and none
    in the 10k text changes how CPython stores and scans the whole string (its ASCII fast
    paths) and whether the language needs telling, which the growth ratios would then show as
    if it were the size's cost. Text outside ASCII is measured as a kind of its own (CJK).
    """
    with DATA.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    pairs = [(row[5], row[6]) for row in rows if row[5].isascii() and row[6].isascii()]
    return [first for first, _ in pairs], [second for _, second in pairs]


def cut(parts: list[str], length: int, sep: str = " ") -> str:
    """``parts`` joined with ``sep``, cycled until the text is ``length`` characters long."""
    out: list[str] = []
    size = 0
    for part in itertools.cycle(parts):
        out.append(part)
        size += len(part) + len(sep)
        if size >= length:
            return sep.join(out)[:length]
    raise AssertionError


def shared_texts() -> list[str]:
    """Distinct English passages of 100+ characters from the shared data (``[]`` without it)."""
    shared = Path(os.environ.get("SCOREKIT_SHARED", ROOT.parent / "shared")) / "data"
    found: dict[str, None] = {}

    def walk(value: Any) -> None:
        if isinstance(value, str):
            if len(value) >= 100 and value.isascii():
                found.setdefault(value, None)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    ragchecker = shared / "ragchecker_meta_eval" / "human_labeled_data.json"
    expertqa = shared / "expertqa_lfqa" / "rand_test.jsonl"
    begin = shared / "begin_wow" / "begin_test_wow.tsv"
    if ragchecker.exists():
        walk(json.loads(ragchecker.read_text(encoding="utf-8")))
    if expertqa.exists():
        for line in expertqa.read_text(encoding="utf-8").splitlines():
            walk(json.loads(line))
    if begin.exists():
        with begin.open(encoding="utf-8", newline="") as handle:
            walk(list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)))
    return list(found)


Make = Callable[[int, int], tuple[str, str]]
"""``make(size, turn)`` → (reference, output): turn ``k`` of a kind is another text of it."""


def _turned(parts: list[str], turn: int, step: int) -> list[str]:
    """``parts`` rotated by ``turn * step`` places (turn 0: as they are)."""
    at = turn * step % len(parts)
    return parts[at:] + parts[:at]


def kinds(firsts: list[str], seconds: list[str]) -> dict[str, Make]:
    """Each kind of text: (size, turn) → (reference, output).

    The turns of the prose, code and CJK kinds start at other places of their parts, so that a
    timing that calls a scorer repeatedly scores texts it has not seen (the completeness
    scorer remembers the clauses it tagged lately); the one-word and pattern kinds have one
    text per size.
    """
    # ASCII lines only, for the reason load_sentences gives
    code = [line for line in CODE_FILE.read_text(encoding="utf-8").splitlines() if line.isascii()]
    unpunctuated = str.maketrans("", "", ".!?")
    bare_firsts = [s.translate(unpunctuated) for s in firsts]
    bare_seconds = [s.translate(unpunctuated) for s in seconds]
    return {
        "prose": lambda n, k: (cut(_turned(firsts, k, 97), n), cut(_turned(seconds, k, 97), n)),
        "no sentence marks": lambda n, k: (
            cut(_turned(bare_firsts, k, 97), n),
            cut(_turned(bare_seconds, k, 97), n),
        ),
        "one long word": lambda n, k: ("a" * n, "a" * (n - 1) + "b"),
        "CJK": lambda n, k: (cut([CJK[k % 7 :] + CJK[: k % 7]], n, ""), cut([CJK[::-1]], n, "")),
        "code": lambda n, k: (cut(_turned(code, k, 37), n, "\n"), cut(code[::-1], n, "\n")),
        "repeated pattern": lambda n, k: (cut(["ab"], n), cut(["ba"], n)),
        **_unrepeated(),
    }


def _unrepeated() -> dict[str, Make]:
    """The kind of prose that never repeats, when the shared data has 2M characters of it."""
    text = " ".join(shared_texts())
    if len(text) < 2 * SIZES[-1]:
        return {}

    def make(n: int, turn: int) -> tuple[str, str]:
        at = turn * 2 * n % (len(text) - 2 * n + 1)
        return text[at : at + n], text[at + n : at + 2 * n]

    return {"prose, no repeats": make}


def timed_ms(call: Callable[[int], Callable[[], object]], budget_s: float = 0.6) -> float:
    """Best of 5 rounds: ms per call (3 rounds of one call when a call takes over the budget).

    ``call(k)``: the ``k``-th call to time (built before the clock starts), so that repeated
    calls may score different texts. A first call over ``SINGLE_S`` seconds is the figure.
    Each round's inputs are built first and then frozen out of the garbage collector's full
    scans (:class:`scorekit.evals.heap.FrozenHeap`), as ``run_evals`` freezes its caller's
    data: a scan's cost is that of the whole heap, not of the call being timed.
    """

    def run(calls: list[Callable[[], object]]) -> float:
        with FrozenHeap():
            start = time.perf_counter()
            for fn in calls:
                fn()
            return (time.perf_counter() - start) / len(calls)

    once = run([call(0)])
    if once > SINGLE_S:
        return once * 1000
    repeat = 1 if once > budget_s else max(1, int(budget_s / 3 / max(once, 1e-6)))
    best = once if repeat == 1 else float("inf")
    for round_ in range(5 if repeat > 1 else 2):
        best = min(best, run([call(1 + round_ * repeat + k) for k in range(repeat)]))
    return best * 1000


def same(fn: Callable[[], object]) -> Callable[[int], Callable[[], object]]:
    """The same call at every turn (for inputs that have one form per size)."""
    return lambda _: fn


def assistant(text: str, calls: int = 0, *, fail_every: int = 0) -> list[dict[str, Any]]:
    names = ["search", "weather", "calendar"]
    invocations = [
        {
            "toolCallId": f"c{i}",
            "toolName": names[i % 3],
            "args": {"i": i},
            "state": "result",
            "result": {"ok": not (fail_every and i % fail_every == 0)},
        }
        for i in range(calls)
    ]
    return [{"role": "assistant", "content": text, "toolInvocations": invocations}]


def trajectory(steps: int, shift: int = 0) -> dict[str, Any]:
    names = ["search", "weather", "calendar", "answer"]
    return {
        "steps": [
            {"stepType": "tool_call", "name": names[i % 4], "toolArgs": {"i": i + shift}}
            for i in range(steps)
        ]
    }


def row(name: str, cells: list[float | None], width: int = 32) -> str:
    shown = [f"{c:>10.2f}" if c is not None else f"{'—':>10}" for c in cells]
    ratios = [
        f"{b / a:>6.1f}" if a is not None and b is not None and a > 0 else f"{'—':>6}"
        for a, b in itertools.pairwise(cells)
    ]
    return f"{name:<{width}} {' '.join(shown)}   {' '.join(ratios)}"


def text_scorers() -> dict[str, Scorer]:
    return {
        "content-similarity": create_content_similarity_scorer(),
        "completeness": create_completeness_scorer(),
        "keyword-coverage": create_keyword_coverage_scorer(),
        "textual-difference": create_textual_difference_scorer(),
        "tone": create_tone_scorer(),
        "tone (reference)": create_tone_scorer(reference_tone="Helpful and friendly."),
        "check-includes": checks.includes("capital city"),
        "check-matches (js)": checks.matches(checks.js_regex(r"\bcapital\s+\w+", "i")),
        "check-similarity": checks.similarity("A man is playing a guitar.", threshold=0.5),
    }


def part_one(sizes: tuple[int, ...], lcs_max: int) -> None:
    firsts, seconds = load_sentences()
    header = " ".join(f"{f'{n // 1000}k' if n < 10**6 else '1M':>10}" for n in sizes)
    print("\nPart 1: ms per run_sync call; then the growth ratio of each 10x step")
    for kind, make in kinds(firsts, seconds).items():
        print(f"\n[{kind}]\n{'scorer':<32} {header}   growth")
        texts = functools.cache(make)  # each (size, turn) built once for all the scorers
        for name, scorer in text_scorers().items():
            cells: list[float | None] = []
            for n in sizes:
                if name == "textual-difference" and n > lcs_max:
                    cells.append(None)  # quadratic by nature: see the module docstring
                    continue
                cells.append(timed_ms(partial(_text_call, scorer, name, texts, n)))
            print(row(name, cells))


def _text_call(
    scorer: Scorer, name: str, texts: Make, size: int, turn: int
) -> Callable[[], object]:
    reference, output = texts(size, turn)
    if name.startswith("check-"):  # the checks read agent messages
        return partial(scorer.run_sync, input="q", output=assistant(output))
    return partial(scorer.run_sync, input=reference, output=output)


def part_two(steps: tuple[int, ...]) -> None:
    header = " ".join(f"{n:>10,}" for n in steps)
    print("Part 2: ms per call by number of tool calls / steps")
    print(f"{'scorer':<32} {header}   growth")
    agent: dict[str, tuple[Scorer, Callable[[int], Any]]] = {
        "check-called-tool": (checks.called_tool("search"), lambda n: assistant("ok", n)),
        "check-tool-order": (
            checks.tool_order(["search", "weather", "calendar"]),
            lambda n: assistant("ok", n),
        ),
        "check-no-tool-errors": (checks.no_tool_errors(), lambda n: assistant("ok", n)),
        "tool-call-accuracy-code": (
            create_tool_call_accuracy_scorer_code(expected_tool_order=["search", "weather"]),
            lambda n: assistant("ok", n),
        ),
    }
    for name, (scorer, make) in agent.items():
        cells: list[float | None] = []
        for n in steps:
            cells.append(timed_ms(same(partial(scorer.run_sync, input="q", output=make(n)))))
        print(row(name, cells))
    for ordering in ("relaxed", "unordered", "strict"):
        cells = []
        for n in steps:
            scorer = create_trajectory_accuracy_scorer_code(
                expected_trajectory=trajectory(n, shift=1)["steps"],
                comparison_options={"ordering": ordering},
            )
            cells.append(timed_ms(same(partial(scorer.run_sync, input="q", output=trajectory(n)))))
        print(row(f"trajectory-accuracy ({ordering})", cells))
    cells = []
    for n in steps:
        scorer = create_trajectory_scorer_code(
            defaults={
                "steps": trajectory(n, shift=1)["steps"],
                "max_steps": n // 2 + 1,
                "blacklisted_tools": ["delete"],
            }
        )
        cells.append(timed_ms(same(partial(scorer.run_sync, input="q", output=trajectory(n)))))
    print(row("trajectory (unified)", cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-size", type=int, default=SIZES[-1])
    parser.add_argument("--lcs-max", type=int, default=100_000)
    args = parser.parse_args()
    print(f"text core: {core_status()}; load average {os.getloadavg()[0]:.2f}")
    part_two(STEPS)  # first: see the module docstring
    part_one(tuple(n for n in SIZES if n <= args.max_size), args.lcs_max)


if __name__ == "__main__":
    main()
