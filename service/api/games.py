"""Game catalog (and, from the store issue on, the game store endpoints)."""
from __future__ import annotations

from marshmallow import Schema, fields

from service.api.base import Blueprint
from service.games import ENGINE_MODULES, engine

blp = Blueprint("games", __name__, url_prefix="/v1/games",
                description="The games the service referees, and their records")


class CatalogOptionSchema(Schema):
    name = fields.String(required=True)
    type = fields.String(required=True, metadata={"description": "string, integer, boolean, object"})
    default = fields.Raw(allow_none=True)
    choices = fields.List(fields.Raw())
    description = fields.String()


class CatalogGameSchema(Schema):
    game = fields.String(required=True, metadata={"example": "two-way"})
    title = fields.String(required=True)
    rules = fields.String(required=True, metadata={"description": "RULES.md section"})
    seats = fields.List(fields.String(), metadata={"description": "fixed seat names, if any"})
    players = fields.List(fields.Integer(), metadata={"description": "allowed player counts"})
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
        entries.append({"game": name, **module.CATALOG[name]})
    return entries


@blp.get("/catalog")
@blp.response(200, CatalogSchema)
def get_catalog():
    """The games the service knows, with their options and defaults."""
    return {"games": catalog()}
