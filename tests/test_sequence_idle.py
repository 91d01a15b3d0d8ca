"""G-T1 for Sequence and Sequence Numbers: a seat on turn for ``idle_seconds`` loses the
turn (``turn-timed-out``, then a pass); a round of such passes ends a game its seats left."""

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_sequence_properties import MAX_ACTIONS, choose

from service.games import RuleViolation
from service.games import sequence as sq

SEED = "1d1e" * 16
T0 = 1_700_000_000.0


def _fold(events, state=None):
    for event in events:
        state = sq.fold(state, event)
    return state


def _game(game="sequence", **options):
    return _fold(sq.new_game(game, options, SEED))


def test_g_t1_idle_seconds_defaults_to_300_in_server_and_off_in_table_dealing():
    assert _game()["options"]["idle_seconds"] == 300
    assert _game(dealing="table")["options"]["idle_seconds"] is None
    with pytest.raises(RuleViolation) as caught:  # off in table mode: the table reports
        _game(dealing="table", idle_seconds=5)
    assert (caught.value.code, caught.value.rule) == ("invalid-option", "G-T1")
    assert _game(idle_seconds=None)["options"]["idle_seconds"] is None
    names = [o["name"] for o in sq.CATALOG["sequence-numbers"]["options"]]
    assert "idle_seconds" in names


@pytest.mark.parametrize("value", [0, -1, 1.5, "60", True, 7 * 24 * 3600 + 1])
def test_g_t1_a_bad_idle_seconds_is_refused(value):
    with pytest.raises(RuleViolation) as caught:
        sq.new_game("sequence", {"idle_seconds": value}, SEED)
    assert (caught.value.code, caught.value.rule) == ("invalid-option", "G-T1")


def test_g_t1_the_seat_on_turn_loses_it_at_the_deadline():
    state = _game(idle_seconds=60)
    assert sq.idle_events(state, T0, T0 + 59.9) == []
    before = copy.deepcopy(state)
    events = sq.idle_events(state, T0, T0 + 60)
    assert state == before  # pure: the store folds the events from the same state
    assert events == [
        {"type": "turn-timed-out", "seat": "p1", "at": T0 + 60, "since": T0},
        {"type": "passed", "seat": "p1", "timed_out": True},
        {"type": "turn-started", "seat": "p2"},
    ]
    after = _fold(events, state)
    assert after["turn"] == "p2" and after["passes"] == 1 and after["timeouts"] == 1
    assert after["hands"] == state["hands"] and after["chips"] == state["chips"]
    assert sq.view_event(after, events[0], "p2") == events[0]


def test_g_t1_nothing_happens_when_off_over_or_during_a_table_deal():
    assert sq.idle_events(_game(idle_seconds=None), T0, T0 + 10**6) == []
    # a table game of an earlier release may hold a number (now refused): not while
    # the referee still deals
    table = _game(dealing="table")
    table["options"] = {**table["options"], "idle_seconds": 1}
    assert sq.idle_events(table, T0, T0 + 100) == []
    over = dict(_game(idle_seconds=1), status="finished")
    assert sq.idle_events(over, T0, T0 + 100) == []


def test_g_t1_a_game_every_seat_left_ends_after_a_round_as_idle():
    state = _game(players=3, idle_seconds=30)
    now = T0
    for seat in ("p1", "p2"):
        events = sq.idle_events(state, now, now + 30)
        state, now = _fold(events, state), now + 30
        assert state["status"] == "active" and events[0]["seat"] == seat
    events = sq.idle_events(state, now, now + 31)
    state = _fold(events, state)
    assert events[-1]["type"] == "game-ended"
    assert state["result"]["reason"] == "idle" and state["result"]["winners"] == []


def test_g_t1_a_play_between_two_lost_turns_starts_the_count_again():
    state = _game(idle_seconds=30)
    state = _fold(sq.idle_events(state, T0, T0 + 30), state)  # p1 loses its turn
    play = next(a for a in sq.legal_actions(state, "p2") if a["type"] == "play")
    state = _fold(sq.apply(state, "p2", play), state)
    assert state["passes"] == 0
    state = _fold(sq.idle_events(state, T0 + 40, T0 + 70), state)
    assert state["status"] == "active" and state["passes"] == 1


def test_g_t1_a_round_of_real_passes_still_ends_as_no_legal_play():
    state = _game(idle_seconds=30)
    state = _fold(sq.idle_events(state, T0, T0 + 30), state)
    state = dict(state, passes=0, timeouts=state["timeouts"])  # a play came in between
    state["hands"] = {"p1": [], "p2": []}  # nobody can play: both pass
    state = _fold(sq.apply(state, "p2", {"type": "pass"}), state)
    state = _fold(sq.apply(state, "p1", {"type": "pass"}), state)
    assert state["result"]["reason"] == "no-legal-play"


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(["sequence", "sequence-numbers"]),
    players=st.sampled_from([2, 3, 4]),
    idle=st.sets(st.sampled_from(["p1", "p2", "p3"])),
    rnd=st.randoms(use_true_random=False),
)
def test_g_t1_any_subset_of_idle_seats_still_ends_the_game(game, players, idle, rnd):
    """Seats in ``idle`` never act: each of their turns times out. Replay is exact."""
    events = sq.new_game(game, {"players": players, "idle_seconds": 5}, SEED)
    state, now = _fold(events), T0
    for _ in range(MAX_ACTIONS):
        if state["status"] != "active":
            break
        if state["turn"] in idle:
            new = sq.idle_events(state, now, now + 5)
        else:
            new = sq.apply(state, *choose_for(state, rnd, idle))
        now += 5
        state = _fold(new, state)
        events += new
    assert state["status"] == "finished"
    assert _fold(events) == state


def choose_for(state, rnd, idle):
    """A legal action of a seat that is not idle (the seat on turn first)."""
    while True:
        actor, action = choose(state, rnd)
        if actor not in idle:
            return actor, action


@pytest.mark.parametrize("value, expected", [(None, None), (45, 45)])
def test_g_t1_the_option_is_taken_over_http(store_client, value, expected):
    response = store_client.post(
        "/v1/games", json={"game": "sequence", "options": {"idle_seconds": value}}
    )
    assert response.status_code == 201, response.get_data(as_text=True)
    refused = store_client.post(
        "/v1/games", json={"game": "sequence", "options": {"idle_seconds": 0}}
    )
    assert refused.status_code == 422 and refused.get_json()["rule"] == "G-T1"
    created = response.get_json()
    token = created["referee_token"]
    game = store_client.get(
        f"/v1/games/{created['id']}", headers={"Authorization": f"Bearer {token}"}
    ).get_json()
    assert game["view"]["options"]["idle_seconds"] == expected
