import pytest

from scorekit.text.lexicon import looks_plural, to_infinitive
from scorekit.text.tagger import tag_text, tokenize


@pytest.mark.parametrize(
    ("text", "normals"),
    [
        ("I don't know.", ["i", "do", "not", "know"]),
        ("It's raining", ["it", "is", "raining"]),
        ("Japan's growth", ["japan's", "growth"]),
        ("state-of-the-art", ["state", "of", "the", "art"]),
        ("I cannot go", ["i", "can", "not", "go"]),
        ("", []),
        ("!!! ...", []),
    ],
)
def test_tokenize(text: str, normals: list[str]) -> None:
    assert [t.normal for t in tokenize(text)] == normals


def test_tags_verbs_and_nouns() -> None:
    terms = tag_text("The children were playing games.")
    verbs = [t.normal for t in terms if t.has("Verb")]
    assert verbs == ["were", "playing"]
    assert terms[1].has("Plural")


def test_gerund_after_be() -> None:
    terms = tag_text("A man is riding a horse.")
    assert terms[3].has("Gerund")


@pytest.mark.parametrize(
    ("word", "tense", "infinitive"),
    [
        ("jumped", "PastTense", "jump"),
        ("is", None, "be"),
        ("running", "Gerund", "run"),
        ("walk", "Infinitive", "walk"),
        ("styling", "Gerund", "styling"),  # compromise's rules leave it
    ],
)
def test_to_infinitive(word: str, tense: str | None, infinitive: str) -> None:
    assert to_infinitive(word, tense) == infinitive


@pytest.mark.parametrize(
    ("word", "plural"),
    [
        ("solids", True),
        ("firemen", True),
        ("menus", True),
        ("status", False),
        ("thesis", False),
        ("bus", False),
        ("cats", True),
        ("dog", False),
    ],
)
def test_looks_plural(word: str, plural: bool) -> None:
    assert looks_plural(word) is plural


@pytest.mark.parametrize(
    ("text", "index", "number"),
    [
        # compromise's fillTags gives every counted noun a number by its ending
        ("Pure liquids and solids do not mix.", 3, "Plural"),
        ("The employer pays.", 1, "Singular"),
        ("The abandonment hurts.", 1, "Singular"),
    ],
)
def test_noun_number(text: str, index: int, number: str) -> None:
    assert tag_text(text)[index].has(number)


def test_pronoun_and_proper_noun_keep_no_number() -> None:
    terms = tag_text("They met Zorbulon today.")
    assert not terms[0].tags & {"Plural", "Singular"}
    assert not terms[2].tags & {"Plural", "Singular"}
