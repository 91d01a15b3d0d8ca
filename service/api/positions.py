"""Positions (G-P1): the notation in the contract, and ``GET /v1/games/{id}/position``.

A position is plain JSON in the game's own words, one schema per game (the same
notation for input, ``POST /v1/games`` with ``position``, and output, this endpoint),
always carrying ``game``, the discriminator. Each game's schema is a marshmallow
class of its API module (:data:`service.api.actions.POSITIONS`: e.g.
``service.api.two_way.TwoWayPositionSchema``, registered as ``TwoWayPosition``);
while a game's class is not written yet its component is an open object with a
``game``. The engine's own validation (``start_from_position``) is the authority for
what is reachable: the service checks no more than that the body's ``position`` is an
object of the body's ``game`` before handing it over.

Authentication and the store's errors are those of :mod:`service.api.games`.
"""

from __future__ import annotations

import importlib

from apispec.exceptions import DuplicateComponentNameError
from flask import Response, current_app, g, request
from marshmallow import Schema, fields

from service.api import games
from service.api.actions import GAMES, POSITIONS
from service.api.base import Blueprint
from service.errors import problem
from service.messages import Message
from service.store import StoreError, Unavailable, get_store

blp = Blueprint(
    "positions",
    __name__,
    url_prefix="/v1/games",
    description="Positions (G-P1): a game's position in its notation",
)
blp.before_request(games._authenticate)  # noqa: SLF001 - the same bearer tokens
blp.errorhandler(StoreError)(games._store_error)  # noqa: SLF001
blp.errorhandler(Unavailable)(games._unavailable)  # noqa: SLF001


def position_class(game: str) -> type[Schema] | None:
    """The marshmallow schema of ``game``'s position (e.g. ``TwoWayPositionSchema`` of
    service.api.two_way), or None while that game's is not written."""
    module, name, _ = POSITIONS[game]
    return getattr(importlib.import_module(module), name, None)


def _open_schema(games_named: list[str]) -> dict:
    """The component of a position whose schema is not written yet: an object with
    ``game``, every other member as the engine documents it."""
    return {
        "type": "object",
        "required": ["game"],
        "additionalProperties": True,
        "properties": {"game": {"type": "string", "enum": games_named}},
        "description": "A position in the game's notation (README, Positions); "
        "checked by the engine (422 invalid-position, naming the "
        "field and the rule).",
    }


def register(spec) -> None:
    """Add each game's position component (its class when written, else an open
    object) and ``AnyPosition``, one of them discriminated on ``game``, to ``spec``."""
    components: dict[str, list[str]] = {}
    for game in GAMES:
        components.setdefault(POSITIONS[game][2], []).append(game)
    for component, named in components.items():
        schema = position_class(named[0])
        try:
            if schema is None:
                spec.components.schema(component, _open_schema(named))
            else:
                spec.components.schema(component, schema=schema)
        except DuplicateComponentNameError:
            pass  # registered already (by its own API module)
    spec.components.schema(
        "AnyPosition",
        {
            "description": "A position in its game's notation (G-P1), typed by `game`.",
            "oneOf": [{"$ref": f"#/components/schemas/{name}"} for name in components],
            "discriminator": {
                "propertyName": "game",
                "mapping": {game: f"#/components/schemas/{POSITIONS[game][2]}" for game in GAMES},
            },
        },
    )


class GamePositionSchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "also the ETag"})
    viewer = fields.String(required=True, metadata={"description": "a seat or referee"})
    position = fields.Raw(
        required=True,
        metadata={
            "description": "the position as you may see it (AnyPosition: one per game, by "
            "`game`); the referee's of a table game, or anyone's once the "
            "game is over, POSTed back as `position` makes the same game",
            "allOf": [{"$ref": "#/components/schemas/AnyPosition"}],
        },
    )


@blp.after_request
def _private(response: Response) -> Response:
    """The caller's position: never kept by a cache, and it varies by token."""
    response.headers["Cache-Control"] = "no-store"
    response.vary.add("Authorization")
    return response


@blp.get("/<game_id>/position")
@blp.response(
    200, GamePositionSchema, headers={"ETag": {"schema": {"type": "string"}}, **games._PRIVATE_DOC}
)  # noqa: SLF001
@blp.alt_response(304, description="Not modified (If-None-Match)")
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(
    security=games.SECURITY,
    operationId="getGamePosition",
    parameters=[games._HEADER_DOCS["If-None-Match"]],
)  # noqa: SLF001
def get_position(game_id: str):
    """The game's position in its notation as the caller may see it (G-P1): a seat
    sees other seats' hidden cards as counts (G-M1); the referee of a table game sees
    what the table reported; once the game is over everyone sees everything. The
    referee's position of a table game or of a finished game, POSTed back as
    `position` to /v1/games, makes a game whose view equals this one's.

    `version` is the ETag (If-None-Match: 304 while unchanged). A game whose engine
    has no notation yet: 404 `position-unavailable`.
    """
    record = get_store(current_app).current(game_id)
    tag = games._etag(record.version)  # noqa: SLF001
    tags = games._etags(request.headers.get("If-None-Match", ""))  # noqa: SLF001
    if "*" in tags or tag in tags:
        response = current_app.response_class(status=304)
        response.headers["ETag"] = tag
        return response
    render = getattr(record.engine, "position", None)
    if render is None:
        return problem(
            404,
            "position-unavailable",
            Message("%(game)s has no position notation yet.", game=record.game),
            rule="G-P1",
        )
    return games._reply(
        200,
        {  # noqa: SLF001
            "id": record.id,
            "game": record.game,
            "version": record.version,
            "viewer": g.actor,
            "position": render(record.state, g.actor),
        },
    )
