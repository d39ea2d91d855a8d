"""Live scoring: score a sample of an application's calls in the background.

Wrap a function of the application (sync or async; a decorator or a wrapper object) with
scorers, each with its own deterministic sampling (Mastra's: SHA-256 of the trace id, else
the call's run id) and an optional filter on the request context. Sampled calls go on a
bounded queue to a background worker: a scoring process of its own when every scorer carries a
spec (:mod:`scorekit.live.process`), else a thread with its own event loop
(:mod:`scorekit.live.worker`); the application never waits for scoring and never sees its
errors. Results are stored with source ``LIVE`` in one run per
service, UTC day and set of scorers (docs/live.md).

Example::

    from scorekit.live import LiveScoring, request_context

    live = LiveScoring(".scorekit/scorekit.db", service="rag-api")

    @live.score([{"scorer": relevancy, "sampling": {"type": "ratio", "rate": 0.1}}])
    def answer(question: str) -> str: ...

    with request_context({"tenant": "acme"}):
        answer("What is RAG?")
    live.stats()      # LiveStats(calls=1, queued=..., scored=..., ...)
"""

from scorekit.live.context import (
    current_request_context,
    looks_secret,
    request_context,
    snapshot_request_context,
)
from scorekit.live.runs import live_run_id, live_run_name
from scorekit.live.sampling import Sampling, read_sampling, sample_fraction
from scorekit.live.scoring import (
    AsyncLiveFunction,
    LiveFunction,
    LiveScorer,
    LiveScoring,
    RequestFilter,
)
from scorekit.live.worker import LiveStats

__all__ = [
    "AsyncLiveFunction",
    "LiveFunction",
    "LiveScorer",
    "LiveScoring",
    "LiveStats",
    "RequestFilter",
    "Sampling",
    "current_request_context",
    "live_run_id",
    "live_run_name",
    "looks_secret",
    "read_sampling",
    "request_context",
    "sample_fraction",
    "snapshot_request_context",
]
