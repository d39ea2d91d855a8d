"""What a run costs its judges, known before it runs: :func:`estimate_run` (issue 32).

The hard budgets that stop a run live with the judge (:mod:`scorekit.judge.spending`), the
price table too (:mod:`scorekit.judge.prices`); this package reads a run's items and scorers
and says what they would spend, sending nothing.
"""

from scorekit.cost.estimate import RunEstimate, ScorerEstimate, estimate_run

__all__ = ["RunEstimate", "ScorerEstimate", "estimate_run"]
