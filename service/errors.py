"""RFC 9457 problem details for every error the service returns.

Every 4xx/5xx leaves as ``application/problem+json``::

    {"type": "https://card-referee.dev/problems/<code>", "title": "...",
     "status": 422, "detail": "...", "code": "<code>", "rule": "SQ-T1", "errors": {...}}

``errors`` is present for body/query validation failures (field -> messages).
Rule engines raise :class:`service.games.RuleViolation`; the API turns it into a
problem with the violation's ``code`` and ``rule`` via :func:`problem`.

``rule`` (G-R1) is the rule ID the refusal applies, present whenever a game rule
decided it (every engine refusal, invalid options, the checks' input errors, a seat
token acting for another seat); problems about the request itself (media type, JSON,
size, tokens, versions, idempotency keys, rate limits, the database) have none: no rule
of any game applies to them. ``type`` is the code's page (``GET /problems/<code>``
serves it; docs/PROBLEMS.md lists every code).

Languages (:mod:`service.i18n`): ``title`` and ``detail`` are worded as
:class:`~service.messages.Message` and sent in the request's language; ``code``,
``rule`` and ``type`` never change. A body from :func:`problem_body` is plain JSON that
can be stored (an idempotency record keeps a refusal's): the English ``detail`` plus,
under :data:`MESSAGE_KEY`, its message id and values, so that :func:`problem_response`
words it again in the language of whichever request sends it.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Response
from werkzeug.exceptions import HTTPException
from werkzeug.http import HTTP_STATUS_CODES

from service.i18n import localize, translate
from service.messages import Message

PROBLEM_MIMETYPE = "application/problem+json"
TYPE_BASE = "https://card-referee.dev/problems/"
MESSAGE_KEY = "_detail"  # a stored problem's translatable detail; never sent

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

# The title of each status (RFC 9110's reason phrases), translated like every detail.
TITLES = {
    400: Message("Bad Request"),
    401: Message("Unauthorized"),
    403: Message("Forbidden"),
    404: Message("Not Found"),
    405: Message("Method Not Allowed"),
    406: Message("Not Acceptable"),
    408: Message("Request Timeout"),
    409: Message("Conflict"),
    412: Message("Precondition Failed"),
    413: Message("Request Entity Too Large"),
    415: Message("Unsupported Media Type"),
    422: Message("Unprocessable Entity"),
    428: Message("Precondition Required"),
    429: Message("Too Many Requests"),
    500: Message("Internal Server Error"),
    501: Message("Not Implemented"),
    503: Message("Service Unavailable"),
}

# The detail of a problem raised without one (werkzeug's own descriptions are English).
DETAILS = {
    400: Message("The request is malformed."),
    401: Message("Authentication is required."),
    403: Message("This is not allowed with these credentials."),
    404: Message("Nothing is found at this URL."),
    405: Message("This method is not allowed for this URL."),
    406: Message("The service cannot answer in a media type this request accepts."),
    409: Message("The request conflicts with the current state."),
    412: Message("A precondition of the request failed."),
    413: Message("The request body is larger than the service accepts."),
    415: Message("Send the body as application/json."),
    422: Message("The request does not match the schema: see errors."),
    428: Message("This request must be conditional."),
    429: Message("Too many requests; retry later."),
    500: Message("The service failed to handle this request."),
    503: Message("The service is unavailable; retry shortly."),
}


def title(status: int) -> Message | str:
    """The title of a problem with ``status``."""
    return TITLES.get(status) or HTTP_STATUS_CODES.get(status, "Error")


def problem_body(
    status: int, code: str | None = None, detail: str | None = None, **extra: Any
) -> dict[str, Any]:
    """The problem details object ``{"type", "title", "status", "detail", "code", ...}``,
    in English and plain JSON (see the module docstring for :data:`MESSAGE_KEY`).

    ``status``: HTTP status; ``code``: stable machine code (defaults from status);
    ``detail``: the sentence for people, a :class:`Message` wherever the code words it
    (default: the status's); ``extra``: more members (``rule``, ``errors``,
    ``version``...; None values are left out).
    """
    code = code or _HTTP_CODES.get(status, "error")
    detail = detail or DETAILS.get(status) or title(status)
    body: dict[str, Any] = {
        "type": TYPE_BASE + code,
        "title": str(title(status)),
        "status": status,
        "detail": str(detail),
        "code": code,
    }
    body.update({k: v for k, v in extra.items() if v is not None})
    if isinstance(detail, Message):
        body[MESSAGE_KEY] = detail.to_json()
    return body


def localized(body: dict[str, Any]) -> dict[str, Any]:
    """A :func:`problem_body` as it is sent: ``title`` and ``detail`` in the request's
    language, :data:`MESSAGE_KEY` removed. A body stored by an earlier release (no
    :data:`MESSAGE_KEY`) keeps its English detail."""
    out = dict(body)
    message = out.pop(MESSAGE_KEY, None)
    out["title"] = translate(title(out["status"]))
    if message is not None:
        out["detail"] = translate(Message.from_json(message))
    if "errors" in out:
        out["errors"] = localize(out["errors"])
    return out


def problem(
    status: int,
    code: str | None = None,
    detail: str | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> Response:
    """A problem+json response with :func:`problem_body` (compact JSON) and ``headers``."""
    return problem_response(status, problem_body(status, code, detail, **extra), headers)


def problem_response(
    status: int, body: dict[str, Any], headers: dict[str, str] | None = None
) -> Response:
    """``body`` (a :func:`problem_body`, or one stored and now replayed) as compact
    application/problem+json with ``status`` and ``headers``, in the request's
    language (:func:`localized`)."""
    response = Response(
        json.dumps(localized(body), separators=(",", ":"), ensure_ascii=False),
        status=status,
        mimetype=PROBLEM_MIMETYPE,
    )
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
    # werkzeug's default descriptions are English: the status's own detail instead
    detail = (
        data.get("detail")
        or data.get("message")
        or (error.description if isinstance(error.description, Message) else None)
    )
    if status >= 500:
        detail = DETAILS[500]
    code = data.get("code")
    if errors and status == 422:
        detail = DETAILS[422]
        if code is None and set(errors) <= {"query", "headers"}:
            code = "invalid-query"
    headers = {}
    if status != 500:  # keep werkzeug's own headers: Allow on 405, Retry-After...
        for name, value in error.get_headers():
            if name.lower() != "content-type":
                headers[name] = value
    headers.update(data.get("headers") or {})
    return problem(
        status, code, detail, headers=headers, errors=errors, **(data.get("extra") or {})
    )
