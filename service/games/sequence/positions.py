"""Positions (G-P1): start a game from a stated position, and read a game's position.

A position (the ``SequencePosition`` of the API; cells ``[row, col]``, row 0 at the top;
cards in the game's notation, ``10H`` / ``6 x 7`` / ``PLUS``)::

    {"game": "sequence" | "sequence-numbers",
     "chips": {side: [[r, c], ...]},          # the chips on the board by side
     "sequences": [{"side", "cells"}],        # the completed (locked) sequences
     "hands": {seat: [card, ...] | count},    # a count: dealt from the seed
     "discards": {seat: [card, ...]},         # each discard pile, bottom first
     "deck": [card, ...],                     # optional: top first (server dealing);
                                              # left out: the rest, shuffled from the seed
     "turn": seat | null,                     # null: the deal (table) or a finished game
     "turn_number": n,                        # the current turn is the n-th (optional)
     "exchanged": bool,                       # a dead card exchanged this turn (SQ-T4)
     "owed_draws": [seat, ...],               # table: seats owing a draw, oldest play first
     "replacement_due": seat | null,          # table: owes a dead card's replacement
     "penalty_due": [seat, ...],              # owe a table-talk discard (SQ-T6)
     "lost_draws": {seat: n},                 # table: draws lost (SQ-T5)
     "reshuffles": n, "passes": n,            # SQ-T7; counted passes in a row (SQ-E1)
     "decks_without_sequence": n,             # SQ-E1: whole decks without a new sequence
     "sequences_at_reshuffle": n,             # sequences at the last reshuffle
     "result": RESULT | null}                 # a finished game's result

Every field but ``game``, ``chips`` and ``hands`` is optional. ``start_from_position``
refuses (422 ``invalid-position``, ``field`` and the rule broken) every position the
rules cannot reach; ``positions_check`` holds the checks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from service.games import RuleViolation
from service.games.rng import shuffle
from service.games.sequence.cards import InputError, _is_int, parse_card_for
from service.games.sequence.checks import _board_position
from service.games.sequence.fold import _emit, fold
from service.games.sequence.lines import scan_sequences
from service.games.sequence.options import CATALOG, _setup, normalise_options
from service.games.sequence.positions_check import (
    Placed,
    ReadPosition,
    check_counters,
    check_flow,
    check_result,
    check_turn,
    position_error,
)
from service.games.sequence.state import (
    ChipGrid,
    Event,
    Options,
    SequenceRecord,
    SequenceState,
    Setup,
)
from service.games.sequence.turn import _finish
from service.messages import Message

FIELDS = {
    "game",
    "chips",
    "sequences",
    "hands",
    "discards",
    "deck",
    "turn",
    "turn_number",
    "exchanged",
    "owed_draws",
    "replacement_due",
    "penalty_due",
    "lost_draws",
    "reshuffles",
    "passes",
    "decks_without_sequence",
    "sequences_at_reshuffle",
    "result",
}


def _cards(game: str, raw: Any, field: str) -> list[str]:
    if not isinstance(raw, list):
        raise position_error(
            Message("%(field)s must be a list of cards", field=field), field, "G-P1"
        )
    try:
        return [parse_card_for(game, card, f"{field}[{i}]") for i, card in enumerate(raw)]
    except InputError as exc:
        raise position_error(exc.detail, exc.field, exc.rule or "G-P1") from exc


def _per_seat(raw: Any, seats: list[str], field: str, required: bool) -> dict[str, Any]:
    if raw is None and not required:
        return {}
    if not isinstance(raw, dict):
        raise position_error(
            Message("%(field)s must be an object by seat", field=field), field, "G-P1"
        )
    for seat in raw:
        if seat not in seats:
            raise position_error(
                Message(
                    "%(field)s: %(seat)s is not a seat of this game", field=field, seat=repr(seat)
                ),
                f"{field}.{seat}",
                "SQ-P1",
            )
    if required:
        for seat in seats:
            if seat not in raw:
                raise position_error(
                    Message("%(field)s: %(seat)s is missing", field=field, seat=seat),
                    f"{field}.{seat}",
                    "G-P1",
                )
    return raw


def _hands(game: str, raw: Any, seats: list[str], size: int) -> dict[str, list[str] | int]:
    hands: dict[str, list[str] | int] = {}
    for seat, value in _per_seat(raw, seats, "hands", True).items():
        field = f"hands.{seat}"
        if _is_int(value):
            if not 0 <= value <= size:
                raise position_error(
                    Message("%(field)s: a hand holds 0 to %(size)s cards", field=field, size=size),
                    field,
                    "SQ-P2" if game == "sequence" else "SN-P2",
                )
            hands[seat] = value
        else:
            hands[seat] = _cards(game, value, field)
    return hands


def _conserve(full: list[str], places: list[tuple[str, list[str]]], deck_given: bool) -> list[str]:
    """G-P1: no card more often than the game holds it; with a stated deck, every card
    exactly once. Returns the cards no place holds (the rest)."""
    left = Counter(full)
    for field, cards in places:
        for i, card in enumerate(cards):
            if left[card] <= 0:
                copies = Counter(full)[card]
                raise position_error(
                    Message(
                        "%(field)s: %(card)s is placed more often than the game holds it "
                        "(%(copies)s)",
                        field=f"{field}[{i}]",
                        card=card,
                        copies=copies,
                    ),
                    f"{field}[{i}]",
                    "G-P1",
                )
            left[card] -= 1
    rest = []
    for card in full:
        if left[card] > 0:
            rest.append(card)
            left[card] -= 1
    if deck_given and rest:
        raise position_error(
            Message(
                "%(count)s cards of the game are in no place, e.g. %(card)s",
                count=len(rest),
                card=rest[0],
            ),
            "deck",
            "G-P1",
        )
    return rest


def _board(
    game: str, options: Options, setup: Setup, position: Mapping[str, Any]
) -> tuple[ChipGrid, list[SequenceRecord]]:
    """Chips and locked sequences (SQ-C1, SQ-C3, SQ-S1, SQ-S4), every completed line
    recorded (SQ-S5)."""
    try:
        _grid, chips, sequences = _board_position(
            game, position.get("chips"), position.get("sequences"), options.get("board")
        )
    except InputError as exc:
        raise position_error(exc.detail, exc.field, exc.rule or "G-P1") from exc
    sides = setup["teams"]
    for side in position["chips"]:
        if side not in sides:
            raise position_error(
                Message("chips: %(side)s is not a side of this game", side=side),
                f"chips.{side}",
                "SQ-C3",
            )
    for i, entry in enumerate(sequences):
        if entry["side"] not in sides:
            raise position_error(
                Message("chips: %(side)s is not a side of this game", side=entry["side"]),
                f"sequences[{i}].side",
                "SQ-C3",
            )
    for side in sides:
        missed = scan_sequences(setup["board"], chips, sequences, side)
        if missed:
            raise position_error(
                Message(
                    "%(side)s has a completed sequence that is not recorded: %(cells)s",
                    side=side,
                    cells=[list(x) for x in missed[0]],
                ),
                "sequences",
                "SQ-S5",
            )
    return chips, sequences


def _read(game: str, options: Options, setup: Setup, position: Any) -> ReadPosition:
    """The validated, normalised position (every field filled in)."""
    if not isinstance(position, dict):
        raise position_error(Message("a position is an object"), "position", "G-P1")
    unknown = sorted(set(position) - FIELDS)
    if unknown:
        raise position_error(
            Message("unknown field %(field)s in a position", field=repr(unknown[0])),
            unknown[0],
            "G-P1",
        )
    if position.get("game", game) != game:
        raise position_error(
            Message(
                "the position is of %(other)s, not of %(game)s",
                other=repr(position["game"]),
                game=game,
            ),
            "game",
            "G-P1",
        )
    seats = setup["seats"]
    chips, sequences = _board(game, options, setup, position)
    hands = _hands(game, position.get("hands"), seats, setup["hand_size"])
    discards = {
        seat: _cards(game, pile, f"discards.{seat}")
        for seat, pile in _per_seat(position.get("discards"), seats, "discards", False).items()
    }
    deck = None if position.get("deck") is None else _cards(game, position["deck"], "deck")
    if deck is not None:
        for seat, hand in hands.items():
            if not isinstance(hand, list):
                raise position_error(
                    Message("with a stated deck every hand is stated card by card"),
                    f"hands.{seat}",
                    "G-P1",
                )
    places = [(f"hands.{s}", h) for s, h in hands.items() if isinstance(h, list)]
    places += [(f"discards.{s}", p) for s, p in discards.items()]
    rest = _conserve(setup["deck"], places + [("deck", deck or [])], deck is not None)
    counted = [(s, h) for s, h in hands.items() if not isinstance(h, list)]
    if counted and sum(h for _, h in counted) > len(rest):  # G-P1: dealt from the rest
        raise position_error(
            Message(
                "%(field)s: the hands given as counts need %(count)s cards, the game has "
                "%(left)s left",
                field=f"hands.{counted[-1][0]}",
                count=sum(h for _, h in counted),
                left=len(rest),
            ),
            f"hands.{counted[-1][0]}",
            "G-P1",
        )
    placed: Placed = {
        "game": game,
        "board": setup["board"],
        "chips": chips,
        "sequences": sequences,
        "hands": hands,
        "discards": {seat: discards.get(seat, []) for seat in seats},
        "deck": deck,
        "rest": rest,
    }
    turn = check_turn(position, setup, placed)
    return {
        **placed,
        **turn,
        **check_flow(position, setup, placed, turn["turn_number"]),
        **check_counters(position, setup, placed, turn["turn_number"]),
    }


def _deal_rest(
    read: ReadPosition, state: SequenceState, seed: str
) -> tuple[dict[str, list[str]], list[str]]:
    """Hands stated as counts are dealt, in seat order, from the seed-shuffled rest
    (G-M1); what stays is the deck (server: in that order; table: the multiset)."""
    deck = read["deck"]
    if deck is None:
        deck = shuffle(read["rest"], seed, "deck")
    hands: dict[str, list[str]] = {}
    for seat, hand in read["hands"].items():
        if isinstance(hand, list):
            hands[seat] = list(hand)
        else:
            hands[seat], deck = deck[:hand], deck[hand:]
    if state["options"]["dealing"] == "table":
        deck = sorted(deck)
    return hands, deck


def start_from_position(game: str, options: Any, seed: str, position: Any) -> list[Event]:
    """G-P1: the setup events of a game starting from ``position`` (module docstring).

    ``[game-created {..., "from_position": true}, position-set {"position": the
    normalised position as stated, "hands": every hand, "deck": the deck}]``, then
    ``game-ended`` when the position states a result. Server and table dealing; cards
    the position leaves out are dealt from ``seed``. Raises RuleViolation
    ``invalid-option`` (422) for bad options and ``invalid-position`` (422, ``extra``
    ``{"field": dotted path}``, the rule broken: G-P1 conservation, SQ-P2 / SN-P2 hand
    size, SQ-S5 an unrecorded sequence, SQ-P1 a turn, SQ-T1 chips for the turns...).
    """
    if game not in CATALOG:
        raise RuleViolation(
            "invalid-option", Message("unknown game %(game)s", game=repr(game)), 422, rule="G-O1"
        )
    normal = normalise_options(game, options)
    setup = _setup(game, normal)
    read = _read(game, normal, setup, position)
    created: Event = {
        "type": "game-created",
        "seat": None,
        "game": game,
        **setup,
        "seed": seed,
        "from_position": True,
    }
    state = fold(None, created)
    hands, deck = _deal_rest(read, state, seed)
    stated = {
        k: v
        for k, v in read.items()
        if k not in ("board", "rest", "phase", "result", "winning_side")
    }
    stated["chips"] = _chips_by_side(read["chips"], setup["teams"])
    if read["deck"] is None:
        del stated["deck"]
    events = [created]
    state = _emit(
        events,
        state,
        {
            "type": "position-set",
            "seat": None,
            "position": {**stated, "result": read["result"]},
            "phase": read["phase"],
            "hands": hands,
            "deck": deck,
        },
    )
    if read["result"] is not None:
        state = _finish(events, state, read["result"]["reason"], read["winning_side"])
        check_result(read["result"], events[-1]["result"])
    return events


def _chips_by_side(chips: ChipGrid, teams: dict[str, list[str]]) -> dict[str, list[list[int]]]:
    return {
        side: [[r, c] for r, row in enumerate(chips) for c, chip in enumerate(row) if chip == side]
        for side in teams
    }


def _visible_hand(state: SequenceState, seat: str, viewer: str | None) -> list[str] | int:
    hand = state["hands"][seat]
    if viewer in (seat, "referee") or state["status"] == "finished":
        return list(hand)
    return len(hand)


def position(state: SequenceState, viewer: str | None) -> dict[str, Any]:
    """G-P1: the game's position in the notation of the module docstring, as ``viewer``
    may see it: a seat sees the other hands as counts (G-M1), the referee every hand;
    nobody sees the deck while the game runs (its order, G-M1; a table game's referee
    sees the deck's cards), everyone sees everything once it is over."""
    order = sorted(state["pending_draws"], key=lambda seat: state["pending_draws"][seat])
    out: dict[str, Any] = {
        "game": state["game"],
        "chips": _chips_by_side(state["chips"], state["teams"]),
        "sequences": [
            {"side": s["side"], "cells": [list(x) for x in s["cells"]]} for s in state["sequences"]
        ],
        "hands": {seat: _visible_hand(state, seat, viewer) for seat in state["seats"]},
        "discards": {seat: list(pile) for seat, pile in state["discards"].items()},
        "turn": state["turn"],
        "turn_number": state["turn_number"],
        "exchanged": state["exchanged"],
        "owed_draws": order,
        "replacement_due": state["replacement_due"],
        "penalty_due": list(state["penalty_due"]),
        "lost_draws": dict(state["lost_draws"]),
        "reshuffles": state["reshuffles"],
        "passes": state["passes"],
        "decks_without_sequence": state["barren"],
        "sequences_at_reshuffle": state["mark"],
        "result": None if state["result"] is None else _copy_json(state["result"]),
    }
    table = state["options"]["dealing"] == "table"
    if state["status"] == "finished" or (table and viewer == "referee"):
        out["deck"] = list(state["deck"])
    return out


def _copy_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_json(v) for v in value]
    return value
