"""The judge: language models asked for structured verdicts by prompt steps.

``Judge("provider/model")`` resolves a model string against the provider table
(:func:`list_providers`) and stacks the layers every provider shares: the judge-call cache,
retries, the per-model adaptive concurrency limit and the per-attempt timeout (see
:mod:`scorekit.judge.judge`). Any object implementing :class:`JudgeModel` works too.

A judge built from a model string pickles as its :class:`JudgeSpec` (plain data, no API key)
and is built again in the receiving process. :func:`forbid_remote_requests` (from
:mod:`scorekit.judge.guard`) keeps test suites off the network.
"""

from scorekit.judge.guard import forbid_remote_requests
from scorekit.judge.judge import DEFAULT_INSTRUCTIONS, Judge, JudgeSpec
from scorekit.judge.judge_result import JudgeResult
from scorekit.judge.model import ChatMessage, JudgeModel, JudgeRequest, JudgeResponse, JudgeUsage
from scorekit.judge.model_option import to_judge
from scorekit.judge.providers import Provider, list_providers
from scorekit.judge.scripted import ScriptedJudge
from scorekit.judge.settings import JudgeSettings
from scorekit.judge.structured import OutputSchema

__all__ = [
    "DEFAULT_INSTRUCTIONS",
    "ChatMessage",
    "Judge",
    "JudgeModel",
    "JudgeRequest",
    "JudgeResponse",
    "JudgeResult",
    "JudgeSettings",
    "JudgeSpec",
    "JudgeUsage",
    "OutputSchema",
    "Provider",
    "ScriptedJudge",
    "forbid_remote_requests",
    "list_providers",
    "to_judge",
]
