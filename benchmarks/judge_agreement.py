"""Agreement of the Faithfulness scorer with human labels, for any judge model.

Two tasks on the public data in ``shared/data`` (see its README):

* ``begin``: BEGIN (Wizard of Wikipedia, dev split). Context = the knowledge snippet, input =
  the user's message, output = the response. Human label: "Fully attributable" (1) or "Not
  fully attributable" (0); "Generic" rows are dropped.
* ``expertqa``: ExpertQA claim support. Context = the claim's evidence passages (each cut to
  ``--max-context-chars``), output = the claim (citation markers removed). Human label:
  support "Complete" (1) vs "Missing" / "Incomplete" / "Partial" (0); claims without passage
  text are dropped.

A row is predicted positive when its score is at least ``--threshold`` (default 1.0: every
claim supported, which is what "fully attributable" / "complete support" mean). Reported per
task: balanced accuracy, Cohen's κ, AUROC of the score (ties count half), the share of judge
calls whose reply failed to parse or validate (each reply checked against its request's JSON
schema, as the judge cache does; a reply cut off at the token limit counts as failed), judge
calls and tokens per row, and the share of rows whose run failed (excluded from the agreement
figures). Rows are sampled with a fixed
seed, balanced between the two labels.

Run: .venv/bin/python benchmarks/judge_agreement.py --model local/smollm2 --rows 8 \
    --max-tokens 384 --timeout 180 --max-context-chars 600
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import os
import random
import re
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scorekit.errors import ScorerRunError
from scorekit.judge import Judge, JudgeModel, JudgeRequest, JudgeResponse, to_judge
from scorekit.judge.structured import SchemaSpec, parse_output
from scorekit.pipeline import ScorerRunResult
from scorekit.scorers import create_faithfulness_scorer
from scorekit.scorers.faithfulness import INSTRUCTIONS

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("SCOREKIT_SHARED", REPO.parent / "shared"))
DATA = SHARED / "data"
CITATION = re.compile(r"\s*\[\d+\]")


@dataclass(frozen=True)
class Row:
    """One labelled example."""

    context: tuple[str, ...]
    input: str
    output: str
    label: int  # 1 = supported / attributable


def load_begin(path: Path) -> list[Row]:
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [
            Row(
                (r["knowledge"],),
                r["message"],
                r["response"],
                int(r["begin_label"] == "Fully attributable"),
            )
            for r in reader
            if r["begin_label"] in ("Fully attributable", "Not fully attributable")
        ]


def _passage(evidence: str, limit: int) -> str | None:
    _, _, text = evidence.partition("\n\n")
    text = text.strip()
    return text[:limit] if text else None


def load_expertqa(path: Path, max_context_chars: int) -> list[Row]:
    rows = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            for answer in record["answers"].values():
                for claim in answer.get("claims") or []:
                    support = claim.get("support")
                    if support not in ("Complete", "Missing", "Incomplete", "Partial"):
                        continue
                    passages = [
                        p
                        for e in claim.get("evidence") or []
                        if (p := _passage(e, max_context_chars))
                    ]
                    if not passages:
                        continue
                    text = CITATION.sub("", claim["claim_string"]).strip()
                    rows.append(
                        Row(tuple(passages), record["question"], text, int(support == "Complete"))
                    )
    return rows


def balanced_sample(rows: Sequence[Row], n: int, seed: int) -> list[Row]:
    """Up to ``n`` rows, half of each label where the data allows, in a seeded order."""
    rng = random.Random(seed)
    positive = [r for r in rows if r.label == 1]
    negative = [r for r in rows if r.label == 0]
    rng.shuffle(positive)
    rng.shuffle(negative)
    take_pos = min(len(positive), max(n - len(negative), n // 2 + n % 2))
    sample = positive[:take_pos] + negative[: n - take_pos]
    rng.shuffle(sample)
    return sample


# --- agreement metrics ------------------------------------------------------------------


def balanced_accuracy(labels: Sequence[int], predictions: Sequence[int]) -> float | None:
    """Mean of the true-positive and true-negative rates; ``None`` when a class is absent."""
    pos = [p for y, p in zip(labels, predictions, strict=True) if y == 1]
    neg = [p for y, p in zip(labels, predictions, strict=True) if y == 0]
    if not pos or not neg:
        return None
    return (sum(pos) / len(pos) + sum(1 - p for p in neg) / len(neg)) / 2


def cohen_kappa(labels: Sequence[int], predictions: Sequence[int]) -> float | None:
    """Cohen's κ of two binary raters; ``None`` when chance agreement is 1 (undefined)."""
    n = len(labels)
    if n == 0:
        return None
    observed = sum(1 for y, p in zip(labels, predictions, strict=True) if y == p) / n
    p_label, p_pred = sum(labels) / n, sum(predictions) / n
    chance = p_label * p_pred + (1 - p_label) * (1 - p_pred)
    if chance == 1:
        return None
    return (observed - chance) / (1 - chance)


def auroc(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    """P(a positive outscores a negative), ties counting half; ``None`` if a class is absent."""
    pos = [s for y, s in zip(labels, scores, strict=True) if y == 1]
    neg = [s for y, s in zip(labels, scores, strict=True) if y == 0]
    if not pos or not neg:
        return None
    wins = sum(1.0 if p > q else 0.5 if p == q else 0.0 for p in pos for q in neg)
    return wins / (len(pos) * len(neg))


# --- judge call accounting ---------------------------------------------------------------


def reply_failed(request: JudgeRequest, response: JudgeResponse) -> bool:
    """Whether a reply is unusable: cut off, empty, or not valid for the request's schema."""
    if response.finish_reason == "length":
        return True
    if request.output_schema is None:
        return not response.text.strip()
    spec = SchemaSpec(request.schema_name, request.output_schema, None)
    return parse_output(response.text, spec).error is not None


@dataclass
class CountingModel:
    """Wraps a judge model and counts calls, failed replies and tokens."""

    inner: JudgeModel
    calls: int = 0
    failed: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    latencies: list[float] = field(default_factory=list)

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        self.calls += 1
        started = time.perf_counter()
        response = await self.inner.complete(request)
        self.latencies.append(time.perf_counter() - started)
        # judged here, per reply, so that cut-off replies and the last reply of a failed run
        # count as well as the ones the judge repaired
        self.failed += reply_failed(request, response)
        self.input_tokens += response.input_tokens
        self.output_tokens += response.output_tokens
        return response


@dataclass
class TaskReport:
    task: str
    rows: int
    labels: list[int] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    errors: int = 0
    failed_replies: int = 0
    calls: int = 0
    tokens: int = 0
    seconds: float = 0.0

    def figures(self, threshold: float) -> dict[str, Any]:
        predictions = [int(s >= threshold) for s in self.scores]
        return {
            "task": self.task,
            "rows": self.rows,
            "scored": len(self.scores),
            "positives": sum(self.labels),
            "balanced_accuracy": balanced_accuracy(self.labels, predictions),
            "cohen_kappa": cohen_kappa(self.labels, predictions),
            "auroc": auroc(self.labels, self.scores),
            "error_rows_share": self.errors / self.rows if self.rows else None,
            "failed_parse_share": self.failed_replies / self.calls if self.calls else None,
            "judge_calls_per_row": self.calls / self.rows if self.rows else None,
            "tokens_per_row": self.tokens / self.rows if self.rows else None,
            "seconds_per_row": self.seconds / self.rows if self.rows else None,
        }


async def score_rows(
    task: str, rows: Iterable[Row], model: str | JudgeModel | Judge, **settings: Any
) -> TaskReport:
    """Score each row with the Faithfulness scorer and collect the agreement inputs.

    ``settings`` (``max_tokens``, ``timeout``; ``None`` = the judge's default) go to the
    judge: a tiny local model may otherwise ramble to the end of its window.
    """
    given = {k: v for k, v in settings.items() if v is not None}
    base = Judge(model, INSTRUCTIONS, **given) if isinstance(model, str) and given else None
    base = base or to_judge(model, INSTRUCTIONS)
    counter = CountingModel(base.model)
    # the counter sits on the resolved model; the outer judge keeps the same settings
    judge = (
        Judge(counter, base.instructions, **given) if given else Judge(counter, base.instructions)
    )
    rows = list(rows)
    report = TaskReport(task, len(rows))
    started = time.perf_counter()
    for index, row in enumerate(rows, start=1):
        scorer = create_faithfulness_scorer(model=judge, context=list(row.context))
        result: ScorerRunResult | None
        try:
            result = await scorer.run(input=row.input, output=row.output)
        except ScorerRunError as exc:
            result = exc.result
            report.errors += 1
            print(f"  {task} row {index}: error: {exc}", file=sys.stderr)
        if result is not None and result.status == "ok" and result.score is not None:
            report.labels.append(row.label)
            report.scores.append(result.score)
    report.seconds = time.perf_counter() - started
    report.failed_replies = counter.failed
    report.calls = counter.calls
    report.tokens = counter.input_tokens + counter.output_tokens
    return report


def _format(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def print_table(figures: list[dict[str, Any]]) -> None:
    keys = list(figures[0])
    print(" | ".join(keys))
    print(" | ".join("---" for _ in keys))
    for row in figures:
        print(" | ".join(_format(row[k]) for k in keys))


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    settings = {"max_tokens": args.max_tokens, "timeout": args.timeout}
    figures = []
    if "begin" in args.tasks:
        rows = balanced_sample(
            load_begin(DATA / "begin_wow" / "begin_dev_wow.tsv"), args.rows, args.seed
        )
        figures.append(
            (await score_rows("begin", rows, args.model, **settings)).figures(args.threshold)
        )
    if "expertqa" in args.tasks:
        data = load_expertqa(DATA / "expertqa_lfqa" / "rand_test.jsonl", args.max_context_chars)
        rows = balanced_sample(data, args.rows, args.seed)
        figures.append(
            (await score_rows("expertqa", rows, args.model, **settings)).figures(args.threshold)
        )
    return figures


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--model", required=True, help="judge model, e.g. local/smollm2 or openai/gpt-4o-mini"
    )
    parser.add_argument("--rows", type=int, default=20, help="rows per task (balanced sample)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--threshold", type=float, default=1.0, help="score at or above = supported"
    )
    parser.add_argument(
        "--max-context-chars", type=int, default=1500, help="cut each ExpertQA passage"
    )
    parser.add_argument(
        "--tasks", nargs="+", default=["begin", "expertqa"], choices=["begin", "expertqa"]
    )
    parser.add_argument("--max-tokens", type=int, default=None, help="judge reply budget")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per judge call")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    figures = asyncio.run(run(args))
    print(f"model: {args.model}; threshold {args.threshold}; seed {args.seed}")
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print_table(figures)


if __name__ == "__main__":
    main()
