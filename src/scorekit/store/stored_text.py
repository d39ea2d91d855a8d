"""Stored texts are capped: a longer text keeps its beginning, its full length and its SHA-256.

A result row holds the item's texts (input, output, ground truth, context), the prompts sent
to the judge, the step results and any raw reply, once per scorer; ``--out``, the HTML report
and the viewer show them again. Without a cap one 50 MB record added 300 MB to the database, a
300 MB ``--out`` and a 100 MB report. So every string stored or written is cut to
:data:`STORED_TEXT_CHARS` characters, followed by a note that says it was cut, how long the
whole text was and its SHA-256 (of its UTF-8 bytes, lone surrogates as such), so the text
scored can still be identified::

    <first 100,000 characters>… [cut by scorekit: 52,428,800 characters in all, sha256 9f2c…]

Scoring is not affected: scorers see whole texts (up to the run's ``max_text_chars``,
:mod:`scorekit.evals.text_limits`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

__all__ = [
    "STORED_LIST_ITEMS",
    "STORED_TEXT_CHARS",
    "capped",
    "cut_list",
    "cut_text",
    "text_sha256",
]

STORED_TEXT_CHARS = 100_000
"""Characters of one text a store row, an ``--out`` line or a report keeps."""

STORED_LIST_ITEMS = 10_000
"""Items of one list a store row, an ``--out`` line or a report keeps (the rest are counted)."""


def cut_text(text: str, limit: int = STORED_TEXT_CHARS) -> str:
    """``text``, or its first ``limit`` characters and a note of its length and SHA-256.

    Example:
        >>> cut_text("abcdef", 3)  # doctest: +ELLIPSIS
        'abc… [cut by scorekit: 6 characters in all, sha256 bef57ec7f53a6d40...]'
        >>> cut_text("abc", 3)
        'abc'
    """
    if len(text) <= limit:
        return text
    digest = text_sha256(text)
    return f"{text[:limit]}… [cut by scorekit: {len(text):,} characters in all, sha256 {digest}]"


def text_sha256(text: str) -> str:
    """The SHA-256 of ``text``'s UTF-8 bytes (lone surrogates as such), in hex."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def cut_list(items: list[Any], limit: int = STORED_LIST_ITEMS) -> list[Any]:
    """``items``, or its first ``limit`` items and a note of how many there were.

    Example:
        >>> cut_list([1, 2, 3], 2)
        [1, 2, '… [cut by scorekit: 3 items in all]']
    """
    if len(items) <= limit:
        return items
    return [*items[:limit], f"… [cut by scorekit: {len(items):,} items in all]"]


def capped(value: Any, limit: int = STORED_TEXT_CHARS) -> Any:
    """``value`` with its long strings (keys too) and lists cut.

    Strings are cut by :func:`cut_text`, lists by :func:`cut_list`; lists, tuples and mappings
    are walked. Returns ``value`` itself when nothing in it is too long; otherwise a copy
    (tuples become lists, mappings dicts) with the long strings and lists cut.
    """
    if isinstance(value, str):
        return cut_text(value, limit) if len(value) > limit else value
    if isinstance(value, Mapping):
        items = {
            (cut_text(key, limit) if isinstance(key, str) else key): capped(item, limit)
            for key, item in value.items()
        }
        if len(items) == len(value) and all(
            key in value and items[key] is value[key] for key in items
        ):
            return value
        return items
    if isinstance(value, (list, tuple)):
        parts = [capped(item, limit) for item in cut_list(list(value))]
        if len(parts) == len(value) and all(
            new is old for new, old in zip(parts, value, strict=True)
        ):
            return value
        return parts
    return value
