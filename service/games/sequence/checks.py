"""Stateless checks behind the validation endpoints: a board position, a move."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

from service.games import RuleViolation
from service.games.sequence.cards import (
    CLASSIC,
    CLASSIC_BOARD,
    CORNERS,
    FREE,
    LENGTH,
    NUMBERS,
    NUMBERS_BOARD,
    SIDES,
    SIZE,
    Cell,
    InputError,
    _board_data,
    _is_int,
    _validate_board,
    card_class,
    label_of,
    parse_card_for,
)
from service.games.sequence.lines import (
    _cells,
    _compatible,
    _counts_for,
    _in_board,
    _is_window,
    _locked_cells,
    new_sequences,
    scan_sequences,
)
from service.games.sequence.state import ChipGrid, Grid, SequenceRecord
from service.messages import Message


class FoundSequence(TypedDict):
    """A completed sequence ``check_board`` reports: locked as given, or found."""

    cells: list[list[int]]
    locked: bool


class BoardCheck(TypedDict):
    """``check_board``'s answer: each side's sequences, and how many."""

    sequences: dict[str, list[FoundSequence]]
    counts: dict[str, int]


class MoveCheck(TypedDict):
    """``check_move``'s answer (code and detail None when legal)."""

    legal: bool
    code: str | None
    detail: str | None  # a Message
    rule: str | None
    action: Literal["play", "remove-chip"]
    card: str
    sequences: list[SequenceRecord]


def _cell(raw: Any, field: str) -> Cell:
    if type(raw) is list and len(raw) == 2:  # the usual case, [row, col] from JSON
        r, c = raw
        if type(r) is int and type(c) is int and 0 <= r < SIZE and 0 <= c < SIZE:
            return (r, c)
    if not (isinstance(raw, list | tuple) and len(raw) == 2 and all(_is_int(x) for x in raw)):
        raise InputError(
            "invalid-cell",
            Message("%(field)s: a cell is [row, col], not %(value)s", field=field, value=repr(raw)),
            field,
            "SQ-C1",
        )
    r, c = raw
    if not _in_board(r, c):
        raise InputError(
            "invalid-cell",
            Message("%(field)s: %(cell)s is off the 10 x 10 board", field=field, cell=repr(raw)),
            field,
            "SQ-C1",
        )
    return (r, c)


def _board_from_input(game: str, board: Any) -> Grid:
    if board is None:
        return _board_data(CLASSIC_BOARD if game == CLASSIC else NUMBERS_BOARD)
    if game == CLASSIC:
        raise InputError(
            "invalid-board", Message("Sequence has one board (SQ-C1)"), "board", "SQ-C1"
        )
    try:
        return _validate_board(board)
    except RuleViolation as exc:  # worded as a Message (cards._invalid_option)
        detail = exc.detail if isinstance(exc.detail, Message) else Message(exc.detail)
        raise InputError("invalid-board", detail, "board", "SN-C0") from exc


def _board_position(
    game: str, chips_in: Any, sequences_in: Any, board_in: Any = None
) -> tuple[Grid, ChipGrid, list[SequenceRecord]]:
    """Validate a board position: ``chips`` {side: [cell...]}, ``sequences``
    [{"side", "cells"}] (the completed, locked ones). Raises InputError naming
    the field: unknown side, bad or repeated cell, chip on a corner, a sequence
    that is not 5 in a line of its side (SQ-S1) or shares more than one space
    with another of its side (SQ-S4)."""
    board = _board_from_input(game, board_in)
    chips: ChipGrid = [[None] * SIZE for _ in range(SIZE)]
    if not isinstance(chips_in, dict):
        raise InputError(
            "invalid-chips", Message("chips: {side: [[row, col], ...]}"), "chips", "SQ-C3"
        )
    for side, cells in chips_in.items():
        if side not in SIDES:
            raise InputError(
                "invalid-side",
                Message(
                    "%(field)s: unknown side %(side)s (one of %(sides)s)",
                    field="chips",
                    side=repr(side),
                    sides=", ".join(SIDES),
                ),
                f"chips.{side}",
                "SQ-C3",
            )
        if not isinstance(cells, list):
            raise InputError(
                "invalid-chips",
                Message("a side's chips are a list of cells"),
                f"chips.{side}",
                "SQ-C3",
            )
        for i, raw in enumerate(cells):
            field = f"chips.{side}.{i}"
            r, c = _cell(raw, field)
            if (r, c) in CORNERS:
                raise InputError(
                    "invalid-cell",
                    Message(
                        "%(field)s: %(cell)s is a free corner, it holds no chip (SQ-C1)",
                        field=field,
                        cell=[r, c],
                    ),
                    field,
                    "SQ-C1",
                )
            if chips[r][c] is not None:
                raise InputError(
                    "invalid-cell",
                    Message(
                        "%(field)s: %(cell)s already holds a %(side)s chip",
                        field=field,
                        cell=[r, c],
                        side=chips[r][c],
                    ),
                    field,
                    "SQ-C1",
                )
            chips[r][c] = side
    sequences = _sequences_from_input(sequences_in, board, chips)
    return board, chips, sequences


def _sequences_from_input(raw: Any, board: Grid, chips: ChipGrid) -> list[SequenceRecord]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InputError(
            "invalid-sequence", Message("sequences: a list of {side, cells}"), "sequences", "SQ-S1"
        )
    out: list[SequenceRecord] = []
    for i, item in enumerate(raw):
        field = f"sequences.{i}"
        if not (isinstance(item, dict) and set(item) == {"side", "cells"}):
            raise InputError(
                "invalid-sequence", Message("%(field)s: {side, cells}", field=field), field, "SQ-S1"
            )
        side = item["side"]
        if side not in SIDES:
            where = f"{field}.side"
            raise InputError(
                "invalid-side",
                Message(
                    "%(field)s: unknown side %(side)s (one of %(sides)s)",
                    field=where,
                    side=repr(side),
                    sides=", ".join(SIDES),
                ),
                where,
                "SQ-C3",
            )
        if not isinstance(item["cells"], list):
            where = f"{field}.cells"
            raise InputError(
                "invalid-sequence", Message("%(field)s: 5 cells", field=where), where, "SQ-S1"
            )
        cells = [_cell(x, f"{field}.cells.{j}") for j, x in enumerate(item["cells"])]
        if not _is_window(cells) or len(set(cells)) != LENGTH:
            raise InputError(
                "invalid-sequence",
                Message("%(field)s: not 5 spaces in a straight line (SQ-S1)", field=field),
                f"{field}.cells",
                "SQ-S1",
            )
        if not all(_counts_for(board, chips, x, side) for x in cells):
            raise InputError(
                "invalid-sequence",
                Message(
                    "%(field)s: a space does not hold a %(side)s chip or a free corner (SQ-S1)",
                    field=field,
                    side=side,
                ),
                f"{field}.cells",
                "SQ-S1",
            )
        held = [_cells(s) for s in out if s["side"] == side]
        if not _compatible(set(cells), held):
            raise InputError(
                "invalid-sequence",
                Message(
                    "%(field)s: shares more than one space with another %(side)s sequence (SQ-S4)",
                    field=field,
                    side=side,
                ),
                f"{field}.cells",
                "SQ-S4",
            )
        out.append({"side": side, "cells": [list(x) for x in sorted(cells)]})
    return out


def check_board(game: str, chips: Any, sequences: Any = None, board: Any = None) -> BoardCheck:
    """Completed sequences per side of a position (SQ-S1, SQ-S2, SQ-S4; SN-S2).

    In: ``chips`` {side: [[r, c]...]}, ``sequences`` the locked ones (kept as given),
    ``board`` a custom Sequence Numbers board or None. Out: ``{"sequences": {side:
    [{"cells", "locked"}]}, "counts": {side: n}}`` for every side named in ``chips``;
    the locked ones first, then every further one found (a full rescan, greedy in
    reading order per line). Raises InputError (422) naming the field.
    """
    grid, chip_grid, locked = _board_position(game, chips, sequences, board)
    out: dict[str, list[FoundSequence]] = {}
    for side in chips:
        mine: list[FoundSequence] = [
            {"cells": s["cells"], "locked": True} for s in locked if s["side"] == side
        ]
        found = scan_sequences(grid, chip_grid, locked, side)
        out[side] = mine + [{"cells": [list(x) for x in w], "locked": False} for w in found]
    return {"sequences": out, "counts": {side: len(v) for side, v in out.items()}}


def _target_refusal(
    game: str,
    board: Grid,
    chips: ChipGrid,
    locked: set[Cell],
    side: str,
    card: str,
    cell: Cell,
) -> tuple[str, Message, str] | None:
    """Why ``card`` may not be used on ``cell`` by ``side`` (code, detail, rule), or
    None.

    SQ-T1/SN-C1 a face card on an open space showing its card/answer; SQ-T2/SN-C2 a
    wild on any open space; SQ-T3/SN-C2 a remover on an opponent's chip that is not
    in a completed sequence (SQ-S2/SN-S2)."""
    r, c = cell
    kind = card_class(game, card)
    classic = game == CLASSIC
    if kind == "remover":
        owner = chips[r][c]
        remover = "SQ-T3" if classic else "SN-C2"
        if owner is None:
            return "no-chip", Message("%(cell)s holds no chip to remove", cell=[r, c]), remover
        if owner == side:
            return "own-chip", Message("%(cell)s holds your side's chip", cell=[r, c]), remover
        if cell in locked:
            return (
                "chip-locked",
                Message(
                    "%(cell)s is part of a completed sequence (%(rule)s)",
                    cell=[r, c],
                    rule="SQ-S2" if classic else "SN-S2",
                ),
                "SQ-S2" if classic else "SN-S2",
            )
        return None
    if board[r][c] == FREE:
        return (
            "space-occupied",
            Message(
                "%(cell)s is a free corner: it already counts as every side's chip", cell=[r, c]
            ),
            "SQ-C1" if classic else "SN-C1",
        )
    if chips[r][c] is not None:  # a face card goes on an open space (SQ-T1), so does a wild
        wild = "SQ-T2" if classic else "SN-C2"
        return (
            "space-occupied",
            Message("%(cell)s already holds a %(side)s chip", cell=[r, c], side=chips[r][c]),
            wild if kind == "wild" else "SQ-T1",
        )
    if kind == "face" and board[r][c] != label_of(game, card):
        return (
            "card-not-on-space",
            Message(
                "%(card)s is not played on %(cell)s, which shows %(label)s",
                card=card,
                cell=[r, c],
                label=board[r][c],
            ),
            "SQ-T1" if classic else "SN-C1",
        )
    return None


def check_move(
    game: str,
    chips: Any,
    sequences: Any,
    side: Any,
    card: Any,
    cell: Any,
    board: Any = None,
    sequence: Any = None,
) -> MoveCheck:
    """Would ``side`` playing ``card`` on ``cell`` be legal, and what would it complete?

    Out: ``{"legal", "code", "detail", "rule", "action", "sequences": [{"side",
    "cells"}]}``; ``action`` is ``remove-chip`` for a remover (JS/JH, MINUS), else
    ``play``; ``code`` null when legal, else ``space-occupied``,
    ``card-not-on-space``, ``no-chip``, ``own-chip``, ``chip-locked`` or
    ``invalid-sequence``, and ``rule`` the rule it applies (G-R1; when legal, the
    rule of the card's kind: SQ-T1 a card on a space showing it, SQ-T2 a two-eyed Jack,
    SQ-T3 a one-eyed Jack; Sequence Numbers: SN-C1 a problem card, SN-C2 PLUS and
    MINUS).
    Raises InputError (422) naming the field for malformed input.
    """
    grid, chip_grid, locked = _board_position(game, chips, sequences, board)
    if side not in SIDES:
        raise InputError(
            "invalid-side",
            Message(
                "%(field)s: unknown side %(side)s (one of %(sides)s)",
                field="side",
                side=repr(side),
                sides=", ".join(SIDES),
            ),
            "side",
            "SQ-C3",
        )
    canonical = parse_card_for(game, card, "card")
    target = _cell(cell, "cell")
    named = None if sequence is None else _named_sequence(sequence)
    if card_class(game, canonical) == "face" and not any(
        label_of(game, canonical) in row for row in grid
    ):  # a face's label is never FREE
        raise InputError(
            "invalid-card",
            Message(
                "%(card)s: no space of the board shows %(label)s (SN-C1)",
                card=canonical,
                label=label_of(game, canonical),
            ),
            "card",
            "SN-C1",
        )
    action: Literal["play", "remove-chip"] = (
        "remove-chip" if card_class(game, canonical) == "remover" else "play"
    )
    verdict: MoveCheck = {
        "legal": False,
        "code": None,
        "detail": None,
        "rule": None,
        "action": action,
        "card": canonical,
        "sequences": [],
    }
    refusal = _target_refusal(game, grid, chip_grid, _locked_cells(locked), side, canonical, target)
    if refusal:
        verdict["code"], verdict["detail"], verdict["rule"] = refusal
        return verdict
    if action == "play":
        chip_grid[target[0]][target[1]] = side
        try:
            made = new_sequences(grid, chip_grid, locked, target, side, named)
        except RuleViolation as exc:
            verdict["code"], verdict["detail"], verdict["rule"] = exc.code, exc.detail, exc.rule
            return verdict
        verdict["sequences"] = [{"side": side, "cells": [list(x) for x in w]} for w in made]
    verdict["legal"] = True
    verdict["rule"] = _LEGAL_RULES[game][card_class(game, canonical)]
    return verdict


# G-R1: the rule a legal move applies, by game and the card's kind
_LEGAL_RULES = {
    CLASSIC: {"face": "SQ-T1", "wild": "SQ-T2", "remover": "SQ-T3"},
    NUMBERS: {"face": "SN-C1", "wild": "SN-C2", "remover": "SN-C2"},
}


def _named_sequence(raw: Any) -> list[Cell]:
    """The SQ-S5 ``sequence`` of an action: 5 distinct cells (422 otherwise)."""
    if not isinstance(raw, list) or len(raw) != LENGTH:
        raise InputError(
            "invalid-sequence",
            Message("sequence: 5 cells [[row, col], ...] (SQ-S5)"),
            "sequence",
            "SQ-S5",
        )
    cells = [_cell(x, f"sequence.{i}") for i, x in enumerate(raw)]
    if len(set(cells)) != LENGTH:
        raise InputError(
            "invalid-sequence", Message("sequence: 5 different cells (SQ-S5)"), "sequence", "SQ-S5"
        )
    return cells
