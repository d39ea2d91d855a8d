"""Scoring recorded traces: OTLP JSON files under the OpenInference and GenAI conventions.

Read the files the OpenTelemetry Collector's ``file`` exporter writes (or one OTLP JSON
request; :mod:`scorekit.traces.otlp`), turn each trace into items — input and output messages
from the root (or every span of a chosen kind), context documents from retriever spans, tool
invocations and so the trajectory from tool spans (:mod:`scorekit.traces.trace_items`,
:mod:`scorekit.traces.conventions`) — and score them into one stored run with source
``TRACE`` (:func:`score_traces`). Malformed or partial traces are reported per trace
(:class:`TraceProblem`), never stopping the file. ``scorekit.traces.exporter`` (needs
``opentelemetry-sdk``) writes an application's spans in that format.

Example::

    from scorekit.traces import score_traces_sync

    result = score_traces_sync("traces.jsonl", [faithfulness], store=".scorekit/scorekit.db")
    result.summaries["faithfulness-scorer"].mean, [str(p) for p in result.problems]
"""

from scorekit.traces.conventions import span_kind
from scorekit.traces.otlp import Span, TraceFile, TraceProblem, read_otlp_json
from scorekit.traces.score import (
    TraceRunResult,
    load_trace_items,
    score_traces,
    score_traces_sync,
)
from scorekit.traces.trace_items import trace_items

__all__ = [
    "Span",
    "TraceFile",
    "TraceProblem",
    "TraceRunResult",
    "load_trace_items",
    "read_otlp_json",
    "score_traces",
    "score_traces_sync",
    "span_kind",
    "trace_items",
]
