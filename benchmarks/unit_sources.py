"""Tune and check the rule that a judge's units come from their text (issue 34 #1).

Part 1 (``--model M``) asks a judge for the claims (faithfulness's preprocess prompt) and the
statements (answer relevancy's) of real answers: ARES answers, BEGIN responses, ExpertQA
answers and RAGChecker responses from ``../shared/data``, ``--rows`` of each. The units are
appended to a JSON-lines cache outside the repository (``~/.cache/scorekit/unit-sources/``;
the answers' texts stay in the shared data, only their keys are written), so a second run
reuses them and an interrupted one resumes.

Part 2 reads every cache file and measures, with
:func:`scorekit.scorers.unit_sources.found_share`, the share of each unit's words found in (a)
its own answer and question (real extractions: the rule must pass them), (b) another answer and
question of the same dataset (units that do not come from the text: the rule should refuse
them) and (c) the answer and question, for the units of the prompts' own examples (what a tiny
judge copied in the demo). It prints, per cache file, the quantiles and the share of units
each threshold would refuse.

Run::

    M=local/$HOME/.cache/scorekit/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
    .venv/bin/python benchmarks/unit_sources.py --model "$M" --rows 20   # part 1, then 2
    .venv/bin/python benchmarks/unit_sources.py                          # part 2 only
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from judge_quality.data import DATA, load_ares, load_begin, load_ragchecker

from scorekit.judge import Judge
from scorekit.scorers import answer_relevancy, faithfulness
from scorekit.scorers.answer_claims import claims_prompt
from scorekit.scorers.replies import Claims, CountedReply, item_limit
from scorekit.scorers.unit_sources import found_share, words_of

CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "scorekit" / "unit-sources"

EXAMPLE_UNITS = (
    "The Model S is built by Tesla.",
    "The Model S reaches 100 km/h in 2.1 seconds.",
    "Tesla Model S prices might drop next year.",
    "Birds are interesting animals.",
    "The sky is blue on clear days.",
)
"""Units of the prompts' own examples (the claims prompt's and answer relevancy's)."""

THRESHOLDS = (0.2, 0.25, 0.34, 0.4, 0.5, 0.6)


def answers(rows: int) -> dict[str, tuple[str, str]]:
    """``rows`` distinct answers of each dataset with their questions, by key (``ares:12``)."""
    found: dict[str, tuple[str, str]] = {}
    sources = {
        "ares": [(r.key, r.answer, r.question) for r in load_ares("answer_faithfulness")],
        "begin": [(r.key, r.answer, r.question) for r in load_begin()],
        "expertqa": expertqa_answers(),
        "ragchecker": [(r.key, r.answer, r.question) for r in load_ragchecker()],
    }
    for name, loaded in sources.items():
        seen: set[str] = set()
        for key, answer, question in loaded:
            text = answer.strip()
            if len(seen) == rows:
                break
            if text and text not in seen and len(text) < 4000:
                seen.add(text)
                found[f"{name}|{key}"] = (text, question)
    return found


def expertqa_answers() -> list[tuple[str, str, str]]:
    """ExpertQA's answers (``answer_string``) and questions, by question line and system."""
    found = []
    path = DATA / "expertqa_lfqa" / "rand_test.jsonl"
    for line, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        record = json.loads(text)
        for system, answer in record["answers"].items():
            if answer.get("answer_string"):
                key = f"expertqa:{line}:{system}"
                found.append((key, answer["answer_string"], record["question"]))
    return found


def cache_file(model: str) -> Path:
    stem = re.sub(r"[^A-Za-z0-9.-]+", "_", Path(model).name or model)
    return CACHE / f"{stem}.jsonl"


async def harvest(model: str, texts: dict[str, tuple[str, str]]) -> None:
    """Ask the judge for each text's claims and statements; append them to the cache."""
    path = cache_file(model)
    path.parent.mkdir(parents=True, exist_ok=True)
    done = {(r["key"], r["step"]) for r in read(path)}
    steps: dict[str, tuple[str, Callable[[str], str], type[CountedReply]]] = {
        "claims": (faithfulness.INSTRUCTIONS, claims_prompt, Claims),
        "statements": (
            answer_relevancy.INSTRUCTIONS,
            answer_relevancy.RECIPE.units.prompt,
            answer_relevancy.Statements,
        ),
    }
    for name, (instructions, prompt, reply) in steps.items():
        judge = Judge(model, instructions, cache=False, temperature=0.0, seed=0, timeout=900)
        for key, (text, _) in texts.items():
            if (key, name) in done:
                continue
            try:
                result = await judge.generate_object(
                    prompt(text), reply.at_most(item_limit(text)), step="preprocess"
                )
                units = list(getattr(result.value, reply.ITEMS))
            except Exception as exc:  # a failed extraction is reported, not tuned on
                print(f"  {key} {name}: {type(exc).__name__}", file=sys.stderr)
                continue
            with path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps({"key": key, "step": name, "units": units}) + "\n")
            print(f"  {key} {name}: {len(units)} units", file=sys.stderr, flush=True)


def read(path: Path) -> Iterator[dict[str, object]]:
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            yield json.loads(line)


def quantiles(values: list[float]) -> str:
    ordered = sorted(values)
    marks = (0.005, 0.01, 0.05, 0.25, 0.5)
    return " ".join(f"{ordered[int(p * (len(ordered) - 1))]:.2f}" for p in marks)


def refused(values: list[float]) -> str:
    return " ".join(f"{sum(v < t for v in values) / len(values):.3f}" for t in THRESHOLDS)


def report(texts: dict[str, tuple[str, str]]) -> None:
    """Part 2: the shares of every cache file's units (module docstring)."""
    keys = list(texts)
    mate_of = {}  # each answer's mate: the next answer of the same dataset
    for kind in {k.split("|")[0] for k in keys}:
        same = [k for k in keys if k.split("|")[0] == kind]
        mate_of.update({k: same[(i + 1) % len(same)] for i, k in enumerate(same)})
    for path in sorted(CACHE.glob("*.jsonl")):
        own: list[float] = []
        other: list[float] = []
        example: list[float] = []
        for record in read(path):
            key = str(record["key"])
            if key not in texts:
                continue
            # as the scorers check: the answer and the user's query (scorekit.scorers.verdicts)
            words = words_of("\n".join(texts[key]))
            mate_words = words_of("\n".join(texts[mate_of[key]]))
            for unit in record["units"]:  # type: ignore[attr-defined]
                share = found_share(str(unit), words)
                if share is not None:
                    own.append(share)
                share = found_share(str(unit), mate_words)
                if share is not None:
                    other.append(share)
            for unit in EXAMPLE_UNITS:
                share = found_share(unit, words)
                if share is not None:
                    example.append(share)
        if not own:
            continue
        print(f"\n{path.name}: {len(own)} units of their own texts")
        print("thresholds:", " ".join(f"{t:.2f}" for t in THRESHOLDS))
        print(
            f"own answer     refused {refused(own)}   quantiles 0.5/1/5/25/50 %: {quantiles(own)}"
        )
        print(f"another answer refused {refused(other)}")
        print(f"prompt example refused {refused(example)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="harvest units with this judge first")
    parser.add_argument("--rows", type=int, default=20, help="answers of each dataset")
    args = parser.parse_args()
    texts = answers(args.rows)
    if args.model:
        asyncio.run(harvest(args.model, texts))
    report(texts)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
