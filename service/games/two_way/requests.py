"""2-Way Cards requests: the checks of an action's body (who acts, cells, tiles,
phase) that refuse a malformed or misplaced request before the rules judge it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

from service.cards import CardError, parse_card
from service.games import RuleViolation
from service.games.two_way.lines import DIRECTIONS, GRID_SIZE, LINE_LENGTHS
from service.games.two_way.reports import referee_tile
from service.games.two_way.state import Cell, TwoWayState
from service.games.two_way.tiles import SEATS, manifest_of
from service.messages import Message

_FIELDS = {  # action type -> body fields besides type/seat/expected_version
    "place": {"tile", "cell"},
    "draw": {"tiles"},
    "discard": {"tiles"},
    "declare": {"cells"},
}


_ACTION_RULES = {"place": "TW-T2", "draw": "TW-T2", "discard": "TW-T2", "declare": "TW-D1"}


def bad_request(
    detail: Message, code: str = "invalid-action", rule: str = "TW-T2"
) -> RuleViolation:
    """A malformed request (422) naming the rule of what it attempts (G-R1)."""
    return RuleViolation(code, detail, 422, rule=rule)


def mode_rule(state: TwoWayState) -> str:
    """G-M1 (server dealing) or G-M2 (table dealing): who may act, and how."""
    return "G-M2" if state["options"]["dealing"] == "table" else "G-M1"


def check_body(action: object) -> str:
    """The action's type, or 422 invalid-action for a malformed body."""
    if not isinstance(action, dict):
        raise bad_request(Message("an action is a JSON object with a 'type'"), rule="G-R1")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:  # G-R1: not an action of the game at all
        raise bad_request(
            Message(
                "unknown action type %(type)s (one of %(types)s)",
                type=repr(kind),
                types=", ".join(_FIELDS),
            ),
            rule="G-R1",
        )
    for key in action:
        if key not in _FIELDS[kind] | {"type", "seat", "expected_version"}:
            raise bad_request(
                Message("unknown field %(field)s in a %(type)s action", field=repr(key), type=kind),
                rule=_ACTION_RULES[kind],
            )
    for key in _FIELDS[kind] - {"tiles"} if kind == "draw" else _FIELDS[kind]:
        if key not in action:
            raise bad_request(
                Message("a %(type)s action needs %(field)s", type=kind, field=repr(key)),
                rule=_ACTION_RULES[kind],
            )
    return kind


def acting_seat(state: TwoWayState, actor: str, action: Mapping[str, Any], kind: str) -> str:
    """The seat the action is for; 403 for a seat acting for another or referee misuse.

    Modes: in server mode the referee may not act; in table mode the referee acts for
    the seat named in the body and alone reports draws.
    """
    if actor in SEATS:
        if action.get("seat", actor) != actor:
            raise RuleViolation(
                "not-your-seat",
                Message("%(seat)s cannot act for another seat", seat=actor),
                403,
                rule=mode_rule(state),
            )
        if kind == "draw" and state["options"]["dealing"] == "table":
            raise RuleViolation(
                "referee-reports-draws",
                Message("in table mode the referee reports the tiles drawn"),
                403,
                rule="G-M2",
            )
        return actor
    if state["options"]["dealing"] != "table":
        raise RuleViolation(
            "referee-cannot-act",
            Message("in server mode the seats act; the referee only watches"),
            403,
            rule="G-M1",
        )
    seat = action.get("seat")
    if not isinstance(seat, str) or seat not in SEATS:
        raise bad_request(
            Message("a referee action names the seat it is for: 'seat': 'blue' or 'green'"),
            rule="G-M2",
        )
    return seat


def parse_cell(value: object, field: str = "cell") -> Cell:
    """[row, col] (TW-C1) or 422: invalid-action for a bad shape, off-grid outside 0..6;
    ``field`` names the body field in the refusal."""
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in value)
    ):
        raise bad_request(
            Message("%(field)s: a space is [row, col] with integers", field=field), rule="TW-C1"
        )
    r, c = value
    if not (0 <= r < GRID_SIZE and 0 <= c < GRID_SIZE):
        raise bad_request(
            Message(
                "%(field)s: [%(row)s, %(col)s] is off the 7 x 7 grid (rows and columns 0..6)",
                field=field,
                row=r,
                col=c,
            ),
            "off-grid",
            "TW-C1",
        )
    return [r, c]


def hand_tiles(
    state: TwoWayState, seat: str, names: Sequence[object], by_referee: bool, field: str = "tiles"
) -> list[int]:
    """Tile ids of the named hand tiles: from the referee an id, a face pair or one
    face (``reports.referee_tile``); own-colour faces from a seat, the earliest-drawn
    tile first when two show the same face. 409 tile-not-in-hand, 422 for a bad name.
    ``field`` names the body field ("tile", or "tiles" whose items are tiles[i]).

    G-M2, table dealing: a seat's face that more of its hand tiles show than it names
    (one of its two 7H) is 422 ``ambiguous-tile``: the tiles on the table are the
    record, and the seat cannot tell which one it means (their other faces are hidden
    from it, so the refusal does not depend on them); the referee names it by id or
    faces. In server dealing the service's tiles are the record: the earliest drawn."""
    hand = state["hands"][seat]
    table = state["options"]["dealing"] == "table"
    faces = manifest_of(state)
    taken: list[int] = []
    for i, name in enumerate(names):
        where = field if field == "tile" else f"{field}[{i}]"
        if by_referee:
            tile = referee_tile(state, name, hand, taken, where, "hand", seat)
        else:
            try:
                face = parse_card(name)
            except CardError as error:
                raise bad_request(error.message, "invalid-card") from None
            found = next((t for t in hand if t not in taken and faces[t][seat] == face), None)
            if found is None:
                raise RuleViolation(
                    "tile-not-in-hand",
                    Message("no (more) %(card)s in %(seat)s's hand", card=face, seat=seat),
                    rule="TW-T2",
                )
            if table:
                _one_meant(state, seat, face, names[i:], taken, where)
            tile = found
        taken.append(tile)
    return taken


def _one_meant(
    state: TwoWayState,
    seat: str,
    face: str,
    rest: Sequence[object],
    taken: list[int],
    field: str,
) -> None:
    """G-M2 (see :func:`hand_tiles`): ``face`` names every hand tile showing it still
    untaken, or the report is ambiguous."""
    faces = manifest_of(state)
    showing = sum(1 for t in state["hands"][seat] if t not in taken and faces[t][seat] == face)
    named = sum(1 for name in rest if _face_of(name) == face)
    if showing > named:
        raise RuleViolation(
            "ambiguous-tile",
            Message(
                "%(count)s tiles of %(seat)s's hand show %(card)s: at the table the referee "
                "names the one meant (by its id or both faces)",
                count=showing,
                seat=seat,
                card=face,
            ),
            422,
            rule="G-M2",
            extra={"field": field},
        )


def _face_of(name: object) -> str | None:
    try:
        return parse_card(name)
    except CardError:
        return None


def tile_names(action: Mapping[str, Any]) -> list[object]:
    """The body's 'tiles' list (422 invalid-action if it is not a list)."""
    names = action.get("tiles")
    if not isinstance(names, list):
        raise bad_request(Message("'tiles' must be a list of tiles"))
    return names


def tile_list(action: Mapping[str, Any], count: int, rule: str = "TW-T2") -> list[object]:
    """The body's 'tiles': a list of exactly ``count`` (422 wrong-tile-count citing
    ``rule``: TW-T1 for the deal, TW-T4 for a turn with fewer than 2 placements, else
    TW-T2)."""
    names = tile_names(action)
    if len(names) != count:
        raise bad_request(
            Message(
                "this %(type)s takes exactly %(count)s tiles, not %(given)s",
                type=action["type"],
                count=count,
                given=len(names),
            ),
            "wrong-tile-count",
            rule,
        )
    return names


def require_phase(state: TwoWayState, *phases: str) -> None:
    """409 wrong-phase unless the turn is in one of ``phases``: TW-T2 (the order is
    fixed), or TW-T4 while the placement a declaration freed is due again."""
    if state["phase"] not in phases:
        rule = "TW-T4" if state["phase"] == "place" and state.get("freed") else "TW-T2"
        raise RuleViolation(
            "wrong-phase",
            Message(
                "the turn is in its %(phase)s phase; this action needs %(phases)s (%(rule)s)",
                phase=state["phase"],
                phases=" | ".join(phases),
                rule=rule,
            ),
            rule=rule,
        )


def reported_draw(
    state: TwoWayState, action: Mapping[str, Any], count: int, rule: str
) -> list[int]:
    """Table mode: the referee's tiles (ids, face pairs or faces:
    ``reports.referee_tile``), checked against the bag (409 tile-not-in-bag); a wrong
    count cites ``rule`` (``tile_list``)."""
    tiles: list[int] = []
    for i, name in enumerate(tile_list(action, count, rule)):
        tiles.append(referee_tile(state, name, state["bag"], tiles, f"tiles[{i}]", "bag"))
    return tiles


def line_cells(slots: Mapping[str, int], value: object) -> list[Cell]:
    """TW-D1/TW-D3/TW-D5: the declared cells in order along their line, or the request
    error refusing them; ``slots`` (the state's) give the lengths one may declare.

    Ruling (TW-D1): the cells may be given in any order. Sorted in reading order (row,
    then column) they must be distinct and each one step from the last in one of the
    four directions; cells already in line order (either direction) are kept as given,
    any other order becomes reading order. 422 invalid-action/off-grid for a bad cell,
    length-not-allowed, not-a-line (repeated cell, gap, bend).
    """
    if not isinstance(value, list):
        raise bad_request(Message("'cells' must be a list of [row, col]"), rule="TW-D1")
    allowed = sorted(int(n) for n in slots)
    if len(value) not in allowed:
        raise bad_request(
            Message(
                "a declaration has %(allowed)s cells, not %(given)s (TW-D1, TW-D3)",
                allowed=", ".join(map(str, allowed)),
                given=len(value),
            ),
            "length-not-allowed",
            "TW-D3" if len(value) in LINE_LENGTHS else "TW-D1",
        )
    cells = [parse_cell(v, "cells") for v in value]
    ordered = sorted(cells)
    steps = {(b[0] - a[0], b[1] - a[1]) for a, b in pairwise(ordered)}
    if len(steps) != 1 or steps.pop() not in DIRECTIONS:
        raise bad_request(
            Message(
                "the cells must be distinct neighbours in one straight line "
                "(row, column or diagonal), in any order (TW-D1)"
            ),
            "not-a-line",
            "TW-D1",
        )
    return cells if cells == ordered[::-1] else ordered
