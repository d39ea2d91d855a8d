"""The viewer's Starlette application: routes, static assets, safety headers, error pages.

Safety, by default:

* every response carries a Content-Security-Policy that allows scripts, styles and requests
  from the viewer itself only (``script-src 'self'``: no inline script, no ``eval``, no other
  host), so a ``<script>`` in the data could not run even if it escaped the templates (they
  escape everything);
* requests must name the host the viewer was started on (``Host: 127.0.0.1:8088``), which
  stops a web page elsewhere from reading the viewer through DNS rebinding;
* only ``GET`` and ``HEAD`` are routed: nothing can change the database; the one exception
  is opt in (``scorekit view --annotate``, :mod:`scorekit.view.annotation`): a ``POST`` that
  appends a human label, guarded by a per-session CSRF token.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from scorekit.errors import ConfigError, StoreError
from scorekit.view import pages
from scorekit.view.annotation import Annotator, label_action
from scorekit.view.database import ViewDatabase
from scorekit.view.templating import environment

__all__ = ["CONTENT_SECURITY_POLICY", "SecurityHeaders", "create_app"]

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
"""What the pages may load: the viewer's own scripts, styles and data, nothing inline."""

_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class SecurityHeaders:
    """ASGI middleware: adds the Content-Security-Policy and its companions to every response.

    Args:
        app: the application to wrap.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on; add the headers to the response's start."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)


def _error_page(request: Request, status: int, title: str, message: str) -> Response:
    page = request.app.state.templates.get_template("error.html.j2")
    html = page.render(
        db_url=request.app.state.database.url,
        path=request.url.path,
        title=title,
        message=message,
        status=status,
        live=None,
    )
    return HTMLResponse(html, status_code=status)


async def _bad_request(request: Request, exc: Exception) -> Response:
    return _error_page(request, 400, "Bad request", str(exc))


async def _store_error(request: Request, exc: Exception) -> Response:
    # a run named in the address that does not exist (or is ambiguous) is 404; a database
    # that fails to answer is 503, with its cause
    if isinstance(exc, StoreError) and exc.run_id is not None:
        return _error_page(request, 404, "No such run", str(exc))
    return _error_page(request, 503, "The database cannot be read", str(exc))


async def _http_error(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    detail = exc.detail if isinstance(exc, HTTPException) else "error"
    return _error_page(request, status, f"{status}", str(detail))


def create_app(
    database: ViewDatabase | str | Path | None = None,
    *,
    allowed_hosts: Sequence[str] = ("127.0.0.1", "localhost"),
    annotator: Annotator | None = None,
) -> Starlette:
    """The viewer over a results database.

    Args:
        database: an open :class:`~scorekit.view.database.ViewDatabase`, or what ``--db``
            takes (``None``: ``.scorekit/scorekit.db``); it is opened read-only.
        allowed_hosts: the host names requests may address (``Host`` header, without the
            port); ``["*"]`` allows any.
        annotator: labelling on (:class:`~scorekit.view.annotation.Annotator`: the writable
            store, the author, the session's token); ``None``: strictly read-only.

    Returns:
        The ASGI application; serve it with uvicorn (``scorekit view`` does).

    Raises:
        StoreError: the database does not exist, cannot be read or holds no scorekit runs.
    """
    db = database if isinstance(database, ViewDatabase) else ViewDatabase(database)
    routes = [
        Route("/", pages.runs_page, methods=["GET"]),
        Route("/runs/{run}", pages.run_page, methods=["GET"]),
        Route("/runs/{run}/item", pages.item_page, methods=["GET"]),
        Route("/compare", pages.compare_page, methods=["GET"]),
        Route("/compare/item", pages.compare_item_page, methods=["GET"]),
        Route("/progress", pages.progress_data, methods=["GET"]),
        *(
            [Route("/runs/{run}/item/label", label_action, methods=["POST"])]
            if annotator is not None
            else []
        ),
        Mount("/static", StaticFiles(packages=[("scorekit.view", "static")]), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(SecurityHeaders),
            Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)),
        ],
        exception_handlers={
            ConfigError: _bad_request,
            StoreError: _store_error,
            HTTPException: _http_error,
        },
    )
    app.state.database = db
    app.state.annotator = annotator
    app.state.templates = environment()
    return app
