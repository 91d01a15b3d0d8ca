"""The referee's page: static HTML, JS and CSS served at ``/referee/`` (no build step,
nothing from elsewhere). It uses the public API only (see referee.js)."""
from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, abort, send_from_directory

HERE = Path(__file__).resolve().parent
FILES = ("index.html", "referee.js", "referee.css")
# Everything from this origin; the page has no inline script or style.
POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
          "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")

bp = Blueprint("referee", __name__, url_prefix="/referee")


def _file(name: str) -> Response:
    response = send_from_directory(HERE, name, max_age=0)
    response.headers["Content-Security-Policy"] = POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


@bp.get("/")
def page() -> Response:
    """The page (index.html)."""
    return _file("index.html")


@bp.get("/<name>")
def asset(name: str) -> Response:
    """referee.js and referee.css; any other name is a 404 problem."""
    if name not in FILES:
        abort(404)
    return _file(name)
