"""G-T1 for 2-Way Cards: a seat on turn for idle_seconds loses the rest of its turn
(turn-timed-out, then a skipped turn, TW-T5), exactly on replay."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.games import RuleViolation
from service.games import two_way as tw
from test_two_way_positions import assert_conserved, fold_all, played, start, step

SEED = "0123456789abcdef" * 4
# server dealing (idle_seconds is off at the table, G-T1) with the shipped manifest
# named, so a position may name tiles by id
SERVER_WITH_IDS = {"idle_seconds": 30, "tile_manifest": tw.default_manifest()}
T0 = 1_700_000_000.0


def placed_once() -> dict:
    """A server game (idle_seconds 60) in which blue has placed one tile."""
    state = played({"idle_seconds": 60}, 0)
    place = next(a for a in tw.legal_actions(state, "blue") if a["type"] == "place")
    state = fold_all(tw.apply(state, "blue", place), state)
    assert (state["turn"], state["placed"]) == ("blue", 1)
    return state


def test_g_t1_idle_seconds_defaults_to_300_in_server_and_off_in_table_dealing():
    assert fold_all(tw.new_game("two-way", {}, SEED))["options"]["idle_seconds"] == 300
    table = fold_all(tw.new_game("two-way", {"dealing": "table"}, SEED))
    assert table["options"]["idle_seconds"] is None
    spec = next(o for o in tw.OPTIONS if o["name"] == "idle_seconds")
    assert spec["default"] == 300 and "table" in spec["description"]


@pytest.mark.parametrize("value", [0, -5, 1.5, "60", True])
def test_g_t1_idle_seconds_must_be_a_whole_number_of_seconds(value):
    with pytest.raises(RuleViolation) as error:
        tw.new_game("two-way", {"idle_seconds": value}, SEED)
    assert (error.value.code, error.value.rule) == ("invalid-option", "G-T1")


def test_g_t1_nothing_happens_before_the_deadline_or_when_off():
    state = played({"idle_seconds": 60}, 3)
    assert tw.idle_events(state, T0, T0 + 59.9) == []
    off = played({"idle_seconds": None}, 3)
    assert tw.idle_events(off, T0, T0 + 10**6) == []
    # a table game of an earlier release may hold a number (now refused): not while
    # the referee still deals
    table = played({"dealing": "table"}, 1)
    table["options"] = {**table["options"], "idle_seconds": 60}
    assert table["phase"] == "deal" and tw.idle_events(table, T0, T0 + 600) == []


def test_g_t1_the_seat_on_turn_times_out_and_its_turn_is_skipped():
    state = placed_once()
    seat = state["turn"]
    before = copy.deepcopy(state)
    events = tw.idle_events(state, T0, T0 + 60)
    assert state == before  # pure: the store folds the events from the same state
    assert events[0] == {
        "type": "turn-timed-out",
        "seat": seat,
        "by": None,
        "at": T0 + 60,
        "since": T0,
    }
    assert events[1] == {"type": "turn-skipped", "seat": seat, "by": None, "reason": "timed-out"}
    after = fold_all(events, state)
    assert after["turn"] != seat and after["phase"] == "place"
    assert after["turn_number"] == state["turn_number"] + 1
    # the turn ended as it stood: the placed tile stays, nothing drawn or discarded
    assert after["grid"] == state["grid"] and len(after["hands"][seat]) == 4
    assert fold_all(events, state) == after  # exact on replay: no clock in the fold
    assert_conserved(after)


def test_g_t1_the_hand_comes_back_to_five_on_the_seats_next_turn():
    state = placed_once()
    seat = state["turn"]
    state = fold_all(tw.idle_events(state, T0, T0 + 60), state)
    rnd = random.Random(2)
    while state["turn"] != seat or state["phase"] != "discard":
        state = step(state, rnd)
    assert len(state["hands"][seat]) == 6  # 4 - 2 placed + 4 drawn (at most 4, TW-T2)
    while state["turn"] == seat:
        state = step(state, rnd)
    assert len(state["hands"][seat]) == 5


def test_g_t1_a_missed_turn_owed_is_still_served_after_a_timeout():
    """TW-T5: the timed-out seat's own pending missed turn is not used up by the
    timeout; the opponent's is served at once."""
    state = played({"idle_seconds": 60}, 2)
    seat = state["turn"]
    state["pending_skips"] = {seat: 1, tw.SEATS[1 - tw.SEATS.index(seat)]: 1}
    events = tw.idle_events(state, T0, T0 + 61)
    kinds = [(e["type"], e["seat"], e.get("reason")) for e in events]
    other = tw.SEATS[1 - tw.SEATS.index(seat)]
    assert kinds == [
        ("turn-timed-out", seat, None),
        ("turn-skipped", seat, "timed-out"),
        ("turn-skipped", other, None),
        ("turn-skipped", seat, None),
    ]
    after = fold_all(events, state)
    assert after["pending_skips"] == {"blue": 0, "green": 0} and after["turn"] == other


def test_g_t1_a_timeout_that_leaves_a_full_grid_ends_the_game_tw_e2():
    position = {
        "game": "two-way",
        "grid": [list(range(r * 7, r * 7 + 7)) for r in range(7)],
        "hands": {"blue": list(range(49, 52)), "green": list(range(52, 57))},
        "phase": "draw",
        "placed": 2,
        "turn_number": 31,
    }
    state = start(position, SERVER_WITH_IDS)
    events = tw.idle_events(state, T0, T0 + 30)
    assert [e["type"] for e in events] == ["turn-timed-out", "turn-skipped", "game-ended"]
    assert events[-1]["result"]["reason"] == "grid-full"


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.floats(0.05, 0.6))
def test_g_t1_property_games_with_idle_seats_still_end(rnd_seed, idle_share):
    """Any mix of timeouts and moves: tiles are conserved and the game ends."""
    rnd = random.Random(rnd_seed)
    state = played({"idle_seconds": 5}, 0, rnd_seed=rnd_seed)
    clock = T0
    for _ in range(4000):
        if state["status"] != "active":
            break
        if rnd.random() < idle_share:
            events = tw.idle_events(state, clock, clock + 5)
            assert events and events[0]["type"] == "turn-timed-out"
            state = fold_all(events, state)
        else:
            state = step(state, rnd)
        clock += 6
        assert_conserved(state)
        assert all(len(state["hands"][s]) <= 7 for s in tw.SEATS)
    assert state["status"] == "finished"


def test_g_t1_a_position_after_timeouts_may_hold_short_hands_but_places_only_from_a_hand():
    """With idle_seconds a hand may be short (a turn ended as it stood); a seat with no
    tile has no placement due (TW-T4)."""
    grid = [[None] * 7 for _ in range(7)]
    short = {"game": "two-way", "grid": grid, "hands": {"blue": [0, 1], "green": [5, 6, 7]}}
    started = start(short, SERVER_WITH_IDS)
    assert started["hands"]["blue"] == [0, 1] and started["phase"] == "place"
    with pytest.raises(RuleViolation) as error:
        tw.start_from_position("two-way", {**SERVER_WITH_IDS, "idle_seconds": None}, SEED, short)
    assert (error.value.extra["field"], error.value.rule) == ("hands.blue", "TW-T2")
    empty = {**short, "hands": {"blue": [], "green": [5, 6, 7]}}
    with pytest.raises(RuleViolation) as error:
        tw.start_from_position("two-way", SERVER_WITH_IDS, SEED, empty)
    assert (error.value.extra["field"], error.value.rule) == ("phase", "TW-T4")
    drawing = start({**empty, "phase": "draw", "placed": 0}, SERVER_WITH_IDS)
    assert drawing["phase"] == "draw"
