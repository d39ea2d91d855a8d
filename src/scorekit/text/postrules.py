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
from collections.abc import Callable, Sequence
from typing import Any

from scorekit.text.lexicon import Lexicon
from scorekit.text.ruledata import Rule, rules_for
from scorekit.text.rulematch import MatchTerm, Run

__all__ = ["apply_post_rules"]

_DEBUG = False


class _Index:
    """Where each rule-index key (word, ``#Tag``, ``%Switch%``) occurs in a clause.

    Word positions are gathered in one pass; a tag's or a switch class's positions only when a
    rule asks for them (most keys of a long clause are never asked for).
    """

    __slots__ = ("clause", "found", "keys", "sets", "words")

    def __init__(self, clause: Sequence[MatchTerm]) -> None:
        self.clause = clause
        words: dict[str, list[int]] = {}
        for pos, term in enumerate(clause):
            normal = term.normal
            words.setdefault(normal, []).append(pos)
            if term.text and term.text != normal:
                words.setdefault(term.text, []).append(pos)
        self.words = words
        tags: set[str] = set().union(*(term.tags for term in clause))
        switches = {term.switch for term in clause if term.switch}
        self.keys = {term.normal for term in clause}
        self.keys.update(f"%{switch}%" for switch in switches)
        self.keys.update("#" + tag for tag in tags)
        self.found: dict[str, list[int]] = {}
        self.sets: dict[frozenset[str], set[int]] = {}

    def positions(self, key: str) -> list[int]:
        """The positions where ``key`` occurs, in order."""
        found = self.found.get(key)
        if found is not None:
            return found
        clause = self.clause
        if key.startswith("#") and key in self.keys:
            tag = key[1:]
            found = [p for p, term in enumerate(clause) if tag in term.tags]
        elif key.startswith("%") and key.endswith("%") and len(key) > 2:
            switch = key[1:-1]
            found = [p for p, term in enumerate(clause) if term.switch == switch]
        else:
            found = []
        also = self.words.get(key)
        if also is not None:  # a written word that looks like a tag or switch key
            found = sorted({*found, *also}) if found else also
        self.found[key] = found
        return found

    def where_any(self, keys: frozenset[str]) -> set[int]:
        """The positions where one of ``keys`` occurs."""
        found = self.sets.get(keys)
        if found is None:
            found = self.sets[keys] = set().union(*(self.positions(key) for key in keys))
        return found


def _starts(rule: Rule, n: int, index: _Index) -> list[int]:
    """The words a match of ``rule`` can start at: where its fixed tokens' keys all occur."""
    if rule.toks[0].start:
        return [0]
    if rule.anchor is None:
        return list(range(n))
    offset, keys = rule.anchor
    where = index.positions
    positions = sorted({p - offset for key in keys for p in where(key) if p >= offset})
    for at, wanted in rule.checks:
        allowed = index.where_any(wanted)
        positions = [p for p in positions if p + at in allowed]
    return positions


def _find(rule: Rule, clause: Sequence[MatchTerm], index: _Index) -> list[tuple[int, int]]:
    """The spans ``rule`` tags in ``clause`` (its captured group, else the whole match)."""
    n = len(clause)
    found: list[tuple[int, int, dict[str, list[int]]]] = []
    resume = 0
    runner = Run(clause, rule.toks)
    for start in _starts(rule, n, index):
        if start < resume:
            continue
        if n - start < rule.min_length:
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
    out: list[tuple[Rule, int, int]] = []
    for rule in rules_for(index.keys):
        if len(clause) >= rule.min_words:
            out.extend((rule, a, b) for a, b in _find(rule, clause, index))
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
