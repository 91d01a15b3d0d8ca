"""Game catalog and the game store endpoints (create, view, act, events, legal actions),
with their error handlers. The HTTP conventions they follow (bearer tokens, versions,
idempotency keys, replies) are in :mod:`service.api.conventions`, the request and reply
schemas in :mod:`service.api.game_schemas`; the names other modules use stay importable
from here."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from flask import Response, url_for
from flask.blueprints import BlueprintSetupState
from marshmallow import Schema, fields
from webargs.flaskparser import abort  # flask_smorest.abort itself, typed NoReturn

from service.api.base import Blueprint
from service.api.conventions import (  # noqa: F401 - importable from here too
    _authenticate,
    _etag,
    checked_token,
    _etags,
    _expected_version,
    _idempotency,
    _not_found,
    _reply,
    _store,
    _unauthorized,
)
from service.api.game_schemas import (  # noqa: F401 - importable from here too
    BEARER_REALM,
    _INVALID_TOKEN,
    MAX_INTEGER,
    _KEY_PATTERN,
    _IF_MATCH,
    _SEED,
    _HEADER_DOCS,
    SECURITY,
    _ref,
    API_KEY_SECURITY,
    FullMatch,
    TileField,
    _cell,
    NAME,
    CreateGameSchema,
    SeatTokenSchema,
    CreatedGameSchema,
    ResultSchema,
    _result_field,
    _view_field,
    ImportedSchema,
    _imported_field,
    GameViewSchema,
    ActionSchema,
    EventSchema,
    _ACTION_SCHEMA,
    ActionResultSchema,
    EventsQuerySchema,
    EventsSchema,
)
from service.context import current_flask, current_g, current_request
from service.errors import problem, problem_body
from service.games import ENGINE_MODULES, RuleViolation, engine
from service.messages import Message
from service.observability import count_action, count_game
from service.store.seating import Seating, UnknownSeat
from service.store import (
    REFEREE,
    Applied,
    GameNotFound,
    GameRecord,
    KeyInFlight,
    KeyReused,
    Refused,
    Reply,
    StoreError,
    Unauthenticated,
    Unavailable,
    UnknownGame,
)
from service.store.values import StoredEvent

blp = Blueprint(
    "games",
    __name__,
    url_prefix="/v1/games",
    description="The games the service referees, and their records",
)


class CatalogOptionSchema(Schema):
    name = fields.String(required=True)
    type = fields.String(
        required=True, metadata={"description": "string, integer, boolean, object"}
    )
    default = fields.Raw(allow_none=True)
    choices = fields.List(fields.Raw())
    description = fields.String()


class CatalogGameSchema(Schema):
    game = fields.String(required=True, metadata={"example": "two-way"})
    title = fields.String(required=True)
    rules = fields.String(required=True, metadata={"description": "RULES.md section"})
    seats = fields.List(fields.String(), metadata={"description": "fixed seat names, if any"})
    players = fields.List(fields.Integer(), metadata={"description": "allowed player counts"})
    realtime = fields.Boolean(
        required=True,
        metadata={
            "description": "true: no turn order, every seat acts at once; a racing action "
            "names what it aimed at (based_on) and If-Match is optional"
        },
    )
    options = fields.List(fields.Nested(CatalogOptionSchema), required=True)


class CatalogSchema(Schema):
    games = fields.List(fields.Nested(CatalogGameSchema), required=True)


def catalog() -> list[dict[str, Any]]:
    """Every implemented game's catalog entry, in ENGINE_MODULES order."""
    entries = []
    for name in ENGINE_MODULES:
        try:
            module = engine(name)
        except ImportError:
            continue  # engine not written yet
        entries.append(
            {
                "game": name,
                "realtime": bool(getattr(module, "REALTIME", False)),
                **module.CATALOG[name],
            }
        )
    return entries


@blp.get("/catalog")
@blp.response(200, CatalogSchema)
def get_catalog() -> dict[str, list[dict[str, Any]]]:
    """The games the service knows, with their options and defaults."""
    return {"games": catalog()}


# ===== the game store: create, view, act, events, legal actions =====================
#
# Auth: ``Authorization: Bearer <token>`` on every /v1/games/{game_id}... route, checked
# before the body is parsed. Ruling (not revealing games): a missing, malformed or
# unknown token is 401 whatever the game id; a valid token used on any other game id
# (existing or not) is 404, exactly as an unknown id.


@blp.record_once
def _register_security_scheme(state: BlueprintSetupState) -> None:
    """Document the bearer tokens and the API key (components.securitySchemes)."""
    for entry in state.app.extensions.get("flask-smorest", {}).get("apis", {}).values():
        entry["ext_obj"].spec.components.security_scheme(
            "bearerAuth",
            {
                "type": "http",
                "scheme": "bearer",
                "description": "A seat token (acts as that seat) or the referee token, "
                "as returned by POST /v1/games.",
            },
        )
        entry["ext_obj"].spec.components.security_scheme(
            "apiKeyAuth",
            {
                "type": "apiKey",
                "in": "header",
                "name": "X-API-Key",
                "description": "Needed to create or import a game when the operator set "
                "API_KEYS (none: 401 api-key-required; another: 403 "
                "api-key-refused); not needed otherwise.",
            },
        )


# Responses carrying tokens or a caller's view: never stored by any cache. The GETs'
# ETag is the version, the same for every caller's view: Vary on Authorization too.
_NO_STORE = {
    "games.create_game",
    "games.get_game",
    "games.get_events",
    "games.get_legal_actions",
    "games.post_action",
}
_VARY_ON_AUTHORIZATION = {"games.get_game", "games.get_events", "games.get_legal_actions"}
_NO_STORE_DOC = {
    "Cache-Control": {
        "schema": {"type": "string", "example": "no-store"},
        "description": "no-store",
    }
}
_PRIVATE_DOC = {
    **_NO_STORE_DOC,
    "Vary": {
        "schema": {"type": "string", "example": "Authorization"},
        "description": "Authorization: the body is the caller's view",
    },
}


@blp.after_request
def _cache_headers(response: Response) -> Response:
    """``Cache-Control: no-store`` (and ``Vary: Authorization`` on the GETs) on every
    response of the endpoints that carry tokens or a caller's view, errors and 304s
    included."""
    endpoint = current_request().endpoint
    if endpoint in _NO_STORE:
        response.headers["Cache-Control"] = "no-store"
    if endpoint in _VARY_ON_AUTHORIZATION:
        response.vary.add("Authorization")
    return response


blp.before_request(_authenticate)  # service.api.conventions


@blp.errorhandler(StoreError)
def _store_error(error: StoreError) -> Response:
    if isinstance(error, GameNotFound):
        return _not_found()
    if isinstance(error, Unauthenticated):
        return _unauthorized(_INVALID_TOKEN, "invalid_token")
    if isinstance(error, UnknownGame):
        return problem(
            422,
            "unknown-game",
            Message(
                "unknown game %(game)s (one of %(games)s)",
                game=repr(error.args[0]),
                games=", ".join(ENGINE_MODULES),
            ),
            rule="G-O1",
        )
    if isinstance(error, KeyReused):
        return problem(
            422,
            "idempotency-key-reused",
            Message("This Idempotency-Key was used with another request."),
        )
    if isinstance(error, KeyInFlight):
        return problem(
            409,
            "idempotency-key-in-flight",
            Message("A request with this Idempotency-Key is still being processed."),
            headers={"Retry-After": "1"},
        )
    return problem(500)


@blp.errorhandler(Unavailable)
def _unavailable(error: Unavailable) -> Response:
    """503 ``unavailable`` with ``Retry-After``: the game stayed busy through every
    retry, or the database cannot be reached (stopped, connections lost)."""
    if error.outage:
        return problem(
            503,
            "unavailable",
            Message("The service cannot reach its database; retry shortly."),
            headers={"Retry-After": "2"},
        )
    return problem(
        503,
        "unavailable",
        Message("The game is busy; retry shortly."),
        headers={"Retry-After": "1"},
    )


@blp.errorhandler(RuleViolation)
def _rule_violation(error: RuleViolation) -> Response:
    return problem(error.status, error.code, error.detail, rule=error.rule, **error.extra)


def _events_out(record: GameRecord, stored: list[StoredEvent], viewer: str) -> list[dict[str, Any]]:
    """The stored events as ``viewer`` may see them, ``{"seq", "type", "seat", ...}``
    each (the engine's ``view_event`` on the game's state); hidden ones left out."""
    module, out = record.engine, []
    for event in stored:
        viewed = module.view_event(record.state, event.event, viewer)
        if viewed is not None:
            out.append(
                {
                    "seq": event.seq,
                    "type": event.event["type"],
                    "seat": event.event.get("seat"),
                    **viewed,
                }
            )
    return out


def _game_body(record: GameRecord, viewer: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": record.id,
        "game": record.game,
        "version": record.version,
        "status": record.status,
        "viewer": viewer,
        "seed_commitment": record.seed_commitment,
        "names": record.names,
    }
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
@blp.response(
    201, CreatedGameSchema, headers={"Location": {"schema": {"type": "string"}}, **_NO_STORE_DOC}
)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(403, response="FORBIDDEN")
@blp.alt_response(429, response="TOO_MANY_REQUESTS")
@blp.alt_response(503, response="SERVICE_UNAVAILABLE")
@blp.doc(
    security=API_KEY_SECURITY,
    requestBody={"required": True, "content": {"application/json": {"schema": _ref("CreateGame")}}},
)
def create_game(body: dict[str, Any]) -> Response:
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
        return _invalid_position(
            RuleViolation(
                "invalid-position",
                Message(
                    "The position is not one of %(game)s: its game is %(given)s.",
                    game=body["game"],
                    given=json.dumps(position.get("game"), ensure_ascii=False),
                ),
                422,
                rule="G-P1",
                extra={"field": "game"},
            )
        )
    seating = Seating(names=body.get("names") or {}, invite=body["invitations"])
    try:
        created = _seated(lambda: _store().create(body["game"], options, seed, position, seating))
    except RuleViolation as violation:
        if violation.code != "invalid-position":
            raise
        return _invalid_position(violation)
    return created_reply(body["game"], created)


def _seated(create: Callable[[], Reply]) -> Reply:
    """``create()``, with a name for a seat the game lacks as 422 naming it."""
    try:
        return create()
    except UnknownSeat as error:
        abort(
            422,
            code="invalid-seat",
            detail=Message("The game has no seat %(seat)s.", seat=repr(error.args[0])),
            messages={"json": {"names": {error.args[0]: ["no such seat"]}}},
        )


def created_reply(game: str, created: Reply) -> Response:
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
    return problem(
        422,
        violation.code,
        violation.detail,
        rule=violation.rule,
        errors={"json": {where: [violation.detail]}},
        **{k: v for k, v in violation.extra.items() if k != "errors"},
    )


def _seed(top: str | None, option: object) -> str | None:
    """The game's seed, given as ``seed`` or as the option ``options.seed`` (the issue's
    spelling); both must be 64 hex digits and agree (422 otherwise). None: draw one."""
    if option is not None:
        if not isinstance(option, str) or not re.fullmatch(_SEED, option):
            abort(
                422,
                code="invalid-option",
                detail=Message("option 'seed': exactly 64 hex digits"),
                messages={"json": {"options": {"seed": ["exactly 64 hex digits"]}}},
                extra={"rule": "G-M1"},
            )
        if top is not None and top.lower() != option.lower():
            abort(
                422,
                code="invalid-option",
                detail=Message("'seed' and options.seed differ"),
                messages={"json": {"options": {"seed": ["differs from seed"]}}},
                extra={"rule": "G-M1"},
            )
        top = option
    return top.lower() if top else None


@blp.get("/<game_id>")
@blp.response(200, GameViewSchema, headers={"ETag": {"schema": {"type": "string"}}, **_PRIVATE_DOC})
@blp.alt_response(304, description="Not modified (If-None-Match)")
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(security=SECURITY, parameters=[_HEADER_DOCS["If-None-Match"]])
def get_game(game_id: str) -> Response:
    """The game as the caller may see it: `view` from the engine, `version` (ETag)."""
    record = _store().current(game_id, checked_token())
    tags = _etags(current_request().headers.get("If-None-Match", ""))
    if "*" in tags or _etag(record.version) in tags:  # "*": the game exists (RFC 9110)
        response = current_flask().response_class(status=304)
        response.headers["ETag"] = _etag(record.version)
        return response
    return _reply(200, _game_body(record, current_g().actor))


@blp.post("/<game_id>/actions")
@blp.response(
    200, ActionResultSchema, headers={"ETag": {"schema": {"type": "string"}}, **_NO_STORE_DOC}
)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(403, response="FORBIDDEN")
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(409, response="CONFLICT")
@blp.alt_response(412, response="PRECONDITION_FAILED")
@blp.alt_response(428, response="PRECONDITION_REQUIRED")
@blp.alt_response(429, response="TOO_MANY_REQUESTS")
@blp.alt_response(503, response="SERVICE_UNAVAILABLE")
@blp.doc(
    security=SECURITY,
    parameters=[_HEADER_DOCS["If-Match"], _HEADER_DOCS["Idempotency-Key"]],
    requestBody={"required": True, "content": {"application/json": {"schema": _ref("Action")}}},
)
def post_action(game_id: str) -> Response:
    """Apply one action as the caller's seat (or as the referee).

    The version check is explicit: `If-Match` or `expected_version` (stale: 412
    with `version`; missing: 428). A seat token acting for another `seat`: 403.
    A refused action is a problem with the engine's `code`; nothing is written.
    """
    http, context = current_request(), current_g()
    action = blp.ARGUMENTS_PARSER.parse(_ACTION_SCHEMA, http, location="json")
    actor = context.actor
    if actor != REFEREE and "seat" in action and action["seat"] != actor:
        _store().authenticate(game_id, context.token)  # not from memory: a re-issued one is 401
        # who may act is G-M1 in server dealing, G-M2 at a table (docs/rulings.md)
        table = _store().read(game_id).options.get("dealing") == "table"
        return problem(
            403,
            "seat-mismatch",
            Message("A seat token acts only as its own seat."),
            rule="G-M2" if table else "G-M1",
        )
    expected = _expected_version(action, game_id)
    idempotency = _idempotency(game_id, actor, {"action": action, "version": expected})
    outcomes: list[Applied | Refused] = []
    (status, body), replayed = _store().act(
        game_id,
        actor,
        action,
        expected,
        _action_renderer(actor, outcomes.append),
        idempotency,
        token=context.token,
    )
    count_action(outcomes[-1] if outcomes else None, replayed)
    return _reply(status, body, replayed)


def _action_renderer(
    actor: str, seen: Callable[[Applied | Refused], None]
) -> Callable[[Applied | Refused], Reply]:
    """The reply to an action's outcome, as ``actor`` may see it (the store keeps a
    refusal's as it is and renders an accepted one again for a replay); ``seen`` is
    told each outcome rendered (the last one is the action's)."""

    def render(outcome: Applied | Refused) -> Reply:
        seen(outcome)
        if isinstance(outcome, Refused):
            return outcome.status, problem_body(
                outcome.status, outcome.code, outcome.detail, **outcome.extra
            )
        record = outcome.game
        module = record.engine
        view = module.view(record.state, actor)
        body = {
            "version": record.version,
            "status": record.status,
            "events": _events_out(record, outcome.events, actor),
            "result": view["result"],
            "view": view,
        }
        if record.finished:
            body["seed"] = record.seed
        return 200, body

    return render


@blp.get("/<game_id>/events")
@blp.arguments(EventsQuerySchema(), location="query")
@blp.response(200, EventsSchema, headers={"ETag": {"schema": {"type": "string"}}, **_PRIVATE_DOC})
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(security=SECURITY)
def get_events(query: dict[str, int], game_id: str) -> Response:
    """The caller's view of the event log after `seq` `after` (filtered by the
    engine: hidden payload removed, events hidden entirely left out)."""
    page = _store().page(game_id, query["after"], query["limit"], catch_up=True)
    record = page.game
    return _reply(
        200,
        {
            "version": record.version,
            "events": _events_out(record, page.events, current_g().actor),
            "last_seq": page.last_seq,
            "imported": record.imported,
        },
    )


@blp.get("/<game_id>/legal-actions")
@blp.doc(
    responses={
        "200": {
            "description": "OK",
            "content": {"application/json": {"schema": _ref("LegalActions")}},
            "headers": {"ETag": {"schema": {"type": "string"}}, **_PRIVATE_DOC},
        }
    }
)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(security=SECURITY)
def get_legal_actions(game_id: str) -> Response:
    """Every action the caller may POST now, as complete bodies (add If-Match or
    `expected_version` = `version`)."""
    record = _store().current(game_id, checked_token())
    actions = record.engine.legal_actions(record.state, current_g().actor)
    return _reply(200, {"game": record.game, "version": record.version, "actions": actions})
