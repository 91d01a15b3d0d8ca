"""G-T1 in Solitaire Frenzy: a seat that never acts is timed out (``seat-timed-out``)
and treated as having no move (SF-E1), so no idle seat holds a round open for ever."""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.games import RuleViolation
from service.games import solitaire_frenzy as sf

SEED = "1d" * 32
SEEDS = st.binary(min_size=32, max_size=32).map(bytes.hex)
T0 = 1_700_000_000.0


def new(**options) -> dict:
    return sf.fold_all(None, sf.new_game(sf.GAME, {"players": 2, **options}, SEED))


def test_g_t1_idle_seconds_defaults_to_120_in_server_dealing_and_off_at_the_table():
    assert new()["options"]["idle_seconds"] == 120
    assert new(dealing="table")["options"]["idle_seconds"] is None
    assert new(idle_seconds=None)["options"]["idle_seconds"] is None
    for bad in (
        {"idle_seconds": 0},
        {"idle_seconds": 2.5},
        {"idle_seconds": True},
        {"idle_seconds": 5, "dealing": "table"},
    ):
        with pytest.raises(RuleViolation) as caught:
            sf.new_game(sf.GAME, bad, SEED)
        assert (caught.value.code, caught.value.rule) == ("invalid-option", "G-T1")


def test_g_t1_nothing_happens_before_the_deadline_or_when_off():
    state = new(idle_seconds=30)
    assert sf.idle_events(state, T0, T0 + 29.9) == []
    assert sf.idle_events(new(idle_seconds=None), T0, T0 + 10**6) == []
    assert sf.idle_events(new(dealing="table"), T0, T0 + 10**6) == []


def test_g_t1_sf_e1_every_seat_that_could_move_is_timed_out_and_the_round_ends_stuck():
    state = new(idle_seconds=30)
    before = copy.deepcopy(state)
    events = sf.idle_events(state, T0, T0 + 31)
    assert state == before  # pure: the store folds the events from the same state
    timed = [e for e in events if e["type"] == "seat-timed-out"]
    assert [(e["seat"], e["at"], e["since"]) for e in timed] == [
        ("p1", T0 + 31, T0),
        ("p2", T0 + 31, T0),
    ]
    ended = next(e for e in events if e["type"] == "round-ended")
    assert ended["reason"] == "stuck" and ended["scores"] == {"p1": -13, "p2": -13}
    after = sf.fold_all(state, events)
    assert after["round"] == 2 and after["timed_out"] == []
    assert (
        sf.fold_all(
            None,
            json.loads(
                json.dumps(sf.new_game(sf.GAME, {"players": 2, "idle_seconds": 30}, SEED) + events)
            ),
        )
        == after
    )


def test_g_t1_only_the_seat_holding_the_round_open_is_timed_out():
    state = new(idle_seconds=30)
    stuck = {
        **state["layouts"]["p2"],
        "pile": ["KS"],
        "columns": [["2D"], ["2H"], ["3D"], ["3H"]],
        "hand": [],
        "waste": [],
        "pass": None,
        "reach": None,
    }
    state = {**state, "layouts": {**state["layouts"], "p2": stuck}}
    assert sf.can_move(state, "p1") and not sf.can_move(state, "p2")
    events = sf.idle_events(state, T0, T0 + 30)
    assert [e["seat"] for e in events if e["type"] == "seat-timed-out"] == ["p1"]


def test_g_t1_a_timed_out_seat_that_acts_is_back():
    state = new(idle_seconds=30, players=3)
    state = {**state, "timed_out": ["p1"]}
    assert not sf.can_move(state, "p1")
    state = sf.fold_all(state, sf.apply(state, "p1", {"type": "turn", "round": 1}))
    assert state["timed_out"] == [] and sf.can_move(state, "p1")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, players=st.integers(2, 4), data=st.data(), client=st.integers(0, 2**32))
def test_g_t1_every_game_ends_when_any_subset_of_seats_goes_idle(seed, players, data, client):
    """The idle seats never act; the others play random legal actions while one of
    them has a productive move, then wait: after idle_seconds the service times the
    idle ones out. Every game ends, all its rounds played, the log replaying exactly."""
    seats = [f"p{i}" for i in range(1, players + 1)]
    idle = data.draw(st.sets(st.sampled_from(seats)))
    log = sf.new_game(sf.GAME, {"players": players, "rounds": 2, "idle_seconds": 60}, seed)
    state, rng, clock, last = sf.fold_all(None, log), random.Random(client), T0, T0
    for _ in range(20_000):
        if state["status"] != "active":
            break
        clock += 1
        movers = [s for s in state["active"] if s not in idle and sf.can_move(state, s)]
        if movers:
            seat = rng.choice(movers)
            events = sf.apply(state, seat, rng.choice(sf.legal_actions(state, seat)))
        else:  # everyone left waits: the deadline passes
            clock = last + 60
            events = sf.idle_events(state, last, clock)
            assert events, "nobody can act, yet the idle deadline changes nothing"
            assert {e["seat"] for e in events if e["type"] == "seat-timed-out"} <= set(idle)
        state, last = sf.fold_all(state, events), clock
        log += events
    assert state["status"] == "finished"
    assert [e["round"] for e in log if e["type"] == "round-ended"] == [1, 2]
    assert sf.fold_all(None, json.loads(json.dumps(log))) == state
