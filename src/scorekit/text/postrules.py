"""compromise 14.17.0's post-tagger: its ~570 context rules, run over our tagged terms.

The rules are data (:mod:`scorekit.text.ruledata`), matched by our own matcher
(:mod:`scorekit.text.rulematch`). This module applies them as compromise does:

* the rules run per clause (the tagger's comma split), a rule only where its required words and
  tags occur, and only from the words carrying its anchor token; both are found for many
  clauses at once by :class:`scorekit.text.rulesearch.Batch`; a match resumes after the end
  of the previous one;
* every match is found first and the tags are set afterwards, in compromise's order (a later
  rule can override an earlier one); a "safe" rule does not override a conflicting tag.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from scorekit.text.lexicon import Lexicon, looks_plural
from scorekit.text.ruledata import Rule, possible_rules
from scorekit.text.rulematch import Run
from scorekit.text.rulesearch import Batch
from scorekit.text.term import Term

__all__ = ["apply_post_rules"]

_DEBUG = False


def _find(rule: Rule, clause: Sequence[Term], starts: list[int]) -> list[tuple[int, int]]:
    """The spans ``rule`` tags in ``clause`` (its captured group, else the whole match).

    ``starts``: the words a match may start at, in order (:meth:`Batch.candidates`).
    """
    n = len(clause)
    found: list[tuple[int, int, dict[str, list[int]]]] = []
    resume = 0
    runner = Run(clause, rule.toks)
    last = n - rule.min_length  # the last start a match of the rule's length fits after
    for start in starts:
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


def _tag_term(term: Term, tag: str, lex: Lexicon, safe: bool) -> None:
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


def _set_tags(terms: Sequence[Term], tag: str | list[str], lex: Lexicon, safe: bool) -> None:
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


def _apply(rule: Rule, terms: Sequence[Term], lex: Lexicon) -> None:
    if rule.safe and rule.tag is not None:
        conflicts = lex.conflicts.get(rule.tag if isinstance(rule.tag, str) else "", frozenset())
        if any(not t.tags.isdisjoint(conflicts) for t in terms) or terms[-1].post == "-":
            return
    if rule.tag is not None:
        _set_tags(terms, rule.tag, lex, rule.safe)
        if rule.tag == "Noun":
            last = terms[-1]
            _set_tags([last], "Plural" if looks_plural(last.text) else "Singular", lex, rule.safe)
    if rule.untag is not None:
        name = rule.untag.strip().lstrip("#")
        drop = _children(lex).get(name, frozenset()) | {name}
        for term in terms:
            term.tags -= drop


_Matches = list[tuple[Rule, int, int]]
_Signature = tuple[tuple[str, str, str, str, frozenset[str]], ...]
_MEMO: dict[_Signature, _Matches] = {}
_MEMO_SIZE = 4096
_MEMO_WORDS = 200
_BATCH_WORDS = 50_000
"""About the most words matched in one :class:`Batch` (its masks, and the memory, stay bounded)."""


def _batches(indices: list[int], clauses: Sequence[Sequence[Term]]) -> Iterator[list[int]]:
    """``indices`` in runs of whole clauses of about :data:`_BATCH_WORDS` words."""
    part: list[int] = []
    words = 0
    for index in indices:
        part.append(index)
        words += len(clauses[index])
        if words >= _BATCH_WORDS:
            yield part
            part, words = [], 0
    if part:
        yield part


def _batch_matches(clauses: Sequence[Sequence[Term]]) -> list[_Matches]:
    """Every (rule, start, end) that compromise's post-tagger would tag, clause by clause.

    The rules are tried rule by rule over all the clauses at once (:class:`Batch`); each
    clause's matches are then put in compromise's order: its rules by the rank of the first
    index key the clause has, then by rule number, each rule's matches in text order.
    """
    batch = Batch(clauses)
    found: list[list[tuple[int, int, _Matches]]] = [[] for _ in clauses]
    for rule in possible_rules(batch.selection.keys()):
        for index, starts in batch.candidates(rule):
            spans = _find(rule, clauses[index], starts)
            if spans:
                rank = batch.rank(rule, index)
                found[index].append((rank, rule.order, [(rule, a, b) for a, b in spans]))
    out: list[_Matches] = []
    for entries in found:
        entries.sort(key=_by_place)
        out.append([match for _, _, matches in entries for match in matches])
    return out


def _by_place(entry: tuple[int, int, _Matches]) -> tuple[int, int]:
    return entry[0], entry[1]


def apply_post_rules(clauses: Sequence[Sequence[Term]], lex: Lexicon) -> None:
    """Run compromise's post-tagger rules over ``clauses`` (lists of tagger terms), in place.

    Every rule is matched against the tags as they stand; the tags are set afterwards, clause
    by clause, in compromise's order (a later rule can override an earlier one). A clause seen
    before (same words, tags and punctuation) reuses its matches.
    """
    memo = _MEMO
    results: list[_Matches | None] = [None] * len(clauses)
    signatures: list[_Signature | None] = []
    new: dict[_Signature, int] = {}
    pending: list[int] = []  # the clauses to match: the first of each new signature
    repeats: list[tuple[int, int]] = []  # (a clause, the earlier one it repeats)
    for index, clause in enumerate(clauses):
        signature = None
        if not clause:
            results[index] = []
        elif len(clause) > _MEMO_WORDS:  # a long clause seldom repeats: no signature for it
            pending.append(index)
        else:
            # the same clause (words, tags, punctuation) always gives the same matches
            signature = tuple(
                [(t.normal, t.text, t.switch, t.post, frozenset(t.tags)) for t in clause]
            )
            cached = memo.get(signature)
            if cached is not None:
                results[index] = cached
            elif signature in new:
                repeats.append((index, new[signature]))
            else:
                new[signature] = index
                pending.append(index)
        signatures.append(signature)
    for part in _batches(pending, clauses):
        for index, matches in zip(part, _batch_matches([clauses[i] for i in part]), strict=True):
            results[index] = matches
            signature = signatures[index]
            if signature is not None:
                if len(memo) >= _MEMO_SIZE:
                    memo.clear()
                memo[signature] = matches
    for index, first in repeats:
        results[index] = results[first]
    for clause, found in zip(clauses, results, strict=True):
        for rule, a, b in found or ():
            span = clause[a:b]
            if _DEBUG and span:
                print(rule.match, "->", rule.tag, [t.text for t in span])
            if span:
                _apply(rule, span, lex)
