"""2-Way Cards views (RULES.md TW-C3): legal actions, the view of a state and of
one event, as a seat, the referee or the public may see them."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any, TypedDict

from service.games.rng import commitment
from service.games.two_way.flow import discard_count, draw_count, empty_cells, held_count
from service.games.two_way.lines import scan_grid
from service.games.two_way.notation import position_of
from service.games.two_way.state import Action, BaseEntry, Event, Faces, TwoWayState
from service.games.two_way.tiles import GAME, HAND_SIZE, PLACEMENTS, REFEREE, SEATS, manifest_of
from service.jsontext import plain_copy


class TileFaces(TypedDict):
    """A tile as the referee sees it: its id and both faces (TW-C3)."""

    tile: int
    blue: str
    green: str


# ----- legal actions -----


def face_grid(state: TwoWayState, colour: str) -> list[list[str | None]]:
    manifest = manifest_of(state)
    return [[None if t is None else manifest[t][colour] for t in row] for row in state["grid"]]


def _declarations(state: TwoWayState, seat: str) -> list[Action]:
    """Every correct declaration now open to ``seat`` (scan_grid on its faces, lengths
    with a free slot, TW-D3)."""
    free = {
        int(n) for n, allowed in state["slots"].items() if held_count(state, seat, int(n)) < allowed
    }
    return [
        {"type": "declare", "cells": line["cells"]}
        for line in scan_grid(face_grid(state, seat))
        if len(line["cells"]) in free
    ]


def _unique_names(state: TwoWayState, seat: str, by_referee: bool) -> list[int | str]:
    """Hand tiles as an actor names them: ids (referee) or distinct faces (seat; in
    table dealing only a face one tile shows, G-M2: ``requests.hand_tiles``)."""
    hand = state["hands"][seat]
    if by_referee:
        return list(hand)
    manifest = manifest_of(state)
    faces = [manifest[t][seat] for t in hand]
    table = state["options"]["dealing"] == "table"
    return [f for f in dict.fromkeys(faces) if not table or faces.count(f) == 1]


def _discard_choices(state: TwoWayState, seat: str, by_referee: bool) -> list[list[int | str]]:
    """Every discard, distinct by names (a seat in table dealing names every tile of a
    face it shows or none, G-M2)."""
    hand = state["hands"][seat]
    manifest = manifest_of(state)
    names: Sequence[int | str] = hand if by_referee else [manifest[t][seat] for t in hand]
    whole = by_referee or state["options"]["dealing"] != "table"
    count = discard_count(state, seat)
    seen: set[tuple[str, ...]] = set()
    out = []
    for combo in combinations(names, count):
        key = tuple(sorted(map(str, combo)))
        if key in seen or not (whole or all(combo.count(n) == names.count(n) for n in combo)):
            continue
        seen.add(key)
        out.append(list(combo))
    return out


def _turn_actions(state: TwoWayState, seat: str, by_referee: bool) -> list[Action]:
    phase = state["phase"]
    actions: list[Action] = []
    if phase == "place":
        actions = [
            {"type": "place", "tile": name, "cell": cell}
            for name in _unique_names(state, seat, by_referee)
            for cell in empty_cells(state)
        ]
    elif phase == "draw" and state["options"]["dealing"] == "server":
        actions = [{"type": "draw"}]
    elif phase == "draw" and by_referee:
        actions = [{"type": "draw", "tiles": state["bag"][: draw_count(state, seat)]}]
    elif phase == "discard":
        actions = [
            {"type": "discard", "tiles": pair} for pair in _discard_choices(state, seat, by_referee)
        ]
    return actions + _declarations(state, seat)


def legal_actions(state: TwoWayState, viewer: str | None) -> list[Action]:
    """Complete action bodies :func:`apply` accepts from ``viewer`` now.

    A seat: on its turn, every placement (distinct own face x empty space), the draw
    (server mode), every discard (distinct by faces), every correct declaration
    (TW-T3); else []. The referee (table mode only): the same for the seat to move,
    naming tiles by id, each with "seat"; a draw (or, while dealing, a deal per seat
    not yet dealt) is given as one valid example: the lowest ids in the bag.
    """
    if state["status"] != "active":
        return []
    table = state["options"]["dealing"] == "table"
    if viewer == REFEREE and table:
        if state["phase"] == "deal":
            count = min(HAND_SIZE, len(state["bag"]))
            return [
                {"type": "draw", "seat": s, "tiles": state["bag"][:count]}
                for s in SEATS
                if s not in state["dealt"]
            ]
        seat = state["turn"]
        return [{**a, "seat": seat} for a in _turn_actions(state, seat, True)]
    if viewer in SEATS and viewer == state["turn"] and state["phase"] != "deal":
        return _turn_actions(state, viewer, False)
    return []


# ----- views (TW-C3) -----


def both_faces(manifest: Sequence[Faces], tile: int) -> TileFaces:
    """A tile of ``manifest`` (:func:`~service.games.two_way.tiles.manifest_of`) as the
    referee sees it."""
    faces = manifest[tile]
    return {"tile": tile, "blue": faces["blue"], "green": faces["green"]}


def show_tile(manifest: Sequence[Faces], tile: int, viewer: str) -> TileFaces | str:
    """One tile of ``manifest`` as ``viewer`` sees it: its face in a seat's colour
    (TW-C3), both faces and the id for the referee."""
    if viewer == REFEREE:
        return both_faces(manifest, tile)
    return manifest[tile][viewer]


def _base_entry(
    manifest: Sequence[Faces], owner: str, entry: BaseEntry, viewer: str | None
) -> dict[str, object]:
    shown: dict[str, object] = {k: entry[k] for k in ("cells", "kind", "tier", "points", "length")}
    if viewer == REFEREE:
        shown.update(
            tiles=[both_faces(manifest, t) for t in entry["tiles"]],
            cards=entry["cards"],
            assignment=entry["assignment"],
        )
    elif viewer in SEATS:
        shown["cards"] = [show_tile(manifest, t, viewer) for t in entry["tiles"]]
        if viewer == owner:
            shown["assignment"] = entry["assignment"]
    return shown


def _slots_view(state: TwoWayState) -> dict[str, dict[str, dict[str, int]]]:
    return {
        s: {
            n: {"allowed": allowed, "held": held_count(state, s, int(n))}
            for n, allowed in state["slots"].items()
        }
        for s in SEATS
    }


def view(state: TwoWayState, viewer: str | None) -> dict[str, Any]:
    """What ``viewer`` may see (TW-C3).

    Always: game, status, seats, options, turn, turn_number, phase, placements_left,
    discards_due, pending_skips ({seat: 0|1}, TW-D5), slots ({seat: {length:
    {allowed, held}}}), scores, result (RESULT once finished, else None: see
    service/games/__init__.py), bag_count, hand_counts, seed_commitment, seed (None
    until the game is finished, for the referee too).
    A seat ("blue"/"green"): "grid" (7 x 7 of face | None), "hands" {seat: [faces]}
    and "bases" {seat: [{cells, cards, kind, tier, points, length}]}, every face in the
    viewer's colour; the own base adds "assignment". Never a face of the other colour,
    a tile id, the manifest or the bag's content.
    The referee: tiles as {"tile": id, "blue", "green"} in grid, hands, bag and bases.
    The public (None, or any other viewer): no faces: "grid" of booleans (occupied),
    bases without cards.
    """
    if viewer not in (*SEATS, REFEREE):
        viewer = None
    finished = state["status"] == "finished"
    placements = 0
    if state["phase"] == "place":
        placements = min(PLACEMENTS - state["placed"], len(empty_cells(state)))
    shown: dict[str, Any] = {
        "game": GAME,
        "viewer": viewer,
        "status": state["status"],
        "seats": list(state["seats"]),
        "options": dict(state["options"]),
        "custom_manifest": state["custom_manifest"],
        "turn": state["turn"],
        "turn_number": state["turn_number"],
        "phase": state["phase"],
        "placements_left": placements,
        "discards_due": discard_count(state, state["turn"]) if state["phase"] == "discard" else 0,
        "pending_skips": dict(state["pending_skips"]),
        "slots": _slots_view(state),
        "scores": dict(state["scores"]),
        "result": plain_copy(state["result"]),
        "bag_count": len(state["bag"]),
        "hand_counts": {s: len(state["hands"][s]) for s in SEATS},
        "seed_commitment": commitment(state["seed"]),
        "seed": state["seed"] if finished else None,
        "from_position": bool(state.get("from_position", False)),
    }
    manifest = manifest_of(state)
    if viewer is None:
        shown["grid"] = [[t is not None for t in row] for row in state["grid"]]
    else:
        shown["grid"] = [
            [None if t is None else show_tile(manifest, t, viewer) for t in row]
            for row in state["grid"]
        ]
        shown["hands"] = {
            s: [show_tile(manifest, t, viewer) for t in state["hands"][s]] for s in SEATS
        }
    shown["bases"] = {
        s: [_base_entry(manifest, s, e, viewer) for e in state["bases"][s]] for s in SEATS
    }
    if viewer == REFEREE:
        shown["bag"] = [both_faces(manifest, t) for t in state["bag"]]
        shown["dealt"] = list(state["dealt"])
    return shown


def ruling_of(event: Event) -> str | None:
    """G-R1: the rule a logged verdict applied, named in every viewer's copy of it: a
    declaration removed (TW-D4) or refused as incorrect (TW-D5), a turn skipped for a
    missed turn owed (TW-T5) or lost to the idle deadline (G-T1); None for any other
    event. Depends on the event's type alone, so it tells nobody a hidden face.

    >>> ruling_of({"type": "turn-skipped", "seat": "blue", "reason": "timed-out"})
    'G-T1'
    """
    kind = event["type"]
    if kind == "turn-skipped":
        return "G-T1" if event.get("reason") == "timed-out" else "TW-T5"
    return {"declared": "TW-D4", "declaration-rejected": "TW-D5"}.get(kind)


def view_event(state: TwoWayState, event: Event, viewer: str | None) -> Event | None:
    """One logged event as ``viewer`` may see it (:func:`_view_event`), a verdict with
    the rule it applied (``rule``, :func:`ruling_of`; G-R1)."""
    shown = _view_event(state, event, viewer)
    rule = ruling_of(event)
    if rule is not None and "rule" not in shown:
        shown["rule"] = rule
    return shown


def _view_event(state: TwoWayState, event: Event, viewer: str | None) -> Event:
    """One logged event as ``viewer`` may see it (the filter of :func:`view`).

    ``state`` is the game's current state (for the manifest and the status). The
    referee sees the event whole (but the seed until the game is finished), plus "faces"
    ({"tile", "blue", "green"} per tile).
    A seat sees tiles as faces of its own colour under "card"/"cards" (a draw shows
    the drawer its faces and the opponent the backs, which are the opponent's own
    colour), never ids; game-created without manifest and (while the game is active)
    seed; a declaration's assignment and a rejection's reasons only to the declarer.
    The public sees no faces: a tile count instead. A ``position-set`` (G-P1) shows
    the position as the viewer may read it (``notation.position_of``), and to the
    referee (or once finished) also what was ``stated``. Never returns None (every
    event is visible in some form).
    """
    if viewer not in (*SEATS, REFEREE):
        viewer = None
    kind = event["type"]
    if kind == "position-set":
        full = viewer == REFEREE or state["status"] == "finished"
        shown: Event = {
            "type": kind,
            "seat": None,
            "position": position_of(event["state"], manifest_of(state), viewer, full),
        }
        if full:
            shown["stated"] = plain_copy(event["position"])
        return shown
    if viewer == REFEREE:
        shown = plain_copy(event)
        if kind == "game-created" and state["status"] != "finished":
            del shown["seed"]  # the draws to come would follow from it
        tiles = event.get("tiles", [event["tile"]] if "tile" in event else None)
        if tiles is not None and kind != "game-created":
            shown["faces"] = [both_faces(manifest_of(state), t) for t in tiles]
        return shown
    shown = {
        k: v
        for k, v in event.items()
        if k not in ("tile", "tiles", "manifest", "seed", "cards", "assignment", "reasons")
    }
    shown = plain_copy(shown)
    if kind == "game-created" and state["status"] == "finished":
        shown["seed"] = event["seed"]
    if "tile" in event:
        if viewer is not None:
            shown["card"] = show_tile(manifest_of(state), event["tile"], viewer)
    if "tiles" in event and kind != "game-created":
        if viewer is None:
            shown["count"] = len(event["tiles"])
        else:
            manifest = manifest_of(state)
            shown["cards"] = [show_tile(manifest, t, viewer) for t in event["tiles"]]
    if viewer is not None and viewer == event.get("seat"):
        for key in ("assignment", "reasons"):
            if key in event:
                shown[key] = plain_copy(event[key])
    return shown
