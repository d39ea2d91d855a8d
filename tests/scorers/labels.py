"""Label normalisation for comparing step results with Mastra's (docs/divergences.md row 6)."""

from __future__ import annotations

from typing import Any

LABEL_KEYS = {"verdict", "result", "relevance_level"}


def normalise_labels(value: Any) -> Any:
    """Trim and lower-case every verdict label in a (snake_case) step result."""
    if isinstance(value, dict):
        return {
            k: v.strip().lower() if k in LABEL_KEYS and isinstance(v, str) else normalise_labels(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [normalise_labels(v) for v in value]
    return value
