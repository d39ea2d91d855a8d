"""The content words ("elements") of a text, approximating the JS library compromise 14.17.

Mastra evals 1.10.2 completeness (mastra-scorers.md §2.4, §3.2) takes, with compromise,
``nouns()``, then ``verbs().toInfinitive()`` (which rewrites the document in place), then
``topics()`` and ``terms()`` of the rewritten document; every string is cleaned (NFD, combining
marks U+0300–U+036F removed, lowercased, ``[^a-z0-9]+`` → space) and split into words, and the
words are de-duplicated, first occurrence first. Because ``terms()`` covers every word, the
element *set* is the words of the text with each verb phrase rewritten as compromise does, plus
the original words of noun phrases; only verb phrases need linguistics.

compromise has no Python port. scorekit rebuilds its verb-phrase rewrite on the part-of-speech
tagger and chunker of TextBlob (the Brill-style lexicon and rules of CLiPS Pattern, shipped in
the package: no model download) and verb lemmas from LemmInflect (its dictionary ships in the
package):

* a verb chain is a run of verbs, modals and adverbs; auxiliaries (forms of *be*, *have*, *do*
  and modals followed by another verb) are dropped and the main verb becomes its infinitive:
  ``was running`` → ``run``, ``should have been running`` → ``run``, ``is`` → ``be``;
* a negated chain (``not``, ``n't``, ``never``) becomes ``does not`` + infinitive (``do not``
  after *I/we/they*), as compromise writes it: ``is not barking`` → ``does not bark``;
* contractions are split (``it's`` → ``it`` + ``'s``); compromise's noun list keeps the
  original token, so ``it's`` also contributes ``s``.

``benchmarks/completeness_parity.py`` measures the agreement with the real library on the
conformance corpus. The tagger and lemmatiser (TextBlob, LemmInflect) are imported lazily.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scorekit.errors import ConfigError
from scorekit.text.whitespace import JS_WS_CLASS, js_trim

__all__ = ["clean_words", "extract_elements"]

_SPLIT = re.compile(JS_WS_CLASS + "+")
_COMBINING = re.compile("[\u0300-\u036f]")
_NON_ALNUM = re.compile("[^a-z0-9]+")
# A contraction suffix: n't, 's, 're, 'm, 've, 'd, 'll (straight or curly apostrophe).
_CONTRACTION = re.compile(r"(?i)^(.+?)(n['\u2019]t|['\u2019](?:s|re|m|ve|d|ll))$")
# "can't" splits as "ca" + "n't" (Penn Treebank style); restore the word.
_IRREGULAR_NEGATIVE = {"ca": "can", "wo": "will", "sha": "shall", "ai": "be"}

# Words after which "'s" means "is" ("it's"); after any other word it is a possessive.
_IS_SUBJECT = frozenset(
    {"it", "he", "she", "that", "what", "there", "here", "who", "where", "how", "this", "let"}
)
_BE = frozenset({"be", "am", "is", "are", "was", "were", "been", "being", "'s", "'re", "'m"})
_HAVE = frozenset({"have", "has", "had", "having", "'ve", "'d"})
_DO = frozenset({"do", "does", "did"})
_MODAL = frozenset(
    {"can", "could", "will", "would", "shall", "should", "may", "might", "must", "'ll", "'d"}
)
_AUXILIARY = _BE | _HAVE | _DO | _MODAL
_NEGATION = frozenset({"not", "n't", "never"})
_PLURAL_SUBJECT = frozenset({"i", "we", "they"})  # compromise writes "does" after "you"
_VERB_TAGS = frozenset({"VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "MD"})


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


@dataclass(frozen=True)
class _Token:
    text: str
    raw: int  # index of the whitespace-separated token it came from
    word: bool  # False for punctuation


@dataclass(frozen=True)
class _Nlp:
    tag: Callable[[list[str]], list[tuple[str, str, str]]]
    lemma: Callable[[str], str]


@functools.cache
def _nlp() -> _Nlp:
    """Load the tagger and the lemmatiser once, on first use (they take a moment to import)."""
    try:
        import lemminflect  # type: ignore[import-untyped]
        import textblob.en  # type: ignore[import-untyped]
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ConfigError(
            "the completeness scorer needs textblob and lemminflect, which scorekit depends on; "
            "reinstall scorekit",
            field="completeness",
        ) from error
    parser = textblob.en.parser

    def tag(words: list[str]) -> list[tuple[str, str, str]]:
        if not words:
            return []
        chunks = parser.find_chunks(parser.find_tags(words))
        return [(str(row[0]), str(row[1]), str(row[2])) for row in chunks]

    def lemma(word: str) -> str:
        found = lemminflect.getLemma(word, upos="VERB")
        return str(found[0]) if found else word

    return _Nlp(tag=tag, lemma=lemma)


def _split_raw(raw: str, index: int) -> list[_Token]:
    """Split a whitespace token into punctuation, word and contraction-suffix tokens."""
    start, end = 0, len(raw)
    while start < end and not raw[start].isalnum():
        start += 1
    while end > start and not raw[end - 1].isalnum():
        end -= 1
    tokens = [_Token(ch, index, False) for ch in raw[:start]]
    core = raw[start:end]
    if core:
        match = _CONTRACTION.match(core)
        if core.lower() == "cannot":  # compromise reads "cannot" as "can not"
            tokens.append(_Token(core[:3], index, True))
            tokens.append(_Token(core[3:], index, True))
        elif match and (
            not match.group(2).lower().endswith("s") or match.group(1).lower() in _IS_SUBJECT
        ):
            head, suffix = match.group(1), match.group(2).lower().replace("\u2019", "'")
            if suffix == "n't":
                head = _IRREGULAR_NEGATIVE.get(head.lower(), head)
            tokens.append(_Token(head, index, True))
            tokens.append(_Token(suffix, index, True))
        else:
            tokens.append(_Token(core, index, True))
    tokens.extend(_Token(ch, index, False) for ch in raw[end:])
    return tokens


def _continues(previous: str, word: str, tag: str) -> bool:
    """Whether verb ``word``/``tag`` can follow verb ``previous`` inside one verb phrase."""
    if previous in _MODAL or previous in _DO:
        return tag in ("VB", "VBP") or word in ("be", "have")
    if previous in _HAVE:  # the tagger often reads a participle as a past tense
        return tag in ("VBN", "VBD") or word == "been"
    if previous in _BE:
        return tag in ("VBG", "VBN", "VBD")
    return tag == "VBG"  # "stop believing": compromise keeps the second verb as it is


def _chain_end(tokens: Sequence[_Token], tagged: list[tuple[str, str, str]], start: int) -> int:
    """Return the end (exclusive) of the verb chain starting at verb ``start``."""
    last = start
    j = start + 1
    while j < len(tokens) and tokens[j].word:
        word, tag = tagged[j][0].lower(), tagged[j][1]
        previous = tagged[last][0].lower()
        if tag == "NN" and word.endswith("ing") and previous in _BE:
            tag = "VBG"  # "is dancing": the lexicon knows "dancing" as a noun only
        elif tag == "NN" and (previous in _MODAL or previous in _DO):
            tag = "VB"  # "cannot work": after a modal, a noun reading is a bare verb
        tagged[j] = (tagged[j][0], tag, tagged[j][2])
        if tag in _VERB_TAGS and _continues(previous, word, tag):
            last = j
        elif not (tag.startswith("RB") or word in _NEGATION):
            break
        j += 1
    end = last + 1
    for k in range(last + 1, j):  # a negation after the last verb belongs to it ("was not")
        if tagged[k][0].lower() in _NEGATION:
            end = k + 1
    return end


def _rewrite_chain(chain: Sequence[tuple[str, str]], subject: str, nlp: _Nlp) -> list[str]:
    """Rewrite one verb chain ``[(word, tag)]`` as compromise's ``toInfinitive`` does."""
    lowered = [word.lower() for word, _ in chain]
    verbs = [i for i, (_, tag) in enumerate(chain) if tag in _VERB_TAGS or lowered[i] == "'s"]
    main = next(
        (i for i in verbs if lowered[i] not in _AUXILIARY or i == verbs[-1]),
        verbs[-1] if verbs else None,
    )
    negated = any(word in _NEGATION for word in lowered)
    out = ["do" if subject in _PLURAL_SUBJECT else "does", "not"] if negated else []
    for i, (word, _) in enumerate(chain):
        low = lowered[i]
        if i == main:
            out.append(nlp.lemma(low))
        elif low in ("not", "n't") or (i in verbs and (main is None or i < main)):
            continue  # auxiliaries and the negation itself (already written)
        else:
            out.append(word)
    return out


def extract_elements(text: str) -> list[str]:
    """Return the element words Mastra's completeness scorer compares, approximating compromise.

    Source: Mastra evals 1.10.2 completeness ``extractElements`` over compromise 14.17 (see the
    module docstring for the approximation).

    Args:
        text: any string; it is trimmed (JS ``trim``) first.

    Returns:
        Distinct lowercase ASCII words (``[a-z0-9]+``): noun-phrase words first, then the
        rewritten verb phrases, then every word of the rewritten text. ``[]`` for text with no
        ASCII letters or digits (e.g. Japanese, Arabic, Cyrillic).

    Raises:
        ConfigError: TextBlob or LemmInflect cannot be imported.

    Example:
        >>> extract_elements("The children were playing games.")
        ['the', 'children', 'games', 'play']
    """
    raws = [raw for raw in _SPLIT.split(js_trim(text)) if raw]
    if not any(clean_words(raw) for raw in raws):
        return []  # nothing survives cleaning: no need to tag
    nlp = _nlp()
    tokens = [token for index, raw in enumerate(raws) for token in _split_raw(raw, index)]
    tagged = nlp.tag([token.text for token in tokens])

    noun_words: list[str] = []
    verb_words: list[str] = []
    terms: list[str] = []
    noun_raws: set[int] = set()
    i = 0
    while i < len(tokens):
        word, tag, chunk = tagged[i]
        if tokens[i].word and tag in _VERB_TAGS:
            j = _chain_end(tokens, tagged, i)
            subject = tagged[i - 1][0].lower() if i > 0 else ""
            rewritten = _rewrite_chain([(w, t) for w, t, _ in tagged[i:j]], subject, nlp)
            verb_words.extend(rewritten)
            terms.extend(rewritten)
            if i > 0 and tokens[i].raw == tokens[i - 1].raw:
                noun_raws.add(tokens[i].raw)  # "it's": compromise's nouns keep "it's"
            i = j
            continue
        if tokens[i].word:
            terms.append(word)
            if chunk.endswith("NP"):
                noun_words.append(word)
        i += 1

    for index in sorted(noun_raws):
        noun_words.append(raws[index])
    seen: dict[str, None] = {}
    for group in (noun_words, verb_words, terms):
        for item in group:
            for cleaned in clean_words(item):
                seen.setdefault(cleaned, None)
    return list(seen)
