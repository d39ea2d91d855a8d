import pytest

from scorekit.text.lexicon import to_infinitive
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
