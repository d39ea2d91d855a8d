"""compromise 14.17.0's post-tagger rules as data: loading, compiling, choosing per text.

The rules (``data/compromise_postrules.json``: compromise's ``model.two.matches`` with the order
its rule index visits them; MIT, © Spencer Kelly) are compiled once into :class:`Rule` objects.
For a text, :func:`possible_rules` picks the rules whose required words and tags occur in it
(which clause runs which rule, and in what order, is :mod:`scorekit.text.rulesearch`'s); each
rule knows where its keyed tokens stand from the start of a match (:attr:`Rule.checks`), so
only the words where a match can start are tried.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources

from scorekit.text.rulematch import Token, parse_token

__all__ = ["END", "Rule", "possible_rules", "rule_keys", "want_floor"]

END = "\x00end"
"""The index key of a clause's last word, where a ``$`` token must match (no word has it)."""


@dataclass(slots=True)
class Rule:
    """One compiled post-tagger rule: its pattern, what it tags, when it may run."""

    order: int
    match: str
    toks: tuple[Token, ...]
    not_if: tuple[Token, ...] | None
    group: str | None
    tag: str | list[str] | None
    untag: str | None
    safe: bool
    needs: frozenset[str]
    wants: frozenset[str]
    min_want: int
    if_no: frozenset[str]
    min_words: int
    min_length: int
    checks: tuple[tuple[tuple[int, ...], frozenset[str]], ...]
    """Where its keyed tokens are from the start: ``(offsets, keys)``, the rarest first."""
    run_to: tuple[frozenset[str], frozenset[str]] | None
    """``(X keys, Y keys)`` of a pattern that starts ``X+ Y`` (:func:`_run_to`)."""
    listed: tuple[tuple[int, str], ...] = ()
    """``(rank, key)`` of the keys compromise's rule index lists it under, in index order."""


def _keys(tok: Token) -> frozenset[str] | None:
    """The index keys one of which the word under a fixed token must carry, if any.

    A repeated token (``#Noun+``, ``(#Modal|did)+``) counts: its first word must satisfy it.
    """
    if tok.optional or tok.negative or tok.anything:
        return None
    if tok.word is not None:
        return frozenset({tok.word})
    if tok.tag is not None:
        return frozenset({"#" + tok.tag})
    if tok.switch is not None:
        return frozenset({f"%{tok.switch}%"})
    if tok.words is not None:
        return tok.words
    if tok.choices is not None and tok.all_of:
        found = [k for seq in tok.choices if len(seq) == 1 and (k := _keys(seq[0]))]
        return found[0] if found else None
    if tok.choices is not None:  # (#PastTense|#Participle), also repeated: one of them
        union: set[str] = set()
        for seq in tok.choices:
            keys = _keys(seq[0]) if seq else None
            if keys is None:
                return None
            union |= keys
        return frozenset(union)
    return None


def _one_word(tok: Token) -> bool:
    """Whether ``tok`` takes exactly one word when it matches (or none, when optional)."""
    if tok.greedy or tok.start:
        return False
    # a block of one-word alternatives, or of conditions on one word (``#Verb && @hasHyphen``)
    return tok.choices is None or all(len(seq) == 1 and not seq[0].greedy for seq in tok.choices)


def _checks(toks: tuple[Token, ...]) -> list[tuple[tuple[int, ...], frozenset[str]]]:
    """``(offsets, index keys)``: a keyed token is at one of these offsets from the start.

    The walk follows the tokens while each takes one word (or, optional, none or one); it
    stops at the first that may take more (a repeated token counts for its first word). An
    optional token that the matcher lets go (see :mod:`scorekit.text.rulematch`) takes a word
    good for the next token, which the offsets then cover too.
    """
    out: list[tuple[tuple[int, ...], frozenset[str]]] = []
    offsets: tuple[int, ...] = (0,)
    for tok in toks:
        keys = _keys(tok)
        if keys is not None:
            out.append((offsets, keys))
        if tok.end and not (tok.optional or tok.negative or tok.greedy) and _one_word(tok):
            out.append((offsets, frozenset({END})))
        if not _one_word(tok) or len(offsets) > 3:
            break
        if tok.optional:
            offsets = tuple(sorted({*offsets, *(o + 1 for o in offsets)}))
        else:
            offsets = tuple(o + 1 for o in offsets)
    return out


def _ordered(
    checks: list[tuple[tuple[int, ...], frozenset[str]]], weight: Callable[[str], int]
) -> tuple[tuple[tuple[int, ...], frozenset[str]], ...]:
    """The checks, the rarest first (the cheapest to rule a clause out)."""
    costs = [sum(weight(k) for k in keys) * len(offsets) for offsets, keys in checks]
    return tuple(
        check for _, _, check in sorted(zip(costs, range(len(costs)), checks, strict=True))
    )


def _run_to(toks: tuple[Token, ...]) -> tuple[frozenset[str], frozenset[str]] | None:
    """``(X keys, Y keys)`` of a pattern that starts ``X+ Y``, else ``None``.

    ``X+``: a repeated keyed word; ``Y``: a keyed token. The matcher's run of ``X`` stops at
    the first word good for ``Y`` or not good for ``X``, and ``Y`` must match there: every
    word from the start carries ``X`` up to one with ``Y``.
    """
    if len(toks) < 2:
        return None
    first, follow = toks[0], _keys(toks[1])
    run = _keys(first)
    if run is None or follow is None or first.choices is not None or first.end:
        return None
    return (run, follow) if first.greedy else None


_COMMON_TAGS = {"#Noun": 9, "#Singular": 8, "#Verb": 7, "#Adjective": 6, "#Determiner": 6}
_COMMON_TAGS |= {"#Preposition": 6, "#Pronoun": 5, "#PresentTense": 5, "#Infinitive": 5}


def _weight(key: str) -> int:
    if key.startswith("#"):
        return 100 * _COMMON_TAGS.get(key, 1)
    if key.startswith("%"):
        return 20
    return 1


@functools.cache
def _rules() -> tuple[tuple[Rule, ...], dict[str, int]]:
    """The rules, and the visiting rank of each index key (compromise's rule-index order)."""
    return _load()[:2]


@functools.cache
def _load() -> tuple[tuple[Rule, ...], dict[str, int], list[tuple[str, list[int]]]]:
    """The compiled rules, each index key's rank and the index itself (key, rule numbers)."""
    path = resources.files("scorekit.text") / "data" / "compromise_postrules.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    hooks: list[tuple[str, list[int]]] = [(key, list(members)) for key, members in raw["hooks"]]
    key_rank = {key: rank for rank, (key, _) in enumerate(hooks)}
    rules: list[Rule] = []
    for index, item in enumerate(raw["rules"]):
        toks = tuple(parse_token(r) for r in item["regs"])
        if_no = item.get("ifNo") or ()
        rules.append(
            Rule(
                order=index,
                match=item["match"],
                toks=toks,
                not_if=tuple(parse_token(r) for r in item["notIf"]) if "notIf" in item else None,
                group=None if item.get("group") is None else str(item["group"]),
                tag=item.get("tag"),
                untag=item.get("unTag"),
                safe=bool(item.get("safe")),
                needs=frozenset(item.get("needs") or ()),
                wants=frozenset(item.get("wants") or ()),
                min_want=int(item.get("minWant") or 0),
                if_no=frozenset((if_no,) if isinstance(if_no, str) else if_no),
                min_words=int(item.get("minWords") or 0),
                min_length=sum(1 for t in toks if not t.optional and not t.negative),
                checks=_ordered(_checks(toks), _weight),
                run_to=_run_to(toks),
            )
        )
    for rank, (key, members) in enumerate(hooks):
        for index in members:
            rules[index].listed += ((rank, key),)
    return tuple(rules), key_rank, hooks


# Choosing the rules a text may need with bit masks over the rule numbers.
#
# Bit ``r`` of a mask stands for rule ``r`` (its place in the data file). Each index key has
# three masks: the rules that need it, want it, are listed under it in compromise's rule index.
# For a text, the masks of its keys are combined with integer and/or: a few operations per key
# of the text instead of set operations per rule.
#
# A rule needs all of its ``needs`` (1 to 4 keys) and at least ``minWant`` of its ``wants``.
# Both are counts of the rule's own keys present in the text, kept as "at least j" masks:
# ``at_least[j]`` has bit r when j or more of rule r's keys were seen. Seeing a key whose mask is
# ``m`` moves its rules up one level: ``at_least[j] |= at_least[j - 1] & m``, from the top level
# down so that one key counts once. A rule never counts more of its needs than it has, so "all
# needs" is "at least len(needs)".

_MAX_NEEDS = 4
_MAX_WANT = 3


@dataclass(frozen=True, slots=True)
class _Selection:
    """The bit masks that choose a text's rules (see the comment above)."""

    rules: tuple[Rule, ...]
    keys: dict[str, tuple[int, int, int]]
    """Key → (the rules that need it, that want it, that the rule index lists under it)."""
    need_count: tuple[int, ...]
    """``need_count[j]``: the rules with exactly ``j`` needs."""
    want_count: tuple[int, ...]
    """``want_count[j]``: the rules that want at least ``j`` of their wants (at most 3)."""


@functools.cache
def _selection() -> _Selection:
    rules, _, hooks = _load()
    # compromise visits a key's rules in the order of its list; the lists are in rule order,
    # so that (rank of the key, rule number) sorts the rules of a clause as compromise does
    if any(members != sorted(members) for _, members in hooks):
        raise ValueError("compromise_postrules.json: a rule-index list is not in rule order")
    need: dict[str, int] = {}
    want: dict[str, int] = {}
    need_count = [0] * (_MAX_NEEDS + 1)
    want_count = [0] * (_MAX_WANT + 1)
    for rule in rules:
        bit = 1 << rule.order
        for key in rule.needs:
            need[key] = need.get(key, 0) | bit
        for key in rule.wants:
            want[key] = want.get(key, 0) | bit
        if len(rule.needs) > _MAX_NEEDS or rule.min_want > _MAX_WANT:
            raise ValueError(f"compromise_postrules.json: rule {rule.match!r} wants too many keys")
        need_count[len(rule.needs)] |= bit
        want_count[want_floor(rule)] |= bit
    listed = {key: sum(1 << r for r in members) for key, members in hooks}
    keys = {
        key: (need.get(key, 0), want.get(key, 0), listed.get(key, 0))
        for key in {*need, *want, *listed}
    }
    return _Selection(
        rules=rules, keys=keys, need_count=tuple(need_count), want_count=tuple(want_count)
    )


@functools.cache
def rule_keys() -> tuple[frozenset[str], frozenset[str]]:
    """Every key some rule looks at, as ``(words and %Switch% keys, tag names without #)``.

    The keys rules are chosen by (needs, wants, index keys, ``ifNo``) and the keys of their
    position checks (:attr:`Rule.checks`, :attr:`Rule.run_to`); a word no rule names needs no
    mask. (The matcher itself reads the terms, not these keys.)
    """
    keys = set(_selection().keys)  # the needs, wants and index keys
    for rule in _rules()[0]:
        keys |= rule.if_no
        for _, wanted in rule.checks:
            keys |= wanted
        if rule.run_to is not None:
            keys |= rule.run_to[0] | rule.run_to[1]
    tags = frozenset(key[1:] for key in keys if key.startswith("#"))
    return frozenset(key for key in keys if not key.startswith("#")), tags


def want_floor(rule: Rule) -> int:
    """How many of its wants ``rule`` needs: ``minWant``, and one for a rule without needs.

    (compromise looks at a rule without needs only under one of its wants.)
    """
    return rule.min_want if rule.needs else max(rule.min_want, 1)


def possible_rules(keys: Iterable[str]) -> list[Rule]:
    """The rules that may run on some clause of a text with these keys, in rule order.

    ``keys``: every key of the text (normal forms, ``#Tag``, ``%Switch%``). A rule may run when
    the text has all of its needs, enough of its wants and one of the keys it is listed under
    in compromise's rule index (its ``ifNo`` keys and which clause has what are left to
    :class:`scorekit.text.rulesearch.Batch`).
    """
    select = _selection()
    table = select.keys
    needs1 = needs2 = needs3 = needs4 = 0  # at least 1, 2, 3, 4 of a rule's needs
    wants1 = wants2 = wants3 = 0  # at least 1, 2, 3 of its wants
    listed = 0
    for key in table.keys() & keys:
        need, want, hook = table[key]
        if need:  # from the top level down, so that one key counts once
            needs4 |= needs3 & need
            needs3 |= needs2 & need
            needs2 |= needs1 & need
            needs1 |= need
        if want:
            wants3 |= wants2 & want
            wants2 |= wants1 & want
            wants1 |= want
        listed |= hook
    counts = select.need_count
    has_needs = counts[0] | counts[1] & needs1 | counts[2] & needs2 | counts[3] & needs3
    has_needs |= counts[4] & needs4
    least = select.want_count
    has_wants = least[0] | least[1] & wants1 | least[2] & wants2 | least[3] & wants3
    chosen = has_needs & has_wants & listed
    rules = select.rules
    out: list[Rule] = []
    while chosen:  # lowest rule number first
        low = chosen & -chosen
        out.append(rules[low.bit_length() - 1])
        chosen ^= low
    return out
