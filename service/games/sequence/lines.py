"""Lines and sequences: detection of completed sequences (SQ-S1, SQ-S2, SQ-S4, SQ-S5)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from service.games import RuleViolation
from service.games.sequence.cards import DIRECTIONS, FREE, LENGTH, SIZE, Cell
from service.games.sequence.state import ChipGrid, Grid, SequenceRecord
from service.messages import Message


def _in_board(r: int, c: int) -> bool:
    return 0 <= r < SIZE and 0 <= c < SIZE


def _counts_for(board: Grid, chips: ChipGrid, cell: Cell, side: str) -> bool:
    """The space holds ``side``'s chip or is a free corner (SQ-S1)."""
    r, c = cell
    return chips[r][c] == side or board[r][c] == FREE


def _run_through(
    board: Grid, chips: ChipGrid, cell: Cell, side: str, d: tuple[int, int]
) -> list[Cell]:
    """The maximal run of ``side``/free spaces through ``cell`` along ``d``, in
    reading order (its top-most, then left-most, end first)."""
    dr, dc = d
    r, c = cell
    while _in_board(r - dr, c - dc) and _counts_for(board, chips, (r - dr, c - dc), side):
        r, c = r - dr, c - dc
    run = []
    while _in_board(r, c) and _counts_for(board, chips, (r, c), side):
        run.append((r, c))
        r, c = r + dr, c + dc
    return run


def _cells(sequence: SequenceRecord) -> set[Cell]:
    """The spaces of a completed sequence (``[row, col]`` lists) as cells."""
    return {(r, c) for r, c in sequence["cells"]}


def _compatible(window: set[Cell], others: Iterable[set[Cell]]) -> bool:
    """SQ-S4: a side's two sequences share at most one space."""
    return all(len(window & other) <= 1 for other in others)


def _is_window(cells: list[Cell]) -> bool:
    """Five distinct spaces, contiguous, in one straight line (sorted, a window's
    cells are in reading order: the step is one of DIRECTIONS)."""
    if len(cells) != LENGTH:
        return False
    cells = sorted(cells)
    dr, dc = cells[1][0] - cells[0][0], cells[1][1] - cells[0][1]
    return (dr, dc) in DIRECTIONS and all(
        cells[i] == (cells[0][0] + i * dr, cells[0][1] + i * dc) for i in range(LENGTH)
    )


def new_sequences(
    board: Grid,
    chips: ChipGrid,
    sequences: Sequence[SequenceRecord],
    cell: Cell,
    side: str,
    named: list[Cell] | None = None,
) -> list[list[Cell]]:
    """The sequences a chip of ``side`` just placed on ``cell`` completes.

    ``chips`` already holds the new chip; ``sequences`` are the completed ones
    (``{"side", "cells"}``). Only the four lines through ``cell`` are looked at.
    SQ-S1: 5 in a line of the side's chips or free corners; SQ-S4: at most one
    space shared with each of the side's sequences (so 9 in a row is two
    sequences); SQ-S5: ``named`` (5 cells) is taken first when given, then in each
    line the first window in reading order containing ``cell``. Raises
    RuleViolation ``invalid-sequence`` (409) when ``named`` is not such a window.
    """
    held = [_cells(s) for s in sequences if s["side"] == side]
    chosen: list[list[Cell]] = []
    if named is not None:
        in_line = (
            _is_window(named)
            and cell in named
            and all(_counts_for(board, chips, x, side) for x in named)
        )
        if not (in_line and _compatible(set(named), held)):
            raise RuleViolation(
                "invalid-sequence",
                Message(
                    "the named sequence is not 5 spaces in a line holding this chip, the side's "
                    "chips or free corners, sharing at most one space with another of its "
                    "sequences (SQ-S1, SQ-S4, SQ-S5)"
                ),
                rule="SQ-S4" if in_line else "SQ-S5",
            )
        chosen.append(sorted(named))
        held.append(set(named))
    for d in DIRECTIONS:
        run = _run_through(board, chips, cell, side, d)
        if len(run) < LENGTH:
            continue
        at = run.index(cell)
        for start in range(max(0, at - LENGTH + 1), min(at, len(run) - LENGTH) + 1):
            window = run[start : start + LENGTH]
            if _compatible(set(window), held):
                chosen.append(window)
                held.append(set(window))
    return chosen


def _lines() -> list[list[Cell]]:
    """Every row, column and diagonal with at least 5 spaces, each in reading order."""
    lines: list[list[Cell]] = []
    for d in DIRECTIONS:
        dr, dc = d
        for r in range(SIZE):
            for c in range(SIZE):
                if _in_board(r - dr, c - dc):
                    continue  # not the start of its line
                line = []
                rr, cc = r, c
                while _in_board(rr, cc):
                    line.append((rr, cc))
                    rr, cc = rr + dr, cc + dc
                if len(line) >= LENGTH:
                    lines.append(line)
    return lines


LINES: tuple[tuple[Cell, ...], ...] = tuple(tuple(line) for line in _lines())


def scan_sequences(
    board: Grid,
    chips: ChipGrid,
    sequences: Sequence[SequenceRecord],
    side: str,
) -> list[list[Cell]]:
    """Every further sequence of ``side`` on the whole board (a full rescan).

    Lines are independent (two lines share at most one space), so per line the
    windows are taken greedily in reading order when compatible (SQ-S4) with the
    given ``sequences`` of the side and those already taken: the most sequences.
    """
    held = [_cells(s) for s in sequences if s["side"] == side]
    found: list[list[Cell]] = []
    for line in LINES:
        for start in range(len(line) - LENGTH + 1):
            window = list(line[start : start + LENGTH])
            if any(chips[r][c] != side and board[r][c] != FREE for r, c in window):
                continue
            if all(board[r][c] == FREE for r, c in window):
                continue
            if _compatible(set(window), held):
                found.append(window)
                held.append(set(window))
    return found


def can_still_build(
    board: Grid,
    chips: ChipGrid,
    sequences: Sequence[SequenceRecord],
    side: str,
) -> bool:
    """SQ-E1: some open space could still take a chip of ``side`` towards a new
    sequence: a window of 5 in a line holding an open space and otherwise only the
    side's chips, open spaces or free corners, sharing at most one space with each of
    the side's sequences (SQ-S4). Removals (one-eyed Jacks, MINUS) are not foreseen."""
    held = [_cells(s) for s in sequences if s["side"] == side]
    for line in LINES:
        for start in range(len(line) - LENGTH + 1):
            window = line[start : start + LENGTH]
            owners = {chips[r][c] for r, c in window if board[r][c] != FREE}
            if None in owners and owners <= {None, side} and _compatible(set(window), held):
                return True
    return False


def _locked_cells(sequences: Sequence[SequenceRecord]) -> set[Cell]:
    """SQ-S2/SN-S2: every space of a completed sequence."""
    return {cell for s in sequences for cell in _cells(s)}
