"""Halves positions (G-P1): start a game from a stated position; read a game's position.

The notation (JSON; card codes as in :mod:`service.games.halves.cards`)::

    {"game": "halves",
     "centre": ["RC-GS", "GT-YC"],          # the central pile, bottom to top, each code
                                            # as the card lies (GS-RC = RC-GS turned)
     "hands": {"p1": ["RT-BS"], "p2": 3},   # every seat not retired: its hand cards, or
                                            # how many (dealt from the seed); at most 4
     "piles": {"p1": ["BX-YT"], "p2": 10},  # optional, top first, or a count; default 0
     "retired": {"p3": 7},                  # optional: retired seats, cards left (HV-T6)
     "box": 40,                             # optional: cards out of play (checked)
     "pile_turns_from": "p2",               # optional: where the HV-T5 rotation carries
                                            # on; default the seat after first_seat
     "in_a_row": 0,                         # optional: block moves in a row since the
                                            # hands last changed (HV-T5 ruling)
     "counts": {"plays": 0, ...},           # optional: the record so far (the view's)
     "timed_out": []}                       # optional: seats treated as unable to play
                                            # on this top (G-T1)

Cards the position does not list are shuffled from the seed (G-M1, label
``position``) and dealt into the counted hands (seat order), then the counted piles;
the rest is the box. In table dealing the service never knows the hidden cards
(HV-M1): hands and piles are counts there.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeAlias, TypedDict

from service.games import RuleViolation
from service.games.halves.cards import (
    DEFAULT_DECK,
    CardCodeError,
    card_code,
    deck_index,
    identity,
    laid,
    parse_card,
)
from service.games.halves.fold import HAND, active_seats, cards_left, emit, fold, known
from service.games.halves.options import GAME, invalid_option, normalise_options
from service.games.halves.race import end, resolve_block
from service.games.halves.state import CentreEntry, Counts, Event, HalvesState, Options
from service.games.rng import shuffle
from service.messages import Message

REFEREE = "referee"
FIELDS = (
    "game",
    "centre",
    "hands",
    "piles",
    "retired",
    "box",
    "pile_turns_from",
    "in_a_row",
    "counts",
    "timed_out",
)
COUNTS = ("plays", "draws", "top_up_draws", "bottom_card_moves", "pile_turns")

# a hand or pile as a position gives it: its cards (server dealing) or how many
Place: TypeAlias = list[str] | int


class Position(TypedDict):
    """A position in the notation of this module, every field given."""

    game: str
    centre: list[str]  # as the cards lie
    hands: dict[str, Place]
    piles: dict[str, Place]
    retired: dict[str, int]
    box: int
    pile_turns_from: str
    in_a_row: int
    counts: Counts
    timed_out: list[str]


class Placed(TypedDict):
    """Where a position puts the cards: the centre as laid, every seat's hand and pile
    and the box, as cards (server dealing) or counts (table dealing)."""

    centre: list[CentreEntry]
    hands: dict[str, Place]
    piles: dict[str, Place]
    box: list[str] | int


def _bad(field: str, detail: Message, rule: str = "G-P1") -> RuleViolation:
    """422 invalid-position naming the field (a dotted path) and the rule broken."""
    return RuleViolation("invalid-position", detail, 422, rule=rule, extra={"field": field})


def _must(field: str, what: Message, rule: str = "G-P1") -> RuleViolation:
    return _bad(
        field, Message("position field %(field)s must be %(what)s", field=field, what=what), rule
    )


def _count(value: Any, field: str, least: int = 0, rule: str = "G-P1") -> int:
    if type(value) is not int or value < least:
        raise _must(field, Message("an integer from %(least)s", least=least), rule)
    return value


class _Reader:
    """Reads one stated position against the game's options and deck."""

    def __init__(self, options: Options, deck: list[str]) -> None:
        self.options, self.deck = options, deck
        self.seats = [f"p{i}" for i in range(1, options["players"] + 1)]
        self.index = deck_index(tuple(deck))
        self.seen: dict[tuple[str, str], str] = {}

    def card(self, raw: Any, field: str) -> tuple[str, bool]:
        """(upright code, turned) of a card as written; once in the whole position."""
        try:
            halves = parse_card(raw)
        except CardCodeError as exc:
            raise _bad(
                field, Message("%(field)s: %(error)s", field=field, error=exc.message), "HV-C1"
            ) from exc
        upright = self.index.get(identity(halves))
        if upright is None:
            raise _bad(
                field,
                Message(
                    "%(field)s: %(card)s is not a card of this game's deck (HV-C1)",
                    field=field,
                    card=card_code(halves),
                ),
                "HV-C1",
            )
        if identity(halves) in self.seen:
            raise _bad(
                field,
                Message(
                    "%(field)s: %(card)s is already at %(first)s: every "
                    "card of the game exactly once (G-P1)",
                    field=field,
                    card=upright,
                    first=self.seen[identity(halves)],
                ),
            )
        self.seen[identity(halves)] = field
        return upright, card_code(halves) != upright

    def seat_map(self, raw: Any, name: str) -> dict[str, Any]:
        if raw is None:
            return {}
        if not isinstance(raw, dict):
            raise _must(name, Message("an object: seat -> value"))
        for seat in raw:
            if seat not in self.seats:
                raise _must(
                    f"{name}.{seat}",
                    Message("one of the seats %(seats)s", seats=", ".join(self.seats)),
                )
        return raw

    def cards_or_count(self, raw: Any, field: str, most: int | None) -> Place:
        """A hand or pile: card codes (server dealing) or a count."""
        if isinstance(raw, list):
            if self.options["dealing"] == "table":
                raise _bad(
                    field,
                    Message(
                        "%(field)s: in table dealing the service knows "
                        "only how many cards a hand or pile holds: give "
                        "a count (HV-M1)",
                        field=field,
                    ),
                    "HV-M1",
                )
            size = len(raw)
        else:
            size = _count(raw, field)
        if most is not None and size > most:
            raise _bad(
                field,
                Message(
                    "%(field)s holds %(count)s cards: a hand holds at most %(most)s (HV-T2)",
                    field=field,
                    count=size,
                    most=most,
                ),
                "HV-T2",
            )
        if isinstance(raw, list):
            return [self.card(code, f"{field}[{i}]")[0] for i, code in enumerate(raw)]
        return size


def _read_centre(reader: _Reader, raw: Any) -> list[CentreEntry]:
    if not isinstance(raw, list):
        raise _must("centre", Message("a list of card codes as they lie, bottom first"))
    if not raw:
        raise _bad(
            "centre",
            Message("centre: the central pile needs at least its starting card (HV-P2)"),
            "HV-P2",
        )
    out: list[CentreEntry] = []
    for i, code in enumerate(raw):
        card, turned = reader.card(code, f"centre[{i}]")
        out.append({"card": card, "turned": turned})
    return out


def _read_places(
    reader: _Reader, position: Mapping[str, Any], retired: dict[str, int]
) -> tuple[dict[str, Place], dict[str, Place]]:
    """(hands, piles): every seat's, as stated (cards or counts); retired seats empty."""
    hands_raw = reader.seat_map(position.get("hands"), "hands")
    piles_raw = reader.seat_map(position.get("piles"), "piles")
    hands: dict[str, Place] = {}
    piles: dict[str, Place] = {}
    for seat in reader.seats:
        if seat in retired:
            for name, given in (("hands", hands_raw), ("piles", piles_raw)):
                if given.get(seat) not in (None, 0, []):
                    raise _bad(
                        f"{name}.{seat}",
                        Message(
                            "%(field)s: a retired seat holds no cards, they left play with it "
                            "(HV-T6)",
                            field=f"{name}.{seat}",
                        ),
                        "HV-T6",
                    )
            hands[seat], piles[seat] = 0, 0
            continue
        if seat not in hands_raw:
            raise _must(f"hands.{seat}", Message("a list of card codes or a count of cards"))
        hands[seat] = reader.cards_or_count(hands_raw[seat], f"hands.{seat}", HAND)
        piles[seat] = reader.cards_or_count(piles_raw.get(seat, 0), f"piles.{seat}", None)
    return hands, piles


def _size(value: Place) -> int:
    return len(value) if isinstance(value, list) else value


def _check_shares(
    reader: _Reader, hands: dict[str, Place], piles: dict[str, Place], retired: dict[str, int]
) -> None:
    """HV-P1/HV-P2: a seat never gains a card, so it holds (or retired with) at most its
    share of the deal, the first seat one fewer (it turned the starting card), and its
    pile at most that less the 4 cards of its first hand (draws, HV-T2, and pile turns,
    HV-T5, only take from it). Ruling:
    more cards out of play than the deal's leftovers and the retired seats' is let
    through (a position need not list every card played to the central pile)."""
    share = len(reader.deck) // len(reader.seats)
    for seat in reader.seats:
        most = share - (seat == reader.options["first_seat"])
        held = retired[seat] if seat in retired else _size(hands[seat]) + _size(piles[seat])
        if held > most:
            field = f"retired.{seat}" if seat in retired else f"piles.{seat}"
            raise _bad(
                field,
                Message(
                    "%(seat)s holds %(count)s cards, more than the %(most)s it was dealt "
                    "(HV-P1: a seat never gains a card)",
                    seat=seat,
                    count=held,
                    most=most,
                ),
                "HV-P1",
            )
        pile = _size(piles[seat]) if seat not in retired else 0
        if pile > most - HAND:
            raise _bad(
                f"piles.{seat}",
                Message(
                    "%(seat)s's pile holds %(count)s cards, more than the %(most)s left once "
                    "its hand was taken (HV-P1: a pile only shrinks)",
                    seat=seat,
                    count=pile,
                    most=most - HAND,
                ),
                "HV-P1",
            )


def _check_counts(
    reader: _Reader,
    position: Mapping[str, Any],
    hands: dict[str, Place],
    piles: dict[str, Place],
    retired: dict[str, int],
) -> int:
    """G-P1/HV-E1/HV-T6 checks on the counts; returns the box's size."""
    left = len(reader.deck) - len(reader.seen)
    counted = sum(v for v in [*hands.values(), *piles.values()] if isinstance(v, int))
    box = left - counted
    if box < 0:
        raise _bad(
            "hands",
            Message(
                "the position holds %(count)s cards, the deck has %(total)s (G-P1)",
                count=len(reader.deck) - box,
                total=len(reader.deck),
            ),
        )
    if "box" in position and _count(position["box"], "box") != box:
        raise _bad(
            "box",
            Message(
                "box: the position leaves %(left)s cards out of play, not %(box)s (G-P1)",
                left=box,
                box=position["box"],
            ),
        )
    leftover = len(reader.deck) % len(reader.seats)  # HV-P1: the deal's leftovers
    if leftover + sum(retired.values()) > box:
        raise _bad(
            "retired",
            Message(
                "retired: the retired seats left with %(count)s cards, "
                "more than the %(box)s out of play (HV-T6)",
                count=sum(retired.values()),
                box=box - leftover,
            ),
            "HV-T6",
        )
    _check_shares(reader, hands, piles, retired)
    active = [s for s in reader.seats if s not in retired]
    ones = []
    for seat in active:
        total = _size(hands[seat]) + _size(piles[seat])
        if total == 0:
            field = f"hands.{seat}"
            raise _bad(
                field,
                Message(
                    "%(field)s: %(seat)s has no card left: with one card left it would already "
                    "have won (HV-E1)",
                    field=field,
                    seat=seat,
                ),
                "HV-E1",
            )
        if total == 1:
            ones.append(seat)
    if len(ones) > 1:
        raise _bad(
            f"hands.{ones[1]}",
            Message(
                "%(seat)s and %(other)s both have one card left: the first of them already won "
                "(HV-E1)",
                seat=ones[0],
                other=ones[1],
            ),
            "HV-E1",
        )
    return box


def _read_extras(
    reader: _Reader, position: Mapping[str, Any], centre: int
) -> tuple[str, int, Counts]:
    """(pile_turns_from, in_a_row, counts), defaults filled in, against the ``centre``'s
    card count. The central pile is the HV-P2 card and one card a play or an HV-T5 pile
    turn: ``plays + pile_turns`` is at most ``centre - 1`` (the counts may start at 0 when
    a game is taken over). A block move leaves the pile's size alone and HV-T5 stops them
    at ``centre - 1`` in a row, a pile turn adding the card it counts: ``in_a_row`` is at
    most ``centre - 1`` as well."""
    seats, first = reader.seats, reader.seats.index(reader.options["first_seat"])
    turner = position.get("pile_turns_from", seats[(first + 1) % len(seats)])
    if turner not in seats:
        raise _must(
            "pile_turns_from",
            Message("one of the seats %(seats)s", seats=", ".join(seats)),
            "HV-T5",
        )
    in_a_row = _count(position.get("in_a_row", 0), "in_a_row", rule="HV-T5")
    if in_a_row > centre - 1:
        raise _bad(
            "in_a_row",
            Message(
                "%(count)s block moves in a row: a central pile of %(cards)s cards stops them "
                "at %(most)s (HV-T5)",
                count=in_a_row,
                cards=centre,
                most=centre - 1,
            ),
            "HV-T5",
        )
    raw = position.get("counts", {})
    if not isinstance(raw, dict) or set(raw) - set(COUNTS):
        raise _must(
            "counts", Message("an object with the counts %(names)s", names=", ".join(COUNTS))
        )

    def count(name: str) -> int:
        return _count(raw.get(name, 0), f"counts.{name}")

    counts: Counts = {
        "plays": count("plays"),
        "draws": count("draws"),
        "top_up_draws": count("top_up_draws"),
        "bottom_card_moves": count("bottom_card_moves"),
        "pile_turns": count("pile_turns"),
    }
    if counts["plays"] + counts["pile_turns"] > centre - 1:
        raise _bad(
            "counts",
            Message(
                "%(plays)s plays and %(turns)s pile turns, but the central pile holds "
                "%(cards)s cards: the first card and one for each",
                plays=counts["plays"],
                turns=counts["pile_turns"],
                cards=centre,
            ),
            "HV-T5",
        )
    return turner, in_a_row, counts


def _read_timed_out(reader: _Reader, raw: Any, retired: dict[str, int]) -> list[str]:
    """G-T1: active seats, each once; none in table dealing (where G-T1 is off)."""
    if not isinstance(raw, list):
        raise _must("timed_out", Message("a list of seats"), "G-T1")
    active = [s for s in reader.seats if s not in retired]
    if reader.options["idle_seconds"] is None:
        active = []
    for i, seat in enumerate(raw):
        if seat not in active or seat in raw[:i]:
            raise _must(
                f"timed_out[{i}]",
                Message("one of the seats %(seats)s", seats=", ".join(active)),
                "G-T1",
            )
    return list(raw)


def read_position(
    options: Options, deck: list[str], seed: str, position: Any
) -> tuple[Position, Placed]:
    """(stated, placed) of a position (G-P1): ``stated`` the position normalised as
    stated (canonical codes, defaults filled in), ``placed`` every hand, pile and the
    box as cards (server) or counts (table), the unlisted cards dealt from the seed.
    Raises RuleViolation ``invalid-position`` (422) naming the field and the rule."""
    if not isinstance(position, dict):
        raise _must(
            "position", Message("an object with the fields %(fields)s", fields=", ".join(FIELDS))
        )
    for name in position:
        if name not in FIELDS:
            raise _must(name, Message("one of the fields %(fields)s", fields=", ".join(FIELDS)))
    if position.get("game", GAME) != GAME:
        raise _bad(
            "game",
            Message(
                "game: this is a game of %(game)s, not %(other)s",
                game=GAME,
                other=repr(position["game"]),
            ),
        )
    reader = _Reader(options, deck)
    centre = _read_centre(reader, position.get("centre"))
    retired = {
        seat: _count(n, f"retired.{seat}", 2, "HV-E1")
        for seat, n in reader.seat_map(position.get("retired"), "retired").items()
    }
    if len(retired) == len(reader.seats):
        raise _bad("retired", Message("every seat is retired: at least one plays (HV-T6)"), "HV-T6")
    hands, piles = _read_places(reader, position, retired)
    box = _check_counts(reader, position, hands, piles, retired)
    turner, in_a_row, counts = _read_extras(reader, position, len(centre))
    timed_out = _read_timed_out(reader, position.get("timed_out", []), retired)
    stated: Position = {
        "game": GAME,
        "centre": [card_code(laid(e["card"], e["turned"])) for e in centre],
        "hands": {s: v for s, v in hands.items() if s not in retired},
        "piles": {s: v for s, v in piles.items() if s not in retired},
        "retired": retired,
        "box": box,
        "pile_turns_from": turner,
        "in_a_row": in_a_row,
        "counts": counts,
        "timed_out": timed_out,
    }
    placed: Placed = {"centre": centre, "hands": dict(hands), "piles": dict(piles), "box": box}
    if options["dealing"] == "server":
        listed = {reader.index[key] for key in reader.seen}
        rest = shuffle([c for c in deck if c not in listed], seed, "position")
        for place in (placed["hands"], placed["piles"]):
            for seat in reader.seats:
                count = place[seat]
                if isinstance(count, int):
                    place[seat], rest = rest[:count], rest[count:]
        placed["box"] = rest
    return stated, placed


def start_from_position(game: str, options: Any, seed: str, position: Any) -> list[Event]:
    """G-P1: the setup events of a game of Halves started from ``position`` (the
    notation of this module): ``game-created`` ``{..., "from_position": true}``,
    ``position-set`` ``{position, placed}``, then what the rules derive at once: the
    end when one seat is left (HV-T6) or a seat has one card left (HV-E1), else in
    server dealing the block's steps when nobody can play (HV-T4, HV-T5). Works for
    both dealings. Raises RuleViolation ``invalid-option`` or ``invalid-position``
    (422, ``field`` and ``rule`` naming what is unreachable)."""
    if game != GAME:
        raise invalid_option(Message("unknown game %(game)s", game=repr(game)), "HV-P1")
    normal = normalise_options(options)
    deck = list(normal["deck"] or DEFAULT_DECK)
    stated, placed = read_position(normal, deck, seed, position)
    created: Event = {
        "type": "game-created",
        "seat": None,
        "game": GAME,
        "options": normal,
        "seats": [f"p{i}" for i in range(1, normal["players"] + 1)],
        "deck": deck,
        "seed": seed,
        "from_position": True,
    }
    events: list[Event] = [created]
    state = emit(
        events,
        fold(None, created),
        {"type": "position-set", "seat": None, "position": stated, "placed": placed},
    )
    left = active_seats(state)
    out = [seat for seat in left if cards_left(state, seat) == 1]
    if len(left) == 1:
        end(events, state, "last-seat", left)
    elif out:
        end(events, state, "out", out)
    elif normal["dealing"] == "server":
        resolve_block(events, state)
    return events


def _shown(cards: list[str | None], visible: bool) -> Place:
    listed = known(cards)
    return listed if visible and cards and len(listed) == len(cards) else len(cards)


def position(state: HalvesState, viewer: str | None) -> Position:
    """G-P1: the game's position in the notation of this module, as ``viewer`` may see
    it (G-M1): a seat its own hand as cards and every other hand and every pile as a
    count; the referee every hand (server dealing; a table's hidden cards are counts);
    once the game is over everyone everything the service knows (piles top first).
    A table game's referee position or a finished game's, posted back with the same
    options and seed, gives a game whose view is the original's (``from_position``
    aside), but for a table game that ended ``no-legal-play``: it comes back running
    (at a table the same cards are also a game waiting for the referee's ``blocked``,
    and the notation states no result), and the next ``blocked`` ends it alike."""
    over = state["status"] != "active"
    active = active_seats(state)
    return {
        "game": GAME,
        "centre": [card_code(laid(e["card"], e["turned"])) for e in state["centre"]],
        "hands": {s: _shown(state["hands"][s], over or viewer in (s, REFEREE)) for s in active},
        "piles": {s: _shown(state["piles"][s], over) for s in active},
        "retired": dict(state["retired"]),
        "box": len(state["box"]),
        "pile_turns_from": state["turner"],
        "in_a_row": state["streak"],
        "counts": state["counts"].copy(),
        "timed_out": list(state.get("timed_out", [])),
    }


def view_position_set(state: HalvesState, event: Event, viewer: str | None) -> Event:
    """The ``position-set`` event as ``viewer`` may see it: whole once the game is
    over; before, hands as in :func:`position` (a seat's own hand as dealt) and every
    pile and the box as counts; the placement from the seed left out."""
    if state["status"] != "active":
        whole: Event = json.loads(json.dumps(event))
        return whole
    stated, placed = event["position"], event["placed"]
    server = state["options"]["dealing"] == "server"
    shown = {
        **stated,
        "hands": {
            s: placed["hands"][s]
            if server and viewer in (s, REFEREE)
            else _size(placed["hands"][s])
            for s in stated["hands"]
        },
        "piles": {s: _size(v) for s, v in stated["piles"].items()},
    }
    return {"type": event["type"], "seat": None, "position": shown}
