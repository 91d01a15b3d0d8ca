"""Solitaire Frenzy options and the deal (RULES.md §5: SF-P0, SF-P1, G-O1)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.cards import DECK
from service.games import IDLE_SECONDS_MAX, RuleViolation
from service.games.rng import shuffle
from service.games.solitaire_frenzy.cards import COLUMNS, GAME, PILE_SIZE, PLAYERS
from service.games.solitaire_frenzy.state import Layout, Options
from service.messages import Message

IDLE_SECONDS = 120  # G-T1's default in server dealing (off in table dealing)


def _option(
    name: str,
    type_: str,
    default: Any,
    description: str,
    choices: list[int] | list[str] | None = None,
) -> dict[str, Any]:
    """One catalog option entry."""
    entry: dict[str, Any] = {
        "name": name,
        "type": type_,
        "default": default,
        "description": description,
    }
    if choices is not None:
        entry["choices"] = choices
    return entry


CATALOG: dict[str, dict[str, Any]] = {
    GAME: {
        "title": "Solitaire Frenzy",
        "rules": "RULES.md §5 (SF-*)",
        "players": list(PLAYERS),
        "options": [
            _option(
                "players",
                "integer",
                2,
                "player count, each with a 52-card deck (SF-P0); seats p1..pN",
                list(PLAYERS),
            ),
            _option(
                "dealing",
                "string",
                "server",
                "server: the service deals every "
                "round and referees every card; table: physical cards, the referee "
                "records each round's result per seat (SF-M1)",
                ["server", "table"],
            ),
            _option("rounds", "integer", 3, "rounds in a game (SF-E2)", list(range(1, 11))),
            _option(
                "pile_penalty",
                "integer",
                1,
                "points lost per card left in a "
                "seat's 13-pile at the end of a round (SF-E2; the sheet: 1, Nertz: 2)",
                list(range(6)),
            ),
            _option(
                "one_pile_per_suit",
                "boolean",
                False,
                "SF-F1: at most one open "
                "foundation pile per suit; a completed pile (up to the King) frees "
                "its suit",
            ),
            _option(
                "play_order",
                "string",
                "free",
                "SF-O1: strict refuses a waste play "
                "while the same seat could play its 13-pile top or a column card",
                ["free", "strict"],
            ),
            _option(
                "idle_seconds",
                "integer",
                IDLE_SECONDS,
                "G-T1: a seat that still has "
                "a productive move (or has not turned through its hand) while every "
                "other seat has had none for this many seconds is treated as having no "
                "move (SF-E1); an integer 1 to 604800, or null for off. Default: 120 in "
                "server dealing, null (off) in table dealing, where it must stay off",
            ),
            _option(
                "first_seat",
                "string",
                "p1",
                'G-O1: the seat that calls "¡Vamos!" '
                "(p1..pN); everyone then starts at the same time, so it changes "
                "nothing in play",
            ),
        ],
    },
}


# the rule each option belongs to (G-R1: an invalid option names it)
_OPTION_RULES = {
    "players": "SF-P0",
    "dealing": "SF-M1",
    "rounds": "SF-E2",
    "pile_penalty": "SF-E2",
    "one_pile_per_suit": "SF-F1",
    "play_order": "SF-O1",
    "first_seat": "G-O1",
    "idle_seconds": "G-T1",
}


def invalid_option(detail: Message, name: str | None = None) -> RuleViolation:
    """422 ``invalid-option`` citing the option's rule; options that are not an object,
    an unknown option or game cite G-O1 (G-R1)."""
    rule = "G-O1" if name is None else _OPTION_RULES.get(name, "G-O1")
    return RuleViolation("invalid-option", detail, 422, rule)


def normalise_options(options: Any) -> Options:
    """Every option of the catalog with its default filled in; RuleViolation
    ``invalid-option`` (422) for an unknown option or a value outside its choices."""
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise invalid_option(Message("options must be an object"))
    specs = CATALOG[GAME]["options"]
    unknown = sorted(set(options) - {spec["name"] for spec in specs})
    if unknown:
        raise invalid_option(
            Message(
                "unknown option %(name)s (known: %(known)s)",
                name=repr(unknown[0]),
                known=sorted(spec["name"] for spec in specs),
            )
        )
    out: dict[str, Any] = {}
    for spec in specs:
        name, value = spec["name"], options.get(spec["name"])
        if name == "idle_seconds":
            continue
        if value is None:
            value = spec["default"]
        elif type(value) is not type(spec["default"]):  # 2.0 or true is no player count
            raise invalid_option(
                Message(
                    "%(name)s must be of type %(type)s, not %(value)s",
                    name=name,
                    type=spec["type"],
                    value=repr(value),
                ),
                name,
            )
        elif "choices" in spec and value not in spec["choices"]:
            raise invalid_option(
                Message(
                    "%(name)s must be one of %(allowed)s, not %(value)s",
                    name=name,
                    allowed=spec["choices"],
                    value=repr(value),
                ),
                name,
            )
        out[name] = value
    out["idle_seconds"] = _idle_seconds(options, out["dealing"])
    if out["first_seat"] not in seats_of(out["players"]):
        raise invalid_option(
            Message(
                "%(name)s must be one of %(allowed)s, not %(value)s",
                name="first_seat",
                allowed=seats_of(out["players"]),
                value=repr(out["first_seat"]),
            ),
            "first_seat",
        )
    return {
        "players": out["players"],
        "dealing": out["dealing"],
        "rounds": out["rounds"],
        "pile_penalty": out["pile_penalty"],
        "one_pile_per_suit": out["one_pile_per_suit"],
        "play_order": out["play_order"],
        "first_seat": out["first_seat"],
        "idle_seconds": out["idle_seconds"],
    }


def _idle_seconds(options: Mapping[str, Any], dealing: str) -> int | None:
    """G-T1: ``idle_seconds`` as given (null: off), else the dealing's default; an
    integer from 1 to IDLE_SECONDS_MAX, and off in table dealing."""
    default = IDLE_SECONDS if dealing == "server" else None
    value = options.get("idle_seconds", default)
    if value is None:
        return None
    if type(value) is not int or not 1 <= value <= IDLE_SECONDS_MAX:
        raise invalid_option(
            Message(
                "idle_seconds must be a whole number of seconds from 1 to %(most)s, or null",
                most=IDLE_SECONDS_MAX,
            ),
            "idle_seconds",
        )
    if dealing == "table":
        raise invalid_option(
            Message(
                "idle_seconds is off in table dealing: the referee "
                "reports what the table does (G-T1)"
            ),
            "idle_seconds",
        )
    return value


def seats_of(players: int) -> list[str]:
    """The seats p1..pN."""
    return [f"p{i}" for i in range(1, players + 1)]


def deal(seed: str, number: int, seat: str) -> Layout:
    """SF-P1: the seat's layout for round ``number``: its deck shuffled (label
    ``round-N-SEAT``), 13 cards to the pile (the 13th on top), 4 columns of one card,
    the other 35 face down in hand (next to turn first), an empty waste."""
    deck = shuffle(DECK, seed, f"round-{number}-{seat}")
    return {
        "pile": deck[:PILE_SIZE],
        "columns": [[card] for card in deck[PILE_SIZE : PILE_SIZE + COLUMNS]],
        "hand": deck[PILE_SIZE + COLUMNS :],
        "waste": [],
        "pass": [],
        "reach": None,
    }
