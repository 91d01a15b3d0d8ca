"""Request bodies are read ahead, whole, before the app sees the request (issue 18,
item 2): :class:`ReadAhead`, a WSGI middleware.

* The body is read up to the route's own limit: ``MAX_CONTENT_LENGTH`` (64 KiB) for
  every route but ``POST /v1/games/import`` (``MAX_IMPORT_BYTES``, 4 MiB). A body
  sent with ``Transfer-Encoding: chunked`` (no Content-Length) is read up to the
  limit plus one byte and handed on with its Content-Length, so that the app judges
  it as any other body (the same 413, media type, charset and encoding checks); a
  Content-Length over the limit is not read at all (413).
* The body's reads end at the request's read deadline when the server sets one (the
  gunicorn worker of :mod:`service.server` makes ``wsgi.input`` raise
  ``TimeoutError``): 408 ``request-timeout``, and the server closes the connection.
* ``Transfer-Encoding`` other than plain ``chunked`` (``gzip, chunked``, ``identity``
  ...): 501 ``transfer-coding-not-implemented`` (RFC 9112 6.1: a coding the server does
  not implement). gunicorn already refuses what has no framing (a coding not ending
  in chunked, chunked with a Content-Length: 400) and unknown codings (501).

A refusal is decided here and answered by :func:`body_problem`, the app's first
``before_request``, in the request's language.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

from flask import Flask, Response
from werkzeug.exceptions import HTTPException

from service.context import current_request
from service.errors import problem
from service.messages import Message

if TYPE_CHECKING:
    from _typeshed.wsgi import InputStream, StartResponse, WSGIApplication, WSGIEnvironment

IMPORT_ENDPOINT = "records.import_record"
IMPORT_SEGMENT = "import"  # a path without it is not the import's (POST /v1/games/import)
_PROBLEM = "card_referee.body_problem"  # environ key: ("timeout" | "coding", value)


class ReadAhead:
    """The WSGI middleware of the module docstring, for ``flask_app``."""

    def __init__(self, wsgi_app: WSGIApplication, flask_app: Flask):
        self.wsgi_app = wsgi_app
        self.flask_app = flask_app

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        coding = environ.get("HTTP_TRANSFER_ENCODING")
        if coding is not None and coding.strip().lower() != "chunked":
            _refuse(environ, ("coding", coding))
        elif coding is not None or _length(environ):
            try:
                self._read_ahead(environ, chunked=coding is not None)
            except TimeoutError:
                _refuse(environ, ("timeout", None))
        return self.wsgi_app(environ, start_response)

    def _read_ahead(self, environ: WSGIEnvironment, chunked: bool) -> None:
        limit = self._limit(environ)
        stream = environ["wsgi.input"]
        if chunked:
            data = _read_at_most(stream, limit + 1)
            environ["CONTENT_LENGTH"] = str(len(data))
            del environ["HTTP_TRANSFER_ENCODING"]
            environ.pop("wsgi.input_terminated", None)
        else:
            length = _length(environ)
            if length > limit:
                return  # 413, unread
            data = _read_at_most(stream, length)  # fewer: the client left (400)
        environ["wsgi.input"] = io.BytesIO(data)

    def _limit(self, environ: WSGIEnvironment) -> int:
        """The route's body limit: the import's, or every other route's."""
        config = self.flask_app.config
        if IMPORT_SEGMENT not in environ.get("PATH_INFO", ""):
            return config["MAX_CONTENT_LENGTH"]  # not the import's route: no match needed
        try:
            endpoint, _ = self.flask_app.url_map.bind_to_environ(environ).match()
        except HTTPException:
            endpoint = None
        if endpoint == IMPORT_ENDPOINT:
            return config["MAX_IMPORT_BYTES"]
        return config["MAX_CONTENT_LENGTH"]


def _length(environ: WSGIEnvironment) -> int:
    raw = environ.get("CONTENT_LENGTH") or "0"
    return int(raw) if raw.isdigit() else 0  # a malformed one: the server refused it


def _refuse(environ: WSGIEnvironment, why: tuple[Literal["timeout", "coding"], str | None]) -> None:
    """Mark the request refused (:func:`body_problem` answers) and give the app no
    body."""
    environ[_PROBLEM] = why
    environ["wsgi.input"] = io.BytesIO(b"")
    environ["CONTENT_LENGTH"] = "0"
    environ.pop("HTTP_TRANSFER_ENCODING", None)


def _read_at_most(stream: InputStream, size: int) -> bytes:
    out = bytearray()
    while len(out) < size:
        chunk = stream.read(min(64 * 1024, size - len(out)))
        if not chunk:
            break
        out.extend(chunk)
    return bytes(out)


def body_problem() -> Response | None:
    """The refusal :class:`ReadAhead` decided, if any (the app's first
    ``before_request``): 408 ``request-timeout`` or 501
    ``transfer-coding-not-implemented``."""
    why = current_request().environ.get(_PROBLEM)
    if why is None:
        return None
    kind, value = why
    if kind == "timeout":
        return problem(
            408,
            "request-timeout",
            Message(
                "The request did not arrive whole in time: send the headers and the body "
                "within the server's read deadline."
            ),
        )
    return problem(
        501,
        "transfer-coding-not-implemented",
        Message(
            "Transfer-Encoding %(coding)s is not implemented: send the body with "
            "Content-Length, or as Transfer-Encoding: chunked alone.",
            coding=repr(value),
        ),
    )


def init_bodies(app: Flask) -> None:
    """Read bodies ahead on ``app`` and answer the refusals in a ``before_request``
    hook (register it before any hook that looks at the body or the credentials)."""
    # Flask's way to add WSGI middleware: replace the app's wsgi_app method
    app.wsgi_app = ReadAhead(app.wsgi_app, app)  # type: ignore[method-assign]
    app.before_request(body_problem)
