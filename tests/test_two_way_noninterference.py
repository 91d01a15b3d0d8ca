"""G-M1 for 2-Way Cards: a seat's answers never depend on what TW-C3 hides from it
(tests/noninterference.py): the other colour's face of every tile, and which tiles
of the bag show which faces.

States are reached by random legal play with some wrong declarations, in both
dealing modes; the pair's second state gives the tiles outside the bases other
faces in the opponent's colour, and deals the bag's faces out to other tile ids
(keeping the tiles a server draw by the seat would take now). Probes: the seat's
legal actions, placements of many faces (held or not) on empty and occupied spaces,
draws, discards, and declarations of random straight lines.
"""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noninterference import assert_same_answers
from service.cards import DECK, JOKER
from service.games import two_way as tw
from service.games.two_way.deal import server_draw
from service.games.two_way.flow import draw_count
from service.play import wrong_declarations

SEATS = ("blue", "green")


def reach(options: dict, seed: str, rnd: random.Random, steps: int) -> dict:
    """A state after up to ``steps`` random legal actions (a correct declaration half
    the time it is open, a wrong one now and then)."""
    state = None
    for event in tw.new_game("two-way", options, seed):
        state = tw.fold(state, event)
    for _ in range(steps):
        if state["status"] != "active":
            break
        who = state["turn"]
        actions = [] if state["phase"] == "deal" else tw.legal_actions(state, who)
        if not actions:
            who, actions = "referee", tw.legal_actions(state, "referee")
        declarations = [a for a in actions if a["type"] == "declare"]
        action = rnd.choice(declarations if declarations and rnd.random() < 0.5 else actions)
        wrong = [] if who == "referee" else wrong_declarations(tw.view(state, who), who, actions)
        if wrong and rnd.random() < 0.1:
            action = {"type": "declare", "cells": rnd.choice(wrong)}
        for event in tw.apply(state, who, action):
            state = tw.fold(state, event)
    return state


def next_draw(state: dict, seat: str) -> set[int]:
    """The tiles a server draw by ``seat`` would take now (none otherwise)."""
    if state["options"]["dealing"] != "server" or state["phase"] != "draw" or state["turn"] != seat:
        return set()
    return set(server_draw(state, draw_count(state, seat)))


def hide_differently(state: dict, seat: str, rnd: random.Random) -> dict:
    """``state`` with the faces ``seat`` cannot see changed (TW-C3)."""
    other = copy.deepcopy(state)
    opponent = SEATS[1 - SEATS.index(seat)]
    manifest = [dict(t) for t in tw.manifest_of(other)]
    in_bases = {t for s in SEATS for entry in other["bases"][s] for t in entry["tiles"]}
    tiles = [t for t in range(tw.TILE_COUNT) if t not in in_bases]
    faces = _rotated([manifest[t][opponent] for t in tiles], rnd)
    for tile, face in zip(tiles, faces):
        manifest[tile][opponent] = face
    bag = [t for t in other["bag"] if t not in next_draw(state, seat)]
    for tile, pair in zip(bag, _rotated([manifest[t] for t in bag], rnd)):
        manifest[tile] = pair
    other["manifest"] = tw.manifest_text(manifest)
    return other


def _rotated(items: list, rnd: random.Random) -> list:
    """``items`` shuffled, then rotated by at least one place (never left as it was)."""
    rnd.shuffle(items)
    k = rnd.randrange(1, len(items)) if len(items) > 1 else 0
    return items[k:] + items[:k]


def straight_lines(rnd: random.Random, count: int) -> list[list[list[int]]]:
    lines = []
    for _ in range(count):
        dr, dc = rnd.choice(tw.DIRECTIONS)
        r, c, n = rnd.randrange(7), rnd.randrange(7), rnd.randint(3, 6)
        lines.append([[r + i * dr, c + i * dc] for i in range(n)])
    return lines


def probes(state: dict, seat: str, rnd: random.Random) -> list[dict]:
    faces = rnd.sample([*DECK, JOKER], 12)
    faces += [tw.manifest_of(state)[t][seat] for t in state["hands"][seat]]
    cells = [[rnd.randrange(7), rnd.randrange(7)] for _ in range(3)]
    out = [{"type": "place", "tile": face, "cell": cell} for face in faces for cell in cells]
    out += [{"type": "draw"}, {"type": "draw", "tiles": [0, 1, 2, 3]}]
    out += [{"type": "discard", "tiles": rnd.sample(faces, 2)} for _ in range(6)]
    out += [{"type": "declare", "cells": cells} for cells in straight_lines(rnd, 12)]
    legal = tw.legal_actions(state, seat)
    return out + rnd.sample(legal, min(30, len(legal)))


@pytest.mark.parametrize("dealing", ["server", "table"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.binary(min_size=32, max_size=32),
    rnd=st.randoms(use_true_random=False),
    steps=st.integers(0, 120),
    variant=st.sampled_from([{}, {"variant": "easy"}]),
)
def test_g_m1_a_seat_gets_the_same_answers_whatever_it_cannot_see(
    dealing, seed, rnd, steps, variant
):
    state = reach({"dealing": dealing, **variant}, seed.hex(), rnd, steps)
    seat = rnd.choice(SEATS)
    other = hide_differently(state, seat, rnd)
    assert_same_answers(tw, seat, state, other, probes(state, seat, rnd))
    if state["status"] == "active":  # G-P1: a seat's position shows what its view shows
        assert tw.position(state, seat) == tw.position(other, seat)
        # G-T1: a timeout tells the seat nothing hidden either
        for one, two in zip(*(tw.idle_events(s, 0.0, 10**4) for s in (state, other))):
            assert tw.view_event(state, one, seat) == tw.view_event(other, two, seat)
