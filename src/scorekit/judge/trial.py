"""Which repeat of a judgement is being made (``run_evals(trials=k)``), and its seed.

A run with ``trials=k`` scores each item ``k`` times to measure how much the judge disagrees
with itself. The repeats must not be answered by the judge cache, and should sample anew where
the provider lets them: while :data:`JUDGE_TRIAL` holds ``t > 0``, every request a judge makes
carries the seed ``(seed or 0) + t`` (:func:`trial_seed`). The seed is part of the cache key,
so trial ``t`` is cached apart from trial 0 (running the same run again replays each trial);
providers that take a seed (``accepts_seed`` in the provider table) sample with it, the others
ignore it, and with ``temperature=0`` a deterministic judge gives the same reply every trial.
"""

from __future__ import annotations

from contextvars import ContextVar

__all__ = ["JUDGE_TRIAL", "trial_seed"]

JUDGE_TRIAL: ContextVar[int] = ContextVar("scorekit_judge_trial", default=0)
"""The repeat being scored: 0 for the first (and only, without trials)."""


def trial_seed(seed: int | None) -> int | None:
    """The seed of a request in the current trial: ``seed`` itself in trial 0.

    Example:
        >>> token = JUDGE_TRIAL.set(2)
        >>> trial_seed(None), trial_seed(7)
        (2, 9)
        >>> JUDGE_TRIAL.reset(token)
    """
    trial = JUDGE_TRIAL.get()
    if trial == 0:
        return seed
    return (seed or 0) + trial
