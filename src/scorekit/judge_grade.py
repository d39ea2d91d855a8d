"""Which judge models only demonstrate the pipeline: their scores are not a measurement.

The demonstration judge (``local/smollm2``, SmolLM2-135M) lets the LLM scorers run end to end
on any machine, without a key or a download of gigabytes; it does not judge well enough for its
scores to mean anything (docs/judge-quality.md). Every view of a stored run (``show``, the
report, the viewer) names the judge of its LLM scorers and says so when it is such a model.

Ground floor: imports nothing of ours.

Example:
    >>> judge_lines([{"id": "faithfulness-scorer", "judge": "openai/gpt-4o-mini"},
    ...              {"id": "tone-scorer"}])
    ['judge of faithfulness-scorer: openai/gpt-4o-mini']
    >>> is_test_grade("local/smollm2")
    True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["TEST_GRADE_JUDGES", "TEST_GRADE_NOTE", "is_test_grade", "judge_lines"]

TEST_GRADE_JUDGES = frozenset({"local/smollm2"})
"""Judge models that only demonstrate the pipeline."""

TEST_GRADE_NOTE = (
    "a test-grade model that only demonstrates the pipeline: its scores are not a measurement"
)
"""What the views say of a test-grade judge."""


_TEST_GRADE_FILES = ("smollm2-135m",)
"""Model files (the start of their lower-cased names) of test-grade judges given by path."""


def is_test_grade(model: str) -> bool:
    """Whether ``model`` (a judge model string) only demonstrates the pipeline.

    ``local/smollm2``, or the same model given by its file (``local/…/SmolLM2-135M-….gguf``).
    """
    if model in TEST_GRADE_JUDGES:
        return True
    name = model.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return model.startswith("local/") and name.startswith(_TEST_GRADE_FILES)


def judge_lines(scorers: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per judge model of a run's scorers (as stored: ``[{"id", "judge"}]``).

    Each names the model and the scorers it judged, and says when it is test-grade; scorers
    without a judge (code scorers) are left out.
    """
    judged: dict[str, list[str]] = {}
    for scorer in scorers:
        model = scorer.get("judge")
        if isinstance(model, str) and model:
            judged.setdefault(model, []).append(str(scorer.get("id")))
    return [
        f"judge of {', '.join(ids)}: {model}"
        + (f", {TEST_GRADE_NOTE}" if is_test_grade(model) else "")
        for model, ids in judged.items()
    ]
