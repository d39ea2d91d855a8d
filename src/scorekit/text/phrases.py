"""Chunks and verb phrases of a tagged text, as compromise 14.17.0 finds them.

compromise's ``verbs()`` returns the runs of words in a *Verb chunk*, split by a few rules.
This module reproduces both steps over :class:`scorekit.text.term.Term` lists with our own
code (the rules are compromise's, written out as small local checks):

1. chunks (compromise's ``chunks`` compute): a verb is in a Verb chunk, a noun, determiner or
   value in a Noun chunk; an adjective or adverb takes its chunk from its neighbours; a dozen
   local patterns override (``is [really] nice`` → Adjective, ``tries [to] walk`` → Verb,
   ``son of a gun`` → Noun…); conjunctions and prepositions are Pivots, adverbs Verbs, the
   rest Nouns; a Verb chunk without a verb is no chunk;
2. verb phrases (compromise's ``findVerbs``): each run of Verb-chunk words in a sentence,
   without conjunctions, prepositions, adjectives and a final reflexive, split after a comma,
   between two past tenses (``met told``), after *help* before a present tense, before a
   final copula after a tense (``what I sell is``), and so on.

Every rule looks at a bounded window, so the work is linear in the number of words.
"""

from __future__ import annotations

import re

from scorekit.text.term import Term

__all__ = ["assign_chunks", "verb_phrases"]

_SENTENCE_END = re.compile(r"[.!?]")
_WANT = frozenset({"want", "wants", "wanted"})
_SPLIT_COPULA = frozenset({"do", "did", "am", "was", "is", "will"})
# the tags and words the chunk patterns of _match_rules start at (the only ones indexed)
_INDEXED_TAGS = frozenset(
    {"PastTense", "Copula", "Adjective", "Adverb", "Gerund", "PresentTense", "Verb"}
    | {"Preposition", "Infinitive", "Value"}
)
_INDEXED_WORDS = frozenset({"that", "so", "of", "the", "in", "and"})
_NO_TAGS: frozenset[str] = frozenset()
_PAD = 4  # the farthest a chunk pattern looks from the word it starts at


def _sentences(terms: list[Term]) -> list[tuple[int, int]]:
    """The ``[start, end)`` spans of the sentences."""
    spans: list[tuple[int, int]] = []
    begin = 0
    for i, term in enumerate(terms):
        if i > begin and term.sentence_start:
            spans.append((begin, i))
            begin = i
    if begin < len(terms):
        spans.append((begin, len(terms)))
    return spans


def _easy(term: Term) -> str | None:
    if term.normal == "this":
        return "Noun"
    if term.normal == "then":
        return "Pivot"
    if "Verb" in term.tags:
        return "Verb"
    if "Noun" in term.tags or "Determiner" in term.tags or "Value" in term.tags:
        return "Noun"
    if "QuestionWord" in term.tags:
        return "Pivot"
    return None


def _by_neighbour(term: Term, left: Term | None, right: Term | None) -> str | None:
    if "Adjective" in term.tags:
        if left is not None and "Copula" in left.tags:
            return "Adjective"
        if left is not None and "Determiner" in left.tags:
            return "Noun"
        if right is not None and "Noun" in right.tags:
            return "Noun"
        return None
    if "Adverb" in term.tags or "Negative" in term.tags:
        for side, tags in ((left, ("Adjective", "Verb")), (right, ("Adjective", "Verb"))):
            for tag in tags:
                if side is not None and side.has(tag):
                    return tag
    return None


def _set(chunks: list[str | None], start: int, end: int, chunk: str) -> None:
    for k in range(start, end):
        chunks[k] = chunk


def _match_rules(terms: list[Term], chunks: list[str | None], a: int, b: int) -> None:
    """Apply compromise's chunk patterns in its order (a later rule overwrites an earlier one).

    Each rule visits only the words that can start it (an index of tags and ``=word``s).
    """
    # the tags and words of terms[a:b], padded so that a look outside the sentence (at most
    # _PAD words) finds nothing: position k is at k + shift
    tag_sets: list[set[str] | frozenset[str]] = [_NO_TAGS] * _PAD
    normals = [""] * _PAD
    index: dict[str, list[int]] = {}
    for k in range(a, b):
        term = terms[k]
        tags = term.tags
        tag_sets.append(tags)
        normals.append(term.normal)
        for key in tags & _INDEXED_TAGS:
            index.setdefault(key, []).append(k)
        if term.normal in _INDEXED_WORDS:
            index.setdefault("=" + term.normal, []).append(k)
    tag_sets.extend([_NO_TAGS] * _PAD)
    normals.extend([""] * _PAD)
    shift = _PAD - a

    def at(*keys: str) -> list[int]:
        if len(keys) == 1:
            return index.get(keys[0], [])
        return sorted({k for key in keys for k in index.get(key, ())})

    def has(k: int, tag: str) -> bool:
        return tag in tag_sets[k + shift]

    def has_any(k: int, *tags: str) -> bool:
        return not tag_sets[k + shift].isdisjoint(tags)

    def word(k: int, *words: str) -> bool:
        return normals[k + shift] in words

    def run(k: int, tag: str) -> int:
        """The end of the run of words from ``k`` that carry ``tag``."""
        while tag in tag_sets[k + shift]:
            k += 1
        return k

    for i in at("=that"):  # [that] #Determiner #Noun; #PastTense [that]; [so] #Determiner
        if word(i, "that") and has(i + 1, "Determiner") and has(i + 2, "Noun"):
            chunks[i] = "Pivot"
    for i in at("PastTense"):
        if has(i, "PastTense") and word(i + 1, "that"):
            chunks[i + 1] = "Pivot"
    for i in at("=so"):
        if word(i, "so") and has(i + 1, "Determiner"):
            chunks[i] = "Pivot"
    for i in at("Copula"):  # #Copula #Adverb+? [#Adjective]
        if has(i, "Copula"):
            k = run(i + 1, "Adverb")
            if has(k, "Adjective"):
                chunks[k] = "Adjective"
            elif k != i + 1 and has(i + 1, "Adjective"):
                chunks[i + 1] = "Adjective"
    for i in at("Adjective"):  # #Adjective and #Adjective
        if has(i, "Adjective") and word(i + 1, "and") and has(i + 2, "Adjective"):
            _set(chunks, i, i + 3, "Adjective")
    for i in at("Adverb"):  # #Adverb+ and #Adverb #Verb
        if has(i, "Adverb") and (i == a or not has(i - 1, "Adverb")):
            k = run(i, "Adverb")
            if word(k, "and") and has(k + 1, "Adverb") and has(k + 2, "Verb"):
                _set(chunks, i, k + 3, "Verb")
    for i in at("Gerund"):
        if has(i, "Gerund") and has(i + 1, "Adjective") and i + 2 == b:  # #Gerund #Adjective$
            _set(chunks, i, i + 2, "Verb")
        if has(i, "Gerund") and word(i + 1, "to") and has(i + 2, "Verb"):  # #Gerund to #Verb
            _set(chunks, i, i + 3, "Verb")
    for i in at("PresentTense"):  # #PresentTense and #PresentTense
        if has(i, "PresentTense") and word(i + 1, "and") and has(i + 2, "PresentTense"):
            _set(chunks, i, i + 3, "Verb")
    for i in at("Adverb", "Verb"):
        if has(i, "Adverb") and has(i + 1, "Negative"):  # #Adverb #Negative
            _set(chunks, i, i + 2, "Verb")
        if word(i, *_WANT) and word(i + 1, "to") and has(i + 2, "Infinitive"):
            _set(chunks, i, i + 3, "Verb")
        if has(i, "Verb") and has(i + 1, "Reflexive"):  # #Verb #Reflexive
            _set(chunks, i, i + 2, "Verb")
    for i in at("Verb"):  # #Verb [to] #Adverb? #Infinitive
        if has(i, "Verb") and word(i + 1, "to"):
            k = i + 3 if has(i + 2, "Adverb") and has(i + 3, "Infinitive") else i + 2
            if has(k, "Infinitive"):
                chunks[i + 1] = "Verb"
    for i in at("Preposition"):  # [#Preposition] #Gerund
        if has(i, "Preposition") and has(i + 1, "Gerund"):
            chunks[i] = "Verb"
    for i in at("Infinitive"):  # #Infinitive [that] <Noun>
        if has(i, "Infinitive") and word(i + 1, "that") and i + 2 < b and chunks[i + 2] == "Noun":
            chunks[i + 1] = "Verb"
    for i in [j - 1 for j in at("=of")]:  # #Noun of #Determiner? #Noun
        if has(i, "Noun") and word(i + 1, "of"):
            k = i + 3 if has(i + 2, "Determiner") and has(i + 3, "Noun") else i + 2
            if has(k, "Noun"):
                _set(chunks, i, k + 1, "Noun")
    for i in at("Value"):  # #Value+ #Adverb? #Adjective
        if has(i, "Value") and (i == a or not has(i - 1, "Value")):
            k = run(i, "Value")
            j = k + 1 if has(k, "Adverb") and has(k + 1, "Adjective") else k
            if has(j, "Adjective"):
                _set(chunks, i, j + 1, "Noun")
    for i in at("=the"):  # the [#Adjective] #Noun
        if word(i, "the") and has(i + 1, "Adjective") and has(i + 2, "Noun"):
            _set(chunks, i, i + 3, "Noun")
    for i in [j - 1 for j in at("=in")]:  # #Singular in #Determiner? #Singular
        if has(i, "Singular") and word(i + 1, "in"):
            k = i + 3 if has(i + 2, "Determiner") and has(i + 3, "Singular") else i + 2
            if has(k, "Singular"):
                _set(chunks, i, k + 1, "Noun")
    for i in [j - 1 for j in at("=in")]:  # #Plural [in] #Determiner? #Noun
        if has(i, "Plural") and word(i + 1, "in"):
            k = i + 3 if has(i + 2, "Determiner") and has(i + 3, "Noun") else i + 2
            if has(k, "Noun"):
                chunks[i + 1] = "Pivot"
    # #Noun and #Determiner? #Noun, not with a possessive or a pronoun
    for i in [j - 1 for j in at("=and")]:
        if has(i, "Noun") and word(i + 1, "and"):
            k = i + 3 if has(i + 2, "Determiner") and has(i + 3, "Noun") else i + 2
            pronoun = any(has_any(j, "Possessive", "Pronoun") for j in range(i, k + 1))
            if has(k, "Noun") and not pronoun:
                _set(chunks, i, k + 1, "Noun")


def assign_chunks(terms: list[Term]) -> list[str | None]:
    """Return each term's compromise chunk: ``Noun``, ``Verb``, ``Adjective``, ``Pivot`` or none."""
    chunks: list[str | None] = [_easy(t) for t in terms]
    for a, b in _sentences(terms):
        for i in range(a, b):
            if chunks[i] is None:
                left = terms[i - 1] if i > a else None
                right = terms[i + 1] if i + 1 < b else None
                chunks[i] = _by_neighbour(terms[i], left, right)
        _match_rules(terms, chunks, a, b)
    for i, term in enumerate(terms):
        if chunks[i] is None:
            if "Conjunction" in term.tags or "Preposition" in term.tags:
                chunks[i] = "Pivot"
            elif "Adverb" in term.tags:
                chunks[i] = "Verb"
            else:
                chunks[i] = "Noun"
    # a Verb chunk (across sentences, as compromise groups them) needs a verb
    i = 0
    while i < len(terms):
        j = i
        while j < len(terms) and chunks[j] == chunks[i]:
            j += 1
        if chunks[i] == "Verb" and not any("Verb" in terms[k].tags for k in range(i, j)):
            _set(chunks, i, j, "")
        i = j
    return chunks


def _split(phrase: list[int], terms: list[Term]) -> list[list[int]]:
    """Split one run of Verb-chunk words with compromise's ``findVerbs`` rules."""

    def t(k: int) -> Term:
        return terms[phrase[k]]

    n = len(phrase)
    cuts: set[int] = set()  # a cut at k separates phrase[k - 1] from phrase[k]
    for k in range(n):
        if k + 1 < n and "," in t(k).post:
            cuts.add(k + 1)
        if k + 1 < n and t(k).normal in _SPLIT_COPULA and t(k + 1).normal in ("is", "was"):
            cuts.add(k + 1)
        before_is_verb = k > 0 and "Verb" in t(k - 1).tags
        being = k < n - 1 and t(k).normal == "being" and "Verb" in t(k + 1).tags
        if before_is_verb and being and "Copula" not in t(k - 1).tags:  # like [being] pampered
            cuts.add(k)
        to_be = k < n - 2 and t(k).normal == "to" and t(k + 1).normal == "be"
        if before_is_verb and to_be and "Verb" in t(k + 2).tags:  # like [to be] pampered
            cuts.add(k)
        if k + 1 < n and t(k).normal == "help" and "PresentTense" in t(k + 1).tags:
            cuts.add(k + 1)
        tensed = "PresentTense" in t(k).tags or "PastTense" in t(k).tags
        if tensed and k + 2 == n and "Copula" in t(k + 1).tags:
            cuts.add(k + 1)
        if tensed and k + 3 == n and t(k + 1).normal == "will" and t(k + 2).normal == "be":
            cuts.add(k + 1)
        if tensed and k + 1 < n and t(k + 1).normal in ("had", "has"):
            cuts.add(k + 1)
    return _cut(phrase, cuts)


def _cut(phrase: list[int], cuts: set[int]) -> list[list[int]]:
    parts: list[list[int]] = []
    begin = 0
    for k in sorted(cuts):
        if 0 < k < len(phrase):
            parts.append(phrase[begin:k])
            begin = k
    parts.append(phrase[begin:])
    return [p for p in parts if p]


def _split_past(phrase: list[int], terms: list[Term]) -> list[list[int]]:
    """Split between two past tenses, also across auxiliaries, and after *is [running] built*."""
    n = len(phrase)
    cuts: set[int] = set()
    for k in range(n - 1):
        term = terms[phrase[k]]
        if "PastTense" in term.tags:
            j = k + 1
            while j < n and "Auxiliary" in terms[phrase[j]].tags:
                j += 1
            if j < n and "PastTense" in terms[phrase[j]].tags:
                cuts.add(k + 1)
        copula_before = k > 0 and "Copula" in terms[phrase[k - 1]].tags
        if copula_before and "Gerund" in term.tags and "PastTense" in terms[phrase[k + 1]].tags:
            cuts.add(k + 1)
    return _cut(phrase, cuts)


def _is_aux_verb(term: Term) -> bool:
    return "Verb" in term.tags and "Auxiliary" not in term.tags


def verb_phrases(terms: list[Term]) -> list[tuple[int, int]]:
    """Return the ``[start, end)`` spans of compromise's verb phrases (``doc.verbs()``)."""
    chunks = assign_chunks(terms)
    runs: list[list[int]] = []
    for a, b in _sentences(terms):
        current: list[int] = []
        for i in range(a, b + 1):
            term = terms[i] if i < b else None
            keep = (
                term is not None
                and chunks[i] == "Verb"
                and "Conjunction" not in term.tags
                and "Preposition" not in term.tags
            )
            if keep:
                current.append(i)
            elif current:
                runs.append(current)
                current = []
    phrases: list[list[int]] = []
    for run in runs:
        for part in _split(run, terms):
            if part and "Reflexive" in terms[part[-1]].tags:
                part = part[:-1]
            pieces: list[list[int]] = [[]]
            for k in part:  # adjectives leave the phrase, splitting it
                if "Adjective" in terms[k].tags:
                    pieces.append([])
                else:
                    pieces[-1].append(k)
            for piece in pieces:
                phrases.extend(p for p in _split_past(piece, terms) if p)
    phrases = [p for p in phrases if any("Verb" in terms[k].tags for k in p)]
    # "held annually is called": when some phrase has a verb, adverbs and then a copula,
    # every phrase is split before each copula
    if any(_verb_then_copula(p, terms) for p in phrases):
        split: list[list[int]] = []
        for p in phrases:
            split.extend(_cut(p, {k for k in range(1, len(p)) if "Copula" in terms[p[k]].tags}))
        phrases = split
    return [(p[0], p[-1] + 1) for p in phrases]


def _verb_then_copula(phrase: list[int], terms: list[Term]) -> bool:
    for k in range(len(phrase) - 1):
        if _is_aux_verb(terms[phrase[k]]):
            j = k + 1
            while j < len(phrase) and "Adverb" in terms[phrase[j]].tags:
                j += 1
            if j < len(phrase) and "Copula" in terms[phrase[j]].tags:
                return True
    return False
