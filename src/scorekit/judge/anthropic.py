"""The Anthropic protocol adapter, through the official ``anthropic`` async SDK.

Optional extra: ``pip install "scorekit[anthropic]"``; the SDK is imported when the first
``anthropic/...`` judge is built, never at scorekit's import. Structured output is a forced
tool call whose input schema is the output schema (the tool's input is the answer); a schema
whose root is not an object is put in the prompt instead. SDK exceptions are translated here,
once, like the OpenAI-compatible adapter does.

Sampling parameters (``temperature``, ``seed``) are not sent: the Messages API of the SDK
version pinned here no longer takes them. The Messages API returns no token log-probabilities:
a request asking for them (``top_logprobs``, a scorer's ``scoring="expected"``) fails at once,
before anything is sent, with :class:`~scorekit.errors.JudgeUnavailableError`.
"""

from __future__ import annotations

import json
from typing import Any

from scorekit.errors import JudgeError, JudgeHTTPError, JudgeTimeoutError, JudgeUnavailableError
from scorekit.judge.clients import LoopClients
from scorekit.judge.guard import check_request_allowed
from scorekit.judge.model import JudgeRequest, JudgeResponse
from scorekit.judge.providers import ResolvedModel
from scorekit.judge.structured import schema_instruction
from scorekit.judge.translate import http_error, redact, token_count

__all__ = ["DEFAULT_MAX_TOKENS", "AnthropicModel"]

DEFAULT_MAX_TOKENS = 4096
"""Anthropic requires a reply budget; used when the judge sets none."""
_TOOL_NAME = "give_answer"
_FINISH = {"max_tokens": "length", "end_turn": "stop", "tool_use": "stop", "stop_sequence": "stop"}


async def _close_client(client: Any) -> None:
    await client.close()


_CLIENTS: LoopClients[Any] = LoopClients(_close_client)
"""Every Anthropic SDK client, per event loop and endpoint (scorekit.judge.clients)."""


def _sdk() -> Any:
    try:
        import anthropic
    except ImportError:
        raise JudgeUnavailableError(
            'anthropic judges need the Anthropic SDK: pip install "scorekit[anthropic]"'
        ) from None
    return anthropic


class AnthropicModel:
    """A :class:`~scorekit.judge.model.JudgeModel` for Anthropic's Messages API.

    Args:
        resolved: the resolved provider row, model, base URL and key.
        timeout: the SDK's request timeout in seconds.
    """

    def __init__(self, resolved: ResolvedModel, *, timeout: float) -> None:
        self._sdk = _sdk()
        self._resolved = resolved
        self._timeout = timeout
        # one client per event loop and endpoint, shared by the judges of that endpoint and
        # closed at the loop's shutdown (scorekit.judge.clients)
        self._client_key = ("anthropic", resolved.base_url, resolved.key_digest, timeout)

    @property
    def model_id(self) -> str:
        """``"anthropic/model"``."""
        return self._resolved.model_id

    @property
    def identity(self) -> dict[str, Any]:
        """What identifies the model for cache keys and the shared limiter (no API key)."""
        return self._resolved.identity

    def __repr__(self) -> str:
        return f"AnthropicModel(model_id={self.model_id!r})"

    @property
    def clients(self) -> LoopClients[Any]:
        """The SDK clients, per event loop and endpoint (shared by all Anthropic judges)."""
        return _CLIENTS

    def _new_client(self) -> Any:
        return self._sdk.AsyncAnthropic(
            api_key=self._resolved.api_key,
            base_url=self._resolved.base_url,
            max_retries=0,
            timeout=self._timeout + 5,
            http_client=self._sdk.DefaultAsyncHttpxClient(timeout=self._timeout + 5),
        )

    def _params(self, request: JudgeRequest) -> dict[str, Any]:
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        messages = [
            {"role": m.role, "content": m.content} for m in request.messages if m.role != "system"
        ]
        params: dict[str, Any] = {
            "model": self._resolved.model,
            "max_tokens": request.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": messages,
        }
        if system:
            params["system"] = system
        schema = request.output_schema
        if schema is not None and schema.get("type") == "object":
            params["tools"] = [
                {
                    "name": _TOOL_NAME,
                    "description": f"Give the answer as {request.schema_name}.",
                    "input_schema": schema,
                }
            ]
            params["tool_choice"] = {"type": "tool", "name": _TOOL_NAME}
        elif schema is not None:
            last = messages[-1]
            messages[-1] = {
                "role": last["role"],
                "content": f"{last['content']}\n\n{schema_instruction(schema)}",
            }
        return params

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Send one message request and return the raw reply (a tool input as JSON text).

        Raises:
            JudgeHTTPError: an HTTP error status, or a connection failure (``status_code == 0``).
            JudgeTimeoutError: the SDK's own timeout fired.
            JudgeContextWindowError: the prompt is too long for the model.
            JudgeUnavailableError: the request asks for token log-probabilities, which the
                Messages API does not return (nothing is sent).
            JudgeError: any other SDK failure.
        """
        if request.top_logprobs is not None:
            raise JudgeUnavailableError(
                f"{self.model_id}: Anthropic's Messages API returns no token log-probabilities, "
                "which scoring='expected' needs; use scoring='label', or a judge whose API "
                "returns them (OpenAI, vLLM, llama.cpp: local/...)"
            )
        base_url = self._resolved.base_url or ""
        check_request_allowed(base_url, self.model_id)
        sdk = self._sdk
        try:
            client = await _CLIENTS.get(self._client_key, self._new_client)
            message = await client.messages.create(**self._params(request))
        except sdk.APITimeoutError:
            raise JudgeTimeoutError(f"{self.model_id}: the request timed out") from None
        except sdk.APIConnectionError as exc:
            cause = redact(str(exc.__cause__ or exc), self._resolved.api_key)[:300]
            raise JudgeHTTPError(
                f"{self.model_id}: could not connect ({cause})", status_code=0
            ) from None
        except sdk.APIStatusError as exc:
            raise http_error(
                model_id=self.model_id,
                status_code=exc.status_code,
                message=str(exc.message),
                body=exc.body,
                headers=exc.response.headers,
                secret=self._resolved.api_key,
            ) from None
        except sdk.AnthropicError as exc:
            detail = redact(str(exc), self._resolved.api_key)[:500]
            raise JudgeError(f"{self.model_id}: {type(exc).__name__}: {detail}") from None
        texts: list[str] = []
        for block in message.content:
            if getattr(block, "type", None) == "tool_use":
                texts = [json.dumps(block.input, ensure_ascii=False)]
                break
            if getattr(block, "type", None) == "text":
                texts.append(block.text)
        usage = message.usage
        return JudgeResponse(
            text="".join(texts),
            finish_reason=_FINISH.get(str(message.stop_reason), message.stop_reason),
            input_tokens=token_count(getattr(usage, "input_tokens", 0)),
            output_tokens=token_count(getattr(usage, "output_tokens", 0)),
            model_id=self.model_id,
        )
