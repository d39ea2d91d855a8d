"""The exit codes of the ``scorekit`` command line: one table, used by every command.

======  ==================================================================================
code    meaning
======  ==================================================================================
0       success: the command did its work; for ``run``, the run finished and its verdict
        passed
1       ``run`` finished and its verdict failed: a scorer got no ``ok`` result, missed its
        threshold, or had more errors than its ``max_error_rate``
2       a usage error, found before anything is scored or stored: a bad option or config
        field, a missing file, field or column (``--correlate`` too), a dataset without
        records, an unknown scorer or run (or a name that matches several runs), a database
        that cannot be opened or, for the reading commands, does not exist
3       ``run`` began but could not finish: the data source raised, or the database could no
        longer be written; what finished is stored, the run is marked ``failed``
4       ``run`` was stopped by its judge budget (``--max-judge-calls``, ``--max-judge-tokens``,
        ``--max-cost``): what finished is stored, the run is marked ``interrupted`` with a
        failed verdict; ``--resume RUN`` with a larger budget scores what is left
130     ``run`` was interrupted by Ctrl-C: what finished is stored, the run is marked
        ``interrupted`` (no verdict); ``--resume RUN`` continues it
======  ==================================================================================
"""

from __future__ import annotations

__all__ = ["BUDGET", "FAILED", "INTERRUPTED", "OK", "STOPPED", "USAGE"]

OK = 0
"""Success; ``run``: the verdict passed."""
FAILED = 1
"""``run`` finished and its verdict failed."""
USAGE = 2
"""A usage error, before anything is scored or stored."""
STOPPED = 3
"""``run`` began but stopped on an error (the data source, the database)."""
BUDGET = 4
"""``run`` was stopped by its judge budget (resumable; the verdict failed)."""
INTERRUPTED = 130
"""``run`` was interrupted by Ctrl-C (128 + SIGINT, the shell's convention)."""
