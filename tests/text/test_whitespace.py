"""JS whitespace helpers against the regexes they stand for (issue 35's faster paths)."""

from __future__ import annotations

import random
import re

import pytest

from scorekit.text import whitespace

RUNS = re.compile(whitespace.JS_WS_CLASS + "+")


@pytest.mark.parametrize(
    "alphabet",
    [
        "ab .",  # ASCII, spaces only: the str.replace path
        "ab \t\n\x0b\x0c\r\x1c\x1d.",  # ASCII with other whitespace and \x1c-\x1f
        "ab\x1c\x1f\x85\ufeffé " + "".join(sorted(whitespace.JS_WHITESPACE)),  # not ASCII
    ],
)
def test_remove_and_collapse_are_the_js_regexes(alphabet: str) -> None:
    rng = random.Random(35)
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(24)))
        assert whitespace.remove_whitespace(text) == RUNS.sub("", text), repr(text)
        expected = whitespace.js_trim(RUNS.sub(" ", text))
        assert whitespace.collapse_whitespace(text) == expected, repr(text)


def test_long_runs_of_spaces_collapse() -> None:
    assert whitespace.collapse_whitespace("  a" + " " * 1_000_003 + "b   ") == "a b"
