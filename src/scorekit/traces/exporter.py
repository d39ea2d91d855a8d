"""Writing ``opentelemetry-sdk`` spans as OTLP JSON, the file format scorekit reads.

The SDK ships no JSON file exporter (its OTLP exporters send protobuf), so this module encodes
finished spans in the OTLP/JSON mapping itself, as the Collector's ``file`` exporter writes
them: one ``ExportTraceServiceRequest`` per line, camelCase keys, trace and span ids as
lowercase hex, 64-bit integers (times, ``intValue``) as decimal strings, enums as numbers,
attributes as ``{"key", "value": {"stringValue" | "intValue" | "doubleValue" | "boolValue" |
"arrayValue"}}``; spans grouped by resource and then by instrumentation scope.

Needs ``opentelemetry-sdk`` (``pip install 'scorekit[otel]'``); importing this module without
it raises ``ImportError`` saying so. Nothing else in scorekit imports it.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

try:
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "scorekit.traces.exporter needs opentelemetry-sdk: pip install 'scorekit[otel]'"
    ) from exc

__all__ = ["OTLPJsonFileExporter", "encode_spans"]


def _any_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, (bytes, bytearray)):
        return {"bytesValue": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, Mapping):
        return {"kvlistValue": {"values": _attributes(value)}}
    if isinstance(value, (list, tuple)):
        return {"arrayValue": {"values": [_any_value(v) for v in value]}}
    return {"stringValue": str(value)}


def _attributes(attributes: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    return [{"key": str(k), "value": _any_value(v)} for k, v in (attributes or {}).items()]


def _span(span: ReadableSpan) -> dict[str, Any]:
    context = span.get_span_context()
    if context is None:
        raise ValueError(f"span {span.name!r} has no span context")
    encoded: dict[str, Any] = {
        "traceId": f"{context.trace_id:032x}",
        "spanId": f"{context.span_id:016x}",
        "name": span.name,
        # OTLP numbers kinds from 1 (INTERNAL); the SDK's SpanKind from 0
        "kind": span.kind.value + 1,
        "startTimeUnixNano": str(span.start_time or 0),
        "endTimeUnixNano": str(span.end_time or 0),
        "attributes": _attributes(span.attributes),
        "status": {"code": span.status.status_code.value},
    }
    if span.parent is not None:
        encoded["parentSpanId"] = f"{span.parent.span_id:016x}"
    if span.status.description:
        encoded["status"]["message"] = span.status.description
    if span.events:
        encoded["events"] = [
            {
                "timeUnixNano": str(event.timestamp),
                "name": event.name,
                "attributes": _attributes(event.attributes),
            }
            for event in span.events
        ]
    return encoded


def encode_spans(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """One ``ExportTraceServiceRequest`` (as JSON data) holding ``spans``.

    Args:
        spans: finished SDK spans (from an ``InMemorySpanExporter`` or a span processor).

    Returns:
        ``{"resourceSpans": [{"resource", "scopeSpans": [{"scope", "spans"}]}]}``.
    """
    by_resource: dict[int, tuple[Any, dict[tuple[str, str], list[ReadableSpan]]]] = {}
    for span in spans:
        resource = span.resource
        _, scopes = by_resource.setdefault(id(resource), (resource, {}))
        scope = span.instrumentation_scope
        key = (scope.name, scope.version or "") if scope is not None else ("", "")
        scopes.setdefault(key, []).append(span)
    resource_spans = []
    for resource, scopes in by_resource.values():
        resource_spans.append(
            {
                "resource": {"attributes": _attributes(resource.attributes if resource else {})},
                "scopeSpans": [
                    {
                        "scope": {"name": name, **({"version": version} if version else {})},
                        "spans": [_span(s) for s in members],
                    }
                    for (name, version), members in scopes.items()
                ],
            }
        )
    return {"resourceSpans": resource_spans}


class OTLPJsonFileExporter(SpanExporter):
    """A span exporter appending each batch to a file as one OTLP JSON line.

    Use it with a ``SimpleSpanProcessor`` or ``BatchSpanProcessor``; the file can then be
    scored with ``scorekit score-traces FILE -s ...``.

    Args:
        path: the JSON lines file (created, or appended to).
    """

    def __init__(self, path: str | Path) -> None:
        self._path = Path(path)
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        """Append the batch as one line."""
        if not spans:
            return SpanExportResult.SUCCESS
        line = json.dumps(encode_spans(spans), ensure_ascii=False, separators=(",", ":"))
        try:
            with self._lock, self._path.open("a", encoding="utf-8") as handle:
                handle.write(line + "\n")
        except OSError:
            return SpanExportResult.FAILURE
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        """Nothing to release: the file is opened per batch."""
