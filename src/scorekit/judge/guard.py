"""The request guard: keeps judge calls off the network inside test suites.

Inside :func:`forbid_remote_requests`, every protocol adapter refuses a request to a host that
is not on the loopback interface (:func:`check_request_allowed`, called by the adapters before
each request), so a unit-test suite cannot reach a real provider by accident. Servers on
127.0.0.0/8, ``::1`` and ``localhost`` (the scripted test server, the local llama.cpp judge)
stay reachable. The guard is production code that the adapters import; the test doubles in
:mod:`scorekit.judge.scripted` re-export :func:`forbid_remote_requests` for test suites.
Anchor: pydantic-ai ``ALLOW_MODEL_REQUESTS``.
"""

from __future__ import annotations

import contextlib
import ipaddress
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit

from scorekit.errors import JudgeUnavailableError

__all__ = ["check_request_allowed", "forbid_remote_requests", "is_loopback_host"]

_guard_lock = threading.Lock()
_forbidden_depth = 0
"""How many :func:`forbid_remote_requests` blocks are open, across every thread."""


@contextlib.contextmanager
def forbid_remote_requests() -> Iterator[None]:
    """Within this block, every judge call to a non-loopback host fails.

    Servers on 127.0.0.0/8, ``::1`` and ``localhost`` (scripted test servers, the local
    llama.cpp judge) stay reachable. Applies to every thread, so sync calls bridged to a worker
    thread are covered too; blocks nest. Used by scorekit's own test suite through an autouse
    fixture::

        @pytest.fixture(autouse=True)
        def _no_real_judges():
            with forbid_remote_requests():
                yield
    """
    global _forbidden_depth
    with _guard_lock:
        _forbidden_depth += 1
    try:
        yield
    finally:
        with _guard_lock:
            _forbidden_depth -= 1


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` (a host name or IP address, no port) is on the loopback interface.

    Args:
        host: ``"localhost"``, an IPv4 or IPv6 address, or any other host name.

    Returns:
        ``True`` for ``localhost``, 127.0.0.0/8 and ``::1``; ``False`` for anything else,
        including host names that might resolve to a loopback address (no DNS lookup).
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_request_allowed(base_url: str, model_id: str) -> None:
    """Raise when remote requests are forbidden and ``base_url`` is not on the loopback.

    Protocol adapters call this before every request.

    Args:
        base_url: the endpoint about to be called.
        model_id: the judge's ``"provider/model"``, for the message.

    Raises:
        JudgeUnavailableError: inside :func:`forbid_remote_requests` for a remote host.
    """
    if _forbidden_depth and not is_loopback_host(urlsplit(base_url).hostname or ""):
        raise JudgeUnavailableError(
            f"real judge calls are forbidden here (forbid_remote_requests): {model_id} "
            f"at {urlsplit(base_url).hostname}; use ScriptedJudge or a loopback test server"
        )
