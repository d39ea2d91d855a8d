import random
from collections.abc import Callable

import pytest

from scorekit.text.sentiment import (
    analyze,
    comparative,
    sentiment_labels,
    sentiment_negators,
    tokenize,
)
from tests.conformance import cases_for as corpus_cases
from tests.text.kernels import kernel_or_skip


def test_data_sizes() -> None:
    labels = sentiment_labels()
    assert len(labels) == 3382 + 767
    assert (labels["love"], labels["amazing"], labels["good"], labels["terrible"]) == (3, 4, 3, -3)
    assert labels["\U0001f602"] == 1  # face with tears of joy
    assert len(sentiment_negators()) == 12


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", [""]),
        ("Hello, World!", ["hello", "world"]),
        ("a\tb", ["a\tb"]),  # a lone tab is no separator
        ("a\t\tb", ["a", "b"]),
        ("a\nb", ["a", "b"]),
        ("don't (stop)", ["don't", "stop"]),
        ("x_y=z", ["x", "y", "z"]),
        ("\ufeffok\u00a0", ["ok"]),
        # npm sentiment 5.0.2 splits on spaces and ASCII marks only: every letter stays in its word
        ("Złą, gęślą! Ωραία; Привет", ["złą", "gęślą", "ωραία", "привет"]),
    ],
)
def test_tokenize(text: str, tokens: list[str]) -> None:
    assert tokenize(text) == tokens


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I love this amazing product!", 1.4),
        ("This product is wonderful and fantastic!", 1.3333333333333333),
        ("This is terrible and disappointing.", -1.0),
        ("This is excellent and amazing!", 1.4),
        ("helpful, professional, and knowledgeable", 0.5),
        ("I am glad to help you with that.", 0.625),
        ("I am not happy", -0.75),
        ("", 0.0),
        ("Привет мир", 0.0),
        ("\U0001f60d great", 3.0),
        ("constructor good", 1.5),  # no JS prototype lookup: see docs/divergences.md
    ],
)
def test_comparative(text: str, expected: float) -> None:
    assert comparative(text) == expected


def test_negation_applies_to_next_token_only() -> None:
    assert analyze("not good good").score == 0
    assert analyze("don't like").score == -2


REFERENCE_CASES = [
    (case, expected)
    for case, expected in corpus_cases("tone")
    if (case.get("options") or {}).get("referenceTone")
]


@pytest.mark.parametrize(("case", "expected"), REFERENCE_CASES, ids=lambda v: v.get("id", ""))
def test_reference_mode_matches_corpus(case: dict, expected: dict) -> None:
    step = expected["preprocessStepResult"]
    assert comparative(case["options"]["referenceTone"]) == step["referenceSentiment"]


def test_a_text_of_several_slices_scores_as_one_token_list() -> None:
    from scorekit.text import sentiment, whitespace

    def one_list(text: str) -> tuple[int, int]:  # the plain rule over one token list
        tokens = tokenize(text)
        labels, negators = sentiment.sentiment_labels(), sentiment.sentiment_negators()
        score = 0
        for index, token in enumerate(tokens):
            value = labels.get(token, 0)
            score += -value if index > 0 and tokens[index - 1] in negators else value
        return score, len(tokens)

    rng = random.Random(11)
    words = ["not", "good", "bad", "don't", "happy", "love", "x", "  ", "\t", ".", "\n", "😀"]
    for _ in range(5):
        text = " ".join(rng.choice(words) for _ in range(3 * whitespace.SLICE // 4))
        result = sentiment.analyze(text)
        assert (result.score, result.token_count) == one_list(text)
    # a negator as the last token of a slice negates the first token of the next
    cut = "x " * (whitespace.SLICE // 2) + "not"
    assert sentiment.analyze(cut + " good").score == -3


@pytest.mark.parametrize("plain_ascii", [True, False])
def test_comparatives_of_many_texts_are_each_texts_comparative(plain_ascii: bool) -> None:
    # issue 35: tone scores its sentences in one pass; seeded random texts of lexicon words,
    # negators, marks and whitespace give what comparative gives each text alone (the ASCII
    # texts with spaces and newlines only take the str.split path, the others the rules')
    from scorekit.text.sentiment import comparatives, sentiment_labels, sentiment_negators
    from scorekit.text.whitespace import JS_WHITESPACE

    pieces = [*sorted(sentiment_labels())[:400:7], *sorted(sentiment_negators())]
    pieces += [*'.,/#!?$%^&*;:{}=_`"~()', "the", "Good", "NOT", "\n", *[" "] * 8]
    if not plain_ascii:
        pieces += [*JS_WHITESPACE, "\x00", "\x1c", "ΣΑΣ", "😀", "İ"]
    rng = random.Random(35)
    for _ in range(5_000):
        texts = [
            "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
            for _ in range(rng.randint(0, 6))
        ]
        assert comparatives(texts) == [comparative(text) for text in texts], texts


def test_comparatives_in_batches_and_of_long_texts_are_each_texts_comparative() -> None:
    # batches of about SLICE characters, and a text longer than SLICE scored alone
    from scorekit.text.sentiment import comparatives
    from scorekit.text.whitespace import SLICE

    rng = random.Random(35)
    words = ["good", "bad", "not", "the", "love", "hate", "a", "won't", "Great"]
    texts = [
        " ".join(rng.choice(words) for _ in range(rng.randrange(1, 12))) for _ in range(12_000)
    ]
    long_text = " ".join(rng.choice(words) for _ in range(SLICE // 3))
    texts[5_000:5_000] = [long_text, "", "\x00 good"]
    assert sum(map(len, texts)) > 3 * SLICE and len(long_text) > SLICE
    assert comparatives(texts) == [comparative(text) for text in texts]


def _kernel_or_skip() -> Callable[[str], list[float]]:
    from scorekit.text import sentiment

    return kernel_or_skip(sentiment._kernel(), "sentiment")


def test_the_c_kernel_gives_the_python_valence_sums() -> None:
    # issue 35: the C kernel reads a normalised ASCII batch as str.split() and
    # _ascii_comparatives do, on seeded token soup: lexicon words (ASCII and multi-word ones,
    # which no token matches), negators (also valenced ones), separators anywhere (first,
    # last, doubled), every whitespace str.split() knows, and words longer than any key
    from scorekit.text.sentiment import _ascii_comparatives

    kernel = _kernel_or_skip()
    ascii_words = sorted(word for word in sentiment_labels() if word.isascii())
    pieces = [*ascii_words[::11], *[w for w in ascii_words if " " in w][:20]]
    pieces += [*sorted(sentiment_negators()), "no", "the", "x" * 80, "\x00", "\x00"]
    spaces = [" ", " ", " ", "  ", "\n", "\t", "\v", "\f", "\r", "\x1c", "\x1f"]
    rng = random.Random(350)
    for _ in range(4_000):
        text = "".join(rng.choice(pieces) + rng.choice(spaces) for _ in range(rng.randint(0, 30)))
        if rng.random() < 0.3:
            text = text.strip()
        assert kernel(text) == _ascii_comparatives(text.split()), repr(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", [0.0]),
        ("\x00", [0.0, 0.0]),
        ("good \x00 not good", [3.0, -1.5]),
        ("not \x00 good", [0.0, 3.0]),  # a negator negates the next token of its own text only
        ("not not good", [-1.0]),  # "not" is no valenced word: a negated negator stays a negator
        ("cashing in", [0.0]),  # a multi-word key matches no token
        ("\x00\x00 good", [1.5]),  # "\x00\x00" is a word of the text, not two separators
    ],
)
def test_the_c_kernel_exact_values(text: str, expected: list[float]) -> None:
    assert _kernel_or_skip()(text) == expected


def test_the_c_kernel_refuses_what_it_cannot_read() -> None:
    _kernel_or_skip()
    from scorekit.text import _sentiment_kernel

    table = _sentiment_kernel.lexicon({"good": 3}, frozenset({"not"}))
    assert _sentiment_kernel.comparatives(table, "not good") == [-1.5]
    with pytest.raises(ValueError, match="ASCII text only"):
        _sentiment_kernel.comparatives(table, "très good")
    with pytest.raises(TypeError, match="lexicon words must be str"):
        _sentiment_kernel.lexicon({b"good": 3}, frozenset())
    with pytest.raises(ValueError, match="invalid PyCapsule"):
        _sentiment_kernel.comparatives(object(), "good")
