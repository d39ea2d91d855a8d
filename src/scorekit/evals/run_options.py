"""The keyword options of ``run_evals`` and ``run_evals_sync``, declared once.

Both functions take ``**options: Unpack[RunEvalsOptions]``, so a type checker knows every
option of both from this one declaration, and the run's wiring reads them from one mapping.
What each option does is documented on :func:`scorekit.evals.run_evals`. A name that is not
an option is refused at run time as Python refuses an unknown keyword argument.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from scorekit.items import EvalItem, Target
from scorekit.judge.prices import PriceTable
from scorekit.results import ScorerRunResult

if TYPE_CHECKING:
    from scorekit.evals.executor import Executor
    from scorekit.store.store import Store

__all__ = ["ItemCallback", "RunEvalsOptions", "check_option_names"]

ItemCallback = Callable[[EvalItem, Any, dict[str, ScorerRunResult]], Any]
"""``on_item_complete(item, output, scorer_results)``, sync or async."""


class RunEvalsOptions(TypedDict, total=False):
    """The options of :func:`~scorekit.evals.run_evals` (its docstring says what each does)."""

    target: Target | None
    concurrency: int | None
    executor: Executor | None
    on_item_complete: ItemCallback | None
    thresholds: Mapping[str, float] | None
    max_error_rate: float | Mapping[str, float] | None
    min_agreement: Mapping[str, Mapping[str, Any]] | None
    trials: int
    max_judge_calls: int | None
    max_judge_tokens: int | None
    max_cost: float | None
    prices: Mapping[str, Any] | PriceTable | None
    store: Store | str | Path | None
    resume: str | None
    run_id: str | None
    run_name: str | None
    keep_items: bool
    config: Mapping[str, Any] | None
    scorer_timeout: float | None
    target_timeout: float | None
    max_text_chars: int | None
    progress: bool | None


OPTION_NAMES = frozenset(RunEvalsOptions.__annotations__)


def check_option_names(options: Mapping[str, Any]) -> None:
    """Refuse a keyword that is not an option, as Python refuses an unknown argument.

    Raises:
        TypeError: ``run_evals() got an unexpected keyword argument 'NAME'`` for the first
            unknown name (in sorted order).
    """
    unknown = sorted(set(options) - OPTION_NAMES)
    if unknown:
        raise TypeError(f"run_evals() got an unexpected keyword argument {unknown[0]!r}")
