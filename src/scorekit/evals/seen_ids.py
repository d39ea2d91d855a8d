"""``SeenIds``: the item ids a run has read, in 36 to 72 bytes per id.

A run must know every id it read, to turn a repeated one into an error item
(:class:`~scorekit.evals.source.ItemSource`). A ``dict`` of the id strings costs about 100
bytes per id, and over a run of a million items that was the largest part of the driver's
growth. This set keeps a 128-bit BLAKE2b digest of each id instead, with a number the caller
gives the id's first occurrence (where it was read), in three packed ``array("q")`` columns
(open addressing, linear probing, at most two thirds full). Two ids share a digest with
probability about ``n**2 / 2**129`` (10**-27 for a million ids), which the set treats as nil:
equal digests mean the same id.

Ground floor: the standard library only.

Example:
    >>> seen = SeenIds()
    >>> seen.add("a"), seen.add("b"), seen.add("a")
    (1, 1, 2)
    >>> "b" in seen, "c" in seen, len(seen)
    (True, False, 2)
    >>> seen.add("d", place=7), seen.add("d", place=9), seen.place("d"), seen.place("e")
    (1, 2, 7, 0)
"""

from __future__ import annotations

import hashlib
from array import array

__all__ = ["SeenIds"]

_EMPTY = 0  # no digest is (0, 0): the second half always has its lowest bit set


def _digest(item_id: str) -> tuple[int, int]:
    raw = hashlib.blake2b(item_id.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    return int.from_bytes(raw[:8], "little", signed=True), int.from_bytes(
        raw[8:], "little", signed=True
    ) | 1


class SeenIds:
    """A set of item ids that counts repeats (see the module).

    Args:
        capacity: ids expected (the table grows past it as needed), >= 1.

    Ids that occur more than once keep their count in a small dict of their own: repeats are
    the rare case (each one becomes an error item).
    """

    def __init__(self, capacity: int = 1024) -> None:
        self._size = 0
        self._repeats: dict[str, int] = {}
        self._allocate(1 << max(4, (max(1, capacity) * 3 // 2).bit_length()))

    def _allocate(self, slots: int) -> None:
        self._first = array("q", bytes(8 * slots))
        self._second = array("q", bytes(8 * slots))
        self._places = array("q", bytes(8 * slots))
        self._mask = slots - 1

    def __len__(self) -> int:
        """Distinct ids added."""
        return self._size

    def _find(self, first: int, second: int) -> tuple[int, bool]:
        """The slot of a digest and whether it is there (else the empty slot it would take)."""
        firsts, seconds, mask = self._first, self._second, self._mask
        slot = second & mask
        while True:
            found = seconds[slot]
            if found == _EMPTY:
                return slot, False
            if found == second and firsts[slot] == first:
                return slot, True
            slot = (slot + 1) & mask

    def __contains__(self, item_id: object) -> bool:
        """Whether ``item_id`` was added."""
        return isinstance(item_id, str) and self._find(*_digest(item_id))[1]

    def place(self, item_id: str) -> int:
        """The ``place`` given with the first occurrence of ``item_id`` (0 when not added)."""
        slot, present = self._find(*_digest(item_id))
        return self._places[slot] if present else 0

    def add(self, item_id: str, place: int = 0) -> int:
        """Add one occurrence of ``item_id``; return how many there are now (1 the first time).

        Args:
            item_id: the id.
            place: a 64-bit integer kept with the first occurrence (:meth:`place`): where it
                was read, in the caller's terms.
        """
        first, second = _digest(item_id)
        slot, present = self._find(first, second)
        if present:
            count = self._repeats.get(item_id, 1) + 1
            self._repeats[item_id] = count
            return count
        self._first[slot], self._second[slot], self._places[slot] = first, second, place
        self._size += 1
        if self._size * 3 > (self._mask + 1) * 2:
            self._grow()
        return 1

    def _grow(self) -> None:
        firsts, seconds, places = self._first, self._second, self._places
        self._allocate((self._mask + 1) * 2)
        for first, second, place in zip(firsts, seconds, places, strict=True):
            if second != _EMPTY:
                slot, _ = self._find(first, second)  # the digests are distinct: an empty slot
                self._first[slot], self._second[slot], self._places[slot] = first, second, place
