"""The word data of the JS library compromise 14.17.0, and verb infinitives built from it.

The data file ``data/compromise_tagger.json`` holds facts taken from compromise 14.17.0 (MIT
licence, © Spencer Kelly; see ``data/README.md``): its lexicon (word → tag), its list of
ambiguous words ("switches", e.g. ``Noun|Verb``) with the clue tables that resolve them, its
suffix guesses for unknown words, its neighbour clues, its tag hierarchy (parents and
conflicting tags) and its suffix-rule models that turn a conjugated verb into its infinitive.
The code here is scorekit's own. The file is read once per process, on first use.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any

__all__ = [
    "Lexicon",
    "ending_guesses",
    "lexicon",
    "looks_plural",
    "phrasal_verbs",
    "prefix_guess",
    "to_infinitive",
]

_COPULA = {w: "be" for w in ("are", "were", "been", "is", "am", "was", "be", "being")}
# compromise's verb prefixes ("re clean" → prefix "re" + verb "clean").
_PREFIXES = frozenset(
    {"anti", "bi", "co", "contra", "de", "extra", "infra", "inter", "intra", "macro", "micro"}
    | {"mis", "mono", "multi", "peri", "pre", "pro", "proto", "pseudo", "re", "sub", "supra"}
    | {"trans", "tri", "un", "out", "ex"}
)
_TENSE_MODEL = {
    "Participle": "fromParticiple",
    "PastTense": "fromPast",
    "PresentTense": "fromPresent",
    "Gerund": "fromGerund",
}


@dataclass(frozen=True)
class Lexicon:
    """compromise's tagging data (read-only after loading).

    Attributes:
        words: word → its tags (one or more compromise tag names).
        switches: ambiguous word → its switch name (``"Noun|Verb"``, ``"Adj|Gerund"``…).
        clues: switch name → ``{"beforeTags"|"afterTags"|"beforeWords"|"afterWords": {key:
            tag}}``.
        suffixes: for suffix length ``n`` (index), suffix → tag guess.
        neighbours: ``leftTags``/``leftWords``/``rightTags``/``rightWords`` → ``[[key, tag]]``.
        parents: tag → its ancestor tags.
        conflicts: tag → tags it removes when set.
        models: ``fromPast``/``fromPresent``/``fromGerund``/``fromParticiple`` suffix rules.
    """

    words: dict[str, tuple[str, ...]]
    switches: dict[str, str]
    clues: dict[str, dict[str, dict[str, str | None]]]
    suffixes: list[dict[str, str]]
    neighbours: dict[str, list[list[str]]]
    parents: dict[str, tuple[str, ...]]
    conflicts: dict[str, frozenset[str]]
    models: dict[str, dict[str, Any]]
    tense_guess: dict[str, str]

    def guess_tense(self, word: str) -> str | None:
        """Guess a bare verb's tense as compromise does (last three, two letters, or ``s``)."""
        found = self.tense_guess.get(word[-3:]) or self.tense_guess.get(word[-2:])
        if found:
            return found
        return "PresentTense" if word.endswith("s") else None


@functools.cache
def lexicon() -> Lexicon:
    """Return compromise 14.17.0's tagging data, loaded once from the package data."""
    path = resources.files("scorekit.text") / "data" / "compromise_tagger.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    words = {
        word: (tag,) if isinstance(tag, str) else tuple(tag) for word, tag in raw["lexicon"].items()
    }
    tags = raw["tags"]
    return Lexicon(
        words=words,
        switches=raw["switches"],
        clues=raw["clues"],
        suffixes=[entry or {} for entry in raw["suffixPatterns"]],
        neighbours=raw["neighbours"],
        parents={name: tuple(t.get("parents") or ()) for name, t in tags.items()},
        conflicts={name: frozenset(t.get("not") or ()) for name, t in tags.items()},
        models=raw["models"],
        tense_guess=raw["tenseGuess"],
    )


@functools.cache
def _longest_rule(model_name: str) -> int:
    """The length of the longest suffix a model's rules look at."""
    model = lexicon().models[model_name]
    return max(map(len, (*(model.get("fwd") or {}), *(model.get("both") or {}))), default=0)


def _convert(word: str, model_name: str) -> str:
    """Apply a suffix-rule model: an exception, else the longest matching suffix rule."""
    model: dict[str, Any] = lexicon().models[model_name]
    exceptions: dict[str, str] = model.get("ex") or {}
    if word in exceptions:
        return exceptions[word]
    fwd: dict[str, str] = model.get("fwd") or {}
    both: dict[str, str] = model.get("both") or {}
    longest = _longest_rule(model_name)
    for start in range(max(1, len(word) - longest), len(word)):  # longest suffix first
        suffix = word[start:]
        if suffix in fwd:
            return word[:start] + fwd[suffix]
        if suffix in both:
            return word[:start] + both[suffix]
    if "" in fwd:
        return word + fwd[""]
    if "" in both:
        return word + both[""]
    return word


def to_infinitive(word: str, tense: str | None) -> str:
    """Return the infinitive of verb ``word`` conjugated in ``tense``, as compromise writes it.

    Source: compromise 14.17.0 ``transform.verb.toInfinitive`` (its suffix-rule models; forms of
    *be* give ``be``; an infinitive or an unknown tense is returned unchanged).

    Args:
        word: a lowercase verb form (``"running"``, ``"fell over"``).
        tense: ``"PastTense"``, ``"PresentTense"``, ``"Gerund"``, ``"Participle"``, ``None``
            (guessed from the word's ending) or any other value (no change).

    Returns:
        The infinitive; compromise's rules can give odd forms (``"styling"`` stays).

    Example:
        >>> to_infinitive("jumped", "PastTense")
        'jump'
    """
    if word in _COPULA:
        return _COPULA[word]
    model_name = _TENSE_MODEL.get(tense or lexicon().guess_tense(word) or "")
    if model_name is None:
        return word
    verb, _, particle = word.partition(" ")
    prefix = ""
    if particle and verb in _PREFIXES:
        prefix, verb, particle = verb, particle, ""
    out = _convert(verb, model_name)
    if particle:
        out += " " + particle
    return f"{prefix} {out}" if prefix else out


@functools.cache
def phrasal_verbs() -> dict[str, str]:
    """Return compromise 14.17.0's two-word phrasal verbs (``"run through"``) → the verb's tense.

    The data file ``data/compromise_phrasal.json`` lists compromise's multi-word lexicon entries
    tagged ``PhrasalVerb``, with the tense of their verb (``Infinitive``, ``PastTense``…).
    """
    path = resources.files("scorekit.text") / "data" / "compromise_phrasal.json"
    table: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))["phrasal"]
    return table


@functools.cache
def ending_guesses() -> dict[str, tuple[tuple[re.Pattern[str], str], ...]]:
    """Return compromise 14.17.0's last-resort ending patterns: last letter → (pattern, tag).

    From ``data/compromise_endswith.json`` (compromise's ``model.two.endsWith``); compromise
    tries them, in order, on a word that no other evidence tagged (``-ised`` → past tense).
    """
    path = resources.files("scorekit.text") / "data" / "compromise_endswith.json"
    raw: dict[str, list[list[str]]] = json.loads(path.read_text(encoding="utf-8"))["endsWith"]
    return {
        letter: tuple((re.compile(source), tag) for source, tag in rules)
        for letter, rules in raw.items()
    }


_PLURAL_EXCEPTIONS = frozenset({"israelis", "menus", "logos"})
_PLURAL_BY_END = {
    "e": ("mice", "louse", "antennae", "formulae", "nebulae", "vertebrae", "vitae"),
    "i": ("tia", "octopi", "viri", "radii", "nuclei", "fungi", "cacti", "stimuli"),
    "n": ("men",),
    "t": ("feet",),
}
_NOT_PLURAL = (
    *("bus", "mas", "was", "ias", "xas", "vas", "cis", "lis", "nis", "ois", "ris", "sis"),
    *("tis", "xis", "aus", "cus", "eus", "fus", "gus", "ius", "lus", "nus", "das", "ous"),
    *("pus", "rus", "sus", "tus", "xus", "aos", "igos", "ados", "ogos", "'s", "ss"),
)


def looks_plural(word: str) -> bool:
    """Whether ``word`` looks like a plural noun by its ending (compromise's ``looksPlural``).

    Example:
        >>> looks_plural("solids"), looks_plural("status"), looks_plural("firemen")
        (True, False, True)
    """
    if len(word) <= 3:
        return False
    if word in _PLURAL_EXCEPTIONS:
        return True
    end = word[-1]
    if end in _PLURAL_BY_END:
        return word.endswith(_PLURAL_BY_END[end])
    return end == "s" and not word.endswith(_NOT_PLURAL)


_PREFIX_TAGS = {
    **dict.fromkeys(("neo", "bio", "ex-"), "Noun"),
    **dict.fromkeys(("de-", "re-", "un-", "mis-", "dis-"), "Verb"),
    **dict.fromkeys(("anti", "auto", "hexa", "kilo", "mono", "nano", "octa", "poly"), "Noun"),
    **dict.fromkeys(("tele", "anglo", "centi", "ethno", "ferro", "grand", "hepta"), "Noun"),
    **dict.fromkeys(("hydro", "intro", "macro", "micro", "milli", "nitro", "penta"), "Noun"),
    **dict.fromkeys(("radio", "tetra", "electro"), "Noun"),
    **dict.fromkeys(("faux", "semi", "pro-", "pre-", "quasi", "omni-", "post-"), "Adjective"),
    **dict.fromkeys(("pseudo", "extra-", "hyper-", "inter-", "intra-", "deca-"), "Adjective"),
}
"""compromise 14.17.0's word-start guesses (``model/patterns/prefixes.js``; MIT, © S. Kelly)."""


def prefix_guess(word: str) -> str | None:
    """Guess an unknown word's tag by how it starts (``nanomaterials`` → noun), or ``None``.

    Source: compromise 14.17.0 ``checkPrefix``: the longest known start of 3 to 7 letters
    that leaves at least 3 letters after it.

    Example:
        >>> prefix_guess("nanomaterials"), prefix_guess("semiotic"), prefix_guess("nano")
        ('Noun', 'Adjective', None)
    """
    for size in range(min(7, len(word) - 3), 2, -1):
        tag = _PREFIX_TAGS.get(word[:size])
        if tag is not None:
            return tag
    return None
