"""The persistent judge-call cache (SQLite) and the layer that uses it.

The key is the SHA-256 of a canonical JSON of the model's identity (provider, model name, base
URL), the messages, the output schema and the generation parameters (temperature, max tokens,
seed, and ``top_logprobs`` when a request asks for token log-probabilities). The API key is
never part of it, nor stored. A reply's log-probabilities are stored with it (table
``judge_logprobs``, one compact JSON list per key), so a cache hit returns them; a request
that asked for them but got none back is not stored.

Only replies worth replaying are stored: a reply cut off at the token limit, an empty text
reply, or a structured reply that does not parse and fully validate (with the request's pydantic
model and its validators when it has one, else its JSON schema) is never cached, so a bad
reply cannot pin a failure for later runs. A cache hit costs no tokens: its response reports
zero billed tokens, ``cache_hit=True`` and zero transport attempts.

One database file is shared by every judge using the same folder, across threads (one
connection behind a lock) and processes (SQLite WAL mode).

The folder is checked when a judge is built (:func:`open_cache`): it is created if missing,
and a path that is a file, cannot be created or is not writable, or a database file that is
not SQLite (garbage, another program's file) fails with
:class:`~scorekit.errors.ConfigError` naming the path (``field="cache_dir"``). A bad database
file is left alone, never deleted or moved: it only holds cached replies, so the message says
to delete it, choose another ``cache_dir`` or pass ``cache=False``. A cache that fails later,
while judging (the file replaced or corrupted underneath, a full disk), logs one warning and
is bypassed for the rest of the process: a cache problem never fails a judge call.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import sqlite3
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from scorekit.errors import ConfigError
from scorekit.judge.model import JudgeModel, JudgeRequest, JudgeResponse, TokenLogprob
from scorekit.judge.structured import SchemaSpec, parse_output

__all__ = [
    "CACHE_FILE",
    "PROMPT_VERSION",
    "CachingModel",
    "JudgeCache",
    "cache_key",
    "check_cache_dir",
    "open_cache",
]

CACHE_FILE = "judge-cache.sqlite3"
"""The database file name inside the cache folder."""
_KEY_VERSION = 5
"""Bumped when the key's recipe or the rule for what is stored changes, so old entries are
simply never hit (2: entries stored by version 1 were checked against the JSON schema only, so
they may hold replies a pydantic validator rejects; 3: requests carry the reply budget of their
schema's bound and scorer schemas bound their free text and lists, judge/budget.py; 4: the
scorer prompts and schemas redesigned for judgement per token, issue 12; 5: the context relevance
analyze step asked in the reference prompt's shape, issue 29).
``top_logprobs`` joins the key only when a request sets it, so the keys of requests without it
are unchanged by it."""

PROMPT_VERSION = _KEY_VERSION
"""The version of scorekit's judge prompts as a run records it (the judge-cache key version,
which every prompt change bumps): an agreement measured with one version is stale for a run
with another (:mod:`scorekit.store.alignments`)."""

_SQLITE_HEADER = b"SQLite format 3\x00"


def _dump_logprobs(tokens: tuple[TokenLogprob, ...]) -> str:
    """Tokens as compact JSON: ``[[token, logprob, bytes-hex|null, [[alt, lp, hex|null]...]]]``."""

    def one(token: TokenLogprob) -> list[Any]:
        raw = token.token_bytes.hex() if token.token_bytes is not None else None
        return [token.token, token.logprob, raw]

    return json.dumps(
        [[*one(t), [one(alt) for alt in t.top]] for t in tokens],
        ensure_ascii=False,
        separators=(",", ":"),
    )


def _load_logprobs(text: str) -> tuple[TokenLogprob, ...]:
    """Read what :func:`_dump_logprobs` wrote."""

    def one(row: list[Any], top: tuple[TokenLogprob, ...] = ()) -> TokenLogprob:
        raw = bytes.fromhex(row[2]) if row[2] is not None else None
        return TokenLogprob(row[0], float(row[1]), raw, top)

    return tuple(one(row, tuple(one(alt) for alt in row[3])) for row in json.loads(text))


"""The first 16 bytes of every SQLite database file."""
_log = logging.getLogger("scorekit.judge")
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
    if request.top_logprobs is not None:
        payload["top_logprobs"] = request.top_logprobs
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


class JudgeCache:
    """A SQLite table of judge replies by key.

    Args:
        path: the database file; its folder is created on first use.

    Attributes:
        hits: lookups answered from this cache since it was opened.
        misses: lookups that found nothing.
        failure: why the cache was switched off while judging (``None`` while it works);
            a failing cache is bypassed, never allowed to fail a judge call.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.hits = 0
        self.misses = 0
        self.failure: str | None = None
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _fail(self, exc: Exception) -> None:
        """Switch the cache off after ``exc`` (under the lock), warning once."""
        self.failure = f"{type(exc).__name__}: {exc}"
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None
        _log.warning(
            "judge cache %s failed (%s); judging goes on without the cache. Delete the file "
            "if it is corrupt, or choose another cache_dir",
            self.path,
            self.failure,
        )

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
            # a table of its own: files written by earlier versions keep working, both ways
            db.execute(
                "CREATE TABLE IF NOT EXISTS judge_logprobs ("
                " key TEXT PRIMARY KEY, tokens TEXT NOT NULL)"
            )
            db.commit()
            self._db = db
        return self._db

    def get(self, key: str) -> JudgeResponse | None:
        """Return the cached reply for ``key`` (as a cache hit), or ``None``.

        ``None`` too when the cache has failed (see :attr:`failure`).
        """
        with self._lock:
            if self.failure is not None:
                return None
            try:
                row = (
                    self._connection()
                    .execute(
                        "SELECT c.model_id, c.text, c.finish_reason, l.tokens FROM judge_calls c"
                        " LEFT JOIN judge_logprobs l ON l.key = c.key WHERE c.key = ?",
                        (key,),
                    )
                    .fetchone()
                )
            except (sqlite3.Error, OSError) as exc:
                self._fail(exc)
                return None
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
            logprobs=_load_logprobs(row[3]) if row[3] is not None else None,
        )

    def put(self, key: str, response: JudgeResponse) -> None:
        """Store ``response`` under ``key`` (replacing any older entry); a no-op once failed."""
        with self._lock:
            if self.failure is not None:
                return
            try:
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
                if response.logprobs is not None:
                    db.execute(
                        "INSERT OR REPLACE INTO judge_logprobs VALUES (?, ?)",
                        (key, _dump_logprobs(response.logprobs)),
                    )
                else:
                    db.execute("DELETE FROM judge_logprobs WHERE key = ?", (key,))
                db.commit()
            except (sqlite3.Error, OSError) as exc:
                self._fail(exc)

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


def check_cache_dir(folder: Path) -> Path:
    """Make sure ``folder`` can hold the judge cache.

    It is created if missing and probed for writing (a temporary file); an existing database
    file must start with SQLite's header (only the header is read: a quick check).

    Args:
        folder: the cache folder.

    Returns:
        The database file's absolute path.

    Raises:
        ConfigError: ``field="cache_dir"``; the message names the offending path and what to do.
    """
    folder = folder.absolute()
    path = folder / CACHE_FILE
    hint = "choose another cache_dir or pass cache=False"
    for parent in (folder, *folder.parents):
        if parent.exists() and not parent.is_dir():
            raise ConfigError(
                f"cache_dir {str(folder)!r} is not usable: {str(parent)!r} is a file, not a "
                f"folder; {hint}",
                field="cache_dir",
            )
        if parent.exists():
            break
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"cache_dir {str(folder)!r} cannot be created ({exc.strerror or exc}); {hint}",
            field="cache_dir",
        ) from None
    try:  # os.access is not enough: root "may" write to read-only places
        with tempfile.TemporaryFile(dir=folder, prefix=".scorekit-probe-"):
            pass
    except OSError as exc:
        raise ConfigError(
            f"cache_dir {str(folder)!r} is not writable ({exc.strerror or exc}); {hint}",
            field="cache_dir",
        ) from None
    if path.is_dir() or (path.exists() and not path.is_file()):
        raise ConfigError(
            f"the judge cache file {str(path)!r} is not a file; {hint}", field="cache_dir"
        )
    if path.is_file():
        try:
            with path.open("rb") as file:
                header = file.read(len(_SQLITE_HEADER))
            readable = os.access(path, os.R_OK | os.W_OK)
        except OSError as exc:
            raise ConfigError(
                f"the judge cache file {str(path)!r} cannot be read ({exc.strerror or exc}); "
                f"{hint}",
                field="cache_dir",
            ) from None
        if header and header != _SQLITE_HEADER:  # an empty file is a valid new database
            raise ConfigError(
                f"the judge cache file {str(path)!r} is not a SQLite database (corrupt, or "
                "another program's file). It only holds cached judge replies: delete it, "
                f"or {hint}",
                field="cache_dir",
            )
        if not readable:
            raise ConfigError(
                f"the judge cache file {str(path)!r} is not readable and writable; {hint}",
                field="cache_dir",
            )
    return path


def open_cache(folder: Path) -> JudgeCache:
    """Return the cache of ``folder``, shared by every judge using that folder.

    The folder is checked first (:func:`check_cache_dir`).

    Raises:
        ConfigError: the folder or its database file cannot be used (``field="cache_dir"``).
    """
    path = check_cache_dir(folder)
    with _registry_lock:
        cache = _registry.get(path)
        if cache is None:
            cache = _registry[path] = JudgeCache(path)
        return cache


def _worth_keeping(request: JudgeRequest, response: JudgeResponse) -> bool:
    if response.finish_reason == "length":
        return False
    if request.top_logprobs is not None and response.logprobs is None:
        return False  # what was asked for is what is stored
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
