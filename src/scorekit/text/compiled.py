"""Whether ``scorekit.text`` runs its mypyc-compiled core or its Python sources.

``tools/build_text_core.py`` (``make core``) compiles the completeness modules (term,
lexicon, tagger, post-rules, phrases, elements…) to C extensions with mypyc, and builds the
hand-written C kernels (``_sentiment_kernel.c`` and ``_dice_kernel.c``, the fast paths of
:mod:`scorekit.text.sentiment` and :mod:`scorekit.text.dice`), in
``scorekit/text/_compiled/`` with a manifest of the SHA-256 of every ``scorekit/text/*.py``
and ``*.c`` file and the interpreter's extension suffix. The package loads them (by putting
that folder first on its ``__path__``) only when the manifest matches the files and the
interpreter, so an edited source is never shadowed by a stale build;
``SCOREKIT_PURE_PYTHON=1`` always runs the sources. Both give the same results
(``tests/text/test_compiled_core.py``, ``test_sentiment.py`` and ``test_dice.py`` compare
them); the compiled core takes about two thirds of the sources' time on completeness, and the
kernels less than half on tone and content similarity.
"""

from __future__ import annotations

import hashlib
import json
import os
import sysconfig
from pathlib import Path

__all__ = [
    "COMPILED",
    "PURE_PYTHON_ENV",
    "compiled_folder",
    "core_status",
    "source_digests",
    "unusable_reason",
]

TEXT = Path(__file__).resolve().parent
COMPILED = TEXT / "_compiled"
"""Where the compiled extensions and their ``manifest.json`` are built (never committed)."""
PURE_PYTHON_ENV = "SCOREKIT_PURE_PYTHON"
"""Set to ``1`` to run the Python sources even when a current compiled core is there."""


def source_digests(folder: Path = TEXT) -> dict[str, str]:
    """SHA-256 (hex) of every ``*.py`` and ``*.c`` file directly in ``folder``, by file name."""
    paths = sorted([*folder.glob("*.py"), *folder.glob("*.c")])
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in paths}


def unusable_reason(folder: Path = COMPILED) -> str | None:
    """Why the compiled core in ``folder`` must not be used, or None when it is current.

    Args:
        folder: a build folder (``manifest.json`` and the extensions); its parent holds the
            sources the manifest must match.
    """
    if os.environ.get(PURE_PYTHON_ENV, "") not in ("", "0"):
        return f"{PURE_PYTHON_ENV} is set"
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "no compiled core (make core builds it)"
    if not isinstance(manifest, dict):
        return "the compiled core's manifest is unreadable (make core rebuilds it)"
    if manifest.get("ext_suffix") != sysconfig.get_config_var("EXT_SUFFIX"):
        return "the compiled core is for another interpreter (make core rebuilds it)"
    if manifest.get("sources") != source_digests(folder.parent):
        return "the compiled core is older than the sources (make core rebuilds it)"
    return None


def compiled_folder(folder: Path = COMPILED) -> Path | None:
    """``folder`` when it holds a compiled core built from the current sources, else None."""
    return folder if unusable_reason(folder) is None else None


def core_status() -> str:
    """One line for benchmarks and reports: which core this process runs, and if Python, why."""
    from scorekit.text import tagger

    if str(tagger.__file__).endswith(str(sysconfig.get_config_var("EXT_SUFFIX"))):
        return "compiled (mypyc modules and C kernels)"
    reason = unusable_reason(COMPILED) or "the compiled core was not current at import"
    return f"Python sources ({reason})"
