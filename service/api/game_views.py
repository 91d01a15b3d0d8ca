"""The games' views in the contract (components.schemas): what each game shows the
caller (its engine's ``view()``), in GET /v1/games/{id} and in an action's reply;
``View`` is one of them, discriminated on ``game``. Registered with the action schemas
by :func:`service.api.actions.register`.
"""

from __future__ import annotations

from service.api.actions import GAMES, Schema

_COMMON_VIEW: dict[str, Schema] = {
    "status": {"type": "string", "enum": ["active", "finished"]},
    "seats": {"type": "array", "items": {"type": "string"}},
    "options": {"type": "object", "description": "the game's options, defaults filled in"},
    "seed_commitment": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
    "result": {
        "nullable": True,
        "allOf": [{"$ref": "#/components/schemas/Result"}],
        "description": "null while the game runs",
    },
}
# the fields every viewer of the game sees (the engine's view() docstring has the rest)
_VIEW_FIELDS: dict[str, dict[str, Schema]] = {
    "two-way": {
        "turn_number": {"type": "integer", "minimum": 0},
        "bag_count": {"type": "integer", "minimum": 0},
        "grid": {
            "type": "array",
            "minItems": 7,
            "maxItems": 7,
            "items": {"type": "array", "minItems": 7, "maxItems": 7, "items": {}},
        },
    },
    "sequence": {
        "turn_number": {"type": "integer", "minimum": 0},
        "deck_count": {"type": "integer", "minimum": 0},
        "chips": {
            "type": "array",
            "minItems": 10,
            "maxItems": 10,
            "items": {
                "type": "array",
                "minItems": 10,
                "maxItems": 10,
                "items": {"nullable": True, "allOf": [{"$ref": "#/components/schemas/Side"}]},
            },
        },
    },
    "halves": {
        "central_pile": {"type": "integer", "minimum": 0},
        "hand_counts": {
            "type": "object",
            "additionalProperties": {"type": "integer", "minimum": 0},
        },
    },
    "solitaire-frenzy": {
        "round": {"type": "integer", "minimum": 1},
        "rounds": {"type": "integer", "minimum": 1},
        "foundations": {"type": "array", "items": {"type": "object"}},
    },
}
_VIEW_FIELDS["sequence-numbers"] = _VIEW_FIELDS["sequence"]


def view_schemas() -> dict[str, Schema]:
    """``<Game>View`` per game (its common fields typed, the others open) and
    ``View``: one of them, discriminated on ``game``."""
    out: dict[str, Schema] = {"Side": {"type": "string", "enum": ["green", "blue", "red"]}}
    for game, prefix in GAMES.items():
        properties = {
            "game": {"type": "string", "enum": [game]},
            **_COMMON_VIEW,
            **_VIEW_FIELDS[game],
        }
        out[f"{prefix}View"] = {
            "type": "object",
            "description": f"The game as a viewer may see it ({game}: "
            "the engine's view; hidden cards never).",
            "properties": properties,
            "required": sorted(properties),
            "additionalProperties": True,
        }
    out["View"] = {
        "description": "The engine's view for the caller, typed by its game.",
        "oneOf": [{"$ref": f"#/components/schemas/{p}View"} for p in GAMES.values()],
        "discriminator": {
            "propertyName": "game",
            "mapping": {game: f"#/components/schemas/{p}View" for game, p in GAMES.items()},
        },
    }
    return out
