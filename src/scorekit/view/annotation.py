"""Labelling in the viewer, opt in (``scorekit view --annotate``).

Without it the viewer routes ``GET`` only and opens the database read-only. With it, the item
page shows a form per scorer that sets (or changes) the item's human label and a note, next to
the judge's score and reason; a change is a new row of the ``labels`` table
(:mod:`scorekit.store.labels`, source ``"viewer"``), so the history is kept.

Safety: the form carries a token made when the viewer started (a per-session CSRF token,
compared in constant time); a ``POST`` without it, or from a page that names another origin
(its ``Origin`` header), is refused with 403 before anything is written. Another site cannot
read the token: the viewer answers only requests addressed to its own host. The page's
Content-Security-Policy lets forms post to the viewer only (``form-action 'self'``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlencode, urlsplit

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from scorekit.errors import ConfigError
from scorekit.items import check_label
from scorekit.store import Store
from scorekit.store.labels import HumanLabel, add_labels

__all__ = ["Annotator", "label_action"]


@dataclass
class Annotator:
    """What the annotating viewer writes with.

    Attributes:
        store: the results database, opened for writing (the pages still read through the
            read-only one).
        author: who labels (stored with each label), or ``None``.
        token: the session's CSRF token (made at start; every form carries it).
    """

    store: Store
    author: str | None = None
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))


def _same_origin(request: Request) -> bool:
    """Whether the ``Origin`` header, when it names one, is the viewer's own.

    Under the viewer's ``Referrer-Policy: no-referrer`` a browser sends ``Origin: null`` even
    for the viewer's own forms, so an absent or opaque origin is left to the token to decide.
    """
    origin = request.headers.get("origin")
    if origin is None or origin == "null":
        return True
    return urlsplit(origin).netloc == request.headers.get("host", "")


MAX_FORM_BYTES = 65_536
"""The largest label form accepted (a note of 10,000 characters fits several times)."""


async def _form(request: Request) -> dict[str, str]:
    """The URL-encoded form of a ``POST`` (what the page's form sends), each field's first value.

    Raises:
        HTTPException: 415 for another encoding, 413 for a body over :data:`MAX_FORM_BYTES`.
    """
    kind = request.headers.get("content-type", "").split(";")[0].strip()
    if kind != "application/x-www-form-urlencoded":
        raise HTTPException(415, "send the label form as the page does (URL-encoded)")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            raise HTTPException(413, "the form is too large")
    fields = parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)
    return {name: values[0] for name, values in fields.items()}


async def label_action(request: Request) -> Response:
    """``POST /runs/{run}/item/label``: append one human label, then show the item again.

    Form fields: ``token`` (the session's), ``item_id``, ``scorer_id``, ``label`` (0, 1 or a
    number in ``[0, 1]``), ``note`` (optional).

    Raises:
        HTTPException: 403 without the token or from another origin.
        ConfigError: an unknown item or scorer, a label that is not a number in ``[0, 1]``
            (the viewer answers 400 with the message).
    """
    annotator: Annotator | None = getattr(request.app.state, "annotator", None)
    if annotator is None:  # not routed without --annotate; kept as a second lock
        raise HTTPException(405, "the viewer was started read-only")
    form = await _form(request)
    token = form.get("token", "")
    given = token.encode("utf-8", errors="replace")  # bytes: any text compares, none matches
    if not secrets.compare_digest(given, annotator.token.encode()) or not _same_origin(request):
        raise HTTPException(403, "this form did not come from this viewer session")
    run, item_id = request.path_params["run"], form.get("item_id", "")
    scorer_id, value = form.get("scorer_id", ""), form.get("label", "").strip()
    if not value:
        raise ConfigError("choose a label (0, 1, or a number between)", field="label")
    note = form.get("note", "").strip() or None
    label = check_label(value, f"item {item_id!r}: label of {scorer_id!r}")
    add_labels(
        annotator.store,
        run,
        [HumanLabel(item_id, scorer_id, label, note, annotator.author)],
        source="viewer",
    )
    query = urlencode({"id": item_id})
    return RedirectResponse(f"/runs/{run}/item?{query}#label-{scorer_id}", status_code=303)
