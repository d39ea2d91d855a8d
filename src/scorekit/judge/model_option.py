"""``to_judge``: what a prebuilt scorer makes of its factory's ``model`` option.

Every LLM scorer factory takes ``model=`` as a ``Judge``, a ``JudgeModel`` object or a
``"provider/model"`` string, and gives it the scorer's own instructions here.
"""

from __future__ import annotations

from scorekit.errors import ConfigError
from scorekit.judge.judge import Judge
from scorekit.judge.model import JudgeModel

__all__ = ["to_judge"]


def to_judge(model: Judge | JudgeModel | str, instructions: str) -> Judge:
    """Return a :class:`Judge` for a scorer factory's ``model`` argument.

    Args:
        model: a ``Judge`` (kept as is when it was given instructions; otherwise it gets the
            scorer's, sharing its model, settings and cache — so ``Judge("local/smollm2",
            timeout=300, cache=False)`` configures the model for any prebuilt scorer), a
            ``JudgeModel`` object, or a ``"provider/model"`` string.
        instructions: the scorer's judge instructions.

    Raises:
        ConfigError: ``model`` is of none of these types.
        JudgeUnavailableError: the model string cannot be resolved.
    """
    if isinstance(model, Judge):
        return model if model.has_own_instructions else model.with_instructions(instructions)
    if isinstance(model, (str, JudgeModel)):
        return Judge(model, instructions)
    raise ConfigError(
        f"model must be a 'provider/model' string, a JudgeModel or a Judge, "
        f"not {type(model).__name__}",
        field="model",
    )
