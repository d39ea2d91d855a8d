"""A Judge made without instructions takes each scorer's (Mastra's field-wise fallback)."""

from __future__ import annotations

import pytest

from scorekit import ConfigError, Judge
from scorekit.judge import ScriptedJudge
from scorekit.judge.judge import DEFAULT_INSTRUCTIONS
from scorekit.judge.model_option import to_judge
from tests.judge.conftest import needs_smollm2


def test_judge_without_instructions_takes_the_scorers() -> None:
    model = ScriptedJudge()
    shared = Judge(model)
    assert shared.instructions == DEFAULT_INSTRUCTIONS
    made = to_judge(shared, "Scorer instructions.")
    assert made is not shared
    assert made.instructions == "Scorer instructions."
    assert made.model is shared.model
    assert made.limiter is shared.limiter
    assert shared.instructions == DEFAULT_INSTRUCTIONS  # the original is unchanged


def test_judge_with_instructions_is_kept() -> None:
    own = Judge(ScriptedJudge(), "Mine.")
    assert to_judge(own, "Scorer instructions.") is own


def test_with_instructions_checks_its_argument() -> None:
    with pytest.raises(ConfigError):
        Judge(ScriptedJudge()).with_instructions("  ")
    with pytest.raises(ConfigError):
        Judge(ScriptedJudge(), "")


def test_remote_judges_default_to_eight_requests_at_a_time() -> None:
    assert Judge("test/x").settings.concurrency == 8
    assert Judge("test/x", concurrency=3).settings.concurrency == 3


@needs_smollm2
def test_local_judges_default_to_one_request_at_a_time() -> None:
    assert Judge("local/smollm2", cache=False).settings.concurrency == 1
