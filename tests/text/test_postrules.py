"""compromise's post-tagger rules (scorekit.text.postrules) as the tagger applies them."""

from __future__ import annotations

from scorekit.text.tagger import tag_text


def _tags(text: str) -> dict[str, set[str]]:
    return {t.text: t.tags for t in tag_text(text) if t.text}


def test_like_after_a_verb_is_an_adverb() -> None:
    assert "Adverb" in _tags("Seems like it took forever.")["like"]


def test_used_to_is_an_auxiliary() -> None:
    tags = _tags("I used to play.")
    assert "Auxiliary" in tags["used"] and "Auxiliary" in tags["to"]
    assert "Infinitive" in tags["play"]


def test_determiner_then_present_tense_is_a_noun() -> None:
    assert "Noun" in _tags("They signed the contract.")["contract"]


def test_captured_group_only_is_tagged() -> None:
    tags = _tags("The diet is given to kids.")
    assert "Passive" in tags["is"] and "Verb" in tags["given"]


def test_long_unpunctuated_run_tags_every_word() -> None:
    terms = tag_text("ab " * 30_000)
    assert len(terms) == 30_000
    assert all(t.tags for t in terms)
