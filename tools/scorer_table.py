"""Render the table of built-in scorers from the registry into the docs that list them.

The table (name, id, kind, what it measures, options) is generated from each scorer module's
``ENTRY`` and its factory's signature, and written between the marker comments
``<!-- scorers:begin -->`` and ``<!-- scorers:end -->``. Only built-ins are listed: a scorer
package installed on this machine (entry points) never changes the docs.

Usage::

    python tools/scorer_table.py            # rewrite the tables in README.md and docs/scorers.md
    python tools/scorer_table.py --check    # exit 1 when a table is stale
    python tools/scorer_table.py FILE ...   # other files holding the markers
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scorekit.scorers.registry import SCORERS

ROOT = Path(__file__).resolve().parents[1]
BEGIN = "<!-- scorers:begin -->"
END = "<!-- scorers:end -->"
DEFAULT_FILES = (ROOT / "README.md", ROOT / "docs" / "scorers.md")


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render() -> str:
    """The Markdown table of the built-in scorers, in listing order."""
    lines = [
        "| name | id | kind | measures | options |",
        "|---|---|---|---|---|",
    ]
    for entry in SCORERS.values():
        options = ", ".join(
            f"`{option.name}`" for option in entry.options() if option.name != "model"
        )
        lines.append(
            f"| `{entry.name}` | `{entry.scorer_id}` | {entry.kind} | {_cell(entry.summary)} "
            f"| {options or '-'} |"
        )
    return "\n".join(lines)


def rewrite(text: str, table: str, *, where: str) -> str:
    """``text`` with the block between the markers replaced by ``table``."""
    start = text.find(BEGIN)
    end = text.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"{where}: no {BEGIN} ... {END} block")
    return f"{text[: start + len(BEGIN)]}\n{table}\n{text[end:]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="files holding the markers")
    parser.add_argument("--check", action="store_true", help="fail when a table is stale")
    args = parser.parse_args(argv)
    table = render()
    stale = []
    for path in args.files or DEFAULT_FILES:
        text = path.read_text(encoding="utf-8")
        updated = rewrite(text, table, where=str(path))
        if updated == text:
            continue
        if args.check:
            stale.append(path)
        else:
            path.write_text(updated, encoding="utf-8")
            print(f"updated {path}")
    for path in stale:
        print(
            f"{path}: the scorer table is stale; run python tools/scorer_table.py",
            file=sys.stderr,
        )
    return 1 if stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
