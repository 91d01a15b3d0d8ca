"""2-Way Cards options (RULES.md TW-D3, TW-E3, G-O1, TW-C2): the catalog, the
slots each variant allows, and the checks of a new game's options and manifest."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NotRequired, TypedDict

from service.cards import CardError, parse_card
from service.games import IDLE_SECONDS_MAX, RuleViolation
from service.games.two_way.state import Faces, Options
from service.games.two_way.tiles import FACE_COUNTS, GAME, SEATS, TILE_COUNT
from service.messages import Message

# TW-D3: (variant, easy_extra_threes) -> {length: removed sequences of it one may hold}
IDLE_SECONDS = 300  # G-T1: the default of idle_seconds in server dealing (turn-based)

SLOTS: dict[tuple[str, bool], dict[str, int]] = {
    ("standard", False): {"3": 1, "4": 1, "5": 1, "6": 1},
    ("easy", False): {"3": 1, "4": 1, "5": 1},
    ("easy", True): {"3": 3, "4": 1, "5": 1},
}


class OptionSpec(TypedDict):
    """One option of the catalog (G-O1): its JSON type, default and choices."""

    name: str
    type: Literal["string", "boolean", "integer", "array"]
    default: str | bool | int | None
    choices: NotRequired[list[str]]
    description: str


OPTIONS: list[OptionSpec] = [
    {
        "name": "dealing",
        "type": "string",
        "default": "server",
        "choices": ["server", "table"],
        "description": "server: the service deals and draws from the game's seed and keeps "
        "hands and bag secret; table: a referee reports the tiles drawn at a "
        "physical table (by manifest id).",
    },
    {
        "name": "variant",
        "type": "string",
        "default": "standard",
        "choices": ["standard", "easy"],
        "description": "TW-D3: standard needs sequences of 3, 4, 5 and 6; easy of 3, 4 and 5.",
    },
    {
        "name": "easy_extra_threes",
        "type": "boolean",
        "default": False,
        "description": "TW-D3, variant easy only: hold three sequences of 3, one of 4, one of 5.",
    },
    {
        "name": "win_condition",
        "type": "string",
        "default": "first_complete",
        "choices": ["first_complete", "score"],
        "description": "TW-E3: first_complete: the first player to hold every required "
        "length wins outright, whatever the points (the scores decide only "
        "a full grid, TW-E2); score: the higher score wins every end, even "
        "against the player who completed the set.",
    },
    {
        "name": "first_seat",
        "type": "string",
        "default": "blue",
        "choices": list(SEATS),
        "description": "G-O1, TW-T1: the seat that plays first (also accepted under its "
        "older name first_player).",
    },
    {
        "name": "idle_seconds",
        "type": "integer",
        "default": IDLE_SECONDS,
        "description": "G-T1: a seat on turn for this many seconds (1 to 604800) loses the "
        "rest of its turn (turn-timed-out, then a skipped turn, TW-T5); "
        "null: never. Default 300 in server dealing; off (null) in table dealing, where "
        "a number is refused.",
    },
    {
        "name": "tile_manifest",
        "type": "array",
        "default": None,
        "description": 'TW-C2: 108 tiles [{"blue": card, "green": card}, ...] copying a '
        "physical set (tile id = index); each colour's faces are two 52-card "
        "decks plus 4 jokers, no tile shows one card on both faces. A custom "
        "manifest is always used as given. Default (none given): table "
        "dealing uses the shipped pairing seeds/two-way-tiles.json as it is; "
        "server dealing re-pairs the shipped faces secretly from the game's "
        "seed (the shipped pairing is public: a seat could otherwise read the "
        "other colour of every tile it sees), revealed with the seed.",
    },
]

CATALOG: dict[str, dict[str, object]] = {
    GAME: {
        "title": "2-Way Cards",
        "rules": "RULES.md §1",
        "seats": list(SEATS),
        "players": [2],
        "options": OPTIONS,
    }
}

# G-R1: the rule an option applies (an invalid-option refusal names it)
_OPTION_RULES = {
    "dealing": "G-M1",
    "variant": "TW-D3",
    "easy_extra_threes": "TW-D3",
    "win_condition": "TW-E3",
    "first_seat": "G-O1",
    "first_player": "G-O1",
    "tile_manifest": "TW-C2",
    "idle_seconds": "G-T1",
}
FIRST_PLAYER = "first_player"  # G-O1: the older name of first_seat, still accepted
_SPECS = {spec["name"]: spec for spec in OPTIONS}


def invalid_option(name: str, detail: Message) -> RuleViolation:
    return RuleViolation(
        "invalid-option",
        Message("option %(name)s: %(detail)s", name=repr(name), detail=detail),
        422,
        rule=_OPTION_RULES.get(name, "G-O1"),
    )


def _choice(options: Mapping[str, object], name: str) -> str:
    """A string option's value (default when absent), one of its choices."""
    spec = _SPECS[name]
    value = options.get(name, spec["default"])
    if not isinstance(value, str) or value not in spec["choices"]:
        raise invalid_option(
            name, Message("must be one of %(choices)s", choices=", ".join(spec["choices"]))
        )
    return value


def _flag(options: Mapping[str, object], name: str) -> bool:
    """A boolean option's value (default when absent)."""
    value = options.get(name, _SPECS[name]["default"])
    if not isinstance(value, bool):
        raise invalid_option(name, Message("must be true or false"))
    return value


def validate_manifest(manifest: object) -> list[Faces]:
    """TW-C2: the canonical manifest, or RuleViolation invalid-option (422).

    108 tiles ``{"blue": code, "green": code}``; each colour's faces are exactly two
    52-card decks plus 4 jokers; no tile shows the same card on both faces.
    """
    if not isinstance(manifest, list) or len(manifest) != TILE_COUNT:
        raise invalid_option(
            "tile_manifest", Message("must be a list of %(count)s tiles", count=TILE_COUNT)
        )
    tiles: list[Faces] = []
    for i, tile in enumerate(manifest):
        if not isinstance(tile, dict) or set(tile) != set(SEATS):
            raise invalid_option(
                "tile_manifest",
                Message('tile %(index)s must be {"blue": card, "green": card}', index=i),
            )
        try:
            faces = {seat: parse_card(tile[seat]) for seat in SEATS}
        except CardError as error:
            raise invalid_option(
                "tile_manifest", Message("tile %(index)s: %(error)s", index=i, error=error.message)
            ) from None
        if faces["blue"] == faces["green"]:
            raise invalid_option(
                "tile_manifest",
                Message("tile %(index)s shows %(card)s on both faces", index=i, card=faces["blue"]),
            )
        tiles.append(faces)
    for seat in SEATS:
        counts: dict[str, int] = {}
        for tile in tiles:
            counts[tile[seat]] = counts.get(tile[seat], 0) + 1
        if counts != FACE_COUNTS:
            wrong = sorted(
                c
                for c in set(counts) | set(FACE_COUNTS)
                if counts.get(c, 0) != FACE_COUNTS.get(c, 0)
            )
            raise invalid_option(
                "tile_manifest",
                Message(
                    "the %(seat)s faces are not two decks plus 4 jokers (wrong counts: %(cards)s)",
                    seat=seat,
                    cards=", ".join(wrong[:6]),
                ),
            )
    return tiles


def _idle_seconds(options: Mapping[str, object], dealing: str) -> int | None:
    """G-T1: option idle_seconds, an integer from 1 to IDLE_SECONDS_MAX or None;
    default 300 in server dealing, None (off) in table dealing, where a number is
    refused (the referee reports the table: no seat's turn runs out)."""
    value = options.get("idle_seconds", IDLE_SECONDS if dealing == "server" else None)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= IDLE_SECONDS_MAX:
        raise RuleViolation(
            "invalid-option",
            Message(
                "idle_seconds must be a whole number of seconds from 1 to %(most)s, or null",
                most=IDLE_SECONDS_MAX,
            ),
            422,
            rule="G-T1",
        )
    if dealing == "table":
        raise RuleViolation(
            "invalid-option",
            Message(
                "option 'idle_seconds' is off in table dealing: the "
                "referee reports the table (G-T1)"
            ),
            422,
            rule="G-T1",
        )
    return value


def normalise_options(options: object) -> tuple[Options, list[Faces] | None]:
    """(options with defaults, the custom manifest or None) or RuleViolation
    invalid-option (422).

    G-O1: ``first_player`` is read as ``first_seat`` (naming both with different
    seats is refused); the options returned name it ``first_seat``.
    """
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise RuleViolation(
            "invalid-option", Message("options must be an object"), 422, rule="G-O1"
        )
    known = {spec["name"] for spec in OPTIONS}
    for name in options:
        if name not in known | {FIRST_PLAYER}:
            raise invalid_option(
                name, Message("unknown option (known: %(known)s)", known=", ".join(sorted(known)))
            )
    if FIRST_PLAYER in options:
        older = options[FIRST_PLAYER]
        if options.get("first_seat", older) != older:
            raise invalid_option(
                "first_seat",
                Message("first_seat and first_player (its older name) name different seats"),
            )
        options = {**{k: v for k, v in options.items() if k != FIRST_PLAYER}, "first_seat": older}
    dealing = _choice(options, "dealing")
    chosen: Options = {  # in the catalog's order, each checked in turn
        "dealing": dealing,
        "variant": _choice(options, "variant"),
        "easy_extra_threes": _flag(options, "easy_extra_threes"),
        "win_condition": _choice(options, "win_condition"),
        "first_seat": _choice(options, "first_seat"),
        "idle_seconds": _idle_seconds(options, dealing),
    }
    if chosen["easy_extra_threes"] and chosen["variant"] != "easy":
        # Ruling (TW-D3): the extra 3-slots are a rule of the easy variant only.
        raise invalid_option("easy_extra_threes", Message("requires variant easy"))
    custom = options.get("tile_manifest")
    return chosen, None if custom is None else validate_manifest(custom)
