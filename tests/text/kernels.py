"""The C kernels of ``make core`` in tests: the kernel, or a skip naming what builds it."""

from __future__ import annotations

from typing import TypeVar

import pytest

from scorekit.text import compiled

Kernel = TypeVar("Kernel")


def kernel_or_skip(kernel: Kernel | None, name: str) -> Kernel:
    """``kernel`` where it loaded; a failure where the compiled core is current but it did not
    load; else a skip naming the Debian packages ``make core`` needs."""
    if kernel is None:
        if compiled.core_status().startswith("compiled"):
            pytest.fail(f"the compiled core is current but the {name} kernel did not load")
        pytest.skip(
            f"no compiled text core: make core builds the {name} kernel (needs gcc, Debian "
            "package gcc, and the Python headers, Debian package python3-dev)"
        )
    return kernel
