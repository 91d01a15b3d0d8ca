"""Operating a game's record: export, import, seat token recovery (issue 11).

* ``GET /v1/games/{game_id}/export`` (referee): the whole record as one document
  (:mod:`service.store.transfer`: never the seed of an unfinished game);
* ``POST /v1/games/import`` (open like ``POST /v1/games``: the API key when the operator
  set ``API_KEYS``, the creation rate limit): the document re-created under a new id
  with new tokens, once the engine re-derives it (422 otherwise); a document this
  service did not sign only with an API key (403 otherwise), and marked unverified.
  The import's parsing and re-derivation run off the worker's event loop (a thread of
  gevent's pool under gunicorn), so that its other connections are served meanwhile;
* ``POST /v1/games/{game_id}/seats/{seat}/token`` (referee): a new token for the seat;
  the old one is 401 from then on;
* ``POST /v1/games/{game_id}/referee/token`` (referee): a new referee token, likewise.

Authentication and the store's errors are those of :mod:`service.api.games`.
"""

from __future__ import annotations

import hashlib
import hmac
import sys
import time
from collections.abc import Callable
from typing import Any

from flask import Response, current_app, g, request, url_for
from marshmallow import RAISE, Schema, ValidationError, fields
from marshmallow.validate import Equal, OneOf, Range
from webargs.flaskparser import abort

from service.api import games
from service.api.actions import GAMES
from service.api.base import Blueprint, InvalidJSON, strict_loads, takes_no_body
from service.errors import problem
from service.games import ENGINE_MODULES, RuleViolation
from service.messages import Message
from service.observability import count_game
from service.store import REFEREE, SeatNotFound, StoreError, Unavailable, get_store
from service.limits import API_KEY_HEADER
from service.store.signing import signing_key, verify
from service.store.transfer import (
    FORMAT,
    FORMAT_VERSION,
    MAX_IMPORT_EVENTS,
    ImportRefused,
    Unverified,
    export_game,
    import_game,
)

blp = Blueprint(
    "records",
    __name__,
    url_prefix="/v1/games",
    description="A game's record: export, import, seat token recovery",
)

blp.before_request(games._authenticate)  # noqa: SLF001 - the same bearer tokens
blp.errorhandler(StoreError)(games._store_error)  # noqa: SLF001
blp.errorhandler(Unavailable)(games._unavailable)  # noqa: SLF001
blp.errorhandler(RuleViolation)(games._rule_violation)  # noqa: SLF001

_NO_STORE_DOC = {
    "Cache-Control": {
        "schema": {"type": "string", "example": "no-store"},
        "description": "no-store",
    }
}


class ObjectList(fields.Field):
    """A JSON array of objects, taken as it is (the import checks every member
    itself): a schema per item cost seconds of a worker on 20,000 events."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> list:
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            raise ValidationError("Not a list of objects.")
        if attr == "events" and not 1 <= len(value) <= MAX_IMPORT_EVENTS:
            raise ValidationError(f"From 1 to {MAX_IMPORT_EVENTS} events.")
        return value

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return value


class GameExportSchema(Schema):
    """A game's whole record (service.store.transfer): what export gives and import
    takes."""

    class Meta:
        unknown = RAISE

    format = fields.String(required=True, validate=Equal(FORMAT), metadata={"example": FORMAT})
    format_version = fields.Integer(required=True, strict=True, validate=Equal(FORMAT_VERSION))
    id = fields.String(required=True, metadata={"description": "the exported game's id"})
    # checked against the engines at load time, not at import (tests register one)
    game = fields.String(
        required=True,
        validate=lambda game: OneOf(ENGINE_MODULES)(game),
        metadata={"example": "two-way", "enum": list(GAMES)},
    )
    options = fields.Dict(keys=fields.String(), required=True)
    status = fields.String(required=True, metadata={"example": "finished"})
    version = fields.Integer(required=True, strict=True, validate=Range(min=1))
    seed_commitment = fields.String(required=True)
    seed = fields.String(metadata={"description": "only in a finished game's export"})
    from_position = fields.Boolean(
        metadata={
            "description": "true: the game started from a stated position (G-P1), not from "
            "a fresh deal of its seed (game-created says so too)"
        }
    )
    exported_at = fields.String(metadata={"description": "ISO 8601, UTC"})
    imported = fields.Nested(
        games.ImportedSchema,
        allow_none=True,
        metadata={
            "description": "null: refereed here; a copy made by POST /v1/games/import: when, "
            "and whether the document it came from was this service's own"
        },
    )
    actions = ObjectList(
        metadata={
            "description": 'with the seed only: every accepted action, {"seq": the first '
            'event it appended, "actor": a seat or referee, "action": the '
            "body the engine received}; an import re-derives each event from "
            "them",
            "type": "array",
            "items": {
                "type": "object",
                "required": ["seq", "actor", "action"],
                "additionalProperties": False,
                "properties": {
                    "seq": {"type": "integer", "minimum": 1},
                    "actor": {"type": "string"},
                    "action": {"type": "object"},
                },
            },
        }
    )
    events = ObjectList(
        required=True,
        metadata={
            "description": '{"seq", "type", "seat", ...the engine\'s fields}: seq 1, 2, 3 '
            "..., the first game-created; at most %d per import" % MAX_IMPORT_EVENTS,
            "type": "array",
            "items": {"type": "object"},
            "minItems": 1,
            "maxItems": MAX_IMPORT_EVENTS,
        },
    )
    view = fields.Dict(required=True, metadata={"description": "the referee's view"})
    signature = fields.String(
        metadata={
            "description": "HMAC-SHA256 (64 hex digits) of the canonical document (every "
            "other member; sorted keys, no spaces, UTF-8) with the service's "
            "key: a document it holds for imports as a verified copy",
            "pattern": "^[0-9a-f]{64}$",
        }
    )


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
    store = get_store(current_app)
    return _referee_only() or export_game(
        store, game_id, secret=current_app.config.get("EXPORT_SECRET")
    )


_EXPORT_SCHEMA = GameExportSchema()


@blp.post("/import")
@blp.response(
    201,
    games.CreatedGameSchema,
    headers={"Location": {"schema": {"type": "string"}}, **_NO_STORE_DOC},
)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(403, response="FORBIDDEN")
@blp.alt_response(413, response="REQUEST_ENTITY_TOO_LARGE")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.alt_response(429, response="TOO_MANY_REQUESTS")
@blp.doc(security=games.API_KEY_SECURITY)
@blp.doc(
    operationId="importGame",
    requestBody={
        "required": True,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/GameExport"}}},
    },
)
def import_record():
    """Re-create an exported game under a new id with new tokens (the reply of
    `POST /v1/games`), once the engine re-derives it: game-created and the deal are
    what the options and the seed make (or the position, for a game started from
    one), every later event is what the engine makes of the action recorded at it (or
    of an idle seat's timeout), and the version, status and referee view are what they
    fold to. An unfinished game's export (no seed) imports only as this service's own
    signed document, with a new secret seed for the cards still to come, and only where
    its log holds every card dealt (2-Way Cards; any game dealt at the table).

    A document that does not re-derive: 422 `import-mismatch` naming the field as a
    JSON path (`errors`). A document this service did not sign (`signature`) imports
    only with an API key (`X-API-Key`, one of API_KEYS; else 403 `import-unsigned`)
    and the copy says `"verified": false` for ever. The copy's view, log and export
    carry `imported` `{"at", "verified"}`. Bodies up to MAX_IMPORT_BYTES (4 MiB by
    default), at most 20,000 events."""
    # the body first: over MAX_IMPORT_BYTES is 413, not JSON 400, whatever the database
    raw, document = _offload(_load_import, request.get_data(cache=True))
    store = get_store(current_app)
    signed = _offload(verify, raw, signing_key(store, current_app.config.get("EXPORT_SECRET")))
    try:
        status, reply = import_game(
            store,
            document,
            signed=signed,
            allow_unverified=_configured_api_key(),
            pause=_pause,
            offload=_offload,
        )
    except ImportRefused as refused:
        return problem(
            422,
            "import-mismatch",
            refused.detail,
            errors={"json": {refused.field: [refused.detail]}},
        )
    except Unverified:
        return problem(
            403,
            "import-unsigned",
            Message(
                "This document is not signed by this service (an edited export, another "
                "deployment's, or made by hand): it imports only with an API key, as an "
                "unverified copy."
            ),
        )
    count_game(document["game"], "imported")
    response = games._reply(status, reply)  # noqa: SLF001 - the same compact JSON
    response.headers["Location"] = url_for("games.get_game", game_id=reply["id"])
    return response


def _load_import(data: bytes) -> tuple[dict, dict]:
    """The request body parsed strictly, as sent (what the signature covers) and as
    :class:`GameExportSchema` loads it (pure: runs off the event loop). Aborts 400
    ``invalid-json`` / 422 ``invalid-body`` as every other body's parser does."""
    try:
        raw = strict_loads(data, scan=False)
    except InvalidJSON as error:
        detail = Message("Invalid JSON body: %(reason)s", reason=error.reason)
        abort(400, messages={"json": [detail]}, code="invalid-json", detail=detail)
    if not isinstance(raw, dict):
        abort(422, messages={"json": {"_schema": ["Invalid input type."]}})
    try:
        document = _EXPORT_SCHEMA.load(raw)
    except ValidationError as error:
        abort(422, messages={"json": error.messages})
    return raw, document


# how often (seconds) a thread running an import hands the GIL over to the event loop
# when it waits for it (Python's default: 5 ms)
_SWITCH_INTERVAL = 0.0005


def _offload(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` off the event loop when gevent runs the worker (a native thread
    of gevent's pool: the worker's other connections are served meanwhile, the GIL
    switching every few milliseconds); in place otherwise. ``fn`` is pure: no
    request, no database. What ``fn`` raises is raised here."""
    try:
        from gevent import get_hub, monkey
    except ImportError:  # pragma: no cover - gevent is a dependency
        return fn(*args)
    if not monkey.is_module_patched("socket"):
        return fn(*args)
    if sys.getswitchinterval() > _SWITCH_INTERVAL:
        sys.setswitchinterval(_SWITCH_INTERVAL)
    done, value = get_hub().threadpool.apply(_caught, (fn, args))
    if not done:
        raise value
    return value


def _caught(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[bool, Any]:
    """``(True, fn(*args))``, or ``(False, the exception it raised)``: raised again by
    :func:`_offload` in the request's greenlet. An exception that left the pool's thread
    would also be printed by gevent, a traceback on stderr for every refused import."""
    try:
        return True, fn(*args)
    except Exception as error:  # noqa: BLE001 - raised again by the caller
        return False, error


def _pause() -> None:
    """Let the worker's other connections in (under gevent ``time.sleep`` is
    gevent's: ``sleep(0)`` yields to the hub)."""
    time.sleep(0)


def _configured_api_key() -> bool:
    """The request carries one of the operator's API_KEYS (``X-API-Key``)."""
    keys = current_app.config["API_KEYS"]
    sent = request.headers.get(API_KEY_HEADER)
    if not keys or not sent:
        return False
    digest = hashlib.sha256(sent.encode()).hexdigest()
    return any(hmac.compare_digest(digest, hashlib.sha256(k.encode()).hexdigest()) for k in keys)


@blp.post("/<game_id>/seats/<seat>/token")
@blp.response(200, SeatTokenIssuedSchema, headers=_NO_STORE_DOC)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(403, response="FORBIDDEN")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(security=games.SECURITY)
@takes_no_body
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
        return problem(
            404, "seat-not-found", Message("This game has no seat %(seat)s.", seat=repr(seat))
        )
    return {"seat": seat, "token": token}


@blp.post("/<game_id>/referee/token")
@blp.response(200, RefereeTokenIssuedSchema, headers=_NO_STORE_DOC)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(403, response="FORBIDDEN")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(security=games.SECURITY)
@takes_no_body
def reissue_referee_token(game_id: str):
    """A new referee token (referee only; a seat: 403 `referee-only`): the old one is
    401 from this answer on, and so are the stream tickets it was given (a leaked
    referee token is rotated, as a seat's is by `POST .../seats/{seat}/token`). Takes
    no body and no Idempotency-Key (the token is shown once, never stored)."""
    return _referee_only() or {"token": get_store(current_app).reissue_referee_token(game_id)}
