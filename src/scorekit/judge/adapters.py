"""The adapter table: which :class:`~scorekit.judge.model.JudgeModel` speaks each protocol.

The provider table (:mod:`scorekit.judge.providers`) says *which* protocol a provider speaks;
this table says *what code* speaks it. Each row maps a provider row's
:data:`~scorekit.judge.providers.Protocol` to a small factory that imports its adapter module
only when called, so ``import scorekit`` loads none of the provider SDKs (``openai``,
``anthropic``, ``xllamacpp``) and a missing optional extra fails only for the judges that need
it. The arrows run one way: :class:`~scorekit.judge.judge.Judge` → this table → the adapters →
the provider rows; the resolver knows nothing of the adapters.

Adding a protocol is a :data:`~scorekit.judge.providers.Protocol` value, an adapter module and
one row here. Anchor: httpx's transports below its client.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping

from scorekit.errors import JudgeUnavailableError
from scorekit.judge.model import JudgeModel
from scorekit.judge.providers import Protocol, ResolvedModel

__all__ = ["ADAPTERS", "AdapterFactory", "build_model"]


class AdapterFactory(typing.Protocol):
    """Builds the protocol adapter for a resolved model (a row of :data:`ADAPTERS`)."""

    def __call__(
        self, resolved: ResolvedModel, *, timeout: float, context_window: int | None
    ) -> JudgeModel:
        """Import the adapter's module and return the adapter for ``resolved``.

        Args:
            resolved: the resolved provider row, model, base URL and key.
            timeout: the adapter's own request timeout in seconds, ``> 0``.
            context_window: the local judge's window in tokens (``None``: its default);
                other adapters ignore it.

        Returns:
            The adapter, the lowest layer of the judge.
        """
        ...


def _openai_compatible(
    resolved: ResolvedModel, *, timeout: float, context_window: int | None
) -> JudgeModel:
    """The OpenAI chat-completions protocol (:mod:`scorekit.judge.openai_compat`)."""
    from scorekit.judge.openai_compat import OpenAICompatibleModel

    return OpenAICompatibleModel(resolved, timeout=timeout)


def _anthropic(
    resolved: ResolvedModel, *, timeout: float, context_window: int | None
) -> JudgeModel:
    """Anthropic's Messages API (:mod:`scorekit.judge.anthropic`, extra ``anthropic``)."""
    from scorekit.judge.anthropic import AnthropicModel

    return AnthropicModel(resolved, timeout=timeout)


def _local(resolved: ResolvedModel, *, timeout: float, context_window: int | None) -> JudgeModel:
    """In-process llama.cpp (:mod:`scorekit.judge.local`, extra ``local``)."""
    from scorekit.judge.local import LocalModel

    return LocalModel(resolved, timeout=timeout, context_window=context_window)


def _scripted(resolved: ResolvedModel, *, timeout: float, context_window: int | None) -> JudgeModel:
    """The scripted test double (:mod:`scorekit.judge.scripted`), answering minimal values."""
    from scorekit.judge.scripted import ScriptedJudge

    return ScriptedJudge(name=resolved.model)


ADAPTERS: Mapping[Protocol, AdapterFactory] = {
    "openai": _openai_compatible,
    "azure": _openai_compatible,  # the same adapter; it picks the SDK's Azure client
    "anthropic": _anthropic,
    "local": _local,
    "test": _scripted,
}
"""The factory for each protocol; every :data:`~scorekit.judge.providers.Protocol` has one."""


def build_model(
    resolved: ResolvedModel, *, timeout: float, context_window: int | None = None
) -> JudgeModel:
    """Build the protocol adapter for ``resolved``, importing its module only now.

    Args:
        resolved: the resolved model (:func:`~scorekit.judge.providers.resolve_model`).
        timeout: the adapter's own request timeout in seconds, ``> 0``.
        context_window: the local judge's window in tokens (``None``: its default).

    Returns:
        The adapter for the provider row's protocol.

    Raises:
        JudgeUnavailableError: no adapter speaks the row's protocol, or an optional extra is
            missing.

    Example::

        model = build_model(resolve_model("test/x"), timeout=5.0)
        assert model.model_id == "test/x"
    """
    factory = ADAPTERS.get(resolved.provider.protocol)
    if factory is None:
        raise JudgeUnavailableError(f"no adapter for protocol {resolved.provider.protocol!r}")
    return factory(resolved, timeout=timeout, context_window=context_window)
