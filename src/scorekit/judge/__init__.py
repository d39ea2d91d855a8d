"""The judge: language models asked for structured verdicts by prompt steps."""

from scorekit.judge.judge import DEFAULT_INSTRUCTIONS, Judge, JudgeResult, to_judge
from scorekit.judge.model import ChatMessage, JudgeModel, JudgeRequest, JudgeResponse, JudgeUsage
from scorekit.judge.structured import OutputSchema
from scorekit.judge.testing import ScriptedJudge

__all__ = [
    "DEFAULT_INSTRUCTIONS",
    "ChatMessage",
    "Judge",
    "JudgeModel",
    "JudgeRequest",
    "JudgeResponse",
    "JudgeResult",
    "JudgeUsage",
    "OutputSchema",
    "ScriptedJudge",
    "to_judge",
]
