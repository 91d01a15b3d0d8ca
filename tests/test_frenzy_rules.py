"""Solitaire Frenzy (RULES.md §5): every SF rule ID on constructed positions.

Positions are built by dealing a real game and then laying out the seats' cards by
hand (``lay``); the engine never relies on a seat holding all 52 cards, so a layout
lists only the cards that matter. Foundations are given as ``(owner, cards)``.
"""

from __future__ import annotations

import copy
import json

import pytest

from service.cards import DECK
from service.games import RuleViolation
from service.games import solitaire_frenzy as sf

SEED = "5f" * 32


def new_state(players: int = 2, **options) -> dict:
    state = None
    for event in sf.new_game(sf.GAME, {"players": players, **options}, SEED):
        state = sf.fold(state, event)
    return state


def lay(
    state: dict,
    seat: str,
    pile=(),
    columns=((), (), (), ()),
    hand=(),
    waste=(),
    pass_=None,
    reach=None,
) -> dict:
    """``state`` with ``seat``'s layout replaced (pile top last, hand next-to-turn
    first, waste top last)."""
    state = copy.deepcopy(state)
    state["layouts"][seat] = {
        "pile": list(pile),
        "columns": [list(c) for c in columns],
        "hand": list(hand),
        "waste": list(waste),
        "pass": pass_,
        "reach": reach,
    }
    return state


def board(state: dict, *piles: tuple[str, list[str]]) -> dict:
    """``state`` with the foundations ``piles`` (ids 1, 2, ...), each ``(owner, cards)``."""
    state = copy.deepcopy(state)
    state["foundations"] = [
        {"id": i, "suit": cards[0][-1], "cards": [{"card": c, "seat": owner} for c in cards]}
        for i, (owner, cards) in enumerate(piles, 1)
    ]
    return state


def act(state: dict, seat: str, action: dict) -> tuple[list[dict], dict]:
    before = copy.deepcopy(state)
    events = sf.apply(state, seat, action)
    assert state == before, "apply mutated its input"
    after = state
    for event in events:
        after = sf.fold(after, event)
    assert state == before, "fold mutated its input"
    return events, after


def refused(state: dict, seat: str, action: dict, code: str, status: int = 409) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        sf.apply(state, seat, action)
    assert caught.value.code == code, caught.value.detail
    assert caught.value.status == status
    assert caught.value.rule, "G-R1: every refusal names its rule"
    return caught.value


def play(card: str, **target) -> dict:
    return {"type": "play", "round": 1, "card": card, **target}


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


# ----- SF-P0, SF-P1: players and the deal ---------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_sf_p0_two_to_six_players(players):
    state = new_state(players)
    assert state["seats"] == [f"p{i}" for i in range(1, players + 1)]


@pytest.mark.parametrize("players", [1, 7, 0, "4", True, 2.0, [2]])
def test_sf_p0_other_counts_refused(players):
    with pytest.raises(RuleViolation) as caught:
        sf.new_game(sf.GAME, {"players": players}, SEED)
    assert caught.value.code == "invalid-option"
    assert caught.value.status == 422 and caught.value.rule == "SF-P0"


@pytest.mark.parametrize(
    "options, rule",
    [
        ({"rounds": 0}, "SF-E2"),
        ({"rounds": 3.0}, "SF-E2"),
        ({"pile_penalty": -1}, "SF-E2"),
        ({"one_pile_per_suit": 1}, "SF-F1"),
        ({"play_order": "STRICT"}, "SF-O1"),
        ({"dealing": "remote"}, "SF-M1"),
        ({"colour": "red"}, "G-O1"),
        ({"idle_seconds": 0}, "G-T1"),
        ({"first_seat": "p3"}, "G-O1"),
        ({"first_seat": 1}, "G-O1"),
    ],
)
def test_invalid_options_are_422_with_their_rule(options, rule):
    with pytest.raises(RuleViolation) as caught:
        sf.new_game(sf.GAME, options, SEED)
    assert (caught.value.code, caught.value.status, caught.value.rule) == (
        "invalid-option",
        422,
        rule,
    )


def test_g_o1_first_seat_is_accepted_and_everyone_starts_at_once():
    state = new_state(3, first_seat="p3")
    assert state["options"]["first_seat"] == "p3"
    assert all(
        {"type": "turn", "round": 1} in sf.legal_actions(state, seat) for seat in state["seats"]
    )


def test_sf_p1_deal_is_a_whole_deck_per_seat():
    state = new_state(4)
    for seat in state["seats"]:
        layout = state["layouts"][seat]
        assert len(layout["pile"]) == 13
        assert [len(c) for c in layout["columns"]] == [1, 1, 1, 1]
        assert len(layout["hand"]) == 35 and layout["waste"] == []
        cards = layout["pile"] + sum(layout["columns"], []) + layout["hand"]
        assert sorted(cards) == sorted(DECK)
    orders = {tuple(state["layouts"][s]["hand"]) for s in state["seats"]}
    assert len(orders) == 4, "each deck is shuffled on its own"


def test_sf_p1_dealt_event_shows_only_face_up_cards():
    events = sf.new_game(sf.GAME, {"players": 2}, SEED)
    state = sf.fold_all(None, events)
    dealt = [e for e in events if e["type"] == "dealt"]
    assert [e["seat"] for e in dealt] == ["p1", "p2"]
    for event in dealt:
        layout = state["layouts"][event["seat"]]
        assert event["pile_top"] == layout["pile"][-1]
        assert event["columns"] == layout["columns"]
        assert (event["pile_size"], event["hand_size"]) == (13, 35)
        hidden = set(layout["pile"][:-1] + layout["hand"])
        shown = {event["pile_top"], *sum(event["columns"], [])}
        assert not hidden & shown and set(event) == {
            "type",
            "seat",
            "round",
            "pile_top",
            "pile_size",
            "columns",
            "hand_size",
        }


# ----- SF-P2: the 13-pile top ---------------------------------------------------------


def test_sf_p2_pile_top_to_board_turns_up_the_next_card():
    state = lay(new_state(), "p1", pile=["9C", "AS"])
    events, after = act(state, "p1", play("AS", to="foundation", based_on="new"))
    assert events[0] == {
        "type": "played",
        "seat": "p1",
        "card": "AS",
        "from": "pile",
        "to": "foundation",
        "pile": 1,
        "based_on": "new",
        "exposed": "9C",
    }
    assert after["foundations"][0]["cards"] == [{"card": "AS", "seat": "p1"}]
    assert sf.view(after, "p2")["players"]["p1"]["pile_top"] == "9C"


def test_sf_p2_pile_top_onto_a_column_and_into_an_empty_one():
    state = lay(new_state(), "p1", pile=["4C", "9C", "8D"], columns=[["9S"], [], ["QH"], ["2C"]])
    refused(state, "p1", play("9C", to="column", column=1), "card-not-on-top")
    _, after = act(state, "p1", play("8D", to="column", column=0))
    assert after["layouts"]["p1"]["columns"][0] == ["9S", "8D"]
    events, after = act(after, "p1", {"type": "refill", "round": 1, "card": "9C", "column": 1})
    assert events[0]["type"] == "refilled" and events[0]["exposed"] == "4C"
    assert after["layouts"]["p1"]["columns"][1] == ["9C"]


# ----- SF-F1, SF-F2: foundations --------------------------------------------------


def test_sf_f1_pile_grows_by_one_rank_in_one_suit():
    state = board(
        lay(new_state(), "p1", pile=["6S", "7H", "5H", "6H"]), ("p2", ["AH", "2H", "3H", "4H"])
    )
    refused(state, "p1", play("6H", to="foundation", pile=1, based_on="4H"), "wrong-rank")
    state = lay(state, "p1", pile=["KC", "5S"])
    refused(state, "p1", play("5S", to="foundation", pile=1, based_on="4H"), "wrong-suit")
    state = lay(state, "p1", pile=["6H", "5H"])
    _, after = act(state, "p1", play("5H", to="foundation", pile=1, based_on="4H"))
    assert [e["card"] for e in after["foundations"][0]["cards"]] == ["AH", "2H", "3H", "4H", "5H"]
    assert [e["seat"] for e in after["foundations"][0]["cards"]] == ["p2"] * 4 + ["p1"]


def test_sf_f1_only_an_ace_starts_a_pile():
    state = lay(new_state(), "p1", pile=["KC", "2H"])
    error = refused(state, "p1", play("2H", to="foundation", based_on="new"), "new-pile-needs-ace")
    assert error.rule == "SF-F1"


def test_sf_f1_ace_aimed_at_an_existing_pile_is_refused_never_redirected():
    state = board(lay(new_state(), "p1", pile=["KC", "AH"]), ("p2", ["AH", "2H"]))
    error = refused(
        state, "p1", play("AH", to="foundation", pile=1, based_on="2H"), "ace-needs-new-pile"
    )
    assert "new" in error.detail
    _, after = act(state, "p1", play("AH", to="foundation", based_on="new"))
    assert [p["id"] for p in after["foundations"]] == [1, 2], "a second hearts pile"
    assert [len(p["cards"]) for p in after["foundations"]] == [2, 1]


def test_sf_f1_unlimited_piles_one_per_ace():
    state = lay(lay(new_state(), "p1", pile=["KC", "AH"]), "p2", pile=["KC", "AH"])
    _, state = act(state, "p1", play("AH", to="foundation", based_on="new"))
    _, state = act(state, "p2", play("AH", to="foundation", based_on="new"))
    assert [(p["id"], p["suit"], p["cards"][0]["seat"]) for p in state["foundations"]] == [
        (1, "H", "p1"),
        (2, "H", "p2"),
    ]


def test_sf_f1_complete_pile_takes_nothing():
    run = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS"]
    state = board(lay(new_state(), "p1", pile=["KC", "2S"]), ("p2", run))
    refused(state, "p1", play("2S", to="foundation", pile=1, based_on="KS"), "pile-complete")


def test_sf_t1_two_aces_racing_for_the_one_pile_of_a_suit():
    # one_pile_per_suit: both seats aim their AH at "new"; the second arrives stale
    base = new_state(one_pile_per_suit=True)
    base = lay(base, "p1", pile=["9C", "AH"], columns=[["KS"], ["QD"], ["9S"], ["8H"]])
    base = lay(base, "p2", pile=["3D", "AH"], columns=[["KC"], ["QH"], ["9D"], ["8D"]])
    ace = play("AH", to="foundation", based_on="new")
    _, after = act(base, "p1", ace)
    error = refused(after, "p2", ace, "stale-top-card")
    assert error.rule == "SF-T1"
    assert error.extra["top"] == {"pile": 1, "card": "AH", "seat": "p1"}
    # without the option the second Ace starts a pile of its own (SF-F1: unlimited)
    base = {**base, "options": {**base["options"], "one_pile_per_suit": False}}
    _, after = act(base, "p1", ace)
    _, after = act(after, "p2", ace)
    assert [p["suit"] for p in after["foundations"]] == ["H", "H"]


def test_sf_f1_option_one_pile_per_suit():
    base = lay(new_state(one_pile_per_suit=True), "p1", pile=["KC", "AH"])
    state = board(base, ("p2", ["AH", "2H"]))
    error = refused(state, "p1", play("AH", to="foundation", based_on="new"), "stale-top-card")
    assert error.rule == "SF-T1"
    assert error.extra["top"] == {"pile": 1, "card": "2H", "seat": "p2"}
    run = ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH"]
    _, after = act(board(base, ("p2", run)), "p1", play("AH", to="foundation", based_on="new"))
    assert len(after["foundations"]) == 2, "a completed pile frees its suit"
    # default: unlimited
    _, after = act(
        board(lay(new_state(), "p1", pile=["KC", "AH"]), ("p2", ["AH", "2H"])),
        "p1",
        play("AH", to="foundation", based_on="new"),
    )
    assert len(after["foundations"]) == 2


def test_sf_f1_board_cards_never_move_again():
    state = board(
        lay(new_state(), "p1", pile=["9C"], columns=[["10D"], [], [], []]), ("p1", ["AS", "2S"])
    )
    refused(state, "p1", play("2S", to="column", column=0), "card-on-board")
    refused(state, "p1", play("2S", to="foundation", based_on="new"), "card-on-board")


def test_sf_f2_one_card_per_play():
    state = board(
        lay(new_state(), "p1", pile=["KC"], columns=[["9C", "8H", "7S"], [], [], []]),
        ("p2", ["AS", "2S", "3S", "4S", "5S", "6S"]),
    )
    events, after = act(state, "p1", play("7S", to="foundation", pile=1, based_on="6S"))
    assert [e["type"] for e in events][:1] == ["played"] and events[0]["card"] == "7S"
    assert after["layouts"]["p1"]["columns"][0] == ["9C", "8H"]
    refused(
        state,
        "p1",
        {**play("7S", to="foundation", pile=1, based_on="6S"), "cards": ["7S", "8H"]},
        "invalid-action",
        422,
    )


# ----- SF-R1..R4: columns -------------------------------------------------------


def test_sf_r1_columns_build_down_in_alternating_colours():
    state = lay(
        new_state(), "p1", pile=["8C", "8D", "9H"], columns=[["10S"], ["10H"], ["QC"], ["2C"]]
    )
    refused(state, "p1", play("9H", to="column", column=1), "wrong-colour")
    refused(state, "p1", play("9H", to="column", column=2), "wrong-rank")
    _, after = act(state, "p1", play("9H", to="column", column=0))
    error = refused(after, "p1", play("8D", to="column", column=0), "wrong-colour")
    assert error.rule == "SF-R1"
    state = lay(state, "p1", pile=["KS", "8D"], columns=[["9C"], [], [], []])
    _, after = act(state, "p1", play("8D", to="column", column=0))  # suit does not matter
    assert after["layouts"]["p1"]["columns"][0] == ["9C", "8D"]


def test_sf_r2_whole_column_moves_onto_another():
    state = lay(
        new_state(), "p1", pile=["KC"], columns=[["10H", "9S", "8H"], ["QH", "JC"], ["5S"], ["6S"]]
    )
    events, after = act(state, "p1", {"type": "move", "round": 1, "from_column": 0, "to_column": 1})
    assert events[0] == {
        "type": "column-moved",
        "seat": "p1",
        "from_column": 0,
        "to_column": 1,
        "cards": ["10H", "9S", "8H"],
    }
    assert after["layouts"]["p1"]["columns"][:2] == [[], ["QH", "JC", "10H", "9S", "8H"]]
    error = refused(
        state, "p1", {"type": "move", "round": 1, "from_column": 2, "to_column": 3}, "wrong-colour"
    )
    assert error.rule == "SF-R2"


def test_sf_r2_no_single_card_from_a_longer_column():
    state = lay(new_state(), "p1", pile=["KC"], columns=[["10H", "9S"], ["10D"], [], ["5S"]])
    error = refused(state, "p1", play("9S", to="column", column=1), "not-whole-column")
    assert error.rule == "SF-R2"
    refused(state, "p1", play("10H", to="column", column=3), "not-whole-column")


def test_sf_r2_one_card_column_is_a_whole_column():
    state = lay(new_state(), "p1", pile=["KC"], columns=[["9S"], ["10D"], ["4C"], ["5S"]])
    events, after = act(state, "p1", play("9S", to="column", column=1))
    assert events[0]["type"] == "column-moved"
    assert after["layouts"]["p1"]["columns"][:2] == [[], ["10D", "9S"]]


def test_sf_r2_column_never_moves_into_an_empty_spot():
    state = lay(new_state(), "p1", pile=["KC"], columns=[["10H", "9S"], [], ["4D"], ["5S"]])
    move = {"type": "move", "round": 1, "from_column": 0, "to_column": 1}
    assert refused(state, "p1", move, "move-to-empty").rule == "SF-R2"
    refused(state, "p1", play("4D", to="column", column=1), "move-to-empty")
    refused(state, "p1", {"type": "refill", "round": 1, "card": "9S", "column": 1}, "move-to-empty")
    refused(state, "p1", {**move, "from_column": 1, "to_column": 0}, "column-empty")
    assert not any(
        a["type"] == "move" and a["to_column"] == 1 for a in sf.legal_actions(state, "p1")
    )


def test_sf_r3_exposed_column_card_to_the_board_only():
    state = board(
        lay(new_state(), "p1", pile=["KC"], columns=[["5H", "4S"], [], [], []]),
        ("p2", ["AS", "2S", "3S"]),
        ("p2", ["AH", "2H", "3H", "4H"]),
    )
    error = refused(
        state, "p1", play("5H", to="foundation", pile=2, based_on="4H"), "card-not-on-top"
    )
    assert error.rule == "SF-R3" and "4S" in error.detail
    events, after = act(state, "p1", play("4S", to="foundation", pile=1, based_on="3S"))
    assert events[0]["from"] == "column" and events[0]["from_column"] == 0
    _, after = act(after, "p1", play("5H", to="foundation", pile=2, based_on="4H"))
    assert after["layouts"]["p1"]["columns"][0] == []


def test_sf_r4_refill_from_pile_or_waste_only():
    state = lay(
        new_state(),
        "p1",
        pile=["3C", "KH"],
        columns=[["9S"], [], ["QC"], ["5D"]],
        waste=["7C", "JD"],
        hand=["2H"],
    )
    _, after = act(state, "p1", {"type": "refill", "round": 1, "card": "JD", "column": 1})
    assert after["layouts"]["p1"]["columns"][1] == ["JD"]
    assert after["layouts"]["p1"]["waste"] == ["7C"]
    _, after = act(state, "p1", {"type": "refill", "round": 1, "card": "KH", "column": 1})
    assert after["layouts"]["p1"]["columns"][1] == ["KH"]
    refused(
        state, "p1", {"type": "refill", "round": 1, "card": "KH", "column": 0}, "column-not-empty"
    )
    refused(
        state, "p1", {"type": "refill", "round": 1, "card": "2H", "column": 1}, "card-not-on-top"
    )
    # a play into an empty column is the same refill
    events, _ = act(state, "p1", play("KH", to="column", column=1))
    assert events[0]["type"] == "refilled"


def test_sf_r4_possible_refill_counts_as_productive():
    """An empty column and a 13-pile card: the seat can move, so the round goes on."""
    state = lay(new_state(), "p1", pile=["KC"], columns=[["9D"], ["9H"], ["8D"], []])
    assert sf.can_move(state, "p1") is True
    state = lay(state, "p1", pile=["KC"], columns=[["9D"], ["9H"], ["8D"], ["8H"]])
    assert sf.can_move(state, "p1") is False


# ----- SF-O1: play order -----------------------------------------------------------


def test_sf_o1_strict_refuses_waste_play_while_pile_top_plays():
    layout = dict(
        pile=["KH", "9C", "AD"], columns=[["10D"], ["KS"], ["QS"], ["JS"]], waste=["2H", "AC"]
    )
    strict = lay(new_state(play_order="strict"), "p1", **layout)
    error = refused(strict, "p1", play("AC", to="foundation", based_on="new"), "play-order")
    assert error.rule == "SF-O1"
    assert not [a for a in sf.legal_actions(strict, "p1") if a.get("card") == "AC"]
    _, after = act(strict, "p1", play("AD", to="foundation", based_on="new"))
    _, after = act(after, "p1", play("9C", to="column", column=0))
    _, after = act(after, "p1", play("AC", to="foundation", based_on="new"))  # now allowed
    free = lay(new_state(), "p1", **layout)
    _, after = act(free, "p1", play("AC", to="foundation", based_on="new"))
    assert after["foundations"][0]["cards"][0]["card"] == "AC"


def test_sf_o1_strict_counts_column_cards_to_the_board():
    state = board(
        lay(
            new_state(play_order="strict"),
            "p1",
            pile=["9D", "KC"],
            columns=[["3S"], ["KS"], ["QS"], ["JS"]],
            waste=["AH"],
        ),
        ("p2", ["AS", "2S"]),
    )
    refused(state, "p1", play("AH", to="foundation", based_on="new"), "play-order")
    _, after = act(state, "p1", play("3S", to="foundation", pile=1, based_on="2S"))
    refused(after, "p1", {"type": "refill", "round": 1, "card": "AH", "column": 0}, "play-order")
    _, after = act(after, "p1", {"type": "refill", "round": 1, "card": "KC", "column": 0})
    _, after = act(after, "p1", play("AH", to="foundation", based_on="new"))
    assert after["foundations"][1]["cards"] == [{"card": "AH", "seat": "p1"}]


def test_sf_o1_strict_refusal_names_what_to_play_instead():
    state = board(
        lay(
            new_state(play_order="strict"),
            "p1",
            pile=["9D", "KC"],
            columns=[["3S"], ["KS"], ["QS"], ["JS"]],
            waste=["AH"],
        ),
        ("p2", ["AS", "2S"]),
    )
    error = refused(state, "p1", play("AH", to="foundation", based_on="new"), "play-order")
    assert error.detail.params["cards"] == "3S"
    state = lay(
        state, "p1", pile=["9D", "5D"], columns=[["3S"], ["KS"], ["QS"], ["JS"]], waste=["AH"]
    )
    error = refused(state, "p1", play("AH", to="foundation", based_on="new"), "play-order")
    assert error.detail.params["cards"] == "3S", "5D goes nowhere: only 3S is named"
    state = lay(
        state, "p1", pile=["9D", "JD"], columns=[["3S"], ["KS"], ["QS"], ["JS"]], waste=["AH"]
    )
    error = refused(state, "p1", play("AH", to="foundation", based_on="new"), "play-order")
    assert error.detail.params["cards"] == "JD, 3S"


def test_sf_o1_strict_refuses_a_turn_while_the_waste_top_could_be_played():
    layout = dict(
        pile=["KH", "9C"],
        columns=[["10D"], ["KS"], ["QS"], ["JS"]],
        waste=["2H", "10H"],
        hand=["4C", "5C", "6C"],
    )
    strict = lay(new_state(play_order="strict"), "p1", **layout)
    turn = {"type": "turn", "round": 1}
    error = refused(strict, "p1", turn, "play-order")
    assert (error.rule, error.detail.params["card"]) == ("SF-O1", "10H")
    assert turn not in sf.legal_actions(strict, "p1")
    assert play("10H", to="column", column=3) not in sf.legal_actions(strict, "p1"), (
        "9C (the 13-pile top) goes first"
    )
    _, after = act(strict, "p1", play("9C", to="column", column=0))
    _, after = act(after, "p1", play("10H", to="column", column=3))
    assert turn in sf.legal_actions(after, "p1")  # the waste top 2H goes nowhere
    free = lay(new_state(), "p1", **layout)
    act(free, "p1", turn)
    refill = lay(
        new_state(play_order="strict"),
        "p1",
        pile=["KH"],
        waste=["2H"],
        hand=["4C"],
        columns=[["10D"], ["KS"], ["QS"], []],
    )
    refused(refill, "p1", turn, "play-order")  # 2H could refill the empty column


def test_g_r1_game_over_cites_the_rule_that_ended_the_game():
    state = new_state(rounds=1)
    _, over = act(state, "referee", {"type": "retire", "seat": "p2"})
    assert over["result"]["reason"] == "last-seat"
    assert refused(over, "p1", {"type": "turn", "round": 2}, "game-over").rule == "SF-E3"
    played = copy.deepcopy(over)
    played["result"] = {**played["result"], "reason": "rounds-played"}
    assert refused(played, "p1", {"type": "turn", "round": 2}, "game-over").rule == "SF-E2"


# ----- SF-H1: the hand ----------------------------------------------------------


def test_sf_h1_turns_three_keeping_order_then_fewer_then_recycles_unshuffled():
    hand = ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C"]
    state = lay(
        new_state(),
        "p1",
        pile=["KD"],
        columns=[["KS"], ["KH"], ["KC"], ["QD"]],
        hand=hand,
        pass_=[],
    )
    turn = {"type": "turn", "round": 1}
    tops = []
    for _ in range(4):
        events, state = act(state, "p1", turn)
        tops.append((events[0]["top"], events[0]["count"], events[0]["recycled"]))
    assert tops == [("4C", 3, False), ("7C", 3, False), ("9C", 2, False), ("4C", 3, True)]
    layout = state["layouts"]["p1"]
    assert layout["waste"] == hand[:3] and layout["hand"] == hand[3:]


def test_sf_h1_nothing_to_turn():
    state = lay(new_state(), "p1", pile=["KD"])
    error = refused(state, "p1", {"type": "turn", "round": 1}, "nothing-to-turn")
    assert error.rule == "SF-H1"
    assert {"type": "turn", "round": 1} not in sf.legal_actions(state, "p1")


def test_sf_h1_only_the_top_waste_card_plays_and_exposes_the_one_below():
    state = lay(
        new_state(),
        "p1",
        pile=["KD"],
        columns=[["KS"], ["KH"], ["KC"], ["QD"]],
        hand=["AH", "5C"],
        waste=["AS", "AD", "AC"],
    )
    below = refused(state, "p1", play("AD", to="foundation", based_on="new"), "card-not-on-top")
    in_hand = refused(state, "p1", play("AH", to="foundation", based_on="new"), "card-not-on-top")
    # one detail wherever a card is hidden: the refusal does not say where
    assert below.detail.replace("AD", "X") == in_hand.detail.replace("AH", "X")
    assert below.rule == in_hand.rule
    events, after = act(state, "p1", play("AC", to="foundation", based_on="new"))
    assert events[0]["exposed"] == "AD"
    assert sf.view(after, "p2")["players"]["p1"]["waste_top"] == "AD"


def test_sf_h1_face_down_pile_card_refused_like_a_hand_card():
    state = lay(new_state(), "p1", pile=["AS", "KD"], hand=["AH"])
    pile = refused(state, "p1", play("AS", to="foundation", based_on="new"), "card-not-on-top")
    hand = refused(state, "p1", play("AH", to="foundation", based_on="new"), "card-not-on-top")
    assert pile.detail.replace("AS", "X") == hand.detail.replace("AH", "X")


# ----- SF-T1: races on foundations ------------------------------------------------


def test_sf_t1_second_play_on_the_same_top_is_stale():
    state = board(new_state(), ("p1", ["AH", "2H", "3H", "4H"]))
    state = lay(lay(state, "p1", pile=["KC", "5H"]), "p2", pile=["KD", "5H"])
    aimed = play("5H", to="foundation", pile=1, based_on="4H")
    _, after = act(state, "p1", aimed)
    error = refused(after, "p2", aimed, "stale-top-card")
    assert error.rule == "SF-T1" and "5H" in error.detail and "p1" in error.detail
    assert error.extra == {"top": {"pile": 1, "card": "5H", "seat": "p1"}}
    assert after["layouts"]["p2"]["pile"] == ["KD", "5H"], "the loser's card stays put"
    assert [e["card"] for e in after["foundations"][0]["cards"]].count("5H") == 1


def test_sf_t1_aim_that_never_was_the_top():
    state = board(lay(new_state(), "p1", pile=["KC", "5H"]), ("p2", ["AH", "2H", "3H", "4H"]))
    refused(state, "p1", play("5H", to="foundation", pile=1, based_on="9S"), "not-pile-top")
    refused(state, "p1", play("5H", to="foundation", pile=7, based_on="4H"), "unknown-pile")
    error = refused(state, "p1", play("5H", to="foundation", pile=1), "invalid-action", 422)
    assert error.rule == "SF-T1"


def test_sf_t1_two_aces_at_once_make_two_piles():
    state = lay(lay(new_state(), "p1", pile=["KC", "AH"]), "p2", pile=["KC", "AH"])
    _, state = act(state, "p1", play("AH", to="foundation", based_on="new"))
    _, state = act(state, "p2", play("AH", to="foundation", based_on="new"))
    assert len(state["foundations"]) == 2


# ----- SF-E1: the end of a round ---------------------------------------------


def _nearly_stuck(state: dict) -> dict:
    """p1 can play 5H onto pile 1 (AH..4H) and nothing else; p2 nothing at all."""
    state = board(state, ("p2", ["AH", "2H", "3H", "4H"]))
    state = lay(state, "p1", pile=["KC", "5H"], columns=[["2S"], ["2C"], ["3S"], ["3C"]])
    return lay(state, "p2", pile=["KD"], columns=[["2D"], ["2H"], ["3D"], ["3H"]])


def test_sf_e1_nobody_can_move_ends_the_round_in_the_same_action():
    state = _nearly_stuck(new_state())
    events, after = act(state, "p1", play("5H", to="foundation", pile=1, based_on="4H"))
    assert types(events) == ["played", "round-ended", "round-started", "dealt", "dealt"]
    ended = events[1]
    assert ended["reason"] == "stuck" and ended["out"] is None and ended["round"] == 1
    assert ended["board"] == {"p1": 1, "p2": 4} and ended["pile"] == {"p1": 1, "p2": 1}
    assert ended["scores"] == {"p1": 0, "p2": 3} and ended["totals"] == {"p1": 0, "p2": 3}
    assert after["round"] == 2 and after["foundations"] == []


def test_sf_e1_going_out_ends_the_round_and_later_plays_are_round_over():
    state = board(new_state(), ("p2", ["AH", "2H", "3H", "4H"]))
    state = lay(lay(state, "p1", pile=["5H"], hand=["AC"]), "p2", pile=["KS", "5H"], hand=["AD"])
    aimed = play("5H", to="foundation", pile=1, based_on="4H")
    events, after = act(state, "p1", aimed)
    assert events[1]["type"] == "round-ended"
    assert events[1]["reason"] == "out" and events[1]["out"] == "p1"
    assert events[1]["pile"]["p1"] == 0
    # p2's racing play aimed at round 1: round-over, which beats stale (one round-ender)
    error = refused(after, "p2", aimed, "round-over")
    assert error.rule == "SF-E1"
    refused(after, "p2", {"type": "turn", "round": 1}, "round-over")


def test_sf_e1_going_out_onto_a_column_or_a_refill():
    state = lay(new_state(), "p1", pile=["8D"], columns=[["9C"], [], ["KS"], ["KS"]], hand=["AC"])
    events, _ = act(state, "p1", play("8D", to="column", column=0))
    assert events[1]["reason"] == "out"
    events, _ = act(state, "p1", {"type": "refill", "round": 1, "card": "8D", "column": 1})
    assert events[1]["reason"] == "out"


def test_sf_e1_turning_alone_is_not_productive():
    """p2 can still turn its hand, but no card it turns up would play: stuck."""
    state = _nearly_stuck(new_state())
    state = lay(
        state,
        "p2",
        pile=["KD"],
        columns=[["2D"], ["2H"], ["3D"], ["3H"]],
        hand=["7C", "8C", "9S"],
        waste=["10C"],
    )
    assert {"type": "turn", "round": 1} in sf.legal_actions(state, "p2")
    events, _ = act(state, "p1", play("5H", to="foundation", pile=1, based_on="4H"))
    assert events[1]["type"] == "round-ended" and events[1]["reason"] == "stuck"


def test_sf_e1_a_reachable_card_keeps_the_round_open():
    """p2's 6H turns up as the third card: p2 can move, the round goes on."""
    state = lay(
        _nearly_stuck(new_state()),
        "p2",
        pile=["KD"],
        columns=[["2D"], ["2H"], ["3D"], ["3H"]],
        hand=["7C", "8C", "6H"],
        pass_=[],
    )
    events, after = act(state, "p1", play("5H", to="foundation", pile=1, based_on="4H"))
    assert types(events) == ["played"]
    events, after = act(after, "p2", {"type": "turn", "round": 1})
    assert types(events) == ["turned"] and events[0]["top"] == "6H"
    events, after = act(after, "p2", play("6H", to="foundation", pile=1, based_on="5H"))
    assert events[1]["reason"] == "stuck"


def test_sf_e1_unreachable_card_ends_the_round_once_the_hand_was_turned_through():
    """p2's 6H is never on top (first of a group of three). Its hand order is hidden,
    so the end waits until p2 has turned through its hand, showing every card turning
    can reach; then the turn that completes the pass ends the round."""
    state = lay(
        _nearly_stuck(new_state()),
        "p2",
        pile=["KD"],
        columns=[["2D"], ["2H"], ["3D"], ["3H"]],
        hand=["6H", "7C", "8C"],
        pass_=[],
    )
    events, after = act(state, "p1", play("5H", to="foundation", pile=1, based_on="4H"))
    assert types(events) == ["played"]
    assert sf.view(after, "p1")["players"]["p2"]["can_move"] is True
    events, after = act(after, "p2", {"type": "turn", "round": 1})
    assert types(events)[:2] == ["turned", "round-ended"]
    assert events[0]["top"] == "8C" and events[1]["reason"] == "stuck"


def test_sf_e1_the_outcome_does_not_depend_on_hidden_hand_order():
    """The same public position with p2's hidden cards in another order: p1's play has
    byte-identical consequences (the exact reachable set would differ: 6H first is
    never reached, 6H third is)."""
    outcomes = set()
    for hand in (["6H", "7C", "8C"], ["7C", "8C", "6H"], ["8C", "6H", "7C"]):
        state = lay(
            _nearly_stuck(new_state()),
            "p2",
            pile=["KD"],
            columns=[["2D"], ["2H"], ["3D"], ["3H"]],
            hand=hand,
            pass_=[],
        )
        events, after = act(state, "p1", play("5H", to="foundation", pile=1, based_on="4H"))
        outcomes.add(json.dumps([events, sf.view(after, "p1"), sf.legal_actions(after, "p1")]))
    assert len(outcomes) == 1


def test_sf_e1_a_waste_play_forgets_the_seen_pass():
    state = lay(
        new_state(),
        "p1",
        pile=["KD"],
        columns=[["KS"], ["10H"], ["KC"], ["QD"]],
        hand=["5C", "6C", "AC", "9S"],
        pass_=[],
    )
    for _ in range(2):
        _, state = act(state, "p1", {"type": "turn", "round": 1})
    assert state["layouts"]["p1"]["reach"] == ["9S", "AC"]
    _, state = act(state, "p1", play("9S", to="column", column=1))
    assert state["layouts"]["p1"]["reach"] is None and state["layouts"]["p1"]["pass"] is None


def test_sf_e1_round_over_precedes_everything_and_future_rounds_are_malformed():
    state = new_state()
    state = {**state, "round": 2}
    refused(state, "p1", {"type": "turn", "round": 1}, "round-over")
    refused(state, "p1", play("ZZ", to="foundation", based_on="new"), "round-over")
    error = refused(state, "p1", {"type": "turn", "round": 3}, "invalid-round", 422)
    assert error.rule == "SF-E2"
    refused(state, "p1", {"type": "turn"}, "invalid-action", 422)


# ----- SF-E2: scores, rounds, totals, winners ------------------------------------


def test_sf_e2_score_is_board_minus_pile_penalty():
    events, _ = act(
        _nearly_stuck(new_state(pile_penalty=2)),
        "p1",
        play("5H", to="foundation", pile=1, based_on="4H"),
    )
    assert events[1]["scores"] == {"p1": 1 - 2 * 1, "p2": 4 - 2 * 1}


def test_sf_e2_fresh_deal_each_round_totals_carry_and_the_game_ends_after_the_last():
    state = new_state(rounds=2)
    first = {s: list(state["layouts"][s]["hand"]) for s in state["seats"]}
    events, state = act(
        _nearly_stuck(state), "p1", play("5H", to="foundation", pile=1, based_on="4H")
    )
    assert state["round"] == 2 and state["foundations"] == []
    assert all(state["layouts"][s]["hand"] != first[s] for s in state["seats"])
    assert all(len(state["layouts"][s]["pile"]) == 13 for s in state["seats"])
    state = _nearly_stuck(state)
    events, state = act(
        state, "p1", {**play("5H", to="foundation", pile=1, based_on="4H"), "round": 2}
    )
    assert types(events) == ["played", "round-ended", "game-ended"]
    result = events[-1]["result"]
    assert result["scores"] == {"p1": 0, "p2": 6} and result["winners"] == ["p2"]
    assert result["reason"] == "rounds-played"
    assert [r["scores"] for r in result["solitaire_frenzy"]["rounds"]] == [{"p1": 0, "p2": 3}] * 2
    assert state["status"] == "finished" and sf.view(state, "p1")["result"] == result
    refused(state, "p1", {"type": "turn", "round": 2}, "round-over")
    refused(state, "p1", {"type": "turn", "round": 3}, "game-over")
    refused(state, "referee", {"type": "retire", "seat": "p1"}, "game-over")


def test_sf_e2_equal_totals_share_the_win():
    state = _nearly_stuck(new_state(rounds=1))
    state = board(state, ("p2", ["AH", "2H", "3H"]), ("p1", ["AS"]))
    state = lay(state, "p1", pile=["KC", "4H"], columns=[["2D"], ["2H"], ["3D"], ["3H"]])
    state = lay(state, "p2", pile=["KD", "9D"], columns=[["2D"], ["2H"], ["3D"], ["3H"]])
    events, _ = act(state, "p1", play("4H", to="foundation", pile=1, based_on="3H"))
    assert events[1]["scores"] == {"p1": 2 - 1, "p2": 3 - 2}  # AS and 4H; KC left
    assert events[-1]["result"]["winners"] == ["p1", "p2"]


# ----- SF-E3: a seat leaves ---------------------------------------------------


def test_sf_e3_retired_seat_keeps_board_cards_scores_as_things_stand_and_cannot_win():
    spades = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS"]
    state = board(new_state(3, rounds=2), ("p3", spades), ("p2", ["AH", "2H", "3H", "4H"]))
    state = lay(state, "p3", pile=["KD", "QD"], columns=[["9S"], [], [], []])
    events, state = act(state, "referee", {"type": "retire", "seat": "p3"})
    assert events[0] == {"type": "seat-retired", "seat": "p3", "pile": 2}
    assert state["active"] == ["p1", "p2"]
    assert [len(p["cards"]) for p in state["foundations"]] == [13, 4], "board cards stay"
    refused(state, "p3", {"type": "turn", "round": 1}, "seat-retired")
    refused(state, "referee", {"type": "retire", "seat": "p3"}, "seat-retired")
    # SF-E1 ignores p3: p1 plays 5H, then nobody active can move
    state = lay(state, "p1", pile=["KC", "5H"], columns=[["2S"], ["2C"], ["3S"], ["3C"]])
    state = lay(state, "p2", pile=["KD"], columns=[["2D"], ["2H"], ["3D"], ["3H"]])
    events, state = act(state, "p1", play("5H", to="foundation", pile=1 + 1, based_on="4H"))
    ended = events[1]
    assert ended["scores"] == {"p1": 0, "p2": 3, "p3": 13 - 2}
    assert events[2] == {"type": "round-started", "seat": None, "round": 2, "seats": ["p1", "p2"]}
    assert [e["seat"] for e in events if e["type"] == "dealt"] == ["p1", "p2"]
    state = _nearly_stuck(state)
    events, state = act(
        state, "p1", {**play("5H", to="foundation", pile=1, based_on="4H"), "round": 2}
    )
    result = events[-1]["result"]
    assert result["scores"] == {"p1": 0, "p2": 6, "p3": 11}
    assert result["winners"] == ["p2"] and result["solitaire_frenzy"]["retired"] == ["p3"]
    assert "p3" not in state["history"][1]["scores"]


def test_sf_e3_last_seat_wins():
    state = board(new_state(2), ("p2", ["AS", "2S", "3S", "4S", "5S"]))
    events, state = act(state, "referee", {"type": "retire", "seat": "p2"})
    assert types(events) == ["seat-retired", "round-ended", "game-ended"]
    assert events[1]["reason"] == "last-seat"
    result = events[-1]["result"]
    assert result["reason"] == "last-seat" and result["winners"] == ["p1"]
    assert result["scores"]["p2"] > result["scores"]["p1"]


def test_sf_e3_only_the_referee_retires():
    state = new_state()
    with pytest.raises(RuleViolation) as caught:
        sf.apply(state, "p1", {"type": "retire", "seat": "p2"})
    assert caught.value.code == "referee-only" and caught.value.status == 403
    refused(state, "referee", {"type": "retire", "seat": "p9"}, "invalid-seat", 422)


# ----- SF-M1: table mode --------------------------------------------------------


def _results(**per_seat):
    return {seat: dict(zip(("board", "pile", "out"), values)) for seat, values in per_seat.items()}


def test_sf_m1_score_sheet_over_the_rounds_and_the_winner():
    state = new_state(3, dealing="table")
    assert all(layout is None for layout in state["layouts"].values())
    assert sf.legal_actions(state, "p1") == []
    record = {
        "type": "record-round",
        "round": 1,
        "results": _results(p1=(10, 3, False), p2=(14, 0, True), p3=(4, 9, False)),
    }
    events, state = act(state, "referee", record)
    assert types(events) == ["round-ended", "round-started"]
    assert events[0]["scores"] == {"p1": 7, "p2": 14, "p3": -5}
    assert events[0]["reason"] == "out" and events[0]["out"] == "p2"
    record = {
        "type": "record-round",
        "round": 2,
        "board_total": 30,
        "foundation_piles": 5,
        "results": _results(p1=(12, 2, False), p2=(8, 5, False), p3=(10, 1, False)),
    }
    events, state = act(state, "referee", record)
    assert events[0]["reason"] == "stuck" and events[0]["totals"] == {"p1": 17, "p2": 17, "p3": 4}
    record = {
        "type": "record-round",
        "round": 3,
        "results": _results(p1=(5, 0, True), p2=(5, 4, False), p3=(1, 1, False)),
    }
    events, state = act(state, "referee", record)
    result = events[-1]["result"]
    assert result["scores"] == {"p1": 22, "p2": 18, "p3": 4} and result["winners"] == ["p1"]
    assert sf.view(state, None)["totals"] == result["scores"]


@pytest.mark.parametrize(
    "results, extra, code",
    [
        (_results(p1=(10, 0, True), p2=(3, 0, True)), {}, "several-out"),
        (_results(p1=(10, 2, True), p2=(3, 4, False)), {}, "out-with-cards"),
        (_results(p1=(10, 0, False), p2=(3, 4, False)), {}, "empty-pile-not-out"),
        (_results(p1=(53, 0, True), p2=(3, 4, False)), {}, "invalid-report"),
        (_results(p1=(10, 14, False), p2=(3, 4, False)), {}, "invalid-report"),
        (_results(p1=(45, 13, False), p2=(3, 4, False)), {}, "invalid-report"),
        (_results(p1=(10, -1, False), p2=(3, 4, False)), {}, "invalid-report"),
        (_results(p1=(10, 1, False)), {}, "invalid-report"),
        (
            _results(p1=(10, 1, False), p2=(3, 4, False)),
            {"board_total": 12},
            "board-total-mismatch",
        ),
        (_results(p1=(10, 1, False), p2=(3, 4, False)), {"foundation_piles": 9}, "invalid-report"),
        (
            _results(p1=(30, 1, False), p2=(3, 4, False)),
            {"foundation_piles": 2},
            "board-total-mismatch",
        ),
    ],
)
def test_sf_m1_referee_report_is_checked(results, extra, code):
    state = new_state(2, dealing="table")
    error = refused(
        state,
        "referee",
        {"type": "record-round", "round": 1, "results": results, **extra},
        code,
        422,
    )
    assert error.rule == "SF-M1"


def test_sf_m1_seats_do_not_act_in_table_mode_and_server_games_take_no_report():
    table = new_state(2, dealing="table")
    refused(table, "p1", {"type": "turn", "round": 1}, "table-mode")
    server = new_state(2)
    refused(
        server,
        "referee",
        {
            "type": "record-round",
            "round": 1,
            "results": _results(p1=(1, 1, False), p2=(1, 1, False)),
        },
        "not-table-mode",
    )


def test_sf_m1_retire_in_table_mode():
    state = new_state(3, dealing="table")
    _, state = act(state, "referee", {"type": "retire", "seat": "p3"})
    record = {
        "type": "record-round",
        "round": 1,
        "results": _results(p1=(3, 2, False), p2=(4, 1, False), p3=(2, 5, False)),
    }
    events, state = act(state, "referee", record)
    assert events[1] == {"type": "round-started", "seat": None, "round": 2, "seats": ["p1", "p2"]}
    events, state = act(state, "referee", {"type": "retire", "seat": "p2"})
    assert types(events) == ["seat-retired", "game-ended"]
    assert events[-1]["result"]["winners"] == ["p1"]


# ----- the stateless check (SF-F1, SF-R1, SF-R4) ------------------------------


@pytest.mark.parametrize(
    "card, onto, to, legal, code, rule",
    [
        ("AH", None, "foundation", True, None, "SF-F1"),
        ("5H", "4H", "foundation", True, None, "SF-F1"),
        ("th", "9H", "foundation", True, None, "SF-F1"),
        ("2H", None, "foundation", False, "new-pile-needs-ace", "SF-F1"),
        ("AH", "KH", "foundation", False, "ace-needs-new-pile", "SF-F1"),
        ("6H", "4H", "foundation", False, "wrong-rank", "SF-F1"),
        ("4H", "4H", "foundation", False, "wrong-rank", "SF-F1"),
        ("5S", "4H", "foundation", False, "wrong-suit", "SF-F1"),
        ("AS", "KS", "foundation", False, "ace-needs-new-pile", "SF-F1"),
        ("2S", "KS", "foundation", False, "pile-complete", "SF-F1"),
        ("8D", "9C", "column", True, None, "SF-R1"),
        ("8H", "9S", "column", True, None, "SF-R1"),
        ("AH", "2C", "column", True, None, "SF-R1"),
        ("8C", "9S", "column", False, "wrong-colour", "SF-R1"),
        ("7D", "9C", "column", False, "wrong-rank", "SF-R1"),
        ("KD", "AC", "column", False, "wrong-rank", "SF-R1"),
        ("KD", None, "column", True, None, "SF-R4"),
    ],
)
def test_check_play(card, onto, to, legal, code, rule):
    answer = sf.check_play(card, onto, to)
    assert (answer["legal"], answer["code"], answer["rule"]) == (legal, code, rule)
    assert answer["detail"]


@pytest.mark.parametrize(
    "card, onto, to, code",
    [
        ("ZZ", None, "foundation", "invalid-card"),
        ("JK", None, "foundation", "invalid-card"),
        ("5H", "1H", "column", "invalid-card"),
        ("5H", "4H", "board", "invalid-action"),
    ],
)
def test_check_play_bad_input(card, onto, to, code):
    with pytest.raises(RuleViolation) as caught:
        sf.check_play(card, onto, to)
    assert caught.value.code == code and caught.value.status == 422


# ----- G-R1, contract -----------------------------------------------------------


def test_g_r1_malformed_actions_are_422_with_a_code():
    state = new_state()
    for action, code in [
        ("turn", "invalid-action"),
        ({"type": "dance", "round": 1}, "invalid-action"),
        ({"type": "turn", "round": 1, "card": "AH"}, "invalid-action"),
        (play("AH", to="board", based_on="new"), "invalid-action"),
        (play("XX", to="foundation", based_on="new"), "invalid-card"),
        (play("AH", to="foundation", based_on="XX"), "invalid-card"),
        (play("AH", to="foundation", pile=1, based_on="new"), "invalid-action"),
        (play("AH", to="column", column=4), "invalid-column"),
        (play("AH", to="column", column=True), "invalid-column"),
        ({"type": "move", "round": 1, "from_column": 1, "to_column": 1}, "same-column"),
        ({"type": "turn", "round": "1"}, "invalid-action"),
    ]:
        with pytest.raises(RuleViolation) as caught:
            sf.apply(state, "p1", action)
        assert (caught.value.code, caught.value.status) == (code, 422), action


def test_acting_for_another_seat_or_as_referee_is_403():
    state = new_state()
    for actor, action, code in [
        ("referee", {"type": "turn", "round": 1}, "referee-not-allowed"),
        ("p1", {"type": "turn", "round": 1, "seat": "p2"}, "not-your-seat"),
        ("p9", {"type": "turn", "round": 1}, "unknown-actor"),
    ]:
        with pytest.raises(RuleViolation) as caught:
            sf.apply(state, actor, action)
        assert (caught.value.code, caught.value.status) == (code, 403)


def test_legal_actions_are_accepted_as_they_are():
    state = new_state(4)
    for seat in state["seats"]:
        actions = sf.legal_actions(state, seat)
        assert {"type": "turn", "round": 1} in actions
        for action in actions:
            sf.apply(state, seat, action)
    assert sf.legal_actions(state, "referee") == [
        {"type": "retire", "seat": s} for s in state["seats"]
    ]
    assert sf.legal_actions(state, None) == []


def test_new_game_replays_identically_and_the_seed_stays_hidden_until_the_end():
    events = sf.new_game(sf.GAME, {"players": 3}, SEED)
    assert sf.fold_all(None, events) == sf.fold_all(None, json.loads(json.dumps(events)))
    state = sf.fold_all(None, events)
    for viewer in ("p1", "referee", None):
        assert SEED not in json.dumps(sf.view(state, viewer))
        assert SEED not in json.dumps(sf.view_event(state, events[0], viewer))
    assert sf.view(state, "p2")["round"] == 1 and sf.view(state, "p2")["totals"] == {
        "p1": 0,
        "p2": 0,
        "p3": 0,
    }


def test_g_r1_refusals_cite_the_rule_that_applies():
    state = lay(new_state(), "p1", pile=["KC", "10H"], columns=[["5S"], [], [], []])
    state = board(state, ("p2", ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H"]))
    # based_on is SF-T1's (the aim of a foundation play), whatever the card played
    error = refused(
        state, "p1", play("10H", to="foundation", pile=1, based_on="ZZ"), "invalid-card", 422
    )
    assert error.rule == "SF-T1"
    # a one-card column played onto itself is a move (SF-R2), not a pile play
    error = refused(state, "p1", play("5S", to="column", column=0), "same-column", 422)
    assert error.rule == "SF-R2"
    # the round the last seat's retirement ended with the game: SF-E3, as its game-over
    _, over = act(new_state(), "referee", {"type": "retire", "seat": "p2"})
    assert refused(over, "p1", {"type": "turn", "round": 1}, "round-over").rule == "SF-E3"
    assert refused(over, "p1", {"type": "turn", "round": 2}, "game-over").rule == "SF-E3"
