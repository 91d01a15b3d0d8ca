"""G-M1/G-M2 for Sequence and Sequence Numbers: a seat's answers never depend on the
other hands or on the deck (tests/noninterference.py).

States are reached by random legal play (the referee reports table draws, so every
card is where the records say); the pair's second state moves cards between the
other seats' hands and the deck (keeping, in server mode, the top card the seat's
own action would draw) and reorders the deck. Probes: the seat's legal actions and,
for many cards of the game, a draw report, a play, a removal, an exchange and a
penalty discard, plus a pass and a penalty (every draw report of every card in
table mode: the report that used to be refused as ``card-not-in-deck``).
"""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from noninterference import assert_same_answers
from service.games import sequence as sq

SETUPS = {
    "sequence": [{"dealing": "table"}, {"players": 3}, {"players": 4, "dealing": "table"}],
    "sequence-numbers": [
        {"dealing": "table"},
        {"players": 4},
        {"players": 6, "sides": 3, "dealing": "table"},
    ],
}


def reach(game: str, options: dict, seed: str, rnd: random.Random, steps: int) -> dict:
    """A state after up to ``steps`` random legal actions."""
    state = None
    for event in sq.new_game(game, options, seed):
        state = sq.fold(state, event)
    for _ in range(steps):
        if state["status"] != "active":
            break
        movers = [
            (
                who,
                [
                    a
                    for a in sq.legal_actions(state, who)
                    if a["type"] != "penalty" and (who == "referee" or a["type"] != "draw")
                ],
            )
            for who in [*state["seats"], "referee"]
        ]
        who, actions = rnd.choice([(w, a) for w, a in movers if a])
        for event in sq.apply(state, who, rnd.choice(actions)):
            state = sq.fold(state, event)
    return state


def hide_differently(state: dict, seat: str, rnd: random.Random) -> dict:
    """``state`` with other hands and the deck changed where ``seat`` cannot see."""
    other = copy.deepcopy(state)
    hands = [s for s in other["seats"] if s != seat and other["hands"][s]]
    server = other["options"]["dealing"] == "server"
    first = 1 if server else 0  # server mode: the seat's own next draw stays on top
    for _ in range(rnd.randint(1, 6)):
        if not hands:
            break
        owner = rnd.choice(hands)
        i = rnd.randrange(len(other["hands"][owner]))
        if len(other["deck"]) > first and rnd.random() < 0.7:
            j = rnd.randrange(first, len(other["deck"]))
            other["hands"][owner][i], other["deck"][j] = other["deck"][j], other["hands"][owner][i]
        else:
            second = rnd.choice(hands)
            k = rnd.randrange(len(other["hands"][second]))
            other["hands"][owner][i], other["hands"][second][k] = (
                other["hands"][second][k],
                other["hands"][owner][i],
            )
    if server:
        rest = other["deck"][1:]
        rnd.shuffle(rest)
        other["deck"][1:] = rest
    else:
        other["deck"].sort()
    return other


def probes(state: dict, seat: str, rnd: random.Random) -> list[dict]:
    cards = sorted(
        {
            c
            for place in [state["deck"], *state["hands"].values(), *state["discards"].values()]
            for c in place
        }
    )
    cell = [rnd.randrange(10), rnd.randrange(10)]
    out = [{"type": "pass"}, {"type": "penalty", "side": "green"}]
    if state["options"]["dealing"] == "table":
        out += [{"type": "draw", "card": card} for card in cards]
    for card in rnd.sample(cards, min(10, len(cards))):
        out += [
            {"type": "play", "card": card, "cell": cell},
            {"type": "remove-chip", "card": card, "cell": cell},
            {"type": "exchange-dead-card", "card": card},
            {"type": "penalty-discard", "card": card},
        ]
    legal = sq.legal_actions(state, seat)
    return out + rnd.sample(legal, min(25, len(legal)))


@pytest.mark.parametrize("game", list(SETUPS))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    seed=st.binary(min_size=32, max_size=32),
    rnd=st.randoms(use_true_random=False),
    steps=st.integers(0, 70),
)
def test_g_m1_a_seat_gets_the_same_answers_whatever_the_other_hands_and_the_deck(
    game, data, seed, rnd, steps
):
    options = data.draw(st.sampled_from(SETUPS[game]))
    state = reach(game, options, seed.hex(), rnd, steps)
    seat = rnd.choice(state["seats"])
    other = hide_differently(state, seat, rnd)
    assume(other != state)
    assert_same_answers(sq, seat, state, other, probes(state, seat, rnd))
