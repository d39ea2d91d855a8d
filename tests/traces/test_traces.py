"""Traces from a real opentelemetry-sdk application, exported as OTLP JSON, read and scored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from scorekit import PromptStep, create_scorer
from scorekit.cli import app
from scorekit.inputs.trajectories import extract_trajectory
from scorekit.judge import Judge, JudgeRequest
from scorekit.judge.scripted import ScriptedJudge
from scorekit.pipeline import Scorer, StepContext
from scorekit.scorers import create_tool_call_accuracy_scorer_code
from scorekit.store import Store
from scorekit.traces import load_trace_items, read_otlp_json, score_traces_sync
from scorekit.traces.otlp import attribute_value
from tests.evalkit import context_scorer
from tests.traces.otel_app import (
    agent_genai,
    file_exporting_provider,
    rag_openinference,
    tracing,
    write_collector_file,
)


class Grounded(BaseModel):
    verdict: str


def grounded_scorer() -> tuple[Scorer, ScriptedJudge]:
    """An LLM scorer: 1 when the judge says the answer is grounded in the context."""

    def reply(request: JudgeRequest) -> dict[str, str]:
        prompt = request.messages[-1].content
        return {"verdict": "yes" if "Paris" in prompt and "Context:" in prompt else "no"}

    model = ScriptedJudge(reply)

    def prompt(ctx: StepContext) -> str:
        output = ctx.run.output[-1]["content"]
        return f"Context: {' | '.join(ctx.run.context or ())}\nAnswer: {output}\nGrounded?"

    scorer = (
        create_scorer("grounded", description="answer grounded in context", judge=Judge(model))
        .analyze(PromptStep(description="judge", create_prompt=prompt, output_schema=Grounded))
        .generate_score(lambda ctx: 1.0 if ctx.results.analyze_step_result.verdict == "yes" else 0)
    )
    return scorer, model


@pytest.fixture
def trace_file(tmp_path: Path) -> Path:
    tracer, exporter, _ = tracing("travel-app")
    rag_openinference(tracer, "What is the capital of France?")
    agent_genai(tracer, "Should I pack an umbrella for Paris?")
    path = tmp_path / "traces.jsonl"
    write_collector_file(path, exporter, per_line=3)  # a trace spread over several lines
    return path


def test_the_file_is_what_the_collector_writes(trace_file: Path) -> None:
    lines = trace_file.read_text().splitlines()
    assert len(lines) == 3  # 9 spans, 3 per request
    request = json.loads(lines[0])
    span = request["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert set(span) >= {"traceId", "spanId", "parentSpanId", "name", "kind", "startTimeUnixNano"}
    assert len(span["traceId"]) == 32 and len(span["spanId"]) == 16
    assert span["kind"] == 1 and isinstance(span["startTimeUnixNano"], str)
    assert {"key": "service.name", "value": {"stringValue": "travel-app"}} in (
        request["resourceSpans"][0]["resource"]["attributes"]
    )
    found = read_otlp_json(trace_file)
    assert found.problems == [] and sorted(map(len, found.traces.values())) == [4, 5]


def test_openinference_and_genai_traces_become_items(trace_file: Path) -> None:
    items, problems, traces = load_trace_items(trace_file)
    assert (traces, problems) == (2, [])
    rag, agent = items
    assert rag.input == [{"role": "user", "content": "What is the capital of France?"}]
    assert rag.output == [
        {
            "role": "assistant",
            "content": "Paris is the capital of France, and it is 21 degrees there.",
            "toolInvocations": [
                {
                    "toolCallId": rag.output[0]["toolInvocations"][0]["toolCallId"],
                    "toolName": "weather",
                    "state": "result",
                    "args": {"city": "Paris"},
                    "result": {"temp_c": 21},
                }
            ],
        }
    ]
    assert rag.context == ("Paris is the capital of France.", "France is in Europe.")
    assert rag.metadata["service"] == "travel-app" and rag.metadata["span_kind"] == "CHAIN"
    assert (rag.trace["entity_id"], rag.trace["entity_type"]) == ("rag-request", "CHAIN")
    assert rag.id == f"{rag.trace['trace_id']}:{rag.trace['span_id']}"
    assert agent.input == [
        {"role": "system", "content": "You plan trips."},
        {"role": "user", "content": "Should I pack an umbrella for Paris?"},
    ]
    assert agent.output[0]["content"] == "Pack an umbrella: it rains in Paris."
    assert agent.output[0]["toolInvocations"] == [
        {
            "toolCallId": "call_1",
            "toolName": "forecast",
            "state": "result",
            "args": {"city": "Paris"},
            "result": {"sky": "rain"},
        }
    ]
    assert agent.context == ("Paris gets rain in spring.",)
    assert (agent.trace["entity_id"], agent.trace["entity_type"]) == (
        "invoke_agent travel",
        "AGENT",
    )
    assert extract_trajectory(agent.output)["steps"] == [
        {
            "stepType": "tool_call",
            "name": "forecast",
            "toolArgs": {"city": "Paris"},
            "toolResult": {"sky": "rain"},
            "success": True,
        }
    ]


def test_a_chosen_span_kind_gives_one_item_per_span(trace_file: Path) -> None:
    items, problems, _ = load_trace_items(trace_file, target="llm")
    assert problems == []
    assert [i.output[0]["content"] for i in items] == [
        "Paris is the capital of France, and it is 21 degrees there.",
        "",  # the agent's first chat only asks for the tool
        "Pack an umbrella: it rains in Paris.",
    ]
    assert [i.output[0].get("toolInvocations", [{}])[0].get("state") for i in items] == [
        None,
        "call",
        None,
    ]


def test_traces_are_scored_on_the_scripted_judge_and_code_scorers(
    trace_file: Path, tmp_path: Path
) -> None:
    grounded, model = grounded_scorer()
    weather = create_tool_call_accuracy_scorer_code(expected_tool="weather")
    db = tmp_path / "traces.db"
    result = score_traces_sync(
        trace_file, [grounded, context_scorer(), weather], store=db, run_name="nightly traces"
    )
    assert (result.status, result.traces, result.total_items, result.problems) == (
        "finished",
        2,
        2,
        [],
    )
    assert {sid: s.mean for sid, s in result.summaries.items()} == {
        "grounded": 1.0,
        "context-count": 1.5,
        "code-tool-call-accuracy-scorer": 0.5,
    }
    assert len(model.calls) == 2 and "Context: Paris is the capital" in "".join(
        m.content for c in model.calls for m in c.messages
    )
    with Store(db) as store:
        [run] = store.list_runs(source="TRACE")
        rows = list(store.results(run.id))
    assert (run.name, run.status, run.total_items) == ("nightly traces", "finished", 2)
    assert {r.source for r in rows} == {"TRACE"}
    rag = [r for r in rows if r.entity_id == "rag-request"]
    assert {r.scorer_id: r.score for r in rag} == {
        "grounded": 1.0,
        "context-count": 2.0,
        "code-tool-call-accuracy-scorer": 1.0,
    }
    assert all(len(r.trace_id or "") == 32 and len(r.span_id or "") == 16 for r in rows)
    assert rag[0].entity == {
        "traceId": rag[0].trace_id,
        "spanId": rag[0].span_id,
        "name": "rag-request",
    }


def test_a_failed_tool_span_is_an_error_invocation(tmp_path: Path) -> None:
    path = tmp_path / "direct.jsonl"
    tracer, provider = file_exporting_provider(path, "svc")
    rag_openinference(tracer, "Weather?", tool_fails=True)
    provider.shutdown()
    [item], problems, _ = load_trace_items(path)
    assert problems == []
    [invocation] = item.output[0]["toolInvocations"]
    assert (invocation["state"], invocation["errorText"], "result" in invocation) == (
        "output-error",
        "weather service down",
        False,
    )
    assert extract_trajectory(item.output)["steps"][0]["success"] is False


BAD_LINES = [
    "this is not json",
    json.dumps({"something": "else"}),
]


def span(trace: str, span_id: str, name: str, parent: str | None = None, **attrs: Any) -> dict:
    encoded: dict[str, Any] = {
        "traceId": trace,
        "spanId": span_id,
        "name": name,
        "kind": "SPAN_KIND_INTERNAL",
        "startTimeUnixNano": "1000",
        "endTimeUnixNano": 2000,
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()],
    }
    if parent:
        encoded["parentSpanId"] = parent
    return encoded


def request(*spans: dict) -> str:
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]})


def test_bad_and_partial_traces_are_reported_per_trace(tmp_path: Path) -> None:
    good = "a" * 32
    partial = "b" * 32
    empty = "c" * 32
    path = tmp_path / "mixed.jsonl"
    path.write_text(
        "\n".join(
            [
                request(
                    span(good, "1" * 16, "root", **{"input.value": "hi", "output.value": "yo"})
                ),
                BAD_LINES[0],
                request(span(partial, "2" * 16, "child", "9" * 16, **{"output.value": "late"})),
                BAD_LINES[1],
                request(span(empty, "3" * 16, "silent"), span("zz", "4" * 16, "no ids")),
                "",
            ]
        )
    )
    result = score_traces_sync(path, [context_scorer()], store=tmp_path / "t.db")
    assert [str(p) for p in result.problems] == [
        "line 2: not JSON (Expecting value at column 1)",
        "line 4: not an ExportTraceServiceRequest (no resourceSpans list)",
        "line 5: trace zz: span skipped: span 'no ids' has no valid traceId/spanId "
        "('zz', '4444444444444444')",
        f"line 3: trace {partial}: partial trace: the parent {'9' * 16} of span 'child' is missing",
        f"line 5: trace {empty}: span 'silent' ({'3' * 16}) and the LLM spans under it record no "
        "input and no output",
    ]
    assert [p.fatal for p in result.problems] == [True, True, False, False, True]
    assert (result.traces, result.total_items, result.status) == (3, 3, "finished")
    assert result.summaries["context-count"].counts == {"ok": 2, "skipped": 0, "error": 1}
    errors = [r for o in result.results for r in o.scorer_results.values() if r.status == "error"]
    assert (
        errors[0].error is not None and "record no input and no output" in errors[0].error.message
    )


def test_one_request_file_and_attribute_values(tmp_path: Path) -> None:
    trace_b64 = "q83vASNFZ4mrze8BI0VniQ=="  # base64 of bytes ab cd ef 01 23 45 67 89 (x2)
    path = tmp_path / "request.json"
    body = {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [{"key": "service.name", "value": {"stringValue": "s"}}]
                },
                "scopeSpans": [
                    {
                        "spans": [
                            {
                                "traceId": trace_b64,
                                "spanId": "AAAAAAAAAAE=",
                                "name": "root",
                                "kind": 2,
                                "status": {"code": "STATUS_CODE_ERROR", "message": "bad"},
                                "attributes": [
                                    {"key": "input.value", "value": {"stringValue": "q"}},
                                    {"key": "n", "value": {"intValue": "42"}},
                                ],
                            }
                        ]
                    }
                ],
            }
        ]
    }
    path.write_text(json.dumps(body, indent=2))
    found = read_otlp_json(path)
    [[root]] = found.traces.values()
    assert (root.trace_id, root.span_id) == ("abcdef0123456789abcdef0123456789", "0000000000000001")
    assert (root.kind, root.status_code, root.status_message) == ("SERVER", "ERROR", "bad")
    assert root.attributes == {"input.value": "q", "n": 42}
    assert attribute_value({"arrayValue": {"values": [{"intValue": 1}, {"boolValue": True}]}}) == [
        1,
        True,
    ]
    assert attribute_value(
        {"kvlistValue": {"values": [{"key": "a", "value": {"doubleValue": 0.5}}]}}
    ) == {"a": 0.5}
    assert attribute_value({"doubleValue": "NaN"}) is None
    assert attribute_value({}) is None
    with pytest.raises(ValueError, match="intValue 'x'"):
        attribute_value({"intValue": "x"})


def test_the_score_traces_command(trace_file: Path, tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    runner = CliRunner()
    done = runner.invoke(
        app,
        [
            "score-traces",
            str(trace_file),
            "-s",
            "code-tool-call-accuracy",
            "-o",
            "expected_tool=forecast",
            "--db",
            str(db),
            "--name",
            "from-cli",
        ],
    )
    assert done.exit_code == 0, done.output
    assert "2 traces, 2 items" in done.output and "stored: run" in done.output
    listed = runner.invoke(app, ["runs", "--db", str(db), "--source", "trace"])
    assert "from-cli" in listed.output and "0.5000" in listed.output
    missing = runner.invoke(app, ["score-traces", str(tmp_path / "nope.jsonl"), "-s", "x"])
    assert missing.exit_code == 2 and "no trace file" in missing.output
    no_scorer = runner.invoke(app, ["score-traces", str(trace_file)])
    assert no_scorer.exit_code == 2 and "give --scorer" in no_scorer.output


@pytest.mark.parametrize(
    ("content", "said"),
    [("", "no trace in"), ('garbage\n{"x": 1}\n', "no trace in")],
)
def test_score_traces_on_a_file_without_traces_exits_2(
    tmp_path: Path, content: str, said: str
) -> None:
    # issue 34: an empty or garbage file exited 0 with an empty table, as if it had passed
    path = tmp_path / "t.jsonl"
    path.write_text(content)
    done = CliRunner().invoke(app, ["score-traces", str(path), "-s", "tone", "--no-store"])
    assert done.exit_code == 2, done.output
    assert f"{said} {path}: nothing was scored" in " ".join(done.output.split())
    db = tmp_path / "r.db"
    stored = CliRunner().invoke(app, ["score-traces", str(path), "-s", "tone", "--db", str(db)])
    assert stored.exit_code == 2, stored.output
    with Store(db) as store:
        assert store.list_runs() == []  # exit 2: nothing stored, not even an empty run
