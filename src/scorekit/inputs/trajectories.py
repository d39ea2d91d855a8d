"""Agent trajectories in Mastra's shapes, and the comparisons the trajectory scorers share.

A *trajectory* is what an agent did, in Mastra evals 1.10.2's data shape (camelCase keys, read as
given): ``{"steps": [step, ...], "totalDurationMs"?: number, "rawOutput"?: messages}``, where a
step is ``{"stepType": "tool_call" | "mcp_tool_call" | "model_generation" | "agent_run" |
"workflow_step" | ..., "name": str, "durationMs"?, "children"?: [step, ...], ...}`` with the
fields of its type (``toolArgs``, ``toolResult``, ``success``, ``promptTokens`` ...). An
*expected step* has the same keys, all optional but ``name``, and its ``children`` is an
*expectation*. An *expectation* (Mastra ``TrajectoryExpectation``) configures what a run is
checked against: ``steps``, ``ordering``, ``allowRepeatedSteps``, ``maxSteps``,
``maxTotalTokens``, ``maxTotalDurationMs``, ``noRedundantCalls``, ``blacklistedTools``,
``blacklistedSequences``, ``maxRetriesPerTool``; its keys are accepted in camelCase (data, as a
dataset item holds them) or snake_case (as factory options are spelled); steps keep camelCase.

A scorer's output may be a trajectory, or messages (a Mastra agent output, chat messages) from
which one is extracted (:func:`extract_trajectory`, the rule of Mastra core's
``extractTrajectory`` described by the conformance corpus README): one ``tool_call`` step per
merged tool invocation (:mod:`scorekit.inputs.tool_calls`) that has a ``toolName`` and the state
``result``, ``call`` or ``output-error``.

Helpers (Mastra ``scorers/utils.ts`` 1.10.2, mastra-scorers.md §3.7): :func:`compare_trajectories`
(``strict`` / ``relaxed`` / ``unordered``) here; the efficiency, blacklist and tool-failure checks
in :mod:`scorekit.scorers.trajectory_criteria`. Results are plain dicts with snake_case keys
(docs/divergences.md row 10).

Complexity: every helper runs in O((n + m) log m) for ``n`` expected and ``m`` actual steps (plus
the size of the step data it serialises). Mastra's loops rescan the actual steps for each
expected step (O(n·m)); here each expected step looks its candidates up in an index of the
actual steps keyed by name, type and the JSON of the compared fields, which finds the same
steps in the same order.
"""

from __future__ import annotations

import bisect
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal, TypedDict, get_args

from scorekit.errors import ConfigError
from scorekit.inputs.messages import messages_of
from scorekit.inputs.tool_calls import CALLED_STATES, message_tool_invocations
from scorekit.rounding import round_to_two_decimals

__all__ = [
    "COMPARABLE_FIELDS",
    "EXPECTATION_KEYS",
    "ORDERINGS",
    "TOOL_STEP_TYPES",
    "Comparison",
    "Ordering",
    "check_ordering",
    "compare_trajectories",
    "expected_step_matches",
    "expected_steps_of",
    "extract_trajectory",
    "is_number",
    "js_stringify",
    "read_expectation",
    "trajectory_of",
    "walk_steps",
]

Ordering = Literal["strict", "relaxed", "unordered"]
"""How :func:`compare_trajectories` treats the order of the expected steps."""
ORDERINGS: tuple[str, ...] = get_args(Ordering)

COMPARABLE_FIELDS: Mapping[str, tuple[str, ...]] = {
    "tool_call": ("toolArgs", "toolResult", "success"),
    "mcp_tool_call": ("toolArgs", "toolResult", "mcpServer", "success"),
    "model_generation": ("modelId", "promptTokens", "completionTokens", "finishReason"),
    "agent_run": ("agentId",),
    "workflow_step": ("stepId", "status", "output"),
    "workflow_run": ("workflowId", "status"),
    "workflow_conditional": ("conditionCount", "selectedSteps"),
    "workflow_parallel": ("branchCount", "parallelSteps"),
    "workflow_loop": ("loopType", "totalIterations"),
    "workflow_sleep": ("sleepDurationMs", "sleepType"),
    "workflow_wait_event": ("eventName", "eventReceived"),
    "processor_run": ("processorId",),
}
"""The fields an expected step of each type is compared on, when it sets them (Mastra 1.10.2)."""

TOOL_STEP_TYPES = frozenset({"tool_call", "mcp_tool_call"})
"""The step types of tool calls (redundancy and retries look only at these)."""

EXPECTATION_KEYS: Mapping[str, str] = {
    "steps": "steps",
    "ordering": "ordering",
    "allowRepeatedSteps": "allow_repeated_steps",
    "maxSteps": "max_steps",
    "maxTotalTokens": "max_total_tokens",
    "maxTotalDurationMs": "max_total_duration_ms",
    "noRedundantCalls": "no_redundant_calls",
    "blacklistedTools": "blacklisted_tools",
    "blacklistedSequences": "blacklisted_sequences",
    "maxRetriesPerTool": "max_retries_per_tool",
}
"""An expectation's keys: Mastra's camelCase name → scorekit's snake_case name."""
_SNAKE_KEYS = frozenset(EXPECTATION_KEYS.values())
_TRAJECTORY_ONLY_KEYS = frozenset(
    {"totalDurationMs", "total_duration_ms", "rawOutput", "raw_output"}
)
"""Keys of a Mastra ``Trajectory`` that say nothing about what was expected; not read."""
_BUDGETS = ("max_steps", "max_total_tokens", "max_total_duration_ms", "max_retries_per_tool")
_FLAGS = ("allow_repeated_steps", "no_redundant_calls")


# ---- JSON as JavaScript writes it ---------------------------------------------------------


def _array_index(key: str) -> int | None:
    if key.isdigit() and (key == "0" or not key.startswith("0")) and int(key) < 2**32 - 1:
        return int(key)
    return None


def _js_value(value: Any) -> Any:
    """``value`` rearranged so that ``json.dumps`` writes what ``JSON.stringify`` does."""
    if isinstance(value, bool) or value is None or isinstance(value, (str, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return int(value) if value.is_integer() and abs(value) < 1e21 else value
    if isinstance(value, Mapping):
        keys = [str(k) for k in value]
        indices = sorted((i, k) for k in keys if (i := _array_index(k)) is not None)
        ordered = [k for _, k in indices] + [k for k in keys if _array_index(k) is None]
        items = {str(k): v for k, v in value.items()}
        return {k: _js_value(items[k]) for k in ordered}
    if isinstance(value, (list, tuple)):
        return [_js_value(v) for v in value]
    raise TypeError(f"{type(value).__name__} is not JSON data")


def js_stringify(value: Any) -> str | None:
    """Write ``value`` as JavaScript's ``JSON.stringify`` does.

    Compact, key order kept but integer keys first, integral floats without ``.0``, NaN and ±inf
    as ``null``.

    Returns:
        The JSON text, or ``None`` when ``value`` is not JSON data (``JSON.stringify`` throws or
        returns ``undefined``).

    Example:
        >>> js_stringify({"q": "ai", "n": 2.0, "2": True})
        '{"2":true,"q":"ai","n":2}'
    """
    try:
        return json.dumps(_js_value(value), ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return None


# ---- reading trajectories, steps and expectations -----------------------------------------


def walk_steps(steps: Sequence[Any]) -> Iterator[Any]:
    """Every step of a step tree, depth first (iterative: no recursion limit)."""
    stack = list(reversed(steps))
    while stack:
        step = stack.pop()
        yield step
        children = step.get("children") if isinstance(step, Mapping) else None
        if isinstance(children, list):
            stack.extend(reversed(children))


def _check_steps(steps: Any, *, field: str, expected: bool) -> list[Any]:
    if not isinstance(steps, list):
        raise ConfigError(f"{field} must be a list of steps", field=field)
    for step in steps if expected else walk_steps(steps):
        if not isinstance(step, Mapping):
            raise ConfigError(f"{field}: every step must be a mapping, got {step!r}", field=field)
        if not isinstance(step.get("name"), str):
            raise ConfigError(f"{field}: every step needs a string 'name': {step!r}", field=field)
        step_type = step.get("stepType")
        if step_type is not None and not isinstance(step_type, str):
            raise ConfigError(f"{field}: a step's 'stepType' must be a string", field=field)
        children = step.get("children")
        if expected:
            if children is not None:
                read_expectation(children, field=f"{field}[].children", strict=True)
        elif children is not None and not isinstance(children, list):
            raise ConfigError(f"{field}: a step's 'children' must be a list", field=field)
    return steps


def _is_message(value: Mapping[str, Any]) -> bool:
    return "steps" not in value and any(
        key in value for key in ("role", "content", "text", "messages", "inputMessages")
    )


def _wrapped(value: Any) -> Any:
    return value if isinstance(value, Mapping) else {"value": value}


def extract_trajectory(output: Any) -> dict[str, Any]:
    """Build the trajectory of a message output: one ``tool_call`` step per tool call.

    Each merged invocation with a ``toolName`` and a state in ``result`` / ``call`` /
    ``output-error`` gives ``{"stepType": "tool_call", "name", "toolArgs", "toolResult",
    "success"}``: ``toolArgs`` the ``args`` (a non-object wrapped as ``{"value": args}``),
    ``toolResult`` the ``result`` when the state is ``result`` (wrapped the same way), ``success``
    whether the state is ``result`` and ``isError`` is not true. ``rawOutput`` is the output.

    Args:
        output: messages in any shape :func:`scorekit.inputs.messages.messages_of` accepts.

    Raises:
        ConfigError: the output has no accepted shape.
    """
    steps: list[dict[str, Any]] = []
    for message in messages_of(output, field="output"):
        for invocation in message_tool_invocations(message):
            if not isinstance(invocation, Mapping):
                continue
            name = invocation.get("toolName")
            state = invocation.get("state")
            if not name or not isinstance(name, str) or state not in CALLED_STATES:
                continue
            step: dict[str, Any] = {"stepType": "tool_call", "name": name}
            if invocation.get("args") is not None:
                step["toolArgs"] = _wrapped(invocation["args"])
            if state == "result" and "result" in invocation:
                step["toolResult"] = _wrapped(invocation["result"])
            step["success"] = state == "result" and invocation.get("isError") is not True
            steps.append(step)
    return {"steps": steps, "rawOutput": output}


def trajectory_of(output: Any) -> dict[str, Any]:
    """Return a run output as a trajectory: a trajectory as given, or one extracted from messages.

    A mapping that is not a message (no ``role`` / ``content`` / ``text`` / ``messages`` key, or
    a ``steps`` key) is a trajectory and must hold a ``steps`` list whose steps (children
    included) are mappings with a string ``name``.

    Raises:
        ConfigError: a trajectory without a ``steps`` list or with a malformed step, or an output
            of no accepted shape (``field`` ``"output.steps"`` / ``"output"``).
    """
    if isinstance(output, Mapping) and not _is_message(output):
        if not isinstance(output.get("steps"), list):
            raise ConfigError("the output trajectory has no 'steps' list", field="output.steps")
        _check_steps(output["steps"], field="output.steps", expected=False)
        return dict(output)
    return extract_trajectory(output)


def is_number(value: Any) -> bool:
    """Whether ``value`` is a number (an int or a float; ``True`` is not, as in JavaScript)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_value(key: str, value: Any, *, field: str) -> Any:
    name = f"{field}.{key}"
    if key == "steps":
        return _check_steps(value, field=name, expected=True)
    if key == "ordering":
        return check_ordering(value, field=name)
    if key in _FLAGS:
        if not isinstance(value, bool):
            raise ConfigError(f"{name} must be true or false, got {value!r}", field=name)
        return value
    if key in _BUDGETS:
        if not is_number(value) or not math.isfinite(value) or value < 0:
            raise ConfigError(f"{name} must be a finite number >= 0, got {value!r}", field=name)
        return value
    if key == "blacklisted_tools":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{name} must be a list of tool names", field=name)
        return value
    # blacklisted_sequences
    if not isinstance(value, list) or not all(
        isinstance(s, list) and all(isinstance(v, str) for v in s) for s in value
    ):
        raise ConfigError(f"{name} must be a list of lists of tool names", field=name)
    return value


def check_ordering(value: Any, *, field: str) -> Ordering:
    """Return ``value`` when it is ``"strict"``, ``"relaxed"`` or ``"unordered"``.

    Raises:
        ConfigError: any other value (Mastra treats an unknown ordering as ``relaxed``;
            row 61).
    """
    if value not in ORDERINGS:
        raise ConfigError(
            f"{field} must be one of {', '.join(map(repr, ORDERINGS))}, got {value!r}",
            field=field,
        )
    ordering: Ordering = value
    return ordering


def read_expectation(value: Any, *, field: str, strict: bool) -> dict[str, Any]:
    """Read an expectation: its keys snake_cased, its values checked.

    Args:
        value: a mapping with camelCase (Mastra) or snake_case keys; ``None`` gives ``{}``.
        field: where it comes from, for error messages (``"defaults"``,
            ``"expected_trajectory"``).
        strict: refuse unknown keys (a misspelt key would silently change nothing); else keep
            them, snake_cased, unread. A ``Trajectory``'s own ``totalDurationMs`` and
            ``rawOutput`` are accepted and not read. ``None`` values count as absent.

    Returns:
        The expectation with snake_case keys, in the given order.

    Raises:
        ConfigError: not a mapping, a key given in both spellings, a bad value, or (``strict``)
            an unknown key, naming the field.
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"{field} must be a mapping, not {type(value).__name__}", field=field)
    result: dict[str, Any] = {}
    for raw_key, item in value.items():
        if raw_key in _TRAJECTORY_ONLY_KEYS:  # a whole trajectory given as the expectation
            continue
        key = EXPECTATION_KEYS.get(str(raw_key), str(raw_key))
        if key not in _SNAKE_KEYS:
            if strict:
                known = ", ".join(sorted(_SNAKE_KEYS))
                raise ConfigError(
                    f"{field} has an unknown key {raw_key!r}; known keys: {known}",
                    field=f"{field}.{raw_key}",
                )
            result[_snake(key)] = item
            continue
        if key in result:
            raise ConfigError(f"{field} gives {key!r} twice", field=f"{field}.{key}")
        if item is not None:
            result[key] = _check_value(key, item, field=field)
    return result


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")


def expected_steps_of(value: Any, *, field: str) -> list[Any]:
    """Return the expected steps of a factory's ``expected_trajectory`` option.

    A list is a list of expected steps, taken as given; a trajectory ``{"steps": [...]}`` is
    converted as Mastra does: ``durationMs`` and ``metadata`` dropped, non-empty ``children``
    turned into an expectation ``{"steps": [...]}``, recursively; an empty list means "expect no
    steps".

    Raises:
        ConfigError: neither a list of steps nor a trajectory with a ``steps`` list.
    """
    if isinstance(value, list):
        return _check_steps(value, field=field, expected=True)
    if not isinstance(value, Mapping) or not isinstance(value.get("steps"), list):
        raise ConfigError(
            f"{field} must be a list of expected steps or a trajectory with a 'steps' list",
            field=field,
        )
    _check_steps(value["steps"], field=f"{field}.steps", expected=False)

    def convert(step: Mapping[str, Any]) -> dict[str, Any]:
        result = {k: v for k, v in step.items() if k not in ("durationMs", "metadata", "children")}
        children = step.get("children")
        if children:
            result["children"] = {"steps": [convert(child) for child in children]}
        return result

    return [convert(step) for step in value["steps"]]


# ---- step matching and comparison ---------------------------------------------------------


def _fields(expected: Mapping[str, Any]) -> tuple[str, ...]:
    step_type = expected.get("stepType")
    if not step_type:
        return ()
    return tuple(f for f in COMPARABLE_FIELDS.get(step_type, ()) if f in expected)


def expected_step_matches(actual: Mapping[str, Any], expected: Mapping[str, Any]) -> bool:
    """Whether an actual step satisfies an expected one (Mastra ``expectedStepMatches``).

    The names must be equal; when the expected step has a ``stepType``, the actual one must have
    it too, and each comparable field the expected step sets must be set on the actual step with
    the same JSON text (:func:`js_stringify`; key order matters).
    """
    if actual.get("name") != expected.get("name"):
        return False
    step_type = expected.get("stepType")
    if step_type and actual.get("stepType") != step_type:
        return False
    for name in _fields(expected):
        if name not in actual:
            return False
        text = js_stringify(expected[name])
        if text is None or js_stringify(actual[name]) != text:
            return False
    return True


class _StepIndex:
    """The actual steps' positions by name, type and the JSON of the compared fields.

    Each lookup is a dict access, each table is built once (O(m) each, at most one
    per name × type × subset of that type's comparable fields).
    """

    def __init__(self, steps: Sequence[Mapping[str, Any]]) -> None:
        self.steps = steps
        self.by_name: dict[str, list[int]] = {}
        for position, step in enumerate(steps):
            self.by_name.setdefault(step["name"], []).append(position)
        self._tables: dict[tuple[str, str, tuple[str, ...]], dict[tuple[str, ...], list[int]]]
        self._tables = {}

    def key(self, expected: Mapping[str, Any]) -> tuple[Any, ...] | None:
        """A hashable key of the actual steps ``expected`` accepts (``None``: none at all)."""
        name, step_type = expected["name"], expected.get("stepType")
        if not step_type:
            return (name,)
        fields = _fields(expected)
        texts = tuple(js_stringify(expected[f]) for f in fields)
        if any(text is None for text in texts):
            return None
        return (name, step_type, fields, texts)

    def positions(self, key: tuple[Any, ...] | None) -> list[int]:
        """The positions of the actual steps a key accepts, ascending."""
        if key is None:
            return []
        if len(key) == 1:
            return self.by_name.get(key[0], [])
        name, step_type, fields, texts = key
        table = self._tables.get((name, step_type, fields))
        if table is None:
            table = {}
            for position in self.by_name.get(name, []):
                step = self.steps[position]
                if step.get("stepType") != step_type or any(f not in step for f in fields):
                    continue
                found = tuple(js_stringify(step[f]) for f in fields)
                if None not in found:
                    table.setdefault(found, []).append(position)  # type: ignore[arg-type]
            self._tables[(name, step_type, fields)] = table
        return table.get(texts, [])


class Comparison(TypedDict):
    """The result of :func:`compare_trajectories` (Mastra ``TrajectoryComparisonResult``)."""

    score: float
    matched_steps: int
    total_expected_steps: int
    total_actual_steps: int
    missing_steps: list[str]
    extra_steps: list[str]
    out_of_order_steps: list[str]
    repeated_steps: list[str]


def compare_trajectories(
    actual: Sequence[Mapping[str, Any]],
    expected: Sequence[Mapping[str, Any]],
    *,
    ordering: Ordering = "relaxed",
    allow_repeated_steps: bool = True,
) -> Comparison:
    """Compare actual steps with expected ones (Mastra ``compareTrajectories``, spec §3.7).

    * no expected steps: 1 when there are no actual steps either, else 0;
    * ``strict``: position ``i`` matches when the names are equal and the step matches; score
      ``matched / n``, minus ``0.5 × (m − n) / n`` when there are more actual steps;
    * ``relaxed``: each expected step takes the first matching actual step after the last
      match; score ``matched / n``;
    * ``unordered``: each expected step takes the first unused matching actual step;
    * without ``allow_repeated_steps``: minus 0.1 per step name that occurs more than once;
    * clamped to [0, 1], rounded half-up to two decimals (with Mastra's epsilon).

    Args:
        actual: the actual steps (top level).
        expected: the expected steps.
        ordering: see above.
        allow_repeated_steps: see above.
    """
    actual_names = [step["name"] for step in actual]
    expected_names = [step["name"] for step in expected]
    n, m = len(expected), len(actual)
    if n == 0:
        return Comparison(
            score=1.0 if m == 0 else 0.0,
            matched_steps=0,
            total_expected_steps=0,
            total_actual_steps=m,
            missing_steps=[],
            extra_steps=actual_names,
            out_of_order_steps=[],
            repeated_steps=[],
        )
    counts: dict[str, int] = {}
    for name in actual_names:
        counts[name] = counts.get(name, 0) + 1
    repeated = [name for name, count in counts.items() if count > 1]
    expected_set, actual_set = set(expected_names), set(counts)
    matched: set[int] = set()
    out_of_order: list[str] = []
    index = _StepIndex(actual)
    if ordering == "strict":
        for i in range(max(n, m)):
            actual_name = actual_names[i] if i < m else None
            expected_name = expected_names[i] if i < n else None
            if actual_name == expected_name:
                if expected_step_matches(actual[i], expected[i]):
                    matched.add(i)
            elif actual_name is not None and actual_name in expected_set:
                out_of_order.append(actual_name)
    elif ordering == "unordered":
        used: set[int] = set()
        pointers: dict[Any, int] = {}
        for i, step in enumerate(expected):
            key = index.key(step)
            candidates = index.positions(key)
            at = pointers.get(key, 0)
            while at < len(candidates) and candidates[at] in used:
                at += 1
            pointers[key] = at
            if at < len(candidates):
                used.add(candidates[at])
                matched.add(i)
    else:
        last = -1
        for i, step in enumerate(expected):
            candidates = index.positions(index.key(step))
            at = bisect.bisect_right(candidates, last)
            if at < len(candidates):
                last = candidates[at]
                matched.add(i)
            elif step["name"] in actual_set:
                out_of_order.append(step["name"])
    score = len(matched) / n
    if ordering == "strict" and m > n:
        score = max(0.0, score - (m - n) / n * 0.5)
    if not allow_repeated_steps and repeated:
        score = max(0.0, score - len(repeated) * 0.1)
    return Comparison(
        score=round_to_two_decimals(max(0.0, min(1.0, score))),
        matched_steps=len(matched),
        total_expected_steps=n,
        total_actual_steps=m,
        missing_steps=[name for i, name in enumerate(expected_names) if i not in matched],
        extra_steps=[name for name in actual_names if name not in expected_set],
        out_of_order_steps=out_of_order,
        repeated_steps=repeated,
    )
