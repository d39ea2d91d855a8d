"""The commands of ``scorekit`` other than ``run`` (which lives in :mod:`scorekit.cli`).

- :mod:`~scorekit.cli.commands.common`: the Typer ``app``, the consoles, errors → exit codes;
- :mod:`~scorekit.cli.commands.stored`: ``runs``, ``show``, ``compare``, ``report`` (stored runs,
  read without ever creating a database);
- :mod:`~scorekit.cli.commands.listing`: ``scorers`` and ``judges``.

Exit codes: :mod:`scorekit.cli.exit_codes`.
"""

from __future__ import annotations

__all__: list[str] = []  # nothing re-exported: import from the modules named above
