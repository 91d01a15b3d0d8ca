"""Sequence / Sequence Numbers game flow through the engine contract (SQ-*, SN-*).

States are arranged by handing seats chosen cards (swapped with the deck, so every
card stays in exactly one place) and putting chips on the board; then actions go
through ``apply`` and their events through ``fold``, as the store does.
"""

import copy
import json
from collections import Counter

import pytest

from service.games import RuleViolation
from service.games import sequence as sq
from service.games.rng import commitment, shuffle

SEED = "5e" * 32
NUM = "sequence-numbers"
NUMBERS_INDEX = sq.spaces_index([list(r) for r in sq.NUMBERS_BOARD])


def start(game="sequence", seed=SEED, **options):
    events = sq.new_game(game, options, seed)
    state = None
    for event in events:
        state = sq.fold(state, event)
    return state, events


def run(state, actor, action):
    """apply + fold; also checks apply left its input alone."""
    before = copy.deepcopy(state)
    events = sq.apply(state, actor, action)
    assert state == before, "apply mutated the state"
    for event in events:
        state = sq.fold(state, event)
    return state, events


def refused(state, actor, action):
    with pytest.raises(RuleViolation) as info:
        sq.apply(state, actor, action)
    return info.value


def types(events):
    return [e["type"] for e in events]


def give(state, seat, cards):
    """``seat``'s hand becomes ``cards``: its old hand goes to the deck bottom, each
    card comes from the deck (or from another hand, which gets the deck top)."""
    s = copy.deepcopy(state)
    s["deck"].extend(s["hands"][seat])
    s["hands"][seat] = []
    for card in cards:
        if card in s["deck"]:
            s["deck"].remove(card)
        else:
            other = next(o for o in s["seats"] if o != seat and card in s["hands"][o])
            s["hands"][other].remove(card)
            s["hands"][other].append(s["deck"].pop(0))
        s["hands"][seat].append(card)
    return s


def put(state, side, cells):
    s = copy.deepcopy(state)
    for r, c in cells:
        s["chips"][r][c] = side
    return s


def lock(state, side, cells):
    s = put(state, side, cells)
    s["sequences"].append({"side": side, "cells": [list(x) for x in cells]})
    return s


def all_cards(state):
    return (
        Counter(state["deck"])
        + sum(map(Counter, state["hands"].values()), Counter())
        + sum(map(Counter, state["discards"].values()), Counter())
    )


def replay(events):
    state = None
    for event in events:
        state = sq.fold(state, event)
    return state


# ===== setup: seats, sides, hands (SQ-P1, SQ-P2, SQ-C3, SN-P1, SN-P2) =====


def test_sq_p1_team_members_sit_alternately():
    state, _ = start(players=4)
    assert state["seats"] == ["p1", "p2", "p3", "p4"]
    assert state["sides"] == {"p1": "green", "p2": "blue", "p3": "green", "p4": "blue"}
    state, _ = start(players=6, sides=3)
    assert [state["sides"][s] for s in state["seats"]] == ["green", "blue", "red"] * 2
    assert state["teams"] == {"green": ["p1", "p4"], "blue": ["p2", "p5"], "red": ["p3", "p6"]}
    state, _ = start(players=12)
    assert state["teams"]["green"] == ["p1", "p3", "p5", "p7", "p9", "p11"]


@pytest.mark.parametrize("players, sides", [(4, 3), (9, 2), (8, 3), (2, 3), (3, 2), (6, 4)])
def test_sq_p1_sides_must_be_equal_teams_of_2_or_3_sides(players, sides):
    with pytest.raises(RuleViolation) as info:
        start(players=players, sides=sides)
    assert info.value.code == "invalid-option" and info.value.status == 422


def test_sq_c3_green_and_blue_then_red_for_a_third_side():
    assert set(start(players=2)[0]["teams"]) == {"green", "blue"}
    assert list(start(players=3)[0]["teams"]) == ["green", "blue", "red"]
    assert set(start(players=9)[0]["teams"]) == {"green", "blue", "red"}


@pytest.mark.parametrize(
    "players, hand", [(2, 7), (3, 6), (4, 6), (6, 5), (8, 4), (9, 4), (10, 3), (12, 3)]
)
def test_sq_p2_hand_size_by_player_count(players, hand):
    state, _ = start(players=players)
    assert [len(state["hands"][s]) for s in state["seats"]] == [hand] * players
    assert len(state["deck"]) == 104 - players * hand


@pytest.mark.parametrize("players", [1, 5, 7, 11, 13, 0, "2", True, 2.0, None])
def test_sq_p2_other_player_counts_are_refused(players):
    with pytest.raises(RuleViolation) as info:
        sq.new_game(
            "sequence", {"players": players} if players is not None else {"players": "none"}, SEED
        )
    assert info.value.code == "invalid-option"


@pytest.mark.parametrize(
    "players, sides, teams",
    [
        (2, 2, [["p1"], ["p2"]]),
        (3, 3, [["p1"], ["p2"], ["p3"]]),
        (4, 2, [["p1", "p3"], ["p2", "p4"]]),
        (6, 2, [["p1", "p3", "p5"], ["p2", "p4", "p6"]]),
        (6, 3, [["p1", "p4"], ["p2", "p5"], ["p3", "p6"]]),
    ],
)
def test_sn_p1_up_to_three_alone_more_in_two_or_three_equal_teams(players, sides, teams):
    state, _ = start(NUM, players=players, sides=sides)
    assert list(state["teams"].values()) == teams


@pytest.mark.parametrize(
    "options",
    [
        {"players": 5},
        {"players": 7},
        {"players": 1},
        {"players": 3, "sides": 2},
        {"players": 4, "sides": 3},
        {"players": 8},
    ],
)
def test_sn_p1_other_player_counts_and_team_splits_are_refused(options):
    with pytest.raises(RuleViolation) as info:
        start(NUM, **options)
    assert info.value.code == "invalid-option"
    if options == {"players": 5}:
        assert "equal teams" in info.value.detail


@pytest.mark.parametrize("players, hand", [(2, 5), (3, 5), (4, 4), (6, 4)])
def test_sn_p2_hand_five_for_two_or_three_four_for_four_to_six(players, hand):
    state, _ = start(NUM, players=players)
    assert {len(h) for h in state["hands"].values()} == {hand}
    assert len(state["deck"]) == 100 - players * hand


@pytest.mark.parametrize(
    "game, players, sides, needed",
    [
        ("sequence", 2, 2, 2),
        ("sequence", 3, 3, 1),
        ("sequence", 4, 2, 2),
        ("sequence", 6, 3, 1),
        ("sequence", 6, 2, 2),
        ("sequence", 9, 3, 1),
        (NUM, 2, 2, 1),
        (NUM, 3, 3, 1),
        (NUM, 4, 2, 2),
        (NUM, 6, 2, 2),
        (NUM, 6, 3, 2),
    ],
)
def test_sq_s3_sn_s1_sequences_needed_to_win(game, players, sides, needed):
    """SQ-S3 counts sides (6 players as 3 sides need 1); SN-S1 counts players,
    however they are split into teams (6 players as 3 teams still need 2)."""
    state, _ = start(game, players=players, sides=sides)
    assert state["sequences_to_win"] == needed


@pytest.mark.parametrize(
    "options, word",
    [
        ({"colour": "green"}, "unknown option"),
        ({"dealing": "robot"}, "dealing"),
        ({"first_seat": "p3"}, "first_seat"),
        ({"sequences_to_win": 0}, "sequences_to_win"),
        ({"stalemate_decks": True}, "stalemate_decks"),
        ({"board": [[1]]}, "unknown option"),
        ({"stalemate": "coin"}, "stalemate"),
    ],
)
def test_invalid_options_are_422(options, word):
    with pytest.raises(RuleViolation) as info:
        start(**options)
    assert info.value.code == "invalid-option" and info.value.status == 422
    assert word in info.value.detail


def test_catalog_lists_both_games_with_their_options():
    assert set(sq.CATALOG) == {"sequence", NUM}
    assert sq.CATALOG["sequence"]["players"] == [2, 3, 4, 6, 8, 9, 10, 12]
    assert sq.CATALOG[NUM]["players"] == [2, 3, 4, 6]
    names = {o["name"] for o in sq.CATALOG[NUM]["options"]}
    assert {"players", "sides", "dealing", "board", "deck", "first_seat"} <= names
    for game in sq.CATALOG:  # SQ-E1: a stalemate is a draw unless chosen otherwise
        stalemate = next(o for o in sq.CATALOG[game]["options"] if o["name"] == "stalemate")
        assert (stalemate["default"], stalemate["choices"]) == ("draw", ["draw", "most_sequences"])


# ===== the contract: events, fold, determinism =====


def test_new_game_events_fold_from_none_to_the_state():
    state, events = start(players=3)
    created = events[0]
    assert created["type"] == "game-created" and created["seat"] is None
    assert created["seed"] == SEED and created["seats"] == ["p1", "p2", "p3"]
    assert created["options"]["dealing"] == "server" and created["options"]["sides"] == 3
    assert Counter(created["deck"]) == Counter(sq.CLASSIC_DECK)
    assert created["board"][1][8] == "10H"
    initial = sq.fold(None, created)
    assert initial["phase"] == "deal" and len(initial["deck"]) == 104
    assert initial["deck"] == shuffle(list(sq.CLASSIC_DECK), SEED, "deck")
    assert types(events) == ["game-created"] + ["dealt"] * 3 + ["turn-started"]
    assert events[1]["cards"] == initial["deck"][:6]
    assert replay(events) == state
    assert state["status"] == "active" and state["turn"] == "p1"
    json.dumps(state)  # JSON-able


def test_same_seed_same_game_other_seed_other_deal():
    assert start()[1] == start()[1]
    assert start(seed="ab" * 32)[0]["hands"] != start()[0]["hands"]


def test_first_seat_option_starts_there():
    state, _ = start(players=3, first_seat="p2")
    assert state["turn"] == "p2"


def test_expected_version_is_ignored_and_unknown_fields_refused():
    state, _ = start()
    state = give(state, "p1", ["5S"])
    state2, events = run(
        state, "p1", {"type": "play", "card": "5S", "cell": [0, 4], "expected_version": 7}
    )
    assert types(events)[0] == "placed"
    error = refused(state, "p1", {"type": "play", "card": "5S", "cell": [0, 4], "x": 1})
    assert error.code == "invalid-action" and error.status == 422


@pytest.mark.parametrize(
    "action, code",
    [
        ({"type": "dance"}, "invalid-action"),
        ("play", "invalid-action"),
        ({"type": "play", "card": "ZZ", "cell": [0, 4]}, "invalid-card"),
        ({"type": "play", "card": "JK", "cell": [0, 4]}, "invalid-card"),
        ({"type": "play", "card": "5S", "cell": [0, 10]}, "invalid-cell"),
        ({"type": "play", "card": "5S", "cell": "0,4"}, "invalid-cell"),
        ({"type": "play", "card": "5S"}, "invalid-cell"),
        ({"type": "play", "card": "5S", "cell": [0, 4], "sequence": [[0, 0]]}, "invalid-sequence"),
    ],
)
def test_malformed_actions_are_422(action, code):
    state, _ = start()
    error = refused(give(state, "p1", ["5S"]), "p1", action)
    assert (error.code, error.status) == (code, 422)


# ===== turns (SQ-T1..SQ-T7) =====


def test_sq_t1_play_a_card_place_a_chip_then_draw():
    state, _ = start()
    state = give(state, "p1", ["5S", "KD", "2C"])
    top = state["deck"][0]
    state, events = run(state, "p1", {"type": "play", "card": "5s", "cell": [8, 3]})
    assert types(events) == ["placed", "drawn", "turn-started"]
    assert events[0] == {
        "type": "placed",
        "seat": "p1",
        "side": "green",
        "card": "5S",
        "cell": [8, 3],
    }
    assert events[1] == {"type": "drawn", "seat": "p1", "card": top}
    assert state["chips"][8][3] == "green" and state["discards"]["p1"] == ["5S"]
    assert sorted(state["hands"]["p1"]) == sorted(["KD", "2C", top])
    assert state["turn"] == "p2"


@pytest.mark.parametrize(
    "actor, card, cell, code",
    [
        ("p2", "5S", [0, 4], "not-your-turn"),
        ("p1", "9C", [4, 0], "card-not-in-hand"),
        ("p1", "5S", [0, 6], "card-not-on-space"),
        ("p1", "6S", [0, 5], "space-occupied"),
        ("p1", "JD", [0, 0], "space-occupied"),
        ("p1", "JS", [0, 5], "card-cannot-place"),
    ],
)
def test_sq_t1_refusals_are_409(actor, card, cell, code):
    state, _ = start()
    state = put(give(state, "p1", ["5S", "6S", "JD", "JS"]), "blue", [(0, 5), (8, 4)])
    error = refused(state, actor, {"type": "play", "card": card, "cell": cell})
    assert (error.code, error.status) == (code, 409)


def test_sq_t2_two_eyed_jacks_go_on_any_open_space():
    state, _ = start()
    for jack in ("JD", "JC"):
        s = give(state, "p1", [jack])
        s, events = run(s, "p1", {"type": "play", "card": jack, "cell": [4, 4]})
        assert s["chips"][4][4] == "green" and events[0]["card"] == jack
    blocked = put(give(state, "p1", ["JD"]), "blue", [(4, 4)])
    assert (
        refused(blocked, "p1", {"type": "play", "card": "JD", "cell": [4, 4]}).code
        == "space-occupied"
    )


def test_sq_t3_one_eyed_jack_removes_an_opponent_chip_and_ends_the_turn():
    state, _ = start()
    state = put(give(state, "p1", ["JS", "JH", "7H"]), "blue", [(4, 8)])
    state, events = run(state, "p1", {"type": "remove-chip", "card": "JS", "cell": [4, 8]})
    assert types(events) == ["chip-removed", "drawn", "turn-started"]
    assert events[0]["removed"] == "blue" and state["chips"][4][8] is None
    assert state["discards"]["p1"] == ["JS"] and state["turn"] == "p2"
    # the turn is over: p1 cannot put a chip back on that space now
    assert (
        refused(state, "p1", {"type": "play", "card": "7H", "cell": [4, 8]}).code == "not-your-turn"
    )


def test_sq_t3_a_one_eyed_jack_turn_still_draws():
    """SQ-T3: the removal ends the turn, but the player still draws: server mode draws
    the top card at once; in table mode the seat owes the draw (SQ-T5)."""
    state, _ = start()
    state = put(give(state, "p1", ["JH"]), "blue", [(4, 8)])
    top = state["deck"][0]
    hand = len(state["hands"]["p1"])
    state, events = run(state, "p1", {"type": "remove-chip", "card": "JH", "cell": [4, 8]})
    assert events[1] == {"type": "drawn", "seat": "p1", "card": top}
    assert len(state["hands"]["p1"]) == hand and top in state["hands"]["p1"]
    table = table_game()
    table = put(give(table, "p1", ["JS"] + table["hands"]["p1"][1:]), "blue", [(4, 8)])
    table, events = run(table, "p1", {"type": "remove-chip", "card": "JS", "cell": [4, 8]})
    assert types(events) == ["chip-removed", "turn-started"]
    assert table["pending_draws"] == {"p1": 1}
    assert {"type": "draw", "card": "KS"} in sq.legal_actions(table, "p1")


@pytest.mark.parametrize(
    "setup, card, cell, code",
    [
        (lambda s: put(s, "green", [(4, 8)]), "JS", [4, 8], "own-chip"),
        (lambda s: s, "JH", [4, 8], "no-chip"),
        (lambda s: s, "JH", [0, 0], "no-chip"),
        (lambda s: lock(s, "blue", [(5, c) for c in range(5)]), "JH", [5, 2], "chip-locked"),
        (lambda s: put(s, "blue", [(4, 8)]), "JD", [4, 8], "card-cannot-remove"),
        (lambda s: put(s, "blue", [(4, 8)]), "7H", [4, 8], "card-cannot-remove"),
    ],
)
def test_sq_t3_sq_s2_removal_refusals(setup, card, cell, code):
    state, _ = start()
    state = setup(give(state, "p1", ["JS", "JH", "JD", "7H"]))
    error = refused(state, "p1", {"type": "remove-chip", "card": card, "cell": cell})
    assert (error.code, error.status) == (code, 409)


def test_sq_s2_chips_of_a_completed_sequence_stay_for_good():
    state, _ = start()
    state = put(give(state, "p1", ["5S"]), "green", [(0, 1), (0, 2), (0, 3)])
    state, _ = run(state, "p1", {"type": "play", "card": "5S", "cell": [0, 4]})
    state = give(state, "p2", ["JS", "JH"])
    for cell in ([0, 1], [0, 4]):
        assert (
            refused(state, "p2", {"type": "remove-chip", "card": "JS", "cell": cell}).code
            == "chip-locked"
        )
    assert all(
        a["cell"][0] != 0 for a in sq.legal_actions(state, "p2") if a["type"] == "remove-chip"
    )


def test_sq_t4_dead_card_exchange_once_per_turn_before_playing():
    state, _ = start()
    state = put(give(state, "p1", ["7H", "8H", "5S"]), "blue", [(4, 8), (5, 3), (3, 8)])
    state = put(state, "green", [(6, 3)])  # 8H's spaces (3, 8) and (6, 3): dead too
    top = state["deck"][0]
    assert {"type": "exchange-dead-card", "card": "7H"} in sq.legal_actions(state, "p1")
    state, events = run(state, "p1", {"type": "exchange-dead-card", "card": "7H"})
    assert types(events) == ["dead-card-exchanged", "drawn"]
    assert state["turn"] == "p1" and state["exchanged"] is True
    assert state["discards"]["p1"] == ["7H"] and top in state["hands"]["p1"]
    error = refused(state, "p1", {"type": "exchange-dead-card", "card": "8H"})
    assert error.code == "already-exchanged"
    assert not any(a["type"] == "exchange-dead-card" for a in sq.legal_actions(state, "p1"))
    state, events = run(state, "p1", {"type": "play", "card": "5S", "cell": [0, 4]})
    assert state["turn"] == "p2" and state["exchanged"] is False


@pytest.mark.parametrize("card", ["5S", "JD", "JS"])
def test_sq_t4_only_a_card_with_both_spaces_covered_is_dead(card):
    state, _ = start()
    state = put(give(state, "p1", [card]), "blue", [(0, 4)])  # one 5S space covered
    assert refused(state, "p1", {"type": "exchange-dead-card", "card": card}).code == "not-dead"


def test_sq_t4_exchange_is_for_the_seat_on_turn():
    state, _ = start()
    state = put(give(state, "p2", ["7H"]), "blue", [(4, 8), (5, 3)])
    assert (
        refused(state, "p2", {"type": "exchange-dead-card", "card": "7H"}).code == "not-your-turn"
    )


def table_game(game="sequence", **options):
    """A table-mode game dealt by the referee's draw reports (deck order: sorted)."""
    state, events = start(game, dealing="table", **options)
    assert state["phase"] == "deal" and types(events) == ["game-created"]
    for seat in state["seats"]:
        for _ in range(state["hand_size"]):
            state, _ = run(
                state, "referee", {"type": "draw", "seat": seat, "card": state["deck"][0]}
            )
    assert state["phase"] == "play" and state["turn"] == "p1"
    return state


def test_table_mode_the_referee_reports_the_deal():
    state, _ = start(dealing="table")
    assert (
        refused(state, "p1", {"type": "play", "card": "2S", "cell": [0, 1]}).code
        == "deal-not-finished"
    )
    state, events = run(state, "referee", {"type": "draw", "seat": "p1", "card": "AS"})
    assert events == [{"type": "dealt", "seat": "p1", "cards": ["AS"]}]
    state = table_game()
    assert all(len(h) == 7 for h in state["hands"].values())
    assert all_cards(state) == Counter(sq.CLASSIC_DECK)


def test_sq_t5_table_mode_late_draw_is_lost_for_the_rest_of_the_game():
    state = table_game()
    state = give(state, "p1", ["5S", "6S"] + state["hands"]["p1"][2:])
    state = give(state, "p2", ["7S", "8S"] + state["hands"]["p2"][2:])
    state, events = run(
        state, "referee", {"type": "play", "seat": "p1", "card": "5S", "cell": [0, 4]}
    )
    assert types(events) == ["placed", "turn-started"]  # no draw: it is reported
    assert state["pending_draws"] == {"p1": 1} and state["turn"] == "p2"
    state, _ = run(state, "p2", {"type": "play", "card": "7S", "cell": [0, 6]})
    state, events = run(state, "referee", {"type": "draw", "seat": "p2", "card": "KS"})
    assert types(events) == ["drawn", "draw-lost"]
    assert events[1]["seat"] == "p1" and state["lost_draws"] == {"p1": 1, "p2": 0}
    assert (
        refused(state, "referee", {"type": "draw", "seat": "p1", "card": "KS"}).code
        == "draw-not-due"
    )
    assert len(state["hands"]["p1"]) == 6 and len(state["hands"]["p2"]) == 7


def test_sq_t5_only_the_next_seats_draw_costs_a_seat_its_owed_draw():
    state = table_game(players=3)
    state = give(state, "p1", ["5S"] + state["hands"]["p1"][1:])
    state = give(state, "p2", ["7S"] + state["hands"]["p2"][1:])
    state = give(state, "p3", ["9S"] + state["hands"]["p3"][1:])
    state, _ = run(state, "p1", {"type": "play", "card": "5S", "cell": [0, 4]})
    state, _ = run(state, "p2", {"type": "play", "card": "7S", "cell": [0, 6]})
    state, _ = run(state, "p3", {"type": "play", "card": "9S", "cell": [0, 8]})
    assert state["pending_draws"] == {"p1": 1, "p2": 2, "p3": 3}
    state, events = run(state, "p3", {"type": "draw", "card": "KS"})
    # p3 is p2's next seat, not p1's: only p2 has been overtaken (SQ-T5)
    assert events[1:] == [{"type": "draw-lost", "seat": "p2"}]
    assert state["pending_draws"] == {"p1": 1}
    state, events = run(state, "p1", {"type": "draw", "card": "KS"})
    assert types(events) == ["drawn"]
    assert state["lost_draws"] == {"p1": 0, "p2": 1, "p3": 0}
    assert [len(state["hands"][s]) for s in ("p1", "p2", "p3")] == [6, 5, 6]


def test_sq_t5_a_draw_in_time_is_kept_and_server_mode_has_no_draw_action():
    state = table_game()
    state = give(state, "p1", ["5S"] + state["hands"]["p1"][1:])
    state, _ = run(state, "p1", {"type": "play", "card": "5S", "cell": [0, 4]})
    state, _ = run(state, "p1", {"type": "draw", "card": "QD"})
    assert len(state["hands"]["p1"]) == 7 and state["pending_draws"] == {}
    assert refused(state, "p1", {"type": "draw", "card": "QD"}).code == "draw-not-due"
    assert refused(state, "p1", {"type": "draw", "card": "JK"}).code == "invalid-card"
    server, _ = start()
    assert refused(server, "p1", {"type": "draw", "card": "QD"}).code == "not-table-mode"


def test_sq_t5_a_draw_still_owed_when_the_seat_plays_again_is_lost():
    state = table_game()
    state = give(state, "p1", ["5S", "6S"] + state["hands"]["p1"][2:])
    state = give(state, "p2", ["7S"] + state["hands"]["p2"][1:])
    state, _ = run(state, "p1", {"type": "play", "card": "5S", "cell": [0, 4]})
    state, events = run(state, "p2", {"type": "play", "card": "7S", "cell": [0, 6]})
    assert types(events) == ["placed", "turn-started"]
    assert state["pending_draws"] == {"p1": 1, "p2": 2}  # p1 may still draw now
    state, events = run(state, "p1", {"type": "play", "card": "6S", "cell": [0, 5]})
    assert types(events) == ["draw-lost", "placed", "turn-started"]
    assert state["lost_draws"]["p1"] == 1 and state["pending_draws"] == {"p1": 3, "p2": 2}


def owing_p1(players=2):
    """A table game in which p1 has played 5S and owes its draw; both KS are in p2's
    hand, and the deck still holds cards."""
    state = table_game(players=players)
    state = give(state, "p1", ["5S"] + state["hands"]["p1"][1:])
    state = give(state, "p2", ["KS", "KS"] + state["hands"]["p2"][2:])
    state, _ = run(state, "p1", {"type": "play", "card": "5S", "cell": [0, 4]})
    assert "KS" not in state["deck"] and state["pending_draws"] == {"p1": 1}
    return state


def test_g_m2_the_referee_is_refused_a_card_no_longer_in_the_deck():
    """G-M2: a conservation conflict is refused to the referee, who sees every hand."""
    state = owing_p1()
    error = refused(state, "referee", {"type": "draw", "seat": "p1", "card": "KS"})
    assert (error.code, error.status, error.rule) == ("card-not-in-deck", 409, "G-M2")
    assert {"type": "draw", "seat": "p1", "card": "KS"} not in sq.legal_actions(state, "referee")


def test_g_m2_a_seats_own_report_is_judged_on_what_the_seat_can_know():
    """G-M2: p1 cannot know that p2 holds both KS, so its report of a KS is accepted
    exactly as any other card (the events p1 sees say nothing more); the conflict
    goes only to the referee, and the deck count still goes down by one."""
    state = owing_p1()
    assert {"type": "draw", "card": "KS"} in sq.legal_actions(state, "p1")
    count = sq.view(state, "p1")["deck_count"]
    after, events = run(state, "p1", {"type": "draw", "card": "KS"})
    assert events == [{"type": "drawn", "seat": "p1", "card": "KS", "conflict": True}]
    assert sq.view_event(after, events[0], "p1") == {"type": "drawn", "seat": "p1", "card": "KS"}
    assert sq.view_event(after, events[0], "p2") == {"type": "drawn", "seat": "p1", "count": 1}
    assert sq.view_event(after, events[0], "referee")["conflict"] is True
    assert sq.view(after, "referee")["conflicts"] == [{"seat": "p1", "card": "KS", "deck": 0}]
    assert "conflicts" not in sq.view(after, "p1") and "conflicts" not in sq.view(after, "p2")
    assert (
        sq.view(after, "p1")["deck_count"] == sq.view(after, "referee")["deck_count"] == count - 1
    )
    assert after["hands"]["p1"].count("KS") == 1 and json.loads(json.dumps(after)) == after


def test_g_m2_a_conflicting_report_still_empties_the_deck_and_the_reshuffle_drops_it():
    """G-M2 bookkeeping: after a conflicting report the deck multiset lists one card
    that is no longer there; when the count reaches 0 the next draw reshuffles the
    discard piles (SQ-T7) and that card is dropped."""
    state = copy.deepcopy(owing_p1())
    last = state["deck"].pop()
    state["discards"]["p2"].extend(state["deck"])  # as if played long ago
    state["deck"] = [last]
    state, _ = run(state, "p1", {"type": "draw", "card": "KS"})
    assert state["deck"] == [last] and sq.deck_count(state) == 0
    assert sq.view(state, "p2")["deck_count"] == 0
    state, _ = run(state, "p2", {"type": "play", "card": "KS", "cell": [3, 1]})
    pile = sorted(c for p in state["discards"].values() for c in p)
    state, events = run(state, "referee", {"type": "draw", "seat": "p2", "card": pile[0]})
    assert types(events) == ["deck-reshuffled", "drawn"]
    assert sorted(state["deck"] + [pile[0]]) == pile and sq.deck_count(state) == len(pile) - 1
    assert sq.view(state, "referee")["conflicts"] == [{"seat": "p1", "card": "KS", "deck": 0}]


def test_g_m2_a_seat_is_refused_a_card_whose_every_copy_it_can_see():
    """G-M2: both 5S are in p1's view (one in its hand, one on its discard pile): its
    report of a 5S can be refused without telling it anything."""
    state = owing_p1()
    state = give(state, "p1", ["5S"] + state["hands"]["p1"][1:])
    assert Counter(state["hands"]["p1"])["5S"] == 1 and state["discards"]["p1"] == ["5S"]
    error = refused(state, "p1", {"type": "draw", "card": "5S"})
    assert (error.code, error.rule) == ("card-not-in-deck", "G-M2")
    assert "p2" not in error.detail
    assert {"type": "draw", "card": "5S"} not in sq.legal_actions(state, "p1")


def test_sq_t4_table_mode_replacement_is_reported_before_playing():
    state = table_game()
    state = put(
        give(state, "p1", ["7H", "5S"] + state["hands"]["p1"][2:]), "blue", [(4, 8), (5, 3)]
    )
    state, events = run(state, "p1", {"type": "exchange-dead-card", "card": "7H"})
    assert types(events) == ["dead-card-exchanged"] and state["replacement_due"] == "p1"
    assert refused(state, "p1", {"type": "play", "card": "5S", "cell": [0, 4]}).code == "draw-first"
    assert {a["type"] for a in sq.legal_actions(state, "p1")} == {"draw"}
    state, _ = run(state, "p1", {"type": "draw", "card": state["deck"][0]})
    assert state["replacement_due"] is None and len(state["hands"]["p1"]) == 7
    state, _ = run(state, "p1", {"type": "play", "card": "5S", "cell": [0, 4]})
    assert state["turn"] == "p2"


def test_sq_t6_table_talk_every_member_of_the_team_discards_a_card():
    state, _ = start(players=4)
    state, events = run(state, "referee", {"type": "penalty", "side": "green", "offender": "p3"})
    assert events == [
        {"type": "penalty", "seat": None, "side": "green", "offender": "p3", "seats": ["p1", "p3"]}
    ]
    assert state["penalty_due"] == ["p1", "p3"]
    card = state["hands"]["p1"][0]
    assert (
        refused(state, "p1", {"type": "play", "card": card, "cell": [0, 1]}).code == "penalty-due"
    )
    assert {a["type"] for a in sq.legal_actions(state, "p1")} == {"penalty-discard"}
    state, events = run(state, "p1", {"type": "penalty-discard", "card": card})
    assert events == [{"type": "penalty-discarded", "seat": "p1", "card": card}]
    assert len(state["hands"]["p1"]) == 5 and state["discards"]["p1"] == [card]
    assert (
        refused(state, "p1", {"type": "penalty-discard", "card": state["hands"]["p1"][0]}).code
        == "no-penalty-due"
    )
    assert refused(state, "referee", {"type": "penalty", "side": "green"}).code == "penalty-pending"
    state, _ = run(state, "p3", {"type": "penalty-discard", "card": state["hands"]["p3"][0]})
    assert state["penalty_due"] == [] and len(state["hands"]["p3"]) == 5
    assert len(state["hands"]["p2"]) == 6  # the other team keeps its cards


def test_sq_t6_penalty_is_the_referees_and_needs_a_team():
    state, _ = start(players=4)
    error = refused(state, "p2", {"type": "penalty", "side": "green"})
    assert (error.code, error.status) == ("referee-only", 403)
    assert refused(state, "referee", {"type": "penalty", "side": "red"}).status == 422
    solo, _ = start()
    assert refused(solo, "referee", {"type": "penalty", "side": "green"}).code == "not-a-team"
    dealing, _ = start(players=4, dealing="table")
    assert (
        refused(dealing, "referee", {"type": "penalty", "side": "green"}).code
        == "deal-not-finished"
    )
    assert not any(a["type"] == "penalty" for a in sq.legal_actions(dealing, "referee"))
    assert sq.legal_actions(solo, "referee") == []
    extra = refused(state, "referee", {"type": "penalty", "side": "green", "seat": "p1"})
    assert (extra.code, extra.status) == ("invalid-action", 422)


def empty_the_deck(state):
    """Move the whole deck onto p2's discard pile (as if played long ago)."""
    s = copy.deepcopy(state)
    s["discards"]["p2"].extend(s["deck"])
    s["deck"] = []
    return s


def test_sq_t7_discard_piles_are_reshuffled_from_the_seed_when_the_deck_runs_out():
    state, _ = start()
    state = empty_the_deck(give(state, "p1", ["5S"]))
    piles = ["5S"] + state["discards"]["p2"]  # seat order: p1's pile, then p2's
    new_deck = shuffle(piles, SEED, "reshuffle-1")
    after, events = run(state, "p1", {"type": "play", "card": "5S", "cell": [0, 4]})
    assert types(events) == ["placed", "deck-reshuffled", "drawn", "turn-started"]
    assert events[1]["number"] == 1 and events[1]["cards"] == len(piles)
    assert events[2]["card"] == new_deck[0]
    assert after["deck"] == new_deck[1:] and after["discards"] == {"p1": [], "p2": []}
    assert all_cards(after) == Counter(sq.CLASSIC_DECK)


# ===== sequences and winning (SQ-S1..S5, SN-S1, SN-S2) =====


def test_sq_s3_two_sides_need_two_sequences():
    state, _ = start()
    state = put(give(state, "p1", ["5S", "9C"]), "green", [(0, 1), (0, 2), (0, 3)])
    state, events = run(state, "p1", {"type": "play", "card": "5S", "cell": [0, 4]})
    assert types(events) == ["placed", "sequence-completed", "drawn", "turn-started"]
    assert events[1]["cells"] == [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]]
    assert state["status"] == "active" and state["sequences"][0]["side"] == "green"
    state, _ = run(give(state, "p2", ["KD"]), "p2", {"type": "play", "card": "KD", "cell": [7, 7]})
    # the second shares the free corner (0, 0) with the first: one space (SQ-S4)
    state = put(state, "green", [(1, 0), (2, 0), (3, 0)])
    state, events = run(state, "p1", {"type": "play", "card": "9C", "cell": [4, 0]})
    assert types(events) == ["placed", "sequence-completed", "game-ended"]
    assert events[-1] == {
        "type": "game-ended",
        "seat": None,
        "result": {
            "winners": ["p1"],
            "scores": {"p1": 2, "p2": 0},
            "reason": "sequences",
            "sequence": {"winning_side": "green", "sequences": {"green": 2, "blue": 0}},
        },
    }
    assert state["status"] == "finished" and state["result"] == events[-1]["result"]
    assert sq.view(state, "p2")["result"] == state["result"] and sq.view(state, "p2")["seed"]
    assert refused(state, "p2", {"type": "pass"}).code == "game-over"
    assert sq.legal_actions(state, "p2") == []


def test_sq_s3_three_sides_need_one_sequence():
    state, _ = start(players=3)
    state = put(give(state, "p1", ["5S"]), "green", [(0, 1), (0, 2), (0, 3)])
    state, events = run(state, "p1", {"type": "play", "card": "5S", "cell": [0, 4]})
    assert types(events) == ["placed", "sequence-completed", "game-ended"]
    assert state["result"]["winners"] == ["p1"]
    assert state["result"]["scores"] == {"p1": 1, "p2": 0, "p3": 0}


def card_for(number):
    """The first default Sequence Numbers card whose answer is ``number``."""
    return next(
        c for c in sq.NUMBERS_DECK if c not in ("PLUS", "MINUS") and sq.label_of(NUM, c) == number
    )


def test_sn_s1_two_players_need_one_sequence_four_need_two():
    assert NUMBERS_INDEX[5][0] == (0, 5)  # row 0, next to 1..4 and the free corner
    card = card_for(5)
    for players, finished in ((2, True), (4, False)):
        state, _ = start(NUM, players=players)
        state = put(give(state, "p1", [card]), "green", [(0, 1), (0, 2), (0, 3), (0, 4)])
        state, events = run(state, "p1", {"type": "play", "card": card, "cell": [0, 5]})
        assert "sequence-completed" in types(events)
        assert (state["status"] == "finished") is finished


def test_sn_c1_the_chip_goes_on_a_space_showing_the_answer():
    state, _ = start(NUM)
    card = card_for(42)
    state = give(state, "p1", [card])
    cells = NUMBERS_INDEX[42]
    wrong = NUMBERS_INDEX[41][0]
    assert (
        refused(state, "p1", {"type": "play", "card": card, "cell": list(wrong)}).code
        == "card-not-on-space"
    )
    state, events = run(state, "p1", {"type": "play", "card": card, "cell": list(cells[1])})
    assert state["chips"][cells[1][0]][cells[1][1]] == "green"


def test_sn_c2_sn_s2_plus_is_wild_minus_removes_but_not_from_a_sequence():
    state, _ = start(NUM)
    state = put(give(state, "p1", ["PLUS", "MINUS"]), "blue", [(4, 4)])
    state = lock(state, "blue", [(6, c) for c in range(5)])
    state2, events = run(state, "p1", {"type": "play", "card": "plus", "cell": [3, 3]})
    assert state2["chips"][3][3] == "green" and events[0]["card"] == "PLUS"
    state3, events = run(state, "p1", {"type": "remove-chip", "card": "MINUS", "cell": [4, 4]})
    assert state3["chips"][4][4] is None and state3["turn"] == "p2"
    assert (
        refused(state, "p1", {"type": "remove-chip", "card": "MINUS", "cell": [6, 2]}).code
        == "chip-locked"
    )  # SN-S2
    assert (
        refused(state, "p1", {"type": "play", "card": "MINUS", "cell": [3, 3]}).code
        == "card-cannot-place"
    )


def test_sn_sq_t4_a_problem_card_is_dead_when_both_answer_spaces_are_covered():
    card = card_for(42)
    state, _ = start(NUM)
    state = give(state, "p1", [card, "PLUS"])
    assert refused(state, "p1", {"type": "exchange-dead-card", "card": card}).code == "not-dead"
    state = put(state, "blue", NUMBERS_INDEX[42])
    assert refused(state, "p1", {"type": "exchange-dead-card", "card": "PLUS"}).code == "not-dead"
    state, events = run(state, "p1", {"type": "exchange-dead-card", "card": card})
    assert types(events) == ["dead-card-exchanged", "drawn"]
    assert state["discards"]["p1"] == [card]


def test_sq_s5_the_play_may_name_the_five_spaces():
    state, _ = start()
    state = put(give(state, "p1", ["10S"]), "green", [(5, 0), (5, 2), (5, 3), (5, 4), (5, 5)])
    named = [[5, c] for c in range(1, 6)]
    after, events = run(
        state, "p1", {"type": "play", "card": "10S", "cell": [5, 1], "sequence": named}
    )
    assert events[1]["cells"] == named
    after, events = run(state, "p1", {"type": "play", "card": "10S", "cell": [5, 1]})
    assert events[1]["cells"] == [[5, c] for c in range(5)]
    error = refused(
        state,
        "p1",
        {"type": "play", "card": "10S", "cell": [5, 1], "sequence": [[5, c] for c in range(2, 7)]},
    )
    assert error.code == "invalid-sequence" and error.status == 409


def test_sq_s5_the_default_window_respects_sq_s4():
    """SQ-S5/SQ-S4: unnamed, the sequence is the first window in reading order that
    holds the new chip and shares at most one space with the side's sequences: in a
    row of 10 whose [5, 0..4] is already a sequence, a chip on [5, 7] takes
    [5, 4..8] (not [5, 3..7], which shares two spaces, nor [5, 5..9])."""
    state, _ = start()
    state = lock(state, "green", [(5, c) for c in range(5)])
    state = put(give(state, "p1", ["10D"]), "green", [(5, 5), (5, 6), (5, 8), (5, 9)])
    assert state["board"][5][7] == "10D"
    state, events = run(state, "p1", {"type": "play", "card": "10D", "cell": [5, 7]})
    completed = [e["cells"] for e in events if e["type"] == "sequence-completed"]
    assert completed == [[[5, c] for c in range(4, 9)]]


def test_sq_s4_the_middle_of_nine_scores_two_at_once():
    state, _ = start()
    cells = [(5, c) for c in (0, 1, 2, 3, 5, 6, 7, 8)]
    state = put(give(state, "p1", ["2H"]), "green", cells)  # (5, 4) shows 2H
    state, events = run(state, "p1", {"type": "play", "card": "2H", "cell": [5, 4]})
    assert types(events).count("sequence-completed") == 2
    assert events[-1]["type"] == "game-ended" and events[-1]["result"]["winners"] == ["p1"]


# ===== SQ-E1: every game ends =====


def test_sq_t8_pass_only_without_a_legal_play():
    state, _ = start()
    error = refused(state, "p1", {"type": "pass"})
    assert (error.code, error.rule) == ("must-play", "SQ-T8")
    board_full = put(
        give(state, "p1", ["JS"]),
        "green",
        [(r, c) for r in range(10) for c in range(10) if (r, c) not in sq.CORNERS],
    )
    assert sq.legal_actions(board_full, "p1") == [{"type": "pass"}]  # JS: no opponent chip
    after, events = run(board_full, "p1", {"type": "pass"})
    assert types(events) == ["passed", "turn-started"] and after["turn"] == "p2"


@pytest.mark.parametrize("game", ["sequence", NUM])
@pytest.mark.parametrize(
    "options, winners",
    [({}, []), ({"stalemate": "draw"}, []), ({"stalemate": "most_sequences"}, ["p2"])],
)
def test_sq_e1_a_whole_round_of_passes_ends_the_game_as_a_draw_by_default(game, options, winners):
    """SQ-E1: a game ended by the termination ruling is a draw (no side reached its
    target), each side's sequences reported; option stalemate most_sequences names
    the side with more sequences the winner."""
    state, _ = start(game, **options)
    full = [(r, c) for r in range(10) for c in range(10) if (r, c) not in sq.CORNERS]
    wilds = ["JD", "JC"] if game == "sequence" else ["PLUS", "PLUS"]
    # wilds on a full board: no play, and no dead card to exchange (SQ-T4)
    state = put(give(give(state, "p1", wilds[:1]), "p2", wilds[1:]), "blue", full)
    state = lock(state, "blue", [(3, c) for c in range(5)])
    state, events = run(state, "p1", {"type": "pass"})
    state, events = run(state, "p2", {"type": "pass"})
    assert types(events) == ["passed", "game-ended"]
    assert events[-1]["result"] == {
        "winners": winners,
        "scores": {"p1": 0, "p2": 1},
        "reason": "no-legal-play",
        "sequence": {
            "winning_side": "blue" if winners else None,
            "sequences": {"green": 0, "blue": 1},
        },
    }


def test_sq_e1_a_tie_is_a_draw_even_with_most_sequences():
    state, _ = start(stalemate="most_sequences")
    full = [(r, c) for r in range(10) for c in range(10) if (r, c) not in sq.CORNERS]
    state = put(give(give(state, "p1", ["JD"]), "p2", ["JC"]), "blue", full)
    state, _ = run(state, "p1", {"type": "pass"})
    state, events = run(state, "p2", {"type": "pass"})
    assert events[-1]["result"]["winners"] == [] and state["result"]["winners"] == []
    assert state["result"]["sequence"] == {
        "winning_side": None,
        "sequences": {"green": 0, "blue": 0},
    }


def test_sq_e1_a_pass_after_an_exchange_does_not_count_towards_the_round():
    """SQ-E1 (b) is decided on the public record: a seat that exchanged a dead card
    in its turn may pass, but that pass starts no round (it may hold another dead
    card to exchange next turn)."""
    state, _ = start()
    state = give(give(state, "p1", ["5S", "6S"]), "p2", ["JD"])
    state = on_top(closed_board(state), ["7S"])
    state, _ = run(state, "p1", {"type": "exchange-dead-card", "card": "5S"})
    state, _ = run(state, "p1", {"type": "pass"})
    assert state["passes"] == 0
    state, _ = run(state, "p2", {"type": "pass"})
    assert state["passes"] == 1 and state["status"] == "active"


def closed_board(state, open_cells=()):
    """Every non-corner space but ``open_cells`` holds a chip, green and blue in a
    pattern with no 5 in a line of one side (checked below)."""
    s = copy.deepcopy(state)
    for r in range(10):
        for c in range(10):
            if (r, c) not in sq.CORNERS and (r, c) not in open_cells:
                s["chips"][r][c] = "green" if (r + 2 * c) % 4 < 2 else "blue"
    return s


def on_top(state, cards):
    """The deck with ``cards`` (still in it) moved to its top, in that order."""
    s = copy.deepcopy(state)
    for card in reversed(cards):
        s["deck"].remove(card)
        s["deck"].insert(0, card)
    return s


def test_closed_board_pattern_holds_no_sequence():
    fresh, _ = start()
    state = closed_board(fresh)
    assert sq.board_closed(state)
    for side in ("green", "blue"):
        assert sq.scan_sequences(state["board"], state["chips"], [], side) == []


def test_sq_e1_a_board_is_closed_when_no_side_can_still_build_a_sequence():
    """RULES.md SQ-E1: closed = no space can take a new chip of a side that could still
    build a sequence (not only: every space covered)."""
    fresh, _ = start()
    assert sq.board_closed(closed_board(fresh, [(0, 4)]))  # open, but in no side's line
    row = [(0, 1), (0, 2), (0, 3), (0, 4)]  # with the corner: 5 spaces anyone can fill
    assert not sq.board_closed(closed_board(fresh, row))
    green = closed_board(fresh, row)
    for r, c in row[:3]:
        green["chips"][r][c] = "green"
    green["chips"][1][1] = "blue"  # elsewhere, nothing else open
    assert not sq.board_closed(green)  # green can still make (0,0)-(0,4)
    green["sequences"] = [{"side": "green", "cells": [[0, 0], [1, 1], [2, 2], [3, 3], [4, 4]]}]
    assert not sq.board_closed(green)  # one shared space is allowed (SQ-S4)
    green["chips"][0][3] = "blue"
    assert sq.board_closed(green)  # blue on the row: no side can use (0, 4) any more


def test_sq_t4_sq_e1_no_pass_while_a_dead_card_can_be_exchanged():
    state, _ = start()
    state = on_top(closed_board(give(state, "p1", ["5S", "6S"])), ["7S"])
    assert len(state["deck"]) == 104 - 7 - 2  # p2's hand and p1's: the rest to draw
    assert refused(state, "p1", {"type": "pass"}).code == "must-exchange"
    assert sq.legal_actions(state, "p1") == [
        {"type": "exchange-dead-card", "card": "5S"},
        {"type": "exchange-dead-card", "card": "6S"},
    ]
    state, events = run(state, "p1", {"type": "exchange-dead-card", "card": "5S"})
    assert events[-1] == {"type": "drawn", "seat": "p1", "card": "7S"}
    assert sq.legal_actions(state, "p1") == [{"type": "pass"}]  # one exchange per turn
    state, events = run(state, "p1", {"type": "pass"})
    assert types(events) == ["passed", "turn-started"] and state["turn"] == "p2"


def test_sq_t4_sq_e1_a_dead_card_without_a_replacement_does_not_forbid_passing():
    state, _ = start()
    state = closed_board(give(state, "p1", ["5S"]))
    state["deck"] = []  # the rest is set aside: nothing left to draw (SQ-T7 neither)
    actions = sq.legal_actions(state, "p1")
    assert {"type": "pass"} in actions
    assert {"type": "exchange-dead-card", "card": "5S"} in actions
    _, events = run(state, "p1", {"type": "pass"})
    assert events[0] == {"type": "passed", "seat": "p1"}


def test_sq_e1_a_round_of_passes_goes_on_while_a_seat_could_still_exchange():
    state, _ = start()
    state = give(give(state, "p1", ["5S", "6S"]), "p2", ["JD"])
    state = on_top(closed_board(state), ["7S"])
    state, _ = run(state, "p1", {"type": "exchange-dead-card", "card": "5S"})
    state, _ = run(state, "p1", {"type": "pass"})
    state, events = run(state, "p2", {"type": "pass"})  # JD: no open space
    assert types(events) == ["passed", "turn-started"]
    assert state["status"] == "active" and state["turn"] == "p1"
    assert {"type": "exchange-dead-card", "card": "6S"} in sq.legal_actions(state, "p1")
    assert {"type": "pass"} not in sq.legal_actions(state, "p1")


def test_sq_t5_sq_e1_a_seat_owing_its_draw_reports_it_before_passing():
    state = table_game()
    state = give(give(state, "p1", ["5S"]), "p2", ["JD"])
    state = closed_board(state, [(0, 4)])
    state, _ = run(state, "p1", {"type": "play", "card": "5S", "cell": [0, 4]})
    assert sq.board_closed(state) and state["pending_draws"] == {"p1": 1}
    state, _ = run(state, "p2", {"type": "pass"})  # JD: no open space
    assert state["status"] == "active" and state["hands"]["p1"] == []
    assert refused(state, "p1", {"type": "pass"}).code == "draw-first"
    assert {a["type"] for a in sq.legal_actions(state, "p1")} == {"draw"}
    state, _ = run(state, "referee", {"type": "draw", "seat": "p1", "card": "JC"})
    state, events = run(state, "p1", {"type": "pass"})  # JC: no open space either
    assert types(events) == ["passed", "turn-started"]  # the draw restarted the round
    state, events = run(state, "p2", {"type": "pass"})
    assert types(events) == ["passed", "game-ended"]
    assert events[-1]["result"]["reason"] == "no-legal-play"
    assert events[-1]["result"]["winners"] == []


def test_sq_t7_sq_e1_an_open_board_reshuffles_until_the_hard_limit():
    state, _ = start(stalemate_decks=1)
    state = give(give(state, "p1", ["5S", "9C"]), "p2", ["7S", "KD"])
    moves = [("p1", "5S", [0, 4]), ("p2", "7S", [0, 6]), ("p1", "9C", [4, 0]), ("p2", "KD", [7, 7])]
    for number, (seat, card, cell) in enumerate(moves[:3], start=1):
        state, events = run(
            empty_the_deck(state), seat, {"type": "play", "card": card, "cell": cell}
        )
        # open spaces left and two-eyed Jacks about: the game goes on (SQ-T7)
        assert types(events) == ["placed", "deck-reshuffled", "drawn", "turn-started"]
        assert state["status"] == "active" and state["barren"] == number
    seat, card, cell = moves[3]
    state, events = run(empty_the_deck(state), seat, {"type": "play", "card": card, "cell": cell})
    assert types(events) == ["placed", "game-ended"]  # 4 x 1 barren decks
    assert events[-1]["result"]["reason"] == "stalemate"
    assert events[-1]["result"]["winners"] == []
    default, _ = start()
    assert not sq.is_stalemate(default, 7) and sq.is_stalemate(default, 8)
    assert not sq.is_stalemate(default, 2)


def test_sq_e1_stalemate_on_a_closed_board_after_stalemate_decks():
    state, _ = start()  # stalemate_decks 2
    state = closed_board(give(give(state, "p1", ["5S"]), "p2", ["7S"]))
    state["deck"], state["discards"]["p2"] = [], ["7C", "8C"]  # the rest set aside
    state, events = run(state, "p1", {"type": "exchange-dead-card", "card": "5S"})
    assert types(events) == ["dead-card-exchanged", "deck-reshuffled", "drawn"]
    assert state["barren"] == 1 and sq.legal_actions(state, "p1") == [{"type": "pass"}]
    state, _ = run(state, "p1", {"type": "pass"})
    assert sq.legal_actions(state, "p2") == [{"type": "exchange-dead-card", "card": "7S"}]
    state, events = run(empty_the_deck(state), "p2", {"type": "exchange-dead-card", "card": "7S"})
    assert types(events) == ["dead-card-exchanged", "game-ended"]
    assert events[-1]["result"]["reason"] == "stalemate"
    assert events[-1]["result"]["winners"] == []
    assert sq.is_stalemate(state, 2) and not sq.is_stalemate(state, 1)


def test_sq_e1_stalemate_with_most_sequences_names_the_leader():
    state, _ = start(stalemate_decks=1, stalemate="most_sequences")
    state = closed_board(give(give(state, "p1", ["5S"]), "p2", ["7S"]))
    state = lock(state, "green", [(5, c) for c in range(5)])
    state["barren"] = 3  # three whole decks already without a new sequence
    state["mark"] = 1
    state, events = run(empty_the_deck(state), "p1", {"type": "exchange-dead-card", "card": "5S"})
    assert types(events) == ["dead-card-exchanged", "game-ended"]
    assert events[-1]["result"]["reason"] == "stalemate"
    assert events[-1]["result"]["winners"] == ["p1"]


def test_sq_e1_a_new_sequence_resets_the_stalemate_count():
    state, _ = start(stalemate_decks=1)
    state = put(
        closed_board(give(state, "p1", ["5S"]), [(0, 4)]), "green", [(0, 1), (0, 2), (0, 3)]
    )
    after, events = run(empty_the_deck(state), "p1", {"type": "play", "card": "5S", "cell": [0, 4]})
    assert sq.board_closed(after) and "sequence-completed" in types(events)
    assert "deck-reshuffled" in types(events) and after["status"] == "active"
    assert after["barren"] == 0


# ===== who may act (403) =====


def test_a_seat_acts_only_for_itself_and_the_referee_only_in_table_mode():
    state, _ = start()
    state = give(state, "p1", ["5S"])
    error = refused(state, "p1", {"type": "play", "seat": "p2", "card": "5S", "cell": [0, 4]})
    assert (error.code, error.status) == ("not-your-seat", 403)
    error = refused(state, "referee", {"type": "play", "seat": "p1", "card": "5S", "cell": [0, 4]})
    assert (error.code, error.status) == ("referee-not-allowed", 403)
    assert refused(state, "p9", {"type": "pass"}).status == 403
    table = table_game()
    assert refused(table, "referee", {"type": "pass"}).code == "seat-required"
    assert refused(table, "referee", {"type": "pass", "seat": "p7"}).code == "invalid-seat"
    run(table, "p1", {"type": "play", "seat": "p1", **sq.legal_actions(table, "p1")[0]})


# ===== views, event views, legal actions =====


def test_views_show_a_seat_its_own_hand_only_and_nobody_the_deck_order():
    state, _ = start(players=4)
    p1 = sq.view(state, "p1")
    public = sq.view(state, None)
    assert p1["hand"] == state["hands"]["p1"] and "hands" not in p1
    assert {k: v for k, v in p1.items() if k not in ("hand", "seat")} == public
    assert "deck" not in p1 and p1["deck_count"] == len(state["deck"])
    assert p1["hand_counts"] == {"p1": 6, "p2": 6, "p3": 6, "p4": 6}
    assert "hand" not in public and "hands" not in public
    referee = sq.view(state, "referee")
    assert referee["hands"] == state["hands"] and "deck" not in referee
    for viewer in ("p1", "referee", None):
        seen = sq.view(state, viewer)
        assert "seed" not in seen and seen["seed_commitment"] == commitment(SEED)


def test_teammates_do_not_see_each_others_hands():
    state, _ = start(players=4)
    state = give(give(state, "p1", ["2S", "3S"]), "p3", ["KD", "QD"])
    p1 = json.dumps(sq.view(state, "p1")["hand"])
    seen = json.dumps(
        {k: v for k, v in sq.view(state, "p1").items() if k not in ("options", "board")}
    )
    assert "KD" not in seen and "QD" not in seen and "2S" in p1


def test_view_event_hides_dealt_and_drawn_cards_and_the_seed():
    state, events = start()
    created = sq.view_event(state, events[0], "p1")
    assert "seed" not in created and created["seed_commitment"] == commitment(SEED)
    dealt = events[1]
    assert sq.view_event(state, dealt, "p1") == dealt
    assert sq.view_event(state, dealt, "referee") == dealt
    assert sq.view_event(state, dealt, "p2") == {"type": "dealt", "seat": "p1", "count": 7}
    assert sq.view_event(state, dealt, None) == sq.view_event(state, dealt, "p2")
    state = give(state, "p1", ["5S"])
    state, more = run(state, "p1", {"type": "play", "card": "5S", "cell": [0, 4]})
    drawn = more[1]
    assert sq.view_event(state, drawn, "p2") == {"type": "drawn", "seat": "p1", "count": 1}
    assert sq.view_event(state, more[0], "p2") == more[0]  # a play is public
    finished = {**state, "status": "finished"}
    assert sq.view_event(finished, events[0], "p2")["seed"] == SEED
    assert sq.view(finished, None)["seed"] == SEED


def test_legal_actions_are_complete_bodies_apply_accepts():
    for game, options in (("sequence", {}), (NUM, {"players": 4})):
        state, _ = start(game, **options)
        actions = sq.legal_actions(state, "p1")
        assert actions and all(a["type"] in ("play", "remove-chip") for a in actions)
        for action in actions:
            sq.apply(state, "p1", action)
        assert sq.legal_actions(state, "p2") == []
        assert sq.legal_actions(state, "nobody") == []
    table = table_game()
    referee = sq.legal_actions(table, "referee")
    assert referee and all(a["seat"] == "p1" for a in referee)
    for action in referee:
        sq.apply(table, "referee", action)


def test_legal_actions_cover_both_spaces_and_every_open_space_for_a_wild():
    state, _ = start()
    state = give(state, "p1", ["5S", "JD"])
    actions = sq.legal_actions(state, "p1")
    assert {tuple(a["cell"]) for a in actions if a["card"] == "5S"} == {(0, 4), (8, 3)}
    assert len([a for a in actions if a["card"] == "JD"]) == 96 - sum(
        1 for row in state["chips"] for x in row if x
    )


@pytest.mark.parametrize("game", ["sequence", "sequence-numbers"])
def test_sq_t1_a_card_missing_from_the_action_is_named(game):
    with pytest.raises(sq.InputError) as info:
        sq.parse_card_for(game, None)
    assert (info.value.code, info.value.field) == ("invalid-card", "card")
    assert "needs 'card'" in info.value.detail
