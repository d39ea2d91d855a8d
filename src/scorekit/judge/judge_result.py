"""``JudgeResult``: what one judge call produced, and the meter that sums its requests' usage.

Ground floor of the judge package: imports only :mod:`scorekit.judge.model`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from scorekit.judge.model import JudgeUsage, TokenLogprob

__all__ = ["JudgeResult", "UsageMeter"]

T = TypeVar("T")


@dataclass(frozen=True)
class JudgeResult(Generic[T]):
    """What a judge call produced.

    Attributes:
        value: the validated output (a model instance, a JSON value, or text).
        raw_text: the reply text the value was read from.
        usage: the usage of every request made for this result (repairs included).
        model_id: the model that answered.
        logprobs: the log-probabilities of the tokens of ``raw_text``, when the call asked for
            them (``top_logprobs``) and the provider sent them.
    """

    value: T
    raw_text: str
    usage: JudgeUsage
    model_id: str
    logprobs: tuple[TokenLogprob, ...] | None = None


class UsageMeter:
    """Usage of the requests made for one result."""

    __slots__ = ("usage",)

    def __init__(self) -> None:
        self.usage = JudgeUsage()
