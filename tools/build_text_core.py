"""Compile the text core: the completeness modules (:data:`MODULES`) with mypyc, and the C kernels.

The completeness scorer spends its time in thirteen pure-Python modules of ``scorekit.text``
(:data:`MODULES`). mypyc (part of mypy, already a pinned dev dependency) compiles them, as
they are, to C extensions about 1.5 times as fast; the Python sources stay the reference and
the fallback. The extensions go to ``src/scorekit/text/_compiled/`` (never committed) with
``manifest.json``: the SHA-256 of every ``scorekit/text/*.py`` file and the interpreter's
extension suffix. ``scorekit.text`` loads the extensions only while the manifest matches the
sources and the interpreter (:mod:`scorekit.text.compiled`), so an edited source is never
shadowed by a stale build: it runs as Python until the next build.

The hand-written C kernels (:data:`KERNELS`, ``scorekit/text/<name>.c``) are built in the same
step and loaded the same way; their Python modules fall back to their own Python code when a
kernel is not there.

Run by ``make core`` (a step of ``make test`` and ``make demo``). Without a C compiler or the
Python headers it builds nothing, says why and exits 0 (scorekit then runs its Python
sources); a failed compilation exits 1.

Usage: ``python tools/build_text_core.py [--clean]``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from scorekit.text.compiled import COMPILED as OUT  # noqa: E402 - after the path
from scorekit.text.compiled import TEXT, source_digests  # noqa: E402

MODULES = (
    *("term", "lexicon", "ruledata", "whitespace", "tokens", "acronyms", "contractions"),
    *("tagger", "postrules", "rulesearch", "rulematch", "phrases", "elements"),
)
GROUP = "scorekit.text._core"
"""mypyc's shared library for the group: ``scorekit/text/_core__mypyc`` beside the modules."""
_MYPY_CONFIG = """\
[mypy]
follow_imports = skip
[mypy-scorekit.text.*]
follow_imports = normal
ignore_errors = True
[mypy-{compiled}]
ignore_errors = False
"""
"""mypy's analysis for mypyc: ``scorekit.text`` only, and errors only in the compiled modules.
These import nothing else of scorekit; following ``scorekit/__init__.py`` into the judge, the
SDKs and pydantic made the analysis 20 times as long (141 s against 7 s). Standard-library
stubs are still read; third-party packages are not, so an uncompiled module that uses one
(``dice`` and numpy) is not judged here (``mypy src`` checks it, strict)."""

KERNELS = ("_sentiment_kernel", "_dice_kernel")
"""Hand-written C extensions of ``scorekit.text`` (``<name>.c`` beside the sources), each the
fast path of a Python module that keeps the same computation as its reference and fallback."""

_SETUP = """
import sys
from setuptools import Extension, setup
from mypyc.build import mypycify
paths, target = sys.argv[1:-5], sys.argv[-5]
kernels = [Extension("scorekit.text." + name, [sys.argv[-4] + "/" + name + ".c"],
                     extra_compile_args=["-O2"]) for name in {kernels!r}]
sys.argv = [sys.argv[0], "build_ext", "--build-lib", sys.argv[-3], "--build-temp", sys.argv[-2],
            "--parallel", sys.argv[-1]]
setup(name="scorekit-text-core", ext_modules=mypycify(paths, group_name={group!r},
      target_dir=target) + kernels)
"""


def missing_toolchain() -> str | None:
    """Why no extension can be built here (no C compiler, no Python headers), or None."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler}; Debian package gcc)"
    header = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not header.is_file():
        return f"no Python headers ({header}; Debian package python3-dev)"
    return None


def build() -> int:
    reason = missing_toolchain()
    if reason is not None:
        print(f"text core: not compiled, {reason}; scorekit runs its Python sources")
        return 0
    before = source_digests()
    with tempfile.TemporaryDirectory(prefix="scorekit-core-") as tmp:
        work = Path(tmp)
        setup = work / "setup.py"
        setup.write_text(_SETUP.format(group=GROUP, kernels=KERNELS), encoding="utf-8")
        config = work / "mypy.ini"
        compiled = ",".join(f"scorekit.text.{name}" for name in MODULES)
        config.write_text(_MYPY_CONFIG.format(compiled=compiled), encoding="utf-8")
        paths = [f"--config-file={config}", *(str(TEXT / f"{name}.py") for name in MODULES)]
        lib = work / "lib"
        args = [str(work / "c"), str(TEXT), str(lib), str(work / "temp"), str(os.cpu_count() or 1)]
        print(
            f"text core: compiling {', '.join(MODULES)} with mypyc and {', '.join(KERNELS)} "
            "(about a minute)"
        )
        done = subprocess.run(
            [sys.executable, str(setup), *paths, *args],
            cwd=work,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
            print("text core: compilation failed (above)", file=sys.stderr)
            return 1
        built = sorted((lib / "scorekit" / "text").glob("*" + _suffix()))
        wanted = len(MODULES) + 1 + len(KERNELS)  # the modules, mypyc's group library, the kernels
        if len(built) != wanted:
            print(f"text core: expected {wanted} extensions, got {built}", file=sys.stderr)
            return 1
        if source_digests() != before:
            print("text core: the sources changed while compiling; run again", file=sys.stderr)
            return 1
        shutil.rmtree(OUT, ignore_errors=True)
        OUT.mkdir()
        for path in built:
            shutil.copy2(path, OUT / path.name)
    manifest = {
        "ext_suffix": _suffix(),
        "mypy": _mypy_version(),
        "modules": list(MODULES),
        "kernels": list(KERNELS),
        "sources": before,
    }
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(f"text core: compiled to {OUT.relative_to(ROOT)}")
    return 0


def _suffix() -> str:
    return str(sysconfig.get_config_var("EXT_SUFFIX"))


def _mypy_version() -> str:
    from mypy.version import __version__

    return str(__version__)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clean", action="store_true", help="remove the compiled core only")
    if parser.parse_args().clean:
        shutil.rmtree(OUT, ignore_errors=True)
        print(f"text core: removed {OUT.relative_to(ROOT)}")
        return 0
    return build()


if __name__ == "__main__":
    sys.exit(main())
