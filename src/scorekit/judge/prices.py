"""What a judge model's tokens cost: the pinned price table and the user's overrides.

A price is US dollars per million tokens, one figure for prompt (input) tokens and one for
completion (output) tokens, as the providers list them for their standard (not batch, not
cached-input) API. The money of a run is ``input_tokens × input + output_tokens × output``
over one million, per judge model: a reply served by scorekit's judge cache bills no tokens and
costs nothing; a provider's own prompt-cache discount is not modelled (an upper bound there).

:data:`PRICE_TABLE` holds the list prices of the common hosted judges as of
:data:`PRICES_AS_OF` (docs/cost.md names the sources). Prices change: a user gives their own
with ``prices`` (``run_evals``, ``estimate_run``, the config file) or ``--price MODEL=IN,OUT``;
an override wins over the table. A ``local/`` judge (llama.cpp on this machine) and the
``test`` provider cost nothing. Any other model without a price has none: its money is shown
as unknown, never as zero, and a money budget refuses to start without it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scorekit.errors import ConfigError

__all__ = [
    "FREE_PROVIDERS",
    "PRICES_AS_OF",
    "PRICES_KEY",
    "PRICE_TABLE",
    "Price",
    "PriceTable",
    "parse_price",
    "resumed_prices",
    "stored_prices",
]

PRICES_AS_OF = "2026-03"
"""When the table's list prices were taken (docs/cost.md: sources)."""

_TABLE_SOURCE = f"list price, {PRICES_AS_OF}"


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens of one judge model.

    Attributes:
        input_per_mtok: dollars per million prompt tokens, finite and >= 0.
        output_per_mtok: dollars per million completion tokens, finite and >= 0.
        source: where the figure comes from (``"list price, 2026-03"``, ``"--price"``,
            ``"config"``, ``"local model"``).

    Raises:
        ConfigError: a figure that is not a finite number >= 0 (``field="prices"``).
    """

    input_per_mtok: float
    output_per_mtok: float
    source: str = "user"

    def __post_init__(self) -> None:
        for name in ("input_per_mtok", "output_per_mtok"):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
                or value < 0
            ):
                raise ConfigError(
                    f"a price's {name} must be a finite number >= 0 (dollars per million "
                    f"tokens), not {value!r}",
                    field="prices",
                )

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """Dollars for ``input_tokens`` prompt and ``output_tokens`` completion tokens.

        Example:
            >>> Price(0.15, 0.60).cost(1_000_000, 500_000)
            0.45
        """
        dollars = input_tokens * self.input_per_mtok + output_tokens * self.output_per_mtok
        return dollars / 1_000_000

    def to_dict(self) -> dict[str, Any]:
        """The price as JSON data (what a stored run keeps)."""
        return {
            "input_per_mtok": self.input_per_mtok,
            "output_per_mtok": self.output_per_mtok,
            "source": self.source,
        }

    @classmethod
    def from_value(cls, value: Any, source: str) -> Price:
        """A price from ``{"input_per_mtok", "output_per_mtok"}``, ``[IN, OUT]`` or a Price.

        Raises:
            ConfigError: any other shape, or a bad figure (``field="prices"``).
        """
        if isinstance(value, Price):
            return value
        if isinstance(value, Mapping):
            unknown = sorted(set(value) - {"input_per_mtok", "output_per_mtok", "source"})
            if unknown or "input_per_mtok" not in value or "output_per_mtok" not in value:
                raise ConfigError(
                    "a price is {input_per_mtok: N, output_per_mtok: N} (dollars per million "
                    f"tokens), not {dict(value)!r}",
                    field="prices",
                )
            return cls(
                value["input_per_mtok"],
                value["output_per_mtok"],
                str(value.get("source", source)),
            )
        if isinstance(value, (list, tuple)) and len(value) == 2:
            return cls(value[0], value[1], source)
        raise ConfigError(
            f"a price is [input, output] dollars per million tokens, not {value!r}",
            field="prices",
        )


def _listed(input_per_mtok: float, output_per_mtok: float) -> Price:
    return Price(input_per_mtok, output_per_mtok, _TABLE_SOURCE)


PRICE_TABLE: Mapping[str, Price] = {
    "openai/gpt-5": _listed(1.25, 10.00),
    "openai/gpt-5-mini": _listed(0.25, 2.00),
    "openai/gpt-5-nano": _listed(0.05, 0.40),
    "openai/gpt-4.1": _listed(2.00, 8.00),
    "openai/gpt-4.1-mini": _listed(0.40, 1.60),
    "openai/gpt-4.1-nano": _listed(0.10, 0.40),
    "openai/gpt-4o": _listed(2.50, 10.00),
    "openai/gpt-4o-mini": _listed(0.15, 0.60),
    "openai/o3": _listed(2.00, 8.00),
    "openai/o3-mini": _listed(1.10, 4.40),
    "openai/o4-mini": _listed(1.10, 4.40),
    "anthropic/claude-opus-4-1": _listed(15.00, 75.00),
    "anthropic/claude-sonnet-4-5": _listed(3.00, 15.00),
    "anthropic/claude-sonnet-4": _listed(3.00, 15.00),
    "anthropic/claude-haiku-4-5": _listed(1.00, 5.00),
    "anthropic/claude-3-7-sonnet": _listed(3.00, 15.00),
    "anthropic/claude-3-5-haiku": _listed(0.80, 4.00),
}
"""List prices of common hosted judges (standard tier, dollars per million tokens), by the
model string a user writes. A dated snapshot (``gpt-4o-mini-2024-07-18``,
``claude-sonnet-4-5-20250929``) or ``-latest`` takes its model's price."""

FREE_PROVIDERS = frozenset({"local", "test"})
"""Providers whose calls cost no money: the in-process llama.cpp judge and the scripted one."""

_SNAPSHOT = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|latest)$")


def parse_price(text: str) -> tuple[str, Price]:
    """``MODEL=IN,OUT`` (``--price``) as the model and its price.

    Example:
        >>> parse_price("openai/gpt-4o-mini=0.15,0.6")
        ('openai/gpt-4o-mini', Price(input_per_mtok=0.15, output_per_mtok=0.6, source='--price'))

    Raises:
        ConfigError: another shape, or figures that are not finite numbers >= 0
            (``field="--price"``).
    """
    model, sep, figures = text.rpartition("=")
    parts = figures.split(",")
    if not sep or not model.strip() or "/" not in model or "=" in model or len(parts) != 2:
        raise ConfigError(
            f"--price takes MODEL=IN,OUT (provider/model, then dollars per million prompt "
            f"and completion tokens), not {text!r}",
            field="--price",
        )
    try:
        values = [float(part) for part in parts]
    except ValueError:
        raise ConfigError(
            f"--price {text!r}: IN and OUT must be numbers (dollars per million tokens)",
            field="--price",
        ) from None
    try:
        return model.strip(), Price(values[0], values[1], "--price")
    except ConfigError as exc:
        raise ConfigError(f"--price {text!r}: {exc}", field="--price") from None


class PriceTable:
    """The prices a run uses: the user's overrides over :data:`PRICE_TABLE`.

    Args:
        overrides: model string → price (a :class:`Price`, ``{input_per_mtok,
            output_per_mtok}`` or ``[IN, OUT]``); ``None`` for the table alone.
        source: the source recorded for overrides given without one (``"config"``).

    Raises:
        ConfigError: an override key that is not a ``provider/model`` string, or a bad price
            (``field="prices"``).
    """

    def __init__(self, overrides: Mapping[str, Any] | None = None, *, source: str = "user") -> None:
        if overrides is not None and not isinstance(overrides, Mapping):
            raise ConfigError(
                "prices map each judge model (provider/model) to its price, not "
                f"{type(overrides).__name__}",
                field="prices",
            )
        self.overrides: dict[str, Price] = {}
        for model, value in (overrides or {}).items():
            if not isinstance(model, str) or "/" not in model:
                raise ConfigError(
                    f"prices are keyed by the judge's model string (provider/model), not {model!r}",
                    field="prices",
                )
            self.overrides[model] = Price.from_value(value, source)

    def price(self, model: str) -> Price | None:
        """The price of ``model`` (a ``provider/model`` string), or ``None`` when unknown.

        An override wins; then the table, the model itself or the model its dated snapshot
        name stands for; a ``local/`` or ``test/`` model costs nothing.

        Example:
            >>> PriceTable().price("openai/gpt-4o-mini-2024-07-18").output_per_mtok
            0.6
            >>> PriceTable().price("openrouter/meta-llama/llama-3.1-8b") is None
            True
        """
        for name in (model, _SNAPSHOT.sub("", model)):
            found = self.overrides.get(name) or PRICE_TABLE.get(name)
            if found is not None:
                return found
        if model.split("/", 1)[0] in FREE_PROVIDERS:
            return Price(0.0, 0.0, "local model")
        return None

    def overrides_price_of(self, model: str) -> bool:
        """Whether an override names ``model`` or the model its dated snapshot stands for."""
        return model in self.overrides or _SNAPSHOT.sub("", model) in self.overrides

    def with_stored(self, stored: Mapping[str, Price]) -> PriceTable:
        """This table for a resumed run: its stored prices beneath this invocation's overrides.

        A model keeps its stored price unless an override covers it
        (:meth:`overrides_price_of`), the rule :func:`resumed_prices` stores by.

        Example:
            >>> stored = {"openai/gpt-4o-2024-08-06": Price(9, 9, "stored")}
            >>> given = PriceTable({"openai/gpt-4o": [1, 2]}, source="--price")
            >>> given.with_stored(stored).price("openai/gpt-4o-2024-08-06").source
            '--price'
            >>> PriceTable().with_stored(stored).price("openai/gpt-4o-2024-08-06").source
            'stored'
        """
        kept = {m: price for m, price in stored.items() if not self.overrides_price_of(m)}
        table = PriceTable()
        table.overrides = {**kept, **self.overrides}
        return table

    def prices_of(self, models: list[str]) -> dict[str, Price]:
        """The known prices of ``models``, by model (unknown ones left out)."""
        found = {model: self.price(model) for model in models}
        return {model: price for model, price in found.items() if price is not None}

    def to_stored(self, models: list[str]) -> dict[str, dict[str, Any]]:
        """What a stored run keeps under :data:`PRICES_KEY`: each priced model's price.

        Example:
            >>> PriceTable({"openai/m": [1, 2]}, source="config").to_stored(["openai/m", "x/y"])
            {'openai/m': {'input_per_mtok': 1, 'output_per_mtok': 2, 'source': 'config'}}
        """
        return {model: price.to_dict() for model, price in self.prices_of(models).items()}


PRICES_KEY = "prices"
"""The key of a stored run's config holding the prices it ran with (model → price dict)."""


def stored_prices(config: Any) -> dict[str, Price] | None:
    """The prices a stored run ran with (model → price), read from its config.

    ``None`` for a run stored before prices were kept (its cost is unknown). An entry that is
    not a price (a damaged row) is left out: that model reads as unpriced, never as free.

    Example:
        >>> stored_prices({"prices": {"openai/m": {"input_per_mtok": 1, "output_per_mtok": 2}}})
        {'openai/m': Price(input_per_mtok=1, output_per_mtok=2, source='stored')}
        >>> stored_prices({"model": "openai/m"}) is None
        True
    """
    found = config.get(PRICES_KEY) if isinstance(config, Mapping) else None
    if not isinstance(found, Mapping):
        return None
    prices: dict[str, Price] = {}
    for model, value in found.items():
        try:
            prices[str(model)] = Price.from_value(value, "stored")
        except ConfigError:
            continue
    return prices


def resumed_prices(stored: Any, table: PriceTable, models: list[str]) -> dict[str, dict[str, Any]]:
    """The prices a resumed run keeps (:data:`PRICES_KEY`), given those it stored.

    A model keeps its stored price unless this invocation gives it one of its own (an
    override: ``--price``, ``prices:``, ``prices=``); a model stored without a price takes this
    invocation's. So the cost of the results already stored is read at the price they ran
    with, unless the user corrects it.

    Args:
        stored: the stored run's ``prices`` (model → price dict), or ``None``.
        table: this invocation's prices.
        models: the run's judge models.

    Example:
        >>> stored = {"openai/gpt-4o": {"input_per_mtok": 9, "output_per_mtok": 9}}
        >>> kept = resumed_prices(stored, PriceTable(), ["openai/gpt-4o", "openai/gpt-4o-mini"])
        >>> [(m, p["input_per_mtok"]) for m, p in sorted(kept.items())]
        [('openai/gpt-4o', 9), ('openai/gpt-4o-mini', 0.15)]
        >>> given = PriceTable({"openai/gpt-4o": [1, 2]}, source="--price")
        >>> resumed_prices(stored, given, ["openai/gpt-4o"])["openai/gpt-4o"]["source"]
        '--price'
    """
    now = table.to_stored(models)
    kept = dict(stored) if isinstance(stored, Mapping) else {}
    merged = {**now, **{model: kept[model] for model in models if model in kept}}
    for model in now:
        if table.overrides_price_of(model):
            merged[model] = now[model]
    return merged
