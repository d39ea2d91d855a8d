"""From a trace's spans to the items scorers read.

For each *target* span of a trace — its root (``target="root"``, the default), or every span
of a chosen kind (``target="LLM"``, ``"AGENT"``...; see :mod:`scorekit.traces.conventions`) —
one :class:`~scorekit.items.EvalItem`:

* ``input``: the target's input messages, else those of the first LLM span under it (by start
  time);
* ``output``: one assistant message whose content is the text of the target's last output
  message with text (else the last LLM span's under it), and whose ``toolInvocations`` are the
  tool calls under it in Mastra's shape: one per tool span, or, when the trace has no tool
  span, the calls the LLM spans asked for (state ``call``). Tool-call scorers read them, and
  trajectory scorers extract the trajectory from them (:func:`scorekit.inputs.trajectories.
  extract_trajectory`), one ``tool_call`` step per call in start order;
* ``context``: the documents of the retriever spans under it, in start order;
* ``trace``: where it came from: the trace and span ids, ``entity_id`` the span's name,
  ``entity_type`` its kind (``SPAN`` for a plain span), ``entity`` ``{"traceId", "spanId",
  "name"}`` (Mastra's trace scoring: mastra-core.md §8); stored in the result rows;
* ``metadata``: ``{"service", "span_kind", "duration_ms"}``.

Its id is ``<trace id>:<span id>``. Partial traces (a parent span missing, two spans with one
id, several roots) are scored and the problem reported; a trace with no target span, or whose
target records neither input nor output, becomes an *error item* (``load_error`` says why,
every scorer's result is ``error``) and a fatal problem.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scorekit.items import EvalItem
from scorekit.traces.conventions import (
    documents,
    input_messages,
    output_messages,
    requested_tool_calls,
    span_kind,
    tool_invocation,
)
from scorekit.traces.otlp import Span, TraceProblem

__all__ = ["trace_items"]


def _origin(span: Span) -> dict[str, Any]:
    return {
        "trace_id": span.trace_id,
        "span_id": span.span_id,
        "entity_id": span.name or span.span_id,
        "entity_type": span_kind(span) or "SPAN",
        "entity": {"traceId": span.trace_id, "spanId": span.span_id, "name": span.name},
    }


def _subtree(target: Span, children: dict[str, list[Span]]) -> list[Span]:
    """The target and every span under it, by start time (cycle-safe)."""
    found, seen, todo = [], {target.span_id}, [target]
    while todo:
        span = todo.pop()
        found.append(span)
        for child in children.get(span.span_id, []):
            if child.span_id not in seen:
                seen.add(child.span_id)
                todo.append(child)
    return sorted(found, key=lambda s: (s.start_ns, s.end_ns))


def _last_text(messages: Sequence[dict[str, Any]]) -> str | None:
    for message in reversed(messages):
        content = message.get("content")
        if message.get("role") != "user" and isinstance(content, str) and content.strip():
            return content
    return None


def _item(target: Span, spans: list[Span]) -> EvalItem | str:
    """The target's item, or why there is none."""
    llms = [s for s in spans if span_kind(s) == "LLM" and s is not target]
    given = input_messages(target)
    if not given:
        given = next((m for m in (input_messages(s) for s in llms) if m), [])
    text = _last_text(output_messages(target))
    if text is None:
        text = next(
            (t for t in (_last_text(output_messages(s)) for s in reversed(llms)) if t), None
        )
    tools = [t for t in (tool_invocation(s) for s in spans if span_kind(s) == "TOOL") if t]
    if not tools:
        tools = [call for s in spans if span_kind(s) == "LLM" for call in requested_tool_calls(s)]
    if not given and text is None and not tools:
        return (
            f"span {target.name!r} ({target.span_id}) and the LLM spans under it record no "
            "input and no output"
        )
    output: dict[str, Any] = {"role": "assistant", "content": text or ""}
    if tools:
        output["toolInvocations"] = tools
    context = [d for s in spans if span_kind(s) == "RETRIEVER" for d in documents(s)]
    return EvalItem(
        id=f"{target.trace_id}:{target.span_id}",
        input=given or None,
        output=[output],
        has_output=True,
        context=tuple(context) if context else None,
        metadata={
            "service": target.resource.get("service.name"),
            "span_kind": span_kind(target) or "SPAN",
            "duration_ms": target.duration_ms,
        },
        trace=_origin(target),
    )


def trace_items(
    trace_id: str, spans: Sequence[Span], *, target: str = "root"
) -> tuple[list[EvalItem], list[TraceProblem]]:
    """The items of one trace, and the problems found in it.

    Args:
        trace_id: the trace's id (32 hex digits).
        spans: its spans, any order.
        target: ``"root"``, or a span kind (``"LLM"``, ``"AGENT"``, ``"CHAIN"``...; case
            insensitive): one item per span of that kind.

    Returns:
        The items (an error item for a trace that cannot be scored) and the problems.
    """
    problems: list[TraceProblem] = []
    by_id: dict[str, Span] = {}
    for span in spans:
        if span.span_id in by_id:
            problems.append(
                TraceProblem(trace_id, f"two spans share the id {span.span_id}", span.line)
            )
            continue
        by_id[span.span_id] = span
    children: dict[str, list[Span]] = {}
    roots, orphans = [], []
    for span in by_id.values():
        parent = span.parent_span_id
        if parent is None:
            roots.append(span)
        elif parent not in by_id:
            orphans.append(span)
            problems.append(
                TraceProblem(
                    trace_id,
                    f"partial trace: the parent {parent} of span {span.name!r} is missing",
                    span.line,
                )
            )
        else:
            children.setdefault(parent, []).append(span)
    if target.lower() == "root":
        candidates = sorted(roots or orphans, key=lambda s: s.start_ns)
        if len(candidates) > 1:
            problems.append(
                TraceProblem(
                    trace_id,
                    f"{len(candidates)} spans without a parent; the earliest, "
                    f"{candidates[0].name!r}, is scored",
                )
            )
        targets = candidates[:1]
    else:
        kind = target.upper()
        targets = sorted(
            (s for s in by_id.values() if span_kind(s) == kind), key=lambda s: s.start_ns
        )
    if not targets:
        why = "no span" if target.lower() == "root" else f"no span of kind {target.upper()}"
        return _failed(trace_id, why, problems)
    items: list[EvalItem] = []
    for chosen in targets:
        made = _item(chosen, _subtree(chosen, children))
        if isinstance(made, str):
            problems.append(TraceProblem(trace_id, made, chosen.line, fatal=True))
            items.append(
                EvalItem(
                    id=f"{chosen.trace_id}:{chosen.span_id}", load_error=made, trace=_origin(chosen)
                )
            )
        else:
            items.append(made)
    return items, problems


def _failed(
    trace_id: str, why: str, problems: list[TraceProblem]
) -> tuple[list[EvalItem], list[TraceProblem]]:
    problems.append(TraceProblem(trace_id, why, fatal=True))
    item = EvalItem(
        id=trace_id, load_error=f"trace {trace_id}: {why}", trace={"trace_id": trace_id}
    )
    return [item], problems
