"""A dataset file's identity, stored with a command-line run so that ``--resume`` checks it.

``--resume`` scores the items of the dataset it is given into the stored run, matched by item
id: given another file by mistake, it would silently merge two datasets into one run. The run
therefore stores its dataset's identity (:func:`dataset_identity`: the resolved path, the size
and the SHA-256 of the content) in its config under :data:`IDENTITY_KEY`, and a resume with a
file of another content is refused (:func:`check_resumed_dataset`) unless
``--resume-other-data`` says it is meant (a corrected copy of the same data, say). A run stored
before identities were kept has none, and any file may resume it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scorekit.errors import ConfigError

__all__ = ["IDENTITY_KEY", "check_resumed_dataset", "dataset_identity"]

IDENTITY_KEY = "dataset_identity"
"""The key of a stored run's config that holds its dataset's identity."""

_BLOCK = 1 << 20


def dataset_identity(path: Path, fields: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The identity of a dataset file: ``{"path", "size", "sha256", "fields"}``.

    Args:
        path: the file (read once, in 1 MiB blocks).
        fields: which record field gives each item field (the same file read with another
            mapping is other data).

    Raises:
        OSError: the file cannot be read.
    """
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as handle:
        while block := handle.read(_BLOCK):
            digest.update(block)
            size += len(block)
    return {
        "path": str(path.resolve()),
        "size": size,
        "sha256": digest.hexdigest(),
        "fields": dict(fields or {}),
    }


def check_resumed_dataset(
    stored_config: Mapping[str, Any], identity: Mapping[str, Any], *, run_id: str, allow: bool
) -> None:
    """Refuse to resume a run with a dataset whose content differs from the stored run's.

    Args:
        stored_config: the stored run's config.
        identity: the identity of the dataset given now.
        run_id: the resumed run's id, for the message.
        allow: ``--resume-other-data`` was given: any dataset may resume the run.

    Raises:
        ConfigError: the contents differ and ``allow`` is false (``field="resume"``); the
            message names both files.
    """
    stored = stored_config.get(IDENTITY_KEY) if isinstance(stored_config, Mapping) else None
    if allow or not isinstance(stored, Mapping):
        return
    if stored.get("sha256") != identity["sha256"]:
        raise ConfigError(
            f"run {run_id[:8]} was scored on {stored.get('path')} ({stored.get('size')} bytes); "
            f"{identity['path']} ({identity['size']} bytes) holds other data now, and resuming "
            "would score it into that run. Resume with the data the run was scored on, or add "
            "--resume-other-data if this is meant",
            field="resume",
        )
    was, now = stored.get("fields"), identity.get("fields")
    if isinstance(was, Mapping) and was != now:
        changed = sorted(k for k in {*was, *(now or {})} if was.get(k) != (now or {}).get(k))
        shown = ", ".join(f"{k}: {was.get(k)!r} → {(now or {}).get(k)!r}" for k in changed)
        raise ConfigError(
            f"run {run_id[:8]} read its records with other fields ({shown}); resuming would "
            "score items of the same file read another way into it. Resume with the same "
            "field options, or add --resume-other-data if this is meant",
            field="resume",
        )
