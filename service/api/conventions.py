"""The HTTP conventions of the game endpoints: bearer tokens (who the caller is),
versions (ETag, If-Match, If-None-Match), Idempotency-Key, and replies (a stored or
fresh reply as a response). See docs/api.md."""
from __future__ import annotations

import json
import re
from typing import Any

from flask import Response, current_app, g, request
from flask_smorest import abort

from service.errors import problem, problem_response
from service.messages import Message
from service.store import (IdempotencyRequest,
                           Unauthenticated,
                           get_store, request_hash)


BEARER_REALM = 'Bearer realm="card-referee"'


_INVALID_TOKEN = Message("The token is not valid.")


# Integers in queries stay within 64 bits (SQLite's INTEGER; beyond: 422, never a 500
# from the driver); the store clamps further to its columns (32-bit seq on PostgreSQL).
MAX_INTEGER = 2**63 - 1


# all three are used with fullmatch() (a "$" would also match before a final newline)
_KEY_PATTERN = re.compile(r"[\x21-\x7e]{1,255}")


# Ruling: If-Match is one entity-tag as this service issues them: a decimal version in
# quotes, no leading zeros (at most 100 digits: longer is no version, 400). W/ is parsed
# so that a weak tag gets its 412 (strong comparison, RFC 9110 13.1.1), not a 400.
_IF_MATCH = re.compile(r'(W/)?"(0|[1-9][0-9]{0,99})"')


_SEED = re.compile(r"^[0-9a-fA-F]{64}$")  # documented as is: ECMA-262 "$" is end of input


_HEADER_DOCS = {
    "If-Match": {"in": "header", "name": "If-Match",
                 "schema": {"type": "string", "pattern": r'^(\*|(W/)?"(0|[1-9][0-9]{0,99})")$',
                            "example": '"7"'},
                 "description": 'The version the action is based on, as the ETag ("7"); '
                                "or send expected_version in the body. Stale: 412; "
                                'neither, or "*": 428 (optional in the real-time games); '
                                'a weak ETag (W/"7") never matches '
                                "(strong comparison): 412; not a quoted version: 400."},
    "Idempotency-Key": {"in": "header", "name": "Idempotency-Key",
                        "schema": {"type": "string", "minLength": 1, "maxLength": 255,
                                   "pattern": "^[!-~]{1,255}$"},
                        "description": "Same key and body again: the first response "
                                       "again, no second effect. Scoped per game and "
                                       "caller. Another body: 422. Sent again while the "
                                       "first is still running: waits for it, then gets "
                                       "its response. 409 only for a key claimed by the "
                                       "previous release and still running there. 1 to "
                                       "255 visible ASCII characters (else 400 "
                                       "invalid-idempotency-key)."},
    "If-None-Match": {"in": "header", "name": "If-None-Match", "schema": {"type": "string"},
                      "description": "The ETag you hold: 304 while the game is unchanged."},
}


SECURITY: list[dict[str, list[str]]] = [{"bearerAuth": []}]


def _ref(name: str) -> dict:
    """A reference to a schema of service.api.actions (components.schemas)."""
    return {"$ref": f"#/components/schemas/{name}"}


# open unless the operator sets API_KEYS (service.limits)
API_KEY_SECURITY: list[dict[str, list[str]]] = [{}, {"apiKeyAuth": []}]


def _store():
    return get_store(current_app)


def _unauthorized(detail: Message, error: str | None = None) -> Response:
    challenge = BEARER_REALM + (f', error="{error}"' if error else "")
    return problem(401, "unauthorized", detail, headers={"WWW-Authenticate": challenge})


def _not_found() -> Response:
    return problem(404, "game-not-found",
                   Message("No game with that id is open to this token."))


def _authenticate():
    """Resolve the bearer token of every /v1/games/{game_id}... request to an actor."""
    game_id = (request.view_args or {}).get("game_id")
    if game_id is None:
        return None
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if not header:
        return _unauthorized(Message("Send Authorization: Bearer <token>."))
    if scheme.lower() != "bearer" or not token or " " in token:
        return _unauthorized(Message("The Authorization header is not 'Bearer <token>'."),
                             "invalid_request")
    try:
        g.actor = _store().authenticate(game_id, token)
    except Unauthenticated:
        return _unauthorized(_INVALID_TOKEN, "invalid_token")
    return None


def _idempotency(scope: str, actor: str, payload: Any) -> IdempotencyRequest | None:
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not _KEY_PATTERN.fullmatch(key):
        abort(400, code="invalid-idempotency-key",
              detail=Message("Idempotency-Key: 1 to 255 visible ASCII characters."))
    return IdempotencyRequest(scope, actor, key, request_hash(payload))


def _etag(version: int) -> str:
    return f'"{version}"'


def _reply(status: int, body: dict, replayed: bool = False) -> Response:
    """A stored or fresh reply as a response (problem+json for errors)."""
    if status >= 400:
        response = problem_response(status, body)
    else:
        response = current_app.response_class(
            json.dumps(body, separators=(",", ":"), ensure_ascii=False), status=status,
            mimetype="application/json")
        if "version" in body:
            response.headers["ETag"] = _etag(body["version"])
    if replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response


def _etags(header: str) -> set[str]:
    """The ETags of an If-None-Match header, weak or strong (``"3"`` both ways)."""
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}


def _expected_version(action: dict, game_id: str) -> int | None:
    """The version the action is based on: If-Match and/or ``expected_version``; None
    when neither names one (the store refuses that with 428 unless the game is
    real-time).

    Aborts: If-Match not one quoted version, 400 invalid-if-match; a weak ETag, 412
    version-mismatch with the current ``version`` (If-Match uses the strong comparison,
    RFC 9110 13.1.1, and a weak tag never matches it); the two disagreeing, 400
    conflicting-versions (``*`` names no version).
    """
    in_body = action.pop("expected_version", None)
    header = request.headers.get("If-Match")
    in_header = None
    if header is not None and header.strip() != "*":
        match = _IF_MATCH.fullmatch(header.strip())
        if not match:
            abort(400, code="invalid-if-match",
                  detail=Message('If-Match takes the ETag of GET /v1/games/{id}, e.g. "7".'))
        assert match is not None  # abort() raised
        if match.group(1):
            current = _store().read(game_id).version
            abort(412, code="version-mismatch",
                  detail=Message('A weak ETag never satisfies If-Match (strong comparison); '
                                 'the game is at version %(version)s: send If-Match: '
                                 '"%(version)s".', version=current),
                  extra={"version": current})
        in_header = int(match.group(2))
    if in_header is not None and in_body is not None and in_header != in_body:
        abort(400, code="conflicting-versions",
              detail=Message("If-Match and expected_version name different versions."))
    return in_header if in_header is not None else in_body
