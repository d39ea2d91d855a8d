from __future__ import annotations

import pytest

from scorekit.errors import ConfigError
from scorekit.inputs.messages import (
    get_assistant_message,
    get_combined_system_prompt,
    get_user_message,
    joined_text,
    message_text,
)


def db_message(role: str, text: str, **content: object) -> dict:
    """A MastraDBMessage as Mastra's createTestMessage builds it."""
    return {
        "id": "m",
        "role": role,
        "createdAt": "2026-01-01T00:00:00Z",
        "content": {
            "format": 2,
            "parts": [{"type": "text", "text": text}],
            "content": text,
            **content,
        },
    }


def test_message_text_rules() -> None:
    assert message_text("plain") == "plain"
    assert message_text({"role": "user", "content": "hi"}) == "hi"
    parts = [{"type": "text", "text": "a"}, {"type": "image_url"}, {"type": "text", "text": "b"}]
    # OpenAI content parts: every text part, joined with a space (row 85)
    assert message_text({"role": "user", "content": parts}) == "a b"
    assert message_text(db_message("user", "db")) == "db"
    only_parts = {
        "role": "user",
        "content": {"format": 2, "parts": [{"type": "text", "text": "p"}]},
    }
    assert message_text(only_parts) == "p"
    assert message_text({"role": "assistant", "content": {"format": 2, "parts": []}}) == ""
    assert message_text({"role": "assistant", "text": "legacy"}) == "legacy"


def test_user_message_is_the_first_user_turn() -> None:
    chat = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "x"},
        {"role": "user", "content": "second"},
    ]
    assert get_user_message(chat) == "second"  # a plain chat list: its last (row 84)
    assert get_user_message([db_message("user", "first"), db_message("user", "second")]) == (
        "first"  # Mastra stored messages: the first, as Mastra
    )
    assert get_user_message({"inputMessages": chat}) == "first"  # an agent input, as Mastra
    agent_input = {
        "inputMessages": [db_message("user", "agent q")],
        "rememberedMessages": [],
        "systemMessages": [{"role": "system", "content": "be brief"}],
        "taggedSystemMessages": {"memory": [{"role": "system", "content": "remember"}]},
    }
    assert get_user_message(agent_input) == "agent q"
    assert get_combined_system_prompt(agent_input) == "be brief\n\nremember"
    assert get_user_message({"prompt": "p"}) == "p"
    assert get_user_message(None) is None


def test_assistant_message_is_the_last_with_text() -> None:
    output = [
        db_message("assistant", "answer"),
        {"id": "t", "role": "assistant", "createdAt": "x", "content": {"format": 2, "parts": []}},
    ]
    assert get_assistant_message(output) == "answer"
    assert get_assistant_message("s") == "s"
    assert get_assistant_message({"role": "assistant", "content": "c"}) == "c"
    assert get_assistant_message([]) is None


def test_code_scorers_join_every_message() -> None:
    value = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}, "c"]
    assert joined_text(value, field="input") == "a, b, c"
    assert joined_text(None, field="input") == ""
    agent_input = {"inputMessages": [db_message("user", "x"), db_message("user", "y")]}
    assert joined_text(agent_input, field="input") == "x, y"


@pytest.mark.parametrize(
    ("bad", "field"),
    [(42, "output"), (1.5, "output"), ([1, 2], "output[0]"), ({"foo": "bar"}, "output"),
     (b"bytes", "output")],
)  # fmt: skip
def test_bad_shapes_name_the_field(bad: object, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        joined_text(bad, field="output")
    assert info.value.field == field
    assert field in str(info.value)


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"inputMessages": [1, 2]}, "input.inputMessages[0]"),
        ({"messages": [1]}, "input.messages[0]"),
        ({"inputMessages": "text"}, "input.inputMessages"),
    ],
)
def test_bad_nested_messages_name_the_field(bad: object, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        joined_text(bad, field="input")
    assert info.value.field == field
