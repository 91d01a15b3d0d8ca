"""Table-mode reports of dealt and drawn cards (G-M2) and lost draws (SQ-T5)."""

from __future__ import annotations

from collections import Counter

from service.games.sequence.cards import parse_card_for
from service.games.sequence.fold import _emit, deck_count
from service.games.sequence.state import Action, Event, SequenceState
from service.games.sequence.turn import _cards_to_draw, _malformed, _refuse, _reshuffle
from service.messages import Message


def _discarded_cards(state: SequenceState) -> list[str]:
    return [card for seat in state["seats"] for card in state["discards"][seat]]


def _draw_candidates(state: SequenceState) -> list[str]:
    """G-M2, what can still be drawn as the referee knows it: the deck, or the discard
    piles when the deck is empty (they are reshuffled into it first, SQ-T7)."""
    return state["deck"] if deck_count(state) else _discarded_cards(state)


def _seat_draw_candidates(state: SequenceState, seat: str) -> list[str]:
    """G-M2, what ``seat`` cannot rule out for its own draw from what it can see (its
    hand and the discard piles, never another hand): with cards in the deck, every
    card of the game of which it does not see every copy; with the deck empty, the
    discard piles (reshuffled first, SQ-T7). Sorted, each card once."""
    if not deck_count(state):
        return sorted(set(_discarded_cards(state)))
    game_cards = state["deck_cards"]
    if game_cards is None:  # server dealing, where no seat reports a draw
        raise ValueError("a seat reports its draws in table dealing only")
    seen = Counter(state["hands"][seat]) + Counter(_discarded_cards(state))
    return sorted(card for card, copies in game_cards.items() if seen[card] < copies)


def _check_report(state: SequenceState, seat: str, card: str, by_referee: bool) -> dict[str, bool]:
    """G-M2: refuse a table-mode report of ``card`` that its sender can know to be
    impossible; ``{"conflict": True}`` when no copy of it is left in the deck (a
    seat's report only: the referee's is refused then), else ``{}``."""
    if by_referee and card not in _draw_candidates(state):
        raise _refuse(
            "card-not-in-deck", Message("no %(card)s is left in the deck", card=card), "G-M2"
        )
    if not by_referee and card not in _seat_draw_candidates(state, seat):
        why = (
            Message(
                "every %(card)s is in %(seat)s's hand or on a discard pile", card=card, seat=seat
            )
            if deck_count(state)
            else Message("the deck is empty and no discard pile holds %(card)s", card=card)
        )
        raise _refuse("card-not-in-deck", why, "G-M2")
    conflict = deck_count(state) > 0 and card not in state["deck"]
    return {"conflict": True} if conflict else {}


def _do_draw(state: SequenceState, seat: str, action: Action, by_referee: bool) -> list[Event]:
    """Table mode: a reported card dealt (deal phase, SQ-P2) or drawn after a play
    (SQ-T1) or as a dead card's replacement (SQ-T4); a post-play draw makes the
    previous seat lose a draw it still owes for an earlier play (SQ-T5). The card is
    checked against what the sender can know (G-M2, ``_check_report``)."""
    if state["options"]["dealing"] != "table":
        raise _refuse(
            "not-table-mode",
            Message("in server mode the draw is part of the play (SQ-T5: it cannot be missed)"),
            "G-M1",
        )
    if "card" not in action:
        raise _malformed(Message('a table-mode draw reports the card drawn: "card"'), rule="G-M2")
    card = parse_card_for(state["game"], action["card"])
    events: list[Event] = []
    if state["phase"] == "deal":
        if len(state["hands"][seat]) >= state["hand_size"]:
            raise _refuse(
                "hand-full",
                Message(
                    "%(seat)s has been dealt %(count)s cards", seat=seat, count=state["hand_size"]
                ),
                "SQ-P2" if state["game"] == "sequence" else "SN-P2",
            )
        conflict = _check_report(state, seat, card, by_referee)
        state = _emit(events, state, {"type": "dealt", "seat": seat, "cards": [card], **conflict})
        if all(len(h) == state["hand_size"] for h in state["hands"].values()):
            _emit(events, state, {"type": "turn-started", "seat": state["options"]["first_seat"]})
        return events
    replacement = state["replacement_due"] == seat
    if not replacement and seat not in state["pending_draws"]:
        raise _refuse("draw-not-due", Message("%(seat)s has no draw to make", seat=seat), "SQ-T5")
    conflict = _check_report(state, seat, card, by_referee)
    if not deck_count(state):
        state = _reshuffle(events, state)
        if state["status"] != "active":
            return events
    mine = None if replacement else state["pending_draws"][seat]
    state = _emit(events, state, {"type": "drawn", "seat": seat, "card": card, **conflict})
    if mine is not None:
        _lose_previous_draw(events, state, seat, mine)
    return events


def _lose_previous_draw(
    events: list[Event], state: SequenceState, seat: str, mine: int
) -> SequenceState:
    """SQ-T5: ``seat`` has played (play number ``mine``) and drawn, so the seat just
    before it in turn order loses a draw it still owes for an earlier play. A draw
    owed by any other seat is not affected (it is lost later, when that seat's own
    next seat has played and drawn, or when it plays again)."""
    seats = state["seats"]
    previous = seats[seats.index(seat) - 1]
    since = state["pending_draws"].get(previous)
    if since is not None and since < mine:
        state = _emit(events, state, {"type": "draw-lost", "seat": previous})
    return state


def _owes_draw(state: SequenceState, seat: str) -> bool:
    """Table mode: ``seat`` still owes a draw (SQ-T5, SQ-T4) and a card is left for it."""
    owes = seat in state["pending_draws"] or state["replacement_due"] == seat
    return owes and _cards_to_draw(state)
