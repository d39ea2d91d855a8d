"""Access to the conformance corpus of the real Mastra package.

The corpus is a copy of ``shared/conformance`` (its README says how it was made), kept in
``tests/conformance_data`` so that the suite runs from a clone anywhere; ``SCOREKIT_SHARED``
points the tests at another ``shared/`` folder instead, and while the ``shared/`` folder beside
the checkout exists, a test checks that the copy has not drifted from it.

Cases and expected results are matched by id. Helpers map Mastra's camelCase to scorekit's
snake_case and turn a case's input/output into a scorer run's arguments.
"""

from __future__ import annotations

import json
import os
import re
from functools import cache
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
CORPUS_NAME = "mastra-evals-1.10.2"
BUNDLED = REPO_ROOT / "tests" / "conformance_data" / CORPUS_NAME
"""The copy kept with the tests."""
BESIDE = REPO_ROOT.parent / "shared" / "conformance" / CORPUS_NAME
"""The original, in the ``shared/`` folder next to the checkout (when there is one)."""
CORPUS = (
    Path(os.environ["SCOREKIT_SHARED"]) / "conformance" / CORPUS_NAME
    if os.environ.get("SCOREKIT_SHARED")
    else BUNDLED
)

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def snake(name: str) -> str:
    return _CAMEL.sub("_", name).lower()


def to_snake(value: Any) -> Any:
    """Map every dict key from camelCase to snake_case, recursively."""
    if isinstance(value, dict):
        return {snake(k): to_snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_snake(v) for v in value]
    return value


@cache
def _load() -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    if not CORPUS.is_dir():
        raise FileNotFoundError(
            f"conformance corpus not found at {CORPUS}; unset SCOREKIT_SHARED to use the copy "
            "in tests/conformance_data, or point it at a shared/ folder"
        )
    with open(CORPUS / "cases.jsonl", encoding="utf-8") as f:
        cases = [json.loads(line) for line in f if line.strip()]
    with open(CORPUS / "expected.jsonl", encoding="utf-8") as f:
        expected = {e["id"]: e for e in (json.loads(line) for line in f if line.strip())}
    return cases, expected


def cases_for(scorer: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Return ``(case, expected)`` pairs of one scorer, in corpus order."""
    cases, expected = _load()
    return [(c, expected[c["id"]]) for c in cases if c["scorer"] == scorer]


def _messages(value: Any, role: str) -> Any:
    if isinstance(value, list):
        return [{"role": role, "content": v} if isinstance(v, str) else v for v in value]
    return value


def run_args(case: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments for ``Scorer.run`` from a case (input, output, ground_truth)."""
    args: dict[str, Any] = {
        "input": case["rawInput"] if "rawInput" in case else _messages(case.get("input"), "user"),
        "output": case["rawOutput"]
        if "rawOutput" in case
        else _messages(case.get("output"), "assistant"),
    }
    if "groundTruth" in case:
        args["ground_truth"] = case["groundTruth"]
    return args


def options(case: dict[str, Any]) -> dict[str, Any]:
    """The case's factory options as snake_case keyword arguments (top level only)."""
    opts = {snake(k): v for k, v in (case.get("options") or {}).items()}
    opts.update({snake(k): v for k, v in (case.get("factoryArgs") or {}).items()})
    return opts
