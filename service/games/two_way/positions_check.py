"""2-Way Cards positions, the checks (RULES.md G-P1): a stated position's turn, hands,
removed sequences and the flow they imply must be reachable (rulings: ``positions``).
Each refusal is a 422 ``invalid-position`` naming the field and the rule broken."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.games import RuleViolation
from service.games.two_way.flow import empty_cells, held_count, other_seat
from service.games.two_way.lines import classify_line
from service.games.two_way.requests import line_cells
from service.games.two_way.state import BaseEntry, Board, Faces, Options, TurnFields
from service.games.two_way.tiles import HAND_SIZE, SEATS
from service.messages import Message

PHASES = ("deal", "place", "draw", "discard", "over")


def refuse(field: str, rule: str, detail: Message | str) -> RuleViolation:
    """422 ``invalid-position`` naming the field (dotted path) and the rule (G-P1)."""
    return RuleViolation(
        "invalid-position",
        Message("%(field)s: %(detail)s", field=field, detail=detail),
        422,
        rule=rule,
        extra={"field": field},
    )


def _integer(
    position: Mapping[str, Any], key: str, default: int, low: int, high: int, rule: str
) -> int:
    value = position.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise refuse(
            key, rule, Message("must be an integer from %(low)s to %(high)s", low=low, high=high)
        )
    return value


# ----- the state a position describes -----


def hand_sizes(phase: str, turn: str, placed: int, dealt: list[str]) -> dict[str, int]:
    """TW-T1/TW-T2: the tiles each seat holds at this point (the bag never runs short:
    49 spaces + 30 in unfinished bases + 12 in hands leave 17)."""
    if phase == "deal":
        return {s: HAND_SIZE if s in dealt else 0 for s in SEATS}
    held = {"place": HAND_SIZE - placed, "draw": HAND_SIZE - placed, "discard": 7}
    return {turn: held.get(phase, HAND_SIZE), other_seat(turn): HAND_SIZE}


def check_hand(seat: str, hand: list[int], size: int, turn: TurnFields, idle: bool) -> None:
    """TW-T1/TW-T2: a stated hand holds what the point of the game implies; a finished
    game's seat on turn may have ended it mid-turn (3 to 7 tiles). With idle_seconds
    (G-T1) a turn may have ended as it stood: up to 7 tiles outside the deal."""
    phase = turn["phase"]
    loose = (phase == "over" and seat == turn["turn"]) or (idle and phase != "deal")
    if loose and (0 if idle else 3) <= len(hand) <= 7:
        return
    if len(hand) != size:
        raise refuse(
            f"hands.{seat}",
            "TW-T1" if phase == "deal" else "TW-T2",
            Message(
                "holds %(count)s tiles; %(expected)s are in hand at this point of the game",
                count=len(hand),
                expected=size,
            ),
        )


def check_bases(
    position: Mapping[str, Any],
    tiles: dict[str, list[int]],
    manifest: list[Faces],
    slots: Mapping[str, int],
) -> dict[str, list[BaseEntry]]:
    """Each removed sequence checked (TW-D1 line, TW-D4 correct on its owner's faces,
    TW-D3 slots) and completed like a ``declared`` event's entry."""
    bases: dict[str, list[BaseEntry]] = {s: [] for s in SEATS}
    for seat, entries in position.get("bases", {}).items():
        for j, entry in enumerate(entries):
            field = f"bases.{seat}[{j}]"
            given = entry.get("cells")
            ids = tiles[field]
            if not isinstance(given, list) or len(given) != len(ids):
                raise refuse(
                    f"{field}.cells",
                    "TW-D1",
                    Message("must list one [row, col] per tile, in line order"),
                )
            try:
                cells = line_cells(slots, given)
            except RuleViolation as error:
                raise refuse(f"{field}.cells", error.rule or "TW-D1", error.detail) from None
            by_cell = {tuple(c): t for c, t in zip(given, ids)}
            ids = [by_cell[tuple(c)] for c in cells]
            verdict = classify_line([manifest[t][seat] for t in ids])
            if not verdict["valid"]:
                raise refuse(
                    field,
                    "TW-D4",
                    Message(
                        "%(cards)s is not a sequence on %(seat)s's faces: only a correct "
                        "declaration is removed",
                        cards=" ".join(verdict["cards"]),
                        seat=seat,
                    ),
                )
            bases[seat].append(
                {
                    "cells": cells,
                    "tiles": ids,
                    "cards": verdict["cards"],
                    "kind": verdict["kind"],
                    "tier": verdict["tier"],
                    "points": verdict["points"],
                    "length": len(ids),
                    "assignment": verdict["assignment"],
                }
            )
            if sum(e["length"] == len(ids) for e in bases[seat]) > slots[str(len(ids))]:
                raise refuse(
                    field,
                    "TW-D3",
                    Message(
                        "%(seat)s may hold %(allowed)s sequences of %(length)s",
                        seat=seat,
                        allowed=slots[str(len(ids))],
                        length=len(ids),
                    ),
                )
    return bases


def _complete(board: Board, slots: Mapping[str, int]) -> list[str]:
    return [
        s
        for s in SEATS
        if all(held_count(board, s, int(n)) >= allowed for n, allowed in slots.items())
    ]


def check_flow(
    board: Board, turn: TurnFields, slots: Mapping[str, int], no_tile: bool, idle: bool
) -> str | None:
    """TW-E1/TW-E2/TW-T4 reachability of turn and phase; the completer of a finished
    game (None after a full grid). ``no_tile``: the seat on turn holds no tile (only
    after timed-out turns, G-T1), so no placement is due; ``idle``: G-T1 is on, so a
    seat may have drawn without placing (its hand emptied by timed-out turns)."""
    complete = _complete(board, slots)
    full = not empty_cells(board)
    phase, placed = turn["phase"], turn["placed"]
    if phase == "over":
        if len(complete) > 1:
            raise refuse(
                "bases",
                "TW-E1",
                Message("both seats hold every required length: the game ended when the first did"),
            )
        if not complete and not full:
            raise refuse(
                "phase",
                "TW-E1",
                Message(
                    "a game ends when a seat holds every required length (TW-E1) or the grid "
                    "is full (TW-E2)"
                ),
            )
        if complete and full:
            raise refuse(
                "grid",
                "TW-E1",
                Message(
                    "the declaration that completed %(seat)s's lengths ended the game and "
                    "took 3 tiles at least off the grid: it cannot be full",
                    seat=complete[0],
                ),
            )
        if complete and complete[0] != turn["turn"]:
            raise refuse(
                "turn",
                "TW-E1",
                Message(
                    "%(seat)s completed its lengths by a declaration in its own turn: the "
                    "turn is %(seat)s's",
                    seat=complete[0],
                ),
            )
        _check_turns_held_the_tiles(board, turn, idle)
        return complete[0] if complete else None
    if complete:
        raise refuse(
            f"bases.{complete[0]}",
            "TW-E1",
            Message(
                '%(seat)s holds every required length: the game is over (phase "over")',
                seat=complete[0],
            ),
        )
    if phase == "deal":
        if any(t is not None for row in board["grid"] for t in row) or any(board["bases"].values()):
            raise refuse("grid", "TW-T1", Message("while dealing the grid and the bases are empty"))
        return None
    if full and placed == 0:
        raise refuse(
            "grid",
            "TW-E2",
            Message('a grid full at the start of a turn has ended the game: set phase "over"'),
        )
    if phase == "place" and (full or placed >= 2):
        raise refuse("phase", "TW-T4", Message('no placement is due: the phase is "draw"'))
    if placed < 2 and not full and phase == "draw" and not no_tile:
        raise refuse(
            "placed",
            "TW-T4",
            Message('a placement is due while a space is empty: the phase is "place"'),
        )
    if placed < 2 and phase == "discard" and not idle and not _freed_after_draw(board, turn):
        # the grid was full at the draw (TW-T4); only a declaration since, of 3 spaces
        # or more, can have emptied a space, and no placement is due again after it
        raise refuse(
            "placed",
            "TW-T4",
            Message(
                "placed is %(placed)s: the grid was full at the draw, and only a "
                "declaration since (3 spaces or more) can have emptied a space",
                placed=placed,
            ),
        )
    _check_turns_held_the_tiles(board, turn, idle)
    return None


def _freed_after_draw(board: Board, turn: TurnFields) -> bool:
    """TW-T4: a grid that was full at the draw shows empty spaces in the discard phase
    only after a declaration of the seat on turn (3 spaces or more, into its bases)."""
    empty = len(empty_cells(board))
    return empty == 0 or (empty >= 3 and bool(board["bases"][turn["turn"]]))


def turn_fields(position: Mapping[str, Any], options: Options) -> TurnFields:
    phase = position.get("phase", "place")
    if phase not in PHASES:
        raise refuse(
            "phase", "TW-T2", Message("must be one of %(choices)s", choices=", ".join(PHASES))
        )
    turn = position.get("turn", options["first_seat"])
    if turn not in SEATS or (phase == "deal" and turn != options["first_seat"]):
        raise refuse(
            "turn",
            "TW-T2" if phase != "deal" else "G-O1",
            Message(
                "must be the seat to play: %(choices)s",
                choices=", ".join(SEATS if phase != "deal" else [options["first_seat"]]),
            ),
        )
    dealt = position.get("dealt", list(SEATS) if phase != "deal" else [])
    if (
        not isinstance(dealt, list)
        or not all(isinstance(s, str) for s in dealt)
        or not set(dealt) <= set(SEATS)
        or len(set(dealt)) != len(dealt)
        or (phase != "deal" and len(dealt) != 2)
    ):
        raise refuse(
            "dealt", "TW-T1", Message("must list the seats dealt (both once the turns have begun)")
        )
    pending = position.get("pending_skips", {s: 0 for s in SEATS})
    if (
        not isinstance(pending, dict)
        or set(pending) != set(SEATS)
        or any(v not in (0, 1) or isinstance(v, bool) for v in pending.values())
        or (phase == "deal" and any(pending.values()))
    ):
        raise refuse(
            "pending_skips",
            "TW-T5",
            Message("must give each seat 0 or 1 missed turn (0 while dealing)"),
        )
    placed = _integer(
        position,
        "placed",
        2 if phase in ("draw", "discard") else 0,
        0,
        0 if phase == "deal" else 2,
        "TW-T2",
    )
    fields: TurnFields = {
        "phase": phase,
        "turn": turn,
        "dealt": list(dealt),
        "pending_skips": {s: pending[s] for s in SEATS},
        "placed": placed,
        "turn_number": _turn_number(position, phase, placed, options["first_seat"], turn),
    }
    if fields["turn_number"] == 1 and fields["pending_skips"][other_seat(turn)]:
        raise refuse(
            "pending_skips",
            "TW-T5",
            Message(
                "%(seat)s owes a missed turn but has not had a turn yet: a wrong "
                "declaration is made in one's own turn (TW-D5)",
                seat=other_seat(turn),
            ),
        )
    return fields


def _tiles_played(position: Mapping[str, Any]) -> int:
    """The tiles a position has on the grid and in the bases (every one was placed in
    some turn); what is malformed counts nothing (the grid's and bases' own checks
    refuse it)."""
    grid, bases = position.get("grid"), position.get("bases")
    rows = grid if isinstance(grid, list) else []
    count = sum(sum(t is not None for t in row) for row in rows if isinstance(row, list))
    entries = (
        [e for v in bases.values() if isinstance(v, list) for e in v]
        if isinstance(bases, dict)
        else []
    )
    return count + sum(
        len(e["tiles"]) for e in entries if isinstance(e, dict) and isinstance(e.get("tiles"), list)
    )


def _turn_number(
    position: Mapping[str, Any], phase: str, placed: int, first: str, turn: str
) -> int:
    """TW-T2: the turns alternate from the first seat (a skipped turn is a turn, TW-T5),
    so the first seat plays the odd turns and the other seat the even ones; 0 while
    dealing. A turn places 2 tiles at most, so the earlier turns and this one's
    ``placed`` hold every tile on the grid and in the bases. Left out: the first turn
    of the seat on turn that can hold them."""
    if phase == "deal":
        return _integer(position, "turn_number", 0, 0, 0, "TW-T2")
    second, played = turn != first, _tiles_played(position)
    least = 1 + second
    while 2 * (least - 1) + placed < played:
        least += 2
    number = _integer(position, "turn_number", least, 1, 10**6, "TW-T2")
    if number % 2 != (not second):
        raise refuse(
            "turn_number",
            "TW-T2",
            Message(
                "turn %(number)s cannot be %(seat)s's: play goes in seat order from %(first)s",
                number=number,
                seat=turn,
                first=first,
            ),
        )
    return number


def _check_turns_held_the_tiles(board: Board, turn: TurnFields, idle: bool) -> None:
    """TW-T2: a turn places 2 tiles at most, so the turns before this one and its
    ``placed`` hold every tile on the grid and in the bases. Without G-T1 every turn
    places a tile at least (a space is empty at its start, or TW-E2 ended the game)
    unless it is skipped (TW-T5), and a seat's skipped turn follows one it played, so
    half the turns before this one placed a tile at least. TW-D5: a missed turn is
    owed for a wrong declaration, of 3 occupied spaces at least, and a tile leaves the
    grid only for a base, so the grid and the bases hold 3 tiles or more."""
    played = sum(t is not None for row in board["grid"] for t in row) + sum(
        len(entry["tiles"]) for entries in board["bases"].values() for entry in entries
    )
    if played < 3 and any(turn["pending_skips"].values()):
        raise refuse(
            "pending_skips",
            "TW-D5",
            Message(
                "a missed turn is owed for a wrong declaration of 3 occupied spaces at "
                "least, but the grid and the bases hold %(count)s tiles",
                count=played,
            ),
        )
    number = turn["turn_number"]
    if not idle and played < number // 2:
        raise refuse(
            "turn_number",
            "TW-T5",
            Message(
                "%(count)s tiles are on the grid and in the bases, fewer than the %(least)s "
                "that %(number)s turns place, skipped turns aside",
                count=played,
                least=number // 2,
                number=number - 1,
            ),
        )
    if 2 * (number - 1) + turn["placed"] < played:
        raise refuse(
            "turn_number",
            "TW-T2",
            Message(
                "%(count)s tiles are on the grid and in the bases, more than %(number)s turns "
                "of 2 placements at most could place",
                count=played,
                number=number,
            ),
        )
