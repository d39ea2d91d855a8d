"""compromise 14.17.0's post-tagger: its ~570 context rules, run over our tagged terms.

The rules are data (:mod:`scorekit.text.ruledata`), matched by our own matcher
(:mod:`scorekit.text.rulematch`). This module applies them as compromise does:

* the rules run per clause (the tagger's comma split), a rule only where its required words and
  tags occur (:func:`scorekit.text.ruledata.rules_for`), and only from the words carrying its
  anchor token; a match resumes after the end of the previous one;
* every match is found first and the tags are set afterwards, in compromise's order (a later
  rule can override an earlier one); a "safe" rule does not override a conflicting tag.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from scorekit.text.lexicon import Lexicon
from scorekit.text.ruledata import END, Rule, rules_for
from scorekit.text.rulematch import MAX_RUN, MatchTerm, Run

__all__ = ["apply_post_rules"]

_DEBUG = False


class _Index:
    """Where each rule-index key (word, ``#Tag``, ``%Switch%``) occurs in a clause, as bit masks.

    Bit ``p`` of a key's mask is set when the word at position ``p`` carries the key, so finding
    where a rule can start is a few integer operations (shift, and, or). A short clause's masks
    are built in one pass; a long clause's word positions are gathered in one pass and a mask is
    made when a rule first asks for its key (most keys of a long clause are never asked for).
    """

    __slots__ = ("get", "keys", "lists", "masks", "n")

    def __init__(self, clause: Sequence[MatchTerm]) -> None:
        n = self.n = len(clause)
        self.masks: dict[str, int] = {}
        self.keys: set[str] = set()
        if n <= _SHORT:  # small integers: set each word's bits as it comes
            masks = self.masks
            get = masks.get
            bit = 1
            for term in clause:
                for key in _term_keys(term, self.keys):
                    masks[key] = get(key, 0) | bit
                bit <<= 1
            masks[END] = 1 << (n - 1)
            self.get: Callable[[str, int], int] = get
            return
        # a long clause: every key's positions in one pass (a mask is made when asked for)
        words: defaultdict[str, list[int]] = defaultdict(list)
        tags: defaultdict[str, list[int]] = defaultdict(list)
        switches: defaultdict[str, list[int]] = defaultdict(list)
        for pos, term in enumerate(clause):
            normal = term.normal
            words[normal].append(pos)
            if term.text and term.text != normal:
                words[term.text].append(pos)
            if term.switch:
                switches[term.switch].append(pos)
            for tag in term.tags:
                tags[tag].append(pos)
        self.keys.update(term.normal for term in clause)
        lists = {f"%{switch}%": found for switch, found in switches.items()}
        lists.update(("#" + tag, found) for tag, found in tags.items())
        self.keys.update(lists)
        for word, found in words.items():  # a written word may look like a tag or switch key
            lists[word] = sorted({*lists[word], *found}) if word in lists else found
        lists[END] = [n - 1]
        self.lists = lists
        self.get = self._long_get

    def _long_get(self, key: str, default: int = 0) -> int:
        """The mask of ``key`` in a long clause, made on first use (``default``: unused)."""
        found = self.masks.get(key)
        if found is None:
            positions = self.lists.get(key)
            found = self.masks[key] = 0 if positions is None else _mask(positions, self.n)
        return found

    def starts(self, rule: Rule, n: int) -> int:
        """The words a match of ``rule`` can start at, as a mask (a superset: the matcher decides).

        Where its keyed tokens' keys occur at their offsets (:attr:`Rule.checks`) and, for a
        pattern that starts ``X+ Y``, where a run of ``X`` reaches a ``Y``; all ``n`` words when
        it says nothing; word 0 for a rule anchored with ``^``.
        """
        if rule.toks[0].start:
            return 1
        get = self.get
        starts = (1 << n) - 1
        if rule.run_to is not None:  # X+ Y: X from the start, every word, up to a Y
            run, follow = rule.run_to
            carries = found = 0
            for key in run:
                carries |= get(key, 0)
            for key in follow:
                found |= get(key, 0)
            starts = reach = carries & (found >> 1)
            for _ in range(MAX_RUN):
                reach = carries & (reach >> 1) & ~starts
                if not reach:
                    break
                starts |= reach
        for offsets, wanted in rule.checks:
            if not starts:
                break
            found = 0
            for key in wanted:
                found |= get(key, 0)
            near = 0
            for offset in offsets:
                near |= found >> offset
            starts &= near
        return starts


_SHORT = 256
"""Clauses up to this many words build their masks bit by bit; longer ones through bitmaps."""


def _term_keys(term: MatchTerm, keys: set[str]) -> list[str]:
    """The index keys of one word: its normal and written forms, its switch and tags.

    All but the written form are also added to ``keys`` (the keys that choose the rules).
    """
    normal = term.normal
    keys.add(normal)
    chosen = [f"%{term.switch}%"] if term.switch else []
    chosen.extend("#" + tag for tag in term.tags)
    keys.update(chosen)
    chosen.append(normal)
    if term.text and term.text != normal:  # a written form also counts as a word key
        chosen.append(term.text)
    return chosen


def _mask(positions: list[int], n: int) -> int:
    """The mask with the bits of ``positions`` set (``n``: the clause's length), in O(n)."""
    digits = bytearray(b"0") * n  # digit k (from the right) is bit k
    for pos in positions:
        digits[n - 1 - pos] = 49  # "1"
    return int(digits, 2)


def _positions(mask: int, n: int) -> Iterable[int]:
    """The set bits of ``mask``, lowest first, in time linear in ``n`` (the clause's length)."""
    if n <= _SHORT:
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


def _find(rule: Rule, clause: Sequence[MatchTerm], starts: int) -> list[tuple[int, int]]:
    """The spans ``rule`` tags in ``clause`` (its captured group, else the whole match).

    ``starts``: the mask of the words a match may start at (:meth:`_Index.starts`).
    """
    n = len(clause)
    found: list[tuple[int, int, dict[str, list[int]]]] = []
    resume = 0
    runner = Run(clause, rule.toks)
    last = n - rule.min_length  # the last start a match of the rule's length fits after
    for start in _positions(starts, n):
        if start < resume:
            continue
        if start > last:
            break
        result = runner.match(start)
        if result is not None:
            found.append(result)
            resume = max(start + 1, result[1])
    if rule.toks[-1].end:
        found = [f for f in found if f[1] == n]
    if rule.not_if is not None:
        not_if = rule.not_if
        found = [
            f
            for f in found
            if not any(
                Run(clause[f[0] : f[1]], not_if, k).run() is not None for k in range(f[1] - f[0])
            )
        ]
    if rule.group is None:
        return [(a, b) for a, b, _ in found]
    return [(g[0], g[0] + g[1]) for _, _, groups in found if (g := groups.get(rule.group))]


def _looks_plural(text: str) -> bool:
    return _looks_plural_data()(text)


@functools.cache
def _looks_plural_data() -> Callable[[str], bool]:
    # compromise's quick plural check (postTagger's "quick and dirty plural tagger")
    exceptions = {"israelis", "menus", "logos"}
    by_end = {
        "e": ("mice", "louse", "antennae", "formulae", "nebulae", "vertebrae", "vitae"),
        "i": ("tia", "octopi", "viri", "radii", "nuclei", "fungi", "cacti", "stimuli"),
        "n": ("men",),
        "t": ("feet",),
    }
    not_plural = (
        *("bus", "mas", "was", "ias", "xas", "vas", "cis", "lis", "nis", "ois", "ris", "sis"),
        *("tis", "xis", "aus", "cus", "eus", "fus", "gus", "ius", "lus", "nus", "das", "ous"),
        *("pus", "rus", "sus", "tus", "xus", "aos", "igos", "ados", "ogos", "'s", "ss"),
    )

    def check(text: str) -> bool:
        if len(text) <= 3:
            return False
        if text in exceptions:
            return True
        end = text[-1]
        if end in by_end:
            return text.endswith(by_end[end])
        return end == "s" and not text.endswith(not_plural)

    return check


def _tag_term(term: MatchTerm, tag: str, lex: Lexicon, safe: bool) -> None:
    """Set one tag as compromise's ``setTag`` does: conflicts out (unless safe), parents in."""
    if tag in term.tags or tag == ".":
        return
    conflicts = lex.conflicts.get(tag)
    if conflicts:
        if safe and not term.tags.isdisjoint(conflicts):
            return
        term.tags -= conflicts
    term.tags.update(lex.parents.get(tag, ()))
    term.tags.add(tag)


def _set_tags(terms: Sequence[MatchTerm], tag: str | list[str], lex: Lexicon, safe: bool) -> None:
    if isinstance(tag, list):
        for one in tag:
            _set_tags(terms, one, lex, safe)
        return
    tag = tag.strip()
    if " " in tag:  # "#Noun . #Adjective": one tag per word
        for term, one in zip(terms, tag.split(" "), strict=False):
            if one:
                _tag_term(term, one.lstrip("#"), lex, safe)
        return
    tag = tag.lstrip("#")
    for term in terms:
        _tag_term(term, tag, lex, safe)


def _children(lex: Lexicon) -> dict[str, frozenset[str]]:
    if _CHILDREN:
        return _CHILDREN
    kids: dict[str, set[str]] = {}
    for tag, parents in lex.parents.items():
        for parent in parents:
            kids.setdefault(parent, set()).add(tag)
    _CHILDREN.update({k: frozenset(v) for k, v in kids.items()})
    return _CHILDREN


_CHILDREN: dict[str, frozenset[str]] = {}


def _apply(rule: Rule, terms: Sequence[MatchTerm], lex: Lexicon) -> None:
    if rule.safe and rule.tag is not None:
        conflicts = lex.conflicts.get(rule.tag if isinstance(rule.tag, str) else "", frozenset())
        if any(not t.tags.isdisjoint(conflicts) for t in terms) or terms[-1].post == "-":
            return
    if rule.tag is not None:
        _set_tags(terms, rule.tag, lex, rule.safe)
        if rule.tag == "Noun":
            last = terms[-1]
            _set_tags([last], "Plural" if _looks_plural(last.text) else "Singular", lex, rule.safe)
    if rule.untag is not None:
        name = rule.untag.strip().lstrip("#")
        drop = _children(lex).get(name, frozenset()) | {name}
        for term in terms:
            term.tags -= drop


_MEMO: dict[tuple[tuple[str, str, str, str, frozenset[str]], ...], list[tuple[Rule, int, int]]]
_MEMO = {}
_MEMO_SIZE = 4096
_MEMO_WORDS = 200


def _clause_matches(clause: Sequence[MatchTerm]) -> list[tuple[Rule, int, int]]:
    """Every (rule, start, end) that compromise's post-tagger would tag in ``clause``."""
    index = _Index(clause)
    n = len(clause)
    out: list[tuple[Rule, int, int]] = []
    for rule in rules_for(index.keys):
        if n >= rule.min_words and (starts := index.starts(rule, n)):
            out.extend((rule, a, b) for a, b in _find(rule, clause, starts))
    return out


def apply_post_rules(clauses: Sequence[Sequence[Any]], lex: Lexicon) -> None:
    """Run compromise's post-tagger rules over ``clauses`` (lists of tagger terms), in place.

    Every rule is matched against the tags as they stand; the tags are set afterwards, clause
    by clause, in compromise's order (a later rule can override an earlier one).
    """
    todo: list[tuple[Rule, Sequence[MatchTerm]]] = []
    memo = _MEMO
    for clause in clauses:
        if not clause:
            continue
        if len(clause) > _MEMO_WORDS:  # a long clause seldom repeats: no signature for it
            todo.extend((rule, clause[a:b]) for rule, a, b in _clause_matches(clause))
            continue
        # the same clause (words, tags, punctuation) always gives the same matches
        signature = tuple((t.normal, t.text, t.switch, t.post, frozenset(t.tags)) for t in clause)
        spans = memo.get(signature)
        if spans is None:
            spans = _clause_matches(clause)
            if len(memo) >= _MEMO_SIZE:
                memo.clear()
            memo[signature] = spans
        todo.extend((rule, clause[a:b]) for rule, a, b in spans)
    for rule, span in todo:
        if _DEBUG and span:
            print(rule.match, "->", rule.tag, [t.text for t in span])
        if span:
            _apply(rule, span, lex)
