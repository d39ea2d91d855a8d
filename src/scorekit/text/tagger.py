"""A part-of-speech tagger that reproduces the JS library compromise 14.17.0 on English text.

Mastra's completeness scorer depends on which words compromise tags as verbs. This tagger is
scorekit's own code over compromise's data (:mod:`scorekit.text.lexicon`), in compromise's
order of evidence:

1. tokens: whitespace-separated words, punctuation kept aside, hyphenated words split where
   compromise splits them (their two sides ``Hyphenated`` in step 3),
   contractions expanded into a written term and an implicit one (``don't`` → ``do`` +
   ``not``; ``it's`` → ``it`` + ``is``); another ``X's`` waits for step 4;
2. per word: the lexicon (read without a final ``'s``: ``japan's`` as ``japan``), else a
   title-cased word inside a sentence is a proper noun, else the longest known suffix
   (``-ing`` → gerund…), else digits are a number, else an ending pattern, else a known start
   (``nano-`` → noun);
3. per clause (split at sentence ends, and at commas where compromise's quick split cuts:
   :func:`clauses`): an acronym (``SARS``, :mod:`scorekit.text.acronyms`) is a noun, an
   untagged word takes a neighbour clue, else it is a noun; a common noun with no number
   gets ``Plural`` or ``Singular`` by its ending (``solids``, ``employer``); an ambiguous word
   (``Noun|Verb``, ``Adj|Gerund``…) is resolved by the clue tables (the word after, the word
   before, the tag before, the tag after);
4. compromise's second contraction pass, from the first tags: a ``'s`` of step 1 read as a
   verb becomes *has* before a past tense (``it's been``); another ``X's`` is a possessive
   or ``X`` + *is*/*has* (``Jeremy's a good guy``, :mod:`scorekit.text.contractions`), whose
   new terms and their neighbours are tagged again;
5. compromise's ~570 post-tagger context rules (:mod:`scorekit.text.postrules`), run as data
   by our own matcher over the clauses.

Every step is a dictionary look-up or a bounded scan, so tagging is linear in the text length.
"""

from __future__ import annotations

import functools
import re

from scorekit.text.acronyms import acronym_tags
from scorekit.text.contractions import has_follows, is_possessive
from scorekit.text.lexicon import (
    Lexicon,
    ending_guesses,
    lexicon,
    looks_plural,
    phrasal_verbs,
    prefix_guess,
)
from scorekit.text.postrules import apply_post_rules
from scorekit.text.term import Term, gc_paused
from scorekit.text.tokens import S_ENDINGS, clauses, tokenize

__all__ = ["clauses", "set_tag", "tag_text", "tokenize"]

_TITLE = re.compile(r"^[^\W\d_a-z][a-z'\u2019]")
_NUMBER = re.compile(r"^[0-9][0-9,.]*(st|nd|rd|th|s|k|m|%)?$")
_PREFIX = re.compile(r"^(under|over|mis|re|un|dis|semi)-?")
_ONE_DASH = re.compile(r"^[^\W\d_]+-[^\W\d_]+$")


@functools.cache
def _lineage(tag: str) -> tuple[str, ...]:
    """``tag``'s parents (in compromise's order), then ``tag``, as compromise's setTag adds them."""
    return (*lexicon().parents.get(tag, ()), tag)


def _record(term: Term, tag: str) -> None:
    """Note in ``term.order`` that ``tag`` arrives now (its parents first; a known tag stays)."""
    order = term.order
    new = [name for name in _lineage(tag) if name not in order]
    if new:
        term.order = (*order, *new)


def set_tag(term: Term, tag: str, lex: Lexicon) -> None:
    """Set ``tag`` on ``term``: drop the tags it conflicts with, add it and its parents."""
    conflicts = lex.conflicts.get(tag, frozenset())
    term.tags -= conflicts
    if not conflicts.isdisjoint(term.order):  # as a JS Set: a tag set again comes last
        term.order = tuple(name for name in term.order if name not in conflicts)
    term.tags.add(tag)
    term.tags.update(lex.parents.get(tag, ()))
    _record(term, tag)


_FILLED: dict[frozenset[str], frozenset[str]] = {}
"""A tag set with its parents added, by tag set (few distinct sets occur)."""


def _fill(term: Term, lex: Lexicon) -> None:
    tags = term.tags
    key = frozenset(tags)
    filled = _FILLED.get(key)
    if filled is None:
        grown = set(key)
        for tag in key:
            grown.update(lex.parents.get(tag, ()))
        if len(_FILLED) > 4096:
            _FILLED.clear()
        filled = _FILLED[key] = frozenset(grown)
    tags |= filled
    if len(tags) == 1 and "Verb" in tags:
        guess = lex.guess_tense(term.normal)
        if guess:
            term.tags.add(guess)
            _record(term, guess)


def _word_facts(word: str, lex: Lexicon) -> tuple[tuple[str, ...], str]:
    """The lexicon tags and the switch class of ``word`` (context-free; cached per text).

    The lexicon is read by compromise's ``machine`` form of the word, without a final ``'s``
    (``japan's`` has the tags of ``japan``) and without the hyphen of two words of letters that
    stay one term (``re-enact`` as ``reenact``); the switch class by the word itself.
    """
    switch = lex.switches.get(word, "")
    if not switch and _PREFIX.match(word):
        stem = _PREFIX.sub("", word)
        if len(stem) > 3:
            switch = lex.switches.get(stem, "")
    machine = word[:-2] if word[-2:] == "'s" else word
    if "-" in machine and _ONE_DASH.match(machine):  # "re-enact" is looked up as "reenact"
        machine = machine.replace("-", "")
    return lex.words.get(machine, ()), switch


_FirstPass = tuple[tuple[str, ...], str, tuple[str, ...]]  # tags, switch class, order


def _first_pass(term: Term, lex: Lexicon, cache: dict[tuple[str, str, bool], _FirstPass]) -> None:
    """The lexicon, the switch class, case, suffix and number guesses (no context).

    The result depends on the word, its written form and whether it opens a sentence only, so
    it is computed once per distinct triple of a text.
    """
    key = (term.normal, term.text, term.sentence_start)
    found = cache.get(key)
    if found is None:
        _first_pass_uncached(term, lex)
        found = cache[key] = (tuple(term.tags), term.switch, term.order)
        return
    term.tags.update(found[0])
    term.switch = found[1]
    term.order = found[2]


def _first_pass_uncached(term: Term, lex: Lexicon) -> None:
    word = term.normal
    tags, term.switch = _word_facts(word, lex)
    term.tags.update(tags)
    for tag in tags:  # compromise's setTag of each lexicon tag, in the lexicon's order
        _record(term, tag)
    if (
        not term.sentence_start
        and _TITLE.match(term.text)
        and word != "the"
        and not term.tags & {"Date", "Month", "WeekDay", "Unit", "Expression"}
    ):
        _fill(term, lex)
        if "Noun" not in term.tags:
            term.tags.clear()
            term.order = ()
        term.tags.add("ProperNoun")
        _record(term, "ProperNoun")
    if not term.tags:
        guess = _suffix_guess(word, lex)
        if not guess and _NUMBER.match(word):
            term.tags.update(("Cardinal", "NumericValue"))
            _record(term, "Cardinal")
            _record(term, "NumericValue")
            return
        guess = guess or _ending_guess(word) or prefix_guess(word)
        if guess:
            term.tags.add(guess)
            _record(term, guess)


def _ending_guess(word: str) -> str | None:
    """Guess an untagged word's tag by compromise's ending patterns (``-ised`` → past)."""
    for pattern, tag in ending_guesses().get(word[-1:], ()):
        if pattern.search(word):
            return tag
    return None


def _suffix_guess(word: str, lex: Lexicon) -> str | None:
    longest = min(7, len(word) - 1)
    for size in range(longest, 1, -1):
        if size < len(lex.suffixes):
            tag = lex.suffixes[size].get(word[-size:])
            if tag:
                return tag
    return None


def _neighbour(terms: list[Term], i: int) -> str | None:
    before = terms[i - 1] if i > 0 else None
    after = terms[i + 1] if i + 1 < len(terms) else None
    left_words, right_words, left_tags, right_tags = _neighbour_tables()
    tag = left_words.get(before.normal) if before is not None else None
    tag = tag or (right_words.get(after.normal) if after is not None else None)
    for other, table in ((before, left_tags), (after, right_tags)):
        if not tag and other is not None and other.tags:
            tag = _first_clue(other.tags, table)
    return tag


def _first_clue(tags: set[str], table: dict[str, tuple[int, str]]) -> str | None:
    """The clue of the earliest table entry whose tag is in ``tags`` (as a scan would find)."""
    best: tuple[int, str] | None = None
    for name in tags:
        entry = table.get(name)
        if entry is not None and (best is None or entry[0] < best[0]):
            best = entry
    return best[1] if best is not None else None


@functools.cache
def _neighbour_tables() -> tuple[
    dict[str, str], dict[str, str], dict[str, tuple[int, str]], dict[str, tuple[int, str]]
]:
    """The neighbour clues as look-up tables (the first clue for a key wins, as in a scan)."""
    clue = lexicon().neighbours

    def words(key: str) -> dict[str, str]:
        table: dict[str, str] = {}
        for word, tag in clue[key]:
            table.setdefault(word, tag)
        return table

    def tags(key: str) -> dict[str, tuple[int, str]]:
        table: dict[str, tuple[int, str]] = {}
        for rank, (name, tag) in enumerate(clue[key]):
            table.setdefault(name, (rank, tag))
        return table

    return words("leftWords"), words("rightWords"), tags("leftTags"), tags("rightTags")


def _by_depth(term: Term, table: dict[str, str | None], lex: Lexicon) -> str | None:
    """The clue for the most specific of ``term``'s tags found in ``table``.

    Source: compromise 14.17.0 ``checkTag`` (preTagger switches): the tags sorted by their
    number of parents, most first, by a stable sort over the tags' insertion order; the first
    with a clue wins. Ties (``Actor`` and ``ProperNoun`` of "Officer", one parent each) go to
    the tag that came first (:attr:`Term.order`), never to Python's ``set`` order.
    """
    tags = term.tags
    depth = _depths()
    best: str | None = None
    most = -1
    tied = False
    for tag in tags:  # the set's order decides nothing here: ties are settled below
        if table.get(tag):
            rank = depth.get(tag, 0)
            if rank > most:
                best, most, tied = tag, rank, False
            elif rank == most:
                tied = True
    if tied:  # the first of the most specific in compromise's order (then by name, if unseen)
        best = next(
            tag
            for tag in (*term.order, *sorted(tags.difference(term.order)))
            if tag in tags and table.get(tag) and depth.get(tag, 0) == most
        )
    return table[best] if best is not None else None


@functools.cache
def _depths() -> dict[str, int]:
    """Each tag's number of parents (compromise's specificity rank)."""
    return {tag: len(parents) for tag, parents in lexicon().parents.items()}


def _resolve_switch(terms: list[Term], i: int, lex: Lexicon, split: bool = False) -> str | None:
    term = terms[i]
    clues = lex.clues.get(term.switch)
    if not clues:
        return None
    before_index = i - 1 if i == 0 or terms[i - 1].text != "also" else max(0, i - 2)
    if not split and before_index > 0 and _is_apostrophe_s(terms, before_index):
        # compromise splits "it's" only after this pass: the word before is "it's" itself
        before_index -= 1
    before = terms[before_index] if i > 0 else None
    after = terms[i + 1] if i + 1 < len(terms) else None
    tag: str | None = None
    if after is not None:
        tag = clues.get("afterWords", {}).get(after.normal)
    if not tag and before is not None:
        tag = clues.get("beforeWords", {}).get(before.normal)
    if not tag and before is not None:
        tag = _by_depth(before, clues.get("beforeTags", {}), lex)
    if not tag and after is not None:
        tag = _by_depth(after, clues.get("afterTags", {}), lex)
    return tag


def _is_apostrophe_s(terms: list[Term], i: int) -> bool:
    """Whether ``terms[i]`` is the implicit *is* of a written ``X's``."""
    term = terms[i]
    return term.implicit and term.normal == "is" and terms[i - 1].text[-2:] in S_ENDINGS


_UNCOUNTED = frozenset(
    {"Acronym", "Abbreviation", "ProperNoun", "Uncountable", "Possessive", "Pronoun"}
    | {"Activity", "Honorific", "Month"}
)


def _set_number(term: Term) -> None:
    """Give a noun with no number ``Plural`` or ``Singular`` by its spelling (``-s``).

    Source: compromise 14.17.0 ``setPluralSingular`` (preTagger ``fillTags``); proper nouns,
    pronouns, possessives, acronyms and the like keep no number.
    """
    tags = term.tags
    if "Noun" not in tags or "Plural" in tags or "Singular" in tags:
        return
    if not tags.isdisjoint(_UNCOUNTED):
        return
    tag = "Plural" if looks_plural(term.normal) else "Singular"
    tags.add(tag)
    _record(term, tag)


def _acronym(term: Term, lex: Lexicon) -> None:
    """Tag an acronym (``SARS``) as :func:`~scorekit.text.acronyms.acronym_tags` says."""
    text = term.text
    if text.islower() and "Organization" not in term.tags:
        return  # the common case, decided without the call: acronyms need a capital
    found = acronym_tags(text, term.normal, term.tags, term.normal in lex.words)
    if found is None:
        return
    if found[0] == "":  # the word's other tags are dropped
        term.tags.clear()
        term.order = ()
        found = found[1:]
    for tag in found:
        term.tags.add(tag)
        _record(term, tag)


def _tag_clause(terms: list[Term], lex: Lexicon, split: bool = False) -> None:
    """Tag one clause: compromise's third pass (``split``: the re-tagging after a split)."""
    for i, term in enumerate(terms):
        _acronym(term, lex)
        _fill(term, lex)
        _set_number(term)
        if not term.tags:
            guess = _neighbour(terms, i) or "Noun"
            term.tags.add(guess)
            _record(term, guess)
            _fill(term, lex)
            _set_number(term)
    for i, term in enumerate(terms):
        if term.switch and not term.tags & {"Acronym", "PhrasalVerb"}:
            tag = _resolve_switch(terms, i, lex, split)
            if tag:
                set_tag(term, tag, lex)
        if term.post == "-" and i + 1 < len(terms):  # compromise's byHyphen: "non-vanishing"
            set_tag(term, "Hyphenated", lex)
            set_tag(terms[i + 1], "Hyphenated", lex)


_HAVE = frozenset({"have", "has", "had", "having"})


def _phrasal(terms: list[Term], lex: Lexicon) -> None:
    """Tag compromise's two-word phrasal verbs: ``runs through``, ``have to``, ``took on``.

    A verb followed (without punctuation between) by its particle gets the entry's tense and
    ``PhrasalVerb``; the particle becomes a verb particle. *have to* makes *have* an auxiliary.
    """
    table = phrasal_verbs()
    for i in range(len(terms) - 1):
        first, second = terms[i], terms[i + 1]
        if first.post or second.implicit or first.implicit:
            continue
        tense = table.get(f"{first.normal} {second.normal}")
        if tense is None:
            continue
        set_tag(first, tense, lex)
        first.tags.add("PhrasalVerb")
        _record(first, "PhrasalVerb")
        first.switch = ""
        second.tags = {"Verb", "PhrasalVerb", "Particle"}
        second.order = ("Verb", "PhrasalVerb", "Particle")
        second.switch = ""
        if first.normal in _HAVE and second.normal == "to":
            first.tags.add("Auxiliary")
            _record(first, "Auxiliary")


def _is_or_has(terms: list[Term], lex: Lexicon) -> None:
    """Turn the implicit *is* of ``X's`` into *has* where compromise does, and re-tag it."""
    for i, term in enumerate(terms):
        if not (term.implicit and term.normal == "is" and i > 0):
            continue
        head = terms[i - 1].text.lower().replace("\u2019", "'")
        if not head.endswith("'s") or head[:-2] in ("let", "there"):
            continue
        if has_follows(terms, i):
            term.normal = "has"
            term.switch = ""
            term.tags = set(lex.words.get("has", ()))
            term.order = ()
            for tag in lex.words.get("has", ()):
                _record(term, tag)
            _fill(term, lex)


def _split_apostrophe_s(terms: list[Term], lex: Lexicon) -> list[Term]:
    """Split each written ``X's`` that is no possessive into ``X`` and an implicit *is*/*has*.

    Source: compromise 14.17.0 ``contractionTwo``, after the first tagging: each sentence is
    read backwards; a possessive (:func:`~scorekit.text.contractions.is_possessive`) gets
    ``Possessive``, another ``X's`` becomes ``X`` (looked up again) and *has* or *is*
    (:func:`~scorekit.text.contractions.has_follows`), and the two new terms with the word
    before and the word after them are tagged again, as a clause of their own.
    """
    out: list[Term] = []
    starts = [k for k, term in enumerate(terms) if term.sentence_start or k == 0]
    for begin, end in zip(starts, [*starts[1:], len(terms)], strict=False):
        sentence = terms[begin:end]
        for i in range(len(sentence) - 1, -1, -1):
            term = sentence[i]
            if term.implicit or term.normal[-2:] != "'s" or len(term.normal) < 3:
                continue
            if is_possessive(sentence, i, len(sentence)):
                set_tag(term, "Possessive", lex)
                continue
            verb = Term("", "is", term.post, False, set(), "", True)
            sentence.insert(i + 1, verb)
            if has_follows(sentence, i + 1):
                verb.normal = "has"
            term.normal, term.post = term.normal[:-2], ""
            for new in (term, verb):
                new.tags, new.order = set(), ()
                _first_pass_uncached(new, lex)
            part = sentence[max(0, i - 1) : i + 3]
            for clause in clauses(part):
                _tag_clause(clause, lex, split=True)
        out.extend(sentence)
    return out


def tag_text(text: str) -> list[Term]:
    """Tokenize and tag ``text`` as compromise 14.17.0 would (see the module docstring).

    Args:
        text: any string (it may be empty, unpunctuated or not English).

    Returns:
        The terms in order, each with its compromise tags.

    Example:
        >>> [sorted(t.tags & {"Noun", "Verb"}) for t in tag_text("Dogs bark")]
        [['Noun'], ['Verb']]
    """
    lex = lexicon()
    with gc_paused():
        terms = tokenize(text)
        cache: dict[tuple[str, str, bool], _FirstPass] = {}
        for term in terms:
            _first_pass(term, lex, cache)
        _phrasal(terms, lex)
        parts = list(clauses(terms))
        for clause in parts:
            _tag_clause(clause, lex)
        _is_or_has(terms, lex)
        terms = _split_apostrophe_s(terms, lex)
        parts = list(clauses(terms))
        apply_post_rules(parts, lex)
    return terms
