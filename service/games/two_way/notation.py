"""2-Way Cards notation (RULES.md TW-C2, TW-C3, G-P1): tiles named by their faces, and
a game's position as a viewer may read it.

A tile is named by its manifest id (0..107) or by its faces ``"AS/KH"``: the blue
face, a slash, the green face (canonical card codes, ``service.cards``). A seat never
sees the other colour (TW-C3), so a seat's position names tiles by one face, its own.

Position notation (``position()`` writes it, ``positions.start_from_position`` reads
it; README "Positions")::

    {"game": "two-way",
     "grid": 7 x 7 of tile | null,            # row 0 at blue's side (TW-C1)
     "hands": {"blue": [tile, ...], "green": [...]},   # in draw order
     "bag": [tile, ...] | "bag_count": n,     # the bag only where it may be read
     "bases": {seat: [{"cells": [[r, c], ...], "tiles": [tile, ...]}]},  # removed
                                              # sequences, cells and tiles in line order
     "scores": {seat: points}, "turn": seat, "phase": "deal" | "place" | "draw" |
     "discard" | "over", "placed": placements made this turn, "turn_number": n,
     "pending_skips": {seat: 0 | 1}, "dealt": [seats dealt],
     "manifest": ["AS/KH", ...] (108, tile id = index), "custom_manifest": bool}
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from service.cards import CardError, parse_card
from service.games.two_way.state import Faces, PositionFields, TwoWayState
from service.games.two_way.tiles import GAME, REFEREE, SEATS, manifest_of

# the fields of a state (and of a position-set event) a position is read from
POSITION_KEYS = (
    "grid",
    "hands",
    "bag",
    "bases",
    "scores",
    "turn",
    "phase",
    "placed",
    "turn_number",
    "pending_skips",
    "dealt",
)


def pair_name(faces: Faces) -> str:
    """``"AS/KH"``: a tile's blue face, a slash, its green face (TW-C2)."""
    return f"{faces['blue']}/{faces['green']}"


def parse_pair(value: object) -> tuple[str, str] | None:
    """(blue, green) of a face pair ``"AS/KH"`` (any accepted card spelling, e.g.
    ``"as/th"``), or None when ``value`` is not two card codes around one slash."""
    if not isinstance(value, str) or value.count("/") != 1:
        return None
    blue, green = value.split("/")
    try:
        return parse_card(blue.strip()), parse_card(green.strip())
    except CardError:
        return None


def _namer(
    manifest: Sequence[Faces], viewer: str | None, full: bool
) -> Callable[[int], str | int] | None:
    """How a tile is named: a full position names it by its face pair, or by its id
    when another tile of the manifest shows the same pair (so that a position posted
    back puts every tile where it was); a seat by its face; the public not at all."""
    if full:
        counts = Counter(pair_name(f) for f in manifest)
        return lambda t: pair_name(manifest[t]) if counts[pair_name(manifest[t])] == 1 else t
    if viewer in SEATS:
        return lambda t: manifest[t][viewer]
    return None


def position_of(
    data: PositionFields, manifest: Sequence[Faces], viewer: str | None, full: bool
) -> dict[str, Any]:
    """The position notation of ``data`` (a state, or a position-set event's fields:
    POSITION_KEYS) as ``viewer`` may read it (G-P1, TW-C3).

    ``full`` (the referee, or anyone once the game is over): every tile as its face
    pair, the bag whole, the manifest. A seat: every tile it sees (grid, both hands,
    bases) as its face in the seat's colour, the bag as a count. The public: the
    grid's occupancy (booleans), hand sizes and bag size, bases' cells only.
    """
    name = _namer(manifest, viewer, full)
    shown: dict[str, Any] = {"game": GAME}
    if name is None:
        shown["grid"] = [[t is not None for t in row] for row in data["grid"]]
        shown["hand_counts"] = {s: len(data["hands"][s]) for s in SEATS}
    else:
        shown["grid"] = [[None if t is None else name(t) for t in row] for row in data["grid"]]
        shown["hands"] = {s: [name(t) for t in data["hands"][s]] for s in SEATS}
    if full and name is not None:  # full: every tile is named (name is never None)
        shown["bag"] = [name(t) for t in data["bag"]]
    else:
        shown["bag_count"] = len(data["bag"])
    shown["bases"] = {
        s: [
            {
                "cells": [list(c) for c in entry["cells"]],
                **({} if name is None else {"tiles": [name(t) for t in entry["tiles"]]}),
            }
            for entry in data["bases"][s]
        ]
        for s in SEATS
    }
    for key in ("scores", "turn", "phase", "placed", "turn_number", "pending_skips", "dealt"):
        shown[key] = json.loads(json.dumps(data[key]))
    if full:
        shown["manifest"] = [pair_name(t) for t in manifest]
    return shown


def position(state: TwoWayState, viewer: str | None) -> dict[str, Any]:
    """G-P1: the game's position in the notation above, as ``viewer`` may see it.

    The referee, or anyone once the game is over: everything (tiles as face pairs
    ``"AS/KH"``, by id where two tiles show the same pair, the bag, the manifest and
    ``custom_manifest``); posted back with the
    game's options (``start_from_position``) it gives a game whose view equals this
    one's (seed and its commitment aside). A seat
    ("blue"/"green"): its own colour's faces only (TW-C3), the bag as ``bag_count``.
    Anyone else: occupancy and counts. Always carries ``"game": "two-way"``.
    """
    if viewer not in (*SEATS, REFEREE):
        viewer = None
    full = viewer == REFEREE or state["status"] == "finished"
    shown = position_of(state, manifest_of(state), viewer, full)
    if full:
        shown["custom_manifest"] = state["custom_manifest"]
    return shown
