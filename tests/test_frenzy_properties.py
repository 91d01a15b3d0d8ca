"""Solitaire Frenzy properties over random games (hypothesis): every game ends, nothing
is lost or doubled, SF-E1 never ends a round where someone could still move, and
nothing a seat receives depends on information hidden from it.

The SF-E1 oracle here is independent of the engine: it turns each seat's real hand
and waste through their whole cycle (the cards in their true, hidden order) and
collects every card that reaches the top.
"""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noninterference import assert_same_answers
from service.cards import DECK, RANKS, colour, rank_value, suit
from service.games import solitaire_frenzy as sf

SEEDS = st.binary(min_size=32, max_size=32).map(bytes.hex)
OPTIONS = st.fixed_dictionaries(
    {"one_pile_per_suit": st.booleans(), "play_order": st.sampled_from(["free", "strict"])}
)
MAX_ACTIONS = 60_000  # a guard far above any real game (a few thousand actions)


# ----- an independent SF-E1 oracle ---------------------------------------------------


def exact_reach(layout: dict) -> set[str]:
    """Every card that turning reaches as the waste top, from the real hidden order."""
    hand, waste = list(layout["hand"]), list(layout["waste"])
    tops = {waste[-1]} if waste else set()
    seen = set()
    while (hand_key := (tuple(hand), tuple(waste))) not in seen:
        seen.add(hand_key)
        if not hand:
            hand, waste = waste, []
        if not hand:
            break
        group, hand = hand[:3], hand[3:]
        waste += group
        tops.add(group[-1])
    return tops


VALUE = {card: rank_value(card) for card in DECK}
COLOUR = {card: colour(card) for card in DECK}


def _board_takes(state: dict):
    """A predicate: does the board take this card now (SF-F1)?"""
    tops = {(p["suit"], VALUE[p["cards"][-1]["card"]]) for p in state["foundations"]}
    blocked = {s for s, v in tops if v < 13} if state["options"]["one_pile_per_suit"] else set()
    return lambda card: (
        (suit(card), VALUE[card] - 1) in tops if VALUE[card] > 1 else suit(card) not in blocked
    )


def _on_column(card: str, onto: str) -> bool:
    return COLOUR[card] != COLOUR[onto] and VALUE[card] == VALUE[onto] - 1


def exact_can_move(state: dict, seat: str) -> bool:
    """SF-E1 as the rule reads, with full knowledge of the hidden order."""
    layout = state["layouts"][seat]
    columns = [c for c in layout["columns"] if c]
    gap = len(columns) < 4
    on_board = _board_takes(state)

    def plays(card: str) -> bool:
        return gap or on_board(card) or any(_on_column(card, c[-1]) for c in columns)

    candidates = exact_reach(layout) | ({layout["pile"][-1]} if layout["pile"] else set())
    return (
        any(plays(card) for card in candidates)
        or any(on_board(c[-1]) for c in columns)
        or any(_on_column(a[0], b[-1]) for a in columns for b in columns if a is not b)
    )


# ----- invariants ----------------------------------------------------------------------


def check_invariants(state: dict, seats: list[str]) -> None:
    """Foundations are Ace-up suit runs; for ``seats`` (those whose layout changed): 52
    cards conserved, columns valid builds, the seen pass equal to the real reach; and
    no active seat that could really move is counted as stuck."""
    for pile in state["foundations"]:
        cards = [entry["card"] for entry in pile["cards"]]
        assert cards == [r + pile["suit"] for r in RANKS[: len(cards)]], pile
    if state["options"]["dealing"] != "server" or state["status"] != "active":
        return
    for seat in set(seats) & set(state["active"]):
        layout = state["layouts"][seat]
        mine = [e["card"] for p in state["foundations"] for e in p["cards"] if e["seat"] == seat]
        held = layout["pile"] + sum(layout["columns"], []) + layout["hand"] + layout["waste"]
        assert sorted(held + mine) == sorted(DECK), f"{seat}'s 52 cards"
        for column in layout["columns"]:
            assert all(_on_column(a, b) for b, a in zip(column, column[1:])), column
        if layout["reach"] is not None:
            assert set(layout["reach"]) == exact_reach(layout), "the seen pass is the reach"
    for seat in state["active"]:
        assert sf.can_move(state, seat) or not exact_can_move(state, seat), (
            f"{seat} could move but counts as stuck"
        )


def play_random(
    seed: str,
    players: int,
    rng: random.Random,
    options: dict,
    retire_rate: float = 0.0,
    steps: int | None = None,
) -> tuple[dict, list[dict]]:
    """Random legal actions of random seats (and, rarely, a referee retiring one)."""
    log = sf.new_game(sf.GAME, {"players": players, **options}, seed)
    state = sf.fold_all(None, log)
    count = 0
    while state["status"] == "active" and (steps is None or count < steps):
        count += 1
        assert count < MAX_ACTIONS, "the game does not end"
        actor = "referee" if rng.random() < retire_rate else rng.choice(state["active"])
        actions = sf.legal_actions(state, actor)
        if not actions:  # a seat with nothing to play or turn waits for the others
            movers = [s for s in state["active"] if sf.legal_actions(state, s)]
            assert movers, "nobody has anything to do, yet the round goes on"
            actor = rng.choice(movers)
            actions = sf.legal_actions(state, actor)
        events = sf.apply(state, actor, rng.choice(actions))
        before_end = state
        state = sf.fold_all(state, events)
        log += events
        ended = [e for e in events if e["type"] == "round-ended"]
        if ended and ended[0]["reason"] == "stuck":
            mid = sf.fold_all(before_end, events[: events.index(ended[0])])
            assert not any(exact_can_move(mid, s) for s in mid["active"]), "ended early"
        renewed = any(e["type"] == "round-started" for e in events)
        check_invariants(state, state["active"] if renewed else [actor])
    return state, log


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, players=st.integers(2, 6), options=OPTIONS, client=st.integers(0, 2**32))
def test_sf_e1_every_random_game_ends_after_all_its_rounds(seed, players, options, client):
    """SF-E1/SF-E2: random games through legal_actions finish all three rounds; every
    step keeps each seat's 52 cards, every foundation an Ace-up suit run, and a round
    never ends while a seat could still move; replaying the log gives the state."""
    state, log = play_random(seed, players, random.Random(client), options)
    assert state["status"] == "finished"
    ended = [e for e in log if e["type"] == "round-ended"]
    assert [e["round"] for e in ended] == [1, 2, 3]
    assert all(e["reason"] in ("out", "stuck") for e in ended)
    assert state["result"]["reason"] == "rounds-played"
    assert state["result"]["scores"] == {
        s: sum(e["scores"][s] for e in ended) for s in state["seats"]
    }
    assert sf.fold_all(None, json.loads(json.dumps(log))) == state


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, players=st.integers(2, 6), client=st.integers(0, 2**32))
def test_sf_e3_random_retirements_still_end_every_game(seed, players, client):
    state, log = play_random(seed, players, random.Random(client), {}, retire_rate=0.002)
    assert state["status"] == "finished"
    winners = state["result"]["winners"]
    assert winners and set(winners) <= set(state["active"])


# ----- non-interference -------------------------------------------------------------


def _hidden_places(layout: dict) -> list[tuple[str, int]]:
    return (
        [("pile", i) for i in range(len(layout["pile"]) - 1)]
        + [("hand", i) for i in range(len(layout["hand"]))]
        + [("waste", i) for i in range(len(layout["waste"]) - 1)]
    )


def _revealed_by(layout: dict) -> set[tuple[str, int]]:
    """The hidden places an action of the seat itself may turn face up: the next
    13-pile card, the waste card below the top, the top of the next turn."""
    out = set()
    if len(layout["pile"]) > 1:
        out.add(("pile", len(layout["pile"]) - 2))
    if len(layout["waste"]) > 1:
        out.add(("waste", len(layout["waste"]) - 2))
    source = "hand" if layout["hand"] else "waste"
    if layout[source]:
        out.add((source, min(3, len(layout[source])) - 1))
    return out


def reshuffle_hidden(state: dict, viewer: str, rng: random.Random) -> dict:
    """The same public position with every seat's hidden cards (13-pile below the top,
    hand, waste below the top) in other places and orders, except the places the
    viewer's next action may itself reveal."""
    state = json.loads(json.dumps(state))
    for seat, layout in state["layouts"].items():
        if layout is None:
            continue
        fixed = _revealed_by(layout) if seat == viewer else set()
        places = [p for p in _hidden_places(layout) if p not in fixed]
        cards = [layout[part][i] for part, i in places]
        rng.shuffle(cards)
        for (part, i), card in zip(places, cards):
            layout[part][i] = card
    return state


def candidate_actions(state: dict, seat: str) -> list[dict]:
    """What a seat might send: its legal actions and a wide net of refused ones (every
    card of its deck to every target)."""
    number = state["round"]
    out = list(sf.legal_actions(state, seat)) + [
        {"type": "turn", "round": number},
        {"type": "turn", "round": number - 1},
    ]
    for card in DECK:
        base = {"type": "play", "round": number, "card": card}
        out.append({**base, "to": "foundation", "based_on": "new"})
        out += [
            {**base, "to": "foundation", "pile": p["id"], "based_on": p["cards"][-1]["card"]}
            for p in state["foundations"]
        ]
        out += [{**base, "to": "column", "column": j} for j in range(4)]
        out += [{"type": "refill", "round": number, "card": card, "column": j} for j in range(4)]
    out += [
        {"type": "move", "round": number, "from_column": i, "to_column": j}
        for i in range(4)
        for j in range(4)
        if i != j
    ]
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=SEEDS,
    players=st.integers(2, 6),
    options=OPTIONS,
    steps=st.integers(0, 900),
    client=st.integers(0, 2**32),
    viewer_index=st.integers(0, 5),
)
def test_g_m1_nothing_a_seat_receives_depends_on_hidden_cards(
    seed, players, options, steps, client, viewer_index
):
    """G-M1 non-interference: two positions that differ only in cards hidden from a
    seat (other seats' face-down 13-pile cards, hands and covered waste cards, and its
    own, which it cannot see either) give that seat byte-identical answers: view,
    legal actions, and the outcome of everything it might send, refusals and their
    details included; the SF-E1 check after each action too."""
    choices = random.Random(client)
    state, _ = play_random(seed, players, choices, options, steps=steps)
    if state["status"] != "active":
        return
    viewer = state["active"][viewer_index % len(state["active"])]
    other = reshuffle_hidden(state, viewer, choices)
    if other == state:  # nothing hidden could move (tiny hidden sets)
        return
    for v in ("referee", None):
        assert json.dumps(sf.view(state, v)) == json.dumps(sf.view(other, v))
    assert_same_answers(sf, viewer, state, other, candidate_actions(state, viewer))
