"""The deal and the options: seats, sides, hand sizes, the created game (SQ-P1, SQ-P2,
SN-P1, SN-P2, SQ-S3, SN-S1, SQ-E1 options)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.games import IDLE_SECONDS_MAX
from service.games.sequence.cards import (
    CLASSIC,
    CLASSIC_BOARD,
    CLASSIC_DECK,
    CLASSIC_HAND,
    NUMBERS,
    NUMBERS_BOARD,
    NUMBERS_DECK,
    NUMBERS_PLAYERS,
    SIDES,
    _board_data,
    _invalid_option,
    _is_int,
    _validate_board,
    _validate_deck,
)
from service.games.sequence.fold import _emit, fold
from service.games.sequence.state import Event, Options, Setup
from service.messages import Message


def _option(
    name: str, type_: str, default: Any, description: str, choices: list[Any] | None = None
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": name,
        "type": type_,
        "default": default,
        "description": description,
    }
    if choices is not None:
        entry["choices"] = choices
    return entry


IDLE_DEFAULT = 300  # G-T1: seconds on turn before the turn is lost (server dealing)
MAX_IDLE = IDLE_SECONDS_MAX  # G-T1, every game's

_COMMON_OPTIONS = [
    _option(
        "sides",
        "integer",
        None,
        "2 or 3 sides (SQ-P1/SN-P1); null: 2 when the "
        "players split into 2 equal teams, else 3; players <= 3 in Sequence "
        "Numbers play individually",
        [2, 3],
    ),
    _option(
        "dealing",
        "string",
        "server",
        "server: the service shuffles, deals and "
        "draws; table: physical cards, the referee reports every card dealt or "
        "drawn",
        ["server", "table"],
    ),
    _option(
        "sequences_to_win", "integer", None, "null: as the rules say (SQ-S3 / SN-S1)", [1, 2, 3, 4]
    ),
    _option("first_seat", "string", "p1", "the seat that plays first (p1..pN)"),
    _option(
        "stalemate_decks",
        "integer",
        2,
        "SQ-E1 ruling: when the deck runs out, the "
        "game ends as a stalemate if this many whole decks in a row brought no new "
        "sequence and the board is closed (no space can take a new chip of a side "
        "that could still build a sequence there), or after 4 times this many such "
        "decks while it is open",
        list(range(1, 11)),
    ),
    _option(
        "stalemate",
        "string",
        "draw",
        "SQ-E1 ruling: a game ended by a stalemate or "
        "by a round of passes is a draw (no side reached its target); "
        "most_sequences: the side with more sequences wins it (equal counts draw)",
        ["draw", "most_sequences"],
    ),
    _option(
        "idle_seconds",
        "integer",
        IDLE_DEFAULT,
        "G-T1 ruling: a seat on turn this many "
        "seconds (1 to 604800) loses that turn, recorded as turn-timed-out and a "
        "pass; null: never. Default: 300 in server dealing; off (null) in table "
        "dealing, where a number is refused",
    ),
]

CATALOG: dict[str, dict[str, Any]] = {
    CLASSIC: {
        "title": "Sequence",
        "rules": "RULES.md §2 (SQ-*)",
        "players": sorted(CLASSIC_HAND),
        "options": [
            _option("players", "integer", 2, "player count (SQ-P2)", sorted(CLASSIC_HAND)),
            *_COMMON_OPTIONS,
        ],
    },
    NUMBERS: {
        "title": "Sequence Numbers",
        "rules": "RULES.md §3 (SN-*)",
        "players": list(NUMBERS_PLAYERS),
        "options": [
            _option("players", "integer", 2, "player count (SN-P1)", list(NUMBERS_PLAYERS)),
            *_COMMON_OPTIONS,
            _option(
                "board",
                "array",
                None,
                "custom board: 10 rows of 10, the 4 corners "
                "FREE (or null), every other space an integer, each number on exactly "
                "two spaces; null: the shipped default (SN-C0)",
            ),
            _option(
                "deck",
                "array",
                None,
                "custom deck: problem cards 'a + b', 'a - b', "
                "'a x b', 'a / b' whose answers are on the board, plus PLUS and MINUS "
                "cards; null: the shipped default (SN-C0)",
            ),
        ],
    },
}


def _players(game: str, options: Mapping[str, Any]) -> int:
    players = options.get("players", 2)
    allowed = sorted(CLASSIC_HAND) if game == CLASSIC else list(NUMBERS_PLAYERS)
    if not _is_int(players) or players not in allowed:
        rule = "SQ-P2" if game == CLASSIC else "SN-P1"
        if players == 5:
            raise _invalid_option(
                Message(
                    "players must be one of %(allowed)s (5 players "
                    "cannot form 2 or 3 equal teams) (%(rule)s)",
                    allowed=allowed,
                    rule=rule,
                ),
                rule,
            )
        raise _invalid_option(
            Message("players must be one of %(allowed)s (%(rule)s)", allowed=allowed, rule=rule),
            rule,
        )
    return players


def allowed_sides(game: str, players: int) -> list[int]:
    """Side counts a player count may form (SQ-P1; SN-P1: up to 3 play alone)."""
    if game == NUMBERS and players <= 3:
        return [players]
    return [s for s in (2, 3) if players % s == 0 and (game == CLASSIC or players > s)]


def hand_size(game: str, players: int) -> int:
    """Cards dealt to each seat: SQ-P2 table, or SN-P2 (5 for 2-3, 4 for 4-6)."""
    if game == CLASSIC:
        return CLASSIC_HAND[players]
    return 5 if players <= 3 else 4


def sequences_needed(game: str, players: int, sides: int) -> int:
    """SQ-S3: 2 sides need 2, 3 sides need 1; SN-S1: 2-3 players 1, 4-6 players 2."""
    if game == CLASSIC:
        return 2 if sides == 2 else 1
    return 1 if players <= 3 else 2


# G-R1: the rule an option applies (its invalid-option refusal names it)
_OPTION_RULES = {
    "sides": "SQ-P1",
    "dealing": "G-M1",
    "sequences_to_win": "SQ-S3",
    "first_seat": "G-O1",
    "stalemate_decks": "SQ-E1",
    "stalemate": "SQ-E1",
    "idle_seconds": "G-T1",
}


def _choice(
    options: Mapping[str, Any], name: str, allowed: Sequence[Any], default: Any, rule: str = ""
) -> Any:
    """``options[name]`` if one of ``allowed`` (``default`` when left out or null),
    else 422 invalid-option citing ``rule`` (default: the option's shared rule)."""
    value = options.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or value not in allowed:
        raise _invalid_option(
            Message(
                "%(name)s must be one of %(allowed)s, not %(value)s",
                name=name,
                allowed=allowed,
                value=repr(value),
            ),
            rule or _OPTION_RULES[name],
        )
    return value


def _idle_seconds(options: Mapping[str, Any], dealing: str) -> int | None:
    """G-T1: whole seconds a seat may hold the turn (1 to MAX_IDLE), None for never;
    left out: IDLE_DEFAULT in server dealing, None in table dealing, where a number is
    refused (the referee reports the table)."""
    if "idle_seconds" not in options:
        return IDLE_DEFAULT if dealing == "server" else None
    value = options["idle_seconds"]
    if value is not None and not (_is_int(value) and 1 <= value <= MAX_IDLE):
        raise _invalid_option(
            Message(
                "idle_seconds must be a whole number of seconds from 1 to %(most)s, or null",
                most=MAX_IDLE,
            ),
            "G-T1",
        )
    if value is not None and dealing == "table":
        raise _invalid_option(
            Message(
                "option 'idle_seconds' is off in table dealing: the "
                "referee reports the table (G-T1)"
            ),
            "G-T1",
        )
    return value


def normalise_options(game: str, options: Any) -> Options:
    """Validated options with every default filled in (RuleViolation invalid-option,
    422, otherwise): players, sides, dealing, sequences_to_win, first_seat,
    stalemate_decks, stalemate, idle_seconds (G-T1), and for Sequence Numbers board and
    deck (null = default)."""
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise _invalid_option(Message("options must be an object"), "G-O1")
    known = {o["name"] for o in CATALOG[game]["options"]}
    unknown = sorted(set(options) - known)
    if unknown:
        raise _invalid_option(
            Message(
                "unknown option %(name)s (known: %(known)s)",
                name=repr(unknown[0]),
                known=sorted(known),
            ),
            "G-O1",
        )
    players = _players(game, options)
    sides_ok = allowed_sides(game, players)
    numbers = game == NUMBERS  # Sequence Numbers cites its own rules (SN-P1, SN-S1)
    sides = _choice(options, "sides", sides_ok, sides_ok[0], "SN-P1" if numbers else "")
    out: Options = {
        "players": players,
        "sides": sides,
        "dealing": _choice(options, "dealing", ["server", "table"], "server"),
        "sequences_to_win": _choice(
            options,
            "sequences_to_win",
            [1, 2, 3, 4],
            sequences_needed(game, players, sides),
            "SN-S1" if numbers else "",
        ),
        "first_seat": _choice(
            options, "first_seat", [f"p{i}" for i in range(1, players + 1)], "p1"
        ),
        "stalemate_decks": _choice(options, "stalemate_decks", list(range(1, 11)), 2),
        "stalemate": _choice(options, "stalemate", ["draw", "most_sequences"], "draw"),
    }
    out["idle_seconds"] = _idle_seconds(options, out["dealing"])
    if game == NUMBERS:
        board = None if options.get("board") is None else _validate_board(options["board"])
        grid = board or _board_data(NUMBERS_BOARD)
        raw_deck = options.get("deck")
        deck = None if raw_deck is None else _validate_deck(raw_deck, grid)
        if deck is None and board is not None:
            _validate_deck(list(NUMBERS_DECK), grid)
        out["board"], out["deck"] = board, deck
        if len(deck or NUMBERS_DECK) <= players * hand_size(game, players):
            raise _invalid_option(
                Message("the deck must hold more cards than the hands dealt"), "SN-C0"
            )
    return out


def _setup(game: str, options: Options) -> Setup:
    """The created event's payload (minus the seed) from normalised options."""
    players, sides = options["players"], options["sides"]
    seats = [f"p{i}" for i in range(1, players + 1)]
    side_of = {seat: SIDES[i % sides] for i, seat in enumerate(seats)}
    teams = {side: [s for s in seats if side_of[s] == side] for side in SIDES[:sides]}
    if game == CLASSIC:
        board, deck = _board_data(CLASSIC_BOARD), list(CLASSIC_DECK)
    else:
        board = options["board"] or _board_data(NUMBERS_BOARD)
        deck = list(options["deck"] or NUMBERS_DECK)
    return {
        "options": options,
        "seats": seats,
        "sides": side_of,
        "teams": teams,
        "hand_size": hand_size(game, players),
        "sequences_to_win": options["sequences_to_win"],
        "board": board,
        "deck": deck,
    }


def new_game(game: str, options: Any, seed: str) -> list[Event]:
    """The setup events of a new game of ``sequence`` or ``sequence-numbers``.

    ``game-created`` (options, seats p1..pN, sides, teams, board, deck, seed) first;
    in server mode then one ``dealt`` per seat (each takes the next hand-size
    cards from the top of the shuffled deck) and ``turn-started`` for the first
    seat; in table mode the referee reports the deal with ``draw`` actions.
    Raises RuleViolation ``invalid-option`` (422).
    """
    if game not in CATALOG:
        raise _invalid_option(Message("unknown game %(game)s", game=repr(game)), "G-O1")
    normal = normalise_options(game, options)
    created: Event = {
        "type": "game-created",
        "seat": None,
        "game": game,
        **_setup(game, normal),
        "seed": seed,
    }
    events = [created]
    state = fold(None, created)
    if normal["dealing"] == "server":
        for seat in state["seats"]:
            cards = state["deck"][: state["hand_size"]]
            state = _emit(events, state, {"type": "dealt", "seat": seat, "cards": cards})
        _emit(events, state, {"type": "turn-started", "seat": normal["first_seat"]})
    return events
