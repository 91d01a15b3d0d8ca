"""2-Way Cards turn flow (RULES.md TW-T1..TW-T5, TW-E1..TW-E3): fold (events ->
state) and the helpers that say what a turn owes."""

from __future__ import annotations

from collections.abc import Callable

from service.games.two_way.lines import GRID_SIZE
from service.games.two_way.options import SLOTS
from service.games.two_way.state import (
    Board,
    Cell,
    Event,
    Options,
    PositionFields,
    Result,
    TwoWayState,
)
from service.games.two_way.tiles import (
    DRAW_COUNT,
    DRAWN_HAND,
    GAME,
    HAND_SIZE,
    PLACEMENTS,
    SEATS,
    TILE_COUNT,
    manifest_text,
)
from service.jsontext import plain_copy


def other_seat(seat: str) -> str:
    return SEATS[1 - SEATS.index(seat)]


def initial_state(event: Event) -> TwoWayState:
    options: Options = event["options"]  # normalise_options made them
    return {
        "game": GAME,
        "status": "active",
        "seats": list(event["seats"]),
        "options": options.copy(),
        "custom_manifest": event["custom_manifest"],
        "manifest": manifest_text(event["manifest"]),
        "seed": event["seed"],
        "slots": dict(SLOTS[(options["variant"], options["easy_extra_threes"])]),
        "bag": list(range(TILE_COUNT)),
        "hands": {s: [] for s in SEATS},
        "grid": [[None] * GRID_SIZE for _ in range(GRID_SIZE)],
        "bases": {s: [] for s in SEATS},
        "scores": {s: 0 for s in SEATS},
        "pending_skips": {s: 0 for s in SEATS},
        "dealt": [],
        "turn": options["first_seat"],
        "turn_number": 0,
        "phase": "deal",
        "placed": 0,
        "draws": 0,
        "result": None,
        "from_position": bool(event.get("from_position", False)),
        "freed": False,
    }


def empty_cells(state: Board) -> list[Cell]:
    return [
        [r, c] for r in range(GRID_SIZE) for c in range(GRID_SIZE) if state["grid"][r][c] is None
    ]


def placement_phase(state: TwoWayState) -> str:
    """TW-T2/TW-T4: "place" while a placement is due, else "draw".

    Ruling (TW-T4): a placement is due while fewer than 2 were made this turn and an
    empty space exists (so 0 or 1 placement when the grid is (nearly) full), and the
    seat holds a tile (only a hand left short by timed-out turns, G-T1, can be empty).
    """
    if state["placed"] < PLACEMENTS and empty_cells(state) and state["hands"][state["turn"]]:
        return "place"
    return "draw"


def start_turn(state: TwoWayState, seat: str) -> None:
    state["turn"] = seat
    state["turn_number"] += 1
    state["placed"] = 0
    state["freed"] = False
    state["phase"] = placement_phase(state)


def draw_count(state: TwoWayState, seat: str) -> int:
    """TW-T2/TW-T4: the tiles a draw takes: up to 7 in hand, at most 4 (TW-E4).

    Ruling: ``min(4, 7 - hand, bag)``: 4 after two placements, 3 after a TW-T4 turn
    with one placement; all the bag holds when it holds fewer.
    """
    room = max(0, DRAWN_HAND - len(state["hands"][seat]))
    return min(DRAW_COUNT, room, len(state["bag"]))


def discard_count(state: TwoWayState, seat: str) -> int:
    """TW-T2/TW-T4: the tiles a discard returns: down to 5 in hand.

    Ruling: ``max(0, hand - 5)``: normally 2 (7 in hand after the draw), also after a
    TW-T4 turn with one placement (the draw took 3); fewer only when the bag ran low.
    """
    return max(0, len(state["hands"][seat]) - HAND_SIZE)


def held_count(state: Board, seat: str, length: int) -> int:
    return sum(entry["length"] == length for entry in state["bases"][seat])


def end_event(state: TwoWayState, reason: str, completer: str | None) -> Event:
    """TW-E1..TW-E3: the ``game-ended`` event ``{"result": RESULT}`` for ``state``
    (scores already counted).

    TW-E3: with win_condition first_complete (default) the completer of the set wins
    outright, whatever the points; otherwise (a full grid, TW-E2, or win_condition
    score) the higher score wins and equal scores draw (``winners`` []). RESULT's
    detail is ``"two_way": {"completer": seat | None}``.
    """
    scores = dict(state["scores"])
    blue, green = (scores[s] for s in SEATS)
    if completer is not None and state["options"]["win_condition"] == "first_complete":
        winners = [completer]
    else:
        winners = [] if blue == green else [SEATS[0] if blue > green else SEATS[1]]
    result: Result = {
        "winners": winners,
        "scores": scores,
        "reason": reason,
        "two_way": {"completer": completer},
    }
    return {"type": "game-ended", "seat": None, "result": result}


def _fold_deal(state: TwoWayState, event: Event) -> None:
    _fold_draw(state, event)
    state["dealt"].append(event["seat"])
    if len(state["dealt"]) == len(SEATS):
        start_turn(state, state["options"]["first_seat"])
    else:
        state["phase"] = "deal"


def _fold_place(state: TwoWayState, event: Event) -> None:
    state["hands"][event["seat"]].remove(event["tile"])
    r, c = event["cell"]
    state["grid"][r][c] = event["tile"]
    state["placed"] += 1
    state["phase"] = placement_phase(state)


def _fold_draw(state: TwoWayState, event: Event) -> None:
    for tile in event["tiles"]:
        state["bag"].remove(tile)
    state["hands"][event["seat"]].extend(event["tiles"])
    state["draws"] += 1
    state["phase"] = "discard"


def _fold_discard(state: TwoWayState, event: Event) -> None:
    for tile in event["tiles"]:
        state["hands"][event["seat"]].remove(tile)
    state["bag"] = sorted(state["bag"] + event["tiles"])
    start_turn(state, other_seat(event["seat"]))


def _fold_declared(state: TwoWayState, event: Event) -> None:
    for r, c in event["cells"]:
        state["grid"][r][c] = None
    entry = {
        k: event[k]
        for k in ("cells", "tiles", "cards", "kind", "tier", "points", "length", "assignment")
    }
    state["bases"][event["seat"]].append(plain_copy(entry))
    state["scores"][event["seat"]] += event["points"]
    if state["phase"] in ("place", "draw"):
        before, state["phase"] = state["phase"], placement_phase(state)
        if before == "draw" and state["phase"] == "place":
            state["freed"] = True  # TW-T4: the freed placement is due again


def _fold_rejected(state: TwoWayState, event: Event) -> None:
    # TW-T5: one missed turn at most, however many wrong declarations; TW-T3: the
    # length is not used up (nothing else changes).
    state["pending_skips"][event["seat"]] = 1


def _fold_skipped(state: TwoWayState, event: Event) -> None:
    # TW-T5 serves a missed turn; a turn lost to G-T1 (reason timed-out) serves none
    if event.get("reason") != "timed-out":
        state["pending_skips"][event["seat"]] = 0
    start_turn(state, other_seat(event["seat"]))


def _fold_position(state: TwoWayState, event: Event) -> None:
    """G-P1: the stated position replaces the fresh game's (positions.start_from_position)."""
    stated: PositionFields = plain_copy(event["state"])
    state.update(stated)


def _fold_ended(state: TwoWayState, event: Event) -> None:
    state["status"] = "finished"
    state["phase"] = "over"
    state["result"] = plain_copy(event["result"])


_FOLDERS: dict[str, Callable[[TwoWayState, Event], None]] = {
    "dealt": _fold_deal,
    "placed": _fold_place,
    "drawn": _fold_draw,
    "discarded": _fold_discard,
    "declared": _fold_declared,
    "declaration-rejected": _fold_rejected,
    "turn-skipped": _fold_skipped,
    "game-ended": _fold_ended,
    "position-set": _fold_position,
    "turn-timed-out": lambda state, event: None,  # G-T1: the turn-skipped that follows ends it
}


def fold(state: TwoWayState | None, event: Event) -> TwoWayState:
    """The state after one event (pure: ``state`` is not modified).

    ``fold(None, game_created)`` is the initial state; any other event needs a state.
    Events come from :func:`new_game`/:func:`apply` and are trusted (ValueError for an
    unknown type).
    """
    kind = event.get("type")
    if kind == "game-created":
        if state is not None:
            raise ValueError("game-created starts a game: fold it onto None")
        return initial_state(plain_copy(event))
    if state is None or kind not in _FOLDERS:
        onto = "no state" if state is None else "a state"
        raise ValueError(f"cannot fold event {kind!r} onto {onto}")
    new = fold_copy(state)
    _FOLDERS[kind](new, event)
    return new


def fold_copy(state: TwoWayState) -> TwoWayState:
    """A copy of ``state`` for a folder to change: fresh containers for what the
    folders mutate in place (hands, bases, grid, bag, dealt, scores, pending_skips);
    the rest (manifest, options, slots, base entries...) is shared, as no folder
    changes it (a JSON round trip of the whole state, manifest included, took
    ~100 us per event; this ~2 us)."""
    new = state.copy()
    new["hands"] = {seat: list(tiles) for seat, tiles in state["hands"].items()}
    new["bases"] = {seat: list(entries) for seat, entries in state["bases"].items()}
    new["grid"] = [list(row) for row in state["grid"]]
    new["bag"] = list(state["bag"])
    new["dealt"] = list(state["dealt"])
    new["scores"] = dict(state["scores"])
    new["pending_skips"] = dict(state["pending_skips"])
    return new
