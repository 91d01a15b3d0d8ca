"""Legal actions and views: what each viewer may do and see (G-M1, G-M2)."""

from __future__ import annotations

from typing import Any

from service.games.rng import commitment
from service.games.sequence.draws import _draw_candidates, _owes_draw, _seat_draw_candidates
from service.games.sequence.fold import deck_count
from service.games.sequence.state import Action, Event, SequenceState
from service.games.sequence.turn import _counts, _plays, can_exchange, is_dead
from service.jsontext import plain_copy


def _draws(state: SequenceState, seat: str, by_referee: bool) -> list[Action]:
    """Table mode: a draw body per card the sender cannot rule out (G-M2): the
    referee's from the deck, a seat's from what it can see (``_seat_draw_candidates``)."""
    cards = (
        sorted(set(_draw_candidates(state))) if by_referee else _seat_draw_candidates(state, seat)
    )
    return [{"type": "draw", "card": card} for card in cards]


def _seat_actions(state: SequenceState, seat: str, by_referee: bool = False) -> list[Action]:
    hand = state["hands"][seat]
    if state["phase"] == "deal":
        return _draws(state, seat, by_referee) if len(hand) < state["hand_size"] else []
    out: list[Action] = []
    if state["replacement_due"] == seat or seat in state["pending_draws"]:
        out += _draws(state, seat, by_referee)
    if seat in state["penalty_due"]:
        return out + [{"type": "penalty-discard", "card": card} for card in dict.fromkeys(hand)]
    if state["turn"] != seat or state["replacement_due"] == seat:
        return out
    if not state["exchanged"]:
        out += [
            {"type": "exchange-dead-card", "card": card}
            for card in dict.fromkeys(hand)
            if is_dead(state, card)
        ]
    plays = _plays(state, seat)
    if plays or _owes_draw(state, seat) or can_exchange(state, seat):
        return out + plays
    return out + [{"type": "pass"}]


def _penalties(state: SequenceState) -> list[Action]:
    if state["phase"] != "play":
        return []
    return [
        {"type": "penalty", "side": side}
        for side, members in state["teams"].items()
        if len(members) > 1
        and not any(m in state["penalty_due"] for m in members)
        and any(state["hands"][m] for m in members)
    ]


def legal_actions(state: SequenceState, viewer: str | None) -> list[Action]:
    """Complete action bodies ``apply(state, viewer, body)`` accepts now.

    A seat: its own moves, its table-mode draws judged on what it can see (G-M2).
    The referee: penalties (SQ-T6), and in table mode every seat's moves with
    ``"seat"`` added. Anyone else, or a finished game: none.
    """
    if state["status"] != "active":
        return []
    if viewer == "referee":
        out = _penalties(state)
        if state["options"]["dealing"] == "table":
            for seat in state["seats"]:
                out += [{**a, "seat": seat} for a in _seat_actions(state, seat, True)]
        return out
    if viewer in state["seats"]:
        return _seat_actions(state, viewer)
    return []


# ===== views: what each viewer may see =====


def view(state: SequenceState, viewer: str | None) -> dict[str, Any]:
    """The state as ``viewer`` may see it (a seat ``p1``.., ``"referee"``, None).

    Everyone: board, chips, sequences, counts, discard piles (face up), turn, hand
    and deck counts, pending draws, penalties, result (RESULT once finished, else
    None). A seat: its own hand only (not a teammate's). The referee: every hand and
    (table mode) ``conflicts``, the seats' reports of a card of which no copy was left
    in the deck (G-M2: ``[{"seat", "card", "deck": reshuffles before it}]``). Nobody:
    the deck order; the seed only once the game is over (before that its SHA-256
    commitment).
    """
    out = {
        "game": state["game"],
        "status": state["status"],
        "phase": state["phase"],
        "options": state["options"],
        "seats": list(state["seats"]),
        "sides": dict(state["sides"]),
        "teams": {k: list(v) for k, v in state["teams"].items()},
        "hand_size": state["hand_size"],
        "sequences_to_win": state["sequences_to_win"],
        "board": [list(row) for row in state["board"]],
        "chips": [list(row) for row in state["chips"]],
        "sequences": [
            {"side": s["side"], "cells": [list(x) for x in s["cells"]]} for s in state["sequences"]
        ],
        "sequence_counts": _counts(state),
        "turn": state["turn"],
        "turn_number": state["turn_number"],
        "exchanged": state["exchanged"],
        "hand_counts": {s: len(h) for s, h in state["hands"].items()},
        "deck_count": deck_count(state),
        "discards": {s: list(p) for s, p in state["discards"].items()},
        "pending_draws": sorted(state["pending_draws"]),
        "replacement_due": state["replacement_due"],
        "penalty_due": list(state["penalty_due"]),
        "lost_draws": dict(state["lost_draws"]),
        "reshuffles": state["reshuffles"],
        "result": plain_copy(state["result"]),
        "seed_commitment": commitment(state["seed"]),
        "from_position": state.get("from_position", False),
    }
    if state["status"] == "finished":
        out["seed"] = state["seed"]
    if viewer == "referee":
        out["hands"] = {s: list(h) for s, h in state["hands"].items()}
        out["conflicts"] = [dict(c) for c in state["conflicts"]]
    elif viewer in state["seats"]:
        out["seat"] = viewer
        out["hand"] = list(state["hands"][viewer])
    return out


def view_event(state: SequenceState, event: Event, viewer: str | None) -> Event | None:
    """One log event as ``viewer`` may see it: dealt and drawn cards only to their
    seat and the referee (others see the count), a report's ``conflict`` (G-M2) only
    to the referee; the seed in ``game-created`` only once the game is over
    (``seed_commitment`` before); a ``position-set``'s hands only to their seat and the
    referee, its deck to nobody until the game is over (G-M1, G-P1)."""
    kind = event["type"]
    if kind == "position-set":
        return _position_event(state, event, viewer)
    if kind == "game-created":
        out = {k: v for k, v in event.items() if k != "seed"}
        out["seed_commitment"] = commitment(event["seed"])
        if state["status"] == "finished":
            out["seed"] = event["seed"]
        return out
    if kind in ("dealt", "drawn") and viewer not in (event["seat"], "referee"):
        count = len(event["cards"]) if kind == "dealt" else 1
        return {"type": kind, "seat": event["seat"], "count": count}
    if viewer == "referee":
        whole: Event = plain_copy(event)  # a deep copy, as JSON
        return whole
    return {k: plain_copy(v) for k, v in event.items() if k != "conflict"}


def _position_event(state: SequenceState, event: Event, viewer: str | None) -> Event:
    """G-P1: a stated position as ``viewer`` may see it (other hands as counts, G-M1)."""
    over = state["status"] == "finished"
    stated = plain_copy(event["position"])
    stated["hands"] = {
        seat: list(hand) if over or viewer in (seat, "referee") else len(hand)
        for seat, hand in event["hands"].items()
    }
    out: Event = {
        "type": "position-set",
        "seat": None,
        "phase": event["phase"],
        "deck_count": len(event["deck"]),
    }
    if over:
        out["deck"] = list(event["deck"])
    else:
        stated.pop("deck", None)
    return {**out, "position": stated}
