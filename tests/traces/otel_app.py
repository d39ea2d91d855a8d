"""A small application instrumented with opentelemetry-sdk, in both semantic conventions.

``rag_openinference`` answers a question the way an OpenInference-instrumented RAG chain does
(CHAIN root → RETRIEVER, TOOL, LLM children); ``agent_genai`` the way an agent instrumented
with the OpenTelemetry GenAI conventions does (invoke_agent → chat asking for a tool →
execute_tool → retrieval → chat with the answer). Spans are real SDK spans; the tests export
them as OTLP JSON and read them back.
"""

from __future__ import annotations

import json
from pathlib import Path

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Tracer, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode

from scorekit.traces.exporter import OTLPJsonFileExporter, encode_spans

DOCS = ["Paris is the capital of France.", "France is in Europe."]


def tracing(service: str) -> tuple[Tracer, InMemorySpanExporter, TracerProvider]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("tests.otel_app", "1.0"), exporter, provider


def rag_openinference(tracer: Tracer, question: str, *, tool_fails: bool = False) -> str:
    with tracer.start_as_current_span(
        "rag-request", attributes={"openinference.span.kind": "CHAIN", "input.value": question}
    ) as root:
        with tracer.start_as_current_span(
            "retrieve", attributes={"openinference.span.kind": "RETRIEVER", "input.value": question}
        ) as retriever:
            for i, doc in enumerate(DOCS):
                retriever.set_attribute(f"retrieval.documents.{i}.document.content", doc)
                retriever.set_attribute(f"retrieval.documents.{i}.document.score", 0.9 - i / 10)
        with tracer.start_as_current_span(
            "weather",
            attributes={
                "openinference.span.kind": "TOOL",
                "tool.name": "weather",
                "input.value": json.dumps({"city": "Paris"}),
            },
        ) as tool:
            if tool_fails:
                tool.set_status(Status(StatusCode.ERROR, "weather service down"))
            else:
                tool.set_attribute("output.value", json.dumps({"temp_c": 21}))
        answer = "Paris is the capital of France, and it is 21 degrees there."
        with tracer.start_as_current_span(
            "llm",
            attributes={
                "openinference.span.kind": "LLM",
                "llm.model_name": "gpt-test",
                "llm.input_messages.0.message.role": "system",
                "llm.input_messages.0.message.content": "Answer from the documents.",
                "llm.input_messages.1.message.role": "user",
                "llm.input_messages.1.message.contents.0.message_content.type": "text",
                "llm.input_messages.1.message.contents.0.message_content.text": question,
                "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.content": answer,
                "llm.token_count.prompt": 42,
            },
        ):
            pass
        root.set_attribute("output.value", answer)
    return answer


def agent_genai(tracer: Tracer, question: str) -> str:
    answer = "Pack an umbrella: it rains in Paris."
    with tracer.start_as_current_span(
        "invoke_agent travel",
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "travel"},
    ):
        user = [{"role": "user", "parts": [{"type": "text", "content": question}]}]
        with tracer.start_as_current_span(
            "chat gpt-test",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "gpt-test",
                "gen_ai.system_instructions": json.dumps(
                    [{"type": "text", "content": "You plan trips."}]
                ),
                "gen_ai.input.messages": json.dumps(user),
                "gen_ai.output.messages": json.dumps(
                    [
                        {
                            "role": "assistant",
                            "parts": [
                                {
                                    "type": "tool_call",
                                    "id": "call_1",
                                    "name": "forecast",
                                    "arguments": {"city": "Paris"},
                                }
                            ],
                            "finish_reason": "tool_call",
                        }
                    ]
                ),
            },
        ):
            pass
        with tracer.start_as_current_span(
            "execute_tool forecast",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "forecast",
                "gen_ai.tool.call.id": "call_1",
                "gen_ai.tool.call.arguments": json.dumps({"city": "Paris"}),
                "gen_ai.tool.call.result": json.dumps({"sky": "rain"}),
            },
        ):
            pass
        with tracer.start_as_current_span(
            "retrieval",
            attributes={
                "gen_ai.operation.name": "retrieval",
                "gen_ai.retrieval.query.text": question,
                "gen_ai.retrieval.documents": json.dumps(
                    [{"id": "d1", "score": 0.8, "content": "Paris gets rain in spring."}]
                ),
            },
        ):
            pass
        with tracer.start_as_current_span(
            "chat gpt-test",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.input.messages": json.dumps(user),
                "gen_ai.output.messages": json.dumps(
                    [{"role": "assistant", "parts": [{"type": "text", "content": answer}]}]
                ),
            },
        ):
            pass
    return answer


def write_collector_file(path: Path, exporter: InMemorySpanExporter, per_line: int = 3) -> None:
    """Write the finished spans as the Collector's file exporter does: a request per line."""
    spans = list(exporter.get_finished_spans())
    with path.open("w", encoding="utf-8") as handle:
        for start in range(0, len(spans), per_line):
            handle.write(json.dumps(encode_spans(spans[start : start + per_line])) + "\n")


def file_exporting_provider(path: Path, service: str) -> tuple[Tracer, TracerProvider]:
    """A provider whose spans go straight to an OTLP JSON lines file."""
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(OTLPJsonFileExporter(path)))
    return provider.get_tracer("tests.otel_app"), provider
