"""Game creation in the contract (components.schemas): each game's options as the
catalog states them (GET /v1/games/catalog), the seating members every game shares,
``<Game>CreateGame`` and ``CreateGame`` (the body of POST /v1/games, discriminated on
``game``). Registered with the action schemas by :func:`service.api.actions.register`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.api.actions import GAMES, POSITIONS, SEAT_PATTERN, Schema
from service.store.seating import NAME_PATTERN

SEED = {
    "type": "string",
    "pattern": "^[0-9a-fA-F]{64}$",
    "description": "Exactly 64 hex digits (upper case is lowercased). Drawn from a "
    "CSPRNG when absent; seed_commitment is the SHA-256 of its "
    "lowercase hex text; shown once the game is finished.",
}
# what JSON Schema does not say about an option, checked by the engine (422 invalid-option)
_CROSS = {
    "first_seat": "one of the game's seats (p1..pN for N players)",
    "sides": "divides players (G-O1)",
    "sequences_to_win": "default 2 with two sides, 1 with three",
    "easy_extra_threes": "only with variant easy",
    "tile_manifest": "108 tiles; each colour's faces are two 52-card decks plus 4 jokers",
    "board": "10 rows of 10 (SN-C0); see the catalog",
    "deck": "a custom deck; see the catalog",
}


def _option(spec: Mapping[str, Any]) -> Schema:
    """One catalog option as JSON Schema (its type, its choices)."""
    kinds = {
        "string": "string",
        "integer": "integer",
        "boolean": "boolean",
        "array": "array",
        "object": "object",
    }
    out: Schema = {"type": kinds[spec["type"]]}
    if spec.get("choices"):
        out["enum"] = list(spec["choices"])
    elif spec["name"] == "first_seat":
        out["pattern"] = SEAT_PATTERN
    if (
        spec.get("default") is None
        and spec["type"] in ("array", "object", "integer")
        or spec.get("nullable")
    ):
        out["nullable"] = True
    if spec.get("minimum") is not None:
        out["minimum"] = spec["minimum"]
    if spec["type"] == "array":
        out["items"] = {}
    description = spec.get("description", "")
    if spec["name"] in _CROSS:
        description += f" Also: {_CROSS[spec['name']]} (422 invalid-option otherwise)."
    out["description"] = description.strip()
    if spec.get("default") is not None:
        out["default"] = spec["default"]
    return out


# creation's seating members (service/store/seating.py), the same for every game
NAME = {
    "type": "string",
    "minLength": 1,
    "maxLength": 40,
    "pattern": NAME_PATTERN,
    "description": "a seat's display name: 1 to 40 characters, no control, direction "
    "or invisible character or line break, no leading or trailing space; at least one "
    "visible character, at most 4 combining marks in a row",
}
SEATING: dict[str, Schema] = {
    "names": {
        "type": "object",
        "additionalProperties": NAME,
        "description": "seat -> display name (a seat the game does not have: 422)",
    },
    "invitations": {
        "type": "boolean",
        "default": False,
        "description": "true: each seat gets a single-use invitation (and a join_url) instead "
        "of its token; a player joins with POST "
        "/v1/games/{id}/seats/{seat}/join",
    },
}


def create_schemas() -> dict[str, Schema]:
    """``<Game>Options`` and ``<Game>CreateGame`` per game, and ``CreateGame``: one of
    them, discriminated on ``game``. Ruling: the contract names the seed ``seed`` only;
    the service still reads ``options.seed`` (the older spelling) when it equals it."""
    from service.games import engine

    out: dict[str, Schema] = {}
    for game, prefix in GAMES.items():
        options = {spec["name"]: _option(spec) for spec in engine(game).CATALOG[game]["options"]}
        if game == "two-way":
            options["first_player"] = {
                **options["first_seat"],
                "deprecated": True,
                "description": "the older name of first_seat",
            }
        out[f"{prefix}Options"] = {
            "type": "object",
            "properties": options,
            "additionalProperties": False,
        }
        out[f"{prefix}CreateGame"] = {
            "type": "object",
            "required": ["game"],
            "additionalProperties": False,
            "properties": {
                "game": {"type": "string", "enum": [game]},
                "options": {"$ref": f"#/components/schemas/{prefix}Options"},
                "seed": SEED,
                **SEATING,
                "position": {
                    "$ref": f"#/components/schemas/{POSITIONS[game][2]}",
                    "description": "G-P1: start from this stated position "
                    "(its game is this game's) instead of a "
                    "fresh deal; an API key is needed as for "
                    "any creation when the operator set "
                    "API_KEYS",
                },
            },
        }
    out["CreateGame"] = {
        "description": "A new game: its kind, its options (the catalog), a seed, and "
        "optionally the position it starts from (G-P1).",
        "oneOf": [{"$ref": f"#/components/schemas/{p}CreateGame"} for p in GAMES.values()],
        "discriminator": {
            "propertyName": "game",
            "mapping": {game: f"#/components/schemas/{p}CreateGame" for game, p in GAMES.items()},
        },
    }
    return out
