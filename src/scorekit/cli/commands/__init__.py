"""The commands of ``scorekit`` other than ``run`` (which lives in :mod:`scorekit.cli`).

- :mod:`~scorekit.commands.common`: the Typer ``app``, the consoles, errors → exit codes;
- :mod:`~scorekit.commands.stored`: ``runs``, ``show``, ``compare``, ``report`` (stored runs,
  read without ever creating a database);
- :mod:`~scorekit.commands.listing`: ``scorers`` and ``judges``.

Exit codes: :mod:`scorekit.exit_codes`.
"""
