"""The shape of a Solitaire Frenzy state (RULES.md §5), as ``fold`` builds it.

Every value is plain JSON (the store snapshots it as is). Cards are codes (``"7H"``);
a card's owner is the seat whose deck it belongs to (its back colour, SF-E2).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict

Layout = TypedDict(
    "Layout",
    {
        "pile": list[str],
        "columns": list[list[str]],
        "hand": list[str],
        "waste": list[str],
        "pass": "list[str] | None",
        "reach": "list[str] | None",
    },
)
Layout.__doc__ = """A seat's own cards in a round (SF-P1, SF-H1) and its SF-E1 record.

``pile``: the 13-pile, top LAST, only the top face up. ``columns``: 4 lists, first laid
first, exposed card LAST. ``hand``: face down, the next card to turn FIRST. ``waste``:
turned cards, top LAST. ``pass``: the tops shown so far in the current pass through the
hand (None once a waste card left the cycle); ``reach``: the sorted tops of a completed
pass (None while unknown), i.e. every card turning can reach (SF-E1). (Functional form:
``pass`` is a Python keyword.)"""


class PileEntry(TypedDict):
    """One card on a foundation pile and the seat whose deck it came from."""

    card: str
    seat: str


class Foundation(TypedDict):
    """A shared foundation pile (SF-F1): ``id`` 1, 2... in the order its Ace was
    played this round, its ``suit``, its cards from the Ace up."""

    id: int
    suit: str
    cards: list[PileEntry]


class Retirement(TypedDict):
    """SF-E3: the round a seat left in and its 13-pile size then (None in table
    mode, where no single card is refereed)."""

    round: int
    pile: int | None


class RoundRecord(TypedDict):
    """One ended round (SF-E2): why it ended, who went out, each seat's own cards on
    the board, cards left in the 13-pile, and round score."""

    round: int
    reason: str
    out: str | None
    board: dict[str, int]
    pile: dict[str, int]
    scores: dict[str, int]


class FrenzyRecord(TypedDict):
    """The game's own part of its result: every ended round, the seats that retired."""

    rounds: list[RoundRecord]
    retired: list[str]


class Result(TypedDict):
    """The shared RESULT of :mod:`service.games` (reason ``rounds-played`` or
    ``last-seat``): the highest total among the seats still playing wins (SF-E2, SF-E3)."""

    winners: list[str]
    scores: dict[str, int]
    reason: str
    solitaire_frenzy: FrenzyRecord


class Options(TypedDict):
    """The catalog's options, every one filled in (``normalise_options``)."""

    players: int
    dealing: Literal["server", "table"]
    rounds: int
    pile_penalty: int
    one_pile_per_suit: bool
    play_order: Literal["free", "strict"]
    first_seat: str
    idle_seconds: int | None


class FrenzyState(TypedDict):
    """The whole game. ``seats`` p1..pN; ``active`` the seats still at the table
    (SF-E3); ``round`` the current round (1-based) and ``round_seats`` the seats that
    started it; ``layouts[seat]`` None before a deal, once retired, and always in
    table mode unless a position stated them; ``totals`` the running scores;
    ``result`` the common result once finished (``status`` "finished");
    ``from_position``: the game started from a stated position (G-P1);
    ``timed_out``: the seats of this round treated as having no move since G-T1 timed
    them out (until they act again)."""

    game: str
    options: Options
    seed: str
    status: Literal["active", "finished"]
    seats: list[str]
    active: list[str]
    round: int
    round_seats: list[str]
    foundations: list[Foundation]
    layouts: dict[str, Layout | None]
    retired: dict[str, Retirement]
    history: list[RoundRecord]
    totals: dict[str, int]
    result: Result | None
    from_position: bool
    timed_out: list[str]


Event = dict[str, Any]  # ``{"type": str, "seat": str | None, ...}``; see the package docstring
Action = Mapping[str, Any]  # an action body as ``apply`` receives it (read, never changed)
Needs = tuple[set[str], set[str]]  # the cards the board takes, the suits an Ace may open


def seat_layout(state: FrenzyState, seat: str) -> Layout:
    """The layout of a seat in play (dealt, not retired). ValueError for a seat that has
    none: only an active seat of a server game (or of a stated position) has one."""
    layout = state["layouts"][seat]
    if layout is None:
        raise ValueError(f"{seat} has no layout in this round")
    return layout
