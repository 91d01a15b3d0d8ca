"""RFC 9457 problem details for every error the service returns.

Every 4xx/5xx leaves as ``application/problem+json``::

    {"type": "https://card-referee.dev/problems/<code>", "title": "...",
     "status": 422, "detail": "...", "code": "<code>", "errors": {...}}

``errors`` is present for body/query validation failures (field -> messages).
Rule engines raise :class:`service.games.RuleViolation`; the API turns it into a
problem with the violation's ``code`` via :func:`problem`.
"""
from __future__ import annotations

import json
from typing import Any

from flask import Response
from werkzeug.exceptions import HTTPException
from werkzeug.http import HTTP_STATUS_CODES

PROBLEM_MIMETYPE = "application/problem+json"
TYPE_BASE = "https://card-referee.dev/problems/"

# Stable machine codes for the HTTP-level errors (rule codes come from the engines).
_HTTP_CODES = {
    400: "bad-request",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    406: "not-acceptable",
    409: "conflict",
    412: "version-mismatch",
    413: "payload-too-large",
    415: "unsupported-media-type",
    422: "invalid-body",
    428: "version-required",
    429: "rate-limited",
    500: "internal-error",
    503: "unavailable",
}


def problem_body(status: int, code: str | None = None, detail: str | None = None,
                 **extra: Any) -> dict[str, Any]:
    """The problem details object ``{"type", "title", "status", "detail", "code", ...}``.

    ``status``: HTTP status; ``code``: stable machine code (defaults from status);
    ``detail``: human sentence; ``extra``: more members (``errors``, ``version``...;
    None values are left out).
    """
    code = code or _HTTP_CODES.get(status, "error")
    body: dict[str, Any] = {
        "type": TYPE_BASE + code,
        "title": HTTP_STATUS_CODES.get(status, "Error"),
        "status": status,
        "detail": detail or HTTP_STATUS_CODES.get(status, "Error"),
        "code": code,
    }
    body.update({k: v for k, v in extra.items() if v is not None})
    return body


def problem(status: int, code: str | None = None, detail: str | None = None,
            headers: dict[str, str] | None = None, **extra: Any) -> Response:
    """A problem+json response with :func:`problem_body` (compact JSON) and ``headers``."""
    return problem_response(status, problem_body(status, code, detail, **extra), headers)


def problem_response(status: int, body: dict[str, Any],
                     headers: dict[str, str] | None = None) -> Response:
    """``body`` (a :func:`problem_body`, or one stored and now replayed) as compact
    application/problem+json with ``status`` and ``headers``."""
    response = Response(json.dumps(body, separators=(",", ":")), status=status,
                        mimetype=PROBLEM_MIMETYPE)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def from_http_exception(error: HTTPException) -> Response:
    """Turn a werkzeug/webargs HTTPException into a problem, keeping its headers.

    webargs' ``abort`` stores validation messages in ``error.data["messages"]``:
    they become ``errors`` (location -> field -> messages); ``error.data["code"]``
    and ``["detail"]`` override the defaults when our own code aborts.
    """
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    errors = data.get("messages")
    detail = data.get("detail") or data.get("message") or error.description
    if status >= 500:
        detail = "The service failed to handle this request."
    code = data.get("code")
    if errors and status == 422:
        detail = "The request does not match the schema: see errors."
        if code is None and set(errors) <= {"query", "headers"}:
            code = "invalid-query"
    headers = {}
    if status != 500:  # keep werkzeug's own headers: Allow on 405, Retry-After...
        for name, value in error.get_headers():
            if name.lower() != "content-type":
                headers[name] = value
    headers.update(data.get("headers") or {})
    return problem(status, code, detail, headers=headers, errors=errors,
                   **(data.get("extra") or {}))
