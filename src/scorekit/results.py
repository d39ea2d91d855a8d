"""What one scorer run produced: ``ScorerRunResult``, its ``Status`` and ``RunError``.

Ground floor: imports nothing of ours but :mod:`scorekit.usage`, so that errors, the run loop,
the store and the views can all name these types without an import cycle.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from scorekit.usage import JudgeUsage

__all__ = ["RunError", "ScorerRunResult", "Status", "trial_row"]

Status = Literal["ok", "skipped", "error"]
"""How a scorer run ended: scored, deliberately not scored (with a reason), or failed."""


class RunError(BaseModel):
    """Why a scorer run failed.

    Attributes:
        type: the exception's class name.
        message: the exception's message.
        step: the step that failed, or ``None`` when the failure came before any step.
        raw_output: the judge's raw reply when the failure was an unparseable reply.
    """

    model_config = ConfigDict(frozen=True)

    type: str
    message: str
    step: str | None = None
    raw_output: str | None = None


class ScorerRunResult(BaseModel):
    """The result of one scorer run (Mastra ``ScorerRunResult``, snake_case fields).

    ``score`` is a finite float when ``status == "ok"`` and ``None`` otherwise.
    """

    # bytes become base64 text in JSON (any bytes can, UTF-8 or not)
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True, ser_json_bytes="base64")

    scorer_id: str
    run_id: str
    status: Status
    score: float | None = None
    reason: Any = None
    input: Any = None
    output: Any = None
    ground_truth: Any = None
    request_context: Any = None
    expected_trajectory: Any = None
    additional_context: Any = None
    preprocess_step_result: Any = None
    analyze_step_result: Any = None
    preprocess_prompt: str | None = None
    analyze_prompt: str | None = None
    generate_score_prompt: str | None = None
    generate_reason_prompt: str | None = None
    error: RunError | None = None
    judge_usage: JudgeUsage = JudgeUsage()
    duration_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """Return the result as JSON-ready data (step results as plain dicts and lists)."""
        # values of unknown types (numpy arrays, custom objects) are written as their repr
        data = self.model_dump(mode="json", exclude={"judge_usage"}, fallback=_json_fallback)
        data["judge_usage"] = self.judge_usage.to_dict()
        return data

    def _repr_html_(self) -> str:
        from scorekit.notebook import result_html  # notebooks only: not a ground-floor import

        return result_html(self)


def _json_fallback(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    return repr(value)


def trial_row(results: Iterable[ScorerRunResult]) -> list[float | None]:
    """One item's scores over its trials, in trial order; ``None`` for a trial not ``ok``.

    What :func:`scorekit.trust.trials.trial_summary` reads per item (``trials=k``).
    """
    return [result.score if result.status == "ok" else None for result in results]
