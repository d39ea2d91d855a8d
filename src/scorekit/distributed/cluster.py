"""Reaching Ray: the optional import, and joining (or starting) a cluster.

Ray is an optional extra (``pip install 'scorekit[ray]'``): nothing here imports it at module
level, so ``scorekit.distributed`` imports without it and the error names the extra when a
:class:`~scorekit.distributed.RayExecutor` is used.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from scorekit.errors import ConfigError

__all__ = ["RAY_EXTRA", "connect", "import_ray"]

RAY_EXTRA = "pip install 'scorekit[ray]'"
"""What installs Ray for scorekit."""


def import_ray() -> Any:
    """Return the ``ray`` module.

    Raises:
        ConfigError: Ray is not installed (``field="executor"``), naming the extra.
    """
    try:
        return importlib.import_module("ray")
    except ImportError as exc:
        raise ConfigError(
            f"the Ray executor needs Ray, which is not installed ({exc}): {RAY_EXTRA}",
            field="executor",
        ) from exc


def connect(ray: Any, address: str | None, init_options: Mapping[str, Any]) -> bool:
    """Join the cluster at ``address``, unless this process is connected already.

    Args:
        ray: the ``ray`` module.
        address: ``None`` (a cluster the environment names in ``RAY_ADDRESS``, else a new
            local one), ``"auto"`` (the running cluster on this machine) or
            ``"ray://host:port"`` (Ray Client, which needs ``ray[client]``).
        init_options: more keyword arguments for ``ray.init`` (``runtime_env``, ...).

    Returns:
        Whether this call connected (``False``: already connected, left as it was).

    Raises:
        ConfigError: ``ray.init`` refused the address (``field="ray_address"``).
    """
    if ray.is_initialized():
        return False
    try:
        ray.init(address=address, **{"log_to_driver": False, **init_options})
    except (ConnectionError, ValueError, RuntimeError) as exc:
        shown = address or "a new local cluster"
        raise ConfigError(
            f"cannot connect to the Ray cluster {shown}: {exc}", field="ray_address"
        ) from exc
    return True
