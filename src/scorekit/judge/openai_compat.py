"""The OpenAI-compatible protocol adapter, through the official ``openai`` async SDK.

It serves every provider row with protocol ``openai`` or ``azure`` (and, below
:mod:`scorekit.judge.local`, the in-process llama.cpp server). It knows only how to send one
chat completion and read the reply; SDK exceptions are translated here, once, into scorekit
errors. Retries, rate limits, timeouts and caching are the layers above; the SDK's own retries
are switched off so that every provider gets the same policy.

Structured output is asked for with the provider's strongest mode (``response_format`` with a
JSON schema, strict when the schema allows it; JSON mode with the schema in the prompt; the
schema in a plain prompt). A server that rejects a ``response_format`` with HTTP 400 is asked
again with the next weaker mode, which is then remembered for that model.

A request with ``top_logprobs`` sends ``logprobs: true, top_logprobs: k`` and reads
``choices[0].logprobs.content`` (token, logprob, bytes, top alternatives) into
``JudgeResponse.logprobs``; a server that sends none leaves it ``None`` (the step asking decides
what that means), one that sends a malformed list fails as a malformed body.

HTTP goes through the SDK's aiohttp transport (``openai[aiohttp]``, which the SDK recommends
for concurrent use): at concurrency 32 it costs about a quarter less CPU per call than the
SDK's default HTTP client, whose connection pool is scanned, with a system call per idle
connection, on every request (benchmarks/bench_judge.py).
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
import ssl
from typing import Any

import aiohttp
import openai

from scorekit.errors import JudgeError, JudgeHTTPError, JudgeOutputError, JudgeTimeoutError
from scorekit.judge.clients import LoopClients
from scorekit.judge.guard import check_request_allowed
from scorekit.judge.model import ChatMessage, JudgeRequest, JudgeResponse, TokenLogprob
from scorekit.judge.providers import ResolvedModel, StructuredMode
from scorekit.judge.structured import is_strict_schema, schema_instruction
from scorekit.judge.translate import BODY_PREVIEW_CHARS, clip, http_error, redact, token_count

__all__ = ["OpenAICompatibleModel", "shared_ssl_context"]

_WEAKER: dict[StructuredMode, StructuredMode] = {
    "json_schema": "json_object",
    "json_object": "prompt",
    "tool": "prompt",
}
_FORMAT_REJECTED = re.compile(r"response_format|json_schema|json_object|structured", re.I)
_SCHEMA_NAME = re.compile(r"[^a-zA-Z0-9_-]")
_HTTP_CLIENT: Any = openai.DefaultAioHttpClient
"""The SDK's HTTP client class for new SDK clients (benchmarks swap in the default one)."""
_SDK_TIMEOUT_MARGIN_S = 5.0
"""The SDK's own timeout sits above scorekit's hard per-attempt timeout, which fires first."""


async def _close_client(client: Any) -> None:
    await client.close()


_CLIENTS: LoopClients[Any] = LoopClients(_close_client)
"""Every OpenAI-compatible SDK client, per event loop and endpoint (scorekit.judge.clients)."""


def _content_text(content: Any) -> str:
    """The text of a reply message's ``content``: a string, or a list of parts (joined)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
        return "".join(texts)
    raise TypeError(f"unexpected content {type(content).__name__}")


_MAX_CAUSES = 8
"""How far a chain of ``__cause__`` is followed: they are short, the bound guards against cycles."""


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc.__cause__``, its cause, and so on, innermost last (at most :data:`_MAX_CAUSES`)."""
    chain: list[BaseException] = []
    cause = exc.__cause__
    while cause is not None and len(chain) < _MAX_CAUSES:
        chain.append(cause)
        cause = cause.__cause__
    return chain


def _failed_to_connect(exc: BaseException) -> bool:
    """Whether an SDK timeout error is really a failed connection (refused, reset, closed).

    The SDK's aiohttp transport reports every aiohttp connection error as a connect timeout,
    a refused connection and a server that hung up included; only a chain of causes with a
    ``TimeoutError`` (or, before Python 3.11, ``asyncio.TimeoutError``) in it is a real
    timeout. A chain that reaches the bound is not trusted to be a failed connection.
    """
    causes = _causes(exc)
    return 0 < len(causes) < _MAX_CAUSES and not any(
        isinstance(cause, (TimeoutError, asyncio.TimeoutError))  # distinct before 3.11
        for cause in causes
    )


def _root_cause(exc: BaseException) -> BaseException:
    """The innermost ``__cause__`` (what the transport saw: refused, reset, DNS failure)."""
    causes = _causes(exc)
    return causes[-1] if causes else exc


@functools.lru_cache(maxsize=1)
def shared_ssl_context() -> ssl.SSLContext:
    """The TLS context every SDK client shares, made once per process.

    The HTTP client's default builds a context (and loads the CA bundle) per client: ~20 ms
    and most of a megabyte, paid again by each event loop the sync bridge runs a call on.
    One context serves any number of connections, threads and loops. It is the HTTP client's
    own default context (system or ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` CAs, as it reads them).
    """
    import httpx2  # the openai SDK's HTTP client, imported with it

    return httpx2.create_ssl_context()


def _token(entry: Any, *, top: bool) -> TokenLogprob:
    """One entry of ``choices[0].logprobs.content`` (or of its ``top_logprobs``).

    Raises:
        TypeError, KeyError, ValueError: the entry is not ``{token, logprob[, bytes,
            top_logprobs]}``.
    """
    token = entry["token"]
    logprob = float(entry["logprob"])
    if not isinstance(token, str) or logprob != logprob or logprob > 0:  # NaN or positive
        raise ValueError(f"not a token with a log-probability: {entry!r}")
    raw = entry.get("bytes")
    alternatives = (
        tuple(_token(alt, top=False) for alt in entry.get("top_logprobs") or ()) if top else ()
    )
    return TokenLogprob(
        token,
        max(logprob, -1e30),  # -inf (llama.cpp for impossible tokens) as a finite number
        bytes(raw) if isinstance(raw, list) else None,
        alternatives,
    )


def _logprobs(choice: Any) -> tuple[TokenLogprob, ...] | None:
    """The generated tokens' log-probabilities of a choice, or ``None`` when it has none.

    Raises:
        TypeError, KeyError, ValueError: ``logprobs.content`` is there but malformed.
    """
    logprobs = choice.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if content is None:
        return None
    return tuple(_token(entry, top=True) for entry in content)


def _message(message: ChatMessage) -> dict[str, str]:
    return {"role": message.role, "content": message.content}


class OpenAICompatibleModel:
    """A :class:`~scorekit.judge.model.JudgeModel` for an OpenAI-compatible endpoint.

    Args:
        resolved: the resolved provider row, model, base URL and key.
        timeout: the SDK's request timeout in seconds (scorekit's own hard timeout is enforced
            above this layer).

    SDK clients are kept per event loop (a client's connections belong to the loop that opened
    them, and the sync bridge runs calls on other loops) and endpoint, shared by the judges of
    that endpoint, and closed when their loop shuts down (:mod:`scorekit.judge.clients`).
    """

    def __init__(self, resolved: ResolvedModel, *, timeout: float) -> None:
        self._resolved = resolved
        self._timeout = timeout
        self._mode: StructuredMode = resolved.provider.mode
        # what makes two SDK clients differ, but the base URL (the local judge learns it late)
        self._client_key = (
            resolved.provider.protocol,
            resolved.key_digest,
            resolved.model if resolved.provider.protocol == "azure" else None,
            resolved.api_version,
            timeout,
        )
        self._options: Any = {
            "headers": {},
            "params": {},
            "max_retries": 0,
            "timeout": timeout + _SDK_TIMEOUT_MARGIN_S,
        }

    @property
    def model_id(self) -> str:
        """``"provider/model"``."""
        return self._resolved.model_id

    @property
    def identity(self) -> dict[str, Any]:
        """What identifies the model for cache keys and the shared limiter (no API key)."""
        return self._resolved.identity

    @property
    def mode(self) -> StructuredMode:
        """The structured-output mode currently used."""
        return self._mode

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model_id={self.model_id!r})"

    async def _base_url(self) -> str:
        """The endpoint to call; the local judge starts its server here."""
        assert self._resolved.base_url is not None  # the resolver guarantees it
        return self._resolved.base_url

    @property
    def clients(self) -> LoopClients[Any]:
        """The SDK clients, per event loop and endpoint (shared by all OpenAI-compatible judges)."""
        return _CLIENTS

    def _new_client(self, base_url: str) -> Any:
        resolved = self._resolved
        timeout = self._timeout + _SDK_TIMEOUT_MARGIN_S
        common: dict[str, Any] = {
            "max_retries": 0,
            "timeout": timeout,
            # the SDK's default wrapper closes itself on garbage collection by scheduling a
            # task on whatever loop is running then: a loop other than its own once the sync
            # bridge's worker loop has ended ("Event loop is closed" noise). The plain client
            # does not.
            "http_client": _HTTP_CLIENT(timeout=timeout, verify=shared_ssl_context()),
        }
        if resolved.provider.protocol == "azure":
            return openai.AsyncAzureOpenAI(
                azure_endpoint=base_url,
                azure_deployment=resolved.model,
                api_version=resolved.api_version,
                api_key=resolved.api_key,
                **common,
            )
        return openai.AsyncOpenAI(
            base_url=base_url,
            # keyless local servers still need a non-empty key for the SDK
            api_key=resolved.api_key or "not-needed",
            **common,
        )

    def _params(self, request: JudgeRequest, mode: StructuredMode) -> dict[str, Any]:
        provider = self._resolved.provider
        messages = [_message(m) for m in request.messages]
        params: dict[str, Any] = {
            "model": self._resolved.model,
            "messages": messages,
            "temperature": request.temperature,
        }
        if request.max_tokens is not None:
            params[provider.max_tokens_param] = request.max_tokens
        if request.seed is not None and provider.accepts_seed:
            params["seed"] = request.seed
        if request.top_logprobs is not None:
            params["logprobs"] = True
            params["top_logprobs"] = request.top_logprobs
        schema = request.output_schema
        if schema is None:
            return params
        if mode == "json_schema":
            params["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": _SCHEMA_NAME.sub("_", request.schema_name)[:64] or "output",
                    "schema": schema,
                    "strict": is_strict_schema(schema),
                },
            }
            return params
        if mode == "json_object":
            params["response_format"] = {"type": "json_object"}
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        messages[last_user] = {
            "role": "user",
            "content": f"{messages[last_user]['content']}\n\n{schema_instruction(schema)}",
        }
        return params

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Send one chat completion and return the raw reply.

        Raises:
            JudgeHTTPError: an HTTP error status (``status_code``, ``retry_after``), or a
                connection failure (``status_code == 0``).
            JudgeTimeoutError: the SDK's own timeout fired.
            JudgeContextWindowError: the provider refused the prompt as too long.
            JudgeUnavailableError: remote calls are forbidden (test suites).
            JudgeOutputError: a success status whose body is not a chat completion
                (malformed JSON, an HTML page, no ``choices``); ``raw_output`` holds the
                body's first 2,000 characters, scrubbed of the API key.
            JudgeError: any other SDK failure.
        """
        base_url = await self._base_url()
        check_request_allowed(base_url, self.model_id)
        client = await _CLIENTS.get(
            (base_url, *self._client_key), lambda: self._new_client(base_url)
        )
        mode = self._mode
        while True:
            try:
                # client.post: the SDK's own request path (auth, Azure deployment URLs, error
                # types) without its recursive TypedDict transform of the body, which costs
                # ~1.5 ms per call for a nested JSON schema; the body is plain JSON already.
                # cast_to=str: the body's text, decoded here, so a malformed body is kept.
                # options: the client's own settings, given so that the SDK does not copy its
                # defaults for them on every call.
                body = await client.post(
                    "/chat/completions",
                    body=self._params(request, mode),
                    cast_to=str,
                    options=self._options,
                )
            except openai.BadRequestError as exc:
                weaker = _WEAKER.get(mode)
                if (
                    request.output_schema is not None
                    and weaker is not None
                    and _FORMAT_REJECTED.search(str(exc.message))
                ):
                    mode = self._mode = weaker
                    continue
                raise self._translate(exc) from None
            except openai.OpenAIError as exc:
                raise self._translate(exc) from None
            except aiohttp.ClientError as exc:
                # a response aiohttp could not parse (a bad status line, oversized or
                # duplicated headers): the SDK's transport passes these through unwrapped
                raise JudgeHTTPError(
                    f"{self.model_id}: the server's HTTP response could not be read "
                    f"({self._cause_text(exc)})",
                    status_code=0,
                ) from None
            return self._response(str(body), request)

    def _response(self, body: str, request: JudgeRequest) -> JudgeResponse:
        try:
            completion = json.loads(body)
        except ValueError as exc:
            raise self._malformed(body, f"not JSON: {exc}", request) from None
        try:
            choice = completion["choices"][0]
            message = choice["message"]
            text = _content_text(message.get("content"))
            finish_reason = choice.get("finish_reason")
        except (TypeError, KeyError, IndexError, AttributeError):
            raise self._malformed(body, "no choices[0].message", request) from None
        logprobs = None
        if request.top_logprobs is not None:
            try:
                logprobs = _logprobs(choice)
            except (TypeError, KeyError, ValueError, AttributeError):
                raise self._malformed(body, "malformed choices[0].logprobs", request) from None
        usage = completion.get("usage")
        if not isinstance(usage, dict):
            usage = {}
        return JudgeResponse(
            text=text,
            finish_reason=finish_reason if isinstance(finish_reason, str) else None,
            input_tokens=token_count(usage.get("prompt_tokens")),
            output_tokens=token_count(usage.get("completion_tokens")),
            model_id=self.model_id,
            logprobs=logprobs,
        )

    def _malformed(self, body: str, why: str, request: JudgeRequest) -> JudgeOutputError:
        raw = clip(redact(body, self._resolved.api_key), BODY_PREVIEW_CHARS)
        return JudgeOutputError(
            f"{self.model_id}: the server sent a malformed response body ({why[:200]}): "
            f"{raw[:300]!r}",
            raw_output=raw,
            schema_name=request.schema_name,
        )

    def _cause_text(self, exc: BaseException) -> str:
        """``Type: message`` on one line, scrubbed of the API key, at most 300 characters."""
        # aiohttp's parse errors print as "400, message=..., url=...": the 400 is not an HTTP
        # status the server sent, so only the message is kept
        message = getattr(exc, "message", None)
        detail = message if isinstance(message, str) and message else str(exc)
        text = " ".join(f"{type(exc).__name__}: {detail}".split())
        return redact(text, self._resolved.api_key)[:300]

    def _translate(self, exc: openai.OpenAIError) -> JudgeError:
        key = self._resolved.api_key
        name = type(exc).__name__
        if isinstance(exc, openai.APITimeoutError) and not _failed_to_connect(exc):
            return JudgeTimeoutError(f"{self.model_id}: the request timed out ({name})")
        if isinstance(exc, openai.APIConnectionError):
            root = _root_cause(exc)
            if isinstance(root, ssl.SSLCertVerificationError):  # retrying cannot help
                return JudgeError(
                    f"{self.model_id}: the server's TLS certificate was not accepted "
                    f"({self._cause_text(root)}); for a private CA set SSL_CERT_FILE"
                )
            return JudgeHTTPError(
                f"{self.model_id}: could not connect, or the connection was lost "
                f"({self._cause_text(root)})",
                status_code=0,
            )
        if isinstance(exc, openai.APIStatusError):
            return http_error(
                model_id=self.model_id,
                status_code=exc.status_code,
                message=str(exc.message),
                body=exc.body,
                headers=exc.response.headers,
                secret=key,
            )
        return JudgeError(f"{self.model_id}: {name}: {redact(str(exc), key)[:500]}")
