"""Pure rule engines, one module per game. No Flask, no SQLAlchemy, no I/O.

Every game module exposes the same contract over plain JSON-able data
(dicts, lists, str, int, bool, None), so the store can snapshot state as JSON::

    CATALOG: dict[str, dict]          # game name -> title, seats, options with defaults
    new_game(game: str, options: dict, seed: str) -> list[dict]
        # validates/normalises options (RuleViolation "invalid-option" otherwise);
        # returns the setup events: the first ("game-created") carries the options,
        # seats and seed, and fold(None, it) is the initial state; then deals...
        # ``seed`` is a hex string of >= 256 bits; all randomness derives from it
        # (service.games.rng). Folding every event from None reproduces the state.
    apply(state: dict, actor: str, action: dict) -> list[dict]
        # actor: a seat name or "referee". Returns the events the action causes
        # (never mutates state); raises RuleViolation(code, detail) when refused.
    fold(state: dict | None, event: dict) -> dict
        # the state after one event: events are the record, state is derived.
    view(state: dict, viewer: str | None) -> dict
        # what a seat ("blue"), the referee ("referee") or the public (None) may see.
    view_event(state: dict, event: dict, viewer: str | None) -> dict | None
        # the same filter applied to one event of the log.
    legal_actions(state: dict, viewer: str) -> list[dict]
        # complete action bodies that ``apply`` accepts for that viewer now.

An event is ``{"type": str, "seat": str | None, ...payload}``.
"""
from __future__ import annotations

import importlib
from types import ModuleType


class RuleViolation(Exception):
    """An action or input the rules refuse.

    ``code`` is a stable machine code (``not-your-turn``, ``space-occupied``...),
    ``detail`` a sentence for people, ``status`` the HTTP status the API uses
    (409 for a legal-looking action refused by the current state, 422 for a
    malformed one).
    """

    def __init__(self, code: str, detail: str, status: int = 409):
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.status = status


ENGINE_MODULES = {
    "two-way": "service.games.two_way",
    "sequence": "service.games.sequence",
    "sequence-numbers": "service.games.sequence",
}


def engine(game: str) -> ModuleType:
    """The engine module for a game name (``two-way``...). Raises KeyError."""
    return importlib.import_module(ENGINE_MODULES[game])
