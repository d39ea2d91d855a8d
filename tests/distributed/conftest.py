"""The Ray tests' cluster: one local Ray instance for the package, started and stopped here.

``ray.init(num_cpus=2)`` on 127.0.0.1 (the machine's 2 cores), no dashboard, the repository
root on the workers' ``PYTHONPATH`` (they import the scorers and targets of
``tests.distributed.factories``). Without Ray every test here skips, naming the extra.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="package")
def ray_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The ``ray`` module, connected to a local cluster of 2 CPUs for the package's tests."""
    ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'scorekit[ray]'")
    if ray.is_initialized():
        ray.shutdown()
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        _temp_dir=str(tmp_path_factory.mktemp("ray")),
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "src")])}},
    )
    try:
        yield ray
    finally:
        ray.shutdown()
