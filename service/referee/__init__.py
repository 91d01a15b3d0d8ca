"""The game-night app: static HTML, JS modules, CSS and per-language label files served
at ``/referee/`` (no build step, nothing from elsewhere), plus the QR codes of the seats'
share links. The page uses the public API only (see js/).

Files served: index.html, referee.css, js/*.js and lang/*.json of this folder, each with
the page's Content-Security-Policy; any other name is a 404 problem.
"""

from __future__ import annotations

import io
from pathlib import Path

import segno
from flask import Blueprint, Response, abort, request, send_from_directory
from marshmallow import Schema, fields
from marshmallow.validate import Length
from webargs.flaskparser import abort as refuse

from service.api.base import StrictParser

HERE = Path(__file__).resolve().parent
FILES = frozenset(
    ["index.html", "referee.css"]
    + [f"js/{p.name}" for p in (HERE / "js").glob("*.js")]
    + [f"lang/{p.name}" for p in (HERE / "lang").glob("*.json")]
)
# Everything from this origin; the page has no inline script or style.
POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
QR_MAX_CHARS = 1000  # a share link is ~120 characters; a QR code holds at most ~2,900

bp = Blueprint("referee", __name__, url_prefix="/referee")
root = Blueprint("home", __name__)  # the service's own address, for a browser
_parser = StrictParser()


def _to_page(status: int) -> Response:
    """A redirect to the page with an empty body (never Flask's HTML one)."""
    response = Response(status=status, headers={"Location": "/referee/"})
    del response.headers["Content-Type"]  # no body, so no type
    return response


@root.get("/")
def home() -> Response:
    """A browser opening the service's address lands on the game-night app (302 to
    ``/referee/``): a referee at a table types the address, not the page's path. Any
    other client (one that prefers JSON, or takes anything) gets the 404 problem: the
    API lives under ``/v1``."""
    if request.accept_mimetypes.best_match(["application/json", "text/html"]) != "text/html":
        abort(404)
    return _to_page(302)


@root.get("/referee")
def page_without_slash() -> Response:
    """``/referee`` is the page's address too (308 to ``/referee/``, no HTML body)."""
    return _to_page(308)


def _secured(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


def _file(name: str) -> Response:
    return _secured(send_from_directory(HERE, name, max_age=0))


@bp.get("/")
def page() -> Response:
    """The page (index.html)."""
    return _file("index.html")


@bp.get("/<path:name>")
def asset(name: str) -> Response:
    """referee.css, js/<module>.js, lang/<language>.json; any other name is a 404 problem."""
    if name not in FILES:
        abort(404)
    return _file(name)


class QRSchema(Schema):
    """``{"text": "..."}``: what the QR code spells (1 to QR_MAX_CHARS characters)."""

    text = fields.String(required=True, validate=Length(min=1, max=QR_MAX_CHARS))


@bp.post("/qr.svg")
def qr_code() -> Response:
    """A QR code (segno, error correction M, 4-module quiet zone) of ``{"text"}`` as SVG
    (``image/svg+xml``, scalable, dark modules #000 on white). Stateless, no token: the
    page posts a seat's share link here (in the body, never in a URL, so the token in
    the link's fragment reaches no log). A body that is not ``{"text": 1-1000
    characters}`` is a 422 ``invalid-body`` problem, and so is a text too long for one
    QR code (at error correction M, 2,331 bytes of UTF-8: 1,000 characters of three
    bytes each are too many); not JSON: 415/400 as in the API."""
    body = _parser.parse(QRSchema(), location="json")
    try:
        code = segno.make(body["text"], error="m", micro=False)
    except segno.DataOverflowError:
        refuse(422, messages={"json": {"text": ["Too long for one QR code."]}})
    out = io.BytesIO()
    code.save(
        out,
        kind="svg",
        xmldecl=False,
        svgns=True,
        nl=False,
        omitsize=True,
        scale=1,
        border=4,
        dark="#000",
        light="#fff",
        svgclass=None,
        lineclass=None,
    )
    svg = out.getvalue().replace(b"<svg ", b'<svg aria-hidden="true" ', 1)
    response = Response(svg, mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-store"
    return _secured(response)
