"""The judge's layer stack, assembled in one place (the order is :mod:`scorekit.judge.judge`'s).

Below the repair loop, from the outside in: the dry-run layer (it answers requests
itself only while an estimate runs, :mod:`scorekit.judge.dry_run`), the persistent cache
(when on and the model has an identity), retries with backoff, the run's judge budget (every
attempt is a call it counts), the shared per-model concurrency limiter, the per-attempt
timeout, then the model's protocol adapter.
"""

from __future__ import annotations

from typing import Any

from scorekit.judge.cache import CachingModel, JudgeCache, open_cache
from scorekit.judge.dry_run import DryRunModel
from scorekit.judge.model import JudgeModel
from scorekit.judge.ratelimit import AdaptiveLimiter, RateLimitedModel, shared_limiter
from scorekit.judge.retry import RetryingModel
from scorekit.judge.settings import JudgeSettings
from scorekit.judge.spending import SpendingModel
from scorekit.judge.timeout import TimeoutModel, layer_timeout

__all__ = ["stack_layers"]


def stack_layers(
    built: JudgeModel,
    settings: JudgeSettings,
    identity: dict[str, Any] | None,
    *,
    owner: object,
) -> tuple[JudgeModel, AdaptiveLimiter]:
    """Wrap a model in the judge's layers.

    Args:
        built: the lowest layer (the protocol adapter, or a given ``JudgeModel``).
        settings: the judge's validated options.
        identity: what identifies the model across processes (provider, model, base URL):
            the key of the shared limiter and of cache entries; ``None`` for an object with
            none (a ``JudgeModel`` object, the test provider), which is never cached.
        owner: the judge claiming a share of the limiter's ceiling (released with it).

    Returns:
        The outermost layer and the limiter it uses.
    """
    limiter_key = repr(sorted(identity.items())) if identity else f"{built.model_id}#{id(built)}"
    # the claim on the shared ceiling ends with the owner (ratelimit.py)
    limiter = shared_limiter(limiter_key, settings.concurrency, owner=owner)
    layered: JudgeModel = TimeoutModel(built, layer_timeout(built, settings.timeout))
    layered = RateLimitedModel(layered, limiter)
    layered = SpendingModel(layered)  # each attempt asks the run's budget, if any
    layered = RetryingModel(
        layered, max_retries=settings.max_retries, backoff=settings.retry_backoff
    )
    cache: JudgeCache | None = None
    if settings.cache and identity is not None:
        assert settings.cache_dir is not None  # JudgeSettings.create fills it
        cache = open_cache(settings.cache_dir)
        layered = CachingModel(layered, cache, identity)
    # the local judge counts a prompt's tokens with its own tokenizer, offline
    counter = getattr(built, "count_request_tokens", None)
    layered = DryRunModel(layered, cache, identity, counter if callable(counter) else None)
    return layered, limiter
