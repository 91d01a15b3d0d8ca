"""Helpers for the Halves engine tests: exact positions and folding."""

from __future__ import annotations

import copy
import json

from service.games import halves

SEED = "ab" * 32


def fold_all(events: list[dict], state: dict | None = None) -> dict:
    for event in events:
        state = halves.fold(state, event)
    return state


def new_state(seed: str = SEED, **options) -> dict:
    return fold_all(halves.new_game("halves", options, seed))


def entry(code: str) -> dict:
    """A centre entry from a code as it lies: ``"GS-RC"`` -> RC-GS turned."""
    laid = halves.parse_card(code)
    upright = halves.card_code(sorted(laid, key=lambda h: "RGBY".index(h[0])))
    return {"card": upright, "turned": halves.card_code(laid) != upright}


def position(
    hands: dict[str, list[str]],
    piles: dict[str, list[str]] | None = None,
    centre: list[str] = ("RC-GS",),
    **options,
) -> dict:
    """A server-mode state in play with exactly these hands, piles (top first) and
    centre (bottom first, each code as it lies); every other card of the default deck
    is in the box. Seats are p1..pN, N = len(hands) unless ``players`` is given."""
    options.setdefault("players", len(hands))
    state = copy.deepcopy(new_state(**options))
    piles = piles or {}
    seats = state["seats"]
    state["hands"] = {s: list(hands.get(s, [])) for s in seats}
    state["piles"] = {s: list(piles.get(s, [])) for s in seats}
    state["centre"] = [entry(c) for c in centre]
    used = [c for s in seats for c in state["hands"][s] + state["piles"][s]] + [
        e["card"] for e in state["centre"]
    ]
    assert len(used) == len(set(used)), "a card listed twice"
    assert set(used) <= set(state["deck"]), "hands and piles hold upright codes of the deck"
    state["box"] = [c for c in state["deck"] if c not in used]
    state["streak"] = 0
    state["result"] = None
    state["status"] = "active"
    return state


def run(state: dict, actor: str, action: dict) -> tuple[list[dict], dict]:
    """apply + fold, asserting that apply leaves its input state unchanged."""
    before = json.dumps(state, sort_keys=True)
    events = halves.apply(state, actor, action)
    assert json.dumps(state, sort_keys=True) == before, "apply mutated the state"
    return events, fold_all(events, state)


def conserved(state: dict) -> bool:
    return (
        len(state["centre"])
        + len(state["box"])
        + sum(len(h) for h in state["hands"].values())
        + sum(len(p) for p in state["piles"].values())
    ) == len(state["deck"])
