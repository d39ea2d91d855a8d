"""run_evals on a Ray cluster (the optional extra ``scorekit[ray]``).

:class:`RayExecutor` implements the :class:`~scorekit.evals.Executor` seam: pass it to
:func:`~scorekit.evals.run_evals` (``executor=RayExecutor("auto", workers=4)``) or use
``scorekit run --executor ray``. Workers rebuild the scorers from their specs, one
:class:`~scorekit.distributed.slots.SlotCoordinator` actor holds the cluster's judge
concurrency limit, and results stream back to the driver's recorder (docs/scale.md).

This package imports without Ray; using :class:`RayExecutor` without it raises a
:class:`~scorekit.errors.ConfigError` naming the extra.
"""

from scorekit.distributed.ray_executor import (
    DEFAULT_BATCH_SIZE,
    ClusterError,
    RayExecutor,
    RayRunStats,
)

__all__ = ["DEFAULT_BATCH_SIZE", "ClusterError", "RayExecutor", "RayRunStats"]
