"""``import_path``: the object a ``module:attribute`` text names (a target, a scorer factory).

Ground floor: imports only :mod:`scorekit.errors`.
"""

from __future__ import annotations

import importlib
from typing import Any

from scorekit.errors import ConfigError

__all__ = ["import_path"]


def import_path(spec: str, *, kind: str, field: str, attribute: str = "factory") -> Any:
    """Import the object named ``module:attribute`` (``package.module:object.attribute``).

    Args:
        spec: the text: a dotted module path, ``:``, then a dotted attribute path.
        kind: what the object is, for messages (``"target"``, ``"scorer"``).
        field: the ``field`` of the errors raised (the option that held ``spec``).
        attribute: what the attribute is usually called, for the malformed-spec message.

    Returns:
        The object.

    Raises:
        ConfigError: ``spec`` is malformed, the module cannot be imported, or an attribute is
            missing; the message names ``spec`` and what failed.

    Example:
        >>> import_path("math:floor", kind="target", field="target")(2.5)
        2
    """
    module_name, sep, path = spec.partition(":")
    if not sep or not module_name or not path:
        raise ConfigError(f"{kind} {spec!r}: expected 'module:{attribute}'", field=field)
    try:
        value: Any = importlib.import_module(module_name)
    except ImportError as exc:
        message = f"{kind} {spec!r}: cannot import {module_name} ({exc})"
        raise ConfigError(message, field=field) from exc
    for part in path.split("."):
        try:
            value = getattr(value, part)
        except AttributeError as exc:
            message = f"{kind} {spec!r}: no {part!r} in {module_name}"
            raise ConfigError(message, field=field) from exc
    return value
