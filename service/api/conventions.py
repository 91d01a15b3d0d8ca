"""The game store's HTTP conventions, as code: the bearer token of every
``/v1/games/{game_id}...`` route (:func:`_authenticate`), versions (``ETag``,
``If-None-Match``, ``If-Match`` and ``expected_version``), ``Idempotency-Key`` and the
replies (:func:`_reply`). Their constants and documentation are in
:mod:`service.api.game_schemas`; :mod:`service.api.games` registers them on its
blueprint, and every name stays importable from there.
"""

from __future__ import annotations

from typing import Any

from flask import Response
from webargs.flaskparser import abort  # flask_smorest.abort itself, typed NoReturn

from service import jsontext
from service.context import current_flask, current_g, current_request
from service.api.game_schemas import _IF_MATCH, _INVALID_TOKEN, _KEY_PATTERN, BEARER_REALM
from service.errors import problem, problem_response
from service.messages import Message
from service.store import (
    GameStore,
    IdempotencyRequest,
    Unauthenticated,
    get_store,
    request_hash,
)
from service.store.values import token_check


def _store() -> GameStore:
    return get_store(current_flask())


def _unauthorized(detail: Message, error: str | None = None) -> Response:
    challenge = BEARER_REALM + (f', error="{error}"' if error else "")
    return problem(401, "unauthorized", detail, headers={"WWW-Authenticate": challenge})


def _not_found() -> Response:
    return problem(404, "game-not-found", Message("No game with that id is open to this token."))


ACTION_ENDPOINT = "games.post_action"
# endpoints whose read of the game checks the token in the same statement (its check by
# authenticate may come from memory): an action, the game's view, its legal actions
CHECKED_BY_THE_READ = frozenset({ACTION_ENDPOINT, "games.get_game", "games.get_legal_actions"})


def _authenticate() -> Response | None:
    """Resolve the bearer token of every /v1/games/{game_id}... request to an actor."""
    http = current_request()
    game_id = (http.view_args or {}).get("game_id")
    if game_id is None:
        return None
    header = http.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if not header:
        return _unauthorized(Message("Send Authorization: Bearer <token>."))
    if scheme.lower() != "bearer" or not token or " " in token:
        return _unauthorized(
            Message("The Authorization header is not 'Bearer <token>'."), "invalid_request"
        )
    # the token of an action or of a read of the game may be answered from memory:
    # the store's read of the game checks it again in the same statement (act's and
    # current's ``token``, see checked_token), so a re-issued one is refused there
    checked_again = http.endpoint in CHECKED_BY_THE_READ
    context = current_g()
    try:
        context.actor = _store().authenticate(game_id, token, remembered=checked_again)
    except Unauthenticated:
        return _unauthorized(_INVALID_TOKEN, "invalid_token")
    context.token = token if checked_again else None
    return None


def checked_token() -> tuple[str, str | None] | None:
    """For a view in :data:`CHECKED_BY_THE_READ`: what the store's read of the game
    checks the request's token against (``GameStore.current(..., token=)``)."""
    context = current_g()
    token = context.get("token")
    return None if token is None else token_check(token, context.actor)


def _idempotency(scope: str, actor: str, payload: Any) -> IdempotencyRequest | None:
    key = current_request().headers.get("Idempotency-Key")
    if key is None:
        return None
    if not _KEY_PATTERN.fullmatch(key):
        abort(
            400,
            code="invalid-idempotency-key",
            detail=Message("Idempotency-Key: 1 to 255 visible ASCII characters."),
        )
    return IdempotencyRequest(scope, actor, key, request_hash(payload))


def _etag(version: int) -> str:
    return f'"{version}"'


def _reply(status: int, body: dict[str, Any], replayed: bool = False) -> Response:
    """A stored or fresh reply as a response (problem+json for errors)."""
    if status >= 400:
        response = problem_response(status, body)
    else:
        response = current_flask().response_class(
            jsontext.reply_bytes(body),
            status=status,
            mimetype="application/json",
        )
        if "version" in body:
            response.headers["ETag"] = _etag(body["version"])
    if replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response


def _etags(header: str) -> set[str]:
    """The ETags of an If-None-Match header, weak or strong (``"3"`` both ways)."""
    return {tag.strip().removeprefix("W/") for tag in header.split(",") if tag.strip()}


def _expected_version(action: dict[str, Any], game_id: str) -> int | None:
    """The version the action is based on: If-Match and/or ``expected_version``; None
    when neither names one (the store refuses that with 428 unless the game is
    real-time).

    Aborts: If-Match not one quoted version, 400 invalid-if-match; a weak ETag, 412
    version-mismatch with the current ``version`` (If-Match uses the strong comparison,
    RFC 9110 13.1.1, and a weak tag never matches it); the two disagreeing, 400
    conflicting-versions (``*`` names no version).
    """
    in_body = action.pop("expected_version", None)
    header = current_request().headers.get("If-Match")
    in_header = None
    if header is not None and header.strip() != "*":
        match = _IF_MATCH.fullmatch(header.strip())
        if not match:
            abort(
                400,
                code="invalid-if-match",
                detail=Message('If-Match takes the ETag of GET /v1/games/{id}, e.g. "7".'),
            )
        if match.group(1):
            current = _store().read(game_id).version
            abort(
                412,
                code="version-mismatch",
                detail=Message(
                    "A weak ETag never satisfies If-Match (strong comparison); "
                    "the game is at version %(version)s: send If-Match: "
                    '"%(version)s".',
                    version=current,
                ),
                extra={"version": current},
            )
        in_header = int(match.group(2))
    if in_header is not None and in_body is not None and in_header != in_body:
        abort(
            400,
            code="conflicting-versions",
            detail=Message("If-Match and expected_version name different versions."),
        )
    return in_header if in_header is not None else in_body
