"""Regenerate constraints.txt: exact pins for every supported Python, with markers.

For each interpreter given (default: python3.10 and python3.11), a throw-away venv installs
scorekit with the extras named in EXTRAS, unconstrained, and ``pip freeze`` records what was
resolved. Versions that agree become one plain pin; versions that differ get a
``python_version`` marker each. Run from the repository root:

    python3 tools/lock_constraints.py [python3.10 python3.11 ...]
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

EXTRAS = "dev,local,anthropic,multilingual,otel,pandas,view,postgres,ray"
HEADER = """\
# Exact versions for `pip install -c constraints.txt -e '.[{extras}]'` (the Makefile does this).
# Made by tools/lock_constraints.py: `pip freeze` on each supported Python; where versions
# differ, each pin carries a python_version marker.
"""


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def freeze(python: str, extras: str) -> tuple[str, dict[str, tuple[str, str]]]:
    """Resolve in a fresh venv; return (``major.minor``, normalised name -> (name, version))."""
    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip"]
        subprocess.run(
            [*pip, "install", "-q", "--disable-pip-version-check", f".[{extras}]"], check=True
        )
        version = subprocess.run(
            [
                str(venv / "bin" / "python"),
                "-c",
                "import sys; print(f'{sys.version_info[0]}.{sys.version_info[1]}')",
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        lines = subprocess.run(
            # --all: setuptools too (make core builds with it); pip itself is not pinned
            [*pip, "freeze", "--all", "--exclude-editable", "--exclude", "pip"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.splitlines()
    pins = {}
    for line in lines:
        if "==" in line and not line.lower().startswith("scorekit"):
            name, pinned = line.split("==", 1)
            pins[_normalise(name)] = (name, pinned)
    return version, pins


def merge(resolved: list[tuple[str, dict[str, tuple[str, str]]]]) -> list[str]:
    """One line per package and distinct version, with markers where versions differ."""
    resolved.sort(key=lambda item: tuple(int(p) for p in item[0].split(".")))
    names = sorted({key for _, pins in resolved for key in pins})
    out = []
    for key in names:
        versions = [(py, pins.get(key)) for py, pins in resolved]
        present = {pin for _, pin in versions if pin is not None}
        if len(present) == 1 and all(pin is not None for _, pin in versions):
            name, pinned = present.pop()
            out.append(f"{name}=={pinned}")
            continue
        for py, pin in versions:
            if pin is not None:
                out.append(f'{pin[0]}=={pin[1]}; python_version == "{py}"')
    return out


def main() -> None:
    """Lock for the interpreters named on the command line and write constraints.txt."""
    pythons = sys.argv[1:] or ["python3.10", "python3.11"]  # full paths work too (pyenv)
    resolved = [freeze(python, EXTRAS) for python in pythons]
    newest = max(resolved, key=lambda item: tuple(int(p) for p in item[0].split(".")))[0]
    lines = merge(resolved)
    # the newest Python's pins also serve every newer one
    lines = [
        line.replace(f'python_version == "{newest}"', f'python_version >= "{newest}"')
        for line in lines
    ]
    Path("constraints.txt").write_text(
        HEADER.format(extras=EXTRAS) + "\n" + "\n".join(lines) + "\n", encoding="utf-8"
    )
    print(f"constraints.txt: {len(lines)} pins for Python {', '.join(py for py, _ in resolved)}")


if __name__ == "__main__":
    main()
