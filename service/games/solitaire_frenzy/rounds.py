"""Solitaire Frenzy rounds (RULES.md SF-E1, SF-E2, SF-E3): starting a round, SF-E1's
"nobody can move" judged from what the table can know, scoring, the end of the game."""

from __future__ import annotations

from typing import Any

from service.games.solitaire_frenzy.cards import COLUMNS, GAME, PILE_SIZE, builds_on
from service.games.solitaire_frenzy.deal import (
    deal,
    invalid_option,
    normalise_options,
    seats_of,
)
from service.games.solitaire_frenzy.fold import emit, fold, fold_all
from service.games.solitaire_frenzy.foundations import (
    board_counts,
    board_needs,
    to_board,
)
from service.games.solitaire_frenzy.hand import hidden_cards
from service.games.solitaire_frenzy.positions import read_position
from service.games.solitaire_frenzy.state import (
    Event,
    FrenzyState,
    Needs,
    Result,
    seat_layout,
)
from service.messages import Message


def new_game(game: str, options: Any, seed: str) -> list[Event]:
    """The setup events: ``game-created`` (options, seats p1..pN, seed), then round 1
    (``round-started`` and, in server mode, one ``dealt`` per seat).
    Raises RuleViolation ``invalid-option`` (422)."""
    if game != GAME:
        raise invalid_option(Message("unknown game %(game)s", game=repr(game)))
    normal = normalise_options(options)
    created: Event = {
        "type": "game-created",
        "seat": None,
        "game": GAME,
        "options": normal,
        "seats": seats_of(normal["players"]),
        "seed": seed,
    }
    events = [created]
    start_round(events, fold(None, created))
    return events


def start_from_position(game: str, options: Any, seed: str, position: Any) -> list[Event]:
    """G-P1: the setup events of a game starting from a stated ``position`` (notation:
    service.games.solitaire_frenzy.positions): ``game-created`` (``from_position``:
    true), ``position-set`` (the position normalised, as stated; the cards it leaves
    out are shuffled from the seed when folded), then what the position already
    implies in server dealing (a seat out or nobody able to move ends the round,
    SF-E1) or, when its history holds the round in play, the end of the game.
    Raises RuleViolation ``invalid-option`` or ``invalid-position`` (422, naming
    ``field`` and the rule broken)."""
    if game != GAME:
        raise invalid_option(Message("unknown game %(game)s", game=repr(game)))
    normal = normalise_options(options)
    seats = seats_of(normal["players"])
    stated = read_position(position, normal, seats)
    events: list[Event] = [
        {
            "type": "game-created",
            "seat": None,
            "game": GAME,
            "options": normal,
            "seats": seats,
            "seed": seed,
            "from_position": True,
        },
        {"type": "position-set", "seat": None, "position": stated},
    ]
    state = fold_all(fold(None, events[0]), events[1:])
    if len(state["history"]) == state["round"] or len(state["active"]) < 2:
        # the round in play has ended, or (at a table) the last seat was left: SF-E3
        end_game(events, state, "last-seat" if len(state["active"]) < 2 else "rounds-played")
    elif normal["dealing"] == "server":
        settle(events, state)
    return events


def pile_left(state: FrenzyState, seat: str) -> int:
    """SF-E2: cards left in the seat's 13-pile (as it stood when it retired, SF-E3)."""
    layout = state["layouts"][seat]
    if layout is not None:
        return len(layout["pile"])
    left = state["retired"][seat]["pile"]
    if left is None:  # only table dealing leaves it unknown, and its rounds are recorded
        raise ValueError(f"{seat} retired with an unknown 13-pile")
    return left


def start_round(events: list[Event], state: FrenzyState) -> FrenzyState:
    """The next round: ``round-started`` for the active seats, and in server mode a
    fresh deal for each (SF-E2: empty board, new shuffles)."""
    number = state["round"] + 1
    state = emit(
        events,
        state,
        {"type": "round-started", "seat": None, "round": number, "seats": list(state["active"])},
    )
    if state["options"]["dealing"] == "server":
        for seat in state["active"]:
            layout = deal(state["seed"], number, seat)
            state = emit(
                events,
                state,
                {
                    "type": "dealt",
                    "seat": seat,
                    "round": number,
                    "pile_top": layout["pile"][-1],
                    "pile_size": PILE_SIZE,
                    "columns": layout["columns"],
                    "hand_size": len(layout["hand"]),
                },
            )
    return state


def end_game(events: list[Event], state: FrenzyState, reason: str) -> FrenzyState:
    """``game-ended`` with the common result: the highest total among the seats still
    playing wins, equal totals share (SF-E2); retired seats cannot win (SF-E3)."""
    totals = state["totals"]
    best = max(totals[s] for s in state["active"])
    winners = [s for s in state["active"] if totals[s] == best]
    result: Result = {
        "winners": winners,
        "scores": dict(totals),
        "reason": reason,
        "solitaire_frenzy": {"rounds": state["history"], "retired": sorted(state["retired"])},
    }
    return emit(events, state, {"type": "game-ended", "seat": None, "result": result})


def close_round(
    events: list[Event],
    state: FrenzyState,
    reason: str,
    out: str | None,
    board: dict[str, int],
    pile: dict[str, int],
) -> FrenzyState:
    """``round-ended`` with the round's scores (SF-E2: +1 per own card on the board,
    ``-pile_penalty`` per card left in the 13-pile) and the running totals; then the
    next round, or the end of the game after the last one (or with one seat left)."""
    penalty = state["options"]["pile_penalty"]
    scores = {s: board[s] - penalty * pile[s] for s in board}
    totals = {s: state["totals"][s] + scores.get(s, 0) for s in state["seats"]}
    state = emit(
        events,
        state,
        {
            "type": "round-ended",
            "seat": None,
            "round": state["round"],
            "reason": reason,
            "out": out,
            "board": board,
            "pile": pile,
            "scores": scores,
            "totals": totals,
        },
    )
    if len(state["active"]) < 2:
        return end_game(events, state, "last-seat")
    if state["round"] >= state["options"]["rounds"]:
        return end_game(events, state, "rounds-played")
    return start_round(events, state)


def end_round(
    events: list[Event], state: FrenzyState, reason: str, out: str | None = None
) -> FrenzyState:
    """Server mode: score the round as the board and the 13-piles stand."""
    counts = board_counts(state)
    seats = state["round_seats"]
    return close_round(
        events,
        state,
        reason,
        out,
        {s: counts[s] for s in seats},
        {s: pile_left(state, s) for s in seats},
    )


def can_move(state: FrenzyState, seat: str, needs: Needs | None = None) -> bool:
    """SF-E1: does the active ``seat`` have a productive move, judged on public
    information only (see the package docstring)? Productive: its 13-pile top, waste
    top or a card turning can reach goes to the board, onto a column or into an empty
    column; a column's exposed card goes to the board; a whole column moves onto
    another. Turning alone is not productive. A seat G-T1 timed out counts as having
    no move until it acts again."""
    if seat in state.get("timed_out", []):
        return False
    layout = seat_layout(state, seat)
    needs = needs or board_needs(state)
    columns = layout["columns"]
    exposed = [column[-1] for column in columns if column]
    gap = len(exposed) < COLUMNS

    def productive(card: str) -> bool:
        return gap or to_board(card, needs) or any(builds_on(card, e) for e in exposed)

    if layout["pile"] and productive(layout["pile"][-1]):
        return True
    if any(to_board(card, needs) for card in exposed):
        return True
    if any(builds_on(a[0], b[-1]) for a in columns for b in columns if a and b and a is not b):
        return True
    if not layout["hand"] and not layout["waste"]:
        return False
    if layout["waste"] and productive(layout["waste"][-1]):
        return True
    reach = layout["reach"] if layout["reach"] is not None else hidden_cards(layout)
    return any(productive(card) for card in reach)


def settle(events: list[Event], state: FrenzyState) -> FrenzyState:
    """After an action in server mode: the round ends when a seat has gone out (its
    13-pile is empty), when fewer than two seats remain, or when no active seat can
    move (SF-E1); each end is followed by the next round or the end of the game."""
    while state["status"] == "active":
        out = next((s for s in state["active"] if not seat_layout(state, s)["pile"]), None)
        if out is not None:
            state = end_round(events, state, "out", out)
        elif len(state["active"]) < 2:
            state = end_round(events, state, "last-seat")
        else:
            needs = board_needs(state)
            if any(can_move(state, s, needs) for s in state["active"]):
                break
            state = end_round(events, state, "stuck")
    return state
