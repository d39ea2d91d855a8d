"""Render the list of scorekit's modules, one line each, into ``docs/modules.md``.

Each line names a module of ``src/scorekit`` (package by package, in path order) and the first
line of its docstring, so the list says what every module is for and changes only when a
module is added, moved, removed or re-described. It is written between the marker comments
``<!-- modules:begin -->`` and ``<!-- modules:end -->``.

Usage::

    python tools/module_tree.py            # rewrite the list in docs/modules.md
    python tools/module_tree.py --check    # exit 1 when the list is stale
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "scorekit"
DOC = ROOT / "docs" / "modules.md"
BEGIN = "<!-- modules:begin -->"
END = "<!-- modules:end -->"


def summary(path: Path) -> str:
    """The first line of the module's docstring (``""`` when it has none)."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    lines = doc.strip().splitlines()
    return lines[0].strip() if lines else ""


def render() -> str:
    """The Markdown list: a heading per package, a line per module."""
    out: list[str] = []
    folders = sorted({p.parent for p in PACKAGE.rglob("*.py")}, key=lambda p: p.parts)
    for folder in folders:
        name = folder.relative_to(PACKAGE.parent).as_posix()
        out.append(f"\n**`{name}/`**\n")
        for path in sorted(folder.glob("*.py")):
            out.append(f"- `{path.name}`: {summary(path)}")
    return "\n".join(out).strip() + "\n"


def replaced(text: str, body: str) -> str:
    """``text`` with the part between the markers set to ``body``."""
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[:start] + "\n" + body + text[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the list is stale")
    args = parser.parse_args(argv)
    text = DOC.read_text(encoding="utf-8")
    new = replaced(text, render())
    if args.check:
        if new != text:
            print(f"{DOC.relative_to(ROOT)} is stale: run python tools/module_tree.py")
            return 1
        return 0
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
