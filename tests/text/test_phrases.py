"""Verb phrases as compromise 14.17.0 finds them (scorekit.text.phrases)."""

from __future__ import annotations

from scorekit.text.elements import extract_elements
from scorekit.text.phrases import assign_chunks, verb_phrases
from scorekit.text.tagger import tag_text


def _phrases(text: str) -> list[str]:
    terms = tag_text(text)
    return [" ".join(t.normal for t in terms[a:b]) for a, b in verb_phrases(terms)]


def test_auxiliary_and_main_verb_form_one_phrase() -> None:
    assert _phrases("A man is playing guitar.") == ["is playing"]


def test_help_before_present_tense_splits() -> None:
    assert _phrases("Berri says ready to help launch national unity government") == [
        "says",
        "help",
        "launch",
    ]


def test_chunks_cover_every_term() -> None:
    terms = tag_text("The dog runs through the field and then sleeps.")
    chunks = assign_chunks(terms)
    assert len(chunks) == len(terms)
    assert chunks[terms.index(next(t for t in terms if t.normal == "then"))] == "Pivot"


def test_phrasal_verb_keeps_its_particle() -> None:
    assert "through" in extract_elements("Black and brown dog runs through field.")
    assert "run" in extract_elements("Black and brown dog runs through field.")


def test_have_to_drops_have() -> None:
    elements = extract_elements("You have to decide.")
    assert "have" not in elements
    assert {"to", "decide"} <= set(elements)


def test_negated_do_after_does() -> None:
    # compromise: "doesn't" loses its auxiliary, then "do" follows are/were/does left in it
    assert "does" in extract_elements("He is not barking.")


def test_contraction_host_loses_suffix_when_rewritten() -> None:
    assert "s" not in extract_elements("That's what I believe.")
    assert {"it", "s"} <= set(extract_elements("It's pretty much up to you."))
