"""``JudgeSettings``: the keyword options of :class:`~scorekit.judge.judge.Judge`, validated once.

Every option has its own default, so passing some never switches others off
(divergences.md row 1). Invalid values raise :class:`~scorekit.errors.ConfigError` naming the
option, before any judge call. Nothing here reads the environment: only the provider resolver
does (:mod:`scorekit.judge.providers`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorekit.errors import ConfigError

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT_S",
    "FITTED_TIMEOUT_CAP_S",
    "SPEC_OPTIONS",
    "JudgeSettings",
    "check_plain_options",
    "given_options",
]

DEFAULT_TIMEOUT_S = 60.0
"""Seconds one transport attempt to a hosted API may take before it is cancelled, when the
judge's ``timeout`` is not set. The local judge fits its own deadline to its measured speed
instead (:mod:`scorekit.judge.local`)."""
FITTED_TIMEOUT_CAP_S = 3600.0
"""The longest deadline a fitted timeout (the local judge's, ``timeout=None``) gives one call,
in seconds; also the local adapter's own HTTP timeout then."""
DEFAULT_MAX_RETRIES = 3
"""Retries after the first attempt on 429, 5xx and connection errors (so 4 attempts at most)."""
DEFAULT_CONCURRENCY = 8
"""Requests in flight per model, across every judge on that model."""
DEFAULT_RETRY_BACKOFF_S = 0.5
"""First retry delay in seconds without ``Retry-After``; it doubles per retry (with jitter)."""
_MAX_TEMPERATURE = 2.0

SPEC_OPTIONS = (
    "timeout",
    "max_retries",
    "retry_backoff",
    "concurrency",
    "temperature",
    "seed",
    "max_tokens",
    "cache",
    "cache_dir",
    "context_window",
    "base_url",
)
"""The judge's keyword options that travel as plain data (a
:class:`~scorekit.judge.judge.JudgeSpec`), in order; ``api_key`` is never one."""

_NULLABLE_OPTIONS = frozenset(
    {"timeout", "concurrency", "seed", "max_tokens", "cache_dir", "context_window", "base_url"}
)
"""Options whose ``None`` means "the default"."""


@dataclass(frozen=True)
class JudgeSettings:
    """The judge's generation and reliability options (frozen; build with :meth:`create`)."""

    timeout: float | None = None
    """Seconds one transport attempt may take; a call still running then is cancelled and
    fails with ``JudgeTimeoutError`` (not retried: a hung server rarely recovers in time).
    ``None`` fits the judge: :data:`DEFAULT_TIMEOUT_S` for a hosted API, a deadline derived
    from its measured speed and the call's reply budget for the local judge
    (:func:`scorekit.judge.local.fitted_timeout`)."""
    max_retries: int = DEFAULT_MAX_RETRIES
    """Retries on 429, 5xx and connection errors, ``>= 0``."""
    retry_backoff: float = DEFAULT_RETRY_BACKOFF_S
    """First retry delay in seconds (doubling, jittered to 50-100 %) when the server sends no
    ``Retry-After``; ``>= 0``."""
    concurrency: int = DEFAULT_CONCURRENCY
    """Most requests in flight to this model, ``>= 1``; judges on the same model share one
    limiter whose ceiling is the smallest concurrency asked for by a judge still alive."""
    temperature: float = 0.0
    """Sampling temperature in ``[0, 2]``; 0 makes judgements repeatable."""
    seed: int | None = None
    """Sampling seed, sent to providers that accept one."""
    max_tokens: int | None = None
    """Most tokens per reply, ``>= 1``, or ``None``. A structured reply whose schema is bounded
    gets the schema's budget, or this when smaller (:mod:`scorekit.judge.budget`); free text
    and unbounded schemas get this (``None``: the provider's default)."""
    cache: bool = True
    """Whether to use the persistent judge-call cache."""
    cache_dir: Path | None = None
    """Folder of the cache database; ``None`` means ``.scorekit/`` under the working directory
    at construction time."""
    context_window: int | None = None
    """Context window in tokens for the local judge (default 8,192), ``>= 256``; other providers
    report their own limit through their context-length errors."""

    @classmethod
    def create(
        cls,
        *,
        timeout: Any = None,
        max_retries: Any = DEFAULT_MAX_RETRIES,
        retry_backoff: Any = DEFAULT_RETRY_BACKOFF_S,
        concurrency: Any = DEFAULT_CONCURRENCY,
        temperature: Any = 0.0,
        seed: Any = None,
        max_tokens: Any = None,
        cache: Any = True,
        cache_dir: Any = None,
        context_window: Any = None,
    ) -> JudgeSettings:
        """Validate the options and return the settings.

        Raises:
            ConfigError: an option has the wrong type or range; ``field`` names it.
        """
        if not isinstance(cache, bool):
            raise ConfigError(f"cache must be true or false, got {cache!r}", field="cache")
        if cache_dir is not None and not isinstance(cache_dir, (str, os.PathLike)):
            raise ConfigError(
                f"cache_dir must be a path, not {type(cache_dir).__name__}", field="cache_dir"
            )
        directory = Path(cache_dir) if cache_dir is not None else Path.cwd() / ".scorekit"
        return cls(
            timeout=None if timeout is None else _positive_number(timeout, "timeout"),
            max_retries=_int_at_least(max_retries, 0, "max_retries"),
            retry_backoff=_number_at_least(retry_backoff, 0.0, "retry_backoff"),
            concurrency=_int_at_least(concurrency, 1, "concurrency"),
            temperature=_temperature(temperature),
            seed=None if seed is None else _int_at_least(seed, -(2**63), "seed"),
            max_tokens=None if max_tokens is None else _int_at_least(max_tokens, 1, "max_tokens"),
            cache=cache,
            cache_dir=directory.absolute(),
            context_window=(
                None
                if context_window is None
                else _int_at_least(context_window, 256, "context_window")
            ),
        )


def check_plain_options(options: object) -> dict[str, Any]:
    """Validate judge options given as plain data (a spec's), with the judges' own checks.

    Args:
        options: a mapping from names in :data:`SPEC_OPTIONS` to JSON scalars (``cache_dir``
            a path string; a ``PathLike`` is turned into one). ``None`` for an option whose
            default is ``None`` means that default, and is dropped.

    Returns:
        The options in :data:`SPEC_OPTIONS` order, values as given (``base_url`` is only
        checked to be a string here; the resolver checks the URL).

    Raises:
        ConfigError: ``options`` is not a mapping, holds ``api_key`` or an unknown name, or a
            value :meth:`JudgeSettings.create` refuses; ``field`` names it.
    """
    if not isinstance(options, Mapping):
        raise ConfigError(
            f"options must be a mapping of judge options, not {type(options).__name__}",
            field="options",
        )
    if "api_key" in options:
        raise ConfigError(
            "judge options as data never hold an API key: the process that builds the judge "
            "reads it from the provider's environment variable",
            field="api_key",
        )
    unknown = [str(name) for name in options if name not in SPEC_OPTIONS]
    if unknown:
        raise ConfigError(
            f"unknown judge option {unknown[0]!r}; expected one of {', '.join(SPEC_OPTIONS)}",
            field=unknown[0],
        )
    checked: dict[str, Any] = {}
    for name in SPEC_OPTIONS:
        if name not in options:
            continue
        value = options[name]
        if name == "cache_dir" and isinstance(value, os.PathLike):
            value = os.fspath(value)
        if value is None and name in _NULLABLE_OPTIONS:
            continue
        if not isinstance(value, (str, int, float, bool)) or (
            name in ("cache_dir", "base_url") and not isinstance(value, str)
        ):
            raise ConfigError(
                f"{name} must be a number, boolean or string as the option takes, "
                f"not {type(value).__name__}",
                field=name,
            )
        checked[name] = value
    JudgeSettings.create(**{name: v for name, v in checked.items() if name != "base_url"})
    return checked


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _positive_number(value: Any, field: str) -> float:
    if not _is_number(value) or not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{field} must be a finite number > 0, got {value!r}", field=field)
    return float(value)


def _number_at_least(value: Any, low: float, field: str) -> float:
    if not _is_number(value) or not math.isfinite(value) or value < low:
        raise ConfigError(f"{field} must be a finite number >= {low}, got {value!r}", field=field)
    return float(value)


def _int_at_least(value: Any, low: int, field: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ConfigError(f"{field} must be an integer >= {low}, got {value!r}", field=field)
    return value


def _temperature(value: Any) -> float:
    if not _is_number(value) or not 0 <= value <= _MAX_TEMPERATURE:
        raise ConfigError(
            f"temperature must be a number in [0, {_MAX_TEMPERATURE}], got {value!r}",
            field="temperature",
        )
    return float(value)


def given_options(
    settings: JudgeSettings, *, concurrency_given: bool, cache_dir_given: bool, base_url: str | None
) -> dict[str, Any]:
    """The options a judge was built with that differ from the defaults, as plain data.

    What a :class:`~scorekit.judge.judge.JudgeSpec` keeps: the options given explicitly
    (``concurrency``, ``cache_dir``, ``base_url``) and any other that differs from its default.
    """
    defaults = JudgeSettings()
    options: dict[str, Any] = {}
    for name in SPEC_OPTIONS:
        if name == "concurrency":
            if concurrency_given:
                options[name] = settings.concurrency
        elif name == "cache_dir":
            if cache_dir_given:
                options[name] = str(settings.cache_dir)
        elif name == "base_url":
            if base_url is not None:
                options[name] = base_url
        elif getattr(settings, name) != getattr(defaults, name):
            options[name] = getattr(settings, name)
    return options
