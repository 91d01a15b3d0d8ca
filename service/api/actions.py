"""The games' action bodies and options in the contract (components.schemas).

Each game's actions are a union discriminated on ``type`` (``TwoWayAction``: one of
``TwoWayPlace``, ``TwoWayDraw``...), written here as JSON Schema because marshmallow
has no discriminated unions; the engines (service/games/) validate them at run time
and these schemas state the same constraints: the fields each type takes (no other:
``additionalProperties: false``, as every engine refuses unknown fields with 422
``invalid-action``), card codes (service/cards.py, read case-insensitively, ``T`` for
10), cells within the board, seat names. ``Action`` (the body of POST .../actions) is
any game's action; ``LegalActions`` (GET .../legal-actions) is discriminated on
``game`` and its items are that game's ``...Action``, so that a generated client posts
a listed action back as it is.

What JSON Schema cannot say is in the descriptions and refused by the engine with 422
(or 409 by the state): a tile, card or seat of this game (a custom deck, the seat
count), a division that is exact, the tile count a draw or discard takes.
"""

from __future__ import annotations

from typing import Any

from service.cards import SUITS
from service.store.seating import NAME_PATTERN

Schema = dict[str, Any]

# ----- shared pieces ---------------------------------------------------------------

_RANK = "([2-9]|10|[AaTtJjQqKk])"
_SUIT = "[" + "".join(SUITS) + "".join(SUITS).lower() + "]"
# service.cards.parse_card: rank A 2-10 (T) J Q K + suit S H D C, any case; JK a joker
CARD_PATTERN = f"^({_RANK}{_SUIT}|[Jj][Kk])$"
DECK_CARD_PATTERN = f"^{_RANK}{_SUIT}$"  # no joker (Sequence, Solitaire Frenzy)
CANONICAL_CARD_PATTERN = "^(([2-9]|10|[AJQK])[SHDC]|JK)$"
# service.games.halves.parse_card: two halves, colour R G B Y + symbol C S T X (either
# order, any case), "-", "/" or nothing between them
_HALF = "([RrGgBbYy][CcSsTtXx]|[CcSsTtXx][RrGgBbYy])"
HALVES_CARD_PATTERN = f"^{_HALF}[-/]?{_HALF}$"
# service.games.arith.parse_problem (a op b, operands up to 9 digits), or PLUS / MINUS
_OPERAND = r"[+\-\u2212]?[0-9]{1,9}"
NUMBERS_CARD_PATTERN = (
    rf"^\s*({_OPERAND}\s*[+\-\u2212xX\u00d7*/\u00f7:]\s*{_OPERAND}"
    r"|[Pp][Ll][Uu][Ss]|[Mm][Ii][Nn][Uu][Ss])\s*$"
)
SEAT_PATTERN = "^p([1-9]|1[0-4])$"  # p1, p2... (the games without fixed seats)

EXPECTED_VERSION: Schema = {
    "type": "integer",
    "minimum": 0,
    "description": "the version the action is based on (or the If-Match header)",
}


def card(pattern: str, description: str, example: str) -> Schema:
    return {"type": "string", "pattern": pattern, "description": description, "example": example}


def cell(size: int) -> Schema:
    return {
        "type": "array",
        "minItems": 2,
        "maxItems": 2,
        "items": {"type": "integer", "minimum": 0, "maximum": size - 1},
        "description": f"[row, col], 0 to {size - 1}, row 0 at the top",
        "example": [3, 4],
    }


def _action(
    name: str,
    kind: str,
    description: str,
    fields: dict[str, Schema],
    required: tuple[str, ...] = (),
    seat: Schema | None = None,
) -> tuple[str, Schema]:
    properties: dict[str, Schema] = {"type": {"type": "string", "enum": [kind]}}
    properties.update(fields)
    if seat is not None:
        properties["seat"] = seat
    properties["expected_version"] = EXPECTED_VERSION
    return name, {
        "type": "object",
        "description": description,
        "properties": properties,
        "required": ["type", *required],
        "additionalProperties": False,
    }


def _union(prefix: str, actions: list[tuple[str, Schema]]) -> dict[str, Schema]:
    """The game's action schemas plus ``<prefix>Action``: one of them, by ``type``."""
    out = dict(actions)
    mapping = {
        schema["properties"]["type"]["enum"][0]: f"#/components/schemas/{name}"
        for name, schema in actions
    }
    out[prefix + "Action"] = {
        "description": f"An action of {prefix}: one of its types (discriminated on type).",
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    return out


# ----- 2-Way Cards (RULES.md §1) -----------------------------------------------------

_TW_SEAT = {
    "type": "string",
    "enum": ["blue", "green"],
    "description": "table mode: the seat the referee acts for; a seat token may name only itself",
}
_TILE_ID = {
    "type": "integer",
    "minimum": 0,
    "maximum": 107,
    "description": "a tile id (manifest index): how the referee names tiles",
}
_FACE = card(CARD_PATTERN, "a face in the seat's colour: how a seat names its tiles", "10H")
_CARD = CARD_PATTERN[2:-2]  # one card code, unanchored
_PAIR = card(
    f"^({_CARD})/({_CARD})$",
    "table mode, the referee: a tile by its faces, blue/green (one tile of the manifest)",
    "AS/KH",
)
_TILE = {
    "oneOf": [_FACE, _PAIR, _TILE_ID],
    "description": "a face (a seat: its own colour; the referee in table mode: one face "
    "shown by a single tile of the hand or bag), a face pair or a tile "
    "id (the referee)",
}


def _two_way() -> dict[str, Schema]:
    return _union(
        "TwoWay",
        [
            _action(
                "TwoWayPlace",
                "place",
                "TW-T2: lay a tile of the hand on an empty space.",
                {"tile": _TILE, "cell": cell(7)},
                ("tile", "cell"),
                _TW_SEAT,
            ),
            _action(
                "TwoWayDraw",
                "draw",
                "TW-T2: draw up to the hand size (server mode: no "
                "tiles; table mode: the referee names the tiles drawn, by id, faces or face).",
                {"tiles": {"type": "array", "items": _TILE, "maxItems": 108}},
                (),
                _TW_SEAT,
            ),
            _action(
                "TwoWayDiscard",
                "discard",
                "TW-T2: put tiles back into the bag (as many as view.discards_due).",
                {"tiles": {"type": "array", "items": _TILE, "maxItems": 108}},
                ("tiles",),
                _TW_SEAT,
            ),
            _action(
                "TwoWayDeclare",
                "declare",
                "TW-D1: declare a line of 3 to 6 cells of one's colour as a sequence.",
                {"cells": {"type": "array", "items": cell(7), "minItems": 3, "maxItems": 6}},
                ("cells",),
                _TW_SEAT,
            ),
        ],
    )


# ----- Sequence and Sequence Numbers (RULES.md §2, §3) -------------------------------

_SQ_SEAT = {
    "type": "string",
    "pattern": SEAT_PATTERN,
    "description": "table mode: the seat the referee acts for (p1..pN)",
}
_SIDE = {"type": "string", "enum": ["green", "blue", "red"]}


def _sequence(prefix: str, card_schema: Schema) -> dict[str, Schema]:
    five = {
        "type": "array",
        "items": cell(10),
        "minItems": 5,
        "maxItems": 5,
        "description": "SQ-S5: the 5 spaces that form the sequence, when the line is longer than 5",
    }
    return _union(
        prefix,
        [
            _action(
                f"{prefix}Play",
                "play",
                "SQ-T1: play a card and place a chip.",
                {"card": card_schema, "cell": cell(10), "sequence": {**five, "nullable": True}},
                ("card", "cell"),
                _SQ_SEAT,
            ),
            _action(
                f"{prefix}RemoveChip",
                "remove-chip",
                "SQ-T3: a one-eyed Jack (MINUS) removes an opponent's unlocked chip.",
                {"card": card_schema, "cell": cell(10)},
                ("card", "cell"),
                _SQ_SEAT,
            ),
            _action(
                f"{prefix}ExchangeDeadCard",
                "exchange-dead-card",
                "SQ-T4: exchange a dead card.",
                {"card": card_schema},
                ("card",),
                _SQ_SEAT,
            ),
            _action(
                f"{prefix}Draw",
                "draw",
                "SQ-T5, table mode: the card drawn.",
                {"card": card_schema},
                ("card",),
                _SQ_SEAT,
            ),
            _action(f"{prefix}Pass", "pass", "SQ-T8: pass (no legal play).", {}, (), _SQ_SEAT),
            _action(
                f"{prefix}Penalty",
                "penalty",
                "SQ-T6 (referee): a side talked about its hand.",
                {"side": _SIDE, "offender": {**_SQ_SEAT, "nullable": True}},
                ("side",),
            ),
            _action(
                f"{prefix}PenaltyDiscard",
                "penalty-discard",
                "SQ-T6: the card the penalised seat discards.",
                {"card": card_schema},
                ("card",),
                _SQ_SEAT,
            ),
        ],
    )


# ----- Halves (RULES.md §4) ----------------------------------------------------------

_HV_CARD = card(
    HALVES_CARD_PATTERN,
    "a card of this game's deck: two halves, each a colour (R G B Y) and a symbol (C S T X)",
    "RC-GS",
)
_HV_SEAT = {"type": "string", "pattern": SEAT_PATTERN}
_TURNED = {"type": "boolean", "description": "lay the card turned round (halves swapped)"}


def _halves() -> dict[str, Schema]:
    return _union(
        "Halves",
        [
            _action(
                "HalvesPlay",
                "play",
                "HV-T1: lay a card on the central pile, aimed at "
                "its top (based_on: stale-top-card otherwise); one card per play (HV-T2).",
                {
                    "card": _HV_CARD,
                    "turned": _TURNED,
                    "based_on": {
                        **_HV_CARD,
                        "nullable": True,
                        "description": "the top card the play aims at",
                    },
                },
                ("card",),
                _HV_SEAT,
            ),
            _action("HalvesDraw", "draw", "HV-T2: draw from one's pile.", {}, (), _HV_SEAT),
            _action(
                "HalvesRetire", "retire", "HV-T6 (referee): a seat leaves.", {}, ("seat",), _HV_SEAT
            ),
            _action(
                "HalvesDeal",
                "deal",
                "HV-M1 (referee, table mode): a card dealt.",
                {"card": _HV_CARD, "turned": _TURNED},
                ("card",),
            ),
            _action(
                "HalvesBlocked",
                "blocked",
                "HV-T4 (referee, table mode): nobody can "
                "play; the card turned up, when one is ('turned' only with a 'card').",
                {"card": _HV_CARD, "turned": _TURNED},
            ),
        ],
    )


# ----- Solitaire Frenzy (RULES.md §5) ------------------------------------------------

_SF_CARD = card(DECK_CARD_PATTERN, "a card of a 52-card deck (no joker)", "5H")
_ROUND = {"type": "integer", "minimum": 1, "description": "the round the action is for"}
_COLUMN = {"type": "integer", "minimum": 0, "maximum": 3, "description": "a column, 0 to 3"}


def _solitaire_frenzy() -> dict[str, Schema]:
    seat = {"type": "string", "pattern": SEAT_PATTERN}
    return _union(
        "SolitaireFrenzy",
        [
            _action(
                "SolitaireFrenzyTurn",
                "turn",
                "SF-H1: turn cards from the hand.",
                {"round": _ROUND},
                ("round",),
                seat,
            ),
            _action(
                "SolitaireFrenzyPlay",
                "play",
                "SF-P2: a card onto a foundation pile "
                '(pile and based_on, or based_on "new" for an Ace) or a column.',
                {
                    "round": _ROUND,
                    "card": _SF_CARD,
                    "to": {"type": "string", "enum": ["foundation", "column"]},
                    "pile": {"type": "integer", "minimum": 1},
                    "based_on": {
                        "type": "string",
                        "pattern": f"^({_RANK}{_SUIT}|new)$",
                        "description": "the pile's top card, or new",
                    },
                    "column": _COLUMN,
                },
                ("round", "card", "to"),
                seat,
            ),
            _action(
                "SolitaireFrenzyMove",
                "move",
                "SF-R2: a whole column onto another.",
                {"round": _ROUND, "from_column": _COLUMN, "to_column": _COLUMN},
                ("round", "from_column", "to_column"),
                seat,
            ),
            _action(
                "SolitaireFrenzyRefill",
                "refill",
                "SF-R4: a card into an empty column.",
                {"round": _ROUND, "card": _SF_CARD, "column": _COLUMN},
                ("round", "card", "column"),
                seat,
            ),
            _action(
                "SolitaireFrenzyRetire",
                "retire",
                "SF-E3 (referee): a seat leaves.",
                {"seat": {**seat, "description": "the seat that leaves"}},
                ("seat",),
            ),
            _action(
                "SolitaireFrenzyRecordRound",
                "record-round",
                "SF-M1 (referee, table mode): a round's result.",
                {
                    "round": _ROUND,
                    "results": {
                        "type": "object",
                        "additionalProperties": {"type": "object"},
                        "description": "{seat: {board, pile, out}}",
                    },
                    "board_total": {"type": "integer", "minimum": 0},
                    "foundation_piles": {"type": "integer", "minimum": 0},
                },
                ("round", "results"),
            ),
        ],
    )


GAMES = {
    "two-way": "TwoWay",
    "sequence": "Sequence",
    "sequence-numbers": "SequenceNumbers",
    "halves": "Halves",
    "solitaire-frenzy": "SolitaireFrenzy",
}
# G-P1: each game's position schema (service.api.positions): its API module, the
# marshmallow class there, the component it is registered as (both Sequence games share one)
POSITIONS = {
    "two-way": ("service.api.two_way", "TwoWayPositionSchema", "TwoWayPosition"),
    "sequence": ("service.api.sequence", "SequencePositionSchema", "SequencePosition"),
    "sequence-numbers": ("service.api.sequence", "SequencePositionSchema", "SequencePosition"),
    "halves": ("service.api.halves", "HalvesPositionSchema", "HalvesPosition"),
    "solitaire-frenzy": (
        "service.api.solitaire_frenzy",
        "SolitaireFrenzyPositionSchema",
        "SolitaireFrenzyPosition",
    ),
}


def action_schemas() -> dict[str, Schema]:
    """Every action schema, each game's union, ``Action`` and ``LegalActions``."""
    out: dict[str, Schema] = {}
    out.update(_two_way())
    out.update(
        _sequence(
            "Sequence",
            card(DECK_CARD_PATTERN, "a card (no joker); JD/JC wild, JS/JH remove a chip", "7H"),
        )
    )
    out.update(
        _sequence(
            "SequenceNumbers",
            card(
                NUMBERS_CARD_PATTERN,
                "a problem card 'a + b', 'a - b', 'a x b', 'a / b' (also "
                "\u00d7 \u00f7 : \u2212 *; a division is exact), or PLUS (wild) / MINUS (removes "
                "a chip)",
                "6 x 7",
            ),
        )
    )
    out.update(_halves())
    out.update(_solitaire_frenzy())
    out["Action"] = {
        "description": "One action of the game's kind (the game's ...Action union; "
        "GET .../legal-actions lists them complete).",
        "anyOf": [{"$ref": f"#/components/schemas/{p}Action"} for p in GAMES.values()],
    }
    legal = {}
    for game, prefix in GAMES.items():
        legal[f"{prefix}LegalActions"] = {
            "type": "object",
            "required": ["game", "version", "actions"],
            "properties": {
                "game": {"type": "string", "enum": [game]},
                "version": {"type": "integer", "minimum": 1},
                "actions": {
                    "type": "array",
                    "items": {"$ref": f"#/components/schemas/{prefix}Action"},
                    "description": "complete action bodies: POST one as it is, "
                    "with If-Match or expected_version",
                },
            },
        }
    out.update(legal)
    out["LegalActions"] = {
        "description": "Every action the caller may POST now, typed by the game.",
        "oneOf": [{"$ref": f"#/components/schemas/{name}"} for name in legal],
        "discriminator": {
            "propertyName": "game",
            "mapping": {
                game: f"#/components/schemas/{prefix}LegalActions" for game, prefix in GAMES.items()
            },
        },
    }
    return out


def register(spec) -> None:
    """Add the schemas above to ``spec`` (an apispec APISpec)."""
    for name, schema in {**action_schemas(), **create_schemas(), **view_schemas()}.items():
        spec.components.schema(name, schema)


# ----- game creation: each game's options (the catalog, GET /v1/games/catalog) --------

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


def _option(spec: dict) -> Schema:
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
    "description": "a seat's display name: 1 to 40 characters, no control character "
    "or line break, no leading or trailing space",
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


# ----- views: what each game shows the caller (its engine's view()) ----------------------

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
