"""G-P1 for Sequence and Sequence Numbers: start a game from a stated position, read a
game's position, and play on from there exactly as from a deal."""

import copy
import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_sequence_properties import (
    MAX_ACTIONS,
    SETUPS,
    check_event_invariants,
    check_nothing_missed,
    choose,
)

from service.games import RuleViolation
from service.games import sequence as sq
from service.pictures.sequence import draw

SEED = "5eed" * 16
ROW = [[0, c] for c in range(2, 6)]  # 3S 4S 5S 6S: one 7S short of a sequence
BLUE = [[4, 4], [6, 6], [8, 8], [2, 7]]


def _fold(events, state=None):
    for event in events:
        state = sq.fold(state, event)
    return state


def _start(position, game="sequence", **options):
    return _fold(sq.start_from_position(game, options, SEED, position))


def _played(game, options, steps, seed=SEED, rnd=None):
    """A game after ``steps`` random legal actions."""
    rnd = rnd or random.Random(steps)
    state = _fold(sq.new_game(game, options, seed))
    for _ in range(steps):
        if state["status"] != "active":
            break
        actor, action = choose(state, rnd)
        state = _fold(sq.apply(state, actor, action), state)
    return state


def _base(**fields):
    """p1 (green) to play, holding 7S, with four green chips in the top row."""
    position = {
        "game": "sequence",
        "chips": {"green": ROW, "blue": BLUE},
        "hands": {"p1": ["7S", "2H", "3H", "4H", "5H", "6H", "7H"], "p2": 7},
        "discards": {"p1": ["3S", "4S", "5S", "6S"], "p2": ["5H", "QH", "3H", "JD"]},
        "turn": "p1",
    }
    position.update(fields)
    return position


def _without_view_flag(view):
    return {k: v for k, v in view.items() if k != "from_position"}


def _refused(position, game="sequence", **options) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        sq.start_from_position(game, options, SEED, position)
    assert caught.value.code == "invalid-position" and caught.value.status == 422
    return caught.value


def test_g_p1_a_board_one_chip_from_a_sequence_plays_on():
    state = _start(_base())
    view = sq.view(state, "p1")
    assert view["from_position"] is True and view["turn"] == "p1" and view["turn_number"] == 9
    assert view["hand"][0] == "7S" and view["hand_counts"] == {"p1": 7, "p2": 7}
    assert view["deck_count"] == 104 - 14 - 8
    events = sq.apply(state, "p1", {"type": "play", "card": "7S", "cell": [0, 6]})
    done = [e for e in events if e["type"] == "sequence-completed"]
    assert done[0]["cells"] == [[0, 2], [0, 3], [0, 4], [0, 5], [0, 6]]
    assert _fold(events, state)["turn"] == "p2"


def test_g_p1_a_fresh_deal_is_not_from_a_position():
    assert sq.view(_played("sequence", {}, 0), None)["from_position"] is False


@pytest.mark.parametrize(
    "game, options",
    [
        ("sequence", {"dealing": "table", "players": 4}),
        ("sequence-numbers", {"dealing": "table", "players": 3}),
    ],
)
@pytest.mark.parametrize("steps", [0, 3, 30, 120])
def test_g_p1_round_trip_of_a_table_game_as_the_referee(game, options, steps):
    original = _played(game, options, steps)
    state = _start(json.loads(json.dumps(sq.position(original, "referee"))), game, **options)
    assert _without_view_flag(sq.view(state, "referee")) == _without_view_flag(
        sq.view(original, "referee")
    )
    assert sq.legal_actions(state, "referee") == sq.legal_actions(original, "referee")


@pytest.mark.parametrize(
    "game, options",
    [("sequence", {"players": 3}), ("sequence-numbers", {}), ("sequence", {"dealing": "table"})],
)
def test_g_p1_round_trip_of_a_finished_game(game, options):
    original = _played(game, options, MAX_ACTIONS)
    assert original["status"] == "finished"
    position = sq.position(original, "p1")  # once over, anyone sees everything
    assert position["deck"] == original["deck"] and position["result"] == original["result"]
    state = _start(position, game, **options)
    assert _without_view_flag(sq.view(state, None)) == _without_view_flag(sq.view(original, None))
    assert state["result"] == original["result"]


def test_g_p1_a_seat_reads_other_hands_as_counts_and_no_deck():
    original = _played("sequence", {"players": 4}, 12)
    position = sq.position(original, "p2")
    assert position["hands"]["p2"] == original["hands"]["p2"]
    assert position["hands"]["p1"] == len(original["hands"]["p1"])
    assert "deck" not in position and "deck" not in sq.position(original, "referee")
    state = _start(position, players=4)  # counts are dealt from the seed
    assert state["hands"]["p2"] == original["hands"]["p2"]
    assert len(state["hands"]["p1"]) == len(original["hands"]["p1"])
    everything = Counter(state["deck"])
    for seat in state["seats"]:
        everything.update(state["hands"][seat] + state["discards"][seat])
    assert everything == Counter(sq.CLASSIC_DECK)


def test_g_m1_the_position_event_hides_other_hands_and_the_deck():
    events = sq.start_from_position("sequence", {}, SEED, _base())
    state = _fold(events)
    assert events[0]["from_position"] is True and events[1]["type"] == "position-set"
    shown = sq.view_event(state, events[1], "p1")
    assert shown["position"]["hands"]["p2"] == 7 and shown["position"]["hands"]["p1"][0] == "7S"
    assert "deck" not in shown and "deck" not in shown["position"]
    assert "hands" not in shown and shown["deck_count"] == 82
    referee = sq.view_event(state, events[1], "referee")
    assert referee["position"]["hands"]["p2"] == state["hands"]["p2"] and "deck" not in referee


def test_g_p1_a_stated_deck_is_drawn_in_its_order():
    rest = Counter(sq.CLASSIC_DECK)
    position = _base(
        hands={
            "p1": ["7S", "2H", "3H", "4H", "5H", "6H", "7H"],
            "p2": ["8H", "9H", "10H", "QH", "KH", "AH", "2C"],
        }
    )
    for pile in list(position["hands"].values()) + list(position["discards"].values()):
        rest.subtract(pile)
    deck = sorted(rest.elements(), reverse=True)
    state = _start({**position, "deck": deck})
    events = sq.apply(state, "p1", {"type": "play", "card": "2H", "cell": _cells(state, "2H")[0]})
    assert [e["card"] for e in events if e["type"] == "drawn"] == [deck[0]]


def _cells(state, card):
    return [[r, c] for r, row in enumerate(state["board"]) for c, v in enumerate(row) if v == card]


def test_g_p1_the_picture_says_started_from_a_stated_position():
    svg = draw(sq.view(_start(_base()), "p1"), "sequence").tobytes().decode()
    assert "Started from a stated position" in svg
    fresh = draw(sq.view(_played("sequence", {}, 0), "p1"), "sequence").tobytes().decode()
    assert "Started from a stated position" not in fresh


def test_g_p1_a_finished_position_with_a_winner_ends_at_once():
    cells = [[0, c] for c in range(1, 6)] + [[c, 0] for c in range(1, 6)]
    position = _base(
        chips={"green": cells, "blue": BLUE},
        sequences=[{"side": "green", "cells": cells[:5]}, {"side": "green", "cells": cells[5:]}],
        discards={
            "p1": ["2S", "3S", "4S", "5S", "6S", "6C", "5C", "4C", "3C", "2C"],
            "p2": ["AD", "QS", "KC", "QH", "QD"],
        },
        hands={"p1": 7, "p2": 7},
        turn=None,
        result={"reason": "sequences"},
    )
    state = _start(position)
    assert state["status"] == "finished" and state["result"]["winners"] == ["p1"]
    assert state["result"]["reason"] == "sequences"


REFUSALS = [
    # (what the position says, the field named, the rule broken)
    (dict(hands={"p1": ["7S", "7S", "7S"], "p2": 7}), "hands.p1[2]", "G-P1"),
    (dict(deck=["2D"]), "hands.p2", "G-P1"),  # a stated deck: every hand card by card
    (dict(deck=["2D"], hands={"p1": ["7S"], "p2": ["8S"]}), "deck", "G-P1"),
    (
        dict(hands={"p1": ["7S"] + ["2H"] * 2 + ["4H"] * 2 + ["6H"] * 2 + ["8H"], "p2": 7}),
        "hands.p1",
        "SQ-P2",
    ),
    (dict(hands={"p1": 8, "p2": 7}), "hands.p1", "SQ-P2"),
    (dict(hands={"p1": 7}), "hands.p2", "G-P1"),
    (dict(hands={"p1": 7, "p2": 7, "p3": 1}), "hands.p3", "SQ-P1"),
    (dict(chips={"green": ROW + [[0, 6]]}), "sequences", "SQ-S5"),
    (dict(chips={"green": ROW, "red": [[3, 3]]}), "chips.red", "SQ-C3"),
    (dict(chips={"green": [[0, 0]]}), "chips.green.0", "SQ-C1"),
    (dict(sequences=[{"side": "green", "cells": ROW + [[1, 6]]}]), "sequences.0.cells", "SQ-S1"),
    (dict(turn=None), "turn", "SQ-P1"),
    (dict(turn="p7"), "turn", "SQ-P1"),
    (dict(turn_number=2), "turn_number", "SQ-P1"),
    (dict(turn_number=3), "chips.green", "SQ-T1"),
    (dict(discards={"p1": ["3S", "4S", "JS"]}), "chips.green", "SQ-T1"),
    (dict(owed_draws=["p1"]), "owed_draws", "G-M1"),
    (dict(lost_draws={"p2": 1}), "lost_draws", "G-M1"),
    (dict(exchanged=True), "exchanged", "SQ-T4"),
    (dict(penalty_due=["p1"]), "penalty_due", "SQ-T6"),
    (dict(passes=2), "passes", "SQ-E1"),
    (dict(decks_without_sequence=1), "decks_without_sequence", "SQ-E1"),
    (dict(result={"reason": "sequences"}, turn=None), "result.reason", "SQ-S3"),
    (
        dict(
            result={"reason": "stalemate", "winners": ["p1"]},
            turn=None,
            reshuffles=8,
            decks_without_sequence=7,
        ),
        "result.winners",
        "SQ-E1",
    ),
    # a stated end the counters do not bear out (SQ-E1, G-T1)
    (dict(result={"reason": "stalemate"}, turn=None), "result.reason", "SQ-E1"),
    (
        dict(result={"reason": "stalemate"}, turn=None, reshuffles=1, decks_without_sequence=1),
        "result.reason",
        "SQ-E1",
    ),
    (dict(result={"reason": "no-legal-play"}, turn=None), "result.reason", "SQ-E1"),
    (dict(result={"reason": "idle"}, turn=None, passes=1), "result.reason", "G-T1"),
    (dict(result={"reason": "resigned"}, turn=None), "result.reason", "SQ-E1"),
    (dict(game="two-way"), "game", "G-P1"),
    (dict(colour="green"), "colour", "G-P1"),
    (dict(discards={"p1": ["ZZ"]}), "discards.p1[0]", "SQ-C2"),
]


@pytest.mark.parametrize("fields, field, rule", REFUSALS, ids=[f"{f}-{r}" for _, f, r in REFUSALS])
def test_g_p1_unreachable_positions_are_refused_naming_field_and_rule(fields, field, rule):
    refusal = _refused(_base(**fields))
    assert (refusal.extra["field"], refusal.rule) == (field, rule)


def test_sq_e1_a_stated_end_is_taken_where_the_counters_bear_it_out():
    """A whole round of counted passes ends a game (no-legal-play, or idle when seats
    lost their turns, G-T1); whole decks without a new sequence end it as a stalemate."""
    ended = {"turn": None, "passes": 2}
    assert _start(_base(result={"reason": "no-legal-play"}, **ended))["status"] == "finished"
    assert _start(_base(result={"reason": "idle"}, **ended))["result"]["reason"] == "idle"
    refusal = _refused(_base(result={"reason": "idle"}, **ended), idle_seconds=None)
    assert (refusal.extra["field"], refusal.rule) == ("result.reason", "G-T1")
    # an open board waits 4 x stalemate_decks whole decks, the last one the deck that
    # ran out at the end (SQ-E1 ruling): 7 counted and the last one make 8
    stalemate = _base(result={"reason": "stalemate"}, turn=None, reshuffles=8)
    stalemate["decks_without_sequence"] = 7
    assert _start(stalemate)["result"]["reason"] == "stalemate"
    stalemate["decks_without_sequence"] = 6
    refusal = _refused(stalemate)
    assert (refusal.extra["field"], refusal.rule) == ("result.reason", "SQ-E1")


def test_sq_p2_a_side_of_its_own_holds_a_whole_hand_in_server_dealing():
    # the draw is part of every turn and no table-talk discard falls on a lone seat
    refusal = _refused(_base(hands={"p1": ["7S", "2H", "3H"], "p2": 7}))
    assert (refusal.extra["field"], refusal.rule) == ("hands.p1", "SQ-P2")
    # a team's seat may be short by its table-talk discards (SQ-T6)
    teams = _start(_base(hands={"p1": 4, "p2": 6, "p3": 6, "p4": 6}), players=4)
    assert len(teams["hands"]["p1"]) == 4


def test_sq_t1_a_discard_pile_holds_at_most_two_cards_a_turn():
    # p1 at turn 3 has had one turn (a play and an exchange) and may have exchanged in
    # this one: 3 cards at most; turn_number left out is the least that holds them
    def position(pile, **more):
        return _base(chips={}, discards={"p1": pile, "p2": ["9C"]}, **more)

    assert _start(position(["2H", "3H", "4H"], turn_number=3))["turn_number"] == 3
    refusal = _refused(position(["2H", "3H", "4H", "5H"], turn_number=3))
    assert (refusal.extra["field"], refusal.rule) == ("discards.p1", "SQ-T1")
    assert _start(position(["2H", "3H", "4H", "5H"]))["turn_number"] == 5


def test_sq_t5_a_seat_loses_at_most_a_draw_for_each_turn_it_has_had():
    # table dealing: p1 at turn 3 has had one turn, so one draw to lose at most
    def position(lost):
        return _base(
            chips={"green": ROW[:1]},
            hands={"p1": 6, "p2": 7},
            discards={"p1": ["3S"], "p2": ["9C"]},
            turn_number=3,
            lost_draws={"p1": lost},
        )

    assert _start(position(1), dealing="table")["lost_draws"]["p1"] == 1
    refusal = _refused(position(2), dealing="table")
    assert (refusal.extra["field"], refusal.rule) == ("lost_draws.p1", "SQ-T5")


def test_g_p1_hands_given_as_counts_cannot_take_more_cards_than_are_left():
    # p1's 7 cards and 91 discards leave 6 of the 104: p2's stated 7 cannot be dealt
    cards = list(sq.CLASSIC_DECK)
    position = {
        "game": "sequence",
        "chips": {},
        "hands": {"p1": cards[:7], "p2": 7},
        "discards": {"p1": cards[7:53], "p2": cards[53:98]},
        "turn": "p1",
        "turn_number": 93,
    }
    refusal = _refused(position)
    assert (refusal.extra["field"], refusal.rule) == ("hands.p2", "G-P1")
    assert "need 7 cards, the game has 6 left" in str(refusal.detail)


def test_sq_t4_an_exchange_under_a_table_talk_discard_is_still_this_turns():
    """p1 exchanged its dead 2S this turn (SQ-T4), then paid a table-talk discard
    (SQ-T6): the dead card lies under it, and the position read back is taken."""
    options = {"players": 4}  # green p1 p3, blue p2 p4
    board = _fold(sq.new_game("sequence", options, SEED))["board"]
    two_s = [[r, c] for r in range(10) for c in range(10) if board[r][c] == "2S"]
    position = {
        "game": "sequence",
        "chips": {"green": two_s[:1], "blue": two_s[1:]},
        "hands": {"p1": ["3H", "4H", "5H", "6H", "7H", "8H"], "p2": 6, "p3": 6, "p4": 6},
        "discards": {"p1": ["2S", "2S"], "p2": ["JD"]},
        "turn": "p1",
        "turn_number": 5,
        "exchanged": True,
        "penalty_due": ["p1"],
    }
    state = _start(position, **options)
    state = _fold(sq.apply(state, "p1", {"type": "penalty-discard", "card": "3H"}), state)
    assert state["discards"]["p1"] == ["2S", "2S", "3H"] and state["exchanged"]
    again = _start(json.loads(json.dumps(sq.position(state, "referee"))), **options)
    assert sq.view(again, "referee") == sq.view(state, "referee")


def test_sq_e1_a_real_stalemate_starts_again_from_its_own_position():
    """The stalemate is judged when the deck runs out again, so a closed board's game
    ends with stalemate_decks - 1 whole decks recorded: its position is accepted."""
    options = {"players": 3}
    state = _played("sequence", options, MAX_ACTIONS, seed="%064x" % 1, rnd=random.Random(0))
    assert state["result"]["reason"] == "stalemate" and sq.turn.board_closed(state)
    position = json.loads(json.dumps(sq.position(state, "referee")))
    assert position["decks_without_sequence"] == options.get("stalemate_decks", 2) - 1
    again = _fold(sq.start_from_position("sequence", options, "%064x" % 1, position))
    assert sq.view(again, "referee")["result"] == sq.view(state, "referee")["result"]


def test_sq_s3_a_running_game_past_its_target_is_refused():
    cells = [[0, c] for c in range(1, 6)] + [[c, 0] for c in range(1, 6)]
    refusal = _refused(
        _base(
            chips={"green": cells},
            sequences=[
                {"side": "green", "cells": cells[:5]},
                {"side": "green", "cells": cells[5:]},
            ],
            hands={"p1": 7, "p2": 7},
            reshuffles=1,
        )
    )
    assert (refusal.extra["field"], refusal.rule) == ("sequences", "SQ-S3")


def test_table_dealing_positions_owe_draws_in_play_order():
    table = dict(dealing="table")
    hands = {"p1": ["7S", "2H", "3H", "4H", "5H", "6H"], "p2": 6}
    state = _start(_base(hands=hands, owed_draws=["p2", "p1"], turn="p1", turn_number=9), **table)
    assert state["pending_draws"] == {"p2": 1, "p1": 2}
    refusal = _refused(
        _base(hands={"p1": ["7S", "2H", "3H", "4H", "5H", "6H", "7H"], "p2": 6}, owed_draws=["p1"]),
        **table,
    )
    assert (refusal.extra["field"], refusal.rule) == ("hands.p1", "SQ-P2")
    refusal = _refused(
        _base(hands={"p1": 6, "p2": 7}, discards={"p2": ["AD"]}, chips={}, owed_draws=["p1"]),
        **table,
    )
    assert (refusal.extra["field"], refusal.rule) == ("owed_draws", "SQ-T5")


def test_table_deal_phase_positions_continue_the_deal():
    state = _start(
        {"game": "sequence", "chips": {}, "hands": {"p1": ["2S", "3S"], "p2": []}, "turn": None},
        dealing="table",
    )
    assert state["phase"] == "deal" and sq.view(state, "referee")["deck_count"] == 102
    state = _fold(sq.apply(state, "referee", {"type": "draw", "seat": "p2", "card": "9C"}), state)
    assert state["hands"]["p2"] == ["9C"]


def test_sn_p2_sequence_numbers_hand_size_is_its_own_rule():
    refusal = _refused(
        {"game": "sequence-numbers", "chips": {}, "hands": {"p1": 6, "p2": 5}, "turn": "p1"},
        "sequence-numbers",
    )
    assert (refusal.extra["field"], refusal.rule) == ("hands.p1", "SN-P2")


def _conserved(state, full):
    total = Counter(state["deck"])
    for seat in state["seats"]:
        total.update(state["hands"][seat] + state["discards"][seat])
    return total == full


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    setup=st.sampled_from(SETUPS),
    seed=st.binary(min_size=32, max_size=32),
    rnd=st.randoms(use_true_random=False),
    stop=st.integers(min_value=0, max_value=250),
    viewer=st.sampled_from(["referee", "p1", None]),
)
def test_g_p1_play_goes_on_from_a_random_games_position(setup, seed, rnd, stop, viewer):
    """Conservation and termination (SQ-E1) from the position of a random game at a
    random point, read by the referee, a seat or the public (unseen hands dealt from
    the seed)."""
    game, options = setup
    original = _played(game, options, stop, seed.hex(), rnd)
    position = copy.deepcopy(sq.position(original, viewer))
    state = _fold(sq.start_from_position(game, options, seed.hex(), position))
    full = Counter(state["deck_cards"] or []) or Counter(
        sq.new_game(game, options, seed.hex())[0]["deck"]
    )
    assert _conserved(state, full)
    assert sq.view(state, None)["chips"] == sq.view(original, None)["chips"]
    for _ in range(MAX_ACTIONS):
        if state["status"] != "active":
            break
        actor, action = choose(state, rnd)
        locked = list(state["sequences"])
        for event in sq.apply(state, actor, action):
            state = sq.fold(state, event)
            check_event_invariants(state, full, locked)
        check_nothing_missed(state)
    assert state["status"] == "finished"


@pytest.mark.parametrize(
    "game, options", [("sequence", {"dealing": "table", "players": 4}), ("sequence-numbers", {})]
)
def test_g_p1_the_schema_takes_every_position_the_engine_reads(game, options):
    from service.api.sequence import SequencePositionSchema

    original = _played(game, options, 40)
    loaded = SequencePositionSchema().load(json.loads(json.dumps(sq.position(original, "referee"))))
    state = _start(loaded, game, **options)
    assert _without_view_flag(sq.view(state, "p1")) == _without_view_flag(sq.view(original, "p1"))
    with pytest.raises(Exception, match="hands"):
        SequencePositionSchema().load({"game": game, "chips": {}, "hands": {"p1": "7H"}})


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 12)
    | st.text(max_size=4)
    | st.sampled_from(["p1", "p2", "green", "7S", "JD", "sequence"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["p1", "p2", "green", "reason"]), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(
    field=st.sampled_from(sorted(sq.positions.FIELDS)),
    value=JSON,
    options=st.sampled_from([{}, {"dealing": "table"}]),
)
def test_g_p1_any_malformed_field_is_a_422_never_a_crash(field, value, options):
    """Every bad input is a clear refusal (invalid-position, 422, naming field and rule)."""
    try:
        _fold(sq.start_from_position("sequence", options, SEED, _base(**{field: value})))
    except RuleViolation as refusal:
        assert refusal.status == 422 and refusal.code == "invalid-position"
        assert refusal.rule and refusal.extra["field"]


def test_sq_e1_a_seat_that_laid_no_card_passed_every_turn_it_had():
    # no discard pile holds a card: every turn was a pass, and a whole round of passes
    # ends the game, so p1 cannot be on turn 3 of a running game (nor 101)
    for number in (3, 101):
        refusal = _refused(
            {"chips": {}, "hands": {"p1": 7, "p2": 7}, "turn": "p1", "turn_number": number}
        )
        assert (refusal.extra["field"], refusal.rule) == ("turn_number", "SQ-E1")
    # p1 passed turn 1: passes counts it
    alone = {"chips": {}, "hands": {"p1": 7, "p2": 7}, "turn": "p2", "turn_number": 2}
    assert _start({**alone, "passes": 1})["passes"] == 1
    refusal = _refused(alone)
    assert (refusal.extra["field"], refusal.rule) == ("passes", "SQ-E1")
    # no more passes than turns played
    refusal = _refused({**alone, "turn": "p1", "turn_number": 1, "passes": 1})
    assert (refusal.extra["field"], refusal.rule) == ("passes", "SQ-E1")
    # three seats: p1 played on turn 1, then p2 and p3 passed (2 counted)
    three = {
        "chips": {"green": [[0, 2]]},
        "hands": {"p1": 6, "p2": 6, "p3": 6},
        "discards": {"p1": ["4S"]},
        "turn": "p1",
        "turn_number": 4,
    }
    assert _start({**three, "passes": 2}, players=3)["passes"] == 2
    refusal = _refused({**three, "passes": 1}, players=3)
    assert (refusal.extra["field"], refusal.rule) == ("passes", "SQ-E1")
    assert "(p2, p3)" in str(refusal.detail)
    # after p3 played on turn 3, p2's pass no longer counts
    played = {
        **three,
        "chips": {"green": [[0, 2]], "red": [[4, 4]]},
        "discards": {"p1": ["4S"], "p3": ["5D"]},
    }
    assert _start(played, players=3)["passes"] == 0
    # team play: a table-talk discard starts the count again, so p2's pass may not count
    teams = {
        "chips": {"green": [[0, 2]]},
        "hands": {"p1": 6, "p2": 6, "p3": 6, "p4": 6},
        "discards": {"p1": ["4S"]},
        "turn": "p3",
        "turn_number": 3,
    }
    assert _start(teams, players=4)["passes"] == 0


def test_sq_t6_a_team_seat_is_short_by_its_table_talk_discards_at_most():
    # server dealing, no reshuffle: every draw was made, so p3 (a team's seat, 6 cards
    # a hand) can be short only by the table-talk discards on its own pile
    position = {"chips": {}, "hands": {"p1": 6, "p2": 6, "p3": 2, "p4": 6}, "turn": "p1"}
    refusal = _refused(position, players=4)
    assert (refusal.extra["field"], refusal.rule) == ("hands.p3", "SQ-P2")
    talk = {**position, "discards": {"p3": ["2H", "3H", "4H", "5H"]}}
    assert len(_start(talk, players=4)["hands"]["p3"]) == 2
    refusal = _refused({**talk, "discards": {"p3": ["2H", "3H", "4H"]}}, players=4)
    assert refusal.extra["field"] == "hands.p3"
    # table dealing: a draw may be owed or lost, so the hand may be shorter
    assert len(_start(position, players=4, dealing="table")["hands"]["p3"]) == 2
