"""A live service's judge budget, renewed every UTC day.

``LiveScoring(..., max_judge_calls=N, max_judge_tokens=N, max_cost=DOLLARS)`` gives each UTC
day of the service the same hard budget a run has (:mod:`scorekit.judge.spending`): the judge
calls of the day's sampled calls ask that day's ledger first, and once a call is refused, or
the budget is spent to its last unit, the day's later sampled calls are not scored. What a
refusal touched is not stored (nothing half-judged is shown), and every scorer result left
unscored is counted (``LiveStats.over_budget``), logged once a day, and written on the day's
live run as ``budget_stop`` (the limit, the budget, what was spent, the results not scored), so
``scorekit show`` says that the budget stopped it. The next UTC day starts with a fresh budget.

The budget is kept by the scoring worker, so it is per process of the service: each worker of
a web server has its own (give each a share of the day's budget).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import date
from typing import Any

from scorekit.judge.prices import PriceTable
from scorekit.judge.spending import JudgeBudget, SpendingLedger

__all__ = ["DailyBudget"]

logger = logging.getLogger("scorekit.live")


class DailyBudget:
    """One :class:`~scorekit.judge.spending.SpendingLedger` per UTC day, against one budget.

    Args:
        budget: the limits each day gets.
        prices: the prices a money budget reads (``None``: the table alone).
    """

    def __init__(self, budget: JudgeBudget, prices: PriceTable | None = None) -> None:
        self.budget = budget
        self.prices = prices
        self._ledgers: dict[date, SpendingLedger] = {}
        self._unscored: dict[date, int] = {}

    @classmethod
    def from_settings(
        cls, settings: Mapping[str, Any] | None, prices: PriceTable | None = None
    ) -> DailyBudget | None:
        """The budget of :meth:`to_settings`'s data (the scoring process gets it this way).

        Its money is read at ``prices``, the service's own, sent beside it.
        """
        if not settings:
            return None
        return cls(JudgeBudget(**settings["budget"]), prices)

    def to_settings(self) -> dict[str, Any]:
        """The budget's limits as JSON data (its prices travel as the service's own)."""
        return {"budget": self.budget.to_dict()}

    def ledger(self, day: date) -> SpendingLedger:
        """The ledger of ``day`` (made on its first call; the days before are forgotten)."""
        found = self._ledgers.get(day)
        if found is None:
            for old in [d for d in self._ledgers if d < day]:
                self._ledgers.pop(old)
            found = self._ledgers[day] = SpendingLedger(self.budget, self.prices)
        return found

    def not_scored(self, day: date, results: int) -> None:
        """Count ``results`` scorer results of ``day`` left unscored; log the day's first."""
        if results <= 0:
            return
        if not self._unscored.get(day):
            ledger = self.ledger(day)
            logger.warning(
                "live scoring: the judge budget of %s is spent (%s); sampled calls are not "
                "scored until the next UTC day",
                day.isoformat(),
                ledger.stopped_by,
            )
        self._unscored[day] = self._unscored.get(day, 0) + results

    def stop(self, day: date) -> dict[str, Any] | None:
        """What stopped ``day``'s scoring, or ``None`` when the budget did not stop it.

        The ledger's account (:meth:`SpendingLedger.to_dict`) and ``unscored``: the results
        not scored.
        """
        ledger = self._ledgers.get(day)
        if ledger is None or not ledger.exhausted:
            return None
        return {**ledger.to_dict(), "unscored": self._unscored.get(day, 0)}
