"""The run's per-field text limit: a longer text is refused before any scorer sees it.

A scorer's memory grows with its input (``benchmarks/bench_memory.py`` measures each code
scorer's peak per MB of text: up to about 140 MB per MB for completeness, whose parser keeps a
node per token), and a run holds an item's texts while all its scorers, and any scorer thread
abandoned past ``scorer_timeout``, still work on them. So every item field is measured before
scoring (its text, or its messages', pieces' and values' text added up), and the target's
output as it returns: a field longer than ``max_text_chars`` makes the item an ``error`` of
type :class:`~scorekit.errors.TextLimitError` naming the field, its length and the limit, for
every scorer, and the run goes on.

The default, :data:`DEFAULT_MAX_TEXT_CHARS`, is a million characters (about 250 pages), above
any answer, document or conversation a judge's context window holds; ``None`` (``0`` on the
command line) lifts the limit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from scorekit.errors import ConfigError, TextLimitError

__all__ = ["DEFAULT_MAX_TEXT_CHARS", "check_max_text_chars", "text_length", "text_limit_error"]

DEFAULT_MAX_TEXT_CHARS = 1_000_000
"""Characters one item field may hold (its strings added up) unless the run says otherwise."""


def check_max_text_chars(value: Any) -> int | None:
    """Validate a ``max_text_chars`` option: an integer ≥ 1, or ``None`` (no limit).

    Raises:
        ConfigError: anything else (``field="max_text_chars"``).
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(
            f"max_text_chars must be an integer >= 1 or None (no limit), not {value!r}",
            field="max_text_chars",
        )
    return value


def text_length(value: Any, stop: int | None = None) -> int:
    """The characters of ``value``, its values added up.

    Strings count their length, numbers their text (``12.5``: 4), a message list its contents'
    values. Walks lists, tuples and mappings (their values; keys are field names); any other object
    counts as one character.

    Args:
        value: an item field's value.
        stop: stop counting once past this many (the result is then ``> stop``).
    """
    if isinstance(value, str):
        return len(value)
    total = 0
    pending: list[Any] = [value]
    while pending:
        current = pending.pop()
        if isinstance(current, str):
            total += len(current)
        elif isinstance(current, Mapping):
            pending.extend(current.values())
        elif isinstance(current, (list, tuple)):
            pending.extend(current)
        elif isinstance(current, (int, float)):
            total += len(repr(current))
        elif current is not None:
            total += 1
        if stop is not None and total > stop:
            break
    return total


def text_limit_error(fields: Iterable[tuple[str, Any]], limit: int | None) -> TextLimitError | None:
    """The error for the first of ``fields`` (name, value) longer than ``limit``, else ``None``.

    Args:
        fields: the item's fields, as (name, value) pairs.
        limit: ``max_text_chars``; ``None`` checks nothing.
    """
    if limit is None:
        return None
    for name, value in fields:
        if value is None:
            continue
        length = text_length(value, stop=limit)
        if length > limit:
            length = text_length(value)
            return TextLimitError(
                f"field {name!r} holds {length:,} characters, over the run's limit of "
                f"{limit:,} (max_text_chars; give a larger one, or None, to score it)",
                field=name,
                length=length,
                limit=limit,
            )
    return None
