import pytest

from scorekit.text.acronyms import acronym_tags
from scorekit.text.lexicon import looks_plural, prefix_guess, to_infinitive
from scorekit.text.tagger import clauses, tag_text, tokenize


@pytest.mark.parametrize(
    ("text", "normals"),
    [
        ("I don't know.", ["i", "do", "not", "know"]),
        ("It's raining", ["it", "is", "raining"]),
        ("Japan's growth", ["japan's", "growth"]),
        ("state-of-the-art", ["state", "of", "the", "art"]),
        ("I cannot go", ["i", "can", "not", "go"]),
        ("Lists:\n- one\n- two", ["lists", "one", "two"]),
        # compromise's hasHyphen: not after one letter, a prefix, before a suffix, or when
        # the written token does not start with letters
        ("an x-ray and a flower-like vase", ["an", "x-ray", "and", "a", "flower-like", "vase"]),
        ("re-enact well-known **value-added", ["re-enact", "well", "known", "value-added"]),
        ("covid-19 in 20-aug", ["covid", "19", "in", "20", "aug"]),
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


@pytest.mark.parametrize(
    ("text", "normals", "possessive"),
    [
        # compromise's contractionTwo: X's before an article is "X is"
        ("Jeremy's a good guy.", ["jeremy", "is", "a", "good", "guy"], False),
        ("Jeremy's dog barked.", ["jeremy's", "dog", "barked"], True),
        # before a gerund it is "is"; before a past participle after "been", "has"
        ("The cat's sleeping.", ["the", "cat", "is", "sleeping"], False),
        ("The meeting's been moved.", ["the", "meeting", "has", "been", "moved"], False),
        # a proper noun after a proper noun: possessive
        ("Pakistan's Musharraf", ["pakistan's", "musharraf"], True),
        # the last word of a sentence is a possessive
        ("It was Spencer's.", ["it", "was", "spencer's"], True),
    ],
)
def test_apostrophe_s(text: str, normals: list[str], possessive: bool) -> None:
    terms = tag_text(text)
    assert [t.normal for t in terms] == normals
    assert any(t.has("Possessive") for t in terms) is possessive


def test_the_split_s_is_implicit_and_tagged_again() -> None:
    jeremy, verb, *_ = tag_text("Jeremy's living the dream.")
    assert (jeremy.text, jeremy.normal, jeremy.post) == ("Jeremy's", "jeremy", "")
    assert (verb.text, verb.normal, verb.implicit) == ("", "is", True)
    assert verb.has("Copula")


def test_possessive_lexicon_reads_the_word_without_s() -> None:
    assert tag_text("Yesterday Israel's army left.")[1].has("Country")


@pytest.mark.parametrize(
    ("text", "normal", "tags"),
    [
        ("SARS", "sars", ("", "Acronym", "Noun")),
        ("UFOs", "ufos", ("", "Acronym", "Noun", "Plural")),
        ("US", "us", ("", "Acronym", "Noun", "Place")),
        ("F", "f", ("", "Acronym", "Noun")),
        ("I", "i", None),
        ("UNOCHA", "unocha", None),  # longer than five letters
        ("Paris", "paris", None),
    ],
)
def test_acronym_tags(text: str, normal: str, tags: tuple[str, ...] | None) -> None:
    assert acronym_tags(text, normal, set(), False) == tags


def test_acronym_is_a_noun_without_number() -> None:
    sars = tag_text("The profile of SARS is odd.")[3]
    assert sars.tags == {"Acronym", "Noun"}


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("I came, I saw, I left.", [["i", "came"], ["i", "saw"], ["i", "left"]]),
        # compromise's quick split: not next to an adjective, not before "like" or a place
        ("It is big, red and round.", [["it", "is", "big", "red", "and", "round"]]),
        ("Veggies, like figs, are good.", [["veggies", "like", "figs"], ["are", "good"]]),
        ("He lives in Toronto, Canada now.", [["he", "lives", "in", "toronto", "canada", "now"]]),
        ("Sales rose, 12 percent.", [["sales", "rose", "12", "percent"]]),
    ],
)
def test_clauses_cut_where_compromise_does(text: str, parts: list[list[str]]) -> None:
    terms = tag_text(text)
    assert [[t.normal for t in part] for part in clauses(terms)] == parts


def test_a_line_break_ends_a_sentence() -> None:
    starts = [t.sentence_start for t in tokenize("Key factors include:\n\n1. Recognizing risk")]
    assert starts == [True, False, False, True, False, False]
    starts = [t.sentence_start for t in tokenize("Key factors include 1. Recognizing risk")]
    assert starts == [True, False, False, False, True, False]


def test_split_hyphen_words_are_hyphenated() -> None:
    terms = tag_text("A non-vanishing field, plan ahead - it works.")
    assert [t.normal for t in terms if t.has("Hyphenated")] == ["non", "vanishing"]


@pytest.mark.parametrize(
    ("word", "tag"),
    [
        ("nanomaterials", "Noun"),
        ("electrolytes", "Noun"),
        ("quasistatic", "Adjective"),
        ("nano", None),  # three letters must remain
        ("table", None),
    ],
)
def test_prefix_guess(word: str, tag: str | None) -> None:
    assert prefix_guess(word) == tag


def test_an_unknown_word_is_guessed_by_its_start() -> None:
    terms = tag_text("There are many more nanomaterials that have uses.")
    assert terms[4].tags == {"Noun", "Plural"}


def test_one_term_hyphenated_word_is_looked_up_without_its_hyphen() -> None:
    assert tag_text("We re-enact it.")[1].has("Verb")
