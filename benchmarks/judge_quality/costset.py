"""The 10-row ExpertQA cost set of issue 12: scorekit's judge calls and tokens next to its peers'.

Issue 12 measured Ragas, Mastra and DeepEval on the same judge and the same ten ExpertQA rows
(question, answer, 2–4 evidence passages) and set the target: context relevance and
faithfulness at no more than the lowest peer's judge calls, prompt tokens and completion tokens
per row, with no failed row. This module selects those rows (:func:`load_cost_set`), runs the
two scorers on them through the harness's runner (:func:`run_cost_set`: the same
:class:`~judge_quality.runner.VariantRunner`, so calls and tokens are the scorer result's
``JudgeUsage``), and compares the figures with :data:`PEERS` (:func:`cost_figures`,
:func:`verdicts`, :func:`format_cost_report`).

Run it as ``python benchmarks/judge_agreement.py --cost-set expertqa --model MODEL``.
"""

from __future__ import annotations

import asyncio
import json
import platform
import re
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from judge_quality import baselines, data
from judge_quality.data import Row
from judge_quality.runner import JudgeOptions, VariantRun, VariantRunner, run_variant
from judge_quality.tasks import Task
from scorekit.scorers import create_context_relevance_scorer_llm, create_faithfulness_scorer

__all__ = [
    "COST_SCORERS",
    "COST_SET_ROWS",
    "MAX_ANSWER_CHARS",
    "PASSAGE_RANGE",
    "PEERS",
    "PEERS_SOURCE",
    "Peer",
    "answer_text",
    "cost_figures",
    "format_cost_report",
    "load_cost_set",
    "lowest_peer",
    "passages_of",
    "run_cost_set",
    "run_cost_set_command",
    "verdicts",
]

COST_SET_ROWS = 10
"""The questions taken, in file order."""
MAX_ANSWER_CHARS = 1000
"""The longest answer taken, in characters, after the citation markers are removed."""
PASSAGE_RANGE = (2, 4)
"""The fewest and most distinct cited passages with text a question's answer may have."""

_CITATION = re.compile(r"\s*\[\d+\]")  # the markers data.load_expertqa_claims removes too
_MARKER = re.compile(r"\[(\d+)\]")


@dataclass(frozen=True)
class Peer:
    """One peer's cost per row on the cost set (means over the 10 rows).

    Attributes:
        name: the library and metric.
        calls: judge calls per row.
        prompt_tokens: prompt tokens per row.
        completion_tokens: completion tokens per row.
    """

    name: str
    calls: float
    prompt_tokens: float
    completion_tokens: float


PEERS_SOURCE = (
    "issue 12's measurements: Qwen2.5-Coder-1.5B-Instruct Q4_K_M through llama.cpp on CPU, "
    "the same 10 ExpertQA rows (question, answer, 2-4 evidence passages)"
)
"""Where :data:`PEERS` comes from."""

PEERS: dict[str, tuple[Peer, ...]] = {
    "context-relevance": (
        Peer("Ragas ContextRelevance", 2.0, 2542, 24),
        Peer("Mastra context-relevance", 2.3, 3292, 931),
        Peer("DeepEval ContextualRelevancy", 4.5, 2823, 1084),
    ),
    "faithfulness": (
        Peer("Ragas Faithfulness", 2.0, 2437, 535),
        Peer("DeepEval Faithfulness", 3.7, 2278, 818),
        Peer("Mastra faithfulness", 3.4, 3768, 478),
    ),
}
"""The peers' cost per row on the cost set, by scorer (source: :data:`PEERS_SOURCE`). Issue 12
also counts the peers' failed row-metrics on this judge, as it gives them: DeepEval 12 of 40,
Mastra 1 of 20, Ragas none."""


def answer_text(answer: Mapping[str, Any]) -> str:
    """The answer's whole ``answer_string`` with its ``[n]`` citation markers (and the
    whitespace before each) removed, stripped: what the scorers judge and what is measured
    against :data:`MAX_ANSWER_CHARS`."""
    return _CITATION.sub("", str(answer.get("answer_string") or "")).strip()


def passages_of(answer: Mapping[str, Any]) -> list[str]:
    """The distinct passage texts the answer's claims cite, by citation number.

    Each string of a claim's ``evidence`` is ``"[n] URL\\n\\npassage text"``; the text is what
    follows the first blank line, stripped, and an evidence string with no text there (a URL
    only) is no passage. The passages are ordered by their citation number ``n`` (an evidence
    string without a leading ``[n]`` sorts after the numbered ones, in the order met), and a
    text cited under several numbers is kept once, at its lowest number.
    """
    numbered: dict[tuple[int, int], str] = {}
    for claim in answer.get("claims") or []:
        for evidence in claim.get("evidence") or []:
            head, _, text = str(evidence).partition("\n\n")
            text = text.strip()
            if not text:
                continue
            marker = _MARKER.match(head.strip())
            key = (int(marker.group(1)), 0) if marker else (sys.maxsize, len(numbered))
            numbered.setdefault(key, text)
    distinct: list[str] = []
    for _, text in sorted(numbered.items()):
        if text not in distinct:
            distinct.append(text)
    return distinct


def load_cost_set(path: Path | None = None, rows: int = COST_SET_ROWS) -> list[Row]:
    """The cost set: the first ``rows`` questions of ExpertQA's ``rand_test.jsonl`` that fit.

    Selection rule, in file order (line ``i``, from 0, gives the key ``"expertqa-cost:i"``): a
    question is taken when its (single) system answer

    * is at most :data:`MAX_ANSWER_CHARS` (1,000) characters long as :func:`answer_text` gives
      it: the whole ``answer_string``, ``[n]`` citation markers removed as
      :func:`~judge_quality.data.load_expertqa_claims` removes them, stripped; and
    * cites 2–4 (:data:`PASSAGE_RANGE`) distinct passages that have text, counted by
      :func:`passages_of` over the ``evidence`` lists of all the answer's ``claims`` (the
      ``attribution`` list holds URLs only and is not read).

    On the shared file this takes lines 8, 16, 21, 24, 30, 35, 42, 48, 51 and 56 (counting
    distinct citation numbers instead of distinct texts takes the same ten). Their answers are
    392–802 characters long and their passages 569–1,000 characters, so the harness's 512-token
    cut leaves them whole and the cost set is not cut.

    Each row: ``question``, ``answer`` = :func:`answer_text`, ``contexts`` = the passages in
    :func:`passages_of`'s order. ``label`` is 1 when every claim of the answer has expert
    support ``Complete``, else 0; it is carried for reference, the cost report does not use it.
    Deterministic: no sampling, no randomness.

    Args:
        path: the JSONL file (default ``DATA/expertqa_lfqa/rand_test.jsonl``; ``DATA`` honours
            ``SCOREKIT_SHARED``).
        rows: how many questions to take (fewer when fewer fit).

    Raises:
        OSError: the file cannot be read.
        ValueError: a line is not JSON, or a record has no ``question`` or ``answers``.
    """
    path = path or data.DATA / "expertqa_lfqa" / "rand_test.jsonl"
    low, high = PASSAGE_RANGE
    taken: list[Row] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle):
            if len(taken) == rows:
                break
            record = json.loads(line)
            if "question" not in record or "answers" not in record:
                raise ValueError(f"{path} line {number + 1}: no 'question' or 'answers' field")
            for answer in record["answers"].values():
                text = answer_text(answer)
                passages = passages_of(answer)
                if len(text) > MAX_ANSWER_CHARS or not low <= len(passages) <= high:
                    continue
                claims = answer.get("claims") or []
                label = int(bool(claims) and all(c.get("support") == "Complete" for c in claims))
                key = f"expertqa-cost:{number}"
                taken.append(Row(key, str(record["question"]), tuple(passages), text, label))
                break
    return taken


def _cost_task(name: str, factory: Any, baseline: baselines.Baseline, **options: Any) -> Task:
    return Task(
        name,
        "ExpertQA cost set (no agreement measured)",
        load_cost_set,
        factory,
        baseline,  # not run: the cost set has no baseline variant
        rows=COST_SET_ROWS,
        threshold=0.5,
        options=options,
    )


COST_SCORERS: dict[str, Task] = {
    "context-relevance": _cost_task(
        "expertqa-cost-context-relevance",
        create_context_relevance_scorer_llm,
        baselines.context_relevance,
        reason="template",
    ),
    "faithfulness": _cost_task(
        "expertqa-cost-faithfulness", create_faithfulness_scorer, baselines.faithfulness
    ),
}
"""The cost set's scorers, keyed as :data:`PEERS`: context relevance with ``reason="template"``
and faithfulness, each with its defaults otherwise."""


def lowest_peer(peers: Sequence[Peer]) -> Peer:
    """The lowest peer figure of each kind (each minimum on its own, possibly of different
    peers), named ``"lowest peer"``.

    Raises:
        ValueError: ``peers`` is empty.
    """
    if not peers:
        raise ValueError("no peers to compare with")
    return Peer(
        "lowest peer",
        min(p.calls for p in peers),
        min(p.prompt_tokens for p in peers),
        min(p.completion_tokens for p in peers),
    )


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def cost_figures(run: VariantRun) -> dict[str, Any]:
    """One scorer's cost figures on the rows tried (every mean counts the failed rows too).

    Keys: ``rows``; ``failed`` (rows whose result is ``error``); ``skipped``; ``errors`` (a list
    of ``[key, error text]``); ``calls``, ``prompt_tok``, ``compl_tok`` (judge calls and
    tokens per row, from each result's ``JudgeUsage``); ``s_row`` and ``cpu_row`` (wall and CPU
    seconds per row). A mean over no rows is ``None``.
    """
    rows = run.outcomes
    return {
        "rows": len(rows),
        "failed": sum(o.status == "error" for o in rows),
        "skipped": sum(o.status == "skipped" for o in rows),
        "errors": [[o.key, o.error or "error"] for o in rows if o.status == "error"],
        "calls": _mean([o.calls for o in rows]),
        "prompt_tok": _mean([o.input_tokens for o in rows]),
        "compl_tok": _mean([o.output_tokens for o in rows]),
        "s_row": _mean([o.wall_s for o in rows]),
        "cpu_row": _mean([o.cpu_s for o in rows]),
    }


def verdicts(figures: Mapping[str, Any], peers: Sequence[Peer]) -> dict[str, str]:
    """``"met"`` or ``"missed"`` for each target of issue 12 on the cost set.

    ``calls``, ``prompt_tok`` and ``compl_tok`` are met when scorekit's mean per row (unrounded)
    is at most the lowest peer's (:func:`lowest_peer`); ``failed`` is met when no row failed.
    Nothing measured (no rows) is ``"n/a"`` for every target.
    """
    if not figures["rows"]:
        return dict.fromkeys(("calls", "prompt_tok", "compl_tok", "failed"), "n/a")
    low = lowest_peer(peers)
    bound = {
        "calls": low.calls,
        "prompt_tok": low.prompt_tokens,
        "compl_tok": low.completion_tokens,
    }
    out = {k: "met" if figures[k] <= limit else "missed" for k, limit in bound.items()}
    out["failed"] = "met" if figures["failed"] == 0 else "missed"
    return out


def _cell(value: float | None, digits: int = 0) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def format_cost_report(figures: Mapping[str, Mapping[str, Any]]) -> str:
    """The cost set's report: per scorer, its rows, failed rows and a Markdown table of
    scorekit's figures per row, each peer's, the lowest peer's and the verdicts.

    Args:
        figures: :func:`cost_figures` results keyed as :data:`PEERS`.
    """
    head = "| | calls | prompt_tok | compl_tok | s_row | cpu_row |\n|---|---|---|---|---|---|"
    out: list[str] = [f"peers: {PEERS_SOURCE}"]
    for name, fig in figures.items():
        peers = PEERS[name]
        options = COST_SCORERS[name].options
        shown = ", ".join(f"{k}={v!r}" for k, v in options.items()) or "defaults"
        verdict = verdicts(fig, peers)
        out += [
            "",
            f"{name} ({shown}): {fig['rows']} rows, {fig['failed']} failed, "
            f"{fig['skipped']} skipped; 0 failed rows: {verdict['failed']}",
        ]
        out += [f"  failed {key}: {error}" for key, error in fig["errors"]]
        out.append(head)
        out.append(
            f"| scorekit | {_cell(fig['calls'], 2)} | {_cell(fig['prompt_tok'])} | "
            f"{_cell(fig['compl_tok'])} | {_cell(fig['s_row'], 1)} | {_cell(fig['cpu_row'], 1)} |"
        )
        for peer in (*peers, lowest_peer(peers)):
            out.append(
                f"| {peer.name} | {peer.calls:.2f} | {peer.prompt_tokens:,.0f} | "
                f"{peer.completion_tokens:,.0f} | | |"
            )
        out.append(
            f"| verdict | {verdict['calls']} | {verdict['prompt_tok']} | "
            f"{verdict['compl_tok']} | | |"
        )
    return "\n".join(out)


async def run_cost_set(options: JudgeOptions, rows: Sequence[Row]) -> dict[str, VariantRun]:
    """Each cost-set scorer on every row, one row after another, no repeats, cache off.

    Returns the runs keyed as :data:`PEERS`. The runner prints each row's outcome to stderr
    as it finishes (key, status, calls, tokens, seconds).
    """
    runner = VariantRunner(options)
    return {
        name: await run_variant(runner, task, "scorer:label", rows, repeat_rows=0)
        for name, task in COST_SCORERS.items()
    }


def _write_json(path: Path, meta: dict[str, Any], runs: Mapping[str, VariantRun]) -> None:
    figures = {name: cost_figures(run) for name, run in runs.items()}
    result = {
        "meta": meta,
        "peers": {name: [asdict(p) for p in peers] for name, peers in PEERS.items()},
        "figures": figures,
        "verdicts": {name: verdicts(fig, PEERS[name]) for name, fig in figures.items()},
        "outcomes": {name: [asdict(o) for o in run.outcomes] for name, run in runs.items()},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


def run_cost_set_command(options: JudgeOptions, json_path: Path | None) -> int:
    """The ``--cost-set expertqa`` command: load, run, print the report, write ``json_path``.

    Returns the exit code: 0, or 2 when no row qualifies (the data is then not the ExpertQA
    file the rule was written for).
    """
    rows = load_cost_set()
    if not rows:
        print("cost set: no ExpertQA question fits the selection rule", file=sys.stderr)
        return 2
    print(f"cost set: {len(rows)} rows: {' '.join(r.key for r in rows)}", file=sys.stderr)
    started = time.perf_counter(), time.process_time()
    runs = asyncio.run(run_cost_set(options, rows))
    model = options.model if isinstance(options.model, str) else options.model.model_id
    meta = {
        "model": model,
        "seed": options.seed,
        "temperature": options.temperature,
        "timeout_s": options.timeout,
        "rows": [r.key for r in rows],
        "wall_s": round(time.perf_counter() - started[0], 1),
        "cpu_s": round(time.process_time() - started[1], 1),
        "machine": f"{platform.machine()}, {platform.python_version()}",
    }
    print(
        f"ExpertQA cost set, {len(rows)} rows; model {model}; seed {options.seed}; "
        f"total {meta['wall_s']} s wall, {meta['cpu_s']} s CPU"
    )
    print(format_cost_report({name: cost_figures(run) for name, run in runs.items()}))
    if json_path is not None:
        _write_json(json_path, meta, runs)
        print(f"results: {json_path}")
    return 0
