"""2-Way Cards state shapes (RULES.md §1): what fold() builds and the store snapshots
as JSON. A tile id is the tile's index in the manifest (0..107, TW-C2).

Events ({"type", "seat", ...}; "by" names the actor: the seat itself or "referee"):
  game-created {game, options, seats, custom_manifest, manifest, seed}   (seat None;
               the manifest is the game's: see tiles.game_manifest for server games)
  dealt {tiles}        TW-T1 the 5 starting tiles of a seat
  placed {tile, cell}  TW-T2
  drawn {tiles}        TW-T2 (up to 7 in hand: 4, or 3 after a one-placement turn)
  discarded {tiles}    TW-T2, ends the turn (down to 5 in hand: normally 2)
  declared {cells, tiles, cards, kind, tier, points, length, assignment}   TW-D4
  declaration-rejected {cells, tiles, cards, reasons}                      TW-D5
  position-set {position, state}   G-P1: the position as stated (tiles as face pairs)
                       and the state fields it sets (positions.start_from_position);
                       game-created then carries "from_position": true
  turn-timed-out {at, since}   G-T1: the seat on turn ran out of time; then
                       turn-skipped {"reason": "timed-out"} ends its turn
  turn-skipped {}      TW-T5
  game-ended {result}  TW-E1..TW-E3 (seat None, no "by"): RESULT with reason
                       "set-complete" | "grid-full", scores of both seats and
                       "two_way": {"completer": the seat that held every length,
                       or None}
"""

from __future__ import annotations

from typing import Any, TypedDict

Event = dict[str, Any]  # {"type": str, "seat": str | None, ...payload}
Action = dict[str, Any]  # an action's JSON body {"type": str, ...} (requests checks it)
Cell = list[int]  # [row, col], TW-C1
Grid = list[list[int | None]]  # 7 x 7 of tile id | None


# One tile of the manifest: {"blue": card, "green": card}, its card on each colour's
# face (TW-C2); indexed by seat, so a plain dict
Faces = dict[str, str]


class Options(TypedDict):
    """The normalised options of a game (options.OPTIONS)."""

    dealing: str  # "server" | "table" (G-M1, G-M2)
    variant: str  # "standard" | "easy" (TW-D3)
    easy_extra_threes: bool  # TW-D3
    win_condition: str  # "first_complete" | "score" (TW-E3)
    first_seat: str  # "blue" | "green" (G-O1)
    idle_seconds: int | None  # G-T1 (absent in games created before it: None)


class BaseEntry(TypedDict):
    """A removed sequence in a seat's base (TW-D4)."""

    cells: list[Cell]
    tiles: list[int]
    cards: list[str]  # the declarer's faces, in line order
    kind: str  # "run" | "same-rank" | "suit-set"
    tier: str  # "high" | "low"
    points: int
    length: int
    assignment: list[str]  # jokers replaced by what they stand for (TW-S8)


class Result(TypedDict):
    """RESULT (service/games/__init__.py) of a finished game."""

    winners: list[str]
    scores: dict[str, int]
    reason: str  # "set-complete" | "grid-full"
    two_way: dict[str, str | None]  # {"completer": seat | None}


class Board(TypedDict):
    """What lies on the table: the grid and each seat's removed sequences (the fields
    ``flow.empty_cells`` and ``flow.held_count`` read)."""

    grid: Grid
    bases: dict[str, list[BaseEntry]]


class TurnFields(TypedDict):
    """Where the game stands in its turns (a position states them, G-P1)."""

    phase: str  # "deal" | "place" | "draw" | "discard" | "over"
    turn: str
    dealt: list[str]  # seats dealt (TW-T1)
    pending_skips: dict[str, int]  # seat -> 0 | 1 (TW-D5, TW-T5)
    placed: int  # placements made this turn
    turn_number: int


class PositionFields(Board, TurnFields):
    """The fields of a state a position is read from (``notation.POSITION_KEYS``): what
    a ``position-set`` event's "state" sets (G-P1). A TwoWayState has them all."""

    hands: dict[str, list[int]]  # seat -> tile ids in draw order
    bag: list[int]  # tile ids, sorted
    scores: dict[str, int]


class TwoWayState(TypedDict):
    """The state of one game of 2-Way Cards."""

    game: str  # "two-way"
    status: str  # "active" | "finished"
    seats: list[str]  # ["blue", "green"]
    options: Options
    custom_manifest: bool
    manifest: str  # 108 tiles as tiles.manifest_text writes them: "AS/KH,..."
    seed: str
    slots: dict[str, int]  # TW-D3: length ("3".."6") -> sequences of it one may hold
    bag: list[int]  # tile ids, sorted
    hands: dict[str, list[int]]  # seat -> tile ids in draw order
    grid: Grid
    bases: dict[str, list[BaseEntry]]
    scores: dict[str, int]
    pending_skips: dict[str, int]  # seat -> 0 | 1 (TW-D5, TW-T5)
    dealt: list[str]  # seats dealt (TW-T1)
    turn: str
    turn_number: int
    phase: str  # "deal" | "place" | "draw" | "discard" | "over"
    placed: int  # placements made this turn
    draws: int  # draws made so far (the rng label of the next)
    result: Result | None
    freed: bool  # TW-T4: a declaration made the placement due again this turn
    from_position: bool  # G-P1: started from a stated position (absent in old snapshots)
