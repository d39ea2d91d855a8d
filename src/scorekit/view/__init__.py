"""The local web viewer over the results database (``scorekit view``).

Server-rendered pages (Starlette, Jinja2) over the store, read-only: the runs, a run with its
summary, histograms and items (paged, sorted and filtered in SQL), one item with every scorer's
result, and two runs compared. Assets ship in the package; the pages request nothing from any
other host. Needs the optional extra: ``pip install "scorekit[view]"``.

- :mod:`~scorekit.view.database`: the database opened read-only;
- :mod:`~scorekit.view.queries`, :mod:`~scorekit.view.comparison`: the reads, one page each;
- :mod:`~scorekit.view.params`: query parameters → filters;
- :mod:`~scorekit.view.pages`, :mod:`~scorekit.view.templating`: the pages and their templates;
- :mod:`~scorekit.view.app`: the application, its safety headers and error pages.
"""

from __future__ import annotations

try:
    import starlette  # noqa: F401
except ImportError as exc:  # pragma: no cover - the extra is installed in development
    raise ImportError('the web viewer needs the view extra: pip install "scorekit[view]"') from exc

from scorekit.view.app import create_app
from scorekit.view.database import ViewDatabase

__all__ = ["ViewDatabase", "create_app"]
