"""``get_conversation_history``: Mastra's ``getConversationHistoryFromRunInput`` (spec §1.2)."""

from __future__ import annotations

from typing import Any

import pytest

from scorekit.errors import ConfigError
from scorekit.inputs.messages import get_conversation_history


def stored(role: str, text: str) -> dict[str, Any]:
    return {
        "id": f"{role}-1",
        "role": role,
        "content": {"format": 2, "parts": [{"type": "text", "text": text}], "content": text},
        "createdAt": "2026-01-01T00:00:00.000Z",
    }


def agent_input(*remembered: Any) -> dict[str, Any]:
    return {
        "inputMessages": [stored("user", "now")],
        "rememberedMessages": list(remembered),
        "systemMessages": [],
        "taggedSystemMessages": {},
    }


def test_renders_role_and_text_per_line() -> None:
    value = agent_input(stored("user", "Pick one: A or B?"), stored("assistant", "A"))
    assert get_conversation_history(value) == "user: Pick one: A or B?\nassistant: A"


def test_keeps_the_latest_max_messages() -> None:
    value = agent_input(stored("user", "first"), stored("assistant", "second"))
    assert get_conversation_history(value, max_messages=1) == "assistant: second"
    assert get_conversation_history(value, max_messages=5) == "user: first\nassistant: second"


def test_the_default_keeps_ten() -> None:
    value = agent_input(*(stored("user", f"m{i}") for i in range(12)))
    history = get_conversation_history(value)
    assert history is not None
    assert history.splitlines() == [f"user: m{i}" for i in range(2, 12)]


@pytest.mark.parametrize("size", [0, -3])
def test_no_history_when_max_messages_is_not_positive(size: int) -> None:
    assert get_conversation_history(agent_input(stored("user", "x")), max_messages=size) is None


def test_text_is_trimmed_and_empty_entries_dropped_after_the_cut() -> None:
    value = agent_input(
        stored("user", "kept out by the cut"),
        stored("user", "  spaced  "),
        stored("assistant", "   "),
        {"role": "", "content": "no role"},
        "a bare string has no role",
    )
    assert get_conversation_history(value, max_messages=4) == "user: spaced"


def test_plain_chat_messages_and_signal_roles() -> None:
    signal = {
        "role": "signal",
        "content": {"metadata": {"signal": {"tagName": "user"}}, "content": "ping"},
    }
    value = {"rememberedMessages": [{"role": "user", "content": "hi"}, signal]}
    assert get_conversation_history(value) == "user: hi\nuser: ping"


@pytest.mark.parametrize(
    "value",
    [
        None,
        "just a string",
        [{"role": "user", "content": "a list of messages"}],
        {"role": "user", "content": "one message"},
        agent_input(),
        {"inputMessages": [], "rememberedMessages": "not a list"},
    ],
)
def test_no_history(value: Any) -> None:
    assert get_conversation_history(value) is None


@pytest.mark.parametrize("size", [1.5, "3", True])
def test_max_messages_must_be_an_integer(size: Any) -> None:
    with pytest.raises(ConfigError) as info:
        get_conversation_history(agent_input(), max_messages=size)
    assert info.value.field == "max_messages"
