"""Build expertqa-sample.jsonl from ExpertQA's random-split test file (MIT licence).

Run from the repository root (the source file sits in ../shared, next to the repository):

    python examples/expertqa/make_sample.py [path/to/rand_test.jsonl]

Takes, in file order, the first 12 questions whose answer has at least one claim with evidence
passage text, whose expert-revised answer differs from the system's answer beyond case and
whitespace (the expert changed something: 63 of the 152 questions with evidence text), and
whose answer is at most 700 characters long (22 of those 63). Each line holds: ``id`` (q +
0-based line number in the source), ``question``, ``answer`` (the system's answer),
``reference`` (the expert-revised answer), ``context`` (up to 3 distinct evidence passages, the
citation marker and URL line removed, each cut to about 300 characters at a word boundary),
``system``, ``field`` (the expert's domain) and ``usefulness`` (the expert's rating of the
answer). The bounds keep ``make demo`` to a few minutes with the tiny local judge on a CPU.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parents[2] / "shared" / "data" / "expertqa_lfqa" / "rand_test.jsonl"
TARGET = HERE / "expertqa-sample.jsonl"
QUESTIONS = 12  # enough to show the pipeline, small enough for a tiny CPU judge in minutes
PASSAGES = 3  # context pieces per question
PASSAGE_CHARS = 300  # each passage cut to about this many characters, at a word boundary
ANSWER_CHARS = 700  # the longest answer taken (claims and verdicts grow with the answer)


def passages(answer: dict) -> list[str]:
    found: list[str] = []
    for claim in answer.get("claims") or []:
        for evidence in claim.get("evidence") or []:
            _head, sep, text = evidence.partition("\n\n")
            text = " ".join(text.split())
            if sep and text and text not in found:
                found.append(text)
    return [cut(text) for text in found[:PASSAGES]]


def cut(text: str) -> str:
    """Cut ``text`` to at most PASSAGE_CHARS characters at a word boundary, marked with "…"."""
    if len(text) <= PASSAGE_CHARS:
        return text
    return text[: PASSAGE_CHARS - 1].rsplit(" ", 1)[0] + "…"


def normalised(text: str) -> str:
    return " ".join(text.split()).lower()


def main(source: Path) -> None:
    rows = []
    with source.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle):
            record = json.loads(line)
            ((system, answer),) = record["answers"].items()
            context = passages(answer)
            text = answer["answer_string"].strip()
            reference = (answer.get("revised_answer_string") or "").strip()
            if not context or not reference or normalised(reference) == normalised(text):
                continue
            if len(text) > ANSWER_CHARS:
                continue
            rows.append(
                {
                    "id": f"q{number}",
                    "question": record["question"].strip(),
                    "answer": text,
                    "reference": reference,
                    "context": context,
                    "system": system,
                    "field": record["metadata"]["field"],
                    "usefulness": answer.get("usefulness"),
                }
            )
            if len(rows) == QUESTIONS:
                break
    with TARGET.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{TARGET}: {len(rows)} questions")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else SOURCE)
