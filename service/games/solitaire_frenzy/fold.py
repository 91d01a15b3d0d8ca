"""Solitaire Frenzy fold: events -> state (the events are the record; RULES.md §5)."""

from __future__ import annotations

from collections.abc import Callable

from service.games.solitaire_frenzy.cards import COLUMN, GAME, NEW, TURN_SIZE
from service.games.solitaire_frenzy.deal import deal
from service.games.solitaire_frenzy.layouts import position_state
from service.games.solitaire_frenzy.state import (
    Event,
    Foundation,
    FrenzyState,
    Layout,
    PileEntry,
    RoundRecord,
    seat_layout,
)


def _created_state(event: Event) -> FrenzyState:
    seats = list(event["seats"])
    return {
        "game": GAME,
        "options": event["options"],
        "seed": event["seed"],
        "status": "active",
        "seats": seats,
        "active": list(seats),
        "round": 0,
        "round_seats": [],
        "foundations": [],
        "layouts": {s: None for s in seats},
        "retired": {},
        "history": [],
        "totals": {s: 0 for s in seats},
        "result": None,
        "from_position": bool(event.get("from_position", False)),
        "timed_out": [],
    }


def _copy_layout(state: FrenzyState, seat: str) -> tuple[FrenzyState, Layout]:
    """A copy of ``state`` whose ``seat`` layout (lists included) is fresh."""
    layout = seat_layout(state, seat)
    fresh: Layout = {
        "pile": layout["pile"][:],
        "columns": [c[:] for c in layout["columns"]],
        "hand": layout["hand"][:],
        "waste": layout["waste"][:],
        "pass": None if layout["pass"] is None else layout["pass"][:],
        "reach": layout["reach"],
    }
    return {**state, "layouts": {**state["layouts"], seat: fresh}}, fresh


def _fold_round_started(s: FrenzyState, e: Event) -> FrenzyState:
    return {
        **s,
        "round": e["round"],
        "round_seats": list(e["seats"]),
        "foundations": [],
        "layouts": {seat: None for seat in s["seats"]},
        "timed_out": [],
    }


def _fold_timed_out(s: FrenzyState, e: Event) -> FrenzyState:
    """G-T1: the seat counts as having no move (SF-E1) until it acts again."""
    return {**s, "timed_out": s.get("timed_out", []) + [e["seat"]]}


def _back(s: FrenzyState, seat: str) -> FrenzyState:
    """A seat that acts is no longer timed out (G-T1)."""
    if seat in s.get("timed_out", []):
        return {**s, "timed_out": [x for x in s["timed_out"] if x != seat]}
    return s


def _fold_dealt(s: FrenzyState, e: Event) -> FrenzyState:
    return {**s, "layouts": {**s["layouts"], e["seat"]: deal(s["seed"], e["round"], e["seat"])}}


def _fold_turned(s: FrenzyState, e: Event) -> FrenzyState:
    s, layout = _copy_layout(_back(s, e["seat"]), e["seat"])
    if not layout["hand"]:  # SF-H1: pick the waste up unshuffled; a fresh pass starts
        layout["hand"], layout["waste"], layout["pass"] = layout["waste"], [], []
    group, layout["hand"] = layout["hand"][:TURN_SIZE], layout["hand"][TURN_SIZE:]
    layout["waste"] += group
    if group[-1] != e["top"]:
        raise ValueError(f"turned shows {e['top']} but the hand turns up {group[-1]}")
    if layout["pass"] is not None:
        layout["pass"].append(group[-1])
        if not layout["hand"]:
            layout["reach"] = sorted(set(layout["pass"]))
    return s


def _take(layout: Layout, source: str, column: int | None) -> str:
    """Remove the card a play takes from its source; a waste card changes the turning
    cycle, so what the table had seen of it is forgotten (SF-E1)."""
    if source == "pile":
        return layout["pile"].pop()
    if source == "waste":
        layout["pass"], layout["reach"] = None, None
        return layout["waste"].pop()
    if column is None:
        raise ValueError(f"a play from {source} names no column")
    return layout["columns"][column].pop()


def _fold_played(s: FrenzyState, e: Event) -> FrenzyState:
    s, layout = _copy_layout(_back(s, e["seat"]), e["seat"])
    card = _take(layout, e["from"], e.get("from_column"))
    if card != e["card"]:
        raise ValueError(f"played {e['card']} but the source holds {card}")
    if e["to"] == COLUMN:
        layout["columns"][e["column"]].append(card)
        return s
    entry: PileEntry = {"card": card, "seat": e["seat"]}
    piles: list[Foundation]
    if e["based_on"] == NEW:
        piles = s["foundations"] + [{"id": e["pile"], "suit": card[-1], "cards": [entry]}]
    else:
        piles = [
            {**p, "cards": p["cards"] + [entry]} if p["id"] == e["pile"] else p
            for p in s["foundations"]
        ]
    return {**s, "foundations": piles}


def _fold_column_moved(s: FrenzyState, e: Event) -> FrenzyState:
    s, layout = _copy_layout(_back(s, e["seat"]), e["seat"])
    columns = layout["columns"]
    columns[e["to_column"]] += columns[e["from_column"]]
    columns[e["from_column"]] = []
    return s


def _fold_refilled(s: FrenzyState, e: Event) -> FrenzyState:
    s, layout = _copy_layout(_back(s, e["seat"]), e["seat"])
    layout["columns"][e["column"]] = [_take(layout, e["from"], None)]
    return s


def _fold_retired(s: FrenzyState, e: Event) -> FrenzyState:
    seat = e["seat"]
    return {
        **s,
        "active": [x for x in s["active"] if x != seat],
        "retired": {**s["retired"], seat: {"round": s["round"], "pile": e["pile"]}},
        "layouts": {**s["layouts"], seat: None},
    }


def _fold_round_ended(s: FrenzyState, e: Event) -> FrenzyState:
    record: RoundRecord = {
        "round": e["round"],
        "reason": e["reason"],
        "out": e["out"],
        "board": e["board"],
        "pile": e["pile"],
        "scores": e["scores"],
    }
    return {**s, "history": s["history"] + [record], "totals": dict(e["totals"])}


def _fold_game_ended(s: FrenzyState, e: Event) -> FrenzyState:
    return {**s, "status": "finished", "result": e["result"]}


_FOLDS: dict[str, Callable[[FrenzyState, Event], FrenzyState]] = {
    "round-started": _fold_round_started,
    "dealt": _fold_dealt,
    "turned": _fold_turned,
    "played": _fold_played,
    "column-moved": _fold_column_moved,
    "refilled": _fold_refilled,
    "seat-retired": _fold_retired,
    "round-ended": _fold_round_ended,
    "game-ended": _fold_game_ended,
    "position-set": lambda s, e: position_state(s, e["position"]),
    "seat-timed-out": _fold_timed_out,
}


def fold(state: FrenzyState | None, event: Event) -> FrenzyState:
    """The state after ``event`` (never mutates ``state``); ``fold(None, created)`` is
    the initial state. Raises ValueError for an event that does not fit."""
    if event["type"] == "game-created":
        return _created_state(event)
    if state is None:
        raise ValueError("the first event must be game-created")
    return _FOLDS[event["type"]](state, event)


def emit(events: list[Event], state: FrenzyState, event: Event) -> FrenzyState:
    """Append ``event`` to ``events`` and return the state after it."""
    events.append(event)
    return fold(state, event)


def fold_all(state: FrenzyState, events: list[Event]) -> FrenzyState:
    """``state`` after every event of ``events`` in order."""
    for event in events:
        state = fold(state, event)
    return state
