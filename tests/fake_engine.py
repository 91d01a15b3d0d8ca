"""A tiny engine, "counter", that tests the game store through the engine contract.

Two seats, ``north`` and ``south``. Setup shuffles a deck of 12 secret cards
(``card-00`` .. ``card-11``) from the seed and deals one to each seat: a seat sees its
own card, never the other's nor the deck; the referee sees everything.

Actions (``apply(state, actor, action)``):

* ``{"type": "add", "amount": 1..3}``: the seat whose turn it is adds to the count;
  the turn passes. Reaching ``target`` (option, default 10) finishes the game.
  Not your turn -> 409 ``not-your-turn``; a bad amount -> 422 ``invalid-amount``.
* ``{"type": "tick"}``: any seat or the referee, at any time: count + 1 (no turn).
* ``{"type": "draw"}``: the seat whose turn it is draws the top card of the deck
  (its card is replaced; the turn does not pass). Empty deck -> 409 ``deck-empty``.
* ``{"type": "penalty", "seat": s}``: referee only (403 ``referee-only``): seat ``s``
  loses its turn.
* ``{"type": "resign"}`` (a seat): the other seat wins.

Options: ``target`` (int 1..1000), ``first`` ("north"/"south"), ``referee_moves``
(bool, default true: the referee may tick; false refuses every referee action with
403 ``referee-not-allowed``, as a server-mode engine would), ``idle_seconds`` (int
>= 1 or null, default null: see :func:`idle_events`).

The engine contract's additions of this release, in miniature:
:func:`start_from_position` (a game whose count starts where the position says) and
:func:`idle_events` (a seat idle for ``idle_seconds`` loses its turn:
``turn-timed-out``).
"""
from __future__ import annotations

import copy

from service.games import RuleViolation
from service.games.rng import shuffle

SEATS = ["north", "south"]
DECK = [f"card-{i:02d}" for i in range(12)]

CATALOG = {
    "counter": {
        "title": "Counter (test engine)",
        "rules": "tests/fake_engine.py",
        "seats": SEATS,
        "players": [2],
        "options": [
            {"name": "target", "type": "integer", "default": 10},
            {"name": "first", "type": "string", "default": "north", "choices": SEATS},
            {"name": "referee_moves", "type": "boolean", "default": True},
            {"name": "idle_seconds", "type": "integer", "default": None},
        ],
    },
}


def _options(options: dict) -> dict:
    known = {"target", "first", "referee_moves", "idle_seconds"}
    unknown = set(options) - known
    if unknown:
        raise RuleViolation("invalid-option", f"unknown option {sorted(unknown)[0]!r}", 422)
    target = options.get("target", 10)
    if not isinstance(target, int) or isinstance(target, bool) or not 1 <= target <= 1000:
        raise RuleViolation("invalid-option", "target must be an integer 1..1000", 422)
    first = options.get("first", "north")
    if first not in SEATS:
        raise RuleViolation("invalid-option", "first must be north or south", 422)
    referee_moves = options.get("referee_moves", True)
    if not isinstance(referee_moves, bool):
        raise RuleViolation("invalid-option", "referee_moves must be a boolean", 422)
    idle = options.get("idle_seconds")
    if idle is not None and (not isinstance(idle, int) or isinstance(idle, bool) or idle < 1):
        raise RuleViolation("invalid-option", "idle_seconds must be an integer >= 1", 422)
    normal = {"target": target, "first": first, "referee_moves": referee_moves}
    if idle is not None:  # absent when unset: games stored before the option stay as they are
        normal["idle_seconds"] = idle
    return normal


def new_game(game: str, options: dict, seed: str) -> list[dict]:
    """Setup events: game-created (options, seats, seed), shuffled (deck), 2 x dealt."""
    opts = _options(options)
    deck = shuffle(DECK, seed, "deck")
    return [
        {"type": "game-created", "seat": None, "game": game, "options": opts,
         "seats": SEATS, "seed": seed},
        {"type": "shuffled", "seat": None, "deck": deck},
        {"type": "dealt", "seat": "north", "card": deck[0]},
        {"type": "dealt", "seat": "south", "card": deck[1]},
    ]


def start_from_position(game: str, options: dict, seed: str, position: dict) -> list[dict]:
    """Setup events of a game starting from ``position`` ``{"game": "counter",
    "count": 0..target-1}``: game-created (``from_position``), shuffled, position-set,
    2 x dealt. RuleViolation ``invalid-position`` (422, ``extra.field``)."""
    events = new_game(game, options, seed)
    count = position.get("count") if isinstance(position, dict) else None
    target = events[0]["options"]["target"]
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count < target:
        raise RuleViolation("invalid-position", "count must be 0 to target - 1", 422,
                            extra={"field": "count"})
    events[0]["from_position"] = True
    return [events[0], events[1],
            {"type": "position-set", "seat": None,
             "position": {"game": "counter", "count": count}}, *events[2:]]


def idle_events(state: dict, since: float, now: float) -> list[dict]:
    """The seat whose turn it is, idle for ``idle_seconds`` (option) since ``since``,
    loses its turn: ``turn-timed-out`` {seat, at, since}; [] otherwise."""
    idle = state["options"].get("idle_seconds")
    if idle is None or state["status"] != "active" or now - since < idle:
        return []
    return [{"type": "turn-timed-out", "seat": state["turn"], "at": now, "since": since}]


def fold(state: dict | None, event: dict) -> dict:
    """The state after one event (a new dict; ``state`` is not mutated)."""
    kind = event["type"]
    if kind == "game-created":
        opts = event["options"]
        return {"status": "active", "seats": list(event["seats"]), "seed": event["seed"],
                "options": opts, "target": opts["target"], "turn": opts["first"],
                "count": 0, "deck": [], "cards": {}, "result": None, "penalised": []}
    new = copy.deepcopy(state)
    if kind == "shuffled":
        new["deck"] = list(event["deck"])
    elif kind in ("dealt", "drew"):
        new["deck"].remove(event["card"])
        new["cards"][event["seat"]] = event["card"]
    elif kind == "added":
        new["count"] = event["count"]
        new["turn"] = _other(event["seat"])
    elif kind in ("ticked", "position-set"):
        new["count"] = event["count"] if kind == "ticked" else event["position"]["count"]
    elif kind == "turn-timed-out":
        new["turn"] = _other(event["seat"])
    elif kind == "penalised":
        new["turn"] = _other(event["target"])
        new["penalised"].append(event["target"])
    elif kind == "game-ended":
        new["status"] = "finished"
        new["result"] = event["result"]
        new["turn"] = None
    return new


def _other(seat: str) -> str:
    return SEATS[1 - SEATS.index(seat)]


def _ended(state: dict, winner: str, reason: str, count: int) -> dict:
    """The contract's end event: ``game-ended`` {"result": RESULT}."""
    return {"type": "game-ended", "seat": None, "result": {
        "winners": [winner], "scores": {seat: int(seat == winner) for seat in SEATS},
        "reason": reason, "counter": {"count": count}}}


def apply(state: dict, actor: str, action: dict) -> list[dict]:
    """The events ``action`` by ``actor`` causes; RuleViolation when refused."""
    if state["status"] != "active":
        raise RuleViolation("game-over", "the game is finished")
    kind = action.get("type")
    if actor == "referee":
        return _referee(state, action)
    if kind == "tick":
        return [{"type": "ticked", "seat": actor, "count": state["count"] + 1}]
    if kind == "resign":
        return [_ended(state, _other(actor), "resigned", state["count"])]
    if kind not in ("add", "draw"):
        raise RuleViolation("unknown-action", f"unknown action {kind!r}", 422)
    if state["turn"] != actor:
        raise RuleViolation("not-your-turn", f"it is {state['turn']}'s turn")
    if kind == "draw":
        if not state["deck"]:
            raise RuleViolation("deck-empty", "the deck is empty")
        return [{"type": "drew", "seat": actor, "card": state["deck"][0]}]
    amount = action.get("amount")
    if not isinstance(amount, int) or isinstance(amount, bool) or not 1 <= amount <= 3:
        raise RuleViolation("invalid-amount", "amount must be 1, 2 or 3", 422)
    count = state["count"] + amount
    events = [{"type": "added", "seat": actor, "amount": amount, "count": count}]
    if count >= state["target"]:
        events.append(_ended(state, actor, "target", count))
    return events


def _referee(state: dict, action: dict) -> list[dict]:
    if not state["options"]["referee_moves"]:
        raise RuleViolation("referee-not-allowed", "the referee does not act in this game", 403)
    kind = action.get("type")
    if kind == "tick":
        return [{"type": "ticked", "seat": None, "count": state["count"] + 1}]
    if kind == "penalty":
        target = action.get("seat")
        if target not in SEATS:
            raise RuleViolation("invalid-seat", "penalty names a seat", 422)
        return [{"type": "penalised", "seat": None, "target": target}]
    raise RuleViolation("unknown-action", f"the referee cannot {kind!r}", 422)


def view(state: dict, viewer: str | None) -> dict:
    """Public fields; a seat's own card; everything (deck, seed, cards) for the referee."""
    public = {k: state[k] for k in ("status", "seats", "target", "turn", "count", "result")}
    public["deck_size"] = len(state["deck"])
    if viewer == "referee":
        return {**public, "cards": dict(state["cards"]), "deck": list(state["deck"]),
                "penalised": list(state["penalised"])}
    if viewer in state["seats"]:
        return {**public, "card": state["cards"].get(viewer)}
    return public


def view_event(state: dict, event: dict, viewer: str | None) -> dict | None:
    """The event as ``viewer`` may see it: the seed and deck for the referee only
    (``shuffled`` is dropped for everyone else), a dealt/drawn card for its seat only."""
    if viewer == "referee":
        return dict(event)
    kind = event["type"]
    if kind == "shuffled":
        return None
    if kind == "game-created":
        return {k: v for k, v in event.items() if k != "seed"}
    if kind in ("dealt", "drew") and event["seat"] != viewer:
        return {k: v for k, v in event.items() if k != "card"}
    return dict(event)


def legal_actions(state: dict, viewer: str) -> list[dict]:
    """Every action body ``apply`` accepts from ``viewer`` now."""
    if state["status"] != "active":
        return []
    if viewer == "referee":
        if not state["options"]["referee_moves"]:
            return []
        return [{"type": "tick"}] + [{"type": "penalty", "seat": s} for s in SEATS]
    actions = [{"type": "tick"}, {"type": "resign"}]
    if state["turn"] == viewer:
        actions = [{"type": "add", "amount": n} for n in (1, 2, 3)] + actions
        if state["deck"]:
            actions.append({"type": "draw"})
    return actions


def create_app():
    """The service with "counter" registered, for gunicorn in tests
    (``gunicorn --pythonpath tests 'fake_engine:create_app()'``). Test servers only."""
    from service import create_app as create_service
    from service import games

    games.ENGINE_MODULES.setdefault("counter", "fake_engine")
    return create_service()
