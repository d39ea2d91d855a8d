"""What a written ``'s`` stands for, as compromise's second contraction pass decides it.

compromise 14.17.0 (``contraction-two``) reads a word such as ``Jeremy's`` after its first
tagging pass: it is a possessive (``Jeremy's dog``) or the word and an implicit *is* or *has*
(``Jeremy's a good guy``, ``the meeting's been moved``), decided by the tags of the words
around it. These are scorekit's own functions over :class:`~scorekit.text.term.Term` lists;
the tagger (:mod:`scorekit.text.tagger`) splits the word and tags the new terms.
"""

from __future__ import annotations

from scorekit.text.term import Term

__all__ = ["has_follows", "is_possessive"]

_NEVER_POSSESSIVE = frozenset({"that", "there", "let", "here", "everywhere"})
_BEFORE_POSSESSIVE = frozenset({"in", "by", "for"})
_ADJ_AFTER = frozenset({"too", "also", "enough", "about"})
_NOUN_AFTER = frozenset({"is", "are", "did", "were", "could", "should", "must", "had", "have"})
_PLACE_WORDS = frozenset({"here", "there", "everywhere"})
_POSITIONS = frozenset({"above", "below", "behind"})


def is_possessive(terms: list[Term], i: int, end: int) -> bool:
    """Whether the written ``X's`` at ``terms[i]`` is a possessive (else *X is*/*X has*).

    Source: compromise 14.17.0 ``isPossessive``. ``end`` is the index after the last term of
    the sentence (the clues never look past it). The clues, first that applies:

    * *that*, *there*, *let*, *here*, *everywhere*, a question word, *he's*, *she's*: no;
      a word already tagged ``Possessive``: yes; the sentence's last word: yes;
    * *it's*: no (compromise's test for a noun after it asks for the tag ``#Noun``, which no
      term carries);
    * before a ``Noun|Gerund`` word (``the artist's painting``): yes when a copula follows
      it, or when it ends the sentence and the word is an actor or a proper noun;
    * before a verb: yes before an infinitive or a present tense, no before a gerund;
    * before an ``Adj|Noun`` word: yes when *is*, *were*, *had*… follows it, no before *too*,
      *also*, *enough*, *about*;
    * before a noun: yes, except before *here*/*there*, a possessive, or a proper noun
      after a word that is not one (``the captain's John``);
    * after *in*, *by*, *for*: yes;
    * before an adjective: yes when a noun (not a pronoun) follows it, unless the adjective
      is *above*/*below*/*behind*, or when a ``Noun|Verb`` word follows it;
    * before a number: yes; otherwise no.
    """
    term = terms[i]
    word = term.normal
    if word[-2:] == "'s":
        word = word[:-2]
    if word in _NEVER_POSSESSIVE:
        return False
    tags = term.tags
    if "Possessive" in tags:
        return True
    if "QuestionWord" in tags or word in ("he", "she"):
        return False
    if i + 1 >= end:
        return True
    after = terms[i + 1]
    two = terms[i + 2] if i + 2 < end else None
    if word == "it":
        return False  # compromise asks for a tag "#Noun", which no term carries
    if after.switch == "Noun|Gerund":
        if two is None:
            return "Actor" in tags or "ProperNoun" in tags
        return "Copula" in two.tags
    if "Verb" in after.tags:
        if "Infinitive" in after.tags:
            return True
        if "Gerund" in after.tags:
            return False
        return "PresentTense" in after.tags
    if after.switch == "Adj|Noun":
        if two is None:
            return False
        if two.normal in _NOUN_AFTER:
            return True
        if two.normal in _ADJ_AFTER:
            return False
    if "Noun" in after.tags:
        if after.normal in _PLACE_WORDS or "Possessive" in after.tags:
            return False
        return "ProperNoun" not in after.tags or "ProperNoun" in tags
    if i > 0 and not term.sentence_start and terms[i - 1].normal in _BEFORE_POSSESSIVE:
        return True
    if "Adjective" in after.tags:
        if two is None:
            return False
        if "Noun" in two.tags and "Pronoun" not in two.tags:
            return after.normal not in _POSITIONS
        return two.switch == "Noun|Verb"
    return "Value" in after.tags


_HAS_WORDS = frozenset({"been", "become"})
_IS_WORDS = frozenset({"what", "how", "when", "if", "too"})
_ADJ_LIKE = frozenset({"too", "also", "enough"})
_IS_TAGS = frozenset({"Gerund", "Determiner", "Adjective"})


def has_follows(terms: list[Term], i: int) -> bool:
    """Tell compromise's choice for a verb ``'s``: *has* before a past tense (``it's used``).

    Source: compromise 14.17.0 ``isOrHas``. ``terms[i]`` is the implicit verb; the words after
    it (in its sentence, at most 64) are scanned for the first clue.
    """
    for o in range(i + 1, min(len(terms), i + 65)):
        term = terms[o]
        if term.sentence_start:
            break
        if term.normal in _HAS_WORDS:
            return True
        if term.normal in _IS_WORDS or not term.tags.isdisjoint(_IS_TAGS):
            return False
        nxt = terms[o + 1] if o + 1 < len(terms) else None
        if (
            term.switch == "Adj|Past"
            and nxt is not None
            and (nxt.normal in _ADJ_LIKE or nxt.has("Preposition"))
        ):
            return False
        if term.has("PastTense"):
            return nxt is None or nxt.normal != "for"
    return False
