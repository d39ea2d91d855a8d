"""The matcher for compromise 14.17.0's match syntax, as its post-tagger rules use it.

A rule's pattern (``data/compromise_postrules.json``, as compromise's own match parser reads
it) is a list of tokens: a tag (``#Noun``), a word, a set of words (``(a|an)``), a switch class
(``%Noun|Verb%``), a regex, a punctuation test (``@hasComma``), ``.`` (any word), a block of
alternatives (``(a b|c)``) or of conditions on one word (``(#Verb && @hasHyphen)``); each
optional (``?``), repeated (``+``), negated (``!``), anchored (``^``, ``$``) and maybe inside the
captured group (``[…]``) whose words get the rule's tag.

As in compromise, an optional token that also matches what the next token wants lets the next
token go (``#Adverb? #Verb``), and a repeated token stops where the next token matches. To stay
linear on pathological text a repeated token or a ``.*`` scans at most :data:`MAX_RUN` words
(compromise has no bound; no real sentence comes near it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from scorekit.text.term import Term

__all__ = ["MAX_RUN", "Run", "Token", "parse_token", "satisfies", "unanchored"]

MAX_RUN = 64
"""The most words a repeated token (``#Noun+``, ``.*``) scans (a bound compromise lacks)."""

_TITLE = re.compile(r"^[^\W\d_a-z][a-z'\u00c0-\u00ff]")
_DASH = re.compile(r"^[-\u2013\u2014]$")


@dataclass(slots=True)
class Token:
    """One token of a compiled match pattern (see the module docstring)."""

    word: str | None = None
    tag: str | None = None
    words: frozenset[str] | None = None
    choices: tuple[tuple[Token, ...], ...] | None = None
    all_of: bool = False
    optional: bool = False
    greedy: bool = False
    negative: bool = False
    start: bool = False
    end: bool = False
    anything: bool = False
    method: str | None = None
    regex: re.Pattern[str] | None = None
    switch: str | None = None
    group: str | None = None
    min: int | None = None
    max: int | None = None
    test: Callable[[Term, int, int], bool] = field(default=lambda term, pos, n: False)
    """:func:`satisfies` for this token, compiled: ``test(term, pos, clause_length)``."""
    plain: Token | None = None
    """The token without its anchors (itself when it has none)."""


def _compile(tok: Token) -> Token:
    """Fill ``tok.test`` and ``tok.plain`` (see :func:`satisfies` for the semantics)."""
    tok.test = _check(tok)
    if tok.start or tok.end:
        plain = replace(tok, start=False, end=False, plain=None)
        plain.test = _check(plain)
        plain.plain = plain
        tok.plain = plain
    else:
        tok.plain = tok
    return tok


def _check(tok: Token) -> Callable[[Term, int, int], bool]:
    base = _base_check(tok)
    if tok.anything or not (tok.start or tok.end):
        return base
    start, end = tok.start, tok.end

    def anchored(term: Term, pos: int, n: int) -> bool:
        if start and pos != 0:
            return False
        if end and pos != n - 1:
            return False
        return base(term, pos, n)

    return anchored


def _base_check(tok: Token) -> Callable[[Term, int, int], bool]:
    """The word test of ``tok`` without anchors or negation."""
    if tok.anything:
        return lambda term, pos, n: True
    if tok.word is not None:
        word = tok.word
        return lambda term, pos, n: word == term.normal or word == term.text
    if tok.tag is not None:
        tag = tok.tag
        return lambda term, pos, n: tag in term.tags
    if tok.method is not None:
        if tok.method == "hasComma":
            return lambda term, pos, n: "," in term.post
        if tok.method == "hasHyphen":
            return lambda term, pos, n: bool(_DASH.match(term.post))
        if tok.method == "isTitleCase":
            return lambda term, pos, n: bool(_TITLE.match(term.text))
        return lambda term, pos, n: False
    if tok.regex is not None:
        search = tok.regex.search
        return lambda term, pos, n: search(term.normal) is not None
    if tok.switch is not None:
        switch = tok.switch
        return lambda term, pos, n: term.switch == switch
    if tok.words is not None:
        words = tok.words
        return lambda term, pos, n: term.normal in words or term.text in words
    # a block of alternatives is never satisfied by a single-word test (as in compromise)
    return lambda term, pos, n: False


def parse_token(raw: dict[str, Any]) -> Token:
    """Compile one token as compromise's ``parseMatch`` wrote it (JSON) into a :class:`Token`."""
    choices = raw.get("choices")
    tok = Token(
        word=raw.get("word"),
        tag=raw.get("tag"),
        words=frozenset(raw["fastOr"]) if "fastOr" in raw else None,
        choices=tuple(tuple(parse_token(r) for r in c) for c in choices) if choices else None,
        all_of=raw.get("operator") == "and",
        optional=bool(raw.get("optional")),
        greedy=bool(raw.get("greedy")),
        negative=bool(raw.get("negative")),
        start=bool(raw.get("start")),
        end=bool(raw.get("end")),
        anything=bool(raw.get("anything")),
        method=raw.get("method"),
        regex=re.compile(raw["regex"]) if "regex" in raw else None,
        switch=raw.get("switch"),
        group=raw.get("group"),
        min=raw.get("min"),
        max=raw.get("max"),
    )
    return _compile(tok)


def satisfies(term: Term, tok: Token, pos: int, length: int) -> bool:
    """Whether ``term`` (at ``pos`` of ``length`` words) satisfies ``tok``, negation ignored.

    ``.`` matches any word; ``^`` / ``$`` require the first / last word; then one test: the
    word (its normal or written form), a tag, a punctuation method, a regex on the normal form,
    the switch class or a set of words. A block of alternatives is never satisfied by a
    single-word test (as in compromise).
    """
    return tok.test(term, pos, length)


def unanchored(tok: Token) -> Token:
    """``tok`` without its ``^`` / ``$`` anchors."""
    assert tok.plain is not None  # set by parse_token
    return tok.plain


class Run:
    """Attempts of one pattern on one clause, from a given word (absolute positions).

    One object serves every start of a rule in a clause (:meth:`match`), so a long clause
    costs no allocation per candidate start.
    """

    __slots__ = ("groups", "n", "r", "t", "terms", "toks")

    def __init__(self, terms: Sequence[Term], toks: tuple[Token, ...], start: int = 0) -> None:
        self.terms = terms
        self.toks = toks
        self.n = len(terms)
        self.t = start
        self.r = 0
        self.groups: dict[str, list[int]] = {}

    def match(self, start: int) -> tuple[int, int, dict[str, list[int]]] | None:
        """:meth:`run` from ``start`` (the object is reset first)."""
        self.t = start
        self.r = 0
        if self.groups:
            self.groups = {}
        return self.run()

    def ok(self, pos: int, tok: Token) -> bool:
        """Whether the word at ``pos`` satisfies ``tok`` (negation applied)."""
        return tok.test(self.terms[pos], pos, self.n) != tok.negative

    def next_tok(self, ahead: int = 1) -> Token | None:
        """The token ``ahead`` places after the current one, if any."""
        k = self.r + ahead
        return self.toks[k] if k < len(self.toks) else None

    def grow(self, tok: Token, at: int, size: int) -> None:
        """Count ``size`` words from ``at`` into ``tok``'s captured group, if it has one."""
        if tok.group is not None:
            self.groups.setdefault(tok.group, [at, 0])[1] += size

    def run(self) -> tuple[int, int, dict[str, list[int]]] | None:
        """``(start, end, groups)`` of the match from the start word, or ``None``."""
        begin = self.t
        toks = self.toks
        while self.r < len(toks):
            tok = toks[self.r]
            if self.t >= self.n:
                if any(not rest.optional for rest in toks[self.r :]):
                    return None
                break
            if not self._step(tok):
                return None
            self.r += 1
        if self.t == begin:
            return None
        return begin, self.t, self.groups

    def _step(self, tok: Token) -> bool:
        if tok.anything and tok.greedy:
            return self._anything_run(tok)
        if tok.choices is not None:
            return self._block(tok)
        if tok.anything:
            return not tok.negative and self._matched(tok)
        end_run = tok.end and tok.greedy and self.t < self.n - 1
        if end_run and self.ok(self.t, unanchored(tok)):
            return self._matched(tok)
        if tok.negative:
            return self._negative(tok)
        if self.ok(self.t, tok):
            return self._matched(tok)
        return tok.optional

    def _matched(self, tok: Token) -> bool:
        """The word at ``t`` satisfied ``tok``: advance (and repeat a ``+`` token)."""
        at = self.t
        following = self.next_tok()
        if tok.optional and following is not None:
            if tok.negative:
                return True
            # "#Adverb? #Verb": a word good for both lets the next token go, unless the word
            # after it is good for that token too
            if self.ok(at, following) and not (at + 1 < self.n and self.ok(at + 1, following)):
                self.r += 1
        self.t += 1
        if tok.end and self.t != self.n and not tok.greedy:
            return False
        if tok.greedy:
            end = self._repeat(tok, self.next_tok())
            if end is None or (tok.end and end != self.n):
                return False
            self.t = end
        self.grow(tok, at, self.t - at if tok.greedy else 1)
        return True

    def _repeat(self, tok: Token, stop: Token | None) -> int | None:
        """Where a ``+`` token's run ends: at the next token's match or its first miss."""
        plain = unanchored(tok)
        first = self.t
        limit = min(self.n, first + MAX_RUN)
        t = first
        while t < limit:
            count = t - first + 1
            if stop is not None and self.ok(t, stop) and (tok.min is None or count >= tok.min):
                return t
            if tok.max is not None and count == tok.max:
                return t
            if not self.ok(t, plain):
                return None if tok.min is not None and count < tok.min else t
            t += 1
        if tok.min is not None and t - first + 1 < tok.min:
            return None
        return t

    def _anything_run(self, tok: Token) -> bool:
        """``.*`` / ``.+``: skip to the next token's first match."""
        stop = self.next_tok()
        if stop is None:
            target: int | None = self.n
        else:
            target = next(
                (k for k in range(self.t, min(self.n, self.t + MAX_RUN)) if self.ok(k, stop)),
                None,
            )
        if target is None or target == 0:
            return False
        if tok.min is not None and target - self.t < tok.min:
            return False
        if tok.max is not None and target - self.t > tok.max:
            self.t += tok.max
            return True
        self.grow(tok, self.t, target - self.t)
        self.t = target
        return True

    def _choice_length(self, seq: tuple[Token, ...], skip: int) -> int:
        size = 0
        for tok in seq:
            k = self.t + skip + size
            if k >= self.n or not self.ok(k, tok):
                return 0
            size += 1
            if tok.greedy:
                plain = unanchored(tok)
                k += 1
                while k < min(self.n, self.t + skip + MAX_RUN) and self.ok(k, plain):
                    size += 1
                    k += 1
        return size

    def _block_length(self, tok: Token) -> int:
        assert tok.choices is not None
        if tok.all_of:  # every condition holds; the longest one counts
            longest = 0
            for seq in tok.choices:
                if not all(
                    self.t + w < self.n and self.ok(self.t + w, cond) for w, cond in enumerate(seq)
                ):
                    return 0
                longest = max(longest, len(seq))
            return longest

        def first_fit(skip: int) -> int:
            for seq in tok.choices or ():
                size = self._choice_length(seq, skip)
                if size:
                    return size
            return 0

        total = first_fit(0)
        if total and tok.greedy:
            more = first_fit(total)
            while more and total < MAX_RUN:
                total += more
                more = first_fit(total)
        return total

    def _block(self, tok: Token) -> bool:
        size = self._block_length(tok)
        if size:
            if tok.negative:
                return False
            if tok.end and self.t + size != self.n:
                return False
            self.grow(tok, self.t, size)
            self.t += size
            return True
        if tok.negative:
            if not tok.optional:
                self.t += 1
            return True
        return tok.optional

    def _negative(self, tok: Token) -> bool:
        """``!foo``: any word but one that satisfies ``foo``."""
        if tok.test(self.terms[self.t], self.t, self.n):
            return False
        if tok.optional:
            following = self.next_tok()
            if following is not None:
                if self.ok(self.t, following):
                    self.r += 1
                else:
                    after = self.next_tok(2)
                    if following.optional and after is not None and self.ok(self.t, after):
                        self.r += 2
        if tok.greedy:
            stop = self.next_tok()
            skip = 0
            for k in range(self.t, min(self.n, self.t + MAX_RUN)):
                if tok.test(self.terms[k], k, self.n):
                    break
                if stop is not None and self.ok(k, stop):
                    break
                skip += 1
                if tok.max is not None and skip == tok.max:
                    break
            if skip == 0 or (tok.min and tok.min > skip):
                return False
            self.t += skip
            return True
        self.t += 1
        return True
