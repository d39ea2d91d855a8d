"""The JS regex translation: JS semantics where Python's differ (ECMA-262, Annex B)."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from scorekit.checks import JsRegex, js_regex
from scorekit.checks.js_case import case_closure, case_variants
from scorekit.checks.js_regex import translate_js_regex
from scorekit.errors import ConfigError


@pytest.mark.parametrize(
    ("source", "flags", "text", "found"),
    [
        # \d and \w are ASCII; \s is JS's whitespace set
        (r"\d", "", "２", False),
        (r"\d", "u", "٣", False),
        (r"\w", "", "é", False),
        (r"\W", "", "é", True),
        (r"\s", "", "\ufeff", True),
        (r"\s", "", "\x85", False),
        (r"\s", "", "\u3000", True),
        (r"[\s\d]", "", "\x1c", False),
        (r"\bé", "", "aé", True),  # é is no word character, so a boundary lies before it
        (r"\Bb", "", "ab", True),
        (r"\bb", "", "ab", False),
        # . and the anchors
        ("a.b", "", "a\nb", False),
        ("a.b", "", "a\rb", False),
        ("a.b", "", "a\u2028b", False),
        ("a.b", "", "a\x85b", True),
        ("a.b", "s", "a\nb", True),
        ("x$", "", "x\n", False),  # Python's $ would match before the final newline
        ("x$", "m", "x\ny", True),
        ("^y", "m", "x\ry", True),
        ("^y", "m", "x\u2029y", True),
        ("^y", "", "x\ny", False),
        # i: JS's Canonicalize, not Python's IGNORECASE pairs
        ("sunny", "i", "SUNNY", True),
        ("s", "i", "ſ", False),
        ("s", "iu", "ſ", True),
        ("k", "i", "\u212a", False),
        ("k", "iu", "\u212a", True),
        ("i", "i", "ı", False),
        ("i", "iu", "İ", False),
        ("σ", "i", "ς", True),
        ("µ", "i", "Μ", True),
        ("[a-z]+", "i", "ABC", True),
        ("[^a-z]", "i", "A", False),
        (r"\w", "iu", "ſ", True),
        (r"\w", "i", "ſ", False),
        (r"\W", "iu", "k", False),
        (r"(a)\1", "i", "aA", True),
        (r"(?<x>b)\k<x>", "", "bb", True),
        # escapes and literals Python reads differently
        (r"\A", "", "A", True),
        (r"\101", "", "A", True),
        (r"\8", "", "8", True),
        (r"\cJ", "", "\n", True),
        (r"\c1", "", "\\c1", True),
        (r"\u{1F600}", "u", "😀", True),
        (r"\ud83d\ude00", "u", "😀", True),
        (r"a{,2}", "", "a{,2}", True),
        (r"a{2}", "", "aa", True),
        (r"x{", "", "x{", True),
        ("a]", "", "a]", True),
        (r"[\d-z]", "", "-", True),
        ("[]", "", "a", False),
        ("[^]", "", "\n", True),
        (r"[\b]", "", "\b", True),
        (r"a/b", "", "a/b", True),
        ("(?=a)*b", "", "b", True),  # Annex B: a lookahead may take a quantifier
        # g does nothing here, y anchors at the start
        ("b", "g", "ab", True),
        ("b", "y", "ab", False),
        ("a", "y", "ab", True),
        ("", "", "", True),
    ],
)
def test_js_semantics(source: str, flags: str, text: str, found: bool) -> None:
    assert js_regex(source, flags).test(text) is found


@pytest.mark.parametrize(
    ("source", "flags", "field"),
    [
        ("(", "", "pattern"),
        (")", "", "pattern"),
        ("a**", "", "pattern"),
        ("*a", "", "pattern"),
        (r"\b+", "", "pattern"),
        ("a{2}{3}", "", "pattern"),
        ("[b-a]", "", "pattern"),
        ("[", "", "pattern"),
        ("\\", "", "pattern"),
        ("(?<=a+)b", "", "pattern"),  # variable-length lookbehind: not in Python
        ("(?>a)", "", "pattern"),  # not JS
        ("(?P<n>a)", "", "pattern"),  # not JS
        ("(?<a$>x)", "", "pattern"),
        (r"\k<nope>(?<n>a)", "", "pattern"),
        (r"\p{L}", "u", "pattern"),
        (r"\q", "u", "pattern"),
        (r"\1", "u", "pattern"),
        ("{", "u", "pattern"),
        (r"[\d-z]", "u", "pattern"),
        (r"\u{110000}", "u", "pattern"),
        ("a", "v", "flags"),
        ("a", "x", "flags"),
        ("a", "gg", "flags"),
    ],
)
def test_invalid_or_unsupported_regexes_are_config_errors(
    source: str, flags: str, field: str
) -> None:
    with pytest.raises(ConfigError) as info:
        js_regex(source, flags)
    assert info.value.field == field


def test_whole_match() -> None:
    assert js_regex("cat|dog").test_whole("dog")
    assert not js_regex("cat|dog").test_whole("hotdog")
    assert not js_regex("dog", "m").test_whole("cat\ndog")


def test_display_is_js() -> None:
    assert str(js_regex(r"\d+", "yig")) == r"/\d+/giy"
    assert str(js_regex("")) == "/(?:)/"
    assert str(js_regex("a/b[/]")) == r"/a\/b[/]/"
    assert str(js_regex("a\nb")) == r"/a\nb/"
    assert js_regex("a", "ig").flags == "gi"


def test_a_js_regex_is_data() -> None:
    regex = js_regex(r"\d+", "i")
    assert pickle.loads(pickle.dumps(regex)) == regex
    assert dataclasses.asdict(regex) == {"source": r"\d+", "flags": "i"}
    assert JsRegex(**dataclasses.asdict(regex)) == regex


def test_translation() -> None:
    assert translate_js_regex(r"\d+$") == r"[0-9]+\Z"
    assert translate_js_regex(r"\w") == r"[0-9A-Z\x5fa-z]"
    assert translate_js_regex("(?<y>a)") == "(?P<y>a)"
    with pytest.raises(ConfigError):
        translate_js_regex(3)  # type: ignore[arg-type]


def test_case_tables() -> None:
    assert case_variants(ord("k"), unicode=False) == (ord("K"), ord("k"))
    assert case_variants(ord("k"), unicode=True) == (ord("K"), ord("k"), 0x212A)
    assert case_variants(ord("1"), unicode=True) == (ord("1"),)
    assert case_closure([(ord("a"), ord("a"))], unicode=False) == [(0x41, 0x41), (0x61, 0x61)]


def test_the_translation_adds_no_backtracking() -> None:
    # boundaries, anchors and classes are one-character lookarounds or classes: linear time
    text = "a " * 200_000
    for source, flags in ((r"\bzz\b", "i"), ("^zz$", "m"), (r"\Bq.", "s"), (r"[^a ]", "iu")):
        assert not js_regex(source, flags).test(text)
