"""The state shape of a Sequence / Sequence Numbers game (what ``fold`` derives).

Plain JSON-able data: a cell is ``[row, col]`` (row 0 at the top), a side is
``green`` | ``blue`` | ``red``, a seat ``p1``..``pN``, a card canonical (``10H``,
``6 x 7``, ``PLUS``). Declared here so that a reader sees what a state holds without
reading the folds.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

Grid = list[list[Any]]  # board labels: a card, a number or "FREE"
ChipGrid = list[list[str | None]]  # the side whose chip is on each space, or None
Event = dict[str, Any]  # ``{"type": str, "seat": str | None, ...payload}`` (JSON)
Action = dict[str, Any]  # an action body (``apply``, ``legal_actions``; JSON)


class Options(TypedDict, total=False):
    """Normalised options (``options.normalise_options``)."""

    players: int
    sides: int
    dealing: Literal["server", "table"]
    sequences_to_win: int
    first_seat: str
    stalemate_decks: int
    stalemate: Literal["draw", "most_sequences"]
    idle_seconds: int | None
    board: Grid | None  # Sequence Numbers only
    deck: list[str] | None  # Sequence Numbers only


class SequenceRecord(TypedDict):
    """A completed (locked) sequence: its side and its 5 cells in reading order."""

    side: str
    cells: list[list[int]]


Reason = Literal["sequences", "stalemate", "no-legal-play", "idle"]  # why a game ended


class Outcome(TypedDict):
    """RESULT's ``sequence`` member: the winning side (None: a draw), each side's
    sequences."""

    winning_side: str | None
    sequences: dict[str, int]


class Result(TypedDict):
    """RESULT (service/games/__init__.py) of a finished game (``turn._finish``)."""

    winners: list[str]  # every seat of the winning side; [] a draw
    scores: dict[str, int]  # each seat's side's sequences
    reason: Reason
    sequence: Outcome


class Conflict(TypedDict):
    """G-M2: a seat reported a card no copy of which was left in the deck."""

    seat: str
    card: str
    deck: int  # reshuffles before the report


class SequenceState(TypedDict):
    """A game of ``sequence`` or ``sequence-numbers`` as ``fold`` derives it."""

    game: str
    options: Options
    seed: str
    from_position: bool  # started from a stated position
    status: Literal["active", "finished"]
    phase: Literal["deal", "play"]
    result: Result | None  # once finished
    seats: list[str]
    sides: dict[str, str]  # seat -> side
    teams: dict[str, list[str]]  # side -> its seats in turn order
    hand_size: int
    sequences_to_win: int
    board: Grid
    chips: ChipGrid
    sequences: list[SequenceRecord]
    deck: list[str]  # server: the order drawn (top first); table: the multiset, sorted
    hands: dict[str, list[str]]
    discards: dict[str, list[str]]  # each seat's discard pile, top last
    turn: str | None
    turn_number: int
    exchanged: bool  # a dead card was exchanged this turn (SQ-T4)
    plays: int  # plays and removals so far (SQ-T5 ordering)
    pending_draws: dict[str, int]  # table: seat -> the play number its draw is owed for
    replacement_due: str | None  # table: the seat owing a dead card's replacement
    lost_draws: dict[str, int]  # SQ-T5
    penalty_due: list[str]  # SQ-T6: seats owing a penalty discard
    passes: int  # counted passes in a row (SQ-E1 b)
    timeouts: int  # lost turns (G-T1) among those passes
    reshuffles: int  # SQ-T7
    barren: int  # whole decks in a row without a new sequence (SQ-E1 c)
    mark: int  # sequences at the last reshuffle
    deck_cards: dict[str, int] | None  # table: the game's cards {card: copies}
    conflicts: list[Conflict]


class Setup(TypedDict):
    """The ``game-created`` event's payload but its seed (``options._setup``)."""

    options: Options
    seats: list[str]
    sides: dict[str, str]  # seat -> side
    teams: dict[str, list[str]]  # side -> its seats in turn order
    hand_size: int
    sequences_to_win: int
    board: Grid
    deck: list[str]  # the game's cards, unshuffled
