"""What a live call carries besides its input and output: its request context and its span.

* The *request context* of a call (Mastra's ``requestContext``: the user, the tenant, the
  feature flag of this request) is set by the application around the call with
  :func:`request_context` (a context manager; FastAPI middleware, a thread, an asyncio task
  each see their own), or passed to the wrapped function as its ``request_context`` keyword.
* Its *snapshot*, stored with the results and read by scorers and filters, keeps it JSON-safe
  as Mastra's ``snapshotRequestContextForScore`` does: string, number and boolean values only
  (non-finite numbers and ``None`` left out), nested mappings flattened into dotted keys
  (``user.plan``), at most 8 levels deep, a mapping met twice (a cycle) read once, lists and
  other objects left out, and Mastra's bearer-token key ``mastra__authToken`` never kept. One
  rule of ours on top (divergences): every key that looks like a secret is left out too
  (:func:`looks_secret`), with what is under it.
* The *span* of a call: when ``opentelemetry-api`` is installed and a span is current, its
  trace id (32 hex digits) and span id (16 hex digits). Without the package there is none; it
  is imported once, on first use.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = [
    "MASTRA_AUTH_TOKEN_KEY",
    "SpanIds",
    "current_request_context",
    "current_span_ids",
    "looks_secret",
    "request_context",
    "snapshot_request_context",
]

MASTRA_AUTH_TOKEN_KEY = "mastra__authToken"
"""The request-context key of Mastra's bearer token, never kept in a snapshot."""

MAX_DEPTH = 8
"""Nesting levels below the top that a snapshot flattens (Mastra's ``MAX_DEPTH``)."""

_SECRET_WORDS = re.compile(
    r"password|passwd|passphrase|secret|apikey|accesskey|privatekey|authorization|"
    r"credential|cookie|bearer|session|signature|token"
)
_NOT_SECRET = re.compile(r"tokens$|tokencount$")  # max_tokens, prompt_token_count: counts

_current: contextvars.ContextVar[Mapping[str, Any] | None] = contextvars.ContextVar(
    "scorekit_request_context", default=None
)

SpanIds = tuple[str, str]
"""A span's (trace id, span id) as lowercase hex: 32 and 16 digits."""


def looks_secret(key: str) -> bool:
    """Whether a request-context key looks like it holds a secret (then it is not stored).

    The key is lowercased and stripped of everything but letters and digits, then matched
    against: password, passwd, passphrase, secret, apikey, accesskey, privatekey,
    authorization, credential, cookie, bearer, session, signature, token (but not counts
    ending in ``tokens`` / ``tokencount``), or is exactly ``auth``.

    Example:
        >>> looks_secret("OPENAI_API_KEY"), looks_secret("max_tokens"), looks_secret("user")
        (True, False, False)
    """
    if key == MASTRA_AUTH_TOKEN_KEY:
        return True
    plain = re.sub(r"[^a-z0-9]", "", key.lower())
    if plain == "auth":
        return True
    return bool(_SECRET_WORDS.search(plain)) and not _NOT_SECRET.search(plain)


def _is_primitive(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, (str, int, bool))


def snapshot_request_context(value: Any) -> dict[str, str | int | float | bool]:
    """The JSON-safe snapshot of a request context (the rule is in the module docstring).

    Args:
        value: a mapping (anything else gives ``{}``).

    Returns:
        Flat dotted key → string, number or boolean.

    Example:
        >>> snapshot_request_context({"user": {"id": "u1", "tags": ["a"]}, "api_key": "sk-1",
        ...                           "n": 2})
        {'user.id': 'u1', 'n': 2}
    """
    found: dict[str, str | int | float | bool] = {}
    seen: set[int] = set()

    def flatten(mapping: Mapping[Any, Any], prefix: str, depth: int) -> None:
        if depth > MAX_DEPTH or id(mapping) in seen:
            return
        seen.add(id(mapping))
        for raw_key, item in mapping.items():
            key = str(raw_key)
            if looks_secret(key):
                continue
            flat = f"{prefix}.{key}" if prefix else key
            if flat == MASTRA_AUTH_TOKEN_KEY:
                continue
            if _is_primitive(item):
                found[flat] = item
            elif isinstance(item, Mapping):
                flatten(item, flat, depth + 1)

    if isinstance(value, Mapping):
        flatten(value, "", 0)
    return found


@contextlib.contextmanager
def request_context(value: Mapping[str, Any]) -> Iterator[None]:
    """Set the request context of the live calls made inside the block.

    Context variables carry it: each thread and each asyncio task sees the value set in it
    (or in the code that started it), so concurrent requests never mix.

    Args:
        value: the request's context (user, tenant, flags...): a mapping.

    Raises:
        TypeError: ``value`` is not a mapping.

    Example::

        @app.middleware("http")
        async def scoring_context(request, call_next):
            with request_context({"tenant": request.headers.get("x-tenant", "")}):
                return await call_next(request)
    """
    if not isinstance(value, Mapping):
        raise TypeError(f"a request context is a mapping, not {type(value).__name__}")
    token = _current.set(value)
    try:
        yield
    finally:
        _current.reset(token)


def current_request_context() -> Mapping[str, Any] | None:
    """The request context set by the innermost :func:`request_context` block, or ``None``."""
    return _current.get()


_otel: Any = None  # the opentelemetry.trace module once imported; False when not installed


def current_span_ids() -> tuple[SpanIds | None, bool]:
    """The current OpenTelemetry span's ids, and whether its trace is sampled.

    Returns:
        ``((trace id, span id), sampled)`` when a valid span is current; ``(None, True)`` when
        none is, or ``opentelemetry-api`` is not installed.
    """
    global _otel
    if _otel is None:
        try:
            from opentelemetry import trace
        except ImportError:
            _otel = False
        else:
            _otel = trace
    if _otel is False:
        return None, True
    context = _otel.get_current_span().get_span_context()
    if not context.is_valid:
        return None, True
    return (f"{context.trace_id:032x}", f"{context.span_id:016x}"), bool(
        context.trace_flags.sampled
    )
