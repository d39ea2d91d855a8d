"""A scripted OpenAI-compatible (and Anthropic Messages) HTTP server for tests and benchmarks.

A real HTTP/1.1 server (stdlib ``ThreadingHTTPServer``) on 127.0.0.1 and a free port, run in a
daemon thread. Tests queue :class:`Reply` objects; each POST to ``/v1/chat/completions`` (or
``/v1/messages``) takes the next one, or the default reply when the queue is empty. Faults are
replies too: an HTTP error status with headers, a raw (malformed) body, a delay, or a
response that never comes (``hang=True``: the connection stays silent until the server
stops or ``hang_s`` passes, then closes). A reply may carry token log-probabilities
(``logprobs=``, built by :func:`token_logprobs`), sent as the choice's ``logprobs``.

Every request is recorded (path, headers, decoded JSON body) in ``server.requests``, and the
largest number of requests handled at once in ``server.max_in_flight``. ``server.handling_s``
sums the server's own time per request (from its headers being parsed to its reply written,
scripted delays excluded), so benchmarks can subtract what the server costs.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["RecordedRequest", "Reply", "ScriptedServer", "reply_payload", "token_logprobs"]


@dataclass
class Reply:
    """One scripted answer."""

    content: str = '{"label": "high"}'
    status: int = 200
    finish_reason: str = "stop"
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None  # overrides the whole body: bytes/str sent as is, else JSON-encoded
    content_type: str = "application/json"
    usage: Any = None  # overrides the whole "usage" object of a chat completion
    message: Any = None  # overrides the whole "message" object of a chat completion
    logprobs: Any = None  # the choice's "logprobs" object ({"content": [...]}), when set
    delay: float = 0.0
    hang: bool = False
    hang_s: float = 30.0
    prompt_tokens: int = 11
    completion_tokens: int = 7


def _token(text: str, logprob: float, top: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"token": text, "logprob": logprob, "bytes": list(text.encode())}
    if top is not None:
        entry["top_logprobs"] = top
    return entry


def token_logprobs(
    content: str, field: str, alternatives: list[dict[str, float]], *, chunk: int = 3
) -> dict[str, Any]:
    """A chat completion's ``logprobs`` object for ``content``, as an OpenAI server sends it.

    The content is cut into tokens of ``chunk`` characters (log-probability 0, alone in their
    top list), except each string value of a ``field`` key, which is one token whose top list
    is the next mapping of ``alternatives`` (token text -> log-probability) and whose own
    log-probability is its entry there.
    """
    tokens: list[dict[str, Any]] = []

    def plain(text: str) -> None:
        for at in range(0, len(text), chunk):
            piece = text[at : at + chunk]
            tokens.append(_token(piece, 0.0, [_token(piece, 0.0)]))

    cursor = 0
    found = iter(alternatives)
    for match in re.finditer(rf'"{field}":\s*"([^"]*)', content):
        plain(content[cursor : match.start(1)])
        label, top = match.group(1), next(found)
        tokens.append(_token(label, top[label], [_token(text, lp) for text, lp in top.items()]))
        cursor = match.end(1)
    plain(content[cursor:])
    return {"content": tokens}


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: Any


def _chat_completion(reply: Reply, model: str) -> dict[str, Any]:
    message = reply.message
    if message is None:
        message = {"role": "assistant", "content": reply.content}
    usage = reply.usage
    if usage is None:
        usage = {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        }
    choice: dict[str, Any] = {
        "index": 0,
        "message": message,
        "finish_reason": reply.finish_reason,
    }
    if reply.logprobs is not None:
        choice["logprobs"] = reply.logprobs
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [choice],
        "usage": usage,
    }


def _anthropic_message(reply: Reply, request: Any) -> dict[str, Any]:
    if request.get("tools"):
        block: dict[str, Any] = {
            "type": "tool_use",
            "id": "toolu_scripted",
            "name": request["tools"][0]["name"],
            "input": json.loads(reply.content),
        }
    else:
        block = {"type": "text", "text": reply.content}
    stop = {"length": "max_tokens"}.get(reply.finish_reason, "end_turn")
    return {
        "id": "msg_scripted",
        "type": "message",
        "role": "assistant",
        "model": request.get("model", "scripted"),
        "content": [block],
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": reply.prompt_tokens, "output_tokens": reply.completion_tokens},
    }


def reply_payload(reply: Reply, path: str, body: Any) -> bytes:
    """The response body of ``reply`` to a request for ``path`` with the decoded ``body``."""
    if reply.body is not None:
        payload = reply.body
        if isinstance(payload, str):
            return payload.encode()
        return payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    if reply.status >= 400:
        return json.dumps(
            {"error": {"message": f"scripted error {reply.status}", "type": "scripted"}}
        ).encode()
    if path.endswith("/messages"):
        return json.dumps(_anthropic_message(reply, body)).encode()
    model = body.get("model", "scripted") if isinstance(body, dict) else "scripted"
    return json.dumps(_chat_completion(reply, model)).encode()


class ScriptedServer:
    """The scripted server; use as a context manager or call :meth:`start` / :meth:`stop`.

    Args:
        default: the reply when the queue is empty (a ``Reply`` or a function of the request
            body returning one).
        latency: seconds every reply waits before it is sent (benchmarks).
    """

    def __init__(
        self,
        default: Reply | Callable[[Any], Reply] | None = None,
        *,
        latency: float = 0.0,
    ) -> None:
        self.default = default or Reply()
        self.latency = latency
        self.requests: list[RecordedRequest] = []
        self.max_in_flight = 0
        self.handling_s = 0.0
        self.handled = 0
        self._in_flight = 0
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._release_hangs = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- control -------------------------------------------------------------------------
    def start(self) -> ScriptedServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # headers and body go out in separate writes: without TCP_NODELAY, Nagle's
            # algorithm and the client's delayed ACK add ~40 ms to every reply
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                server._handle(self)

        class Server(ThreadingHTTPServer):
            request_queue_size = 256  # the default backlog of 5 refuses bursts of connects

        self._httpd = Server(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._release_hangs.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None
        return int(self._httpd.server_address[1])

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self.max_in_flight = 0
            self.handling_s = 0.0
            self.handled = 0
            self._in_flight = 0
        self._release_hangs.set()  # end the silent connections of earlier tests
        self._release_hangs = threading.Event()
        self.default = Reply()
        self.latency = 0.0

    @property
    def chat_requests(self) -> list[Any]:
        return [r.body for r in self.requests]

    # -- serving -------------------------------------------------------------------------
    def _next(self, body: Any) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        default = self.default
        return default(body) if callable(default) else default

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        started = time.perf_counter()
        waited = 0.0
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = raw.decode(errors="replace")
        with self._lock:
            self.requests.append(
                RecordedRequest(
                    handler.path, {k.lower(): v for k, v in handler.headers.items()}, body
                )
            )
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            reply = self._next(body)
            wait = reply.delay + self.latency
            if wait:
                time.sleep(wait)
                waited = wait
            if reply.hang:
                with self._lock:
                    self._in_flight -= 1  # a silent connection is not "handled at once"
                release = self._release_hangs
                release.wait(reply.hang_s)
                handler.close_connection = True
                with self._lock:
                    self._in_flight += 1  # balanced by the finally below
                return
            self._send(handler, reply, body)
            handler.wfile.flush()
        finally:
            with self._lock:
                self._in_flight -= 1
                self.handling_s += time.perf_counter() - started - waited
                self.handled += 1

    def _send(self, handler: BaseHTTPRequestHandler, reply: Reply, body: Any) -> None:
        payload = reply_payload(reply, handler.path, body)
        handler.send_response(reply.status)
        handler.send_header("Content-Type", reply.content_type)
        handler.send_header("Content-Length", str(len(payload)))
        for name, value in reply.headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(payload)
