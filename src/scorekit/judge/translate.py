"""Turning a provider's HTTP failure into a scorekit error, once, for every adapter.

Adapters catch their SDK's exceptions and call :func:`http_error` with the status, headers,
body and message; the result is a :class:`~scorekit.errors.JudgeHTTPError` (with
``retry_after`` read from ``Retry-After``) or, for a context-length refusal, a
:class:`~scorekit.errors.JudgeContextWindowError` with the prompt's token count and the window
where the provider told them. Every text is scrubbed of the API key first.
"""

from __future__ import annotations

import email.utils
import math
import re
import time
from collections.abc import Mapping
from typing import Any

from scorekit.errors import JudgeContextWindowError, JudgeHTTPError

__all__ = [
    "BODY_PREVIEW_CHARS",
    "MAX_REPORTED_TOKENS",
    "clip",
    "context_window_error",
    "http_error",
    "redact",
    "retry_after_seconds",
    "token_count",
]

_MESSAGE_PREVIEW = 500
"""Characters of a provider's error message kept in ours."""
BODY_PREVIEW_CHARS = 2000
"""Characters of a response body kept in an error when the body is not what was expected (an
HTML error page, malformed JSON): enough to recognise a proxy's page, bounded for logs."""
MAX_REPORTED_TOKENS = 10_000_000
"""The largest token count believed from a provider's ``usage`` (no model has a window near
it); larger values are clamped to it, so one bad field cannot swamp a run's totals."""

_CONTEXT_HINT = re.compile(
    r"context[ _-]?(length|window|size)|maximum context|prompt is too long|too many tokens"
    r"|exceeds? the (available )?context",
    re.IGNORECASE,
)
_CONTEXT_CODES = frozenset(
    {"context_length_exceeded", "exceed_context_size_error", "string_above_max_length"}
)
# "(9019 tokens) exceeds the available context size (8192 tokens)" (llama.cpp),
# "maximum context length is 8192 tokens. However, you requested 9000 tokens" (OpenAI, vLLM),
# "prompt is too long: 210000 tokens > 200000 maximum" (Anthropic)
_WINDOW_PATTERNS = (
    re.compile(r"maximum context length is (\d+)", re.IGNORECASE),
    re.compile(r"context size \((\d+) tokens\)", re.IGNORECASE),
    re.compile(r"> (\d+) maximum", re.IGNORECASE),
    re.compile(r"context (?:window|length) of (\d+)", re.IGNORECASE),
)
_PROMPT_PATTERNS = (
    re.compile(r"request \((\d+) tokens\)", re.IGNORECASE),
    re.compile(r"(?:resulted in|requested|contains?|have) (\d+) tokens", re.IGNORECASE),
    re.compile(r"too long: (\d+) tokens", re.IGNORECASE),
)


def redact(text: str, secret: str | None) -> str:
    """Return ``text`` with every occurrence of ``secret`` replaced by ``***``.

    Keys of any length are scrubbed (a short one may mangle other text; leaking it is worse).
    """
    if secret and secret.strip():
        return text.replace(secret, "***")
    return text


def clip(text: str, limit: int) -> str:
    """Return the first ``limit`` characters of ``text``, with a marker when it was longer."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…[{len(text) - limit} more characters]"


def token_count(value: Any) -> int:
    """Read one token count from a provider's ``usage`` object, defensively.

    A count is a provider's claim, not worth failing a call over: a non-negative integer (or
    an integral float, or a string of digits) is taken, clamped to
    :data:`MAX_REPORTED_TOKENS`; anything else (text, negative or fractional numbers, NaN,
    infinity, booleans, ``None``) counts 0.
    """
    if isinstance(value, bool):
        return 0
    if isinstance(value, str):
        value = value.strip()
        if not value.isdigit() or not value.isascii():
            return 0
        value = int(value)
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            return 0
        value = int(value)
    if not isinstance(value, int) or value < 0:
        return 0
    return min(value, MAX_REPORTED_TOKENS)


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Read the server's requested wait from ``retry-after-ms`` or ``Retry-After``.

    ``Retry-After`` may be seconds or an HTTP date.

    Returns:
        The wait in seconds (``>= 0``), or ``None`` when no usable header is present.
    """
    if not headers:
        return None
    lowered = {str(k).lower(): str(v) for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            value = float(millis) / 1000
            if math.isfinite(value):
                return max(0.0, value)
        except ValueError:
            pass
    header = lowered.get("retry-after")
    if header is None:
        return None
    try:
        value = float(header)
        return max(0.0, value) if math.isfinite(value) else None
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_fields(body: Any) -> dict[str, Any]:
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping):
            return dict(inner)
    return {}


def _first_int(patterns: tuple[re.Pattern[str], ...], text: str) -> int | None:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            return int(match.group(1))
    return None


def context_window_error(
    *,
    model_id: str,
    prompt_tokens: int | None,
    context_window: int | None,
    detail: str = "",
    reply_tokens: int | None = None,
    cut_off: bool = False,
    hint: str = "",
) -> JudgeContextWindowError:
    """Build the error for a prompt that does not fit the window, with the sizes known.

    Args:
        model_id: ``"provider/model"``.
        prompt_tokens: the prompt's size in tokens, if known.
        context_window: the window in tokens, if known.
        detail: the provider's own message, quoted at the end.
        reply_tokens: the room the prompt leaves for the reply, when that is the problem
            (the prompt fits, the reply does not).
        cut_off: the reply was cut off where the window ends (``reply_tokens`` is the room).
        hint: a more specific remedy, appended.
    """
    size = f"the prompt ({prompt_tokens} tokens)" if prompt_tokens is not None else "the prompt"
    window = f" ({context_window} tokens)" if context_window is not None else ""
    if reply_tokens is not None and cut_off:
        message = (
            f"the reply was cut off at {reply_tokens} tokens, where the context "
            f"window{window} of {model_id} ends: {size} leaves no more room for it"
        )
    elif reply_tokens is not None:
        message = (
            f"{size} leaves {reply_tokens} tokens of the context window{window} of {model_id} "
            "for the reply, too few to answer; nothing was generated"
        )
    else:
        message = f"{size} does not fit the context window{window} of {model_id}"
    message += (
        "; the prompt is not truncated. Shorten the input or context, or use a model with a "
        "larger window"
    )
    if hint:
        message += f" ({hint})"
    if detail:
        message += f" (provider said: {detail})"
    return JudgeContextWindowError(
        message, prompt_tokens=prompt_tokens, context_window=context_window
    )


def http_error(
    *,
    model_id: str,
    status_code: int,
    message: str,
    body: Any = None,
    headers: Mapping[str, str] | None = None,
    secret: str | None = None,
) -> JudgeHTTPError | JudgeContextWindowError:
    """Translate a provider's HTTP error response.

    Args:
        model_id: ``"provider/model"``, for the message.
        status_code: the HTTP status.
        message: the SDK's error message.
        body: the decoded error body, if any.
        headers: the response headers, if any.
        secret: the API key to scrub from every text.

    Returns:
        A ``JudgeContextWindowError`` for a context-length refusal, else a ``JudgeHTTPError``.
    """
    text = redact(message, secret)[:_MESSAGE_PREVIEW]
    fields = _error_fields(body)
    if not fields.get("message") and body:
        # no error message the SDK could read (an HTML page, a bare string, odd JSON): the
        # body itself says what went wrong
        raw = body if isinstance(body, str) else repr(body)
        text += f"; body: {clip(redact(raw, secret), BODY_PREVIEW_CHARS)}"
    code = str(fields.get("code") or "")
    kind = str(fields.get("type") or "")
    if status_code in (400, 413, 422) and (
        code in _CONTEXT_CODES or kind in _CONTEXT_CODES or _CONTEXT_HINT.search(text)
    ):
        prompt_tokens = fields.get("n_prompt_tokens")
        window = fields.get("n_ctx")
        return context_window_error(
            model_id=model_id,
            prompt_tokens=prompt_tokens
            if isinstance(prompt_tokens, int)
            else _first_int(_PROMPT_PATTERNS, text),
            context_window=window
            if isinstance(window, int)
            else _first_int(_WINDOW_PATTERNS, text),
            detail=text,
        )
    return JudgeHTTPError(
        f"{model_id} answered HTTP {status_code}: {text}",
        status_code=status_code,
        retry_after=retry_after_seconds(headers),
    )
