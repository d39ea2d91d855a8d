"""compromise 14.17.0's post-tagger rules as data: loading, compiling, choosing per clause.

The rules (``data/compromise_postrules.json``: compromise's ``model.two.matches`` with the order
its rule index visits them; MIT, © Spencer Kelly) are compiled once into :class:`Rule` objects.
For a clause, :func:`rules_for` picks the rules whose required words and tags occur there, in
compromise's order, one per pattern; each rule knows its rarest fixed-position token (its
anchor), the only words where a match can start.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources

from scorekit.text.rulematch import Token, parse_token

__all__ = ["Rule", "rules_for"]


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
    if_no: tuple[str, ...]
    min_words: int
    min_length: int
    anchor: tuple[int, frozenset[str]] | None  # (offset, index keys) of its rarest token
    checks: tuple[tuple[int, frozenset[str]], ...]  # the other fixed tokens' (offset, keys)


def _keys(tok: Token) -> frozenset[str] | None:
    """The index keys one of which the word under a fixed token must carry, if any.

    A repeated token (``#Noun+``) counts: its first word must satisfy it.
    """
    if tok.optional or tok.negative or tok.anything or (tok.greedy and tok.choices is not None):
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
    if tok.choices is not None and not tok.greedy:  # (#PastTense|#Participle): one of them
        union: set[str] = set()
        for seq in tok.choices:
            keys = _keys(seq[0]) if seq else None
            if keys is None:
                return None
            union |= keys
        return frozenset(union)
    return None


def _fixed(toks: tuple[Token, ...]) -> list[tuple[int, frozenset[str]]]:
    """``(offset, index keys)`` of each keyed token at a fixed offset from the match start."""
    out: list[tuple[int, frozenset[str]]] = []
    for offset, tok in enumerate(toks):
        keys = _keys(tok)
        if keys is not None:
            out.append((offset, keys))
        # later tokens keep a fixed offset only after single-word tokens
        single = not (tok.optional or tok.greedy or tok.negative)
        if tok.choices is not None and not tok.all_of:  # a block of one-word alternatives
            single = single and all(len(s) == 1 and not s[0].greedy for s in tok.choices)
        if not single or (tok.choices is not None and any(len(s) != 1 for s in tok.choices)):
            break
    return out


def _anchor(
    toks: tuple[Token, ...], weight: Callable[[str], int]
) -> tuple[tuple[int, frozenset[str]] | None, tuple[tuple[int, frozenset[str]], ...]]:
    """The rarest fixed token (where to look for starts) and the other fixed tokens."""
    fixed = _fixed(toks)
    if not fixed:
        return None, ()
    costs = [sum(weight(k) for k in keys) for _, keys in fixed]
    best = costs.index(min(costs))  # the first of the cheapest, as a scan would keep
    return fixed[best], tuple(f for i, f in enumerate(fixed) if i != best)


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
    path = resources.files("scorekit.text") / "data" / "compromise_postrules.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    key_rank = {key: rank for rank, (key, _) in enumerate(raw["hooks"])}
    # a rule's place: the first of its keys (in key order), then its place in that key's list
    place: dict[int, list[tuple[int, int, str]]] = {}
    for rank, (key, members) in enumerate(raw["hooks"]):
        for pos, index in enumerate(members):
            place.setdefault(index, []).append((rank, pos, key))
    rules: list[Rule] = []
    for index, item in enumerate(raw["rules"]):
        toks = tuple(parse_token(r) for r in item["regs"])
        if_no = item.get("ifNo") or ()
        anchor, checks = _anchor(toks, _weight)
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
                if_no=(if_no,) if isinstance(if_no, str) else tuple(if_no),
                min_words=int(item.get("minWords") or 0),
                min_length=sum(1 for t in toks if not t.optional and not t.negative),
                anchor=anchor,
                checks=checks,
            )
        )
    _PLACES.update({i: sorted(p) for i, p in place.items()})
    return tuple(rules), key_rank


_PLACES: dict[int, list[tuple[int, int, str]]] = {}


@functools.cache
def _trigger_table() -> dict[str, tuple[Rule, ...]]:
    """Each rule under one key it cannot match without (its rarest need, else its wants)."""
    rules, _ = _rules()
    table: dict[str, list[Rule]] = {}
    for rule in rules:
        if rule.needs:
            keys: Sequence[str] = [min(sorted(rule.needs), key=_weight)]
        else:
            keys = sorted(rule.wants)
        for key in keys:
            table.setdefault(key, []).append(rule)
    return {k: tuple(v) for k, v in table.items()}


def rules_for(keys: set[str]) -> list[Rule]:
    """The rules to try on a clause with these keys, in compromise's order, one per pattern."""
    relevant = frozenset(keys & _relevant_keys())
    cached = _TODO.get(relevant)
    if cached is None:
        if len(_TODO) >= _TODO_SIZE:
            _TODO.clear()
        cached = _TODO[relevant] = _todo_for(relevant)
    return cached


_TODO: dict[frozenset[str], list[Rule]] = {}
_TODO_SIZE = 4096


@functools.cache
def _relevant_keys() -> frozenset[str]:
    """Every key some rule's selection looks at (needs, wants, ifNo, index keys)."""
    rules, key_rank = _rules()
    found = set(key_rank)
    for rule in rules:
        found |= rule.needs | rule.wants | set(rule.if_no)
    return frozenset(found)


def _todo_for(keys: frozenset[str]) -> list[Rule]:
    found: dict[int, Rule] = {}
    table = _trigger_table()
    for key in keys:
        for rule in table.get(key, ()):
            found.setdefault(rule.order, rule)
    ranked: list[tuple[tuple[int, int], Rule]] = []
    for rule in found.values():
        if not rule.needs <= keys or any(no in keys for no in rule.if_no):
            continue
        if rule.wants and len(rule.wants & keys) < rule.min_want:
            continue
        first = next((rank, pos) for rank, pos, key in _PLACES[rule.order] if key in keys)
        ranked.append((first, rule))
    ranked.sort(key=lambda item: item[0])
    seen: set[str] = set()
    out: list[Rule] = []
    for _, rule in ranked:
        if rule.match not in seen:
            seen.add(rule.match)
            out.append(rule)
    return out
