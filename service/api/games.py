"""Game catalog and the game store endpoints (create, view, act, events, legal actions)."""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from flask import Response, current_app, g, request, url_for
from flask_smorest import abort
from marshmallow import INCLUDE, Schema, ValidationError, fields
from marshmallow.validate import Length, Range, Regexp

from service.api.base import Blueprint, DigitsInteger
from service.errors import problem, problem_body, problem_response
from service.games import ENGINE_MODULES, RuleViolation, engine
from service.messages import Message
from service.observability import count_action, count_game
from service.store.seating import NAME_PATTERN, Seating, UnknownSeat
from service.store import (REFEREE, GameNotFound, GameRecord, IdempotencyRequest,
                           KeyInFlight, KeyReused, Refused, StoreError, Unauthenticated,
                           Unavailable, UnknownGame, get_store, request_hash)

blp = Blueprint("games", __name__, url_prefix="/v1/games",
                description="The games the service referees, and their records")


class CatalogOptionSchema(Schema):
    name = fields.String(required=True)
    type = fields.String(required=True,
                         metadata={"description": "string, integer, boolean, object"})
    default = fields.Raw(allow_none=True)
    choices = fields.List(fields.Raw())
    description = fields.String()


class CatalogGameSchema(Schema):
    game = fields.String(required=True, metadata={"example": "two-way"})
    title = fields.String(required=True)
    rules = fields.String(required=True, metadata={"description": "RULES.md section"})
    seats = fields.List(fields.String(), metadata={"description": "fixed seat names, if any"})
    players = fields.List(fields.Integer(), metadata={"description": "allowed player counts"})
    realtime = fields.Boolean(required=True, metadata={
        "description": "true: no turn order, every seat acts at once; a racing action "
                       "names what it aimed at (based_on) and If-Match is optional"})
    options = fields.List(fields.Nested(CatalogOptionSchema), required=True)


class CatalogSchema(Schema):
    games = fields.List(fields.Nested(CatalogGameSchema), required=True)


def catalog() -> list[dict]:
    """Every implemented game's catalog entry, in ENGINE_MODULES order."""
    entries = []
    for name in ENGINE_MODULES:
        try:
            module = engine(name)
        except ImportError:
            continue  # engine not written yet
        entries.append({"game": name, "realtime": bool(getattr(module, "REALTIME", False)),
                        **module.CATALOG[name]})
    return entries


@blp.get("/catalog")
@blp.response(200, CatalogSchema)
def get_catalog():
    """The games the service knows, with their options and defaults."""
    return {"games": catalog()}


# ===== the game store: create, view, act, events, legal actions =====================
#
# Auth: ``Authorization: Bearer <token>`` on every /v1/games/{game_id}... route, checked
# before the body is parsed. Ruling (not revealing games): a missing, malformed or
# unknown token is 401 whatever the game id; a valid token used on any other game id
# (existing or not) is 404, exactly as an unknown id.

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
SECURITY = [{"bearerAuth": []}]


def _ref(name: str) -> dict:
    """A reference to a schema of service.api.actions (components.schemas)."""
    return {"$ref": f"#/components/schemas/{name}"}


# open unless the operator sets API_KEYS (service.limits)
API_KEY_SECURITY = [{}, {"apiKeyAuth": []}]


@blp.record_once
def _register_security_scheme(state) -> None:
    """Document the bearer tokens and the API key (components.securitySchemes)."""
    for entry in state.app.extensions.get("flask-smorest", {}).get("apis", {}).values():
        entry["ext_obj"].spec.components.security_scheme("bearerAuth", {
            "type": "http", "scheme": "bearer",
            "description": "A seat token (acts as that seat) or the referee token, "
                           "as returned by POST /v1/games."})
        entry["ext_obj"].spec.components.security_scheme("apiKeyAuth", {
            "type": "apiKey", "in": "header", "name": "X-API-Key",
            "description": "Needed to create or import a game when the operator set "
                           "API_KEYS (none: 401 api-key-required; another: 403 "
                           "api-key-refused); not needed otherwise."})


class FullMatch(Regexp):
    """:class:`Regexp` that must match the whole string (``re.fullmatch``); the spec
    shows the pattern as it is."""

    def __call__(self, value: str) -> str:
        if self.regex.fullmatch(value) is None:
            raise ValidationError(self._format_error(value))
        return value


class TileField(fields.Field):
    """A tile: a face in card notation (``"7H"``) or a tile id (an integer)."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise ValidationError("A tile is a face (string) or a tile id (integer).")
        return value


def _cell() -> fields.List:
    return fields.List(fields.Integer(strict=True, validate=Range(min=0)),
                       validate=Length(equal=2), metadata={"description": "[row, col]"})


# a seat's display name (service/store/seating.py): the contract states the same pattern
NAME = [Length(1, 40), Regexp(NAME_PATTERN, error="1 to 40 characters, no control character "
                              "or line break, no leading or trailing space")]


class CreateGameSchema(Schema):
    game = fields.String(required=True, metadata={"example": "two-way"})
    options = fields.Dict(keys=fields.String(), load_default=dict,
                          metadata={"description": "game options (see the catalog)"})
    seed = fields.String(validate=FullMatch(_SEED), metadata={
        "description": "Exactly 64 hex digits, nothing around them; upper case is "
                       "accepted and lowercased (the game keeps and reveals the "
                       "lowercase text). Drawn from a CSPRNG when absent. "
                       "seed_commitment, shown from the start, is the SHA-256 (hex) of "
                       "the seed's lowercase hex text as ASCII; the seed itself is shown "
                       "once the game is finished. May also be given as options.seed."})
    position = fields.Dict(keys=fields.String(), metadata={
        "description": "G-P1: start from this stated position (the game's notation, "
                       "Position; its `game` is the game's) instead of a fresh deal"})
    names = fields.Dict(keys=fields.String(), values=fields.String(validate=NAME))
    invitations = fields.Boolean(load_default=False)


class SeatTokenSchema(Schema):
    token = fields.String(metadata={"description": "the seat's bearer token"})
    invitation = fields.String(metadata={
        "description": "with invitations: the seat's single-use code (POST .../join)"})
    expires_at = fields.String(metadata={"description": "when the invitation expires"})
    join_url = fields.String(metadata={
        "description": "the referee page's link that joins the seat (the code in the "
                       "fragment, which browsers never send)"})


class CreatedGameSchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True)
    seats = fields.Dict(keys=fields.String(), values=fields.Nested(SeatTokenSchema),
                        required=True, metadata={"description": "seat -> its bearer token "
                                                 "(with invitations: its invitation)"})
    referee_token = fields.String(required=True)
    seed_commitment = fields.String(required=True)


class ResultSchema(Schema):
    """How a finished game ended: the same shape for every game (the engine contract,
    service/games/__init__.py), in the view, here and in the ``game-ended`` event."""

    winners = fields.List(fields.String(), required=True, metadata={
        "description": "every seat of the winning side; [] for a draw; several for a "
                       "team or a shared win", "example": ["p1", "p3"]})
    scores = fields.Dict(keys=fields.String(), values=fields.Float(), required=True,
                         metadata={"description": "every seat's score (a team's figure "
                                                  "repeated for each member)",
                                   "example": {"p1": 2, "p2": 1, "p3": 2, "p4": 1}})
    reason = fields.String(required=True, metadata={
        "description": "why it ended: set-complete, grid-full (2-Way Cards); sequences, "
                       "stalemate, no-legal-play (Sequence)...", "example": "sequences"})
    two_way = fields.Dict(metadata={"description": "2-Way Cards: {completer}"})
    sequence = fields.Dict(metadata={"description": "Sequence games: {winning_side, "
                                                    "sequences: {side: n}}"})
    halves = fields.Dict(metadata={"description": "Halves: {hands: {seat: n}, piles: "
                                                  "{seat: n}, retired: [seat], "
                                                  "central_pile: n}"})
    solitaire_frenzy = fields.Dict(metadata={
        "description": "Solitaire Frenzy (reason rounds-played or last-seat; scores are "
                       "the totals): {rounds: [{round, reason, out, board, pile, scores}], "
                       "retired: [seat]}"})


def _result_field() -> fields.Nested:
    return fields.Nested(ResultSchema, required=True, allow_none=True, metadata={
        "description": "null while the game runs; then how it ended (also view.result "
                       "and the game-ended event's result)"})


def _view_field() -> fields.Raw:
    """The engine's view, as the contract types it per game (service.api.actions)."""
    return fields.Raw(required=True, metadata={
        "description": "the engine's view for you (View: one per game, by `game`)",
        "allOf": [{"$ref": "#/components/schemas/View"}]})


class ImportedSchema(Schema):
    at = fields.String(required=True, metadata={"description": "ISO 8601: when imported"})
    verified = fields.Boolean(required=True, metadata={
        "description": "true: the document was this service's own signed export (of a "
                       "game that was not an unverified copy); false for ever otherwise"})


def _imported_field() -> fields.Nested:
    return fields.Nested(ImportedSchema, required=True, allow_none=True, metadata={
        "description": "null: a game refereed here; {at, verified}: a copy made by POST "
                       "/v1/games/import (verified: from this service's own signed "
                       "export)"})


class GameViewSchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "also the ETag"})
    status = fields.String(required=True, metadata={"example": "active"})
    viewer = fields.String(required=True, metadata={"description": "a seat or referee"})
    seed_commitment = fields.String(required=True)
    seed = fields.String(metadata={"description": "only once the game is finished"})
    names = fields.Dict(keys=fields.String(), values=fields.String(), required=True, metadata={
        "description": "seat -> display name, for the seats that have one"})
    rematch_of = fields.String(metadata={"description": "the game this one is a rematch of"})
    rematch = fields.String(metadata={"description": "this game's rematch, once made"})

    imported = _imported_field()
    result = _result_field()
    view = _view_field()


class ActionSchema(Schema):
    """One action: ``type`` plus its fields; the engine validates the rest. Fields of
    other names are passed to the engine as they are."""

    class Meta:
        unknown = INCLUDE

    type = fields.String(required=True, metadata={"example": "place"})
    tile = TileField(metadata={"oneOf": [{"type": "string"}, {"type": "integer"}]})
    tiles = fields.List(TileField(metadata={"oneOf": [{"type": "string"},
                                                      {"type": "integer"}]}))
    cell = _cell()
    cells = fields.List(_cell())
    seat = fields.String(metadata={"description": "the seat acted for or on"})
    card = fields.String()
    cards = fields.List(fields.String())
    side = fields.String()
    kind = fields.String()
    based_on = fields.Raw(metadata={"type": "string", "description": "real-time games: the "
                                    "shared card the action aims at (Halves: the top card; "
                                    "Solitaire Frenzy: the foundation pile's top, or \"new\" "
                                    "for an Ace); refused as stale when it has changed"})
    turned = fields.Raw(metadata={"type": "boolean", "description": "Halves: lay the card "
                                  "turned round (halves swapped)"})
    # Solitaire Frenzy (documented here; the engine validates them)
    round = fields.Raw(metadata={"type": "integer", "description": "Solitaire Frenzy: the "
                                 "round the action is meant for (an ended one: round-over)"})
    to = fields.Raw(metadata={"type": "string", "description": "Solitaire Frenzy play: "
                              "foundation or column"})
    pile = fields.Raw(metadata={"type": "integer", "description": "Solitaire Frenzy: the "
                                "foundation pile's id"})
    column = fields.Raw(metadata={"type": "integer", "description": "Solitaire Frenzy: a "
                                  "column, 0 to 3"})
    from_column = fields.Raw(metadata={"type": "integer", "description": "Solitaire Frenzy "
                                       "move: the whole column moved"})
    to_column = fields.Raw(metadata={"type": "integer", "description": "Solitaire Frenzy "
                                     "move: the column it goes onto"})
    results = fields.Raw(metadata={"type": "object", "description": "Solitaire Frenzy "
                                   "record-round (table mode): {seat: {board, pile, out}}"})
    expected_version = fields.Integer(strict=True, validate=Range(min=0), metadata={
        "description": "the version the action is based on (or the If-Match header)"})


class EventSchema(Schema):
    """One entry of a game's log as the caller may see it: ``seq``, ``type``, ``seat``
    and the engine's fields for that type (service/games/__init__.py: one vocabulary
    across games; ``game-ended`` carries ``result``)."""

    class Meta:
        unknown = INCLUDE  # the engine's fields, per game and type

    seq = fields.Integer(required=True, validate=Range(min=1))
    type = fields.String(required=True, metadata={
        "description": "past tense, the same name for the same idea in every game: "
                       "game-created, dealt, drawn, placed, played, discarded, "
                       "turn-started, turn-skipped, seat-retired, round-ended, "
                       "game-ended...", "example": "placed"})
    seat = fields.String(required=True, allow_none=True, metadata={
        "description": "the seat it concerns; null for the game's own events"})
    result = fields.Nested(ResultSchema, metadata={"description": "game-ended only"})


_ACTION_SCHEMA = ActionSchema()  # the body's first check; the engine checks the rest,
# as the contract's per-game union (service.api.actions) states it


class ActionResultSchema(Schema):
    version = fields.Integer(required=True)
    status = fields.String(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True,
                         metadata={"description": "the events appended, as you may see them"})
    result = _result_field()
    view = _view_field()
    seed = fields.String(metadata={"description": "once the game is finished"})


class EventsQuerySchema(Schema):
    after = DigitsInteger(load_default=0, validate=Range(min=0, max=MAX_INTEGER),
                          metadata={"description": "return events with seq > after "
                                                   "(0 to 2**63-1, ASCII digits)"})
    limit = DigitsInteger(load_default=1000, validate=Range(min=1, max=1000))


class EventsSchema(Schema):
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True, metadata={
        "description": '{"seq", "type", "seat", ...}: the log as you may see it (events '
                       "hidden from you entirely are left out); a finished game's last "
                       'event is game-ended {"result"}'})
    last_seq = fields.Integer(required=True, metadata={
        "description": "pass it as `after` for the next page: the seq of the last event "
                       "the page examined (events hidden from you included), or, when "
                       "nothing follows `after`, the log's last seq (never more than the "
                       "log holds, so paging by it neither skips nor repeats an event)"})
    imported = _imported_field()




def _store():
    return get_store(current_app)


# Responses carrying tokens or a caller's view: never stored by any cache. The GETs'
# ETag is the version, the same for every caller's view: Vary on Authorization too.
_NO_STORE = {"games.create_game", "games.get_game", "games.get_events",
             "games.get_legal_actions", "games.post_action"}
_VARY_ON_AUTHORIZATION = {"games.get_game", "games.get_events", "games.get_legal_actions"}
_NO_STORE_DOC = {"Cache-Control": {"schema": {"type": "string", "example": "no-store"},
                                   "description": "no-store"}}
_PRIVATE_DOC = {**_NO_STORE_DOC,
                "Vary": {"schema": {"type": "string", "example": "Authorization"},
                         "description": "Authorization: the body is the caller's view"}}


@blp.after_request
def _cache_headers(response: Response) -> Response:
    """``Cache-Control: no-store`` (and ``Vary: Authorization`` on the GETs) on every
    response of the endpoints that carry tokens or a caller's view, errors and 304s
    included."""
    if request.endpoint in _NO_STORE:
        response.headers["Cache-Control"] = "no-store"
    if request.endpoint in _VARY_ON_AUTHORIZATION:
        response.vary.add("Authorization")
    return response


def _unauthorized(detail: Message, error: str | None = None) -> Response:
    challenge = BEARER_REALM + (f', error="{error}"' if error else "")
    return problem(401, "unauthorized", detail, headers={"WWW-Authenticate": challenge})


def _not_found() -> Response:
    return problem(404, "game-not-found",
                   Message("No game with that id is open to this token."))


@blp.before_request
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


@blp.errorhandler(StoreError)
def _store_error(error: StoreError) -> Response:
    if isinstance(error, GameNotFound):
        return _not_found()
    if isinstance(error, Unauthenticated):
        return _unauthorized(_INVALID_TOKEN, "invalid_token")
    if isinstance(error, UnknownGame):
        return problem(422, "unknown-game", Message(
            "unknown game %(game)s (one of %(games)s)", game=repr(error.args[0]),
            games=", ".join(ENGINE_MODULES)), rule="G-O1")
    if isinstance(error, KeyReused):
        return problem(422, "idempotency-key-reused",
                       Message("This Idempotency-Key was used with another request."))
    if isinstance(error, KeyInFlight):
        return problem(409, "idempotency-key-in-flight",
                       Message("A request with this Idempotency-Key is still being "
                               "processed."), headers={"Retry-After": "1"})
    return problem(500)


@blp.errorhandler(Unavailable)
def _unavailable(error: Unavailable) -> Response:
    """503 ``unavailable`` with ``Retry-After``: the game stayed busy through every
    retry, or the database cannot be reached (stopped, connections lost)."""
    if error.outage:
        return problem(503, "unavailable", Message(
            "The service cannot reach its database; retry shortly."),
            headers={"Retry-After": "2"})
    return problem(503, "unavailable", Message("The game is busy; retry shortly."),
                   headers={"Retry-After": "1"})


@blp.errorhandler(RuleViolation)
def _rule_violation(error: RuleViolation) -> Response:
    return problem(error.status, error.code, error.detail, rule=error.rule, **error.extra)


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


def _events_out(record: GameRecord, stored: list, viewer: str) -> list[dict]:
    """The stored events as ``viewer`` may see them, ``{"seq", "type", "seat", ...}``
    each (the engine's ``view_event`` on the game's state); hidden ones left out."""
    module, out = record.engine, []
    for event in stored:
        viewed = module.view_event(record.state, event.event, viewer)
        if viewed is not None:
            out.append({"seq": event.seq, "type": event.event["type"],
                        "seat": event.event.get("seat"), **viewed})
    return out


def _game_body(record: GameRecord, viewer: str) -> dict:
    body = {"id": record.id, "game": record.game, "version": record.version,
            "status": record.status, "viewer": viewer,
            "seed_commitment": record.seed_commitment, "names": record.names}
    if record.rematch_of is not None:
        body["rematch_of"] = record.rematch_of
    if record.rematch is not None:
        body["rematch"] = record.rematch
    if record.finished:
        body["seed"] = record.seed
    body["imported"] = record.imported
    body["view"] = record.engine.view(record.state, viewer)
    body["result"] = body["view"]["result"]
    return body


@blp.post("")
@blp.arguments(CreateGameSchema(), description="A new game")  # instances: built once
@blp.response(201, CreatedGameSchema, headers={"Location": {"schema": {"type": "string"}},
                                               **_NO_STORE_DOC})
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(403, response="FORBIDDEN")
@blp.alt_response(429, response="TOO_MANY_REQUESTS")
@blp.alt_response(503, response="SERVICE_UNAVAILABLE")
@blp.doc(security=API_KEY_SECURITY, requestBody={
    "required": True, "content": {"application/json": {"schema": _ref("CreateGame")}}})
def create_game(body: dict):
    """Create a game: a bearer token per seat, a referee token, the seed's commitment.

    Unknown `game` or options the engine refuses: 422 with the engine's code.
    Keep the tokens: the service stores only their SHA-256 and cannot show them again
    (so creation takes no Idempotency-Key; a retry makes another game; a lost seat
    token is replaced by the referee, POST /v1/games/{id}/seats/{seat}/token).
    When the operator set API_KEYS: `X-API-Key` (none: 401, another: 403). Over the
    creation rate limit (per client): 429 with Retry-After.
    """
    options = dict(body["options"])
    seed = _seed(body.get("seed"), options.pop("seed", None))
    position = body.get("position")
    if position is not None and position.get("game") != body["game"]:
        return _invalid_position(RuleViolation(
            "invalid-position", Message("The position is not one of %(game)s: its game is "
                                        "%(given)s.", game=body["game"],
                                        given=repr(position.get("game"))),
            422, rule="G-P1", extra={"field": "game"}))
    seating = Seating(names=body.get("names") or {}, invite=body["invitations"])
    try:
        created = _seated(lambda: _store().create(body["game"], options, seed, position,
                                                  seating))
    except RuleViolation as violation:
        if violation.code != "invalid-position":
            raise
        return _invalid_position(violation)
    return created_reply(body["game"], created)


def _seated(create: Callable[[], tuple[int, dict]]) -> tuple[int, dict]:
    """``create()``, with a name for a seat the game lacks as 422 naming it."""
    try:
        return create()
    except UnknownSeat as error:
        abort(422, code="invalid-seat", detail=Message("The game has no seat %(seat)s.",
                                                       seat=repr(error.args[0])),
              messages={"json": {"names": {error.args[0]: ["no such seat"]}}})
        raise  # unreachable: abort raises


def created_reply(game: str, created: tuple[int, dict]) -> Response:
    """The 201 of a new game (``Location``, and each invitation's ``join_url``)."""
    status, reply = created
    for seat, entry in reply["seats"].items():
        if "invitation" in entry:
            entry["join_url"] = f"/referee/#invite={reply['id']}.{seat}.{entry['invitation']}"
    count_game(game, "created")
    response = _reply(status, reply)
    response.headers["Location"] = url_for("games.get_game", game_id=reply["id"])
    return response


def _invalid_position(violation: RuleViolation) -> Response:
    """422 ``invalid-position`` naming the rule, ``field`` (a dotted path in the
    position) and, as body validation does, ``errors`` at ``position.<field>``."""
    field = str(violation.extra.get("field", ""))
    where = "position" + (f".{field}" if field else "")
    return problem(422, violation.code, violation.detail, rule=violation.rule,
                   errors={"json": {where: [violation.detail]}},
                   **{k: v for k, v in violation.extra.items() if k != "errors"})


def _seed(top: str | None, option: object) -> str | None:
    """The game's seed, given as ``seed`` or as the option ``options.seed`` (the issue's
    spelling); both must be 64 hex digits and agree (422 otherwise). None: draw one."""
    if option is not None:
        if not isinstance(option, str) or not re.fullmatch(_SEED, option):
            abort(422, code="invalid-option",
                  detail=Message("option 'seed': exactly 64 hex digits"),
                  messages={"json": {"options": {"seed": ["exactly 64 hex digits"]}}},
                  extra={"rule": "G-M1"})
        if top is not None and top.lower() != option.lower():
            abort(422, code="invalid-option", detail=Message("'seed' and options.seed differ"),
                  messages={"json": {"options": {"seed": ["differs from seed"]}}},
                  extra={"rule": "G-M1"})
        top = option
    return top.lower() if top else None


@blp.get("/<game_id>")
@blp.response(200, GameViewSchema, headers={"ETag": {"schema": {"type": "string"}},
                                            **_PRIVATE_DOC})
@blp.alt_response(304, description="Not modified (If-None-Match)")
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(security=SECURITY, parameters=[_HEADER_DOCS["If-None-Match"]])
def get_game(game_id: str):
    """The game as the caller may see it: `view` from the engine, `version` (ETag)."""
    record = _store().current(game_id)
    tags = _etags(request.headers.get("If-None-Match", ""))
    if "*" in tags or _etag(record.version) in tags:  # "*": the game exists (RFC 9110)
        response = current_app.response_class(status=304)
        response.headers["ETag"] = _etag(record.version)
        return response
    return _reply(200, _game_body(record, g.actor))


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


@blp.post("/<game_id>/actions")
@blp.response(200, ActionResultSchema, headers={"ETag": {"schema": {"type": "string"}},
                                                **_NO_STORE_DOC})
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(403, response="FORBIDDEN")
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(409, response="CONFLICT")
@blp.alt_response(412, response="PRECONDITION_FAILED")
@blp.alt_response(428, response="PRECONDITION_REQUIRED")
@blp.alt_response(429, response="TOO_MANY_REQUESTS")
@blp.alt_response(503, response="SERVICE_UNAVAILABLE")
@blp.doc(security=SECURITY, parameters=[_HEADER_DOCS["If-Match"],
                                        _HEADER_DOCS["Idempotency-Key"]],
         requestBody={"required": True,
                      "content": {"application/json": {"schema": _ref("Action")}}})
def post_action(game_id: str):
    """Apply one action as the caller's seat (or as the referee).

    The version check is explicit: `If-Match` or `expected_version` (stale: 412
    with `version`; missing: 428). A seat token acting for another `seat`: 403.
    A refused action is a problem with the engine's `code`; nothing is written.
    """
    action = blp.ARGUMENTS_PARSER.parse(_ACTION_SCHEMA, request, location="json")
    actor = g.actor
    if actor != REFEREE and "seat" in action and action["seat"] != actor:
        return problem(403, "seat-mismatch", Message("A seat token acts only as its own "
                                                     "seat."), rule="G-M1")
    expected = _expected_version(action, game_id)
    idempotency = _idempotency(game_id, actor, {"action": action, "version": expected})
    outcomes: list = []
    (status, body), replayed = _store().act(game_id, actor, action, expected,
                                            _action_renderer(actor, outcomes.append),
                                            idempotency)
    count_action(outcomes[-1] if outcomes else None, replayed)
    return _reply(status, body, replayed)


def _action_renderer(actor: str, seen: Callable[[Any], None]):
    """The reply to an action's outcome, as ``actor`` may see it (the store keeps a
    refusal's as it is and renders an accepted one again for a replay); ``seen`` is
    told each outcome rendered (the last one is the action's)."""
    def render(outcome) -> tuple[int, dict]:
        seen(outcome)
        if isinstance(outcome, Refused):
            return outcome.status, problem_body(outcome.status, outcome.code,
                                                outcome.detail, **outcome.extra)
        record = outcome.game
        module = record.engine
        view = module.view(record.state, actor)
        body = {"version": record.version, "status": record.status,
                "events": _events_out(record, outcome.events, actor),
                "result": view["result"], "view": view}
        if record.finished:
            body["seed"] = record.seed
        return 200, body
    return render


@blp.get("/<game_id>/events")
@blp.arguments(EventsQuerySchema(), location="query")
@blp.response(200, EventsSchema, headers={"ETag": {"schema": {"type": "string"}},
                                          **_PRIVATE_DOC})
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(security=SECURITY)
def get_events(query: dict, game_id: str):
    """The caller's view of the event log after `seq` `after` (filtered by the
    engine: hidden payload removed, events hidden entirely left out)."""
    page = _store().page(game_id, query["after"], query["limit"], catch_up=True)
    record = page.game
    return _reply(200, {"version": record.version,
                        "events": _events_out(record, page.events, g.actor),
                        "last_seq": page.last_seq, "imported": record.imported})


@blp.get("/<game_id>/legal-actions")
@blp.doc(responses={"200": {
    "description": "OK", "content": {"application/json": {"schema": _ref("LegalActions")}},
    "headers": {"ETag": {"schema": {"type": "string"}}, **_PRIVATE_DOC}}})
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(security=SECURITY)
def get_legal_actions(game_id: str):
    """Every action the caller may POST now, as complete bodies (add If-Match or
    `expected_version` = `version`)."""
    record = _store().current(game_id)
    actions = record.engine.legal_actions(record.state, g.actor)
    return _reply(200, {"game": record.game, "version": record.version,
                        "actions": actions})
