"""Halves idle seats (RULES.md G-T1): option ``idle_seconds`` and ``idle_events``.

Card codes: colour (R G B Y) + symbol (C S T X) per half, ``RC-GS``.
"""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from halves_helpers import SEED, conserved, fold_all
from service.games import RuleViolation, halves

FAST = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
T0 = 1_800_000_000.0


def start(position: dict, **options) -> dict:
    return fold_all(halves.start_from_position("halves", options, SEED, position))


def test_g_t1_idle_seconds_is_120_in_server_dealing_and_off_at_a_table():
    assert halves.normalise_options({})["idle_seconds"] == 120
    assert halves.normalise_options({"idle_seconds": None})["idle_seconds"] is None
    assert halves.normalise_options({"idle_seconds": 5})["idle_seconds"] == 5
    assert halves.normalise_options({"dealing": "table"})["idle_seconds"] is None
    for options in (
        {"idle_seconds": 0},
        {"idle_seconds": 2.5},
        {"idle_seconds": True},
        {"dealing": "table", "idle_seconds": 30},
    ):
        with pytest.raises(RuleViolation) as caught:
            halves.normalise_options(options)
        assert (caught.value.code, caught.value.rule) == ("invalid-option", "G-T1")
        assert caught.value.extra["errors"]["json"]["options"]["idle_seconds"]


# p1 can play on RC-GS (RT-BS: red, then square); p2 cannot, either way round
IDLE = {"centre": ["BX-YC", "RC-GS"], "hands": {"p1": ["RT-BS", "GX-YT"], "p2": ["BT-YX", "GT-BX"]}}


def test_g_t1_nothing_happens_before_the_deadline_or_when_off():
    state = start(IDLE, idle_seconds=30)
    assert halves.idle_events(state, T0, T0 + 29.9) == []
    assert halves.idle_events(start(IDLE, idle_seconds=None), T0, T0 + 10**6) == []
    table = fold_all(halves.new_game("halves", {"dealing": "table"}, SEED))
    assert halves.idle_events(table, T0, T0 + 10**6) == []


def test_g_t1_idle_seats_time_out_and_the_block_follows():
    state = start(IDLE, idle_seconds=30)
    assert halves.can_play(state, "p1") and not halves.can_play(state, "p2")
    before = copy.deepcopy(state)
    events = halves.idle_events(state, T0, T0 + 30)
    assert state == before  # pure: the store folds the events from the same state
    # every idle seat is named (naming only p1 would tell p2 that p1 holds a match)
    assert events[:2] == [
        {"type": "seat-timed-out", "seat": seat, "at": T0 + 30, "since": T0, "rule": "G-T1"}
        for seat in ("p1", "p2")
    ]
    # HV-T4: treated as unable to play, nobody can: no top-up (piles empty), so the
    # bottom card BX-YC comes to the top, and the time-outs (judged on RC-GS) lapse
    assert events[2] == {"type": "bottom-card-moved", "seat": None, "card": "BX-YC"}
    after = fold_all(events, state)
    assert after["centre"][-1]["card"] == "BX-YC" and after["timed_out"] == []
    assert conserved(after)
    assert json.dumps(fold_all(events, state)) == json.dumps(after)  # replay is exact


def test_g_t1_the_time_out_holds_for_its_top_and_the_view_shows_it():
    # p2 also holds a card for RC-GS (RX-BS): both could play, neither did
    state = start(
        {
            "centre": ["BX-YC", "RC-GS"],
            "hands": {"p1": ["RT-BS", "GX-YT"], "p2": ["RX-BS", "GT-BX"]},
        }
    )
    events = halves.idle_events(state, T0, T0 + 120)
    assert [(e["type"], e["seat"]) for e in events] == [
        ("seat-timed-out", "p1"),
        ("seat-timed-out", "p2"),
        ("bottom-card-moved", None),
    ]
    assert fold_all(events, state)["centre"][-1]["card"] == "BX-YC"
    # the time-outs do not depend on hidden cards: the same seats whatever the hands
    other = start(
        {
            "centre": ["BX-YC", "RC-GS"],
            "hands": {"p1": ["RT-BS", "GX-YT"], "p2": ["BT-YX", "GT-BX"]},
        }
    )
    assert [
        e for e in halves.idle_events(other, T0, T0 + 120) if e["type"] == "seat-timed-out"
    ] == events[:2]
    # with p1 alone timed out, p2 can still play on RC-GS: no block
    one = fold_all(events[:1], state)
    assert halves.someone_can_play(one) and not one["counts"]["bottom_card_moves"]
    assert halves.view(one, None)["timed_out"] == ["p1"]
    assert halves.position(one, "referee")["timed_out"] == ["p1"]
    # a timed-out seat may still play: the time-out only counts it out of HV-T4
    play = {"type": "play", "card": "RT-BS", "based_on": "RC-GS"}
    assert halves.apply(one, "p1", play)[0]["type"] == "played"


seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)


@settings(FAST, max_examples=80)
@given(
    seed=seeds,
    players=st.integers(2, 8),
    match=st.sampled_from(["per_half", "whole_card", "any_half"]),
    turning=st.booleans(),
    choices=st.integers(0, 2**32),
    idle=st.sets(st.integers(0, 7), min_size=1),
    wait=st.floats(0.0, 0.5),
)
def test_g_t1_every_game_ends_when_any_subset_of_seats_goes_idle(
    seed, players, match, turning, choices, idle, wait
):
    """Seats in ``idle`` never act; the others act at random through legal actions
    (``wait``: how often they let the clock run instead). Time passes one second per
    action; when no active seat acts, the clock jumps past the deadline and the
    service applies ``idle_events``. Every game ends, conserving its cards, and its log
    replays to the same state."""
    rng = random.Random(choices)
    options = {"players": players, "match": match, "allow_turning": turning, "idle_seconds": 30}
    events = halves.new_game("halves", options, seed)
    state = fold_all(events)
    idle_seats = {f"p{i + 1}" for i in idle if i < players} or {"p1"}
    last = now = T0
    for _ in range(5000):
        if state["status"] != "active":
            break
        moves = [
            (seat, action)
            for seat in halves.active_seats(state)
            if seat not in idle_seats
            for action in halves.legal_actions(state, seat)
        ]
        if moves and rng.random() >= wait:
            now += 1
            actor, action = rng.choice(moves)
            new = halves.apply(state, actor, action)
        else:
            now = last + 30 + rng.random()
            new = halves.idle_events(state, last, now)
            assert new, "an idle game that nothing moves on"
            assert new[0]["type"] == "seat-timed-out" and new[0]["at"] == now
        for one in new:
            state = halves.fold(state, one)
            assert conserved(state), one
        events += new
        last = now
    assert state["status"] == "finished", "the game did not end"
    assert json.dumps(fold_all(events), sort_keys=True) == json.dumps(state, sort_keys=True)
