"""Judge replies are read strictly: a number or boolean written as another type is repaired.

The JSON schema sent to the judge says ``number`` / ``integer`` / ``boolean``; a reply that
writes ``"0.5"``, ``true`` for a number, or ``"true"`` / ``1`` for a boolean does not follow it,
so it is sent back once and the run fails when the repair does not fix it (never read as if it
had).
"""

from __future__ import annotations

from typing import Any

import pytest

from scorekit.errors import ScorerRunError
from scorekit.judge import ScriptedJudge
from scorekit.scorers import build_scorer

RUBRIC = [{"description": "Names the capital", "required": True}]


def rubric_reply(satisfied: Any) -> dict[str, Any]:
    return {
        "criteria": [{"criterion_index": 0, "satisfied": satisfied, "reasoning": "r"}],
        "overall_assessment": "o",
    }


@pytest.mark.parametrize("satisfied", ["true", 1, 0, "yes"])
def test_a_boolean_written_otherwise_is_repaired_then_fails(satisfied: Any) -> None:
    judge = ScriptedJudge([rubric_reply(satisfied), rubric_reply(satisfied)])
    scorer = build_scorer("rubric", model=judge, criteria=RUBRIC)
    with pytest.raises(ScorerRunError, match="valid boolean"):
        scorer.run_sync(input="Capital of France?", output="Paris.")
    assert len(judge.calls) == 2  # the reply and its repair


def test_a_repaired_boolean_is_read() -> None:
    judge = ScriptedJudge([rubric_reply("true"), rubric_reply(True)])
    result = build_scorer("rubric", model=judge, criteria=RUBRIC).run_sync(
        input="Capital of France?", output="Paris."
    )
    assert (result.status, result.score, len(judge.calls)) == ("ok", 1.0, 2)


def tool_reply(index: Any) -> dict[str, Any]:
    return {"evaluations": [{"tool_index": index, "was_appropriate": True, "reasoning": "r"}]}


@pytest.mark.parametrize("index", ["0", 0.0, True])
def test_an_index_written_otherwise_is_repaired_then_fails(index: Any) -> None:
    output = [
        {
            "role": "assistant",
            "content": "21 degrees.",
            "toolInvocations": [
                {"toolCallId": "c1", "toolName": "weather", "args": {}, "state": "result"}
            ],
        }
    ]
    judge = ScriptedJudge([tool_reply(index), tool_reply(index)])
    scorer = build_scorer(
        "tool-call-accuracy-llm",
        model=judge,
        available_tools=[{"id": "weather", "description": "the weather"}],
    )
    with pytest.raises(ScorerRunError):
        scorer.run_sync(input="Weather in Paris?", output=output)
    assert len(judge.calls) == 2
