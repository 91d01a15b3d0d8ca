"""Solitaire Frenzy cards and their rules (RULES.md §5): notation, what goes on a
foundation (SF-F1) or a column (SF-R1), shared with the stateless check endpoint.

A card is its code (``"7H"``); its owner is the seat whose deck it belongs to.
"""

from __future__ import annotations

from typing import NamedTuple

from service.cards import DECK, RANKS, colour, rank_value, suit
from service.messages import Message

GAME = "solitaire-frenzy"
REALTIME = True
REFEREE = "referee"
PLAYERS = (2, 3, 4, 5, 6)  # SF-P0
PILE_SIZE, COLUMNS, TURN_SIZE = 13, 4, 3  # SF-P1, SF-H1
NEW = "new"  # based_on of an Ace starting a pile (SF-F1)
FOUNDATION, COLUMN = "foundation", "column"
SUITS = ("S", "H", "D", "C")


class Refusal(NamedTuple):
    """Why a card does not go where it was aimed: stable ``code``, a sentence, the rule."""

    code: str
    detail: Message
    rule: str


_VALUE = {card: rank_value(card) for card in DECK}  # A 1 .. K 13
_RED = {card: colour(card) == "red" for card in DECK}
_NEXT = {
    card: (RANKS[_VALUE[card]] + suit(card) if _VALUE[card] < len(RANKS) else None) for card in DECK
}


def ace(card: str) -> bool:
    """An Ace (starts a foundation pile, SF-F1)."""
    return _VALUE[card] == 1


def next_card(card: str) -> str | None:
    """The card that follows ``card`` on a foundation pile (same suit, one rank up);
    None after a King (the pile is complete). SF-F1."""
    return _NEXT[card]


def builds_on(card: str, onto: str) -> bool:
    """SF-R1: ``card`` goes onto the column card ``onto``: one rank lower, the other
    colour (suit does not matter)."""
    return _RED[card] != _RED[onto] and _VALUE[card] == _VALUE[onto] - 1


def foundation_refusal(card: str, onto: str | None) -> Refusal | None:
    """SF-F1: why ``card`` may not go onto the foundation top ``onto`` (None: start a
    new pile); None when it may. An Ace only starts a pile and is never redirected."""
    if onto is None:
        if ace(card):
            return None
        return Refusal(
            "new-pile-needs-ace",
            Message("only an Ace starts a foundation pile, not %(card)s", card=card),
            "SF-F1",
        )
    if ace(card):
        return Refusal(
            "ace-needs-new-pile",
            Message(
                '%(card)s is an Ace: it starts a new pile (based_on "new") and is never played '
                "onto %(onto)s",
                card=card,
                onto=onto,
            ),
            "SF-F1",
        )
    following = next_card(onto)
    if following is None:
        return Refusal(
            "pile-complete",
            Message("the pile is complete up to %(onto)s: nothing goes on a King", onto=onto),
            "SF-F1",
        )
    if suit(card) != suit(onto):
        return Refusal(
            "wrong-suit",
            Message(
                "%(card)s is not of %(onto)s's suit: a pile holds one suit", card=card, onto=onto
            ),
            "SF-F1",
        )
    if card != following:
        return Refusal(
            "wrong-rank",
            Message(
                "%(onto)s takes %(next)s next, not %(card)s: a pile grows one rank at a time",
                onto=onto,
                next=following,
                card=card,
            ),
            "SF-F1",
        )
    return None


def column_refusal(card: str, onto: str) -> Refusal | None:
    """SF-R1: why ``card`` may not go onto the exposed column card ``onto``; None when
    it may (one rank lower, the other colour)."""
    if _RED[card] == _RED[onto]:
        both = (
            Message(
                "%(card)s and %(onto)s are both red: columns alternate colours",
                card=card,
                onto=onto,
            )
            if _RED[card]
            else Message(
                "%(card)s and %(onto)s are both black: columns alternate colours",
                card=card,
                onto=onto,
            )
        )
        return Refusal("wrong-colour", both, "SF-R1")
    if _VALUE[card] != _VALUE[onto] - 1:
        if ace(onto):
            return Refusal(
                "wrong-rank",
                Message(
                    "%(onto)s takes nothing (an Ace ends a column), not %(card)s: columns build "
                    "down one rank at a time",
                    onto=onto,
                    card=card,
                ),
                "SF-R1",
            )
        rank = RANKS[_VALUE[onto] - 2]
        wanted = (
            Message(
                "%(onto)s takes a black %(rank)s, not %(card)s: columns build down "
                "one rank at a time, red on black, black on red",
                onto=onto,
                rank=rank,
                card=card,
            )
            if _RED[onto]
            else Message(
                "%(onto)s takes a red %(rank)s, not %(card)s: columns build down "
                "one rank at a time, red on black, black on red",
                onto=onto,
                rank=rank,
                card=card,
            )
        )
        return Refusal("wrong-rank", wanted, "SF-R1")
    return None
