"""Halves state: events -> state (the fold) and the queries on a state."""

from __future__ import annotations

from service.games.halves.cards import laid, matches
from service.games.halves.options import GAME
from service.games.halves.state import CentreEntry, Counts, Event, HalvesState
from service.games.rng import shuffle

HAND = 4  # HV-P1 / HV-T2: cards taken in hand, and the most a hand holds


def _created_state(event: Event) -> HalvesState:
    options, seats, deck = event["options"], list(event["seats"]), list(event["deck"])
    server = options["dealing"] == "server"
    first = seats.index(options["first_seat"])
    return {
        "game": GAME,
        "options": options,
        "seed": event["seed"],
        "status": "active",
        "phase": "deal",
        "result": None,
        "seats": seats,
        "retired": {},
        "deck": deck,
        "box": shuffle(deck, event["seed"], "deal") if server else [None] * len(deck),
        "hands": {s: [] for s in seats},
        "piles": {s: [] for s in seats},
        "centre": [],
        "streak": 0,
        "turner": seats[(first + 1) % len(seats)],
        "counts": {
            "plays": 0,
            "draws": 0,
            "top_up_draws": 0,
            "bottom_card_moves": 0,
            "pile_turns": 0,
        },
        "from_position": bool(event.get("from_position", False)),
        "timed_out": [],
    }


def _lists(places: dict[str, list[str | None]]) -> dict[str, list[str | None]]:
    """Hands or piles, with a fresh list per seat (the fold never mutates a state)."""
    return {seat: cards[:] for seat, cards in places.items()}


def _take(cards: list[str | None], card: str | None) -> None:
    """Remove the front card of ``cards`` (a pile, the box), which must be ``card``;
    in table mode the front is an unknown card (None) and any report fits it."""
    if not cards or cards[0] not in (None, card):
        raise ValueError(f"event takes {card!r} but the top is {cards[:1]!r}")
    del cards[0]


def _fold_dealt(s: HalvesState, e: Event) -> HalvesState:
    s = {**s, "box": s["box"][:], "hands": _lists(s["hands"]), "piles": _lists(s["piles"])}
    cards = e.get("cards") or [None] * e["count"]
    for card in cards:
        _take(s["box"], card)
    s["hands"][e["seat"]] = cards[:HAND]
    s["piles"][e["seat"]] = cards[HAND:]
    return s


def _fold_pile_turned(s: HalvesState, e: Event) -> HalvesState:
    s = {**s, "piles": _lists(s["piles"]), "centre": s["centre"][:], "counts": s["counts"].copy()}
    s["timed_out"] = []  # a new top (G-T1 holds for the top it was judged on)
    seats = s["seats"]
    _take(s["piles"][e["seat"]], e["card"])
    s["centre"].append({"card": e["card"], "turned": e["turned"]})
    if e["rule"] == "HV-T5":
        s["streak"] += 1
        s["counts"]["pile_turns"] += 1
        s["turner"] = seats[(seats.index(e["seat"]) + 1) % len(seats)]
    else:
        s["phase"] = "play"
    return s


def _fold_drawn(s: HalvesState, e: Event) -> HalvesState:
    s = {
        **s,
        "hands": _lists(s["hands"]),
        "piles": _lists(s["piles"]),
        "counts": s["counts"].copy(),
    }
    _take(s["piles"][e["seat"]], e["card"])
    s["hands"][e["seat"]].append(e["card"])
    if not e["top_up"]:  # the seat acted (G-T1)
        s["timed_out"] = [x for x in s.get("timed_out", []) if x != e["seat"]]
    s["streak"] = 0
    s["counts"]["top_up_draws" if e["top_up"] else "draws"] += 1
    return s


def _fold_played(s: HalvesState, e: Event) -> HalvesState:
    s = {**s, "hands": _lists(s["hands"]), "centre": s["centre"][:], "counts": s["counts"].copy()}
    hand = s["hands"][e["seat"]]
    hand.remove(e["card"] if e["card"] in hand else None)
    s["centre"].append({"card": e["card"], "turned": e["turned"]})
    s["timed_out"] = []
    s["streak"] = 0
    s["counts"]["plays"] += 1
    return s


def _fold_bottom_moved(s: HalvesState, e: Event) -> HalvesState:
    s = {**s, "centre": s["centre"][:], "counts": s["counts"].copy()}
    bottom = s["centre"].pop(0)
    if bottom["card"] != e["card"]:
        raise ValueError(f"event moves {e['card']!r} but the bottom is {bottom['card']!r}")
    s["centre"].append(bottom)
    s["timed_out"] = []
    s["streak"] += 1
    s["counts"]["bottom_card_moves"] += 1
    return s


def _fold_retired(s: HalvesState, e: Event) -> HalvesState:
    s = {
        **s,
        "hands": _lists(s["hands"]),
        "piles": _lists(s["piles"]),
        "box": s["box"][:],
        "retired": dict(s["retired"]),
    }
    seat = e["seat"]
    s["box"] += s["hands"][seat] + s["piles"][seat]
    s["hands"][seat], s["piles"][seat] = [], []
    s["retired"][seat] = e["cards"]
    s["timed_out"] = [x for x in s.get("timed_out", []) if x != seat]
    return s


def _fold_position_set(s: HalvesState, e: Event) -> HalvesState:
    """G-P1: the stated position (``placed``: every hand, pile and the box, as lists of
    cards in server mode, as counts in table mode, where the cards are unknown)."""
    placed, stated = e["placed"], e["position"]

    def cards(value: list[str] | int) -> list[str | None]:
        return list(value) if isinstance(value, list) else [None] * value

    given = stated["counts"]  # every name of the record (positions.COUNTS)
    counts: Counts = {
        "plays": given["plays"],
        "draws": given["draws"],
        "top_up_draws": given["top_up_draws"],
        "bottom_card_moves": given["bottom_card_moves"],
        "pile_turns": given["pile_turns"],
    }

    return {
        **s,
        "phase": "play",
        "hands": {seat: cards(placed["hands"][seat]) for seat in s["seats"]},
        "piles": {seat: cards(placed["piles"][seat]) for seat in s["seats"]},
        "box": cards(placed["box"]),
        "centre": [{"card": x["card"], "turned": x["turned"]} for x in placed["centre"]],
        "retired": dict(stated["retired"]),
        "streak": stated["in_a_row"],
        "turner": stated["pile_turns_from"],
        "counts": counts,
        "timed_out": list(stated.get("timed_out", [])),
    }


def _fold_timed_out(s: HalvesState, e: Event) -> HalvesState:
    """G-T1: the seat is treated as unable to play on the current top (HV-T4)."""
    return {**s, "timed_out": [*s.get("timed_out", []), e["seat"]]}


def _fold_ended(s: HalvesState, e: Event) -> HalvesState:
    return {**s, "status": "finished", "result": e["result"]}


_FOLDS = {
    "dealt": _fold_dealt,
    "pile-turned": _fold_pile_turned,
    "drawn": _fold_drawn,
    "played": _fold_played,
    "bottom-card-moved": _fold_bottom_moved,
    "seat-retired": _fold_retired,
    "game-ended": _fold_ended,
    "position-set": _fold_position_set,
    "seat-timed-out": _fold_timed_out,
}


def fold(state: HalvesState | None, event: Event) -> HalvesState:
    """The state after ``event`` (never mutates ``state``); ``fold(None, created)`` is
    the initial state. Raises ValueError for an event that does not fit."""
    if event["type"] == "game-created":
        return _created_state(event)
    if state is None:
        raise ValueError("the first event must be game-created")
    return _FOLDS[event["type"]](state, event)


def emit(events: list[Event], state: HalvesState, event: Event) -> HalvesState:
    """Record ``event`` in ``events``; the state after it."""
    events.append(event)
    return fold(state, event)


# ===== state queries =====


def active_seats(state: HalvesState) -> list[str]:
    """Seats still in the game (not retired, HV-T6), in seat order."""
    return [s for s in state["seats"] if s not in state["retired"]]


def top(state: HalvesState) -> CentreEntry | None:
    """The central pile's top ``{"card", "turned"}``, or None before the start."""
    return state["centre"][-1] if state["centre"] else None


def top_entry(state: HalvesState) -> CentreEntry:
    """The top once play has started (the starting card is down, HV-P2)."""
    return state["centre"][-1]


def top_halves(state: HalvesState) -> tuple[str, str]:
    entry = top_entry(state)
    return laid(entry["card"], entry["turned"])


def cards_left(state: HalvesState, seat: str) -> int:
    """A seat's cards: pile + hand (HV-E1); for a retired seat, when it retired."""
    if seat in state["retired"]:
        return state["retired"][seat]
    return len(state["hands"][seat]) + len(state["piles"][seat])


def known(cards: list[str | None]) -> list[str]:
    """The cards of a hand or pile the service knows (all of them in server dealing,
    G-M1; none in table dealing, HV-M1)."""
    return [card for card in cards if card is not None]


def orientations(state: HalvesState) -> tuple[bool, ...]:
    return (False, True) if state["options"]["allow_turning"] else (False,)


def can_play(state: HalvesState, seat: str) -> bool:
    """HV-T4: a hand card of ``seat`` matches the top in an allowed orientation
    (server mode: the hands are known)."""
    top_laid, rule = top_halves(state), state["options"]["match"]
    return any(
        matches(top_laid, laid(card, turned), rule)
        for card in known(state["hands"][seat])
        for turned in orientations(state)
    )


def someone_can_play(state: HalvesState) -> bool:
    """HV-T4 with G-T1: an active seat not timed out on this top can play on it."""
    timed_out = state.get("timed_out", [])
    return any(can_play(state, s) for s in active_seats(state) if s not in timed_out)


def public_cards(state: HalvesState) -> set[str]:
    """Cards known to be out of every hand and pile: the centre (G-M2)."""
    return {entry["card"] for entry in state["centre"]}
