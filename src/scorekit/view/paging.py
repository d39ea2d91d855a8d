"""``Page``: one page of a longer list, as the viewer's tables show it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["DEFAULT_PAGE_SIZE", "MAX_PAGE_SIZE", "Page"]

DEFAULT_PAGE_SIZE = 50
"""Rows per page unless the address asks for another number (``?size=``)."""

MAX_PAGE_SIZE = 500
"""The most rows one page may hold."""

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    """Rows ``offset`` to ``offset + len(rows)`` of ``total``.

    Attributes:
        rows: the page's rows.
        number: the page number, from 1.
        size: rows per page, >= 1.
        total: rows in the whole list (after filters).
    """

    rows: Sequence[T]
    number: int
    size: int
    total: int

    @property
    def offset(self) -> int:
        """Rows before this page."""
        return (self.number - 1) * self.size

    @property
    def pages(self) -> int:
        """Pages in the whole list (at least 1, so an empty list has one empty page)."""
        return max(1, -(-self.total // self.size))

    @property
    def first_row(self) -> int:
        """The 1-based number of the page's first row (0 for an empty page)."""
        return self.offset + 1 if self.rows else 0

    @property
    def last_row(self) -> int:
        """The 1-based number of the page's last row (0 for an empty page)."""
        return self.offset + len(self.rows)
