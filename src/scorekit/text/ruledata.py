"""compromise 14.17.0's post-tagger rules as data: loading, compiling, choosing per clause.

The rules (``data/compromise_postrules.json``: compromise's ``model.two.matches`` with the order
its rule index visits them; MIT, © Spencer Kelly) are compiled once into :class:`Rule` objects.
For a clause, :func:`rules_for` picks the rules whose required words and tags occur there, in
compromise's order, one per pattern; each rule knows where its keyed tokens stand from the
start of a match (:attr:`Rule.checks`), so only the words where a match can start are tried.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources

from scorekit.text.rulematch import Token, parse_token

__all__ = ["END", "Rule", "rules_for"]

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
        found |= rule.needs | rule.wants | rule.if_no
    return frozenset(found)


def _todo_for(keys: frozenset[str]) -> list[Rule]:
    table = _trigger_table()
    found: dict[int, Rule] = {}
    for key in keys:
        triggered = table.get(key)
        if triggered is not None:
            for rule in triggered:
                found[rule.order] = rule
    places = _PLACES
    ranked: list[tuple[int, int, Rule]] = []
    for rule in found.values():
        if not rule.needs <= keys or not rule.if_no.isdisjoint(keys):
            continue
        if rule.wants and len(rule.wants & keys) < rule.min_want:
            continue
        for rank, pos, key in places[rule.order]:  # its first key the clause has
            if key in keys:
                ranked.append((rank, pos, rule))
                break
    ranked.sort(key=_place)
    seen: set[str] = set()
    out: list[Rule] = []
    for _, _, rule in ranked:
        if rule.match not in seen:
            seen.add(rule.match)
            out.append(rule)
    return out


def _place(item: tuple[int, int, Rule]) -> tuple[int, int]:
    return item[0], item[1]
