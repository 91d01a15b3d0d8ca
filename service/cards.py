"""Card notation shared by every game (RULES.md, "Card notation").

Input accepts ``10H``, ``TH``, ``th``, ``Th`` and ``JK`` (joker), nothing around them
(no spaces); output is always the canonical form: rank + suit with ``10`` for ten
(``10H``), ``JK`` for a joker.

>>> parse_card("th")
'10H'
>>> parse_cards(["as", "JK"])
['AS', 'JK']
>>> rank_value("QS"), suit("QS"), colour("QD")
(12, 'S', 'red')
"""

from __future__ import annotations

from collections.abc import Iterable

from service.messages import Message

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")  # spades, hearts, diamonds, clubs
JOKER = "JK"
RED_SUITS = frozenset("HD")
DECK = tuple(r + s for s in SUITS for r in RANKS)  # one standard 52-card deck
# every canonical code to itself: most input is canonical already, one lookup
_CANONICAL = {code: code for code in (*DECK, JOKER)}


class CardError(ValueError):
    """A card code that is not in the notation; ``code`` is the offending input,
    ``message`` the translatable sentence (also the exception's text)."""

    def __init__(self, code: object):
        self.code = code
        if isinstance(code, str):
            self.message = Message("unknown card code %(code)s", code=repr(code))
        else:
            self.message = Message(
                "a card code is a string such as '10H', not %(type)s", type=type(code).__name__
            )
        super().__init__(self.message)


def parse_card(code: object) -> str:
    """Canonical code of ``code`` (``'th'`` -> ``'10H'``). Raises :class:`CardError`."""
    if not isinstance(code, str):
        raise CardError(code)
    canonical = _CANONICAL.get(code)
    if canonical is not None:
        return canonical
    text = code.upper()
    if text == JOKER:
        return JOKER
    rank, suit_ = text[:-1], text[-1:]
    if rank == "T":
        rank = "10"
    if rank not in RANKS or suit_ not in SUITS:
        raise CardError(code)
    return rank + suit_


def parse_cards(codes: Iterable[object]) -> list[str]:
    """Canonical codes of every item; the first bad one raises :class:`CardError`."""
    return [parse_card(c) for c in codes]


def rank(card: str) -> str:
    """Rank part of a canonical non-joker card: ``'10H'`` -> ``'10'``."""
    return card[:-1]


def suit(card: str) -> str:
    """Suit letter of a canonical non-joker card: ``'10H'`` -> ``'H'``."""
    return card[-1]


def rank_value(card: str) -> int:
    """Ace 1, 2..10, Jack 11, Queen 12, King 13 (aces high is the caller's rule)."""
    return RANKS.index(rank(card)) + 1


def colour(card: str) -> str:
    """``'red'`` for hearts and diamonds, ``'black'`` for spades and clubs."""
    return "red" if suit(card) in RED_SUITS else "black"
