"""Fold: events -> state (events are the record, the state is derived)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, cast

from service.games.rng import shuffle
from service.games.sequence.cards import SIZE
from service.games.sequence.state import Event, SequenceState
from service.jsontext import plain_copy


def _created_state(event: Event) -> SequenceState:
    options = event["options"]
    seats = list(event["seats"])
    deck = list(event["deck"])
    table = options["dealing"] == "table"
    return {
        "game": event["game"],
        "options": options,
        "seed": event["seed"],
        "from_position": bool(event.get("from_position", False)),
        "status": "active",
        "phase": "deal",
        "result": None,
        "seats": seats,
        "sides": dict(event["sides"]),
        "teams": {k: list(v) for k, v in event["teams"].items()},
        "hand_size": event["hand_size"],
        "sequences_to_win": event["sequences_to_win"],
        "board": [list(row) for row in event["board"]],
        "chips": [[None] * SIZE for _ in range(SIZE)],
        "sequences": [],
        "deck": sorted(deck) if table else shuffle(deck, event["seed"], "deck"),
        "hands": {s: [] for s in seats},
        "discards": {s: [] for s in seats},
        "turn": None,
        "turn_number": 0,
        "exchanged": False,
        "plays": 0,
        "pending_draws": {},
        "replacement_due": None,
        "lost_draws": {s: 0 for s in seats},
        "penalty_due": [],
        "passes": 0,
        "timeouts": 0,
        "reshuffles": 0,
        "barren": 0,
        "mark": 0,
        # table mode (G-M2): the game's cards {card: copies}, and the seats' reports
        # of a card no copy of which was left in the deck [{seat, card, deck}]
        "deck_cards": dict(Counter(deck)) if table else None,
        "conflicts": [],
    }


def _copy(state: SequenceState, *keys: str) -> SequenceState:
    """A shallow copy of ``state`` with fresh containers for ``keys`` (one level,
    or rows for ``chips``): fold never mutates its input."""
    out: dict[str, Any] = dict(state)
    for key in keys:
        value: Any = out[key]
        if key == "chips":
            out[key] = [row[:] for row in value]
        elif isinstance(value, dict):
            out[key] = {k: (v[:] if isinstance(v, list) else v) for k, v in value.items()}
        else:
            out[key] = value[:]
    return cast(SequenceState, out)  # the same keys, each value copied as it was


def _take(state: SequenceState, event: Event, card: str) -> None:
    """Remove a drawn card from the deck: the top (server) or by value (table; a
    conflicting report, G-M2, removes nothing from the multiset and is recorded:
    ``deck_count`` then counts one card fewer until the next reshuffle)."""
    if state["options"]["dealing"] == "server":
        if not state["deck"] or state["deck"][0] != card:
            raise ValueError(f"event draws {card!r} but the deck top is not it")
        del state["deck"][0]
    elif event.get("conflict"):
        state["conflicts"].append(
            {"seat": event["seat"], "card": card, "deck": state["reshuffles"]}
        )
    else:
        state["deck"].remove(card)


def deck_count(state: SequenceState) -> int:
    """The cards left in the draw deck: the deck multiset less the cards drawn under
    a conflicting report since the last reshuffle (G-M2; 0 conflicts in server mode)."""
    overdrawn = sum(1 for c in state["conflicts"] if c["deck"] == state["reshuffles"])
    return len(state["deck"]) - overdrawn


def _to_discard(state: SequenceState, seat: str, card: str) -> None:
    state["hands"][seat].remove(card)
    state["discards"][seat].append(card)


def _fold_dealt(s: SequenceState, e: Event) -> SequenceState:
    s = _copy(s, "deck", "hands", "conflicts")
    for card in e["cards"]:
        _take(s, e, card)
    s["hands"][e["seat"]].extend(e["cards"])
    return s


def _fold_drawn(s: SequenceState, e: Event) -> SequenceState:
    s = _copy(s, "deck", "hands", "pending_draws", "conflicts")
    seat = e["seat"]
    _take(s, e, e["card"])
    s["hands"][seat].append(e["card"])
    if s["replacement_due"] == seat:
        s["replacement_due"] = None
    else:
        s["pending_draws"].pop(seat, None)
    s["passes"] = 0
    return s


def _fold_turn(s: SequenceState, e: Event) -> SequenceState:
    return {
        **s,
        "phase": "play",
        "turn": e["seat"],
        "turn_number": s["turn_number"] + 1,
        "exchanged": False,
    }


def _after_play(s: SequenceState, seat: str) -> None:
    s["plays"] += 1
    s["passes"] = 0
    if s["options"]["dealing"] == "table":
        s["pending_draws"][seat] = s["plays"]


def _fold_placed(s: SequenceState, e: Event) -> SequenceState:
    s = _copy(s, "chips", "hands", "discards", "pending_draws")
    r, c = e["cell"]
    s["chips"][r][c] = e["side"]
    _to_discard(s, e["seat"], e["card"])
    _after_play(s, e["seat"])
    return s


def _fold_removed(s: SequenceState, e: Event) -> SequenceState:
    s = _copy(s, "chips", "hands", "discards", "pending_draws")
    r, c = e["cell"]
    s["chips"][r][c] = None
    _to_discard(s, e["seat"], e["card"])
    _after_play(s, e["seat"])
    return s


def _fold_sequence(s: SequenceState, e: Event) -> SequenceState:
    s = _copy(s, "sequences")
    s["sequences"].append({"side": e["side"], "cells": [list(x) for x in e["cells"]]})
    return s


def _fold_exchanged(s: SequenceState, e: Event) -> SequenceState:
    s = _copy(s, "hands", "discards")
    _to_discard(s, e["seat"], e["card"])
    s["exchanged"] = True
    s["passes"] = 0
    if s["options"]["dealing"] == "table":
        s["replacement_due"] = e["seat"]
    return s


def _fold_lost(s: SequenceState, e: Event) -> SequenceState:
    s = _copy(s, "pending_draws", "lost_draws")
    s["pending_draws"].pop(e["seat"], None)
    s["lost_draws"][e["seat"]] += 1
    return s


def _fold_reshuffled(s: SequenceState, e: Event) -> SequenceState:
    s = _copy(s, "discards")
    cards = [card for seat in s["seats"] for card in s["discards"][seat]]
    s["discards"] = {seat: [] for seat in s["seats"]}
    if s["options"]["dealing"] == "server":
        s["deck"] = shuffle(cards, s["seed"], f"reshuffle-{e['number']}")
    else:  # the deck is empty; cards still listed were drawn under conflicts (G-M2)
        s["deck"] = sorted(cards)
    total = len(s["sequences"])
    s["barren"] = s["barren"] + 1 if total == s["mark"] else 0
    s["mark"] = total
    s["reshuffles"] = e["number"]
    return s


def _fold_passed(s: SequenceState, e: Event) -> SequenceState:
    """SQ-E1 (b): a pass counts towards a round of passes unless its seat exchanged a
    dead card in that turn (the exchange started the count again); ``timeouts`` counts
    the lost turns (G-T1) among the passes of that round."""
    if s["exchanged"]:
        return {**s, "passes": 0, "timeouts": 0}
    before = s.get("timeouts", 0) if s["passes"] else 0
    return {**s, "passes": s["passes"] + 1, "timeouts": before + (1 if e.get("timed_out") else 0)}


def _fold_timed_out(s: SequenceState, e: Event) -> SequenceState:
    """G-T1: the seat on turn held it too long; the pass that follows records the loss."""
    return s.copy()


def _fold_penalty(s: SequenceState, e: Event) -> SequenceState:
    return {**s, "penalty_due": s["penalty_due"] + list(e["seats"])}


def _fold_penalty_discard(s: SequenceState, e: Event) -> SequenceState:
    s = _copy(s, "hands", "discards", "penalty_due")
    _to_discard(s, e["seat"], e["card"])
    s["penalty_due"].remove(e["seat"])
    s["passes"] = 0
    return s


def _fold_ended(s: SequenceState, e: Event) -> SequenceState:
    return {**s, "status": "finished", "turn": None, "result": plain_copy(e["result"])}


def fold_position(s: SequenceState, e: Event) -> SequenceState:
    """The state a ``position-set`` event states (G-P1)."""
    stated = e["position"]
    seats = s["seats"]
    chips: list[list[str | None]] = [[None] * len(row) for row in s["board"]]
    for side, cells in stated["chips"].items():
        for r, c in cells:
            chips[r][c] = side
    owed = stated["owed_draws"]
    return {
        **s,
        "phase": e["phase"],
        "chips": chips,
        "sequences": [
            {"side": x["side"], "cells": [list(c) for c in x["cells"]]} for x in stated["sequences"]
        ],
        "hands": {seat: list(e["hands"][seat]) for seat in seats},
        "discards": {seat: list(stated["discards"][seat]) for seat in seats},
        "deck": list(e["deck"]),
        "turn": stated["turn"],
        "turn_number": stated["turn_number"],
        "exchanged": stated["exchanged"],
        "plays": len(owed),
        "pending_draws": {seat: i + 1 for i, seat in enumerate(owed)},
        "replacement_due": stated["replacement_due"],
        "lost_draws": {seat: stated["lost_draws"].get(seat, 0) for seat in seats},
        "penalty_due": list(stated["penalty_due"]),
        "passes": stated["passes"],
        "reshuffles": stated["reshuffles"],
        "barren": stated["decks_without_sequence"],
        "mark": stated["sequences_at_reshuffle"],
        "conflicts": [],
    }


_FOLDS: dict[str, Callable[[SequenceState, Event], SequenceState]] = {
    "dealt": _fold_dealt,
    "drawn": _fold_drawn,
    "turn-started": _fold_turn,
    "placed": _fold_placed,
    "chip-removed": _fold_removed,
    "sequence-completed": _fold_sequence,
    "dead-card-exchanged": _fold_exchanged,
    "draw-lost": _fold_lost,
    "deck-reshuffled": _fold_reshuffled,
    "passed": _fold_passed,
    "penalty": _fold_penalty,
    "penalty-discarded": _fold_penalty_discard,
    "game-ended": _fold_ended,
    "position-set": fold_position,
    "turn-timed-out": _fold_timed_out,
}


def fold(state: SequenceState | None, event: Event) -> SequenceState:
    """The state after ``event`` (never mutates ``state``); ``fold(None, created)``
    is the initial state. Raises ValueError for an event that does not fit."""
    if event["type"] == "game-created":
        return _created_state(event)
    if state is None:
        raise ValueError("the first event must be game-created")
    return _FOLDS[event["type"]](state, event)


def _emit(events: list[Event], state: SequenceState, event: Event) -> SequenceState:
    events.append(event)
    return fold(state, event)
