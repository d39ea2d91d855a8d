"""The viewer's addresses: query parameters read into filters, and filters written back.

Reading is strict: a bad value is a :class:`~scorekit.errors.ConfigError` naming the parameter
(the page answers 400 with the message), never a silent default. Empty values mean "not set",
as an HTML form sends them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import date
from typing import get_args
from urllib.parse import urlencode

from scorekit.errors import ConfigError
from scorekit.results import Status
from scorekit.store.records import RUN_SOURCES
from scorekit.view.comparison import PairFilter, Show
from scorekit.view.paging import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE
from scorekit.view.queries import ItemFilter, ItemSort, RunFilter

__all__ = [
    "address",
    "item_filter",
    "item_sort",
    "page_number",
    "page_size",
    "pair_filter",
    "run_filter",
    "sort_value",
]

_STATUSES: tuple[Status, ...] = get_args(Status)
_SHOWS: tuple[Show, ...] = get_args(Show)
_MAX_TEXT = 500  # characters of a search text


def _text(params: Mapping[str, str], name: str) -> str | None:
    value = params.get(name, "").strip()
    if len(value) > _MAX_TEXT:
        raise ConfigError(f"{name}: at most {_MAX_TEXT} characters", field=name)
    return value or None


def _int(params: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = _text(params, name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, not {raw!r}", field=name) from None
    if not low <= value <= high:
        raise ConfigError(f"{name} must be from {low} to {high}, not {value}", field=name)
    return value


def _float(params: Mapping[str, str], name: str) -> float | None:
    raw = _text(params, name)
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number, not {raw!r}", field=name) from None
    if not math.isfinite(value):
        raise ConfigError(f"{name} must be a finite number, not {raw!r}", field=name)
    return value


def _date(params: Mapping[str, str], name: str) -> date | None:
    raw = _text(params, name)
    if raw is None:
        return None
    try:
        day = date.fromisoformat(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a day as YYYY-MM-DD, not {raw!r}", field=name) from None
    if day == date.max:  # the day after it (the end of an ``until`` day) does not exist
        raise ConfigError(f"{name} must be a day before {date.max}, not {raw!r}", field=name)
    return day


def _scorer(params: Mapping[str, str], name: str, scorer_ids: Sequence[str]) -> str | None:
    raw = _text(params, name)
    if raw is not None and raw not in scorer_ids:
        known = ", ".join(scorer_ids) or "none"
        raise ConfigError(f"{name}: {raw!r} is not a scorer of this run ({known})", field=name)
    return raw


def page_number(params: Mapping[str, str]) -> int:
    """``?page=``: from 1 (default 1).

    Raises:
        ConfigError: not a whole number from 1 (``field="page"``).
    """
    return _int(params, "page", 1, 1, 10**9)


def page_size(params: Mapping[str, str]) -> int:
    """``?size=``: rows per page, 1 to :data:`~scorekit.view.paging.MAX_PAGE_SIZE`.

    Raises:
        ConfigError: out of range (``field="size"``).
    """
    return _int(params, "size", DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE)


def run_filter(params: Mapping[str, str]) -> RunFilter:
    """``?name=&source=&since=&until=`` of the runs page.

    Raises:
        ConfigError: an unknown source or a malformed day (the field names the parameter).
    """
    source = _text(params, "source")
    if source is not None:
        source = source.upper()
        if source not in RUN_SOURCES:
            raise ConfigError(
                f"source must be one of {', '.join(RUN_SOURCES)}, not {source!r}", field="source"
            )
    since, until = _date(params, "since"), _date(params, "until")
    if since is not None and until is not None and since > until:
        raise ConfigError(f"since ({since}) is after until ({until})", field="since")
    return RunFilter(name=_text(params, "name"), source=source, since=since, until=until)


def item_filter(params: Mapping[str, str], scorer_ids: Sequence[str]) -> ItemFilter:
    """``?scorer=&status=&min=&max=&q=`` of a run's items table.

    Raises:
        ConfigError: an unknown scorer or status, a bad number, or ``min > max``.
    """
    status = _text(params, "status")
    if status is not None and status not in _STATUSES:
        raise ConfigError(
            f"status must be one of {', '.join(_STATUSES)}, not {status!r}", field="status"
        )
    low, high = _float(params, "min"), _float(params, "max")
    if low is not None and high is not None and low > high:
        raise ConfigError(f"min ({low:g}) is above max ({high:g})", field="min")
    return ItemFilter(
        scorer=_scorer(params, "scorer", scorer_ids),
        status=next((s for s in _STATUSES if s == status), None),
        min_score=low,
        max_score=high,
        text=_text(params, "q"),
    )


def item_sort(params: Mapping[str, str], scorer_ids: Sequence[str]) -> ItemSort:
    """``?sort=&order=`` of a run's items table.

    ``sort`` is empty (the written order), ``id`` or ``score:<scorer id>``; ``order`` is ``asc``
    (the default) or ``desc``.

    Raises:
        ConfigError: an unknown sort, scorer or order.
    """
    raw = _text(params, "sort")
    order = _text(params, "order") or "asc"
    if order not in ("asc", "desc"):
        raise ConfigError(f"order must be asc or desc, not {order!r}", field="order")
    descending = order == "desc"
    if raw is None or raw == "written":
        return ItemSort("written", None, descending)
    if raw == "id":
        return ItemSort("id", None, descending)
    if raw.startswith("score:"):
        scorer = _scorer({"sort": raw.removeprefix("score:")}, "sort", scorer_ids)
        return ItemSort("score", scorer, descending)
    raise ConfigError(f"sort must be empty, 'id' or 'score:<scorer id>', not {raw!r}", field="sort")


def sort_value(order: ItemSort) -> str:
    """The ``?sort=`` value of an order (``""`` for the written order)."""
    if order.key == "score":
        return f"score:{order.scorer}"
    return "" if order.key == "written" else order.key


def pair_filter(params: Mapping[str, str], scorer_ids: Sequence[str]) -> PairFilter:
    """``?scorer=&show=`` of the compare page.

    Raises:
        ConfigError: an unknown scorer, or ``show`` not ``all``, ``regressed`` or ``changed``.
    """
    show = _text(params, "show") or "all"
    chosen = next((s for s in _SHOWS if s == show), None)
    if chosen is None:
        raise ConfigError(f"show must be one of {', '.join(_SHOWS)}, not {show!r}", field="show")
    return PairFilter(scorer=_scorer(params, "scorer", scorer_ids), show=chosen)


def address(path: str, params: Mapping[str, object | None]) -> str:
    """``path`` with the set parameters as a query string (``None`` and ``""`` left out).

    Example:
        >>> address("/runs/x", {"page": 2, "q": "a&b", "status": None})
        '/runs/x?page=2&q=a%26b'
    """
    kept = {k: str(v) for k, v in params.items() if v is not None and v != ""}
    return f"{path}?{urlencode(kept)}" if kept else path
