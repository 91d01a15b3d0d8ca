"""Solitaire Frenzy positions (RULES.md G-P1), the other way: the state a stated
position gives (fold of ``position-set``) and a game's position as a viewer may see
it. The notation is in service.games.solitaire_frenzy.positions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.cards import DECK
from service.games.rng import shuffle
from service.games.solitaire_frenzy.cards import GAME, TURN_SIZE
from service.games.solitaire_frenzy.positions import SOURCES, SourceName, read_seat
from service.games.solitaire_frenzy.state import Foundation, FrenzyState, Layout


def _tops(cycle: list[str]) -> list[str]:
    """The cards turning a whole cycle shows on top of the waste (SF-H1)."""
    tops = cycle[TURN_SIZE - 1 :: TURN_SIZE]
    return tops + [cycle[-1]] if len(cycle) % TURN_SIZE else tops


def _layout(seat: str, raw: Any, piles: list[Foundation], seed: str) -> Layout:
    """SF-P1 layout of a read seat, the cards it leaves out shuffled from the seed."""
    read = read_seat(raw, seat)
    placed = {e["card"] for p in piles for e in p["cards"] if e["seat"] == seat}
    placed |= {c for column in read["columns"] for c in column}
    for name in SOURCES:
        placed |= set(read[name].get("cards", []))
        top = read[name].get("top")
        if top is not None:
            placed.add(top)
    rest = shuffle([c for c in DECK if c not in placed], seed, f"position-{seat}")
    cards: dict[SourceName, list[str]] = {}
    laid: tuple[SourceName, ...] = ("pile", "waste", "hand")
    for name in laid:
        source = read[name]
        if "cards" in source:
            cards[name] = list(source["cards"])
            continue
        below = source["size"] - (source.get("top") is not None)
        cards[name], rest = rest[:below], rest[below:]
        top = source.get("top")
        if top is not None:
            cards[name].append(top)
    hand, waste = cards["hand"], cards["waste"]
    passed: list[str] | None = None
    reach: list[str] | None = None
    if read["cycle"] != "broken":
        passed = waste[TURN_SIZE - 1 :: TURN_SIZE] if hand else _tops(waste)
    if read["cycle"] == "known":
        reach = sorted(set(_tops(waste + hand)))
    return {
        "pile": cards["pile"],
        "columns": read["columns"],
        "hand": hand,
        "waste": waste,
        "pass": passed,
        "reach": reach,
    }


def position_state(state: FrenzyState, position: Mapping[str, Any]) -> FrenzyState:
    """The state a ``position-set`` event gives (fold): the round in play as stated."""
    number, retired = position["round"], position["retired"]
    active = [s for s in state["seats"] if s not in retired]
    round_seats = [s for s in state["seats"] if s in active or retired[s]["round"] == number]
    piles: list[Foundation] = [
        {
            "id": p["id"],
            "suit": p["cards"][0]["card"][-1],
            "cards": [{"card": e["card"], "seat": e["seat"]} for e in p["cards"]],
        }
        for p in position["foundations"]
    ]
    players = position.get("players", {})
    layouts: dict[str, Layout | None] = {
        s: _layout(s, players[s], piles, state["seed"]) if s in players else None
        for s in state["seats"]
    }
    return {
        **state,
        "round": number,
        "round_seats": round_seats,
        "active": active,
        "foundations": piles,
        "layouts": layouts,
        "retired": dict(retired),
        "history": list(position.get("history", [])),
        "totals": dict(position["totals"]),
    }


def _cycle(layout: Layout) -> str:
    if layout["reach"] is not None:
        return "known"
    return "broken" if layout["pass"] is None else "turning"


def _seat_notation(layout: Layout, full: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    _source_notation(out, "pile", layout["pile"], full)
    out["columns"] = [list(c) for c in layout["columns"]]
    _source_notation(out, "hand", layout["hand"], full)
    _source_notation(out, "waste", layout["waste"], full)
    out["cycle"] = _cycle(layout)
    return out


def _source_notation(out: dict[str, Any], name: SourceName, cards: list[str], full: bool) -> None:
    if full:
        out[name] = list(cards)
    else:
        if name != "hand":
            out[f"{name}_top"] = cards[-1] if cards else None
        out[f"{name}_size"] = len(cards)


def sees_everything(state: FrenzyState, viewer: str | None) -> bool:
    """G-P1/G-M1: everything is shown once the game is over, and to the referee of a
    table game (what the table reported); otherwise face-down cards are counts."""
    return state["status"] == "finished" or (
        viewer == "referee" and state["options"]["dealing"] == "table"
    )


def position(state: FrenzyState, viewer: str | None) -> dict[str, Any]:
    """G-P1: the game's position in the notation above, as ``viewer`` may see it: a
    seat (or the referee of a server game) sees every face-down card as a count (the
    seat's own too: nobody sees them, G-M1); the referee of a table game, or anyone
    once the game is over, sees every card. Posted back to ``start_from_position``,
    the full position gives a game whose view equals this one's."""
    full = sees_everything(state, viewer)
    out: dict[str, Any] = {
        "game": GAME,
        "round": state["round"],
        "totals": dict(state["totals"]),
        "retired": {s: dict(r) for s, r in state["retired"].items()},
        "foundations": [
            {"id": p["id"], "cards": [dict(e) for e in p["cards"]]} for p in state["foundations"]
        ],
    }
    if len(state["history"]) >= state["round"] - 1:  # a table position may leave it out
        out["history"] = [dict(r) for r in state["history"]]
    players = {}
    for s in state["active"]:
        layout = state["layouts"][s]
        if layout is not None:
            players[s] = _seat_notation(layout, full)
    if players:
        out["players"] = players
    return out


def public_position(stated: Mapping[str, Any]) -> dict[str, Any]:
    """A stated position with every face-down card as a count (``position-set`` as a
    seat sees it, G-M1)."""
    players = {}
    for seat, raw in stated.get("players", {}).items():
        out = {"columns": raw["columns"], "cycle": raw["cycle"]}
        for name in SOURCES:
            if name in raw:
                size, top = len(raw[name]), (raw[name][-1] if raw[name] else None)
            else:
                size, top = raw[f"{name}_size"], raw.get(f"{name}_top")
            out[f"{name}_size"] = size
            if name != "hand":
                out[f"{name}_top"] = top
        players[seat] = out
    return {**stated, "players": players} if players else dict(stated)
