"""Malformed messages are ConfigErrors naming their place; OpenAI chat lists read as chats.

row 84 (a chat list's query is its last user message), row 85 (text parts are joined),
row 86 (a chat list's earlier turns are its history), row 87 (a malformed message is
refused, not read as empty text).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scorekit.datasets.files import read_dataset
from scorekit.errors import ConfigError, ScorerRunError
from scorekit.inputs.messages import (
    check_message,
    get_assistant_message,
    get_conversation_history,
    get_system_messages,
    get_user_message,
    is_chat_list,
    joined_text,
    message_text,
    messages_of,
)
from scorekit.inputs.tool_calls import extract_tool_calls
from scorekit.scorers import create_content_similarity_scorer, create_toxicity_scorer

OK = {"role": "user", "content": "fine"}

MALFORMED: list[tuple[Any, str, str]] = [
    # (the third message of an input list, the field named, the error message)
    ({"weird": 1}, "input[2].content", "input[2].content is missing: a message needs its text "
     "(keys: 'weird')"),
    ({"role": "user"}, "input[2].content", "input[2].content is missing: a message needs its "
     "text (keys: 'role')"),
    ({"role": "user", "content": 5}, "input[2].content", "input[2].content must be a string, a "
     "list of content parts or a Mastra content object, not int"),
    ({"role": "user", "content": None}, "input[2].content", "input[2].content is null (only an "
     "assistant message may lack its text)"),
    ({"role": 3, "content": "x"}, "input[2].role", "input[2].role must be a string, not int"),
    ({"role": "user", "text": 7}, "input[2].text", "input[2].text must be a string, not int"),
    (5, "input[2]", "input[2] must be a string or a message mapping, not int"),
    (None, "input[2]", "input[2] must be a string or a message mapping, not null"),
    (["nested"], "input[2]", "input[2] must be a string or a message mapping, not list"),
    ({"role": "user", "content": ["a"]}, "input[2].content[0]", "input[2].content[0] must be a "
     "content part mapping ({'type': ...}), not str"),
    ({"role": "user", "content": [{"text": "a"}]}, "input[2].content[0].type",
     "input[2].content[0].type must be a string (the part's kind), not missing"),
    ({"role": "user", "content": [{"type": "text", "text": 1}]}, "input[2].content[0].text",
     "input[2].content[0].text must be a string, not int"),
    ({"role": "user", "content": {"format": 2, "parts": "p"}}, "input[2].content.parts",
     "input[2].content.parts must be a list of parts, not str"),
    ({"role": "user", "content": {"format": 2, "content": 4}}, "input[2].content.content",
     "input[2].content.content must be a string, not int"),
    ({"role": "user", "content": {"format": 2, "parts": [{"type": "text"}]}},
     "input[2].content.parts[0].text", "input[2].content.parts[0].text must be a string, not "
     "null"),
]  # fmt: skip


@pytest.mark.parametrize(("bad", "field", "message"), MALFORMED)
def test_a_malformed_message_in_a_list_names_its_index_and_field(
    bad: Any, field: str, message: str
) -> None:
    value = [OK, "a bare string is a message", bad]
    for read in (
        lambda: messages_of(value, field="input"),
        lambda: joined_text(value, field="input"),  # code scorers
        lambda: get_user_message(value),  # LLM judges' user message
        lambda: get_assistant_message(value, field="input"),
        lambda: get_system_messages(value),
        lambda: extract_tool_calls({"inputMessages": value}),
    ):
        with pytest.raises(ConfigError) as info:
            read()
        assert info.value.field in (field, field.replace("input", "output.inputMessages", 1))
    with pytest.raises(ConfigError) as info:
        messages_of(value, field="input")
    assert (info.value.field, str(info.value)) == (field, message)


def test_the_nested_lists_of_an_agent_input_are_checked() -> None:
    bad = {"role": "user", "content": 5}
    cases = [
        (lambda: get_user_message({"inputMessages": [OK, bad]}), "input.inputMessages[1].content"),
        (lambda: get_user_message({"messages": [bad]}), "input.messages[0].content"),
        (lambda: get_system_messages({"systemMessages": [bad]}), "input.systemMessages[0].content"),
        (
            lambda: get_system_messages({"taggedSystemMessages": {"memory": [bad]}}),
            "input.taggedSystemMessages.memory[0].content",
        ),
        (
            lambda: get_conversation_history({"inputMessages": [], "rememberedMessages": [bad]}),
            "input.rememberedMessages[0].content",
        ),
        (lambda: get_conversation_history([OK, bad]), "input[1].content"),
        (lambda: get_assistant_message({"role": "assistant", "content": 5}), "output.content"),
        (lambda: message_text({"role": "user", "content": 5}), "message.content"),
    ]
    for read, field in cases:
        with pytest.raises(ConfigError) as info:
            read()
        assert info.value.field == field


def test_well_formed_shapes_pass() -> None:
    tool_turn = {"role": "assistant", "content": None, "tool_calls": [{"id": "c1"}]}
    mastra_calls = {"role": "assistant", "toolInvocations": [{"toolName": "x", "state": "call"}]}
    check_message(mastra_calls, "output[0]")
    check_message({"role": "assistant", "content": None}, "output[0]")
    image = {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u"}}]}
    mastra = {"role": "assistant", "content": {"format": 2, "parts": [], "toolInvocations": []}}
    for message in (tool_turn, image, mastra, {"role": "assistant", "text": "legacy"}, "s"):
        check_message(message, "output[0]")
    assert message_text(tool_turn) == ""
    assert message_text(image) == ""
    # a trajectory or other non-message mapping is not read as a message by the answer reader
    assert get_assistant_message({"steps": []}) is None


def test_a_scorer_run_on_a_malformed_message_is_an_error_naming_it() -> None:
    bad_input = [OK, {"role": "user", "content": 5}]
    with pytest.raises(ScorerRunError) as code:
        create_content_similarity_scorer().run_sync(input=bad_input, output="fine")
    error = code.value.result.error if code.value.result is not None else None
    assert error is not None
    assert (error.type, error.step) == ("ConfigError", "preprocess")
    assert "input[1].content must be a string" in error.message
    with pytest.raises(ScorerRunError) as judged:
        create_toxicity_scorer(model="test/judge").run_sync(
            input="q", output=[{"role": "assistant", "content": [{"type": "text", "text": 3}]}]
        )
    error = judged.value.result.error if judged.value.result is not None else None
    assert error is not None
    assert error.type == "ConfigError"
    assert "output[0].content[0].text must be a string, not int" in error.message


def test_the_dataset_reader_reports_file_line_and_the_message_field(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text(
        '{"input": [{"role": "user", "content": "a"}, {"weird": 1}], "output": "x"}\n'
        '{"input": "q", "output": [{"role": "assistant", "content": [{"type": "text"}]}]}\n'
        '{"input": [{"role": "user", "content": "a"}], "output": "x"}\n'
    )
    items = list(read_dataset(path))
    assert items[0].load_error == (
        f"{path}:1: field 'input': input[1].content is missing: a message needs its text "
        "(keys: 'weird')"
    )
    assert items[1].load_error == (
        f"{path}:2: field 'output': output[0].content[0].text must be a string, not null"
    )
    assert items[2].load_error is None


# --- OpenAI-style chat lists ---------------------------------------------------------------

CHAT = [
    {"role": "system", "content": "Answer in French."},
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": "Bonjour !"},
    {"role": "tool", "content": "42", "tool_call_id": "c1"},
    {"role": "user", "content": [{"type": "text", "text": "What is"},
                                 {"type": "text", "text": "6x7?"}]},
]  # fmt: skip


def test_a_chat_list_query_is_its_last_user_message_parts_joined() -> None:
    assert is_chat_list(CHAT)
    assert get_user_message(CHAT) == "What is 6x7?"  # row 84, row 85
    assert get_conversation_history(CHAT) == "user: Hi\nassistant: Bonjour !\ntool: 42"
    assert get_conversation_history(CHAT, max_messages=1) == "tool: 42"
    assert get_system_messages(CHAT) == ["Answer in French."]
    assert get_conversation_history([{"role": "user", "content": "only"}]) is None
    assert get_user_message([{"role": "assistant", "content": "no user"}]) is None


def test_code_scorers_and_judges_join_text_parts() -> None:
    parts = [{"type": "text", "text": "a"}, {"type": "image_url"}, {"type": "text", "text": "b"}]
    assert joined_text([{"role": "user", "content": parts}, "c"], field="input") == "a b, c"
    answer = [{"role": "assistant", "content": parts}]
    assert get_assistant_message(answer) == "a b"
    assert get_assistant_message({"role": "assistant", "content": parts}) == "a b"


def test_mastra_shapes_keep_mastra_rules() -> None:
    stored = {
        "role": "user",
        "content": {
            "format": 2,
            "parts": [{"type": "text", "text": "first"}, {"type": "text", "text": "last"}],
        },
    }
    assert message_text(stored) == "last"  # a Mastra stored message: its last text part
    assert get_assistant_message([{**stored, "role": "assistant"}]) == "last"
    mastra_list = [
        {"role": "user", "content": "one", "toolInvocations": []},
        {"role": "user", "content": "two", "toolInvocations": []},
    ]
    assert not is_chat_list(mastra_list)
    assert get_user_message(mastra_list) == "one"
    assert get_user_message([stored, {"role": "user", "content": "two"}]) == "last"
    assert get_user_message(["first", {"role": "user", "content": "two"}]) == "first"
    agent = {"inputMessages": CHAT, "rememberedMessages": [], "systemMessages": []}
    assert get_user_message(agent) == "Hi"  # Mastra's agent input: the first user message
    assert get_conversation_history(agent) is None
    assert not is_chat_list([])
