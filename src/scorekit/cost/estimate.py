"""What a run would cost its judge, before it runs: calls, tokens, money and time.

:func:`estimate_run` reads the run's items and runs its LLM scorers on each, in a dry run of
their judges (:mod:`scorekit.judge.dry_run`): nothing is sent to a judge, nothing is written to
the judge cache or the store, the target is never called. Per scorer, it adds up:

- **calls**: the requests the run would send. A request the judge cache holds costs nothing
  and is counted apart (``cache_hits``). Calls are *exact* when every prompt of the scorer is
  built from the item alone (its first step, or every step when the cache holds the earlier
  replies); a later step's prompt quotes a *typical reply* of its earlier step
  (:mod:`scorekit.judge.typical_reply`), and how many calls a scorer makes can depend on that
  reply (an answer with no claim stops after one call), so its calls are an expectation.
- **prompt tokens**: each prompt counted by the judge's own tokenizer when it has one offline
  (the local judge), else approximated (:func:`~scorekit.judge.dry_run.approx_prompt_tokens`;
  its measured error is in docs/cost.md).
- **completion tokens**, expected: the scorer's measured mean per call in the store's earlier
  runs of the same scorer with the same judge (:mod:`scorekit.store.usage_history`), else the
  typical replies' own tokens.
- **upper bounds**: the repair rules allow three requests for a structured answer and two for
  free text (:mod:`scorekit.judge.repair`), so each call is bounded by three (two) times its
  prompt and its reply budget, a later step's prompt by its own plus every earlier reply's
  budget, and an approximated count by :data:`APPROX_UPPER_FACTOR` times itself. A free-text
  call without a reply budget has no completion bound (``None``).
- **money**: tokens × the judge model's price (:mod:`scorekit.judge.prices`; ``None`` when the
  model has none).
- **seconds**: the measured seconds per call in earlier runs × the calls, divided by the calls
  the run has in flight at once (its concurrency, at most the judge's); ``None`` without
  earlier runs.

``trials=k`` multiplies the calls sent (each repeat samples anew, so the cache does not
answer it).

A large run is estimated from a sample: every item is read (and counted), but only a seeded
uniform sample of :data:`SAMPLE_ITEMS` of them (reservoir sampling) is dry-run, and the sums
are scaled by items read over items sampled; calls are then an expectation too.
``sample_items=None`` dry-runs every item.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scorekit.errors import ConfigError
from scorekit.evals.executor import DEFAULT_CONCURRENCY
from scorekit.evals.per_item import ItemJob, check_scorers
from scorekit.evals.scorer_threads import is_local
from scorekit.evals.source import ItemSource
from scorekit.evals.text_limits import DEFAULT_MAX_TEXT_CHARS
from scorekit.items import EvalItem
from scorekit.judge.dry_run import DRY_RUN, DryRun, DryRunCall
from scorekit.judge.prices import Price, PriceTable
from scorekit.judge.spending import JudgeBudget, check_prices
from scorekit.notebook import dollars_text
from scorekit.pipeline import Scorer
from scorekit.results import ScorerRunResult

if TYPE_CHECKING:
    from scorekit.store.store import Store
    from scorekit.store.usage_history import UsageHistory

__all__ = [
    "APPROX_UPPER_FACTOR",
    "REPAIR_TOKENS",
    "SAMPLE_ITEMS",
    "RunEstimate",
    "ScorerEstimate",
    "estimate_run",
]

APPROX_UPPER_FACTOR = 1.5
"""An approximated prompt count times this is taken as its upper bound (docs/cost.md: the
approximation's largest measured error is well inside it)."""

SAMPLE_ITEMS = 500
"""Items a large run's estimate dry-runs (a seeded uniform sample; the sums are scaled)."""

REPAIR_TOKENS = 200
"""Tokens a repair request adds besides the prompt and the faulty reply (the error list)."""


@dataclass(frozen=True)
class ScorerEstimate:
    """What one scorer would spend on its judge in the run.

    Attributes:
        scorer_id: the scorer.
        judge: its judge model string (``None``: it called no judge on these items).
        items: items it would score.
        calls: requests it would send (cache hits excluded).
        calls_upper: the most requests the repair rules allow.
        exact: whether ``calls`` and the prompts are the run's own (no step quoted a typical
            reply).
        cache_hits: requests the judge cache would answer, for nothing.
        prompt_tokens: expected prompt tokens.
        prompt_tokens_upper: their upper bound.
        completion_tokens: expected completion tokens.
        completion_tokens_upper: their upper bound (``None``: a free-text call has no budget).
        completion_from: ``"history"`` (earlier runs' mean) or ``"typical"`` (typical replies).
        counted: whether the prompts were counted by the judge's tokenizer (else approximated).
        price: the judge model's price, or ``None`` when unknown.
        cost: expected dollars (``None`` without a price).
        cost_upper: the most dollars (``None`` without a price or a completion bound).
        seconds: expected seconds of the run spent on this scorer's calls (``None`` without
            earlier runs to measure the judge's speed).
        history: the earlier runs the means came from.
        errors: items of the dry run (the sample, when sampled) whose scorer run failed; their
            calls after the failure are not counted.
    """

    scorer_id: str
    judge: str | None
    items: int
    calls: int
    calls_upper: int
    exact: bool
    cache_hits: int
    prompt_tokens: int
    prompt_tokens_upper: int
    completion_tokens: int
    completion_tokens_upper: int | None
    completion_from: str
    counted: bool
    price: Price | None
    cost: float | None
    cost_upper: float | None
    seconds: float | None
    history: UsageHistory
    errors: int

    def to_dict(self) -> dict[str, Any]:
        """The estimate as JSON data."""
        data = {k: v for k, v in self.__dict__.items() if k not in ("price", "history")}
        data["price"] = self.price.to_dict() if self.price is not None else None
        data["history_runs"] = list(self.history.runs)
        return data


@dataclass(frozen=True)
class RunEstimate:
    """What a run would spend on its judges, per scorer and in total.

    Attributes:
        items: items read.
        sampled: items dry-run, when fewer than read (the figures are scaled), else ``None``.
        scorers: one estimate per LLM scorer, in run order (code scorers cost nothing).
        concurrency: items the run scores at once.
        over_budget: one sentence per budget the run is expected to cross.
        may_cross: one sentence per budget only its upper bound crosses (the run may cross
            it if the judge needs repairs or writes long replies).
        notes: what the estimate could not know (a target's outputs ...).
    """

    items: int
    scorers: tuple[ScorerEstimate, ...]
    concurrency: int
    sampled: int | None = None
    over_budget: tuple[str, ...] = ()
    may_cross: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def total(self, name: str) -> Any:
        """The sum of one field over the scorers (``None`` when any is ``None``)."""
        values = [getattr(s, name) for s in self.scorers]
        if any(v is None for v in values):
            return None
        return sum(values)

    def to_dict(self) -> dict[str, Any]:
        """The estimate as JSON data."""
        totals = {
            name: self.total(name)
            for name in (
                "calls", "calls_upper", "cache_hits", "prompt_tokens", "prompt_tokens_upper",
                "completion_tokens", "completion_tokens_upper", "cost", "cost_upper", "seconds",
            )
        }  # fmt: skip
        return {
            "items": self.items,
            "sampled": self.sampled,
            "concurrency": self.concurrency,
            "scorers": [s.to_dict() for s in self.scorers],
            "total": totals,
            "over_budget": list(self.over_budget),
            "may_cross": list(self.may_cross),
            "notes": list(self.notes),
        }


@dataclass
class _Tally:
    """One scorer's dry-run calls, added up as items pass."""

    items: int = 0
    errors: int = 0
    first_error: str | None = None
    no_call: int = 0
    first_no_call: str | None = None
    judge: str | None = None
    calls: list[tuple[DryRunCall, int]] = field(default_factory=list)  # (call, earlier budget)

    def note(self, outcome: ScorerRunResult, calls: int) -> None:
        """Count a dry run that failed after calling the judge, or never called it."""
        why = outcome.error.message if outcome.error is not None else (outcome.reason or "")
        if calls and outcome.status == "error":
            self.errors += 1
            self.first_error = self.first_error or why
        elif not calls and outcome.status in ("error", "skipped"):
            self.no_call += 1
            self.first_no_call = self.first_no_call or f"{outcome.status}: {why}"


def _upper_prompt(call: DryRunCall, earlier_budget: int) -> int:
    """The most prompt tokens one asked answer can cost (its repairs included)."""
    prompt = call.prompt_tokens
    if not call.counted:
        prompt = math.ceil(prompt * APPROX_UPPER_FACTOR)
    if not call.exact:
        prompt += earlier_budget
    if not call.structured:
        return 2 * prompt
    reply = call.max_tokens or 0
    return 3 * prompt + reply + REPAIR_TOKENS


def _summed(
    scorer_id: str,
    tally: _Tally,
    trials: int,
    scale: float,
    prices: PriceTable,
    history: UsageHistory,
    parallel: int,
) -> ScorerEstimate:
    """One scorer's figures: its dry-run calls summed, times ``trials``, scaled.

    ``scale`` is the items read over the items dry-run (1 without a sample).
    """
    # a call the cache answers is free the first time; a repeat (trials=k) samples anew, so
    # the cache never answers it: each call is sent (0 or 1) + (trials - 1) times
    sent = [
        (call, before, (0 if call.cache_hit else 1) + trials - 1) for call, before in tally.calls
    ]
    sent = [entry for entry in sent if entry[2]]

    def total(value: Callable[[DryRunCall, int], float]) -> float:
        return sum(value(call, before) * times for call, before, times in sent) * scale

    calls = round(total(lambda call, before: 1))
    prompt = round(total(lambda call, before: call.prompt_tokens))
    prompt_upper = math.ceil(total(_upper_prompt))
    per_call = history.output_per_call
    if per_call is not None:
        completion, source = round(per_call * calls), "history"
    else:
        completion = round(total(lambda call, before: call.completion_tokens))
        source = "typical"
    unbounded = any(call.max_tokens is None for call, _, _ in sent)
    completion_upper = (
        None if unbounded
        else math.ceil(total(lambda c, b: (3 if c.structured else 2) * (c.max_tokens or 0)))
    )  # fmt: skip
    price = prices.price(tally.judge) if tally.judge is not None else None
    cost = price.cost(prompt, completion) if price is not None else None
    cost_upper = (
        price.cost(prompt_upper, completion_upper)
        if price is not None and completion_upper is not None
        else None
    )
    seconds_per = history.seconds_per_call
    seconds = seconds_per * calls / parallel if seconds_per is not None else None
    return ScorerEstimate(
        scorer_id=scorer_id,
        judge=tally.judge,
        items=round(tally.items * scale),
        calls=calls,
        calls_upper=math.ceil(total(lambda call, before: 3 if call.structured else 2)),
        exact=scale == 1 and not tally.errors and all(call.exact for call, _ in tally.calls),
        cache_hits=round(sum(call.cache_hit for call, _ in tally.calls) * scale),
        prompt_tokens=prompt,
        prompt_tokens_upper=prompt_upper,
        completion_tokens=completion,
        completion_tokens_upper=completion_upper,
        completion_from=source,
        counted=all(call.counted for call, _, _ in sent),
        price=price,
        cost=cost,
        cost_upper=cost_upper,
        seconds=seconds,
        history=history,
        errors=tally.errors,
    )


def _stand_in(item: EvalItem) -> EvalItem:
    """``item`` with a stand-in for the target's output: its ground truth, else its input."""
    if item.has_output:
        return item
    stand_in = item.ground_truth if item.ground_truth not in (None, "") else item.input
    return replace(item, output=stand_in if stand_in is not None else "", has_output=True)


def _over_budget(
    totals: Mapping[str, Any], budget: Mapping[str, float | None]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The budgets the expected figures cross, and those only the upper bounds cross."""
    found: list[str] = []
    may: list[str] = []
    pairs = {
        "max_judge_calls": ("calls", "calls_upper", "calls"),
        "max_judge_tokens": ("tokens", "tokens_upper", "tokens"),
        "max_cost": ("cost", "cost_upper", "dollars"),
    }

    def amount(value: float, unit: str) -> str:
        return dollars_text(value) if unit == "dollars" else f"{round(value):,} {unit}"

    for limit, (expected, upper, unit) in pairs.items():
        value = budget.get(limit)
        if value is None:
            continue
        shown = dollars_text(value) if unit == "dollars" else f"{round(value):,}"
        if totals[expected] is not None and totals[expected] > value:
            found.append(
                f"{limit} {shown}: the run would spend about {amount(totals[expected], unit)}"
            )
        elif totals[upper] is None or totals[upper] > value:
            most = (
                f"its {unit} have no upper bound" if totals[upper] is None
                else f"up to {amount(totals[upper], unit)}"
            )  # fmt: skip
            may.append(f"{limit} {shown}: the run may spend more ({most})")
    return tuple(found), tuple(may)


def _open_store(store: Store | str | Path | None) -> Store | None:
    from scorekit.store.store import Store  # SQLAlchemy is imported only with a store

    if store is None or isinstance(store, Store):
        return store
    try:
        return Store(store, create=False, read_only=True)
    except Exception:  # no database yet, or unreadable: no history, nothing written
        return None


async def estimate_run(
    data: Iterable[Any],
    scorers: Sequence[Scorer],
    *,
    target: Any = None,
    trials: int = 1,
    concurrency: int | None = None,
    max_text_chars: int | None = DEFAULT_MAX_TEXT_CHARS,
    store: Store | str | Path | None = None,
    prices: Mapping[str, Any] | None = None,
    max_judge_calls: int | None = None,
    max_judge_tokens: int | None = None,
    max_cost: float | None = None,
    sample_items: int | None = SAMPLE_ITEMS,
    seed: int = 0,
) -> RunEstimate:
    """Estimate a run's judge calls, tokens, money and time without running it (module doc).

    Args:
        data: the items, as ``run_evals`` takes them.
        scorers: the run's scorers (code scorers are left out: they cost nothing).
        target: the run's target, never called: an item without an output is estimated with
            its ground truth standing in for the target's answer (else an empty one).
        trials: ``run_evals``'s ``trials``, >= 1.
        concurrency: items scored at once (default ``run_evals``'s).
        max_text_chars: as in ``run_evals`` (an item over it costs nothing).
        store: the results database (a ``Store``, URL or path) whose earlier runs give the
            measured means; read only. ``None``: none.
        prices: price overrides, model string → ``[IN, OUT]`` dollars per million tokens
            (:class:`~scorekit.judge.prices.PriceTable`).
        max_judge_calls: a budget to check the estimate against.
        max_judge_tokens: a budget to check the estimate against.
        max_cost: a budget in dollars to check the estimate against.
        sample_items: items to dry-run at most (a seeded uniform sample of the items read;
            the sums are scaled to all of them); ``None``: every item.
        seed: the sample's seed.

    Returns:
        The estimate; ``over_budget`` says which budget the run would or could cross.

    Raises:
        ConfigError: bad scorers, data, prices or ``trials`` (``field`` names it).
    """
    chosen = check_scorers(scorers)
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise ConfigError(f"trials must be an integer >= 1, not {trials!r}", field="trials")
    if concurrency is not None and (
        isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1
    ):
        raise ConfigError(
            f"concurrency must be an integer >= 1, not {concurrency!r}", field="concurrency"
        )
    table = PriceTable(prices, source="prices")
    judged = [s for s in chosen if not is_local(s)]
    # the run's own checks: bad limits, a money budget over a judge without a price
    limits = JudgeBudget.from_options(
        {"max_judge_calls": max_judge_calls, "max_judge_tokens": max_judge_tokens,
         "max_cost": max_cost}
    )  # fmt: skip
    check_prices(limits, table, [model for s in judged for model in s.judge_models])
    jobs = {s.id: ItemJob((s,), max_text_chars=max_text_chars) for s in judged}
    tallies = {s.id: _Tally() for s in judged}
    if sample_items is not None and (
        isinstance(sample_items, bool) or not isinstance(sample_items, int) or sample_items < 1
    ):
        raise ConfigError(
            f"sample_items must be an integer >= 1 or None, not {sample_items!r}",
            field="sample_items",
        )
    rng = random.Random(seed)
    chosen_items: list[EvalItem] = []
    read = 0
    async for item in ItemSource(data, require_output=target is None):
        read += 1
        if sample_items is None or len(chosen_items) < sample_items:
            chosen_items.append(item)
            continue
        slot = rng.randrange(read)  # reservoir sampling: every item kept with equal chance
        if slot < sample_items:
            chosen_items[slot] = item
    for item in chosen_items:
        if target is not None:
            item = _stand_in(item)
        for scorer in judged:
            book = DryRun()
            token = DRY_RUN.set(book)
            try:
                outcome = (await jobs[scorer.id](item)).scorer_results[scorer.id]
            finally:
                DRY_RUN.reset(token)
            tally = tallies[scorer.id]
            tally.items += 1
            tally.note(outcome, len(book.calls))
            budget = 0
            for call in book.calls:
                tally.judge = tally.judge or call.model_id
                tally.calls.append((call, budget))
                if not call.cache_hit:
                    budget += call.max_tokens or 0
    from scorekit.store.usage_history import UsageHistory, usage_history

    width = concurrency or DEFAULT_CONCURRENCY
    opened = _open_store(store)
    scale = read / len(chosen_items) if chosen_items else 1.0
    estimates = []
    try:
        listed = opened.list_runs(None) if opened is not None and judged else []
        for scorer in judged:
            tally = tallies[scorer.id]
            history = (
                usage_history(opened, scorer.id, tally.judge, listed=listed)
                if opened is not None and tally.judge is not None
                else UsageHistory()
            )
            ceiling = scorer.judge.settings.concurrency if scorer.judge is not None else None
            parallel = max(1, min(width, ceiling or width))
            estimates.append(_summed(scorer.id, tally, trials, scale, table, history, parallel))
    finally:
        if opened is not None and opened is not store:
            opened.close()
    notes = []
    if target is not None:
        notes.append("the target is not called: an item's ground truth stands in for its output")
    for scorer in judged:
        tally = tallies[scorer.id]
        if tally.errors:
            notes.append(
                f"{scorer.id}: {tally.errors} dry run(s) failed after a call (their later calls "
                f"are not counted, so the figures are low); first: {tally.first_error}"
            )
        if tally.no_call:
            notes.append(
                f"{scorer.id}: {tally.no_call} item(s) would call no judge (the run would "
                f"record them so); first: {tally.first_no_call}"
            )
    sampled = len(chosen_items) if len(chosen_items) < read else None
    if sampled is not None:
        notes.append(
            f"dry run of a seeded sample of {sampled:,} of the {read:,} items; the figures are "
            "scaled to all of them"
        )
    result = RunEstimate(read, tuple(estimates), width, sampled, notes=tuple(notes))
    totals = result.to_dict()["total"]
    totals["tokens"] = totals["prompt_tokens"] + totals["completion_tokens"]
    upper = totals["completion_tokens_upper"]
    totals["tokens_upper"] = None if upper is None else totals["prompt_tokens_upper"] + upper
    over, may = _over_budget(
        totals,
        {"max_judge_calls": max_judge_calls, "max_judge_tokens": max_judge_tokens,
         "max_cost": max_cost},
    )  # fmt: skip
    return replace(result, over_budget=over, may_cross=may)
