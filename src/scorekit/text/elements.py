"""The content words ("elements") of a text, as Mastra's completeness scorer takes them.

Mastra evals 1.10.2 completeness (mastra-scorers.md §2.4, §3.2) takes, with the JS library
compromise 14.17.0, ``nouns()``, then ``verbs().toInfinitive()`` (which rewrites the document
in place), then ``topics()`` and ``terms()`` of the rewritten document; every string is cleaned
(NFD, combining marks U+0300–U+036F removed, lowercased, ``[^a-z0-9]+`` → space) and split into
words, and the words are de-duplicated, first occurrence first. Because ``terms()`` covers every
word and ``topics()`` is a subset of it, the element *set* is the words of the text with each
verb phrase rewritten as compromise does, plus the written form of contractions that sit in a
noun phrase (``it's`` → ``it``, ``s``).

The words are tagged by :mod:`scorekit.text.tagger` (compromise's lexicon and rules) and the
verb phrases found by :mod:`scorekit.text.phrases` (compromise's chunks and ``findVerbs``). A
phrase is rewritten as compromise's ``toInfinitive`` does:

* the root is the last run of words that are not auxiliaries (as the tagger's post-rules tag
  them: ``to be paid`` keeps ``be``, ``has been running`` does not), modals, negations,
  adverbs or prefixes (``want to``/``going to`` excluded; a negated ``have to go`` keeps
  ``have``); the words before it that are not adverbs, negations or prefixes (the
  auxiliaries) are dropped;
* the root becomes its infinitive (:func:`scorekit.text.lexicon.to_infinitive`) by the tense
  of any of its words, a verb and its particle at most: ``was running`` → ``run``, ``runs
  through`` → ``run through``, ``reports show`` unchanged (an infinitive is in it); a third
  word of the root is dropped (``reports blocking in`` → ``reports blocking``);
* a negated phrase gets ``not`` (when it has none) and ``do``/``does`` in front: ``do`` when
  are/were/does remain in it, after *I*, *we*, *they*, *those* or a plural noun; the implicit
  ``not`` of a contraction between two removed auxiliaries is lost, and none is added
  (``wouldn't be advised`` → ``does advise``, as compromise's removal of the auxiliaries does);
* compromise tags the sentence again after each phrase it rewrites, so in a later phrase of
  the sentence a verb with no tense (an imperative) is an infinitive and stays as it is
  (``…, access to systems`` keeps ``access``);
* a contraction whose implicit half is rewritten loses its written suffix (``that's`` →
  ``that be``), except in a noun phrase, which is taken before the rewrite (``it's``).

``benchmarks/completeness_parity.py`` measures the agreement with the real library.
"""

from __future__ import annotations

import re
import unicodedata

from scorekit.text.lexicon import to_infinitive
from scorekit.text.phrases import verb_phrases
from scorekit.text.tagger import tag_text
from scorekit.text.term import Term, gc_paused
from scorekit.text.whitespace import js_trim

__all__ = ["clean_words", "extract_elements"]

_COMBINING = re.compile("[\u0300-\u036f]")
_NON_ALNUM = re.compile("[^a-z0-9]+")
_SENTENCE_END = re.compile("[.!?]")
_CONTRACTION = re.compile("['\u2019][^'\u2019]*$")
_NOT_ROOT = frozenset({"Negative", "Auxiliary", "Modal", "Adverb", "Prefix"})
_KEPT_BEFORE_ROOT = frozenset({"Adverb", "Negative", "Prefix"})
_TENSES = ("Infinitive", "Participle", "PastTense", "Gerund", "PresentTense")
_PLURAL_SUBJECTS = frozenset({"i", "we", "they", "those"})
_HAVE = frozenset({"have", "has", "had", "having"})
_WANT_GOING = frozenset({"want", "wants", "wanted", "going"})
_CONVERTIBLE = ("Participle", "PastTense", "PresentTense", "Gerund")


def clean_words(text: str) -> list[str]:
    """Clean one compromise string as Mastra completeness does and split it into words.

    NFD-normalise, drop U+0300–U+036F, lowercase, replace ``[^a-z0-9]+`` with a space, split.
    Letters outside a–z that survive NFD (``ß``, Cyrillic, CJK) become separators.

    Args:
        text: any string.

    Returns:
        The words, possibly none.

    Example:
        >>> clean_words("Café-résumé, naïve!")
        ['cafe', 'resume', 'naive']
    """
    lowered = _COMBINING.sub("", unicodedata.normalize("NFD", text)).lower()
    return _NON_ALNUM.sub(" ", lowered).split()


def _tense(terms: list[Term], span: list[int]) -> str | None:
    """Return compromise's ``getTense`` of a root: the first of its tenses that any word carries."""
    return next((t for t in _TENSES if any(terms[k].has(t) for k in span)), None)


def _root(terms: list[Term], span: list[int]) -> list[int]:
    """The main verb of a phrase, as compromise's ``getMain`` finds it.

    In a phrase of several words the root is the last run of words that are not auxiliaries,
    modals, negations, adverbs or prefixes; without such words, the words that are not
    negations.
    """
    if len(span) == 1:
        return span
    runs: list[list[int]] = []
    for k in span:
        if not terms[k].tags.isdisjoint(_NOT_ROOT):
            continue
        if runs and runs[-1][-1] == k - 1:
            runs[-1].append(k)
        else:
            runs.append([k])
    root = runs[-1] if runs else []
    # "want to" is never part of the root
    # "want to" is never part of the root, and "going to" is an auxiliary ("going to be")
    while len(root) > 2 and terms[root[0]].normal in _WANT_GOING and terms[root[1]].normal == "to":
        root = root[2:]
    # a negated "(do) not have to go" keeps "have to go" (compromise re-tags the expanded
    # contraction, and "have" is no longer an auxiliary)
    negated = any("Negative" in terms[k].tags for k in span)
    if (
        negated
        and root
        and terms[root[0]].normal == "to"
        and root[0] - 1 in span
        and terms[root[0] - 1].normal in _HAVE
    ):
        root = [root[0] - 1, *root]
    if not root:
        root = [k for k in span if "Negative" not in terms[k].tags]
    return root


def _infinitive(terms: list[Term], root: list[int]) -> list[str]:
    """The root as compromise's ``toInfinitive`` rewrites it (a verb and at most a particle)."""
    words = [terms[k].normal for k in root]
    tense = _tense(terms, root)
    if len(words) == 1:
        return [to_infinitive(words[0], tense)]
    if tense not in _CONVERTIBLE:
        return words
    # compromise's toParts keeps the first two words only: a third is lost in the rewrite
    # ("reports blocking in" → "reports blocking")
    return to_infinitive(" ".join(words[:2]), tense).split()


def _is_plural(terms: list[Term], start: int, words: list[str]) -> bool:
    """Tell compromise's ``doDoes`` choice: *do* with are/were/does left or a plural subject.

    The subject is the nearest noun before the phrase in its sentence (a determiner such as
    *that* is skipped).
    """
    if any(word in ("are", "were", "does") for word in words):
        return True
    for k in range(start - 1, -1, -1):
        term = terms[k]
        if term.normal in _PLURAL_SUBJECTS or "Plural" in term.tags:
            return True
        if "Noun" in term.tags and "Determiner" not in term.tags:
            return False
        if term.sentence_start or _SENTENCE_END.search(term.post):
            break
    return False


_Rewrites = dict[tuple[tuple[str, str, frozenset[str]], ...], tuple[list[str], bool]]


def _rewrite(terms: list[Term], start: int, end: int, memo: _Rewrites) -> list[str]:
    """Rewrite the verb phrase ``terms[start:end]`` as compromise's ``toInfinitive`` does.

    The rewrite without *do*/*does* depends on the phrase's words and tags only, so it is
    computed once per distinct phrase of a text (``memo``); *do*/*does* looks at the subject.
    """
    key = tuple((t.normal, t.text, frozenset(t.tags)) for t in terms[start:end])
    found = memo.get(key)
    if found is None:
        found = memo[key] = _rewrite_phrase(terms, start, end)
    words, negated = found
    if negated:
        return ["do" if _is_plural(terms, start, words) else "does", *words]
    return list(words)


def _rewrite_phrase(terms: list[Term], start: int, end: int) -> tuple[list[str], bool]:
    """The rewritten phrase without the *do*/*does* of a negation, and whether it is negated."""
    span = list(range(start, end))
    root = _root(terms, span)
    first = root[0] if root else end
    negated = any("Negative" in terms[k].tags for k in span)

    def dropped(k: int) -> bool:  # an auxiliary, removed by the rewrite
        return start <= k < first and terms[k].tags.isdisjoint(_KEPT_BEFORE_ROOT)

    words: list[str] = []
    vanished = False
    for k in span:
        term = terms[k]
        if k == first:
            words.extend(_infinitive(terms, root))
        elif k in root or dropped(k):
            continue
        elif term.implicit and not term.text and dropped(k - 1) and dropped(k + 1):
            # compromise loses the implicit "not" of "wouldn't" when the auxiliaries on both
            # sides of it are removed ("wouldn't be advised" → "does advise"), and adds none
            vanished = True
        else:
            words.append(term.text or term.normal)
    if negated and not vanished and "not" not in words:
        words.insert(0, "not")
    return words, negated


_VERB_TYPES = frozenset({"PastTense", "PresentTense", "Auxiliary", "Modal", "Particle"})


def _retagged(terms: list[Term], start: int, end: int) -> None:
    """Give a verb of the phrase with no tense (``access`` as an imperative) ``Infinitive``.

    compromise's ``toInfinitive`` tags the whole sentence again after each phrase it rewrites,
    so a later phrase of the sentence is read with the second tags; among them, the tagger's
    ``verbType`` makes a verb that is no past, present, auxiliary, modal or particle an
    infinitive, which the rewrite then leaves as it is (not ``acces``).
    """
    for k in range(start, end):
        tags = terms[k].tags
        if "Verb" in tags and tags.isdisjoint(_VERB_TYPES):
            tags.update(("Infinitive", "PresentTense"))


def _collect(text: str) -> tuple[list[str], list[str], list[str]]:
    """The noun-phrase words, the rewritten verb phrases and the rewritten text, in order."""
    terms = tag_text(js_trim(text))
    nouns: list[str] = []
    verbs: list[str] = []
    rewritten: list[str] = []
    spans = verb_phrases(terms)
    memo: _Rewrites = {}
    cursor = 0
    earlier = False  # a phrase of this sentence was rewritten before (and the sentence retagged)
    for start, end in [*spans, (len(terms), len(terms))]:
        if any(terms[k].sentence_start for k in range(cursor, min(start + 1, len(terms)))):
            earlier = False
        if earlier:
            _retagged(terms, start, end)
        earlier = True
        for k in range(cursor, start):
            term = terms[k]
            text_ = term.text
            if k + 1 == start < end and terms[start].implicit:
                # the rewrite replaces the contraction ("that's" → "that be"); a noun phrase,
                # taken before the rewrite, keeps its written form ("it's")
                bare = _CONTRACTION.sub("", text_)
                rewritten.append(bare)
                nouns.append(text_ if "Noun" in term.tags else bare)
                continue
            rewritten.append(text_)
            if "Noun" in term.tags or "Verb" not in term.tags:
                nouns.append(text_)
        if start < end:
            phrase = _rewrite(terms, start, end, memo)
            verbs.extend(phrase)
            rewritten.extend(phrase)
        cursor = end
    return nouns, verbs, rewritten


def extract_elements(text: str) -> list[str]:
    """Return the element words Mastra's completeness scorer compares.

    Source: Mastra evals 1.10.2 completeness ``extractElements`` over compromise 14.17.0 (see
    the module docstring for how scorekit reproduces it).

    Args:
        text: any string; it is trimmed (JS ``trim``) first.

    Returns:
        Distinct lowercase ASCII words (``[a-z0-9]+``): the written contractions of noun
        phrases first, then the rewritten verb phrases, then every word of the rewritten text.
        ``[]`` for text with no ASCII letters or digits (e.g. Japanese, Arabic, Cyrillic).

    Example:
        >>> extract_elements("The children were playing games.")
        ['the', 'children', 'games', 'play']
    """
    with gc_paused():
        nouns, verbs, rewritten = _collect(text)
    seen: dict[str, None] = {}
    done: set[str] = set()
    for group in (nouns, verbs, rewritten):
        for item in group:
            if item in done:
                continue
            done.add(item)
            for cleaned in clean_words(item):
                seen.setdefault(cleaned, None)
    return list(seen)
