"""Where compromise's post-tagger rules may match, in many clauses at once, with bit masks.

compromise runs its post-tagger rules clause by clause: a rule is tried on a clause that has
all of the rule's required words and tags ("needs"), enough of its optional ones ("wants"),
none of its ``ifNo`` keys and one of the keys compromise's rule index lists it under; then the
rule is matched from each word of the clause. Doing that clause by clause costs a few dozen
Python operations per rule and clause. :class:`Batch` does it for a whole list of clauses with
integer bit operations, rule by rule:

* the clauses are laid end to end, word ``p`` of the batch at bit ``p`` of a *word mask*; a key
  (a word, ``#Tag`` or ``%Switch%``) has the word mask of the words carrying it;
* a *clause mask* has bit ``c`` for clause ``c``: the clauses where a key occurs, where a rule
  may run (its needs and-ed, its wants counted, its index keys or-ed, its ``ifNo`` keys masked
  out, its minimum length);
* the words a match may start at are computed from the keyed tokens at fixed offsets from the
  start (:attr:`scorekit.text.ruledata.Rule.checks`) as in one clause: ``found >> offset`` puts
  on word ``s`` whether word ``s + offset`` carries the key, and-ed with the words ``s`` whose
  clause reaches ``s + offset`` (no match crosses the end of a clause).

Only the starts in a clause where the rule may run are handed to the matcher, in the order and
with the results clause-by-clause matching gives (:func:`scorekit.text.postrules`). Every mask
operation is linear in the batch's length and there is a fixed number per rule, so the work is
linear in the text.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence

from scorekit.text.ruledata import END, Rule, rule_keys, want_floor
from scorekit.text.rulematch import MAX_RUN
from scorekit.text.term import Term

__all__ = ["Batch", "set_bits"]

_TO_DIGITS = bytes.maketrans(b"\x00\x01", b"01")
_SMALL = 256
"""Masks of at most this many bits are read bit by bit; longer ones through their digits."""


def _from_flags(flags: bytearray) -> int:
    """The mask whose bit ``k`` is ``flags[k]`` (each 0 or 1), in time linear in its length."""
    return int(flags.translate(_TO_DIGITS)[::-1], 2) if flags else 0


def _from_positions(positions: Iterable[int], size: int) -> int:
    """The mask with the bits of ``positions`` set (``size``: the mask's length), in O(size).

    The bits are packed eight to a byte and read as one little-endian integer.
    """
    packed = bytearray((size + 7) >> 3)
    for pos in positions:
        packed[pos >> 3] |= 1 << (pos & 7)
    return int.from_bytes(packed, "little")


def set_bits(mask: int, size: int) -> Iterator[int]:
    """The set bits of ``mask``, lowest first, in time linear in ``size`` (the mask's length)."""
    if size <= _SMALL:
        while mask:
            low = mask & -mask
            mask ^= low
            yield low.bit_length() - 1
        return
    digits = format(mask, "b")[::-1]  # digit k is bit k
    at = digits.find("1")
    while at >= 0:
        yield at
        at = digits.find("1", at + 1)


class Batch:
    """The keys of a list of clauses as word and clause masks (see the module docstring).

    Args:
        clauses: the clauses (non-empty sequences of tagged terms).
    """

    __slots__ = (
        "_lengths",
        "_near",
        "_present",
        "_word_masks",
        "all_words",
        "clause_of",
        "clauses",
        "firsts",
        "lasts",
        "selection",
        "sizes",
        "starts_at",
        "written",
    )

    def __init__(self, clauses: Sequence[Sequence[Term]]) -> None:
        self.clauses = clauses
        self.sizes = sizes = [len(clause) for clause in clauses]
        self.clause_of: list[int] = []  # word → its clause
        self.starts_at: list[int] = []  # clause → its first word
        for index, size in enumerate(sizes):
            self.starts_at.append(len(self.clause_of))
            self.clause_of += [index] * size
        total = len(self.clause_of)
        # the keys rules are chosen by (a word's normal form, its tags, its switch), and the
        # written forms, which count for matching only; only the keys some rule names
        named, named_tags = rule_keys()
        selection: defaultdict[str, list[int]] = defaultdict(list)
        written: defaultdict[str, list[int]] = defaultdict(list)
        tags: defaultdict[str, list[int]] = defaultdict(list)
        pos = 0
        for clause in clauses:
            for term in clause:
                normal = term.normal
                if normal in named:
                    selection[normal].append(pos)
                text = term.text
                if text and text != normal and text in named:
                    written[text].append(pos)
                if term.switch:
                    switch = f"%{term.switch}%"
                    if switch in named:
                        selection[switch].append(pos)
                for tag in term.tags:
                    if tag in named_tags:
                        tags[tag].append(pos)
                pos += 1
        for tag, found in tags.items():
            key = "#" + tag
            # a normal form never looks like "#Tag" (it is lower case), but keep both if so
            selection[key] = sorted({*selection[key], *found}) if key in selection else found
        self.selection = selection
        self.written = written
        self.all_words = (1 << total) - 1
        self.firsts = _from_positions(self.starts_at, total)
        self.lasts = _from_positions(
            [s + k - 1 for s, k in zip(self.starts_at, sizes, strict=True)], total
        )
        # _near[o]: the words s whose clause goes on to word s + o
        self._near = [self.all_words, self.all_words & ~self.lasts]
        self._word_masks: dict[str, int] = {END: self.lasts}
        self._present: dict[str, tuple[int, bytearray]] = {}
        self._lengths: dict[int, int] = {}

    def _near_mask(self, offset: int) -> int:
        near = self._near
        while len(near) <= offset:
            near.append(near[-1] & (near[1] >> (len(near) - 1)))
        return near[offset]

    def word_mask(self, key: str) -> int:
        """The words carrying ``key`` (normal or written form, ``#Tag``, ``%Switch%``, END)."""
        found = self._word_masks.get(key)
        if found is None:
            positions = self.selection.get(key, [])
            extra = self.written.get(key)
            if extra:
                positions = sorted({*positions, *extra})
            found = _from_positions(positions, len(self.clause_of)) if positions else 0
            self._word_masks[key] = found
        return found

    def present(self, key: str) -> tuple[int, bytearray]:
        """The clauses whose rule-choosing keys include ``key``: a clause mask and its flags."""
        found = self._present.get(key)
        if found is None:
            flags = bytearray(len(self.sizes))
            positions = self.selection.get(key)
            clauses = set(map(self.clause_of.__getitem__, positions)) if positions else set()
            for clause in clauses:
                flags[clause] = 1
            found = self._present[key] = (_from_positions(clauses, len(flags)), flags)
        return found

    def _long_enough(self, words: int) -> int:
        """The clauses of at least ``words`` words."""
        found = self._lengths.get(words)
        if found is None:
            flags = bytearray(size >= words for size in self.sizes)
            found = self._lengths[words] = _from_flags(flags)
        return found

    def runs_in(self, rule: Rule) -> int:
        """The clauses ``rule`` is tried on (as compromise's rule index chooses), as a mask."""
        present = self.present
        clauses = (1 << len(self.sizes)) - 1
        for key in rule.needs:
            clauses &= present(key)[0]
            if not clauses:
                return 0
        floor = want_floor(rule)
        if floor:  # "at least j of its wants": one mask per j, each key moving clauses up one
            least = [clauses] + [0] * floor
            for key in rule.wants:
                mask = present(key)[0]
                for j in range(floor, 0, -1):
                    least[j] |= least[j - 1] & mask
            clauses = least[floor]
        listed = 0
        for _, key in rule.listed:
            listed |= present(key)[0]
        clauses &= listed
        for key in rule.if_no:
            clauses &= ~present(key)[0]
        if rule.min_words:
            clauses &= self._long_enough(rule.min_words)
        return clauses

    def starts(self, rule: Rule) -> int:
        """The words a match of ``rule`` may start at, as a word mask (a superset).

        As in one clause: where its keyed tokens' keys occur at their offsets and, for a
        pattern that starts ``X+ Y``, where a run of ``X`` reaches a ``Y``; every word when
        it says nothing; the first word of each clause for a rule anchored with ``^``.
        """
        if rule.toks[0].start:
            return self.firsts
        mask = self.word_mask
        starts = self.all_words
        if rule.run_to is not None:  # X+ Y: X from the start, every word, up to a Y
            run, follow = rule.run_to
            carries = found = 0
            for key in run:
                carries |= mask(key)
            for key in follow:
                found |= mask(key)
            step = self._near_mask(1)  # a run goes back one word within its clause
            starts = reach = carries & (found >> 1) & step
            for _ in range(MAX_RUN):
                reach = carries & (reach >> 1) & step & ~starts
                if not reach:
                    break
                starts |= reach
        for offsets, wanted in rule.checks:
            if not starts:
                break
            found = 0
            for key in wanted:
                found |= mask(key)
            near = 0
            for offset in offsets:
                near |= (found >> offset) & self._near_mask(offset)
            starts &= near
        return starts

    def candidates(self, rule: Rule) -> Iterator[tuple[int, list[int]]]:
        """``(clause, starts)``: the clauses ``rule`` runs on with the words it may start at.

        The starts are positions in the clause, in order; clauses come in order, each once.
        """
        clauses = self.runs_in(rule)
        if not clauses:
            return
        words = self.starts(rule)
        if not words:
            return
        total = len(self.clause_of)
        if words.bit_count() <= 4 * clauses.bit_count():  # few starts: test their clauses
            flags = format(clauses, "b")[::-1]
            current, found = -1, list[int]()
            for pos in set_bits(words, total):
                clause = self.clause_of[pos]
                if clause < len(flags) and flags[clause] == "1":
                    if clause != current:
                        if found:
                            yield current, found
                        current, found = clause, []
                    found.append(pos - self.starts_at[clause])
            if found:
                yield current, found
            return
        digits = format(words, "b")[::-1]  # few clauses: look for starts in each
        for clause in set_bits(clauses, len(self.sizes)):
            begin = self.starts_at[clause]
            end = begin + self.sizes[clause]
            found = []
            at = digits.find("1", begin, end)
            while at >= 0:
                found.append(at - begin)
                at = digits.find("1", at + 1, end)
            if found:
                yield clause, found

    def rank(self, rule: Rule, clause: int) -> int:
        """The rank of the first index key of ``rule`` that ``clause`` has (compromise's order)."""
        for rank, key in rule.listed:
            if self.present(key)[1][clause]:
                return rank
        raise AssertionError("a rule runs on a clause that has one of its index keys")
