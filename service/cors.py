"""Cross-origin calls from browser front ends (CORS), with Flask-Cors.

Off unless ``CORS_ORIGINS`` names the origins allowed (``https://app.example``,
``http://localhost:3000``, comma-separated; ``*`` for any origin). Credentials
(cookies, HTTP auth) are never part of it: the API's bearer tokens travel in the
``Authorization`` header, which a front end sets itself, so ``*`` is safe and an
origin is never reflected with ``Access-Control-Allow-Credentials``.

Every operation answers its preflight (``OPTIONS`` with ``Access-Control-Request-
Method``) before authentication, rate limits or body checks, with the request headers
a client needs allowed and the response headers it needs to read exposed. The event
stream works cross-origin with a stream ticket (EventSource sends no credentials).
"""

from __future__ import annotations

from flask import Flask, Response, current_app, request
from flask_cors import CORS

# request headers a front end sends
ALLOW_HEADERS = (
    "Authorization",
    "Content-Type",
    "If-Match",
    "If-None-Match",
    "Idempotency-Key",
    "Last-Event-ID",
    "Accept-Language",
    "X-API-Key",
    "X-Request-Id",
)
# response headers a front end reads (beyond the CORS-safelisted ones)
EXPOSE_HEADERS = (
    "ETag",
    "Location",
    "Retry-After",
    "Idempotent-Replayed",
    "Content-Language",
    "X-Request-Id",
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
    "WWW-Authenticate",
)
MAX_AGE_SECONDS = 600


def init_cors(app: Flask) -> None:
    """Allow the origins of ``app.config["CORS_ORIGINS"]`` (a tuple; empty: CORS off,
    browsers on other origins are blocked as before)."""
    origins = app.config.get("CORS_ORIGINS") or ()
    if not origins:
        return
    app.before_request(_preflight)
    if "*" not in origins:  # the answer depends on Origin (allowed or not): caches key on it
        app.after_request(_vary_on_origin)
    CORS(
        app,
        origins="*" if "*" in origins else list(origins),
        allow_headers=list(ALLOW_HEADERS),
        expose_headers=list(EXPOSE_HEADERS),
        methods=["GET", "HEAD", "POST", "OPTIONS"],
        supports_credentials=False,
        max_age=MAX_AGE_SECONDS,
        vary_header=True,
        send_wildcard="*" in origins,
    )


def _preflight() -> Response | None:
    """A CORS preflight (``OPTIONS`` with ``Access-Control-Request-Method``) is answered
    here, 200 with no body, before any hook asks for a token, a JSON body or a rate
    limit; Flask-Cors adds its headers (or none, for an origin not allowed)."""
    if request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
        response = current_app.make_default_options_response()
        response.status_code = 204
        del response.headers["Content-Type"]  # no body: no type (not text/html)
        return response
    return None


def _vary_on_origin(response: Response) -> Response:
    response.vary.add("Origin")
    return response
