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
403 ``referee-not-allowed``, as a server-mode engine would), ``idle_seconds`` (int >= 1
or null, default null: G-T1, the seat on turn that long loses its turn,
``turn-timed-out``).

The contract's additions: ``start_from_position`` (G-P1; a position is
``{"game": "counter", "count", "turn", "cards"?: {seat: card}, "deck"?: [card...]}``,
what it leaves out dealt from the seed), ``position`` and ``idle_events`` (G-T1).
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
        raise RuleViolation("invalid-option", "idle_seconds is an integer >= 1 or null", 422)
    return {"target": target, "first": first, "referee_moves": referee_moves, "idle_seconds": idle}


def new_game(game: str, options: dict, seed: str) -> list[dict]:
    """Setup events: game-created (options, seats, seed), shuffled (deck), 2 x dealt."""
    opts = _options(options)
    deck = shuffle(DECK, seed, "deck")
    return [
        {
            "type": "game-created",
            "seat": None,
            "game": game,
            "options": opts,
            "seats": SEATS,
            "seed": seed,
        },
        {"type": "shuffled", "seat": None, "deck": deck},
        {"type": "dealt", "seat": "north", "card": deck[0]},
        {"type": "dealt", "seat": "south", "card": deck[1]},
    ]


def fold(state: dict | None, event: dict) -> dict:
    """The state after one event (a new dict; ``state`` is not mutated)."""
    kind = event["type"]
    if kind == "game-created":
        opts = event["options"]
        return {
            "status": "active",
            "seats": list(event["seats"]),
            "seed": event["seed"],
            "game": event["game"],
            "options": opts,
            "target": opts["target"],
            "turn": opts["first"],
            "count": 0,
            "deck": [],
            "cards": {},
            "result": None,
            "penalised": [],
            "from_position": bool(event.get("from_position")),
            "timeouts": [],
        }
    new = copy.deepcopy(state)
    if kind == "shuffled":
        new["deck"] = list(event["deck"])
    elif kind in ("dealt", "drew"):
        new["deck"].remove(event["card"])
        new["cards"][event["seat"]] = event["card"]
    elif kind == "added":
        new["count"] = event["count"]
        new["turn"] = _other(event["seat"])
    elif kind == "ticked":
        new["count"] = event["count"]
    elif kind == "position-set":
        new["count"] = event["position"]["count"]
        new["turn"] = event["position"]["turn"]
    elif kind == "turn-timed-out":
        new["turn"] = _other(event["seat"])
        new["timeouts"].append({"seat": event["seat"], "at": event["at"], "since": event["since"]})
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
    return {
        "type": "game-ended",
        "seat": None,
        "result": {
            "winners": [winner],
            "scores": {seat: int(seat == winner) for seat in SEATS},
            "reason": reason,
            "counter": {"count": count},
        },
    }


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
    public = {
        k: state[k]
        for k in ("status", "seats", "target", "turn", "count", "result", "from_position")
    }
    public["deck_size"] = len(state["deck"])
    public["timeouts"] = len(state["timeouts"])
    if viewer == "referee":
        return {
            **public,
            "cards": dict(state["cards"]),
            "deck": list(state["deck"]),
            "penalised": list(state["penalised"]),
        }
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
    if kind == "position-set":
        stated = {k: v for k, v in event["position"].items() if k != "deck"}
        stated["cards"] = {
            seat: card if seat == viewer else None for seat, card in stated["cards"].items()
        }
        return {**event, "position": stated}
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


# ----- G-P1: positions; G-T1: idle seats ---------------------------------------------


def _bad_position(field: str, detail: str) -> RuleViolation:
    return RuleViolation("invalid-position", detail, 422, rule="G-P1", extra={"field": field})


def start_from_position(game: str, options: dict, seed: str, position: dict) -> list[dict]:
    """G-P1: the setup events of a game started at ``position``: game-created (with
    ``from_position``), position-set (the position as stated, normalised), shuffled
    (the deck: as stated, or what no seat holds shuffled from the seed), then a
    ``dealt`` per seat whose card the position leaves out. RuleViolation
    ``invalid-position`` (422, rule G-P1, ``field``) for a position no play reaches."""
    opts = _options(options)
    if not isinstance(position, dict) or position.get("game") != game:
        raise _bad_position("game", f"the position is not one of {game!r}")
    unknown = set(position) - {"game", "count", "turn", "cards", "deck"}
    if unknown:
        raise _bad_position(sorted(unknown)[0], "unknown member")
    count = position.get("count")
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count < opts["target"]:
        raise _bad_position("count", "count is 0 to target - 1")
    if position.get("turn") not in SEATS:
        raise _bad_position("turn", "the turn is held by a seat")
    cards = position.get("cards", {})
    if not isinstance(cards, dict) or set(cards) - set(SEATS):
        raise _bad_position("cards", "cards is {seat: card}")
    for seat, card in cards.items():
        if card not in DECK:
            raise _bad_position(f"cards.{seat}", "not a card of the deck")
    if len(set(cards.values())) != len(cards):
        raise _bad_position("cards", "a card twice")
    rest = [card for card in DECK if card not in cards.values()]
    deck = position.get("deck")
    if deck is None:
        deck = shuffle(rest, seed, "deck")
        dealt = [seat for seat in SEATS if seat not in cards]
    else:
        dealt = []
        if not isinstance(deck, list) or sorted(deck) != sorted(rest) or len(cards) != 2:
            raise _bad_position("deck", "every card exactly once, each seat holding one")
    stated = {"game": game, "count": count, "turn": position["turn"], "cards": dict(cards)}
    if position.get("deck") is not None:
        stated["deck"] = list(deck)
    events = [
        {
            "type": "game-created",
            "seat": None,
            "game": game,
            "options": opts,
            "seats": SEATS,
            "seed": seed,
            "from_position": True,
        },
        {"type": "position-set", "seat": None, "position": stated},
        {"type": "shuffled", "seat": None, "deck": list(deck) + list(cards.values())},
    ]
    events += [
        {"type": "dealt", "seat": seat, "card": cards[seat]} for seat in SEATS if seat in cards
    ]
    events += [{"type": "dealt", "seat": seat, "card": deck[i]} for i, seat in enumerate(dealt)]
    return events


def position(state: dict, viewer: str | None) -> dict:
    """G-P1: the position as ``viewer`` may see it (a seat: its own card, the other's
    as null; the referee, or anyone once the game is over: every card and the deck)."""
    everything = viewer == "referee" or state["status"] != "active"
    cards = {
        seat: card if everything or seat == viewer else None
        for seat, card in state["cards"].items()
    }
    out = {"game": state["game"], "count": state["count"], "turn": state["turn"], "cards": cards}
    if everything:
        out["deck"] = list(state["deck"])
    return out


def idle_events(state: dict, since: float, now: float) -> list[dict]:
    """G-T1: the seat on turn for ``idle_seconds`` loses it (``turn-timed-out``)."""
    idle = state["options"].get("idle_seconds")
    if idle is None or state["status"] != "active" or now - since < idle:
        return []
    return [{"type": "turn-timed-out", "seat": state["turn"], "at": now, "since": since}]


def create_app():
    """The service with "counter" registered, for gunicorn in tests
    (``gunicorn --pythonpath tests 'fake_engine:create_app()'``). Test servers only."""
    from service import create_app as create_service
    from service import games

    games.ENGINE_MODULES.setdefault("counter", "fake_engine")
    return create_service()
