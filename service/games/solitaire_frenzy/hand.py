"""A seat's hand and waste (RULES.md SF-H1): turning three at a time, and which of the
seat's cards are not face up (SF-E1 counts them as reachable until a pass is done)."""

from __future__ import annotations

from service.games.solitaire_frenzy.cards import TURN_SIZE, builds_on
from service.games.solitaire_frenzy.errors import refuse
from service.games.solitaire_frenzy.foundations import board_needs, to_board
from service.games.solitaire_frenzy.state import (
    Action,
    Event,
    FrenzyState,
    Layout,
    seat_layout,
)
from service.messages import Message


def hidden_cards(layout: Layout) -> list[str]:
    """The seat's cards that are not face up: the 13-pile below its top, the hand, the
    waste below its top. Their set is public (the deck minus what is face up or on the
    board); their places and order are not."""
    return layout["pile"][:-1] + layout["hand"] + layout["waste"][:-1]


def waste_top_plays(state: FrenzyState, seat: str) -> bool:
    """SF-O1: the seat's top waste card could be played now: to the board, onto a
    column's exposed card or into an empty column."""
    layout = seat_layout(state, seat)
    if not layout["waste"]:
        return False
    card, columns = layout["waste"][-1], layout["columns"]
    return (
        any(not c for c in columns)
        or to_board(card, board_needs(state))
        or any(builds_on(card, c[-1]) for c in columns if c)
    )


def do_turn(events: list[Event], state: FrenzyState, seat: str, action: Action) -> None:
    """SF-H1: turn the next three hand cards (fewer when fewer remain) onto the waste;
    with an empty hand, pick the waste up unshuffled first (one event). With
    ``play_order: "strict"`` refused while the waste top could be played (SF-O1)."""
    layout = seat_layout(state, seat)
    if not layout["hand"] and not layout["waste"]:
        raise refuse(
            "nothing-to-turn", Message("your hand and waste are empty: nothing to turn"), "SF-H1"
        )
    if state["options"]["play_order"] == "strict" and waste_top_plays(state, seat):
        raise refuse(
            "play-order",
            Message(
                "play order is strict: your waste top %(card)s can be played, so play it "
                "before turning (SF-O1)",
                card=layout["waste"][-1],
            ),
            "SF-O1",
        )
    recycled = not layout["hand"]
    cards = layout["waste"] if recycled else layout["hand"]
    group = cards[:TURN_SIZE]
    events.append(
        {
            "type": "turned",
            "seat": seat,
            "top": group[-1],
            "count": len(group),
            "recycled": recycled,
        }
    )
