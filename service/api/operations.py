"""Operating a game's record: export, import, seat token recovery (issue 11).

* ``GET /v1/games/{game_id}/export`` (referee): the whole record as one document
  (:mod:`service.store.transfer`: never the seed of an unfinished game);
* ``POST /v1/games/import`` (open like ``POST /v1/games``: the API key when the operator
  set ``API_KEYS``, the creation rate limit): the document re-created under a new id
  with new tokens, once its events replay to its status and view (422 otherwise);
* ``POST /v1/games/{game_id}/seats/{seat}/token`` (referee): a new token for the seat;
  the old one is 401 from then on;
* ``POST /v1/games/{game_id}/referee/token`` (referee): a new referee token, likewise.

Authentication and the store's errors are those of :mod:`service.api.games`.
"""
from __future__ import annotations

from flask import Response, current_app, g, request, url_for
from marshmallow import RAISE, Schema, fields
from marshmallow.validate import Equal, Length, OneOf, Range

from service.api import games
from service.api.actions import GAMES
from service.api.base import Blueprint
from service.errors import problem
from service.games import ENGINE_MODULES, RuleViolation
from service.messages import Message
from service.observability import count_game
from service.store import REFEREE, SeatNotFound, StoreError, Unavailable, get_store
from service.store.transfer import FORMAT, FORMAT_VERSION, ImportRefused, export_game, import_game

blp = Blueprint("records", __name__, url_prefix="/v1/games",
                description="A game's record: export, import, seat token recovery")

blp.before_request(games._authenticate)  # noqa: SLF001 - the same bearer tokens
blp.errorhandler(StoreError)(games._store_error)  # noqa: SLF001
blp.errorhandler(Unavailable)(games._unavailable)  # noqa: SLF001
blp.errorhandler(RuleViolation)(games._rule_violation)  # noqa: SLF001

_NO_STORE_DOC = {"Cache-Control": {"schema": {"type": "string", "example": "no-store"},
                                   "description": "no-store"}}


class GameExportSchema(Schema):
    """A game's whole record (service.store.transfer): what export gives and import
    takes."""

    class Meta:
        unknown = RAISE

    format = fields.String(required=True, validate=Equal(FORMAT),
                           metadata={"example": FORMAT})
    format_version = fields.Integer(required=True, strict=True,
                                    validate=Equal(FORMAT_VERSION))
    id = fields.String(required=True, metadata={"description": "the exported game's id"})
    # checked against the engines at load time, not at import (tests register one)
    game = fields.String(required=True, validate=lambda game: OneOf(ENGINE_MODULES)(game),
                         metadata={"example": "two-way", "enum": list(GAMES)})
    options = fields.Dict(keys=fields.String(), required=True)
    status = fields.String(required=True, metadata={"example": "finished"})
    version = fields.Integer(required=True, strict=True, validate=Range(min=1))
    seed_commitment = fields.String(required=True)
    seed = fields.String(metadata={"description": "only in a finished game's export"})
    from_position = fields.Boolean(metadata={
        "description": "true: the game started from a stated position (G-P1), not from "
                       "a fresh deal of its seed (game-created says so too)"})
    exported_at = fields.String(metadata={"description": "ISO 8601, UTC"})
    events = fields.List(fields.Dict(keys=fields.String()), required=True,
                         validate=Length(min=1), metadata={
                             "description": '{"seq", "type", "seat", ...the engine\'s '
                                            "fields}: seq 1, 2, 3 ..., the first "
                                            "game-created"})
    view = fields.Dict(required=True, metadata={"description": "the referee's view"})


class SeatTokenIssuedSchema(Schema):
    seat = fields.String(required=True)
    token = fields.String(required=True)


class RefereeTokenIssuedSchema(Schema):
    token = fields.String(required=True, metadata={"description": "the new referee token"})


@blp.after_request
def _no_store(response: Response) -> Response:
    """Tokens and whole records: never kept by a cache (errors included)."""
    response.headers["Cache-Control"] = "no-store"
    return response


@blp.before_request
def _import_size():
    """An export may be larger than an action: ``MAX_IMPORT_BYTES`` for the import."""
    if request.endpoint == "records.import_record":
        request.max_content_length = current_app.config["MAX_IMPORT_BYTES"]


def _referee_only() -> Response | None:
    if g.actor != REFEREE:
        return problem(403, "referee-only", Message("Only the referee token may do this."))
    return None


@blp.get("/<game_id>/export")
@blp.response(200, GameExportSchema, headers=_NO_STORE_DOC)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(403, response="FORBIDDEN")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(security=games.SECURITY)
@blp.doc(operationId="exportGame")
def export_record(game_id: str):
    """The game's whole record as one JSON document (referee only; a seat: 403
    `referee-only`): options, status, version, every event, the referee's view; the
    seed only once the game is finished (an unfinished game's events carry what the
    referee may see, never the seed). POST it to /v1/games/import to re-create it."""
    return _referee_only() or export_game(get_store(current_app), game_id)


@blp.post("/import")
@blp.arguments(GameExportSchema())
@blp.response(201, games.CreatedGameSchema,
              headers={"Location": {"schema": {"type": "string"}}, **_NO_STORE_DOC})
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(403, response="FORBIDDEN")
@blp.alt_response(413, response="REQUEST_ENTITY_TOO_LARGE")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.alt_response(429, response="TOO_MANY_REQUESTS")
@blp.doc(security=games.API_KEY_SECURITY)
@blp.doc(operationId="importGame")
def import_record(document: dict):
    """Re-create an exported game under a new id with new tokens (the reply of
    `POST /v1/games`), once its events replay to its status and referee view. A
    finished game's seed must match its commitment and deal its setup events; an
    unfinished game gets a new secret seed for the cards still to come. A document that
    does not replay: 422 `import-mismatch` naming the field (`errors`). Bodies up to
    MAX_IMPORT_BYTES (4 MiB by default)."""
    try:
        status, reply = import_game(get_store(current_app), document)
    except ImportRefused as refused:
        return problem(422, "import-mismatch", refused.detail,
                       errors={"json": {refused.field: [refused.detail]}})
    count_game(document["game"], "imported")
    response = games._reply(status, reply)  # noqa: SLF001 - the same compact JSON
    response.headers["Location"] = url_for("games.get_game", game_id=reply["id"])
    return response


@blp.post("/<game_id>/seats/<seat>/token")
@blp.response(200, SeatTokenIssuedSchema, headers=_NO_STORE_DOC)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(403, response="FORBIDDEN")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(security=games.SECURITY)
def reissue_seat_token(game_id: str, seat: str):
    """A new bearer token for `seat` (referee only; a seat: 403 `referee-only`): the
    seat's old token is 401 from this answer on. No such seat: 404 `seat-not-found`.
    Takes no body and no Idempotency-Key (the token is shown once, never stored)."""
    refused = _referee_only()
    if refused:
        return refused
    try:
        token = get_store(current_app).reissue_token(game_id, seat)
    except SeatNotFound:
        return problem(404, "seat-not-found", Message("This game has no seat %(seat)s.",
                                                      seat=repr(seat)))
    return {"seat": seat, "token": token}


@blp.post("/<game_id>/referee/token")
@blp.response(200, RefereeTokenIssuedSchema, headers=_NO_STORE_DOC)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(403, response="FORBIDDEN")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(security=games.SECURITY)
def reissue_referee_token(game_id: str):
    """A new referee token (referee only; a seat: 403 `referee-only`): the old one is
    401 from this answer on, and so are the stream tickets it was given (a leaked
    referee token is rotated, as a seat's is by `POST .../seats/{seat}/token`). Takes
    no body and no Idempotency-Key (the token is shown once, never stored)."""
    return _referee_only() or {"token": get_store(current_app).reissue_referee_token(game_id)}
