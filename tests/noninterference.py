"""No seat learns another's hidden cards (G-M1): a check every engine's tests reuse.

Two states that differ only in information hidden from a seat (another seat's hand,
the order or content of the deck or bag, the other colour's faces...) must give that
seat byte-identical answers: its view, its picture (service.pictures), its legal
actions, and the outcome of every
action it might send: the events as it sees them (``view_event`` on the state after
them) and its view then, or the refusal (status, code, detail, rule).

A game's test builds the pairs (a state reached by play, and a copy with hidden
information changed in a way the rules keep from that seat) and the actions to
probe, then calls :func:`assert_same_answers`. Nothing here knows a game: Halves and
Solitaire Frenzy add their own pairs and probes.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

from service.games import RuleViolation
from service.pictures import draw


def outcome(module: ModuleType, state: dict, seat: str, action: Any) -> dict:
    """What ``seat`` receives when it sends ``action`` in ``state``."""
    try:
        events = module.apply(state, seat, action)
    except RuleViolation as refusal:
        return {"refused": [refusal.status, refusal.code, refusal.detail, refusal.rule]}
    after = state
    for event in events:
        after = module.fold(after, event)
    return {
        "events": [module.view_event(after, event, seat) for event in events],
        "view": module.view(after, seat),
    }


def answers(module: ModuleType, state: dict, seat: str, actions: list) -> list[str]:
    """Everything ``seat`` receives from ``state``, one text per item: its view, its
    picture (SVG), its legal actions, then the outcome of each of ``actions`` in order."""
    view = module.view(state, seat)
    texts = [
        json.dumps({"view": view}),
        draw(view["game"], view).decode(),
        json.dumps({"legal_actions": module.legal_actions(state, seat)}),
    ]
    texts += [
        json.dumps({"action": action, "outcome": outcome(module, state, seat, action)})
        for action in actions
    ]
    return texts


def assert_same_answers(module: ModuleType, seat: str, a: dict, b: dict, actions: list) -> None:
    """``seat`` gets byte-identical answers from ``a`` and ``b`` (which must differ)."""
    assert a != b, "the pair must differ in some hidden information"
    for first, second in zip(
        answers(module, a, seat, actions), answers(module, b, seat, actions), strict=True
    ):
        assert first == second, f"{seat} can tell the states apart:\n{first}\n{second}"
