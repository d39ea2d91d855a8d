"""Reply budgets from schema bounds, the cut-off rule, unterminated JSON, and usage budgets.

The rules are in ``scorekit.judge.budget``; the exact values below follow its formula,
``tokens = ceil(1.25 × (text / 3 + marks)) + 32``, worked by hand in each comment.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from scorekit import JudgeOutputError
from scorekit.judge import Judge
from scorekit.judge.budget import (
    ReplyBound,
    first_budget,
    retry_budget,
    schema_bound,
    spec_bound,
    tokens_for,
)
from scorekit.judge.structured import SchemaSpec, extract_json, is_unterminated, parse_output
from scorekit.scorers.faithfulness import FaithfulnessVerdicts
from scorekit.scorers.replies import LIST_ITEMS, TEXT_CHARS, Claims, units_reply_chars
from scorekit.usage import JudgeUsage
from tests.judge.conftest import Relevance
from tests.servers.scripted_openai import Reply, ScriptedServer


def make_judge(server: ScriptedServer, **options: Any) -> Judge:
    settings = {"cache": False, "retry_backoff": 0.01, "timeout": 5.0, **options}
    return Judge(
        f"openai-compatible/b-{uuid.uuid4().hex[:8]}", base_url=server.base_url, **settings
    )


# -- the bound of a schema -------------------------------------------------------------------


def test_relevance_bound_and_budget() -> None:
    # {"label":"medium"}: text = 5 (key) + 6 (longest enum value); marks = {} 2 + key quotes 2
    # + colon 1 + value quotes 2 = 7; tokens = ceil(1.25 × (11/3 + 7)) + 32 = 14 + 32
    bound = schema_bound(Relevance.model_json_schema())
    assert bound == ReplyBound(text=11, marks=7)
    assert (bound.chars, bound.tokens) == (18, 46)


def test_faithfulness_verdicts_for_two_claims() -> None:
    # one verdict: text 7 + 6 ("unsure") + 6 + 500 (reason maxLength) = 519,
    #   marks 2 + 1 comma + (3 + 2) × 2 = 13;
    # two of them: text 1038, marks 2 + 1 comma + 26 = 29;
    # the reply: text 8 ("verdicts") + 1038 = 1046, marks 2 + 3 + 29 = 34;
    # tokens = ceil(1.25 × (1046/3 + 34)) + 32 = 479 + 32 = 511
    bound = spec_bound(FaithfulnessVerdicts.expecting(2))
    assert bound == ReplyBound(text=1046, marks=34)
    assert bound.tokens == 511


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "string", "maxLength": 10}, ReplyBound(10, 2)),
        ({"type": "integer", "minimum": -5, "maximum": 100}, ReplyBound(3, 0)),
        ({"type": "integer", "minimum": 0}, ReplyBound(20, 0)),
        ({"type": "number", "minimum": 0, "maximum": 1}, ReplyBound(24, 0)),
        ({"type": "boolean"}, ReplyBound(5, 0)),
        ({"enum": ["a", "bcd", None]}, ReplyBound(4, 2)),
        ({"type": ["string", "null"], "maxLength": 3}, ReplyBound(4, 2)),
        ({"anyOf": [{"type": "string", "maxLength": 9}, {"type": "null"}]}, ReplyBound(9, 2)),
        ({"type": "array", "maxItems": 0}, ReplyBound(0, 2)),
        # 3 × "xxxx": text 12, marks 2 + 2 commas + 3 × 2 quotes
        (
            {"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 4}},
            ReplyBound(12, 10),
        ),
        # closed object with an optional property: every property counts as present
        (
            {
                "type": "object",
                "properties": {"a": {"type": "boolean"}, "bb": {"const": "x"}},
                "additionalProperties": False,
            },
            ReplyBound(1 + 5 + 2 + 1, 2 + 1 + 3 + 3 + 2),
        ),
        # a $ref into $defs
        (
            {
                "$defs": {"S": {"type": "string", "maxLength": 7}},
                "type": "array",
                "maxItems": 2,
                "items": {"$ref": "#/$defs/S"},
            },
            ReplyBound(14, 2 + 1 + 4),
        ),
    ],
)
def test_bounded_schemas(schema: dict[str, Any], expected: ReplyBound) -> None:
    assert schema_bound(schema) == expected


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string"},  # no maxLength
        {"type": "array", "maxItems": 3, "items": {"type": "string"}},  # unbounded items
        {"type": "array", "items": {"type": "boolean"}},  # no maxItems
        {"type": "object", "properties": {}, "additionalProperties": True},  # open
        {},  # anything
        {
            "$defs": {"N": {"type": "array", "maxItems": 2, "items": {"$ref": "#/$defs/N"}}},
            "$ref": "#/$defs/N",
        },  # a cycle
    ],
)
def test_unbounded_schemas(schema: dict[str, Any]) -> None:
    assert schema_bound(schema) is None


def test_a_specs_reply_chars_caps_its_schema_bound() -> None:
    # at_most(334): 334 claims of up to 500 characters would be 167,006 characters of text;
    # the units of a 1,002-character text are capped at 4 × 1,002 + 256 = 4,264 characters,
    # punctuation scaled to its share: ceil(1,008 × 4,264 / 168,014) = 26
    spec = Claims.at_most(334)
    assert spec.reply_chars == units_reply_chars(334) == 4264
    assert schema_bound(spec.json_schema) == ReplyBound(text=167006, marks=1008)
    bound = spec_bound(spec)
    assert bound == ReplyBound(text=4238, marks=26)
    assert bound.tokens == 1831  # ceil(1.25 × (4238/3 + 26)) + 32 = 1799 + 32


def test_scorer_replies_bound_their_free_text_and_lists() -> None:
    claims = Claims.model_json_schema()["properties"]["claims"]
    assert claims["items"] == {"type": "string", "maxLength": TEXT_CHARS}
    assert claims["maxItems"] == LIST_ITEMS
    # the bound is sent, not validated: a longer reason from a judge that ignores it is read
    reason = "x" * (TEXT_CHARS + 1)
    reply = json.dumps({"verdicts": [{"verdict": "yes", "reason": reason}]})
    parsed = parse_output(reply, FaithfulnessVerdicts.expecting(1))
    assert parsed.error is None
    assert parsed.value.verdicts[0].reason == reason


# -- the first budget and the cut-off rule -----------------------------------------------------


def test_first_budget() -> None:
    bound = ReplyBound(11, 7)  # 46 tokens
    assert first_budget(bound, None) == 46
    assert first_budget(bound, 4096) == 46  # a large fixed max_tokens does not win
    assert first_budget(bound, 20) == 20  # a smaller one does
    assert first_budget(None, 300) == 300  # unbounded: the configured default
    assert first_budget(None, None) is None


def test_retry_budget() -> None:
    bound = ReplyBound(text=300, marks=12)  # 312 characters; ceil(1.25 × 112) + 32 = 172
    assert tokens_for(bound) == 172
    # cut off at the bound's budget past its characters: degenerate, no retry
    assert retry_budget(bound, 172, reply_chars=312, reply_tokens=172) is None
    # cut off before its characters: the tokens were denser than 3 characters each; one
    # retry at the bound measured at this reply's density, ceil(1.25 × 312 × 172 / 100) + 32
    assert retry_budget(bound, 172, reply_chars=100, reply_tokens=172) == 703
    # a configured max_tokens below the bound: the retry gets at least the bound's budget
    assert retry_budget(bound, 20, reply_chars=80, reply_tokens=20) == 172
    # no usage reported: the budget sent stands for the tokens spent
    assert retry_budget(bound, 172, reply_chars=100, reply_tokens=0) == 703
    assert retry_budget(None, 500, reply_chars=10, reply_tokens=500) is None  # unbounded


async def test_degenerate_reply_at_the_bound_fails_at_once(server: ScriptedServer) -> None:
    runaway = '{"label": "' + "high " * 40
    server.enqueue(Reply(runaway, finish_reason="length", completion_tokens=46))
    with pytest.raises(JudgeOutputError) as info:
        await make_judge(server).generate_object("x", Relevance)
    message = str(info.value)
    assert message.startswith(
        "the judge's reply ran past the schema's bound of 46 tokens (18 characters of JSON for "
        "Relevance; cut off at max_tokens=46 after 211 characters): a degenerate (repeating) "
        "reply, failed without a retry"
    )
    assert "the reply's JSON is unterminated (cut off after 211 characters)" in message
    assert info.value.raw_output == runaway
    assert [body["max_tokens"] for body in server.chat_requests] == [46]  # one call only
    assert info.value.usage is not None
    assert (info.value.usage.calls, info.value.usage.max_tokens) == (1, 46)


async def test_degenerate_reply_under_a_smaller_max_tokens_fails_at_once(
    server: ScriptedServer,
) -> None:
    # max_tokens=20 is below the bound's 46 tokens, but the reply already holds more than the
    # bound's 18 characters: it ran past everything the schema allows
    server.enqueue(Reply('{"label": "hig hig hig hig', finish_reason="length"))
    with pytest.raises(JudgeOutputError, match="a degenerate"):
        await make_judge(server, max_tokens=20).generate_object("x", Relevance)
    assert len(server.chat_requests) == 1


async def test_cut_off_under_the_bound_gets_one_retry(server: ScriptedServer) -> None:
    # 5 characters in 46 tokens: denser than assumed, so the budget did not cover the bound's
    # 18 characters; retry at ceil(1.25 × 18 × 46 / 5) + 32 = 207 + 32
    server.enqueue(
        Reply('{"lab', finish_reason="length", completion_tokens=46),
        Reply('{"label": "low"}', completion_tokens=6),
    )
    result = await make_judge(server).generate_object("x", Relevance)
    assert result.value.label == "low"
    assert [body["max_tokens"] for body in server.chat_requests] == [46, 239]
    assert result.usage.calls == 2
    assert (result.usage.max_tokens, result.usage.max_tokens_per_call) == (285, 239)


async def test_unbounded_schema_cut_off_fails_at_once(server: ScriptedServer) -> None:
    schema = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    server.enqueue(Reply('{"text": "on and on', finish_reason="length"))
    with pytest.raises(JudgeOutputError) as info:
        await make_judge(server, max_tokens=300).generate_object("x", schema)
    assert str(info.value).startswith(
        "the judge's reply for output was cut off at max_tokens=300 after 19 characters, and "
        "no schema bound sizes a larger budget"
    )
    assert [body["max_tokens"] for body in server.chat_requests] == [300]


async def test_a_valid_reply_at_the_token_limit_is_accepted(server: ScriptedServer) -> None:
    server.enqueue(Reply('{"label": "none"}', finish_reason="length"))
    result = await make_judge(server).generate_object("x", Relevance)
    assert result.value.label == "none"
    assert result.usage.calls == 1


async def test_cut_off_text_fails_at_once(server: ScriptedServer) -> None:
    server.enqueue(Reply("Because the context says so and", finish_reason="length"))
    with pytest.raises(JudgeOutputError) as info:
        await make_judge(server, max_tokens=8).generate_text("Why?")
    assert str(info.value).startswith(
        "the judge's reply for text was cut off at max_tokens=8 after 31 characters"
    )
    assert info.value.raw_output == "Because the context says so and"
    assert len(server.chat_requests) == 1


# -- unterminated JSON is named ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "unterminated"),
    [
        ('{"label": "high"', True),
        ('{"lab', True),
        ('Sure: [{"a": 1}, ', True),
        ('```json\n{"label": "hi', True),
        ('{"label": hi}', False),
        ('{"a": 1,}', False),
        ("no JSON here", False),
        ('```json\n{"a": 1\n```', False),
    ],
)
def test_is_unterminated(text: str, unterminated: bool) -> None:
    assert is_unterminated(text) is unterminated


def test_unterminated_json_is_named_so() -> None:
    with pytest.raises(ValueError, match="unterminated") as info:
        extract_json('{"verdicts": [{"verdict": "yes", "reason": "The claim')
    assert str(info.value) == (
        "the reply's JSON is unterminated (cut off after 53 characters): "
        '\'{"verdicts": [{"verdict": "yes", "reason": "The claim\''
    )
    with pytest.raises(ValueError, match="no JSON") as info:
        extract_json("I cannot")
    assert str(info.value) == "the reply holds no JSON value: 'I cannot'"


# -- budgets in the usage --------------------------------------------------------------------


async def test_usage_holds_each_calls_token_and_time_budget(server: ScriptedServer) -> None:
    server.enqueue(Reply('{"label": "very high"}'), Reply('{"label": "high"}'))  # a repair
    result = await make_judge(server, timeout=7.5).generate_object("x", Relevance)
    usage = result.usage
    assert usage.calls == 2
    assert (usage.max_tokens, usage.max_tokens_per_call) == (92, 46)
    assert (usage.timeout_s, usage.timeout_s_per_call) == (15.0, 7.5)


async def test_hosted_judge_without_timeout_gets_60_s(server: ScriptedServer) -> None:
    judge = Judge(
        f"openai-compatible/t-{uuid.uuid4().hex[:8]}", base_url=server.base_url, cache=False
    )
    assert judge.settings.timeout is None
    result = await judge.generate_object("x", Relevance)
    assert (result.usage.timeout_s, result.usage.timeout_s_per_call) == (60.0, 60.0)


async def test_a_cache_hit_spends_no_budget(server: ScriptedServer, tmp_path: Any) -> None:
    name = f"openai-compatible/c-{uuid.uuid4().hex[:8]}"
    first = await Judge(name, base_url=server.base_url, cache_dir=tmp_path).generate_object(
        "x", Relevance
    )
    again = await Judge(name, base_url=server.base_url, cache_dir=tmp_path).generate_object(
        "x", Relevance
    )
    assert (first.usage.max_tokens, first.usage.timeout_s) == (46, 60.0)
    assert again.usage.cache_hits == 1
    assert (again.usage.max_tokens, again.usage.timeout_s) == (0, 0.0)


async def test_a_timed_out_call_reports_its_deadline(server: ScriptedServer) -> None:
    from scorekit import JudgeTimeoutError

    server.enqueue(Reply(hang=True, hang_s=2.0))
    with pytest.raises(JudgeTimeoutError) as info:
        await make_judge(server, timeout=0.2).generate_object("x", Relevance)
    assert info.value.usage is not None
    usage = info.value.usage
    assert (usage.calls, usage.max_tokens, usage.timeout_s, usage.timeout_s_per_call) == (
        1,
        46,
        0.2,
        0.2,
    )


def test_usage_budgets_add_and_round_trip() -> None:
    one = JudgeUsage(calls=1, output_tokens=9) + JudgeUsage.budgets(46, 60.0)
    two = JudgeUsage(calls=1, output_tokens=30) + JudgeUsage.budgets(511, 120.0)
    total = one + two
    assert (total.max_tokens, total.max_tokens_per_call) == (557, 511)
    assert (total.timeout_s, total.timeout_s_per_call) == (180.0, 120.0)
    data = json.loads(json.dumps(total.to_dict()))
    assert JudgeUsage.from_dict(data) == total
    assert JudgeUsage(**data) == total  # how a saved session reads it back
    # a record written before the budgets existed reads with them at 0
    old = {"calls": 2, "input_tokens": 5, "output_tokens": 39, "latency_s": 1.5}
    assert JudgeUsage.from_dict({**old, "cache_hits": 0, "attempts": 2, "other": 1}) == (
        JudgeUsage(calls=2, input_tokens=5, output_tokens=39, latency_s=1.5, attempts=2)
    )
    assert JudgeUsage.from_dict(None) == JudgeUsage()
    assert JudgeUsage.budgets(None, None) == JudgeUsage()


def test_spec_bound_of_a_dict_spec_without_a_bound_is_none() -> None:
    spec = SchemaSpec("free", {"type": "object", "properties": {"t": {"type": "string"}}}, None)
    assert spec_bound(spec) is None
    capped = SchemaSpec("free", spec.json_schema, None, reply_chars=90)
    assert spec_bound(capped) == ReplyBound(text=90, marks=0)


async def test_a_scorer_results_usage_holds_the_budgets(server: ScriptedServer) -> None:
    from scorekit import PromptStep, create_scorer

    scorer = (
        create_scorer("relevance", description="labels relevance", judge=make_judge(server))
        .analyze(PromptStep("label", lambda ctx: f"How relevant is {ctx.run.output}?", Relevance))
        .generate_score(lambda ctx: 1.0)
    )
    result = await scorer.run(output="o")
    usage = result.judge_usage
    assert (usage.calls, usage.max_tokens, usage.max_tokens_per_call) == (1, 46, 46)
    assert (usage.timeout_s, usage.timeout_s_per_call) == (5.0, 5.0)
    assert result.to_dict()["judge_usage"]["max_tokens"] == 46
