"""Ragas's and DeepEval's LLM metrics on JSON-line rows, against an OpenAI-compatible judge.

Run with this folder's own environment (``benchmarks/peers/.venv``, built from
``requirements.txt``), never scorekit's:

    .venv/bin/python python_peers.py PEER BASE_URL METRIC < rows.jsonl

``PEER`` is ``ragas`` or ``deepeval``, ``BASE_URL`` the judge's OpenAI-compatible root (ending in
``/v1``), ``METRIC`` ``context-relevance`` or ``faithfulness``. Each stdin line is
``{key, question, context, answer}``; each row gives one stdout line, as ``mastra_scorers.mjs``
writes them: ``{key, peer, scorer, score, error, calls, input_tokens, output_tokens, seconds}``.

The metrics, each with its library's defaults:

* Ragas 0.4.3 (its current ``ragas.metrics.collections`` API): ``ContextRelevance`` (two judge
  prompts rating 0, 1 or 2, averaged and scaled to [0, 1]) and ``Faithfulness`` (statements
  drawn from the answer, each checked against the context), on ``llm_factory("local",
  client=AsyncOpenAI(base_url=...))``, Ragas's documented way to a custom OpenAI-compatible
  endpoint (Instructor in JSON mode).
* DeepEval 4.3.1: ``ContextualRelevancyMetric`` and ``FaithfulnessMetric`` on its
  ``LocalModel(model=..., base_url=..., api_key=...)``, the class behind ``deepeval
  set-local-model``. Both metrics also ask the judge for a reason (``include_reason=True``, the
  default), which costs a call and does not change the score.

Calls and tokens are counted by a small proxy on 127.0.0.1 that this script puts in front of
the judge: every POST the library sends is one call, and its tokens are the ``usage`` of the
server's reply (a streamed reply's last ``usage`` chunk). Retries a library makes count as
calls. A row's tokens are ``null`` when a reply with status 200 carried no ``usage`` (the figure
cannot be measured then); a failed reply counts as a call with no tokens. Rows run one after
another, so each row's figures are its own.

With ``PEERS_REPLIES=FILE`` in the environment the proxy also appends each call's status and the
server's reply to FILE (a JSON line each), to see why a library rejected a reply.

Telemetry is off (``RAGAS_DO_NOT_TRACK=true``, ``DEEPEVAL_TELEMETRY_OPT_OUT=YES``), the API key
is a dummy, and DeepEval's own per-call time limit (derived from a 180 s budget) is raised to
900 s, the benchmark judge's timeout, since a call to a loaded CPU judge can take minutes.
Anything the libraries print goes to stderr; stdout carries only the JSON lines.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

PEERS = ("ragas", "deepeval")
METRICS = ("context-relevance", "faithfulness")
TIMEOUT_S = 900.0
"""Seconds one judge call may take (the benchmark judge's own timeout)."""

ENVIRONMENT = {
    "RAGAS_DO_NOT_TRACK": "true",
    "DEEPEVAL_TELEMETRY_OPT_OUT": "YES",
    "DEEPEVAL_PER_ATTEMPT_TIMEOUT_SECONDS_OVERRIDE": str(int(TIMEOUT_S)),
    "OPENAI_API_KEY": "not-used",
    "NO_PROXY": "127.0.0.1,localhost",
    "HF_HUB_OFFLINE": "1",
}


class Counter:
    """Judge calls and tokens seen by the proxy, shared by its threads."""

    def __init__(self, replies: str | None = None) -> None:
        self.replies = replies
        """A file to append each call's status and reply to, or ``None``."""
        self.lock = threading.Lock()
        self.calls = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.unmeasured = 0
        """Replies with status 200 that carried no ``usage``."""

    def snapshot(self) -> tuple[int, int, int, int]:
        with self.lock:
            return self.calls, self.input_tokens, self.output_tokens, self.unmeasured

    def add(self, status: int, body: bytes) -> None:
        usage = _usage(body) if status == 200 else None
        with self.lock:
            self.calls += 1
            if usage is not None:
                self.input_tokens += int(usage.get("prompt_tokens") or 0)
                self.output_tokens += int(usage.get("completion_tokens") or 0)
            elif status == 200:
                self.unmeasured += 1
            if self.replies:
                reply = body.decode("utf-8", errors="replace")
                with open(self.replies, "a", encoding="utf-8") as sink:
                    sink.write(json.dumps({"call": self.calls, "status": status, "reply": reply}))
                    sink.write("\n")


def _usage(body: bytes) -> dict[str, Any] | None:
    """The ``usage`` of a JSON reply, or of the last server-sent event that has one."""
    text = body.decode("utf-8", errors="replace").strip()
    candidates = [text] if text.startswith("{") else []
    if not candidates:
        candidates = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    usage = None
    for candidate in candidates:
        try:
            decoded = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(decoded, dict) and isinstance(decoded.get("usage"), dict):
            usage = decoded["usage"]
    return usage


def start_proxy(upstream: str, counter: Counter) -> str:
    """A counting proxy to the server at ``upstream`` on 127.0.0.1 (a daemon thread).

    Returns:
        The proxy's root URL: a request to ``ROOT/PATH`` goes to the server's ``/PATH``.
    """
    parts = urlsplit(upstream)
    target = f"{parts.scheme}://{parts.netloc}"
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    class Handler(BaseHTTPRequestHandler):
        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            data = self.rfile.read(length) if length else None
            headers = {
                name: value
                for name, value in self.headers.items()
                if name.lower() in ("content-type", "accept", "authorization")
            }
            request = urllib.request.Request(
                target + self.path, data=data, headers=headers, method=self.command
            )
            try:
                with direct.open(request, timeout=TIMEOUT_S) as reply:
                    status, body = reply.status, reply.read()
                    kind = reply.headers.get("Content-Type", "application/json")
            except urllib.error.HTTPError as exc:
                status, body = exc.code, exc.read()
                kind = exc.headers.get("Content-Type", "application/json")
            if self.command == "POST":
                counter.add(status, body)
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _forward

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: no line per request."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    return f"http://{host}:{port}"


Scorer = Callable[[dict[str, Any]], Awaitable[float | None]]


def ragas_scorer(base_url: str, metric: str, failures: list[str]) -> Scorer:
    """A Ragas metric on the judge; judge errors it swallows are noted in ``failures``."""
    from openai import AsyncOpenAI
    from ragas.llms import llm_factory
    from ragas.metrics.collections import ContextRelevance, Faithfulness

    client = AsyncOpenAI(base_url=base_url, api_key="not-used", timeout=TIMEOUT_S)
    llm = llm_factory("local", client=client)
    generate = llm.agenerate

    async def noting(prompt: str, response_model: Any) -> Any:
        try:
            return await generate(prompt, response_model)
        except Exception as exc:
            failures.append(f"{type(exc).__name__}: {exc}")
            raise

    llm.agenerate = noting  # type: ignore[method-assign]
    if metric == "context-relevance":
        relevance = ContextRelevance(llm=llm)

        async def score_relevance(row: dict[str, Any]) -> float | None:
            result = await relevance.ascore(
                user_input=row["question"], retrieved_contexts=[row["context"]]
            )
            return result.value  # type: ignore[no-any-return]

        return score_relevance
    faithfulness = Faithfulness(llm=llm)

    async def score_faithfulness(row: dict[str, Any]) -> float | None:
        result = await faithfulness.ascore(
            user_input=row["question"], response=row["answer"],
            retrieved_contexts=[row["context"]],
        )  # fmt: skip
        return result.value  # type: ignore[no-any-return]

    return score_faithfulness


def deepeval_scorer(base_url: str, metric: str, failures: list[str]) -> Scorer:
    """A DeepEval metric on the judge (a fresh metric object per row)."""
    del failures  # DeepEval raises its judge errors
    from deepeval.metrics import ContextualRelevancyMetric, FaithfulnessMetric
    from deepeval.models import LocalModel
    from deepeval.test_case import LLMTestCase

    model = LocalModel(model="local", base_url=base_url, api_key="not-used", timeout=TIMEOUT_S)
    kind = ContextualRelevancyMetric if metric == "context-relevance" else FaithfulnessMetric

    async def score(row: dict[str, Any]) -> float | None:
        case = LLMTestCase(
            input=row["question"], actual_output=row["answer"],
            retrieval_context=[row["context"]],
        )  # fmt: skip
        measured = kind(model=model)
        await measured.a_measure(case, _show_indicator=False)
        return measured.score

    return score


async def run(peer: str, base_url: str, metric: str, out: Any) -> None:
    counter = Counter(os.environ.get("PEERS_REPLIES") or None)
    proxied = start_proxy(base_url, counter)
    path = urlsplit(base_url).path.rstrip("/")
    failures: list[str] = []
    build = ragas_scorer if peer == "ragas" else deepeval_scorer
    scorer = build(proxied + path, metric, failures)
    for line in sys.stdin:
        if not line.strip():
            continue
        row = json.loads(line)
        before = counter.snapshot()
        failures.clear()
        started = time.perf_counter()
        score: float | None = None
        error: str | None = None
        try:
            score = await scorer(row)
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
        if score is not None and math.isnan(score):
            last = f"; last judge error: {failures[-1]}" if failures else ""
            error, score = f"the metric gave NaN{last}", None
        seconds = time.perf_counter() - started
        calls, tokens_in, tokens_out, unmeasured = (
            a - b for a, b in zip(counter.snapshot(), before, strict=True)
        )
        record = {
            "key": row["key"], "peer": peer, "scorer": metric, "score": score,
            "error": error[:300] if error else None, "calls": calls,
            "input_tokens": None if unmeasured else tokens_in,
            "output_tokens": None if unmeasured else tokens_out,
            "seconds": seconds,
        }  # fmt: skip
        out.write(json.dumps(record) + "\n")
        out.flush()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("peer", choices=PEERS)
    parser.add_argument("base_url")
    parser.add_argument("metric", choices=METRICS)
    args = parser.parse_args()
    for name, value in ENVIRONMENT.items():
        os.environ.setdefault(name, value)
    # stdout is for the JSON lines only: whatever the libraries print goes to stderr
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    asyncio.run(run(args.peer, args.base_url, args.metric, out))
    out.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
