"""What a stored run's judge calls cost, at the prices stored with it: the rule every view shows.

``scorekit runs`` (a cost column), ``scorekit show`` (per scorer and in total), the HTML report
and the web viewer read a run's cost through :func:`stored_run_cost`, and write dollars with
the one formatter, :func:`scorekit.notebook.dollars_text`.

- A scorer's money is its stored judge usage (prompt and completion tokens over its result and
  trial rows, :mod:`scorekit.store.scorer_usage`) at the stored price of its judge (the
  ``prices`` the run kept, :func:`scorekit.judge.prices.stored_prices`).
- A scorer whose judge has no stored price is *unpriced*: its cost shows ``—``, never $0, and
  the run's total is then partial, ``≥ $0.0123 (1 scorer unpriced)``, or ``—`` when no judged
  scorer is priced.
- A code scorer (no judge) costs nothing and is never unpriced; a ``local/`` or ``test/`` judge
  is stored at $0.
- A run stored before runs kept their prices has no cost: ``—`` everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scorekit.judge.prices import Price, stored_prices
from scorekit.notebook import dollars_text
from scorekit.store.records import RunRecord
from scorekit.usage import JudgeUsage

__all__ = ["RunCost", "cost_line", "run_cost", "scorer_costs", "stored_run_cost", "total_text"]


@dataclass(frozen=True)
class RunCost:
    """A stored run's judge cost, scorer by scorer.

    Attributes:
        scorers: scorer id → US dollars (0 for a code scorer), or ``None`` when its judge has
            no stored price; in the run's scorer order.
        judges: scorer id → its judge model (several: comma-separated), for the scorers that
            have one.
        prices: judge model → the stored price its scorers were costed at.
        dropped: dollars spent on results the run did not store (a judge budget's stop drops
            what a refused call touched; a resume replaces what failed): the run's total usage
            beyond its scorers' rows, at the price of its one judge model; ``None`` when that
            spend is there but the run has several judge models (its model is not known).
    """

    scorers: dict[str, float | None]
    judges: dict[str, str] = field(default_factory=dict)
    prices: dict[str, Price] = field(default_factory=dict)
    dropped: float | None = 0.0

    @property
    def unpriced(self) -> list[str]:
        """The scorers whose judge has no stored price."""
        return [sid for sid, dollars in self.scorers.items() if dollars is None]

    @property
    def total(self) -> float | None:
        """The dollars of the priced scorers (a lower bound when some are unpriced).

        ``None`` when no judged scorer is priced but some are not (nothing known to add).
        """
        priced = [sid for sid in self.judges if self.scorers.get(sid) is not None]
        if self.unpriced and not priced:
            return None
        spent = [dollars for dollars in self.scorers.values() if dollars is not None]
        return math.fsum([*spent, self.dropped or 0.0])

    def scorer_text(self, scorer_id: str) -> str:
        """One scorer's cost as the views show it (``—``: its judge has no stored price)."""
        return dollars_text(self.scorers.get(scorer_id))

    def total_text(self) -> str:
        """The run's total: ``$0.0123``, ``≥ $0.0123 (1 scorer unpriced)``, or ``—``.

        Example:
            >>> RunCost({"a": 0.0123, "b": None}, {"a": "x/a", "b": "x/b"}).total_text()
            '≥ $0.0123 (1 scorer unpriced)'
        """
        total = self.total
        if total is None:
            return "—"
        notes = []
        if self.dropped:
            notes.append(f"{dollars_text(self.dropped)} on results not stored")
        missing = len(self.unpriced) + (self.dropped is None)
        if self.unpriced:
            notes.append(f"{len(self.unpriced)} scorer{'s' if len(self.unpriced) != 1 else ''} "
                         "unpriced")  # fmt: skip
        if self.dropped is None:
            notes.append("results not stored unpriced")
        text = dollars_text(total) if not missing else f"≥ {dollars_text(total)}"
        return f"{text} ({'; '.join(notes)})" if notes else text


def run_cost(
    scorers: Sequence[Mapping[str, Any]],
    config: Any,
    usage: Mapping[str, JudgeUsage],
    total: JudgeUsage | None = None,
) -> RunCost | None:
    """A run's cost from its stored scorers, its config's prices and its usage per scorer.

    Args:
        scorers: the run's scorer rows as stored (``{"id", "judge"?, "judges"?}``; neither: a
            code scorer; ``judges`` of several models: unpriced, its usage is not split by
            model).
        config: the run's stored config (its ``prices``: model → price dict).
        usage: scorer id → its judge usage (:meth:`scorekit.store.Store.scorer_usage`).
        total: the run's whole judge usage (its row's), which also holds what dropped results
            spent; ``None``: not known (nothing is added).

    Returns:
        The cost, or ``None`` for a run stored without prices (before runs kept them).

    Example:
        >>> price = {"input_per_mtok": 0.15, "output_per_mtok": 0.6}
        >>> cost = run_cost(
        ...     [{"id": "f", "judge": "openai/gpt-4o-mini"}, {"id": "len"}],
        ...     {"prices": {"openai/gpt-4o-mini": price}},
        ...     {"f": JudgeUsage(calls=10, input_tokens=20_000, output_tokens=1_000)},
        ... )
        >>> cost.scorer_text("f"), cost.scorer_text("len"), cost.total_text()
        ('$0.0036', '$0', '$0.0036')
    """
    prices = stored_prices(config)
    if prices is None:
        return None
    dollars: dict[str, float | None] = {}
    judges: dict[str, str] = {}
    used: dict[str, Price] = {}
    for row in scorers:
        sid = str(row.get("id"))
        models = _models(row)
        if not models:
            dollars[sid] = 0.0  # a code scorer: no judge call
            continue
        model = judges[sid] = ", ".join(models)
        # a scorer whose steps ask several judges: its usage is not split by model, unpriced
        price = prices.get(model) if len(models) == 1 else None
        if price is None:
            dollars[sid] = None
            continue
        used[model] = price
        spent = usage.get(sid, JudgeUsage())
        dollars[sid] = price.cost(spent.input_tokens, spent.output_tokens)
    return RunCost(dollars, judges, used, _dropped(total, usage, judges, prices))


def _dropped(
    total: JudgeUsage | None,
    usage: Mapping[str, JudgeUsage],
    judges: Mapping[str, str],
    prices: Mapping[str, Price],
) -> float | None:
    """The dollars of the run's usage beyond its scorers' rows (0.0 when there is none)."""
    if total is None:
        return 0.0
    rows_in = sum(u.input_tokens for u in usage.values())
    rows_out = sum(u.output_tokens for u in usage.values())
    extra_in = max(total.input_tokens - rows_in, 0)
    extra_out = max(total.output_tokens - rows_out, 0)
    if not extra_in and not extra_out:
        return 0.0
    models = set(judges.values())
    price = prices.get(next(iter(models))) if len(models) == 1 else None
    return price.cost(extra_in, extra_out) if price is not None else None


def stored_run_cost(
    run: RunRecord, usage: Callable[[RunRecord], Mapping[str, JudgeUsage]]
) -> RunCost | None:
    """:func:`run_cost` of a stored run; ``usage`` is read only for a run that kept prices.

    Args:
        run: the stored run.
        usage: reads a run's usage per scorer (``Store.scorer_usage``, or the viewer's
            :func:`scorekit.store.scorer_usage.scorer_usage` on its connection).

    Raises:
        StoreError: ``usage`` failed.
    """
    if stored_prices(run.config) is None:
        return None
    total = JudgeUsage.from_dict(run.judge_usage) if run.judge_usage else None
    return run_cost(run.scorers, run.config, usage(run), total)


def total_text(cost: RunCost | None) -> str:
    """The run's total cost as every view shows it; ``—`` for a run stored without prices."""
    return "—" if cost is None else cost.total_text()


def _models(row: Mapping[str, Any]) -> list[str]:
    """The judge models a stored scorer row names (``judges``, else ``judge``); ``[]``: none."""
    named = row.get("judges") or [row.get("judge")]
    return [str(m) for m in named if isinstance(m, str) and m] if isinstance(named, list) else []


def _judged(scorers: Sequence[Mapping[str, Any]]) -> bool:
    return any(_models(row) for row in scorers)


def scorer_costs(
    cost: RunCost | None, scorers: Sequence[Mapping[str, Any]]
) -> dict[str, str] | None:
    """Scorer id → its cost text, for a summary table's cost column.

    ``None`` for a run without judged scorers (no column); every scorer ``—`` for a run stored
    without prices.
    """
    if not _judged(scorers):
        return None
    ids = [str(row.get("id")) for row in scorers]
    return {sid: "—" if cost is None else cost.scorer_text(sid) for sid in ids}


def cost_line(cost: RunCost | None, scorers: Sequence[Mapping[str, Any]]) -> str | None:
    """The line under a run's summary: its judge cost and the prices it was costed at.

    ``None`` for a run without judged scorers (it cost nothing to say). Example:
    ``judge cost: $0.0405 at the prices stored with the run (openai/gpt-4o-mini: $0.15 in,
    $0.6 out per million tokens)``.
    """
    if not _judged(scorers):
        return None
    if cost is None:
        return "judge cost: — (the run was stored before runs kept their prices)"
    line = f"judge cost: {cost.total_text()}"
    if cost.prices:
        listed = "; ".join(
            f"{model}: ${price.input_per_mtok:g} in, ${price.output_per_mtok:g} out"
            for model, price in cost.prices.items()
        )
        line += f" at the prices stored with the run ({listed} per million tokens)"
    missing = sorted({cost.judges[sid] for sid in cost.unpriced})
    if missing:
        line += f"; no stored price for {', '.join(missing)}"
    return line
