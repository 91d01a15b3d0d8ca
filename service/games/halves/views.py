"""Halves views: legal actions, the view of a state and of an event."""

from __future__ import annotations

from typing import Any

from service.games.halves.actions import REFEREE
from service.games.halves.cards import laid, matches
from service.games.halves.fold import (
    HAND,
    active_seats,
    known,
    orientations,
    public_cards,
    top,
    top_entry,
    top_halves,
)
from service.games.halves.options import GAME
from service.games.halves.positions import view_position_set
from service.games.halves.race import bottom_moves_can_help, next_pile_turner, top_ups
from service.games.halves.state import Event, HalvesState
from service.games.rng import commitment
from service.jsontext import plain_copy


def _plays(state: HalvesState, cards: list[str]) -> list[dict[str, Any]]:
    """Every play of ``cards`` (distinct, upright) that matches the top, in each
    allowed orientation, with ``based_on``."""
    based_on = top_entry(state)["card"]
    top_laid, rule = top_halves(state), state["options"]["match"]
    return [
        {"type": "play", "card": card, "turned": turned, "based_on": based_on}
        for card in cards
        for turned in orientations(state)
        if matches(top_laid, laid(card, turned), rule)
    ]


def _seat_actions(state: HalvesState, seat: str) -> list[dict[str, Any]]:
    if seat in state["retired"] or state["options"]["dealing"] == "table":
        return []
    out = _plays(state, list(dict.fromkeys(known(state["hands"][seat]))))
    if len(state["hands"][seat]) < HAND and state["piles"][seat]:
        out.append({"type": "draw"})
    return out


def _referee_actions(state: HalvesState) -> list[dict[str, Any]]:
    active = active_seats(state)
    retire: list[dict[str, Any]] = (
        [{"type": "retire", "seat": s} for s in active] if len(active) > 1 else []
    )
    if state["options"]["dealing"] == "server":
        return retire
    if state["phase"] == "deal":
        return [{"type": "deal", "card": c, "turned": False} for c in state["deck"]]
    public = public_cards(state)
    unseen = [c for c in state["deck"] if c not in public]
    out: list[dict[str, Any]] = []
    for seat in active:
        if state["hands"][seat]:
            out += [{**a, "seat": seat} for a in _plays(state, unseen)]
        if len(state["hands"][seat]) < HAND and state["piles"][seat]:
            out.append({"type": "draw", "seat": seat})
    if top_ups(state) or bottom_moves_can_help(state) or next_pile_turner(state) is None:
        out.append({"type": "blocked"})
    else:
        out += [{"type": "blocked", "card": c, "turned": False} for c in unseen]
    return out + retire


def legal_actions(state: HalvesState, viewer: str | None) -> list[dict[str, Any]]:
    """Complete action bodies ``apply(state, viewer, body)`` accepts now.

    A seat (server mode): every matching play of its hand cards in each allowed
    orientation, with ``based_on`` = the top card (HV-T1, HV-T3), and ``draw`` while
    it holds fewer than 4 and its pile is not empty (HV-T2). The referee: ``retire``
    per active seat while 2+ remain (HV-T6); in table mode also the reports (HV-M1):
    ``deal`` with each possible starting card; then per active seat with cards in
    hand every play of a card not yet in the centre that matches, ``draw`` per seat
    that may draw, and ``blocked`` (with each possible card when a pile turn is due,
    upright). Nobody else, or a finished game: none.
    """
    if state["status"] != "active":
        return []
    if viewer == REFEREE:
        return _referee_actions(state)
    if viewer in state["seats"]:
        return _seat_actions(state, viewer)
    return []


# ===== views =====


def _top_view(state: HalvesState) -> dict[str, Any] | None:
    entry = top(state)
    if entry is None:
        return None
    return {
        "card": entry["card"],
        "turned": entry["turned"],
        "halves": list(laid(entry["card"], entry["turned"])),
    }


def view(state: HalvesState, viewer: str | None) -> dict[str, Any]:
    """The state as ``viewer`` (a seat, ``"referee"``, None) may see it.

    Everyone: the top card (``{"card", "turned", "halves"}``), the central pile's
    size, every seat's hand and pile counts, the box count, the retired seats, the
    blocked moves so far (``blocked``: ``top_up_draws``, ``bottom_card_moves``,
    ``pile_turns``, ``in_a_row``), the next seat to turn its pile (HV-T5), the
    counts of plays and draws, the result, ``from_position`` (G-P1: started from a
    stated position), ``timed_out`` (G-T1: seats treated as unable to play on this
    top). A seat: its own hand (server mode). The
    referee: every hand (server mode) and the central pile bottom first. Nobody: a
    pile's order or the box; the seed before the game is over.
    """
    seats = state["seats"]
    out: dict[str, Any] = {
        "game": GAME,
        "status": state["status"],
        "phase": state["phase"],
        "options": state["options"],
        "seats": list(seats),
        "retired": [s for s in seats if s in state["retired"]],
        "top": _top_view(state),
        "central_pile": len(state["centre"]),
        "hand_counts": {s: len(state["hands"][s]) for s in seats},
        "pile_counts": {s: len(state["piles"][s]) for s in seats},
        "box": len(state["box"]),
        "blocked": {
            "top_up_draws": state["counts"]["top_up_draws"],
            "bottom_card_moves": state["counts"]["bottom_card_moves"],
            "pile_turns": state["counts"]["pile_turns"],
            "in_a_row": state["streak"],
        },
        "next_pile_turn": next_pile_turner(state) if state["phase"] == "play" else None,
        "plays": state["counts"]["plays"],
        "draws": state["counts"]["draws"],
        "result": state["result"],
        "seed_commitment": commitment(state["seed"]),
        "from_position": state.get("from_position", False),
        "timed_out": list(state.get("timed_out", [])),
    }
    if state["status"] == "finished":
        out["seed"] = state["seed"]
    server = state["options"]["dealing"] == "server"
    if viewer == REFEREE:
        if server:
            out["hands"] = {s: list(state["hands"][s]) for s in seats}
        out["centre"] = [dict(entry) for entry in state["centre"]]
    elif viewer in seats:
        out["seat"] = viewer
        if server:
            out["hand"] = list(state["hands"][viewer])
    return out


def view_event(state: HalvesState, event: Event, viewer: str | None) -> Event | None:
    """One log event as ``viewer`` may see it. ``dealt``: the count, plus the hand
    (its first 4 cards) to its seat and the referee (a pile's order to nobody);
    ``drawn``: the card only to its seat and the referee; ``game-created``: the seed
    only once the game is over (``seed_commitment`` before); everything else whole
    (plays, pile turns and bottom-card moves are public)."""
    kind = event["type"]
    if kind == "game-created":
        out = {k: v for k, v in event.items() if k != "seed"}
        out["seed_commitment"] = commitment(event["seed"])
        if state["status"] == "finished":
            out["seed"] = event["seed"]
        shown: Event = plain_copy(out)
        return shown
    if kind == "position-set":
        return view_position_set(state, event, viewer)
    own = viewer is not None and viewer in (event.get("seat"), REFEREE)
    if kind == "dealt":
        cards = event.get("cards")
        out = {
            "type": kind,
            "seat": event["seat"],
            "count": len(cards) if cards is not None else event["count"],
        }
        if own and cards is not None:
            out["hand"] = cards[:HAND]
        return out
    if kind == "drawn" and not own:
        return {k: v for k, v in event.items() if k != "card"}
    whole: Event = plain_copy(event)
    return whole
