"""Reading OpenTelemetry traces from OTLP JSON files.

Two layouts of the OTLP/JSON encoding (the protobuf JSON mapping with OTLP's exceptions:
camelCase keys, trace and span ids as hex text, enums as numbers or names, 64-bit integers as
numbers or strings) are read:

* JSON lines, what the OpenTelemetry Collector's ``file`` exporter writes: one
  ``ExportTraceServiceRequest`` (``{"resourceSpans": [...]}``) per line;
* one ``ExportTraceServiceRequest`` as the whole file (pretty-printed or not), as an OTLP/HTTP
  JSON request body is.

Each request holds ``resourceSpans[].scopeSpans[].spans[]`` (``instrumentationLibrarySpans``, the
name before OTLP 0.15, is read too). A span's attributes become plain Python values
(``stringValue``, ``boolValue``, ``intValue``, ``doubleValue``, ``arrayValue``,
``kvlistValue``, ``bytesValue`` as base64 text). Nothing in a file stops the reading: a line
that is not JSON, a span without ids, a malformed attribute are each a :class:`TraceProblem`,
and the rest is read.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Span", "TraceFile", "TraceProblem", "attribute_value", "read_otlp_json"]

_SPAN_KINDS = ("UNSPECIFIED", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER")
_STATUS_CODES = ("UNSET", "OK", "ERROR")


@dataclass(frozen=True)
class TraceProblem:
    """Something wrong in a trace file: reported, never fatal.

    Attributes:
        trace_id: the trace it concerns, or ``None`` (a line that could not be read at all).
        message: what is wrong.
        line: the file's line (1-based) it was found on, when known.
        fatal: whether the trace could not be scored at all (its item is an ``error``);
            ``False``: a partial trace still scored (a missing parent span, a bad attribute).
    """

    trace_id: str | None
    message: str
    line: int | None = None
    fatal: bool = False

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        trace = f"trace {self.trace_id}: " if self.trace_id else ""
        return f"{where}{trace}{self.message}"


@dataclass(frozen=True)
class Span:
    """One span, as read from OTLP JSON.

    Attributes:
        trace_id: 32 lowercase hex digits.
        span_id: 16 lowercase hex digits.
        parent_span_id: the parent's span id, ``None`` for a root span.
        name: the span's name.
        kind: ``INTERNAL``, ``SERVER``, ``CLIENT``, ``PRODUCER``, ``CONSUMER`` or
            ``UNSPECIFIED``.
        start_ns: start time, nanoseconds since the Unix epoch (0 when missing).
        end_ns: end time, nanoseconds since the Unix epoch (0 when missing).
        attributes: attribute key → value.
        events: ``[{"name", "time_ns", "attributes"}]`` in file order.
        status_code: ``UNSET``, ``OK`` or ``ERROR``.
        status_message: the status's description, or ``""``.
        resource: the attributes of the span's resource (``service.name`` ...).
        line: the file line it was read from (1-based).
    """

    trace_id: str
    span_id: str
    parent_span_id: str | None
    name: str
    kind: str = "INTERNAL"
    start_ns: int = 0
    end_ns: int = 0
    attributes: Mapping[str, Any] = field(default_factory=dict)
    events: Sequence[Mapping[str, Any]] = ()
    status_code: str = "UNSET"
    status_message: str = ""
    resource: Mapping[str, Any] = field(default_factory=dict)
    line: int | None = None

    @property
    def duration_ms(self) -> float:
        """The span's duration in milliseconds (0 when a time is missing)."""
        if not self.start_ns or not self.end_ns:
            return 0.0
        return max(self.end_ns - self.start_ns, 0) / 1e6


@dataclass
class TraceFile:
    """What a file held: its spans by trace (in file order) and the problems found.

    Attributes:
        traces: trace id → its spans.
        problems: every problem found while reading, in file order.
    """

    traces: dict[str, list[Span]] = field(default_factory=dict)
    problems: list[TraceProblem] = field(default_factory=list)


def _number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    return None


def attribute_value(value: Any) -> Any:
    """The Python value of an OTLP ``AnyValue`` in JSON.

    Args:
        value: ``{"stringValue": ...}``, ``{"intValue": "42"}``, ``{"arrayValue": {"values":
            [...]}}``, ``{"kvlistValue": {"values": [{"key", "value"}]}}``... (``{}``: null).

    Returns:
        A str, int, float, bool, list, dict, or ``None``.

    Raises:
        ValueError: not an ``AnyValue`` (the message names what was found).
    """
    if not isinstance(value, Mapping):
        raise ValueError(f"an attribute value must be an object, not {value!r}")
    if not value:
        return None
    if "stringValue" in value:
        return str(value["stringValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "intValue" in value:
        number = _number(value["intValue"])
        if number is None:
            raise ValueError(f"intValue {value['intValue']!r} is not an integer")
        return number
    if "doubleValue" in value:
        raw = value["doubleValue"]
        number_value = float(raw) if isinstance(raw, (int, float, str)) else math.nan
        return number_value if math.isfinite(number_value) else None
    if "arrayValue" in value:
        return [attribute_value(v) for v in (value["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in value:
        return _attributes((value["kvlistValue"] or {}).get("values", []))
    if "bytesValue" in value:
        return str(value["bytesValue"])
    raise ValueError(f"unknown attribute value {sorted(value)}")


def _attributes(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, list):
        raise ValueError("attributes must be a list of {key, value}")
    found: dict[str, Any] = {}
    for entry in raw:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("key"), str):
            raise ValueError(f"an attribute must be {{key, value}}, not {entry!r}")
        found[entry["key"]] = attribute_value(entry.get("value") or {})
    return found


def _hex_id(raw: Any, size: int) -> str | None:
    """A trace (16 bytes) or span (8 bytes) id as lowercase hex; base64 is accepted too."""
    if not isinstance(raw, str) or not raw:
        return None
    text = raw.strip().lower()
    if len(text) == size * 2:
        try:
            if int(text, 16) == 0:
                return None  # an all-zero id is invalid in OpenTelemetry
        except ValueError:
            pass
        else:
            return text
    try:  # the plain protobuf JSON mapping writes bytes as base64
        decoded = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        return None
    return decoded.hex() if len(decoded) == size and any(decoded) else None


def _enum(raw: Any, names: tuple[str, ...], prefix: str) -> str:
    if isinstance(raw, int) and 0 <= raw < len(names):
        return names[raw]
    if isinstance(raw, str):
        name = raw.removeprefix(prefix)
        if name in names:
            return name
    return names[0] if prefix == "STATUS_CODE_" else "UNSPECIFIED"


def _span(raw: Any, resource: Mapping[str, Any], line: int | None) -> Span:
    if not isinstance(raw, Mapping):
        raise ValueError(f"a span must be an object, not {type(raw).__name__}")
    trace_id = _hex_id(raw.get("traceId"), 16)
    span_id = _hex_id(raw.get("spanId"), 8)
    if trace_id is None or span_id is None:
        raise ValueError(
            f"span {raw.get('name')!r} has no valid traceId/spanId "
            f"({raw.get('traceId')!r}, {raw.get('spanId')!r})"
        )
    raw_status = raw.get("status")
    status: Mapping[str, Any] = raw_status if isinstance(raw_status, Mapping) else {}
    events = []
    for event in raw.get("events") or []:
        if isinstance(event, Mapping):
            events.append(
                {
                    "name": str(event.get("name", "")),
                    "time_ns": _number(event.get("timeUnixNano")) or 0,
                    "attributes": _attributes(event.get("attributes") or []),
                }
            )
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_span_id=_hex_id(raw.get("parentSpanId"), 8),
        name=str(raw.get("name", "")),
        kind=_enum(raw.get("kind"), _SPAN_KINDS, "SPAN_KIND_"),
        start_ns=_number(raw.get("startTimeUnixNano")) or 0,
        end_ns=_number(raw.get("endTimeUnixNano")) or 0,
        attributes=_attributes(raw.get("attributes") or []),
        events=tuple(events),
        status_code=_enum(status.get("code", 0), _STATUS_CODES, "STATUS_CODE_"),
        status_message=str(status.get("message", "")),
        resource=resource,
        line=line,
    )


def _read_request(request: Any, line: int | None, into: TraceFile) -> None:
    if not isinstance(request, Mapping) or not isinstance(request.get("resourceSpans"), list):
        into.problems.append(
            TraceProblem(
                None, "not an ExportTraceServiceRequest (no resourceSpans list)", line, fatal=True
            )
        )
        return
    for resource_spans in request["resourceSpans"]:
        if not isinstance(resource_spans, Mapping):
            continue
        try:
            raw_resource = resource_spans.get("resource") or {}
            resource = _attributes(raw_resource.get("attributes") or [])
        except (ValueError, AttributeError) as exc:
            into.problems.append(TraceProblem(None, f"bad resource: {exc}", line))
            resource = {}
        scopes = resource_spans.get("scopeSpans", resource_spans.get("instrumentationLibrarySpans"))
        for scope in scopes or []:
            for raw in (scope or {}).get("spans") or []:
                try:
                    span = _span(raw, resource, line)
                except (ValueError, TypeError, AttributeError) as exc:
                    trace = raw.get("traceId") if isinstance(raw, Mapping) else None
                    into.problems.append(
                        TraceProblem(str(trace) if trace else None, f"span skipped: {exc}", line)
                    )
                    continue
                into.traces.setdefault(span.trace_id, []).append(span)


def _requests(text: str) -> Iterator[tuple[Any, int | None, str | None]]:
    """(request, line, error) for each request of the file: one document, or JSON lines."""
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            yield json.loads(stripped), None, None
            return
        except json.JSONDecodeError:
            pass  # not one document: JSON lines
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield json.loads(line), number, None
        except json.JSONDecodeError as exc:
            yield None, number, f"not JSON ({exc.msg} at column {exc.colno})"


def read_otlp_json(path: str | Path) -> TraceFile:
    """Read every span of an OTLP JSON file (JSON lines, or one request).

    Args:
        path: the file.

    Returns:
        The spans grouped by trace, and the problems met (a bad line, a bad span...).

    Raises:
        OSError: the file cannot be read.
        UnicodeDecodeError: the file is not UTF-8 text.
    """
    found = TraceFile()
    text = Path(path).read_text(encoding="utf-8")
    for request, line, error in _requests(text):
        if error is not None:
            found.problems.append(TraceProblem(None, error, line, fatal=True))
            continue
        _read_request(request, line, found)
    return found
