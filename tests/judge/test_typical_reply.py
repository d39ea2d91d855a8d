"""Typical replies: valid for their schema, sized as documented, readable by label readers."""

from __future__ import annotations

import json

from pydantic import BaseModel, Field

from scorekit.judge.typical_reply import (
    TYPICAL_ITEMS,
    TYPICAL_REASON_WORDS,
    TYPICAL_WORDS,
    typical_reply,
)


class Piece(BaseModel):
    context_index: int = Field(ge=0)
    relevance_level: str = Field(json_schema_extra={"enum": ["high", "low"]})
    note: str | None = None


class Pieces(BaseModel):
    pieces: list[Piece] = Field(min_length=5, max_length=5)
    score: float = Field(ge=0, le=1)
    flag: bool


PROMPT = " ".join(f"w{n}" for n in range(100))


def test_a_pydantic_schema_gets_a_valid_reply_of_the_documented_shape() -> None:
    reply = typical_reply(Pieces.model_json_schema(), PROMPT)
    value = Pieces.model_validate_json(reply.text)  # valid: $ref followed, anyOf taken
    assert [p.context_index for p in value.pieces] == [0, 1, 2, 3, 4]  # minItems wins
    assert {p.relevance_level for p in value.pieces} == {"high"}
    assert [len(p.note.split()) for p in value.pieces if p.note] == [TYPICAL_WORDS] * 5
    assert (value.score, value.flag, reply.logprobs) == (0.5, True, None)


def test_lists_have_the_typical_length_and_strings_take_the_prompts_words_in_turn() -> None:
    schema = {"type": "object", "properties": {"claims": {"type": "array",
              "items": {"type": "string"}}}}  # fmt: skip
    claims = json.loads(typical_reply(schema, PROMPT).text)["claims"]
    assert len(claims) == TYPICAL_ITEMS
    assert claims[0].split()[:2] == ["w0", "w1"] and claims[1].split()[0] == f"w{TYPICAL_WORDS}"


def test_free_text_is_a_reason_of_typical_length() -> None:
    assert len(typical_reply(None, PROMPT).text.split()) == TYPICAL_REASON_WORDS


def test_logprobs_spell_the_reply_with_each_string_a_certain_token() -> None:
    reply = typical_reply({"type": "object", "properties": {"verdict": {"enum": ["yes", "no"]}}},
                          "x", top_logprobs=5)  # fmt: skip
    assert reply.logprobs is not None
    assert "".join(t.token for t in reply.logprobs) == reply.text == '{"verdict": "yes"}'
    label = next(t for t in reply.logprobs if t.token == "yes")
    assert (label.logprob, [(a.token, a.logprob) for a in label.top]) == (0.0, [("yes", 0.0)])
