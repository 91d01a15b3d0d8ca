"""Card Referee: a REST API that referees the sequence family of table games.

``create_app(config=None)`` is the application factory; gunicorn serves
``'service:create_app()'``.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from service.config import SECRET_ENV, secret_key, settings

if TYPE_CHECKING:  # imported by create_app: the gunicorn master imports this package
    from flask import Flask  # (for service.server) and must not import Flask
    from flask.sessions import SessionInterface


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the Flask app: settings from the environment (:func:`service.config.
    settings`), then ``config`` over them (tests pass DATABASE_URL...).

    ``SECRET_KEY`` (from ``CARD_REFEREE_SECRET``) signs stream tickets; without it the
    app draws a random key, valid in this process only (logged outside tests)."""
    from service.api import init_api
    from service.api.base import MAX_BODY_BYTES
    from service.cli import purge_command
    from service.cors import init_cors
    from service.i18n import init_i18n
    from service.limits import init_limits
    from service.observability import init_observability

    app = _referee_app(__name__)
    app.config.update(
        **settings(),
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        API_TITLE="Card Referee",
        API_VERSION="v1",
        OPENAPI_VERSION="3.0.3",
        API_SPEC_OPTIONS={
            "servers": [{"url": "http://127.0.0.1:8000", "description": "make serve (local)"}]
        },
        JSON_SORT_KEYS=False,
        SECRET_KEY=secret_key(),
    )
    app.config.update(config or {})
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = secrets.token_hex(32)
        if not app.testing:
            logging.getLogger(__name__).warning(
                "%s is not set: stream tickets are valid in this process only", SECRET_ENV
            )
    # no cookie sessions: every client names itself by a bearer token or a signed
    # stream ticket, so Flask's signed-cookie session (a serializer built and a cookie
    # read on every request) is replaced by its null session
    app.session_interface = _no_sessions()
    init_observability(app)  # first: its hooks see every request
    init_cors(app)  # before the API's hooks: a preflight needs no token
    init_i18n(app)
    init_api(app)
    init_limits(app)
    app.cli.add_command(purge_command)
    return app


def _referee_app(name: str) -> Flask:
    """A Flask app whose ``ensure_sync`` (Flask's documented override point) hands a
    plain function or method back at once: Flask's own check (``inspect.
    iscoroutinefunction``) runs for each hook and view of every request, about ten
    times. Anything else, an ``async def`` or a partial, goes Flask's way. Its
    requests read ``MAX_CONTENT_LENGTH`` from the app itself, not through Flask's
    ``current_app`` proxy (two proxy reads each time, and a body is measured twice).
    (Imported here, as in :func:`_no_sessions`.)"""
    from inspect import CO_COROUTINE

    from flask import Flask, Request

    class Referee(Flask):
        def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
            code = getattr(func, "__code__", None)  # a method gives its function's
            if code is not None and not code.co_flags & CO_COROUTINE:
                return func
            return super().ensure_sync(func)

    app = Referee(name, static_folder=None)

    class RefereeRequest(Request):
        @property
        def max_content_length(self) -> int | None:
            """This request's own limit if one was set, else the app's setting (as
            Flask's, which finds the app through ``current_app``)."""
            if self._max_content_length is not None:
                return self._max_content_length
            limit: int | None = app.config["MAX_CONTENT_LENGTH"]
            return limit

        @max_content_length.setter
        def max_content_length(self, value: int | None) -> None:
            self._max_content_length = value

    app.request_class = RefereeRequest
    return app


def _no_sessions() -> SessionInterface:
    """A session interface that opens Flask's null session and never saves one
    (imported here: the gunicorn master imports this package without Flask)."""
    from flask.sessions import SessionInterface

    class NoSessions(SessionInterface):
        """Flask's null session on every request; nothing is ever saved."""

        def open_session(self, app: Flask, request: Any) -> Any:
            return self.make_null_session(app)

        def save_session(self, app: Flask, session: Any, response: Any) -> None:
            return None

    return NoSessions()
