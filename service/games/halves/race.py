"""Halves race flow: the deal (HV-P1, HV-P2), blocks, pile turns and the end
(HV-T4, HV-T5, HV-E1)."""

from __future__ import annotations

from typing import Any

from service.games.halves.cards import DEFAULT_DECK
from service.games.halves.fold import HAND, active_seats, cards_left, emit, fold, someone_can_play
from service.games.halves.options import GAME, invalid_option, normalise_options
from service.games.halves.state import Event, HalvesState, Result
from service.messages import Message


def new_game(game: str, options: Any, seed: str) -> list[Event]:
    """The setup events of a new game of Halves.

    ``game-created`` (options, seats, deck, seed); in server mode then one ``dealt``
    per seat (HV-P1: equal blocks of the shuffled deck, leftovers stay in the box),
    the starting ``pile-turned`` of ``first_seat`` (HV-P2) and, if nobody can play on
    it, the block's events (HV-T4, HV-T5). In table mode the referee reports the deal
    (``deal``). Raises RuleViolation ``invalid-option`` (422).
    """
    if game != GAME:
        raise invalid_option(Message("unknown game %(game)s", game=repr(game)), "HV-P1")
    normal = normalise_options(options)
    created: Event = {
        "type": "game-created",
        "seat": None,
        "game": GAME,
        "options": normal,
        "seats": [f"p{i}" for i in range(1, normal["players"] + 1)],
        "deck": list(normal["deck"] or DEFAULT_DECK),
        "seed": seed,
    }
    events: list[Event] = [created]
    state = fold(None, created)
    if normal["dealing"] == "server":
        share = len(state["box"]) // len(state["seats"])
        for seat in state["seats"]:
            state = emit(
                events, state, {"type": "dealt", "seat": seat, "cards": state["box"][:share]}
            )
        first = normal["first_seat"]
        state = emit(
            events, state, pile_turn(state, first, state["piles"][first][0], False, "HV-P2")
        )
        resolve_block(events, state)
    return events


def bottom_moves_can_help(state: HalvesState) -> bool:
    """HV-T5 ruling: a bottom move can still help while the centre has 2+ cards and
    fewer than N-1 moves in a row (bottom moves and pile turns since the hands last
    changed) have left it blocked, N = the cards in the centre."""
    size = len(state["centre"])
    return size > 1 and state["streak"] < size - 1


def next_pile_turner(state: HalvesState) -> str | None:
    """HV-T5: the seat that turns its pile next: from the rotation's seat round,
    the first active seat with a non-empty pile; None when every pile is empty."""
    seats = state["seats"]
    start = seats.index(state["turner"])
    for seat in seats[start:] + seats[:start]:
        if seat not in state["retired"] and state["piles"][seat]:
            return seat
    return None


def top_ups(state: HalvesState) -> list[Event]:
    """HV-T4: the draws topping up every active hand below 4 from its own pile."""
    out: list[Event] = []
    for seat in active_seats(state):
        hand, pile = state["hands"][seat], state["piles"][seat]
        out += [
            {"type": "drawn", "seat": seat, "card": card, "top_up": True}
            for card in pile[: max(0, HAND - len(hand))]
        ]
    return out


def pile_turn(state: HalvesState, seat: str, card: str | None, turned: bool, rule: str) -> Event:
    return {"type": "pile-turned", "seat": seat, "card": card, "turned": turned, "rule": rule}


def result_of(state: HalvesState, reason: str, winners: list[str]) -> Result:
    seats = state["seats"]
    return {
        "winners": winners,
        "scores": {s: cards_left(state, s) for s in seats},
        "reason": reason,
        "halves": {
            "hands": {s: len(state["hands"][s]) for s in seats},
            "piles": {s: len(state["piles"][s]) for s in seats},
            "retired": [s for s in seats if s in state["retired"]],
            "central_pile": len(state["centre"]),
        },
    }


def end(events: list[Event], state: HalvesState, reason: str, winners: list[str]) -> HalvesState:
    return emit(
        events,
        state,
        {"type": "game-ended", "seat": None, "result": result_of(state, reason, winners)},
    )


def check_out(events: list[Event], state: HalvesState, seat: str) -> HalvesState:
    """HV-E1: ``seat`` has exactly one card left (pile + hand): it wins at once.
    Ruling: the one card may still be in its pile (it would just draw it)."""
    if state["status"] == "active" and cards_left(state, seat) == 1:
        state = end(events, state, "out", [seat])
    return state


def block_step(
    events: list[Event], state: HalvesState, card: str | None = None, turned: bool = False
) -> HalvesState:
    """One step of HV-T4/HV-T5 once nobody can play: top up the short hands; else
    move the bottom card to the top while that can help; else the next seat turns
    its pile top (``card``: the server's pile top, or the referee's report); else
    (every pile empty) the game ends, fewest hand cards winning."""
    draws = top_ups(state)
    if draws:
        for event in draws:
            state = emit(events, state, event)
        return state
    if bottom_moves_can_help(state):
        return emit(
            events,
            state,
            {"type": "bottom-card-moved", "seat": None, "card": state["centre"][0]["card"]},
        )
    seat = next_pile_turner(state)
    if seat is None:
        hands = {s: len(state["hands"][s]) for s in active_seats(state)}
        fewest = min(hands.values())
        return end(events, state, "no-legal-play", [s for s, n in hands.items() if n == fewest])
    if state["piles"][seat][0] is not None:
        card, turned = state["piles"][seat][0], False
    # (never a win, HV-E1: after the top-ups a seat with a pile holds 4 in hand)
    return emit(events, state, pile_turn(state, seat, card, turned, "HV-T5"))


def resolve_block(events: list[Event], state: HalvesState) -> HalvesState:
    """Server mode: repeat :func:`block_step` while the game runs and no active
    seat can play on the top (HV-T4; a seat timed out on this top counts as unable,
    G-T1). Terminates: each step draws or turns a pile card (piles are finite) or
    moves a bottom card (at most N-1 in a row)."""
    while state["status"] == "active" and not someone_can_play(state):
        state = block_step(events, state)
    return state


def idle_events(state: HalvesState, since: float, now: float) -> list[Event]:
    """G-T1: the events of a game idle since ``since`` (epoch seconds of its last
    recorded event) at ``now`` (epoch seconds of the request).

    [] unless option ``idle_seconds`` is set, the game runs in server dealing and
    ``now - since >= idle_seconds``. Else nobody has moved for ``idle_seconds``: one
    ``seat-timed-out`` ``{seat, at: now, since, rule: "G-T1"}`` per active seat, each
    then treated as unable to play on the top (HV-T4), and the block's steps that
    follow (HV-T4, HV-T5: top-ups, a bottom-card move or a pile turn, or the end).
    Ruling: every idle seat is named, not only those that could play, because naming
    those would tell every seat whose hidden hand holds a match (G-M1); a seat that
    cannot play is stuck anyway, so the outcome is the same. A time-out holds for the
    top it was judged on: a new top, or the seat's own draw, lifts it. No clock is
    read here, so folding the events replays exactly."""
    seconds = state["options"].get("idle_seconds")
    if (
        seconds is None
        or state["status"] != "active"
        or state["phase"] != "play"
        or state["options"]["dealing"] != "server"
        or now - since < seconds
    ):
        return []
    done = state.get("timed_out", [])
    events: list[Event] = []
    for seat in active_seats(state):
        if seat not in done:
            state = emit(
                events,
                state,
                {"type": "seat-timed-out", "seat": seat, "at": now, "since": since, "rule": "G-T1"},
            )
    if events:
        resolve_block(events, state)
    return events
