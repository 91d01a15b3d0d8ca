"""The games' action bodies in the contract (components.schemas).

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

Game creation's schemas (each game's options, ``CreateGame``) are in
:mod:`service.api.creation`, the views' (``View``) in :mod:`service.api.game_views`;
:func:`register` adds all of them to the contract.
"""

from __future__ import annotations

from typing import Any

from service.cards import SUITS

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
    """Add the schemas above, game creation's (:mod:`service.api.creation`) and the
    views' (:mod:`service.api.game_views`) to ``spec`` (an apispec APISpec)."""
    # imported here: both modules build on this one's GAMES and patterns
    from service.api.creation import create_schemas
    from service.api.game_views import view_schemas

    for name, schema in {**action_schemas(), **create_schemas(), **view_schemas()}.items():
        spec.components.schema(name, schema)
