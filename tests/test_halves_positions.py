"""Halves positions (RULES.md G-P1): starting from a stated position, reading a game's
position, refusing the unreachable ones, and playing on from any reachable one.

Card codes: colour (R G B Y) + symbol (C S T X) per half, ``RC-GS``; the centre lists
cards bottom first as they lie.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from halves_helpers import SEED, conserved, fold_all
from service.games import RuleViolation, halves
from service.pictures import draw as render
from test_halves_properties import random_step

FAST = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def start(position: dict, seed: str = SEED, **options) -> dict:
    return fold_all(halves.start_from_position("halves", options, seed, position))


def refused(position, **options) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        halves.start_from_position("halves", options, SEED, position)
    assert caught.value.code == "invalid-position" and caught.value.status == 422
    return caught.value


# ----- G-P1: refusing what the rules cannot reach ------------------------------------

HANDS = {"p1": ["RT-BS", "GT-YC"], "p2": 3}


@pytest.mark.parametrize(
    "position, options, field, rule",
    [
        ([], {}, "position", "G-P1"),
        ({"centre": ["RC-GS"], "hands": HANDS, "board": 1}, {}, "board", "G-P1"),
        ({"game": "two-way", "centre": ["RC-GS"], "hands": HANDS}, {}, "game", "G-P1"),
        ({"centre": [], "hands": HANDS}, {}, "centre", "HV-P2"),
        ({"centre": "RC-GS", "hands": HANDS}, {}, "centre", "G-P1"),
        ({"centre": ["RZ-GS"], "hands": HANDS}, {}, "centre[0]", "HV-C1"),
        ({"centre": ["RC-RS"], "hands": HANDS}, {}, "centre[0]", "HV-C1"),
        ({"centre": ["RC-GS", "GS-RC"], "hands": HANDS}, {}, "centre[1]", "G-P1"),
        (
            {"centre": ["RC-GS"], "hands": {"p1": ["RT-BS", "BS-RT"], "p2": 3}},
            {},
            "hands.p1[1]",
            "G-P1",
        ),
        (
            {"centre": ["RC-GS"], "hands": {"p1": ["RT-BS"], "p2": 3}, "piles": {"p2": ["RC-GS"]}},
            {},
            "piles.p2[0]",
            "G-P1",
        ),
        ({"centre": ["RC-GS"], "hands": {"p1": 5, "p2": 3}}, {}, "hands.p1", "HV-T2"),
        (
            {
                "centre": ["RC-GS"],
                "hands": {"p1": ["RT-BS", "GT-YC", "BC-YX", "GX-YT", "RX-BT"], "p2": 3},
            },
            {},
            "hands.p1",
            "HV-T2",
        ),
        ({"centre": ["RC-GS"], "hands": {"p1": 2}}, {}, "hands.p2", "G-P1"),
        ({"centre": ["RC-GS"], "hands": {"p1": 2, "p2": 2, "p3": 2}}, {}, "hands.p3", "G-P1"),
        ({"centre": ["RC-GS"], "hands": {"p1": -1, "p2": 2}}, {}, "hands.p1", "G-P1"),
        ({"centre": ["RC-GS"], "hands": {"p1": 0, "p2": 2}}, {}, "hands.p1", "HV-E1"),
        (
            {"centre": ["RC-GS"], "hands": {"p1": 1, "p2": 0}, "piles": {"p2": 1}},
            {},
            "hands.p2",
            "HV-E1",
        ),
        (
            {"centre": ["RC-GS"], "hands": {"p1": 4, "p2": 4}, "piles": {"p1": 40, "p2": 30}},
            {},
            "hands",
            "G-P1",
        ),
        ({"centre": ["RC-GS"], "hands": {"p1": 4, "p2": 4}, "box": 3}, {}, "box", "G-P1"),
        (
            {"centre": ["RC-GS"], "hands": {"p1": ["RT-BS"], "p2": 2}},
            {"dealing": "table"},
            "hands.p1",
            "HV-M1",
        ),
        (
            {"centre": ["RC-GS"], "hands": {"p1": 3, "p2": 3}, "retired": {"p2": 5}},
            {},
            "hands.p2",
            "HV-T6",
        ),
        (
            {"centre": ["RC-GS"], "hands": {"p1": 3}, "retired": {"p2": 1}},
            {},
            "retired.p2",
            "HV-E1",
        ),
        (
            {
                "centre": ["RC-GS"],
                "hands": {"p1": 3, "p2": 3},
                "piles": {"p1": 60, "p2": 4},
                "retired": {"p3": 9},
            },
            {"players": 3},
            "retired",
            "HV-T6",
        ),
        ({"centre": ["RC-GS"], "hands": {}, "retired": {"p1": 4, "p2": 4}}, {}, "retired", "HV-T6"),
        (
            {"centre": ["RC-GS"], "hands": HANDS, "pile_turns_from": "p7"},
            {},
            "pile_turns_from",
            "HV-T5",
        ),
        ({"centre": ["RC-GS"], "hands": HANDS, "in_a_row": -2}, {}, "in_a_row", "HV-T5"),
        # HV-P1: a seat never gains a card: 36 each of 72, the first seat 35 (HV-P2)
        (
            {"centre": ["RC-GS"], "hands": {"p1": 4, "p2": 4}, "piles": {"p1": 32, "p2": 10}},
            {},
            "piles.p1",
            "HV-P1",
        ),
        (
            {"centre": ["RC-GS"], "hands": {"p1": 4, "p2": 4}, "piles": {"p1": 10, "p2": 33}},
            {},
            "piles.p2",
            "HV-P1",
        ),
        (
            {"centre": ["RC-GS"], "hands": {"p1": 4, "p2": 4}, "retired": {"p3": 25}},
            {"players": 3},
            "retired.p3",
            "HV-P1",
        ),
        # HV-P1: a pile starts at the share less the 4 cards of the first hand (32; the
        # first seat 31) and only shrinks, whatever the hand holds now
        (
            {"centre": ["RC-GS"], "hands": {"p1": 4, "p2": 0}, "piles": {"p1": 31, "p2": 33}},
            {},
            "piles.p2",
            "HV-P1",
        ),
        (
            {"centre": ["RC-GS"], "hands": {"p1": 3, "p2": 4}, "piles": {"p1": 32, "p2": 32}},
            {"dealing": "table"},
            "piles.p1",
            "HV-P1",
        ),
        # HV-P1: 72 cards to 5 seats leave 2 in the box, beside p5's 14 retired cards
        (
            {
                "centre": ["RC-GS", "BX-YT"],
                "hands": {"p1": 4, "p2": 4, "p3": 4, "p4": 4},
                "piles": {"p1": 9, "p2": 10, "p3": 10, "p4": 10},
                "retired": {"p5": 14},
            },
            {"players": 5},
            "retired",
            "HV-T6",
        ),
        # HV-T5 stops block moves at N - 1 in a row: a one-card centre has had none
        ({"centre": ["RC-GS"], "hands": HANDS, "in_a_row": 1}, {}, "in_a_row", "HV-T5"),
        ({"centre": ["RC-GS", "BX-YT"], "hands": HANDS, "in_a_row": 2}, {}, "in_a_row", "HV-T5"),
        # the centre is the starting card and one card a play or a pile turn
        ({"centre": ["RC-GS"], "hands": HANDS, "counts": {"plays": 1}}, {}, "counts", "HV-T5"),
        (
            {"centre": ["RC-GS", "BX-YT"], "hands": HANDS, "counts": {"plays": 1, "pile_turns": 1}},
            {},
            "counts",
            "HV-T5",
        ),
        ({"centre": ["RC-GS"], "hands": HANDS, "counts": {"wins": 1}}, {}, "counts", "G-P1"),
        (
            {"centre": ["RC-GS"], "hands": HANDS, "counts": {"plays": "x"}},
            {},
            "counts.plays",
            "G-P1",
        ),
    ],
)
def test_g_p1_an_unreachable_position_is_refused_naming_field_and_rule(
    position, options, field, rule
):
    refusal = refused(position, **options)
    assert (refusal.extra["field"], refusal.rule) == (field, rule), str(refusal.detail)


def test_hv_p1_every_seat_may_hold_its_whole_share():
    # 5 seats: 14 each and 2 left over; the first seat turned its starting card
    position = {
        "centre": ["RC-GS"],
        "hands": {"p1": 4, "p2": 4, "p3": 4, "p4": 4},
        "piles": {"p1": 9, "p2": 10, "p3": 10, "p4": 10},
        "retired": {"p5": 14},
    }
    state = start(position, players=5)
    assert [halves.cards_left(state, s) for s in ("p1", "p2", "p3", "p4")] == [13, 14, 14, 14]
    assert len(state["box"]) == 2 + 14


def test_hv_t5_a_streak_and_counts_the_centre_can_hold_are_taken():
    state = start(
        {
            "centre": ["RC-GS", "BX-YT", "YS-GX"],
            "hands": HANDS,
            "in_a_row": 2,
            "counts": {"plays": 1, "pile_turns": 1, "bottom_card_moves": 5},
        }
    )
    assert state["streak"] == 2 and not halves.bottom_moves_can_help(state)
    assert state["counts"]["plays"] == 1 and state["counts"]["pile_turns"] == 1


def test_g_p1_a_bad_option_is_still_invalid_option():
    with pytest.raises(RuleViolation) as caught:
        halves.start_from_position(
            "halves", {"match": "half"}, SEED, {"centre": ["RC-GS"], "hands": HANDS}
        )
    assert caught.value.code == "invalid-option"


# ----- G-P1: what a stated position starts -------------------------------------------


def test_g_p1_a_one_card_centre_with_every_pile_empty_starts_there():
    state = start({"centre": ["GS-RC"], "hands": {"p1": ["RT-BS", "GT-YC"], "p2": 3}})
    assert state["from_position"] and state["phase"] == "play"
    assert state["centre"] == [{"card": "RC-GS", "turned": True}]
    assert state["hands"]["p1"] == ["RT-BS", "GT-YC"] and len(state["hands"]["p2"]) == 3
    assert state["piles"] == {"p1": [], "p2": []} and len(state["box"]) == 72 - 6
    assert conserved(state)
    view = halves.view(state, "p1")
    assert view["from_position"] is True and view["top"]["halves"] == ["GS", "RC"]
    assert (
        halves.view(fold_all(halves.new_game("halves", {}, SEED)), None)["from_position"] is False
    )


def test_g_p1_unlisted_cards_are_dealt_from_the_seed_the_same_way_each_time():
    position = {"centre": ["RC-GS"], "hands": {"p1": 4, "p2": 4}, "piles": {"p1": 9, "p2": 9}}
    one, two = start(position), start(position)
    assert one["hands"] == two["hands"] and one["piles"] == two["piles"]
    other = start(position, seed="cd" * 32)
    assert (other["hands"], other["piles"]) != (one["hands"], one["piles"])
    assert len(one["piles"]["p2"]) == 9 and conserved(one)


def test_hv_t4_a_stated_centre_nobody_can_match_is_unblocked_at_once():
    # RC-GS on top; both hands miss it either way round, both piles empty, one card in
    # the centre: no top-up, no bottom move, no pile turn: fewest hand cards win
    events = halves.start_from_position(
        "halves",
        {},
        SEED,
        {
            "centre": ["RC-GS"],
            "hands": {"p1": ["BX-YT", "BT-YX"], "p2": ["BX-YC", "BT-YS", "BC-YT"]},
        },
    )
    assert [e["type"] for e in events] == ["game-created", "position-set", "game-ended"]
    result = events[-1]["result"]
    assert result["reason"] == "no-legal-play" and result["winners"] == ["p1"]


def test_hv_e1_a_stated_seat_with_one_card_left_has_won():
    events = halves.start_from_position(
        "halves", {}, SEED, {"centre": ["RC-GS"], "hands": {"p1": 0, "p2": 3}, "piles": {"p1": 1}}
    )
    assert events[-1]["type"] == "game-ended"
    assert events[-1]["result"]["reason"] == "out" and events[-1]["result"]["winners"] == ["p1"]


def test_hv_t6_a_stated_last_seat_wins():
    state = start({"centre": ["RC-GS"], "hands": {"p1": 3}, "retired": {"p2": 12}})
    assert state["result"]["reason"] == "last-seat" and state["result"]["winners"] == ["p1"]
    assert state["result"]["scores"] == {"p1": 3, "p2": 12}


def test_g_p1_a_seat_sees_other_hands_and_every_pile_as_counts():
    state = start(
        {
            "centre": ["RC-GS"],
            "hands": {"p1": ["RT-BS", "GT-YC"], "p2": 4},
            "piles": {"p1": ["BX-YT"], "p2": 5},
        }
    )
    seen = halves.position(state, "p1")
    assert seen["hands"] == {"p1": ["RT-BS", "GT-YC"], "p2": 4}
    assert seen["piles"] == {"p1": 1, "p2": 5} and seen["game"] == "halves"
    referee = halves.position(state, "referee")
    assert referee["hands"]["p2"] == state["hands"]["p2"] and referee["piles"]["p1"] == 1
    assert halves.position(state, None)["hands"] == {"p1": 2, "p2": 4}
    # the record of the position: the seat sees what its position shows
    shown = halves.view_event(
        state,
        halves.start_from_position(
            "halves",
            {},
            SEED,
            {
                "centre": ["RC-GS"],
                "hands": {"p1": ["RT-BS", "GT-YC"], "p2": 4},
                "piles": {"p1": ["BX-YT"], "p2": 5},
            },
        )[1],
        "p1",
    )
    assert shown["position"]["hands"] == {"p1": ["RT-BS", "GT-YC"], "p2": 4}
    assert shown["position"]["piles"] == {"p1": 1, "p2": 5} and "placed" not in shown


def test_g_p1_the_picture_says_the_game_started_from_a_stated_position():
    state = start({"centre": ["RC-GS"], "hands": {"p1": ["RT-BS", "GT-YC"], "p2": 4}})
    svg = render("halves", halves.view(state, "p1")).decode()
    assert "Started from a stated position" in svg
    dealt = render(
        "halves", halves.view(fold_all(halves.new_game("halves", {}, SEED)), "p1")
    ).decode()
    assert "stated position" not in dealt


# ----- G-P1: round trip and playing on ------------------------------------------------


def _view(state: dict, viewer: str | None) -> dict:
    out = halves.view(state, viewer)
    out.pop("from_position")
    return out


def _play(state: dict, rng: random.Random, steps: int, retire: float = 0.01) -> dict:
    for _ in range(steps):
        if state["status"] != "active":
            break
        actor, action = random_step(state, rng, retire)
        for one in halves.apply(state, actor, action):
            state = halves.fold(state, one)
            assert conserved(state), one
    return state


@pytest.mark.parametrize("dealing", ["server", "table"])
def test_g_p1_round_trip_of_a_finished_and_a_table_game(dealing):
    rng = random.Random(7)
    for players in (2, 3, 5):
        options = {"players": players, "dealing": dealing}
        state = fold_all(halves.new_game("halves", options, SEED))
        state = _play(state, rng, 3000 if dealing == "server" else rng.randrange(5, 80))
        if dealing == "server":
            assert state["status"] == "finished"
        stated = halves.position(state, "referee")
        again = fold_all(halves.start_from_position("halves", options, SEED, stated))
        for viewer in ("referee", None, *state["seats"]):
            assert _view(again, viewer) == _view(state, viewer)
        assert halves.position(again, "referee") == stated
        assert json.loads(json.dumps(stated)) == stated


seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)


@settings(FAST, max_examples=60)
@given(
    seed=seeds,
    players=st.integers(2, 8),
    dealing=st.sampled_from(["server", "table"]),
    match=st.sampled_from(["per_half", "whole_card"]),
    turning=st.booleans(),
    choices=st.integers(0, 2**32),
    viewer=st.sampled_from(["referee", "p1", None]),
)
@example(
    seed="0" * 61 + "102",
    players=2,
    dealing="server",
    match="whole_card",
    turning=False,
    choices=305749,
    viewer=None,
)  # re-dealt hands block: drawn at once
def test_g_p1_play_goes_on_to_the_end_from_a_random_games_position(
    seed, players, dealing, match, turning, choices, viewer
):
    """A random game's position at a random point (as the referee or a seat sees it),
    started again: legal actions, races, blocks and pile turns go on; cards are
    conserved and the game ends."""
    rng = random.Random(choices)
    options = {"players": players, "dealing": dealing, "match": match, "allow_turning": turning}
    state = fold_all(halves.new_game("halves", options, seed))
    if dealing == "table":
        state = _play(state, rng, 1)  # the deal report
    state = _play(state, rng, rng.randrange(0, 200))
    if state["status"] != "active":
        return
    stated = halves.position(state, viewer if dealing == "server" else "referee")
    events = halves.start_from_position("halves", options, seed, stated)
    again = fold_all(events)
    # a seat's or the public position re-deals hidden hands from the seed: hands that
    # then block (nobody can play) are unblocked at once by draws (HV-T4), so each hand
    # is the stated count plus what it drew at the restart
    drawn = {
        seat: sum(1 for e in events if e["type"] == "drawn" and e.get("seat") == seat)
        for seat in halves.view(state, None)["hand_counts"]
    }
    assert halves.view(again, None)["hand_counts"] == {
        seat: count + drawn[seat] for seat, count in halves.view(state, None)["hand_counts"].items()
    }
    assert not any(drawn.values()) or viewer != "referee"  # full knowledge: the same hands
    for _ in range(3000):
        if again["status"] != "active":
            break
        if dealing == "server":
            assert any(halves.can_play(again, s) for s in halves.active_seats(again))
        actor, action = random_step(again, rng, 0.01)
        new = halves.apply(again, actor, action)
        for one in new:
            again = halves.fold(again, one)
            assert conserved(again), one
        events += new
    assert again["status"] == "finished", "the game did not end"
    assert json.dumps(fold_all(events), sort_keys=True) == json.dumps(again, sort_keys=True)


def test_g_p1_a_table_game_ended_no_legal_play_comes_back_one_blocked_report_from_its_end():
    """At a table the same cards with every pile empty are also a running game waiting for
    the referee's "blocked" (the notation states no result): posted back, the game runs,
    and the next "blocked" ends it as it ended (HV-T5)."""
    options = {"players": 2, "dealing": "table"}
    state = fold_all(halves.new_game("halves", options, SEED))
    state = fold_all(halves.apply(state, "referee", {"type": "deal", "card": "RC-GS"}), state)
    while state["status"] == "active":
        blocked = next(a for a in halves.legal_actions(state, "referee") if a["type"] == "blocked")
        state = fold_all(halves.apply(state, "referee", blocked), state)
    assert state["result"]["reason"] == "no-legal-play"
    again = fold_all(
        halves.start_from_position("halves", options, SEED, halves.position(state, "referee"))
    )
    assert again["status"] == "active"
    blocked = next(a for a in halves.legal_actions(again, "referee") if a["type"] == "blocked")
    again = fold_all(halves.apply(again, "referee", blocked), again)
    assert again["result"] == state["result"]
