"""``scorekit view``: the local web viewer over the results database.

Opens the database read-only first (a missing, unreadable or foreign database is a usage error,
exit 2, before any port is opened), then listens on ``--host`` (127.0.0.1 by default: this
machine only) and ``--port`` and serves until Ctrl-C. The web framework (Starlette, uvicorn) is
the optional extra ``view``, imported only here.
"""

from __future__ import annotations

import socket
from typing import Annotated

import typer

from scorekit.cli import exit_codes
from scorekit.cli.commands.common import DbOption, app, err, fail, out
from scorekit.errors import ConfigError, ScorekitError
from scorekit.store import Store

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "listen", "view"]

DEFAULT_HOST = "127.0.0.1"
"""The address ``scorekit view`` binds unless ``--host`` says otherwise: this machine only."""

DEFAULT_PORT = 8088
"""The port ``scorekit view`` listens on unless ``--port`` says otherwise."""

_LOCAL = ("127.0.0.1", "localhost", "::1")


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host:port`` (port 0: any free port).

    Raises:
        ConfigError: the address cannot be used (taken, not this machine's, no permission);
            ``field="port"`` or ``"host"``.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ConfigError(f"--host {host}: {exc.strerror}", field="host") from exc
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise ConfigError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}", field="port"
        ) from exc
    return sock


def _browser_host(host: str) -> str:
    if host in ("0.0.0.0", "::", ""):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


@app.command()
def view(
    db: DbOption = None,
    host: Annotated[
        str, typer.Option(help="Address to listen on; 127.0.0.1 serves this machine only")
    ] = DEFAULT_HOST,
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="Port to listen on (0: any free port)")
    ] = DEFAULT_PORT,
    annotate: Annotated[
        bool,
        typer.Option(
            "--annotate", help="Let the item pages set human labels (appended to the database)"
        ),
    ] = False,
    author: Annotated[
        str | None, typer.Option(help="With --annotate: who labels, stored with each label")
    ] = None,
) -> None:
    """Browse the stored runs in a web browser: runs, items, comparisons.

    Read-only, unless --annotate lets the item pages set human labels.
    """
    try:
        import uvicorn

        from scorekit.view import ViewDatabase, create_app
    except ImportError as exc:
        raise fail(
            ConfigError(f'scorekit view needs the view extra: pip install "scorekit[view]" ({exc})')
        ) from exc
    from scorekit.view.annotation import Annotator

    if author is not None and not annotate:
        raise fail(ConfigError("--author names who labels: give it with --annotate"))
    annotator = None
    try:
        database = ViewDatabase(db)
        if annotate:  # a second, writable connection for the labels only
            annotator = Annotator(Store(db, create=False), author)
    except ScorekitError as exc:
        raise fail(exc) from exc
    hosts = ["127.0.0.1", "localhost"] if host in _LOCAL else ["*"]
    try:
        sock = listen(host, port)
    except ConfigError as exc:
        database.close()
        if annotator is not None:
            annotator.store.close()
        raise fail(exc) from exc
    bound_port = sock.getsockname()[1]
    if host not in _LOCAL:
        err().print(
            f"[yellow]note:[/yellow] listening on {host}: other machines can read every stored "
            "run (inputs, outputs, prompts); the viewer has no login"
        )
    url = f"http://{_browser_host(host)}:{bound_port}/"
    mode = "annotating: item pages write human labels" if annotate else "read-only"
    out().print(
        f"scorekit view: {url} (database {database.url}, {mode}; Ctrl-C stops)",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    application = create_app(database, allowed_hosts=hosts, annotator=annotator)
    server = uvicorn.Server(uvicorn.Config(application, log_level="warning", access_log=False))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it stopped on: the normal end
        pass
    finally:
        sock.close()
        database.close()
        if annotator is not None:
            annotator.store.close()
    raise typer.Exit(exit_codes.OK)
