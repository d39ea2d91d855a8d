"""Access to the conformance corpora of the real Mastra package.

Three corpora (``shared/conformance``, its README says how they were made):

* :data:`MAIN` (the first ten scorers) and :data:`CATALOG` (the rest of Mastra's catalog) are
  synthetic cases, copied into ``tests/conformance_data`` so that the suite runs from a clone
  anywhere; while the ``shared/`` folder beside the checkout exists, a test checks that the copies
  have not drifted from it;
* :data:`REAL` (completeness on real STS-B, ExpertQA and BEGIN text) is read from the ``shared/``
  folder only: some of its STS-B text (the MSR rows) may not be redistributed, so it is not kept
  in the repository, and its tests skip when no ``shared/`` folder is found.

``SCOREKIT_SHARED`` points the tests at another folder laid out like ``shared/``; each corpus
folder under its ``conformance/`` is optional (a missing one gives no cases and skips its tests).
``SCOREKIT_CONFORMANCE_HALF`` (``0`` or ``1``) keeps one half of every corpus, split by a
seeded hash of each case's id, as if it were the only corpus: ``tests/test_parity_resplit.py``
runs the parity tests on each half, so that a test written against one corpus's shapes (its
size, which cases it holds) fails there first (issue 33).

Cases and expected results are matched by id. Helpers map Mastra's camelCase to scorekit's
snake_case, decode the corpus's markers and turn a case into a scorer run's arguments.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
MAIN = "mastra-evals-1.10.2"
CATALOG = "mastra-evals-1.10.2-catalog"
REAL = "mastra-evals-1.10.2-completeness-real"
BUNDLED_CORPORA = (MAIN, CATALOG)
"""The corpora copied into ``tests/conformance_data``."""
BUNDLED_ROOT = REPO_ROOT / "tests" / "conformance_data"
BESIDE_ROOT = REPO_ROOT.parent / "shared" / "conformance"
"""The originals, in the ``shared/`` folder next to the checkout (when there is one)."""
BUNDLED = BUNDLED_ROOT / MAIN
BESIDE = BESIDE_ROOT / MAIN

CREATED_AT = "2026-01-01T00:00:00.000Z"
"""The ``createdAt`` of every stored message the catalog corpus builds (its README)."""


def corpus_dir(name: str) -> Path:
    """The folder the tests read corpus ``name`` from (it may not exist)."""
    if os.environ.get("SCOREKIT_SHARED"):
        return Path(os.environ["SCOREKIT_SHARED"]) / "conformance" / name
    return BUNDLED_ROOT / name if name in BUNDLED_CORPORA else BESIDE_ROOT / name


def corpus_missing(name: str) -> str | None:
    """Why corpus ``name`` cannot be read (a skip reason), or ``None`` when it can."""
    folder = corpus_dir(name)
    if (folder / "cases.jsonl").is_file() and (folder / "expected.jsonl").is_file():
        return None
    return (
        f"conformance corpus {name} not found at {folder} (set SCOREKIT_SHARED to a shared/ folder)"
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
def _load(name: str) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    if corpus_missing(name):
        if name == MAIN and not os.environ.get("SCOREKIT_SHARED"):
            raise FileNotFoundError(corpus_missing(name))
        return [], {}
    folder = corpus_dir(name)
    with open(folder / "cases.jsonl", encoding="utf-8") as f:
        cases = [json.loads(line) for line in f if line.strip()]
    with open(folder / "expected.jsonl", encoding="utf-8") as f:
        expected = {e["id"]: e for e in (json.loads(line) for line in f if line.strip())}
    return cases, expected


def cases_for(scorer: str, corpus: str = MAIN) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Return ``(case, expected)`` pairs of one scorer, in corpus order (``[]`` when the corpus
    folder is absent under ``SCOREKIT_SHARED``, or for :data:`REAL` without ``shared/``)."""
    cases, expected = _load(corpus)
    return [(c, expected[c["id"]]) for c in cases if c["scorer"] == scorer and _kept(c["id"])]


SPLIT_SEED = "scorekit-resplit-1"
"""The seed of the half-and-half split (``SCOREKIT_CONFORMANCE_HALF``)."""


def _kept(case_id: str) -> bool:
    half = os.environ.get("SCOREKIT_CONFORMANCE_HALF")
    if half is None:
        return True
    digest = hashlib.sha256(f"{SPLIT_SEED}:{case_id}".encode()).digest()
    return str(digest[0] % 2) == half


def _messages(value: Any, role: str) -> Any:
    if isinstance(value, list):
        return [{"role": role, "content": v} if isinstance(v, str) else v for v in value]
    return value


def run_args(case: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments for ``Scorer.run`` from a case of :data:`MAIN` or :data:`REAL`
    (input, output, ground_truth; messages as plain ``{role, content}`` dicts)."""
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
    """The case's factory options and arguments as snake_case keyword arguments (top-level keys
    mapped; nested values decoded from the corpus markers but otherwise as given)."""
    opts = {snake(k): decode(v) for k, v in (case.get("options") or {}).items()}
    opts.update({snake(k): decode(v) for k, v in (case.get("factoryArgs") or {}).items()})
    return {RENAMED_OPTIONS.get(k, k): v for k, v in opts.items()}


RENAMED_OPTIONS = {"get_context": "context_extractor"}
"""Mastra's option names that scorekit spells otherwise (divergences.md row 21: hallucination's
``getContext`` is the context scorers' ``context_extractor``; the corpus's functions ignore
their arguments, so the call signature does not matter)."""


# ---- the catalog corpus: markers and Mastra's stored-message shapes (its README) ----


def _returns(value: Any) -> Callable[..., Any]:
    def function(*_args: Any, **_kwargs: Any) -> Any:
        return value

    return function


def decode(value: Any) -> Any:
    """Decode the catalog corpus's markers, recursively: ``{"$number": "NaN"}`` is that float,
    ``{"$fn": "returns", "value": X}`` a function returning X. ``{"$regex": ...}`` markers are
    kept as they are (the checks' tests translate them)."""
    if isinstance(value, dict):
        if set(value) == {"$number"}:
            return {"Infinity": math.inf, "-Infinity": -math.inf, "NaN": math.nan}[value["$number"]]
        if value.get("$fn") == "returns":
            return _returns(decode(value.get("value")))
        if "$regex" in value:
            return value
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def stored_message(entry: Any, role: str, prefix: str, index: int) -> dict[str, Any]:
    """One entry of a case's ``input`` / ``output`` / ``rememberedMessages`` list as the Mastra
    stored message (``MastraDBMessage``) the corpus README describes."""
    given = {"role": role, "content": entry} if isinstance(entry, str) else dict(entry)
    text = given.get("content")
    content: dict[str, Any] = {
        "format": 2,
        "parts": given.get("parts", [{"type": "text", "text": text}]),
    }
    if "content" in given:
        content["content"] = text
    if "toolInvocations" in given:
        keep = ("toolCallId", "toolName", "args", "result", "state")
        content["toolInvocations"] = [
            {k: inv[k] for k in keep if k in inv} for inv in given["toolInvocations"]
        ]
    return {
        "id": given.get("id", f"{prefix}-{index}"),
        "role": given.get("role", role),
        "content": content,
        "createdAt": CREATED_AT,
    }


def stored_messages(value: Any, role: str, prefix: str) -> list[dict[str, Any]]:
    """A case's message field (a string, a list of strings or of message dicts, or absent) as a
    list of Mastra stored messages."""
    if value is None:
        return []
    entries = [value] if isinstance(value, (str, dict)) else list(value)
    return [stored_message(e, role, prefix, i) for i, e in enumerate(entries)]


def catalog_run_args(case: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments for ``Scorer.run`` from a catalog case, in Mastra's shapes.

    The input is the agent run input ``{inputMessages, rememberedMessages, systemMessages,
    taggedSystemMessages}``; the output the stored assistant messages, or the case's
    ``trajectory`` verbatim when it has one (trajectory scorers); ``rawInput`` / ``rawOutput``
    replace them as given. ``groundTruth``, ``expectedTrajectory``, ``additionalContext`` and
    ``requestContext`` are passed through.
    """
    if "rawInput" in case:
        run_input = case["rawInput"]
    else:
        run_input = {
            "inputMessages": stored_messages(case.get("input"), "user", "user"),
            "rememberedMessages": stored_messages(
                case.get("rememberedMessages"), "user", "remembered"
            ),
            "systemMessages": case.get("systemMessages", []),
            "taggedSystemMessages": case.get("taggedSystemMessages", {}),
        }
    if "rawOutput" in case:
        output = case["rawOutput"]
    elif "trajectory" in case:
        output = case["trajectory"]
    else:
        output = stored_messages(case.get("output"), "assistant", "assistant")
    args: dict[str, Any] = {"input": run_input, "output": output}
    for key, name in (
        ("groundTruth", "ground_truth"),
        ("expectedTrajectory", "expected_trajectory"),
        ("additionalContext", "additional_context"),
        ("requestContext", "request_context"),
    ):
        if key in case:
            args[name] = case[key]
    return args
