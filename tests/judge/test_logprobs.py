"""Label distributions from token log-probabilities: exact values from given log-probabilities."""

from __future__ import annotations

import math

import pytest

from scorekit.judge.logprobs import (
    LogprobError,
    label_distribution,
    label_distributions,
    string_values,
)
from scorekit.judge.model import TokenLogprob

LEVELS = ("high", "medium", "low", "none")


def tok(text: str, p: float, *top: tuple[str, float]) -> TokenLogprob:
    """A generated token of probability ``p`` with alternatives ``(text, probability)``."""
    return TokenLogprob(text, math.log(p), top=tuple(TokenLogprob(t, math.log(q)) for t, q in top))


def sure(text: str) -> TokenLogprob:
    return tok(text, 1.0, (text, 1.0))


def spell(*tokens: TokenLogprob) -> list[TokenLogprob]:
    return list(tokens)


def test_string_values_give_paths_and_content_offsets() -> None:
    text = 'x {"a": [{"b": "hi", "n": 1.5e3}, {"c": "say \\"q\\""}], "t": true, "e": []}'
    found = [(v.path, v.value, v.start) for v in string_values(text)]
    assert found == [
        (("a", 0, "b"), "hi", 16),
        (("a", 1, "c"), 'say "q"', 41),
    ]
    assert text[16:18] == "hi"
    assert text[41:44] == "say"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no json here", "holds no JSON object or array"),
        ('{"a": "x" "b"}', "',' or '}' was expected at offset 10"),
        ('{"a": nope}', "a JSON value was expected at offset 6"),
        ('{"a": "unterminated', "a JSON string was expected at offset 6"),
    ],
)
def test_string_values_refuse_what_is_not_json(text: str, message: str) -> None:
    with pytest.raises(LogprobError, match=message):
        string_values(text)


def test_single_token_labels_are_renormalised_over_the_labels_present() -> None:
    # generated "high" (0.5); "medium" 0.3 and "low" 0.1 among the top; "Paris" is no label
    tokens = spell(
        sure('{"x": "'),
        tok("high", 0.5, ("high", 0.5), ("medium", 0.3), ("Paris", 0.05), ("low", 0.1)),
        sure('"}'),
    )
    got = label_distribution(tokens, 7, LEVELS)
    assert got.label == "high"
    assert got.probabilities == pytest.approx(
        {"high": 5 / 9, "medium": 3 / 9, "low": 1 / 9, "none": 0.0}, rel=1e-12
    )
    assert list(got.probabilities) == list(LEVELS)
    assert got.mass == pytest.approx(0.9, rel=1e-12)
    weights = {"high": 1.0, "medium": 0.7, "low": 0.3, "none": 0.0}
    assert got.expected(weights) == pytest.approx(7.4 / 9, rel=1e-12)


def test_the_generated_token_counts_even_when_missing_from_the_top_list() -> None:
    # llama.cpp reports the distribution before its grammar: the top list holds no label at all
    tokens = spell(sure('{"x": "'), tok("n", 0.01, ("Paris", 0.4), ("2", 0.1)), sure('one"}'))
    got = label_distribution(tokens, 7, LEVELS)
    assert got.label == "none"
    assert got.probabilities == {"high": 0.0, "medium": 0.0, "low": 0.0, "none": 1.0}
    assert got.mass == pytest.approx(0.01, rel=1e-12)


def test_a_token_holding_the_opening_quote_compares_the_alternatives_after_it() -> None:
    # the label starts inside ' "yes': alternatives must share the ' "' before it
    tokens = spell(
        sure('{"v":'),
        tok(' "yes', 0.6, (' "yes', 0.6), (' "no', 0.2), ('"no', 0.1), (" ", 0.05)),
        sure('"}'),
    )
    got = label_distribution(tokens, 7, ("yes", "no"))
    assert got.probabilities == pytest.approx({"yes": 0.75, "no": 0.25}, rel=1e-12)
    assert got.mass == pytest.approx(0.8, rel=1e-12)


def test_labels_sharing_a_prefix_part_at_the_token_that_tells_them_apart() -> None:
    # "no" and "none" share "no": p(yes) at the first token, then no/none at the second
    tokens = spell(
        sure('{"v": "'),
        tok("no", 0.7, ("no", 0.7), ("yes", 0.2)),
        tok("ne", 0.4, ("ne", 0.4), ('"', 0.5), ("pe", 0.1)),
        sure('"}'),
    )
    got = label_distribution(tokens, 7, ("yes", "no", "none"))
    mass = {"yes": 0.2, "no": 0.7 * 0.5, "none": 0.7 * 0.4}
    total = sum(mass.values())
    assert got.label == "none"
    assert got.probabilities == pytest.approx({k: v / total for k, v in mass.items()}, rel=1e-12)
    assert got.mass == pytest.approx(total, rel=1e-12)


def test_a_token_running_past_the_closing_quote_still_fits_its_label() -> None:
    tokens = spell(sure('{"v": "'), tok('yes",', 0.9, ('yes",', 0.9), ('no"', 0.05)), sure("}"))
    got = label_distribution(tokens, 7, ("yes", "no"))
    assert got.probabilities == pytest.approx({"yes": 0.9 / 0.95, "no": 0.05 / 0.95}, rel=1e-12)


def test_a_generated_text_that_is_no_label_is_an_error() -> None:
    tokens = spell(sure('{"v": "'), tok("maybe", 0.5, ("yes", 0.3)), sure('"}'))
    with pytest.raises(LogprobError, match="the generated text 'maybe' is none of the labels"):
        label_distribution(tokens, 7, ("yes", "no"))


def test_an_offset_past_the_tokens_is_an_error() -> None:
    with pytest.raises(LogprobError, match="no generated token holds byte 40"):
        label_distribution(spell(sure('{"v": "yes"}')), 40, ("yes", "no"))


def test_a_reply_ending_inside_a_shared_prefix_is_an_error() -> None:
    with pytest.raises(LogprobError, match="ends before its label does"):
        label_distribution(spell(sure('{"v": "'), tok("no", 0.5)), 7, ("no", "none"))


def test_distributions_of_a_whole_reply_use_byte_offsets_and_both_key_spellings() -> None:
    # a multi-byte character before the labels, camelCase keys, and trailing whitespace
    # tokens after the content (llama.cpp's reply text is trimmed, its tokens are not)
    text = '{"verdicts": [{"reason": "café", "verdict": "no"}, {"verdictLabel": "x"}, '
    text += '{"verdict": "yes"}]}'
    head, rest = text.split('"verdict": "no"')
    middle, tail = rest.split('"verdict": "yes"')
    tokens = spell(
        sure(head + '"verdict": "'),
        tok("no", 0.6, ("no", 0.6), ("yes", 0.3)),
        sure('"' + middle + '"verdict": "'),
        tok("yes", 0.8, ("no", 0.2), ("yes", 0.8)),
        sure('"' + tail),
        sure("\n\n  \t"),
    )
    found = label_distributions(
        text, tokens, items="verdicts", field="verdict", labels=("yes", "no")
    )
    assert [d.label for d in found] == ["no", "yes"]
    assert found[0].probabilities == pytest.approx({"yes": 1 / 3, "no": 2 / 3}, rel=1e-12)
    assert found[1].probabilities == pytest.approx({"yes": 0.8, "no": 0.2}, rel=1e-12)


def test_label_field_in_camel_case_is_found() -> None:
    text = '{"evaluations": [{"relevanceLevel": "low"}]}'
    head, tail = text.split("low")
    tokens = spell(sure(head), tok("low", 0.5, ("medium", 0.5)), sure(tail))
    found = label_distributions(
        text, tokens, items="evaluations", field="relevance_level", labels=LEVELS
    )
    assert [d.probabilities["low"] for d in found] == [pytest.approx(0.5)]


def test_tokens_that_do_not_spell_the_reply_are_an_error() -> None:
    with pytest.raises(LogprobError, match="do not spell the reply text"):
        label_distributions(
            '{"verdicts": []}',
            spell(sure('{"other": 1}')),
            items="verdicts",
            field="v",
            labels=("a",),
        )
