"""2-Way Cards turns (RULES.md TW-T, TW-D, TW-E): apply, the events an action
causes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.games import RuleViolation
from service.games.two_way.deal import server_draw
from service.games.two_way.flow import (
    discard_count,
    draw_count,
    empty_cells,
    end_event,
    fold,
    held_count,
)
from service.games.two_way.lines import classify_line
from service.games.two_way.requests import (
    acting_seat,
    bad_request,
    check_body,
    hand_tiles,
    line_cells,
    parse_cell,
    reported_draw,
    require_phase,
    tile_list,
    tile_names,
)
from service.games.two_way.state import Action, Event, TwoWayState
from service.games.two_way.tiles import HAND_SIZE, REFEREE, SEATS, manifest_of
from service.messages import Message


def _apply_deal(
    state: TwoWayState, seat: str, action: Mapping[str, Any], actor: str
) -> list[Event]:
    """TW-T1 in table mode: the referee reports a seat's 5 starting tiles."""
    if actor == REFEREE and action["type"] == "draw":
        if seat in state["dealt"]:
            raise RuleViolation(
                "already-dealt",
                Message("%(seat)s already holds the starting tiles", seat=seat),
                rule="TW-T1",
            )
        count = min(HAND_SIZE, len(state["bag"]))
        tiles = reported_draw(state, action, count, "TW-T1")
        return [{"type": "dealt", "seat": seat, "by": actor, "tiles": tiles}]
    raise RuleViolation(
        "wrong-phase",
        Message(
            "the starting tiles are being dealt (TW-T1): the referee reports each seat's 5 "
            "tiles first"
        ),
        rule="TW-T1",
    )


def _apply_place(
    state: TwoWayState, seat: str, action: Mapping[str, Any], actor: str
) -> list[Event]:
    """TW-T2/TW-T4: put one hand tile on an empty space."""
    cell = parse_cell(action["cell"])
    require_phase(state, "place")
    tile = hand_tiles(state, seat, [action["tile"]], actor == REFEREE, "tile")[0]
    if state["grid"][cell[0]][cell[1]] is not None:
        raise RuleViolation(
            "space-occupied", Message("space %(cell)s is occupied", cell=cell), rule="TW-T2"
        )
    return [{"type": "placed", "seat": seat, "by": actor, "tile": tile, "cell": cell}]


def _count_rule(state: TwoWayState) -> str:
    """The rule a draw's or discard's tile count follows: TW-T2 (4 and 2), or TW-T4
    after a turn with fewer than 2 placements (up to 7 and down to 5)."""
    return "TW-T2" if state["placed"] >= 2 else "TW-T4"


def _apply_draw(
    state: TwoWayState, seat: str, action: Mapping[str, Any], actor: str
) -> list[Event]:
    """TW-T2: draw after placing, up to 7 in hand (``draw_count``). In table mode the
    referee names exactly that many tiles (422 wrong-tile-count)."""
    count = draw_count(state, seat)
    if state["options"]["dealing"] == "server":
        if "tiles" in action:
            raise bad_request(
                Message('in server mode the service draws: send {"type": "draw"}'), rule="G-M1"
            )
        require_phase(state, "draw")
        tiles = server_draw(state, count)
    else:
        tile_names(action)
        require_phase(state, "draw")
        tiles = reported_draw(state, action, count, _count_rule(state))
    return [{"type": "drawn", "seat": seat, "by": actor, "tiles": tiles}]


def _apply_discard(
    state: TwoWayState, seat: str, action: Mapping[str, Any], actor: str
) -> list[Event]:
    """TW-T2: discard down to 5 (normally 2) into the bag, ending the turn; then TW-E2
    (grid full at the end of a turn ends the game) or TW-T5 (each pending missed turn
    skipped, one turn-skipped event each; a seat owes at most one, TW-D5)."""
    tile_names(action)
    require_phase(state, "discard")
    names = tile_list(action, discard_count(state, seat), _count_rule(state))
    tiles = hand_tiles(state, seat, names, actor == REFEREE)
    event: Event = {"type": "discarded", "seat": seat, "by": actor, "tiles": tiles}
    return [event, *turn_over(fold(state, event))]


def turn_over(after: TwoWayState) -> list[Event]:
    """The events that follow the end of a turn (``after``: the state once it ended):
    TW-E2 (a full grid ends the game) or TW-T5 (each pending missed turn skipped, one
    turn-skipped event each; a seat owes at most one, TW-D5)."""
    if not empty_cells(after):
        return [end_event(after, "grid-full", None)]
    events: list[Event] = []
    while after["pending_skips"][after["turn"]] > 0:
        skip: Event = {"type": "turn-skipped", "seat": after["turn"], "by": None}
        events.append(skip)
        after = fold(after, skip)
    return events


# the events after which another seat is on turn (or nobody is): G-T1's clock restarts
TURN_PASSED = ("discarded", "turn-skipped", "dealt", "game-ended")


def restarts_idle_clock(events: list[Event]) -> bool:
    """G-T1: "a seat on turn for ``idle_seconds`` loses that turn": the clock runs from
    the turn's start, so only events that pass the turn (a discard, a skipped turn, the
    deal, the end) restart it. A placement, a draw or a declaration (a wrong one too,
    which may be made again and again, TW-T5) leaves it running.

    >>> restarts_idle_clock([{"type": "declaration-rejected", "seat": "blue"}])
    False
    """
    return any(event["type"] in TURN_PASSED for event in events)


def idle_events(state: TwoWayState, since: float, now: float) -> list[Event]:
    """G-T1: the events of a seat's turn running out, or [].

    ``since``/``now``: epoch seconds of the start of the turn (the game's last event
    that restarted the clock, :func:`restarts_idle_clock`) and of the current request.
    [] unless option ``idle_seconds`` is set, the game runs past its deal and
    ``now - since >= idle_seconds``. Else ``turn-timed-out`` {seat, at: now,
    since} and ``turn-skipped`` {seat, "reason": "timed-out"} (TW-T5: the seat loses
    the rest of its turn), then what follows a turn's end (``turn_over``: a full grid
    ends the game, TW-E2; pending missed turns are served, TW-T5).

    Ruling (G-T1, TW-T2): a timed-out turn ends as it stands: the tiles placed stay,
    nothing is drawn or discarded for the seat, a missed turn it owes is still owed;
    its next turn's draw (up to 4, up to 7 in hand) and discard (down to 5) bring its
    hand back to 5.
    """
    idle = state["options"].get("idle_seconds")
    if (
        idle is None
        or state["status"] != "active"
        or state["phase"] == "deal"
        or now - since < idle
    ):
        return []
    seat = state["turn"]
    timed_out: Event = {
        "type": "turn-timed-out",
        "seat": seat,
        "by": None,
        "at": now,
        "since": since,
    }
    skip: Event = {"type": "turn-skipped", "seat": seat, "by": None, "reason": "timed-out"}
    return [timed_out, skip, *turn_over(fold(fold(state, timed_out), skip))]


def _apply_declare(
    state: TwoWayState, seat: str, action: Mapping[str, Any], actor: str
) -> list[Event]:
    """TW-T3/TW-D1..TW-D5: remove a sequence, judged on the declarer's faces.

    Malformed (request error, nothing recorded): not a line, off-grid, wrong length
    (422), empty space, a length already held (TW-D3), not the turn / dealing (409).
    Correct: ``declared`` (and ``game-ended`` when the set is complete, TW-E1).
    Incorrect: ``declaration-rejected`` (tiles stay; the seat owes one missed turn,
    however many it got wrong, TW-T5; the length stays free, TW-T3). Any number of
    declarations per turn (TW-T3): several correct 3-lines with easy_extra_threes
    while a 3-slot is free (TW-D3).
    """
    cells = line_cells(state["slots"], action["cells"])
    require_phase(state, "place", "draw", "discard")
    tiles: list[int] = []
    for r, c in cells:
        tile = state["grid"][r][c]
        if tile is None:
            raise RuleViolation(
                "empty-cell",
                Message("space [%(row)s, %(col)s] is empty (TW-D1)", row=r, col=c),
                rule="TW-D1",
            )
        tiles.append(tile)
    length = len(cells)
    if held_count(state, seat, length) >= state["slots"][str(length)]:
        raise RuleViolation(
            "length-already-held",
            Message(
                "%(seat)s already holds the sequences of %(length)s allowed (TW-D3)",
                seat=seat,
                length=length,
            ),
            rule="TW-D3",
        )
    manifest = manifest_of(state)
    cards = [manifest[t][seat] for t in tiles]
    verdict = classify_line(cards)
    base = {"seat": seat, "by": actor, "cells": cells, "tiles": tiles, "cards": cards}
    if not verdict["valid"]:
        return [{"type": "declaration-rejected", **base, "reasons": verdict["reasons"]}]
    event: Event = {
        "type": "declared",
        **base,
        "kind": verdict["kind"],
        "tier": verdict["tier"],
        "points": verdict["points"],
        "length": length,
        "assignment": verdict["assignment"],
    }
    after = fold(state, event)
    if all(held_count(after, seat, int(n)) >= held for n, held in after["slots"].items()):
        return [event, end_event(after, "set-complete", seat)]
    return [event]


_APPLIERS = {
    "place": _apply_place,
    "draw": _apply_draw,
    "discard": _apply_discard,
    "declare": _apply_declare,
}


def apply(state: TwoWayState, actor: str, action: Action) -> list[Event]:
    """The events ``action`` by ``actor`` ("blue", "green" or "referee") causes.

    Never modifies ``state``. Raises RuleViolation: 422 for a malformed body
    (invalid-action, invalid-card, invalid-tile, off-grid, not-a-line,
    length-not-allowed, wrong-tile-count), 403 for acting for another seat
    (not-your-seat), referee misuse (referee-cannot-act in server mode) or a seat
    drawing in table mode (referee-reports-draws), 409 for what the state refuses
    (game-over, not-your-turn, wrong-phase, space-occupied, tile-not-in-hand,
    tile-not-in-bag, empty-cell, length-already-held, already-dealt). Each names its
    rule (G-R1: see the rulings above).
    ``expected_version`` in the body is ignored (the store checks it).
    """
    if actor not in (*SEATS, REFEREE):
        raise RuleViolation(
            "unknown-actor",
            Message("%(actor)s is not blue, green or referee", actor=repr(actor)),
            403,
            rule="G-M1",
        )
    kind = check_body(action)
    if state["status"] != "active":
        # G-R1: the rule that ended this game (TW-E1 a completed set, TW-E2 a full grid)
        ended = state["result"]["reason"] if state["result"] else "set-complete"
        raise RuleViolation(
            "game-over",
            Message("the game is over"),
            rule="TW-E2" if ended == "grid-full" else "TW-E1",
        )
    seat = acting_seat(state, actor, action, kind)
    if state["phase"] == "deal":
        return _apply_deal(state, seat, action, actor)
    if seat != state["turn"]:
        raise RuleViolation(
            "not-your-turn", Message("it is %(seat)s's turn", seat=state["turn"]), rule="TW-T2"
        )
    return _APPLIERS[kind](state, seat, action, actor)
