"""A run's hard judge budget: no call is sent that could cross it.

``run_evals(max_judge_calls=N, max_judge_tokens=N, max_cost=DOLLARS)`` (``--max-judge-calls``,
``--max-judge-tokens``, ``--max-cost``, the config keys of the same names, the pytest plugin's
``--scorekit-max-judge-calls``) puts a :class:`SpendingLedger` in :data:`JUDGE_LEDGER` for the
run's items. Every request the judge sends, each retry included, passes :class:`SpendingModel`
(a layer of the judge's stack, below the retries and above the rate limiter), which asks the
ledger first (:meth:`SpendingLedger.admit`) and reports what it spent after
(:meth:`SpendingLedger.settle`):

- **calls**: a request is admitted while the requests spent plus those in flight stay within
  the budget. A reply from the judge cache (above the layer) costs nothing and is not counted.
- **tokens** (prompt + completion): a request reserves an upper bound of what it can spend
  before it is sent: its reply budget (``max_tokens`` of the request, from the reply's schema or
  the judge's setting; :data:`UNBUDGETED_REPLY_TOKENS` for a request without one) plus a bound
  of its prompt, one token per :data:`PROMPT_CHARS_PER_TOKEN` ASCII characters and two per
  other character (BPE tokenizers give about 4 ASCII characters a token for English, one or two
  tokens for a CJK character). It is admitted only while the tokens spent plus every
  reservation in flight plus its own stay within the budget; once it returns, the reservation
  is replaced by what the provider reported. The bound holds whenever the reply has a budget
  (a reply without one can run past :data:`UNBUDGETED_REPLY_TOKENS`: set the judge's
  ``max_tokens``).
- **money** (US dollars): the same bound in money, at the price of the request's model
  (:class:`~scorekit.judge.prices.PriceTable`: the prompt bound at its input price plus the
  reply budget at its output price); a request is admitted while the money spent plus every
  reservation in flight plus its own stay within ``max_cost``; once it returns, the
  reservation is replaced by the reported tokens at that price. A model without a price is
  refused (``run_evals`` refuses such a run before it starts); a ``local/`` or ``test/`` model
  costs nothing, so a money budget never stops it.

A refused call raises :class:`~scorekit.errors.JudgeBudgetError` and marks the ledger
exhausted; so does spending the whole budget. The run loop then starts no new item, lets the
calls in flight finish, drops the results a refusal touched (so nothing half-judged is stored)
and ends the run ``interrupted`` with a failed verdict and the reason
(:mod:`scorekit.evals.run`): ``--resume RUN`` with a larger budget scores exactly what is left.
The budget counts the calls of one invocation; a resumed run gets the budget it is given.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, NoReturn

from scorekit.errors import ConfigError, JudgeBudgetError
from scorekit.judge.model import JudgeModel, JudgeRequest, JudgeResponse
from scorekit.judge.prices import Price, PriceTable
from scorekit.notebook import dollars_text
from scorekit.usage import JudgeUsage

__all__ = [
    "BUDGET_LIMITS",
    "BUDGET_STOP_KEY",
    "JUDGE_LEDGER",
    "PROMPT_CHARS_PER_TOKEN",
    "UNBUDGETED_REPLY_TOKENS",
    "JudgeBudget",
    "SpendingLedger",
    "SpendingModel",
    "Ticket",
    "budget_text",
    "check_prices",
    "prompt_bound",
    "stored_budget_text",
]

BUDGET_LIMITS = ("max_judge_calls", "max_judge_tokens", "max_cost")
"""The budget's limits, as ``run_evals`` keywords, config keys and (with dashes) CLI options."""

PRICE_HOW = (
    "give one with --price MODEL=IN,OUT or `prices:` in the config (run_evals prices=; "
    "under pytest, `prices` in [tool.scorekit])"
)
"""How a user gives a judge model's price (dollars per million input and output tokens)."""

_CENT_DIGITS = 12  # money sums are compared rounded, so float noise never refuses a fitting call

PROMPT_CHARS_PER_TOKEN = 3
"""ASCII characters of prompt counted as one token when a call reserves its tokens (an upper
bound for the usual tokenizers on English text; the reservation is replaced by the reported
use). Every other character counts two tokens."""

BUDGET_STOP_KEY = "budget_stop"
"""The key of a stored run's config that holds what stopped it (``None``: resumed to the end)."""

UNBUDGETED_REPLY_TOKENS = 1024
"""Tokens reserved for the reply of a request that carries no ``max_tokens``."""


def prompt_bound(texts: Iterable[str]) -> int:
    """An upper bound of the tokens of ``texts`` (see the module docstring).

    Example:
        >>> prompt_bound(["Is it fine?"]), prompt_bound(["日本語"])
        (4, 6)
    """
    ascii_chars = other = 0
    for text in texts:
        narrow = len(text.encode("ascii", "ignore"))
        ascii_chars += narrow
        other += len(text) - narrow
    return math.ceil(ascii_chars / PROMPT_CHARS_PER_TOKEN) + 2 * other


@dataclass(frozen=True)
class JudgeBudget:
    """The most a run may spend on its judge (``None``: no limit of that kind).

    Attributes:
        max_judge_calls: judge calls sent (cache hits are free), >= 1.
        max_judge_tokens: prompt + completion tokens reported by the provider, >= 1.
        max_cost: US dollars, the reported tokens at their model's price, a finite number > 0.

    Raises:
        ConfigError: a call or token limit that is not an integer >= 1, or a ``max_cost`` that
            is not a finite number > 0 (``field`` names it).
    """

    max_judge_calls: int | None = None
    max_judge_tokens: int | None = None
    max_cost: float | None = None

    def __post_init__(self) -> None:
        for name in ("max_judge_calls", "max_judge_tokens"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise ConfigError(f"{name} must be an integer >= 1, not {value!r}", field=name)
        cost = self.max_cost
        if cost is not None and (
            isinstance(cost, bool)
            or not isinstance(cost, (int, float))
            or not math.isfinite(cost)
            or cost <= 0
        ):
            raise ConfigError(
                f"max_cost must be a finite number > 0 (US dollars), not {cost!r}",
                field="max_cost",
            )

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> JudgeBudget | None:
        """The budget among ``run_evals``'s options, or ``None`` when none is set."""
        given = {name: options.get(name) for name in BUDGET_LIMITS}
        if all(value is None for value in given.values()):
            return None
        return cls(**given)

    def to_dict(self) -> dict[str, float]:
        """The limits that are set, as JSON data."""
        return {name: getattr(self, name) for name in BUDGET_LIMITS if getattr(self, name)}


@dataclass(frozen=True)
class Ticket:
    """What one admitted call reserved: one call, an upper bound of its tokens and money.

    Attributes:
        tokens: the call's token bound.
        cost: its money bound in dollars (0 without a money budget).
        price: its model's price (``None`` without a money budget).
    """

    tokens: int
    cost: float = 0.0
    price: Price | None = None


class SpendingLedger:
    """What a run's judge calls spent and hold, against its :class:`JudgeBudget`.

    One per run, shared by the run's items (one event loop: no lock is needed, every method
    runs between two awaits).

    Args:
        budget: the limits.
        prices: the run's prices (the table and the user's overrides), read by a money
            budget; ``None``: the table alone.

    Attributes:
        budget: the limits.
        prices: the prices a money budget reads.
        calls: calls spent (cache hits excluded).
        tokens: prompt + completion tokens spent, as the provider reported them.
        cost: US dollars spent, the reported tokens at their model's price (counted under a
            money budget only; 0 otherwise).
        stopped_by: the limit that stopped the run (``None`` while it may go on).
    """

    def __init__(self, budget: JudgeBudget, prices: PriceTable | None = None) -> None:
        self.budget = budget
        self.prices = prices if prices is not None else PriceTable()
        self.calls = 0
        self.tokens = 0
        self.cost = 0.0
        self.stopped_by: str | None = None
        self._calls_held = 0
        self._tokens_held = 0
        self._cost_held = 0.0

    @classmethod
    def share(
        cls, budget: JudgeBudget, index: int, workers: int, prices: PriceTable | None = None
    ) -> SpendingLedger:
        """Process ``index``'s part of ``budget`` split between ``workers`` (pytest-xdist).

        Each call or token limit is split in equal parts, the first processes taking one more
        unit each until the remainder is gone, so the parts add up to the limit exactly; a
        money limit is split in equal parts. A process whose part of a limit is nothing holds
        no limit of that kind and starts stopped by it (its every call is refused), so its
        reported budget adds nothing.

        Example:
            >>> [SpendingLedger.share(JudgeBudget(max_judge_calls=3), i, 2).budget.to_dict()
            ...  for i in range(2)]
            [{'max_judge_calls': 2}, {'max_judge_calls': 1}]
        """
        parts: dict[str, int | None] = {}
        spent: list[str] = []
        for name in ("max_judge_calls", "max_judge_tokens"):
            value = getattr(budget, name)
            if value is None:
                parts[name] = None
                continue
            whole, left = divmod(value, workers)
            part = whole + (index < left)
            parts[name] = part or None
            if not part:
                spent.append(name)
        money = None if budget.max_cost is None else budget.max_cost / workers
        ledger = cls(JudgeBudget(**parts, max_cost=money), prices)
        if spent:
            ledger.stopped_by = spent[0]
        return ledger

    @property
    def exhausted(self) -> bool:
        """Whether a call was refused, or a limit is spent to the last unit."""
        if self.stopped_by is None:
            limit = self._spent_limit()
            if limit is not None:
                self.stopped_by = limit
        return self.stopped_by is not None

    def _spent_limit(self) -> str | None:
        calls, tokens = self.budget.max_judge_calls, self.budget.max_judge_tokens
        if calls is not None and self.calls >= calls:
            return "max_judge_calls"
        if tokens is not None and self.tokens >= tokens:
            return "max_judge_tokens"
        money = self.budget.max_cost
        if money is not None and round(self.cost, _CENT_DIGITS) >= money:
            return "max_cost"
        return None

    def admit(self, prompt_tokens: int, reply_budget: int | None, model: str = "") -> Ticket:
        """Reserve one call and its token and money bounds, or refuse it.

        Once a call was refused, every later one is too: the run is stopping.

        Args:
            prompt_tokens: an upper bound of the request's prompt (:func:`prompt_bound`).
            reply_budget: the request's ``max_tokens`` (``None``:
                :data:`UNBUDGETED_REPLY_TOKENS` are reserved).
            model: the request's model (``"provider/model"``), priced by :attr:`prices`
                under a money budget.

        Raises:
            JudgeBudgetError: the call could cross a limit, or a money budget has no price
                for ``model`` (the ledger is then exhausted).

        Example:
            >>> ledger = SpendingLedger(JudgeBudget(max_cost=0.01),
            ...                         PriceTable({"openai/m": [1.0, 2.0]}))
            >>> ticket = ledger.admit(1000, 500, "openai/m")  # up to $0.002
            >>> ledger.settle(ticket, JudgeUsage(calls=1, input_tokens=900, output_tokens=100))
            >>> round(ledger.cost, 6)
            0.0011
        """
        calls, tokens = self.budget.max_judge_calls, self.budget.max_judge_tokens
        if self.stopped_by is not None:
            limit = self.stopped_by
            self._refuse(limit, getattr(self.budget, limit) or 0, "the budget stopped the run")
        if calls is not None and self.calls + self._calls_held + 1 > calls:
            self._refuse("max_judge_calls", calls, f"{self.calls} calls spent")
        reply = UNBUDGETED_REPLY_TOKENS if reply_budget is None else reply_budget
        bound = prompt_tokens + reply
        if tokens is not None and self.tokens + self._tokens_held + bound > tokens:
            self._refuse(
                "max_judge_tokens",
                tokens,
                f"{self.tokens} tokens spent, {self._tokens_held} held by calls in flight, "
                f"this call needs up to {bound}",
            )
        price, money = self._money_bound(prompt_tokens, reply, model)
        self._calls_held += 1
        self._tokens_held += bound
        self._cost_held += money
        return Ticket(bound, money, price)

    def _money_bound(
        self, prompt_tokens: int, reply: int, model: str
    ) -> tuple[Price | None, float]:
        """The price of ``model`` and the call's money bound, or refuse the call."""
        money = self.budget.max_cost
        if money is None:
            return None, 0.0
        price = self.prices.price(model)
        if price is None:
            self.stopped_by = self.stopped_by or "max_cost"
            raise JudgeBudgetError(
                f"judge budget: max_cost {money} needs the price of the judge model {model!r}, "
                f"which has none; {PRICE_HOW}; no call sent",
                limit="max_cost",
                budget=money,
            )
        bound = price.cost(prompt_tokens, reply)
        if round(self.cost + self._cost_held + bound, _CENT_DIGITS) > money:
            self._refuse(
                "max_cost",
                money,
                f"{dollars_text(self.cost)} spent, {dollars_text(self._cost_held)} held by calls "
                f"in flight, this call needs up to {dollars_text(bound)}",
            )
        return price, bound

    def settle(self, ticket: Ticket, used: JudgeUsage) -> None:
        """Release ``ticket`` and count what the call spent (a cache hit: nothing)."""
        self._calls_held -= 1
        self._tokens_held -= ticket.tokens
        self._cost_held = max(0.0, self._cost_held - ticket.cost)
        if used.cache_hits:
            return
        self.calls += used.calls
        self.tokens += used.input_tokens + used.output_tokens
        if ticket.price is not None:
            self.cost += ticket.price.cost(used.input_tokens, used.output_tokens)

    def _refuse(self, limit: str, budget: float, why: str) -> NoReturn:
        self.stopped_by = self.stopped_by or limit
        raise JudgeBudgetError(
            f"judge budget: {limit} {budget} would be crossed ({why}); no call sent",
            limit=limit,
            budget=budget,
        )

    def to_dict(self) -> dict[str, Any]:
        """The stop as JSON data: the limit, the budget, what was spent.

        ``{"limit", "budget", "calls", "tokens"}``, and ``"cost"`` (US dollars) under a money
        budget.
        """
        found: dict[str, Any] = {
            "limit": self.stopped_by,
            "budget": self.budget.to_dict(),
            "calls": self.calls,
            "tokens": self.tokens,
        }
        if self.budget.max_cost is not None:
            found["cost"] = self.cost
        return found


def check_prices(budget: JudgeBudget | None, prices: PriceTable, models: Iterable[str]) -> None:
    """Refuse, before a run starts, a money budget over a judge model that has no price.

    Args:
        budget: the run's budget (``None``, or one without ``max_cost``: nothing to check).
        prices: the run's prices (the table and the user's overrides).
        models: the run's judge models (``"provider/model"``).

    Raises:
        ConfigError: a model has no price (``field="prices"``); the message names each such
            model and how to give its price.

    Example:
        >>> check_prices(JudgeBudget(max_cost=1.0), PriceTable(), ["openai/gpt-4o", "local/x"])
        >>> try:
        ...     check_prices(JudgeBudget(max_cost=1.0), PriceTable(), ["openrouter/x/y"])
        ... except ConfigError as exc:
        ...     print(exc.field, str(exc)[:76])
        prices max_cost needs the price of every judge model, and 'openrouter/x/y' has none
    """
    if budget is None or budget.max_cost is None:
        return
    missing = sorted({model for model in models if prices.price(model) is None})
    if missing:
        named = ", ".join(repr(model) for model in missing)
        raise ConfigError(
            f"max_cost needs the price of every judge model, and {named} "
            f"{'has' if len(missing) == 1 else 'have'} none: {PRICE_HOW}, in US dollars per "
            "million input and output tokens",
            field="prices",
        )


def budget_text(stop: Mapping[str, Any]) -> str:
    """A stored budget stop (:meth:`SpendingLedger.to_dict` + ``unscored``) in one sentence.

    The money spent is named when the stop holds it (a money budget, ``"cost"``).

    Example:
        >>> text = budget_text({"limit": "max_judge_calls", "budget": {"max_judge_calls": 7},
        ...                     "calls": 7, "tokens": 126, "unscored": 3})
        >>> text.split(": ", 1)[1]
        'max_judge_calls 7 (7 calls, 126 tokens spent); 3 items not scored'
        >>> budget_text({"limit": "max_cost", "budget": {"max_cost": 0.5}, "calls": 12,
        ...              "tokens": 3456, "cost": 0.0012, "unscored": 1}).split(": ", 1)[1]
        'max_cost 0.5 (12 calls, 3456 tokens, $0.0012 spent); 1 item not scored'
    """
    limit = str(stop.get("limit"))
    budget = stop.get("budget")
    value = budget.get(limit, "?") if isinstance(budget, Mapping) else "?"
    unscored = stop.get("unscored", 0)
    cost = stop.get("cost")
    money = f", {dollars_text(cost)}" if isinstance(cost, (int, float)) else ""
    return (
        f"stopped by its judge budget: {limit} {value} ({stop.get('calls', 0)} calls, "
        f"{stop.get('tokens', 0)} tokens{money} spent); {unscored} "
        f"item{'s' if unscored != 1 else ''} not scored"
    )


def stored_budget_text(config: Any) -> str | None:
    """:func:`budget_text` of a stored run's config, or ``None`` when no budget stopped it."""
    stop = config.get(BUDGET_STOP_KEY) if isinstance(config, Mapping) else None
    return budget_text(stop) if isinstance(stop, Mapping) else None


JUDGE_LEDGER: ContextVar[SpendingLedger | None] = ContextVar("scorekit_judge_ledger", default=None)
"""The running run's ledger; ``None`` outside a run with a budget."""


class SpendingModel:
    """The judge layer that counts every request (retries too) against :data:`JUDGE_LEDGER`.

    Args:
        inner: the model below (the rate limiter).
    """

    def __init__(self, inner: JudgeModel) -> None:
        self.inner = inner

    @property
    def model_id(self) -> str:
        """The inner model's id."""
        return self.inner.model_id

    def __repr__(self) -> str:
        return f"SpendingModel({self.inner!r})"

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Admit the request against the run's budget, send it, and count what it spent.

        Raises:
            JudgeBudgetError: the request could cross the budget; nothing was sent.
        """
        ledger = JUDGE_LEDGER.get()
        if ledger is None:
            return await self.inner.complete(request)
        bound = prompt_bound(message.content for message in request.messages)
        ticket = ledger.admit(bound, request.max_tokens, self.inner.model_id)
        try:
            response = await self.inner.complete(request)
        except BaseException:
            ledger.settle(ticket, JudgeUsage(calls=1))  # sent: it counts, tokens unknown
            raise
        spent = JudgeUsage(
            calls=1, input_tokens=response.input_tokens, output_tokens=response.output_tokens
        )
        ledger.settle(ticket, spent)
        return response
