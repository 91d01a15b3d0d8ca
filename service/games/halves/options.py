"""Halves options and the catalog (HV-C1, HV-P1, HV-P2, G-O1, G-M1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.games import IDLE_SECONDS_MAX, RuleViolation
from service.games.halves.cards import (
    DEFAULT_DECK,
    MATCHES,
    MAX_DECK,
    PER_HALF,
    CardCodeError,
    card_code,
    identity,
    parse_card,
)
from service.games.halves.state import Options
from service.messages import Message

GAME = "halves"
MIN_CARDS = 5  # HV-P1: each player gets at least 5 cards
PLAYERS = tuple(range(2, 15))  # HV-P1 ruling
IDLE_SECONDS = 120  # G-T1 ruling: the default in server dealing


def _option(
    name: str,
    type_: str,
    default: Any,
    description: str,
    choices: list[Any] | None = None,
    **more: Any,
) -> dict[str, Any]:
    """A catalog entry; ``more``: ``nullable``, ``minimum`` (JSON Schema words)."""
    entry: dict[str, Any] = {
        "name": name,
        "type": type_,
        "default": default,
        "description": description,
    }
    if choices is not None:
        entry["choices"] = choices
    return {**entry, **more}


CATALOG: dict[str, dict[str, Any]] = {
    GAME: {
        "title": "Halves",
        "rules": "RULES.md §4 (HV-*)",
        "players": list(PLAYERS),
        "options": [
            _option(
                "players",
                "integer",
                2,
                "player count, 2 to 14, at least 5 cards each (HV-P1)",
                list(PLAYERS),
            ),
            _option(
                "dealing",
                "string",
                "server",
                "server: the service shuffles, deals, "
                "draws and detects blocks (G-M1); table: a referee reports the deal, "
                "draws, plays and blocks of a physical game (G-M2, HV-M1)",
                ["server", "table"],
            ),
            _option(
                "first_seat",
                "string",
                "p1",
                "the seat that turns the starting card "
                "(HV-P2, G-O1); pile turns (HV-T5) start with the seat after it",
            ),
            _option(
                "match",
                "string",
                PER_HALF,
                "HV-T1: per_half: each half matches the "
                "top's half in its place by colour or by symbol; whole_card: both "
                "halves by colour, or both by symbol; any_half: each half matches "
                "either half of the top by colour or by symbol",
                list(MATCHES),
            ),
            _option(
                "allow_turning",
                "boolean",
                True,
                "HV-T1: a card may be laid turned round (halves swapped)",
            ),
            _option(
                "deck",
                "array",
                None,
                "custom deck: card codes ('RC-GS'), each "
                "upright, two different halves, no card twice, at least 5 per "
                "player; null: the default 72 cards (HV-C1)",
            ),
            _option(
                "idle_seconds",
                "integer",
                IDLE_SECONDS,
                "G-T1: seconds (1 to 604800) without any "
                "move after which every seat is treated as unable to play on the top "
                "(HV-T4), so that a seat that left cannot freeze the game; server "
                "dealing: default 120, null turns it off; table dealing: always off "
                "(null)",
                nullable=True,
                minimum=1,
            ),
        ],
    },
}


def invalid_option(
    detail: Message, rule: str, path: tuple[str, ...] = (), message: Message | None = None
) -> RuleViolation:
    """422 invalid-option; with ``path`` (``("deck", "3")``) also the per-field
    ``errors`` of a body validation: ``{"json": {"options": {"deck": {"3": [...]}}}}``."""
    extra = None
    if path:
        errors: object = [message or detail]
        for part in reversed(("options", *path)):
            errors = {part: errors}
        extra = {"errors": {"json": errors}}
    return RuleViolation("invalid-option", detail, 422, rule=rule, extra=extra)


def _choice(
    options: Mapping[str, Any], name: str, allowed: Sequence[Any], default: Any, rule: str
) -> Any:
    value = options.get(name, default)
    if value is None:
        return default
    if type(value) is not type(default) or value not in allowed:
        raise invalid_option(
            Message(
                "option %(name)s must be one of %(allowed)s, not %(value)s (%(rule)s)",
                name=repr(name),
                allowed=allowed,
                value=repr(value),
                rule=rule,
            ),
            rule,
            (name,),
        )
    return value


def _custom_deck(raw: Any) -> list[str]:
    """A custom deck (HV-C1): card codes, upright as listed; 422 naming the bad card."""
    if not isinstance(raw, list) or not raw or len(raw) > MAX_DECK:
        raise invalid_option(
            Message(
                "option 'deck' must be a list of 1 to %(most)s card codes (HV-C1)", most=MAX_DECK
            ),
            "HV-C1",
            ("deck",),
        )
    seen: dict[tuple[str, str], int] = {}
    cards: list[str] = []
    for i, value in enumerate(raw):
        try:
            halves = parse_card(value)
        except CardCodeError as exc:
            raise invalid_option(
                Message("deck[%(index)s]: %(error)s", index=i, error=exc.message),
                "HV-C1",
                ("deck", str(i)),
                exc.message,
            ) from exc
        code = card_code(halves)
        if halves[0] == halves[1]:
            message = Message("%(card)s: its two halves are the same (HV-C1)", card=code)
            raise invalid_option(
                Message("deck[%(index)s] %(error)s", index=i, error=message),
                "HV-C1",
                ("deck", str(i)),
                message,
            )
        if identity(halves) in seen:
            message = Message(
                "%(card)s is the same card as deck[%(first)s] (turned round or "
                "repeated): every card once (HV-C1)",
                card=code,
                first=seen[identity(halves)],
            )
            raise invalid_option(
                Message("deck[%(index)s] %(error)s", index=i, error=message),
                "HV-C1",
                ("deck", str(i)),
                message,
            )
        seen[identity(halves)] = i
        cards.append(code)
    return cards


def normalise_options(options: Any) -> Options:
    """Validated options with every default filled in: players, dealing, first_seat,
    match, allow_turning, deck (null = the default deck), idle_seconds (G-T1). RuleViolation
    ``invalid-option`` (422) otherwise."""
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise invalid_option(Message("options must be an object"), "HV-P1")
    known = {o["name"] for o in CATALOG[GAME]["options"]}
    unknown = sorted(set(options) - known)
    if unknown:
        raise invalid_option(
            Message(
                "unknown option %(name)s (known: %(known)s)",
                name=repr(unknown[0]),
                known=sorted(known),
            ),
            "HV-P1",
            (unknown[0],),
            Message("unknown option"),
        )
    players = _choice(options, "players", list(PLAYERS), 2, "HV-P1")
    deck = None if options.get("deck") is None else _custom_deck(options["deck"])
    if len(deck or DEFAULT_DECK) < MIN_CARDS * players:
        raise invalid_option(
            Message(
                "%(players)s players need at least %(least)s cards, the deck has %(count)s (HV-P1)",
                players=players,
                least=MIN_CARDS * players,
                count=len(deck or DEFAULT_DECK),
            ),
            "HV-P1",
            ("deck",) if deck else ("players",),
        )
    seats = [f"p{i}" for i in range(1, players + 1)]
    dealing = _choice(options, "dealing", ["server", "table"], "server", "G-M1")
    return {
        "players": players,
        "dealing": dealing,
        "first_seat": _choice(options, "first_seat", seats, "p1", "G-O1"),
        "match": _choice(options, "match", list(MATCHES), PER_HALF, "HV-T1"),
        "allow_turning": _choice(options, "allow_turning", [True, False], True, "HV-T1"),
        "deck": deck,
        "idle_seconds": _idle_seconds(options, dealing),
    }


def _idle_seconds(options: Mapping[str, Any], dealing: str) -> int | None:
    """G-T1: whole seconds from 1 to IDLE_SECONDS_MAX, or None (off); absent: 120 in
    server dealing, off in table dealing, where a number is refused (the referee
    reports the table)."""
    value = options.get("idle_seconds", IDLE_SECONDS if dealing == "server" else None)
    if value is None:
        return None
    if type(value) is not int or not 1 <= value <= IDLE_SECONDS_MAX:
        raise invalid_option(
            Message(
                "idle_seconds must be a whole number of seconds from 1 to %(most)s, or null",
                most=IDLE_SECONDS_MAX,
            ),
            "G-T1",
            ("idle_seconds",),
        )
    if dealing == "table":
        raise invalid_option(
            Message(
                "option 'idle_seconds' is off in table dealing: the "
                "referee reports the table (G-T1)"
            ),
            "G-T1",
            ("idle_seconds",),
        )
    return value
