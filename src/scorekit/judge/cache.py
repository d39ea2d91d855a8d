"""The persistent judge-call cache (SQLite) and the layer that uses it.

The key is the SHA-256 of a canonical JSON of the model's identity (provider, model name, base
URL), the messages, the output schema and the generation parameters (temperature, max tokens,
seed). The API key is never part of it, nor stored.

Only replies worth replaying are stored: a reply cut off at the token limit, an empty text
reply, or a structured reply that does not parse and fully validate (with the request's pydantic
model and its validators when it has one, else its JSON schema) is never cached, so a bad
reply cannot pin a failure for later runs. A cache hit costs no tokens: its response reports
zero billed tokens, ``cache_hit=True`` and zero transport attempts.

One database file is shared by every judge using the same folder, across threads (one
connection behind a lock) and processes (SQLite WAL mode).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from scorekit.judge.model import JudgeModel, JudgeRequest, JudgeResponse
from scorekit.judge.structured import SchemaSpec, parse_output

__all__ = ["CACHE_FILE", "CachingModel", "JudgeCache", "cache_key", "open_cache"]

CACHE_FILE = "judge-cache.sqlite3"
"""The database file name inside the cache folder."""
_KEY_VERSION = 2
"""Bumped when the key's recipe or the rule for what is stored changes, so old entries are
simply never hit (2: entries stored by version 1 were checked against the JSON schema only, so
they may hold replies a pydantic validator rejects)."""

_registry_lock = threading.Lock()
_registry: dict[Path, JudgeCache] = {}


def cache_key(identity: Mapping[str, Any], request: JudgeRequest) -> str:
    """Return the cache key of ``request`` sent to the model ``identity``.

    Args:
        identity: the model's identity (provider, model, base URL); must hold no secret.
        request: the request.

    Returns:
        A 64-character hex SHA-256 digest.
    """
    payload = {
        "v": _KEY_VERSION,
        "model": dict(identity),
        "messages": [asdict(m) for m in request.messages],
        "schema": request.output_schema,
        "temperature": request.temperature,
        "max_tokens": request.max_tokens,
        "seed": request.seed,
    }
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


class JudgeCache:
    """A SQLite table of judge replies by key.

    Args:
        path: the database file; its folder is created on first use.

    Attributes:
        hits: lookups answered from this cache since it was opened.
        misses: lookups that found nothing.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def __repr__(self) -> str:
        return f"JudgeCache({str(self.path)!r}, hits={self.hits}, misses={self.misses})"

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS judge_calls ("
                " key TEXT PRIMARY KEY, model_id TEXT NOT NULL, text TEXT NOT NULL,"
                " finish_reason TEXT, input_tokens INTEGER NOT NULL,"
                " output_tokens INTEGER NOT NULL, created_at REAL NOT NULL)"
            )
            db.commit()
            self._db = db
        return self._db

    def get(self, key: str) -> JudgeResponse | None:
        """Return the cached reply for ``key`` (as a cache hit), or ``None``."""
        with self._lock:
            row = (
                self._connection()
                .execute(
                    "SELECT model_id, text, finish_reason FROM judge_calls WHERE key = ?", (key,)
                )
                .fetchone()
            )
            if row is None:
                self.misses += 1
                return None
            self.hits += 1
        return JudgeResponse(
            text=row[1],
            finish_reason=row[2],
            model_id=row[0],
            cache_hit=True,
            attempts=0,
        )

    def put(self, key: str, response: JudgeResponse) -> None:
        """Store ``response`` under ``key`` (replacing any older entry)."""
        with self._lock:
            db = self._connection()
            db.execute(
                "INSERT OR REPLACE INTO judge_calls VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    response.model_id,
                    response.text,
                    response.finish_reason,
                    response.input_tokens,
                    response.output_tokens,
                    time.time(),
                ),
            )
            db.commit()

    def __len__(self) -> int:
        with self._lock:
            row = self._connection().execute("SELECT COUNT(*) FROM judge_calls").fetchone()
        return int(row[0])

    def close(self) -> None:
        """Close the database connection (it reopens on next use)."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


def open_cache(folder: Path) -> JudgeCache:
    """Return the cache of ``folder``, shared by every judge using that folder."""
    path = (folder / CACHE_FILE).absolute()
    with _registry_lock:
        cache = _registry.get(path)
        if cache is None:
            cache = _registry[path] = JudgeCache(path)
        return cache


def _worth_keeping(request: JudgeRequest, response: JudgeResponse) -> bool:
    if response.finish_reason == "length":
        return False
    if request.output_schema is None:
        return bool(response.text.strip())
    # the pydantic model when there is one: its validators can reject what the schema allows
    spec = SchemaSpec(request.schema_name, request.output_schema, request.output_model)
    return parse_output(response.text, spec).error is None


class CachingModel:
    """Wrap ``inner`` with the judge-call cache.

    Args:
        inner: the model below.
        cache: the cache store.
        identity: the model's identity for keys (no secrets).
    """

    def __init__(self, inner: JudgeModel, cache: JudgeCache, identity: Mapping[str, Any]) -> None:
        self.inner = inner
        self.cache = cache
        self.identity = dict(identity)

    @property
    def model_id(self) -> str:
        """The inner model's id."""
        return self.inner.model_id

    def __repr__(self) -> str:
        return f"CachingModel({self.inner!r}, {self.cache!r})"

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """Answer from the cache, or forward the request and keep a good reply."""
        key = cache_key(self.identity, request)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        response = await self.inner.complete(request)
        if _worth_keeping(request, response):
            self.cache.put(key, response)
        return response
