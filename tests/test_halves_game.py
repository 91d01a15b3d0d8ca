"""Halves engine (service/games/halves.py), rule by rule (RULES.md §4, HV-*; §0, G-*).

Card notation: a half is colour (R G B Y) + symbol (C S T X); a card is two halves,
``RC-GS`` = red circle / green square. Positions are built exactly with
``halves_helpers.position`` (hands, piles top first, centre bottom first).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from halves_helpers import SEED, conserved, entry, fold_all, new_state, position, run
from seeds.make_halves_deck import document as deck_document
from service.games import RuleViolation, halves
from service.games.halves import (
    DEFAULT_DECK,
    CardCodeError,
    check_play,
    judge,
    legal_actions,
    matches,
    parse_card,
    view,
    view_event,
)


def refusal(state: dict, actor: str, action: dict) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        halves.apply(state, actor, action)
    return caught.value


def kinds(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


# ----- HV-C1: the deck and the notation -----


def test_hv_c1_default_deck_is_the_72_cards_whose_halves_differ_in_colour_and_symbol():
    assert len(DEFAULT_DECK) == 72
    halves_seen = Counter()
    identities = set()
    for code in DEFAULT_DECK:
        first, second = halves.halves_of(code)
        assert first[0] != second[0] and first[1] != second[1], code
        assert "RGBY".index(first[0]) < "RGBY".index(second[0]), f"{code} not upright"
        halves_seen.update([first, second])
        identities.add(frozenset((first, second)))
    assert len(identities) == 72  # every card once, also turned round
    # 16 halves (4 colours x 4 symbols), each on 9 cards (3 other colours x 3 symbols)
    assert len(halves_seen) == 16 and set(halves_seen.values()) == {9}
    assert DEFAULT_DECK[:3] == ("RC-GS", "RC-GT", "RC-GX") and DEFAULT_DECK[-1] == "BX-YT"


def test_hv_c1_the_seed_file_is_what_its_generator_makes():
    path = halves.SEEDS / "halves-deck.json"
    assert json.loads(path.read_text()) == deck_document()
    assert halves.COLOURS == {"R": "red", "G": "green", "B": "blue", "Y": "yellow"}
    assert halves.SYMBOLS == {"C": "circle", "S": "square", "T": "triangle", "X": "cross"}


@pytest.mark.parametrize(
    "written, halves_",
    [
        ("RC-GS", ("RC", "GS")),
        ("rc-gs", ("RC", "GS")),
        ("RCGS", ("RC", "GS")),
        ("rc/gs", ("RC", "GS")),
        ("CR-SG", ("RC", "GS")),
        ("GS-RC", ("GS", "RC")),
    ],
)
def test_hv_c1_card_codes_are_read_as_written(written, halves_):
    assert parse_card(written) == halves_


@pytest.mark.parametrize(
    "bad",
    [
        "RC-GZ",
        "RC-G",
        "RCG",
        "",
        " RC-GS",
        "RC-GS ",
        "RC--GS",
        "RR-GS",
        "CC-GS",
        "RC-GS-BT",
        "ſC-GS",
        7,
        None,
        ["RC"],
    ],
)
def test_hv_c1_anything_else_is_not_a_card(bad):
    with pytest.raises(CardCodeError):
        parse_card(bad)


def test_hv_c1_a_custom_deck_is_validated_naming_the_bad_card():
    good = list(DEFAULT_DECK[:12])
    for bad, index, words in [
        (good[:3] + ["RC-RC"] + good[3:], 3, "two halves are the same"),
        (good + ["GS-RC"], 12, "same card as deck[0]"),
        (good + ["RC-GS"], 12, "same card as deck[0]"),
        (good[:5] + ["RQ-GS"] + good[5:], 5, "unknown card code 'RQ-GS'"),
    ]:
        with pytest.raises(RuleViolation) as caught:
            halves.new_game("halves", {"deck": bad}, SEED)
        error = caught.value
        assert (error.code, error.status, error.rule) == ("invalid-option", 422, "HV-C1")
        assert f"deck[{index}]" in error.detail and words in error.detail
        messages = error.extra["errors"]["json"]["options"]["deck"][str(index)]
        assert words in messages[0]
    for bad in ([], "RC-GS", [1, 2]):
        with pytest.raises(RuleViolation) as caught:
            halves.new_game("halves", {"deck": bad}, SEED)
        assert caught.value.code == "invalid-option"


def test_hv_c1_a_custom_deck_is_dealt_as_listed_upright():
    """Custom cards keep their listed orientation as upright, even with one colour."""
    deck = [
        "RC-RS",
        "GT-GX",
        "BC-YS",
        "YT-BX",
        "RX-GC",
        "GS-RT",
        "BT-YC",
        "YX-BS",
        "RT-GX",
        "GC-RS",
    ]
    state = new_state(deck=deck)
    assert state["deck"] == deck and len(state["box"]) == 0
    assert sorted(
        state["hands"]["p1"]
        + state["piles"]["p1"]
        + state["hands"]["p2"]
        + state["piles"]["p2"]
        + [e["card"] for e in state["centre"]]
    ) == sorted(deck)


# ----- HV-P1 / HV-P2 / G-O1: deal and the starting card -----


@pytest.mark.parametrize("players", range(2, 15))
def test_hv_p1_equal_deal_leftovers_stay_in_the_box(players):
    events = halves.new_game("halves", {"players": players}, SEED)
    dealt = [e for e in events if e["type"] == "dealt"]
    share = 72 // players
    assert [len(e["cards"]) for e in dealt] == [share] * players
    state = fold_all(events[: 1 + players])
    assert len(state["box"]) == 72 % players
    assert all(
        len(state["hands"][s]) == 4 and len(state["piles"][s]) == share - 4 for s in state["seats"]
    )
    every = [c for e in dealt for c in e["cards"]] + state["box"]
    assert sorted(every) == sorted(DEFAULT_DECK)


@pytest.mark.parametrize("players", [1, 15, 0, "3", 3.0, True, None])
def test_hv_p1_player_counts_outside_2_to_14_are_refused(players):
    options = {"players": players}
    if players is None:
        assert new_state(**options)["seats"] == ["p1", "p2"]  # null: the default
        return
    with pytest.raises(RuleViolation) as caught:
        halves.new_game("halves", options, SEED)
    assert caught.value.code == "invalid-option" and caught.value.rule == "HV-P1"


def test_hv_p1_each_player_gets_at_least_five_cards():
    with pytest.raises(RuleViolation) as caught:
        halves.new_game("halves", {"players": 3, "deck": list(DEFAULT_DECK[:14])}, SEED)
    assert "at least 15 cards" in caught.value.detail and caught.value.rule == "HV-P1"
    assert len(new_state(players=3, deck=list(DEFAULT_DECK[:15]))["box"]) == 0


@pytest.mark.parametrize("first", ["p1", "p3"])
def test_hv_p2_first_seat_turns_its_pile_top_to_start_the_centre(first):
    events = halves.new_game("halves", {"players": 4, "first_seat": first}, SEED)
    dealt = {e["seat"]: e["cards"] for e in events if e["type"] == "dealt"}
    start = events[5]
    assert start == {
        "type": "pile-turned",
        "seat": first,
        "card": dealt[first][4],
        "turned": False,
        "rule": "HV-P2",
    }
    state = fold_all(events[:6])
    assert state["centre"] == [{"card": dealt[first][4], "turned": False}]
    assert len(state["piles"][first]) == 18 - 4 - 1
    assert state["turner"] == {"p1": "p2", "p3": "p4"}[first]  # HV-T5 starts after it


def test_g_o1_first_seat_must_be_a_seat():
    with pytest.raises(RuleViolation) as caught:
        halves.new_game("halves", {"players": 2, "first_seat": "p3"}, SEED)
    assert caught.value.rule == "G-O1"


def test_unknown_options_and_wrong_types_are_refused():
    for options in (
        {"colour": "red"},
        {"match": "halves"},
        {"allow_turning": "no"},
        {"dealing": "online"},
        {"allow_turning": 1},
    ):
        with pytest.raises(RuleViolation) as caught:
            halves.new_game("halves", options, SEED)
        assert caught.value.code == "invalid-option" and caught.value.status == 422


def test_g_m1_the_server_deal_follows_the_seed_only():
    assert halves.new_game("halves", {}, SEED) == halves.new_game("halves", {}, SEED)
    other = halves.new_game("halves", {}, "cd" * 32)
    assert other[1]["cards"] != halves.new_game("halves", {}, SEED)[1]["cards"]


# ----- HV-T1: matching, orientation, options -----


def test_hv_t1_each_half_matches_the_tops_half_by_colour_or_by_symbol():
    top = ("RC", "GS")
    verdict = judge(top, ("RT", "BS"))  # red like RC, square like GS
    assert verdict == {
        "matches": True,
        "halves": [
            {"by": "colour", "colour": True, "symbol": False},
            {"by": "symbol", "colour": False, "symbol": True},
        ],
    }
    assert matches(top, ("BC", "YS"))  # both by symbol
    assert matches(top, ("RT", "GX"))  # both by colour
    assert not matches(top, ("RT", "BX"))  # the second half shares nothing with GS
    assert not matches(top, ("BS", "RT"))  # RT-BS laid the other way round


def test_hv_t1_whole_card_option_wants_both_halves_by_colour_or_both_by_symbol():
    top = ("RC", "GS")
    assert not matches(top, ("RT", "BS"), "whole_card")
    assert judge(top, ("RT", "BS"), "whole_card")["halves"][0]["by"] is None
    assert matches(top, ("BC", "YS"), "whole_card")
    assert judge(top, ("RT", "GX"), "whole_card")["halves"] == [
        {"by": "colour", "colour": True, "symbol": False},
        {"by": "colour", "colour": True, "symbol": False},
    ]


def test_hv_t1_check_reports_the_other_way_round():
    verdict = check_play("RC-GS", "BS-RT")
    assert (verdict["matches"], verdict["matches_turned"]) == (False, True)
    assert verdict["rule"] == "HV-T1" and "RT-BS (the card turned round) does" in verdict["detail"]
    turned = check_play("RC-GS", "BS-RT", turned=True)
    assert turned["matches"] and turned["laid"] == "RT-BS" and turned["card"] == "BS-RT"


def test_hv_t1_a_play_lays_the_card_as_stated_and_the_next_play_matches_that():
    # GT-YC matches RC-GS only turned: YC (circle) on RC, GT (green) on GS
    state = position({"p1": ["GT-YC", "BX-YS", "RS-YX"], "p2": ["BC-YT", "GC-BS", "RX-BT"]})
    assert (
        refusal(state, "p1", {"type": "play", "card": "GT-YC", "based_on": "RC-GS"}).code
        == "no-match"
    )
    events, after = run(
        state, "p1", {"type": "play", "card": "GT-YC", "turned": True, "based_on": "RC-GS"}
    )
    assert events[0] == {
        "type": "played",
        "seat": "p1",
        "card": "GT-YC",
        "turned": True,
        "based_on": "RC-GS",
    }
    assert view(after, "p2")["top"] == {"card": "GT-YC", "turned": True, "halves": ["YC", "GT"]}
    # the same card laid the same way, written as it lies: YC-GT
    assert (
        halves.apply(state, "p1", {"type": "play", "card": "YC-GT", "based_on": "RC-GS"})[0]
        == events[0]
    )
    # on YC / GT, BC-YT goes upright (circle on circle, triangle on triangle); on the
    # same card upright (GT / YC) it would have to be turned
    assert [(a["card"], a["turned"]) for a in legal_actions(after, "p2")] == [("BC-YT", False)]
    upright = position(
        {"p1": ["BX-YS", "RS-YX"], "p2": ["BC-YT", "GC-BS", "RX-BT"]}, centre=["GT-YC"]
    )
    assert [(a["card"], a["turned"]) for a in legal_actions(upright, "p2")] == [("BC-YT", True)]


def test_hv_t1_a_refusal_says_when_the_card_would_match_the_other_way_round():
    state = position({"p1": ["GT-YC", "BT-YX"], "p2": ["RT-BS", "GC-BS"]})
    error = refusal(state, "p1", {"type": "play", "card": "GT-YC", "based_on": "RC-GS"})
    assert (error.code, error.status, error.rule) == ("no-match", 409, "HV-T1")
    assert "but would the other way round" in error.detail
    error = refusal(state, "p1", {"type": "play", "card": "BT-YX", "based_on": "RC-GS"})
    assert error.code == "no-match" and "other way round" not in error.detail


def test_hv_t1_allow_turning_false_refuses_a_turned_card_and_lists_upright_plays():
    state = position({"p1": ["GT-YC", "RT-BS"], "p2": ["GC-BS", "BT-YX"]}, allow_turning=False)
    for action in (
        {"type": "play", "card": "GT-YC", "turned": True, "based_on": "RC-GS"},
        {"type": "play", "card": "YC-GT", "based_on": "RC-GS"},
    ):
        error = refusal(state, "p1", action)
        assert (error.code, error.rule) == ("turning-not-allowed", "HV-T1")
    assert legal_actions(state, "p1") == [
        {"type": "play", "card": "RT-BS", "turned": False, "based_on": "RC-GS"}
    ]
    # with turning allowed the same hand also offers GT-YC turned
    allowed = position({"p1": ["GT-YC", "RT-BS"], "p2": ["GC-BS", "BT-YX"]})
    assert {
        (a["card"], a["turned"]) for a in legal_actions(allowed, "p1") if a["type"] == "play"
    } == {("RT-BS", False), ("GT-YC", True)}


def test_hv_t1_a_card_must_be_in_the_hand_and_of_this_deck():
    state = position({"p1": ["RT-BS", "BT-YX"], "p2": ["GC-BS", "RX-BT"]})
    error = refusal(state, "p1", {"type": "play", "card": "GC-BS", "based_on": "RC-GS"})
    assert (error.code, error.rule) == ("not-in-hand", "HV-T1")
    assert "p2" not in error.detail
    error = refusal(state, "p1", {"type": "play", "card": "RC-RS", "based_on": "RC-GS"})
    assert (error.code, error.status) == ("invalid-card", 422)


# ----- HV-T2: drawing -----


def test_hv_t2_a_seat_draws_its_own_pile_top_at_any_time_up_to_four():
    state = position(
        {"p1": ["BT-YX", "GC-BX"], "p2": ["RT-BS", "GS-BX"]}, {"p1": ["RC-YT", "RS-YX", "RT-YX"]}
    )
    events, after = run(state, "p1", {"type": "draw"})
    assert events == [{"type": "drawn", "seat": "p1", "card": "RC-YT", "top_up": False}]
    assert after["hands"]["p1"] == ["BT-YX", "GC-BX", "RC-YT"]
    assert after["piles"]["p1"] == ["RS-YX", "RT-YX"]
    _, full = run(after, "p1", {"type": "draw"})
    error = refusal(full, "p1", {"type": "draw"})
    assert (error.code, error.rule) == ("hand-full", "HV-T2")
    assert {"type": "draw"} not in legal_actions(full, "p1")
    error = refusal(state, "p2", {"type": "draw"})
    assert (error.code, error.rule) == ("pile-empty", "HV-T2")
    assert {"type": "draw"} in legal_actions(state, "p1")


# ----- HV-T3: races -----


def test_hv_t3_a_play_aimed_at_a_covered_top_is_stale_even_if_it_matches_the_new_top():
    state = position({"p1": ["RT-BS", "BT-YX", "GC-BX"], "p2": ["RS-BT", "GS-BX", "GC-YT"]})
    _, after = run(state, "p1", {"type": "play", "card": "RT-BS", "based_on": "RC-GS"})
    aimed = {"type": "play", "card": "RS-BT", "based_on": "RC-GS"}
    assert matches(("RT", "BS"), ("RS", "BT"))  # it would match the new top too
    error = refusal(after, "p2", aimed)
    assert (error.code, error.status, error.rule) == ("stale-top-card", 409, "HV-T3")
    assert error.extra == {"top": {"card": "RT-BS", "turned": False, "halves": ["RT", "BS"]}}
    assert "RT-BS" in error.detail
    assert "RS-BT" in after["hands"]["p2"]  # the refused card stays in hand
    events, _ = run(after, "p2", {**aimed, "based_on": "RT-BS"})
    assert events[0]["based_on"] == "RT-BS"


def test_hv_t3_game_over_wins_over_stale():
    state = position({"p1": ["RT-BS", "GC-BX"], "p2": ["RS-BT", "GS-BX"]})
    _, after = run(state, "p1", {"type": "play", "card": "RT-BS", "based_on": "RC-GS"})
    assert after["status"] == "finished"
    error = refusal(after, "p2", {"type": "play", "card": "RS-BT", "based_on": "RC-GS"})
    assert (error.code, error.rule) == ("game-over", "HV-E1")


def test_hv_t3_a_play_names_its_based_on():
    state = position({"p1": ["RT-BS", "GC-BX"], "p2": ["RS-BT", "GS-BX"]})
    error = refusal(state, "p1", {"type": "play", "card": "RT-BS"})
    assert (error.code, error.status, error.rule) == ("invalid-action", 422, "HV-T3")
    error = refusal(state, "p1", {"type": "play", "card": "RT-BS", "based_on": "top"})
    assert (error.code, error.status) == ("invalid-card", 422)


# ----- HV-T4 / HV-T5: blocks, bottom-card moves, pile turns, the end -----

# Every card below matches neither RT-BS nor RC-GS, either way round.
DEAD = ["GC-BT", "GC-BX", "GS-BX", "GX-BS", "BC-YX", "RC-YT", "RC-YX", "RS-YX", "RT-YC"]


def test_hv_t4_top_ups_then_bottom_moves_then_a_pile_turn_in_the_same_action():
    state = position(
        {"p1": ["RT-BS", "GC-BT"], "p2": ["RC-YT"]},
        {"p1": ["GC-BX", "GS-BX", "GX-BS", "BC-YX"], "p2": ["RC-YX", "RS-YX", "RT-YC", "RX-YC"]},
    )
    events, after = run(state, "p1", {"type": "play", "card": "RT-BS", "based_on": "RC-GS"})
    assert events == [
        {"type": "played", "seat": "p1", "card": "RT-BS", "turned": False, "based_on": "RC-GS"},
        # HV-T4: nobody matches RT-BS: every hand below 4 is topped up from its pile
        {"type": "drawn", "seat": "p1", "card": "GC-BX", "top_up": True},
        {"type": "drawn", "seat": "p1", "card": "GS-BX", "top_up": True},
        {"type": "drawn", "seat": "p1", "card": "GX-BS", "top_up": True},
        {"type": "drawn", "seat": "p2", "card": "RC-YX", "top_up": True},
        {"type": "drawn", "seat": "p2", "card": "RS-YX", "top_up": True},
        {"type": "drawn", "seat": "p2", "card": "RT-YC", "top_up": True},
        # still blocked: the bottom card comes to the top (N = 2: one move)
        {"type": "bottom-card-moved", "seat": None, "card": "RC-GS"},
        # HV-T5: bottom moves cannot help; the seat after the first seat turns its pile
        {"type": "pile-turned", "seat": "p2", "card": "RX-YC", "turned": False, "rule": "HV-T5"},
    ]
    # RC-YT matches RX-YC (RC/RX red, YT/YC yellow): play resumes
    assert halves.can_play(after, "p2") and conserved(after)
    assert view(after, "p1")["blocked"] == {
        "top_up_draws": 6,
        "bottom_card_moves": 1,
        "pile_turns": 1,
        "in_a_row": 2,
    }
    assert after["turner"] == "p1"  # the rotation goes on round


def test_hv_t4_bottom_moves_repeat_up_to_n_minus_1_then_a_pile_turn():
    # centre (bottom first) RC-GS, RT-BS, then p1's play RS-BT: N = 3, so 2 moves; no
    # hand card matches any of the three (either way round) after p1's top-up of GC-YT
    state = position(
        {"p1": ["RS-BT", "GC-BT", "GC-BX", "GX-BS"], "p2": ["BC-YX", "RC-YX", "RS-YX", "RT-YC"]},
        {"p1": ["GC-YT", "BS-YX"], "p2": ["RX-YC", "BT-YX"]},
        centre=["RC-GS", "RT-BS"],
    )
    events, after = run(state, "p1", {"type": "play", "card": "RS-BT", "based_on": "RT-BS"})
    assert events[1:] == [
        {"type": "drawn", "seat": "p1", "card": "GC-YT", "top_up": True},
        {"type": "bottom-card-moved", "seat": None, "card": "RC-GS"},
        {"type": "bottom-card-moved", "seat": None, "card": "RT-BS"},
        {"type": "pile-turned", "seat": "p2", "card": "RX-YC", "turned": False, "rule": "HV-T5"},
    ]
    # RC-YX goes on RX-YC (red on red, yellow on yellow): play resumes
    assert halves.can_play(after, "p2") and after["streak"] == 3
    assert [e["card"] for e in after["centre"]] == ["RS-BT", "RC-GS", "RT-BS", "RX-YC"]


def test_hv_t4_a_block_shows_others_only_the_public_moves():
    state = position(
        {"p1": ["RT-BS", "GC-BT"], "p2": ["RC-YT"]},
        {"p1": ["GC-BX", "GS-BX", "GX-BS", "BC-YX"], "p2": ["RC-YX", "RS-YX", "RT-YC", "RX-YC"]},
    )
    events, after = run(state, "p1", {"type": "play", "card": "RT-BS", "based_on": "RC-GS"})
    shown = [view_event(after, e, "p1") for e in events]
    text = json.dumps(shown)
    for card in ("RC-YX", "RS-YX", "RT-YC", "RC-YT"):  # p2's hand: never shown to p1
        assert card not in text
    assert [e for e in shown if e["type"] == "drawn" and e["seat"] == "p2"] == [
        {"type": "drawn", "seat": "p2", "top_up": True}
    ] * 3
    assert {"type": "drawn", "seat": "p1", "card": "GC-BX", "top_up": True} in shown
    assert shown[-1]["card"] == "RX-YC" and shown[-2]["card"] == "RC-GS"  # public moves


def test_hv_t5_every_pile_empty_and_nothing_helps_ends_the_game_fewest_cards_win():
    state = position({"p1": ["RT-BS", "GC-BT", "GC-BX"], "p2": ["RC-YT", "RC-YX", "RS-YX"]})
    events, after = run(state, "p1", {"type": "play", "card": "RT-BS", "based_on": "RC-GS"})
    assert kinds(events) == ["played", "bottom-card-moved", "game-ended"]
    assert after["result"] == {
        "winners": ["p1"],
        "scores": {"p1": 2, "p2": 3},
        "reason": "no-legal-play",
        "halves": {
            "hands": {"p1": 2, "p2": 3},
            "piles": {"p1": 0, "p2": 0},
            "retired": [],
            "central_pile": 2,
        },
    }


def test_hv_t5_equal_hand_counts_share_the_win():
    state = position({"p1": ["RT-BS", "GC-BT", "GC-BX"], "p2": ["RC-YT", "RC-YX"]})
    _, after = run(state, "p1", {"type": "play", "card": "RT-BS", "based_on": "RC-GS"})
    assert after["result"]["winners"] == ["p1", "p2"]


def test_hv_t5_pile_turns_go_round_from_after_the_first_seat_skipping_empty_piles():
    # 3 seats, first seat p1: p2's pile is empty, so p3 turns; the rotation then is p1's
    state = position(
        {
            "p1": ["RT-BS", "GC-BT", "GC-BX", "GC-YT"],
            "p2": ["RC-YT", "RC-YX", "RX-YC", "GC-YX"],
            "p3": ["GS-BX", "GS-YX", "GX-YS", "RS-YX"],
        },
        {"p1": ["BS-YX", "RX-YT"], "p3": ["BT-YX", "GT-YX"]},
    )
    events, after = run(state, "p1", {"type": "play", "card": "RT-BS", "based_on": "RC-GS"})
    assert events[1:] == [
        {"type": "drawn", "seat": "p1", "card": "BS-YX", "top_up": True},
        {"type": "bottom-card-moved", "seat": None, "card": "RC-GS"},
        {"type": "pile-turned", "seat": "p3", "card": "BT-YX", "turned": False, "rule": "HV-T5"},
    ]
    assert halves.can_play(after, "p1")  # BS-YX on BT-YX: blue, then the yellow cross
    assert after["turner"] == "p1" and halves.next_pile_turner(after) == "p1"
    assert view(after, "p2")["next_pile_turn"] == "p1"
    # retiring p1 (the only seat that could play) blocks again; the retirement does not
    # restart the count (2 moves in a row = N-1, N = 3), so no bottom move: the pile
    # turn skips p1 (retired) and p2 (empty pile) and falls to p3
    events, _ = run(after, "referee", {"type": "retire", "seat": "p1"})
    assert events == [
        {"type": "seat-retired", "seat": "p1", "cards": 5},
        {"type": "pile-turned", "seat": "p3", "card": "GT-YX", "turned": False, "rule": "HV-T5"},
    ]


def test_hv_t5_a_lone_starting_card_goes_straight_to_a_pile_turn():
    state = position(
        {"p1": ["GC-BT", "GC-BX", "GS-BX", "GX-BS"], "p2": ["BC-YX", "RC-YT", "RC-YX", "RS-YX"]},
        {"p1": ["RT-YC"], "p2": ["RX-YC"]},
        centre=["RT-BS"],
    )
    events = []
    halves.resolve_block(events, state)
    assert events == [
        {"type": "pile-turned", "seat": "p2", "card": "RX-YC", "turned": False, "rule": "HV-T5"}
    ]


# ----- HV-T6: retiring a seat -----


def test_hv_t6_a_retired_seat_leaves_play_and_is_ignored_by_the_block_detection():
    # only p3 can play on RC-GS; retiring it blocks p1 and p2: a pile turn follows
    state = position(
        {
            "p1": ["GC-BT", "GC-BX", "GS-BX", "GX-BS"],
            "p2": ["BC-YX", "RC-YT", "RC-YX", "RS-YX"],
            "p3": ["RT-BS", "BT-YX"],
        },
        {"p2": ["RX-YC"], "p3": ["BX-YS"]},
        centre=["RC-GS"],
        players=3,
    )
    events, after = run(state, "referee", {"type": "retire", "seat": "p3"})
    assert events[0] == {"type": "seat-retired", "seat": "p3", "cards": 3}
    assert events[1] == {
        "type": "pile-turned",
        "seat": "p2",
        "card": "RX-YC",
        "turned": False,
        "rule": "HV-T5",
    }
    assert after["hands"]["p3"] == [] and conserved(after)
    assert view(after, None)["retired"] == ["p3"]
    error = refusal(after, "p3", {"type": "draw"})
    assert (error.code, error.rule) == ("seat-retired", "HV-T6")
    assert legal_actions(after, "p3") == []
    assert {"type": "retire", "seat": "p3"} not in legal_actions(after, "referee")


def test_hv_t6_the_last_seat_left_wins_and_a_retired_seat_cannot_win():
    state = position({"p1": ["RT-BS", "GC-BT"], "p2": ["RS-BT", "GS-BX"]})
    events, after = run(state, "referee", {"type": "retire", "seat": "p1"})
    assert events[-1]["result"]["winners"] == ["p2"]
    assert events[-1]["result"]["reason"] == "last-seat"
    assert events[-1]["result"]["scores"] == {"p1": 2, "p2": 2}
    assert events[-1]["result"]["halves"]["retired"] == ["p1"]


def test_hv_t6_only_the_referee_retires():
    state = position({"p1": ["RT-BS", "GC-BT"], "p2": ["RS-BT", "GS-BX"]})
    error = refusal(state, "p1", {"type": "retire", "seat": "p1"})
    assert (error.status, error.code, error.rule) == (403, "referee-only", "HV-T6")
    error = refusal(
        state, "referee", {"type": "play", "seat": "p1", "card": "RT-BS", "based_on": "RC-GS"}
    )
    assert (error.status, error.code) == (403, "referee-not-allowed")


# ----- HV-E1: the win -----


def test_hv_e1_one_card_left_wins_at_once_and_later_plays_are_refused():
    state = position({"p1": ["RT-BS", "GC-BT"], "p2": ["RS-BT", "GS-BX", "GC-BX"]})
    events, after = run(state, "p1", {"type": "play", "card": "RT-BS", "based_on": "RC-GS"})
    assert kinds(events) == ["played", "game-ended"]
    assert after["result"]["winners"] == ["p1"] and after["result"]["reason"] == "out"
    assert after["result"]["scores"] == {"p1": 1, "p2": 3}
    assert legal_actions(after, "p2") == []
    error = refusal(after, "p2", {"type": "play", "card": "RS-BT", "based_on": "RT-BS"})
    assert (error.code, error.rule) == ("game-over", "HV-E1")


def test_hv_e1_the_last_card_may_still_be_in_the_pile():
    """Ruling: exactly one card left (pile + hand) wins, even before it is drawn."""
    state = position({"p1": ["RT-BS"], "p2": ["RS-BT", "GS-BX", "GC-BX"]}, {"p1": ["GC-BT"]})
    _, after = run(state, "p1", {"type": "play", "card": "RT-BS", "based_on": "RC-GS"})
    assert after["result"]["winners"] == ["p1"]


# ----- HV-M1 / G-M2: table mode -----


def table_game(**options) -> dict:
    state = new_state(dealing="table", **options)
    _, state = run(state, "referee", {"type": "deal", "card": "RC-GS"})
    return state


def test_hv_m1_the_referee_reports_the_deal_and_the_starting_card():
    state = new_state(dealing="table", players=3)
    assert state["phase"] == "deal" and view(state, "p1")["top"] is None
    assert legal_actions(state, "referee")[0] == {"type": "deal", "card": "RC-GS", "turned": False}
    error = refusal(state, "referee", {"type": "draw", "seat": "p1"})
    assert (error.code, error.rule) == ("deal-not-reported", "HV-M1")
    events, after = run(state, "referee", {"type": "deal", "card": "gs-rc"})
    assert events == [{"type": "dealt", "seat": s, "count": 24} for s in ("p1", "p2", "p3")] + [
        {"type": "pile-turned", "seat": "p1", "card": "RC-GS", "turned": True, "rule": "HV-P2"}
    ]
    assert view(after, None)["hand_counts"] == {"p1": 4, "p2": 4, "p3": 4}
    assert view(after, None)["pile_counts"] == {"p1": 19, "p2": 20, "p3": 20}
    assert refusal(after, "referee", {"type": "deal", "card": "RT-BS"}).code == "already-dealt"


def test_hv_m1_reported_plays_are_checked_as_in_server_mode():
    state = table_game()
    error = refusal(state, "referee", {"type": "play", "seat": "p2", "card": "BT-YX"})
    assert (error.code, error.rule) == ("no-match", "HV-T1")
    error = refusal(
        state, "referee", {"type": "play", "seat": "p2", "card": "RT-BS", "based_on": "BT-YX"}
    )
    assert error.code == "stale-top-card"
    events, after = run(state, "referee", {"type": "play", "seat": "p2", "card": "RT-BS"})
    assert events == [
        {"type": "played", "seat": "p2", "card": "RT-BS", "turned": False, "based_on": "RC-GS"}
    ]
    assert view(after, None)["hand_counts"]["p2"] == 3
    # G-M2: a card already in the central pile cannot be reported again
    error = refusal(
        after,
        "referee",
        {"type": "play", "seat": "p1", "card": "RC-GS", "turned": True, "based_on": "RT-BS"},
    )
    assert (error.code, error.rule) == ("card-not-available", "G-M2")


def test_hv_m1_seats_report_nothing_in_table_mode():
    state = table_game()
    error = refusal(state, "p1", {"type": "draw"})
    assert (error.status, error.code, error.rule) == (403, "referee-reports", "HV-M1")
    assert legal_actions(state, "p1") == []
    assert "hand" not in view(state, "p1")


def test_hv_m1_reported_draws_follow_the_counts_and_a_hand_must_hold_a_card():
    state = table_game()
    error = refusal(state, "referee", {"type": "draw", "seat": "p1"})
    assert error.code == "hand-full"
    for _card in ("RT-BS", "RS-BT", "RX-BS", "RC-BT"):  # p2 plays its 4 (unknown) cards
        top_card = halves.top(state)["card"]
        playable = [
            a for a in legal_actions(state, "referee") if a["type"] == "play" and a["seat"] == "p2"
        ]
        chosen = next(a for a in playable if a["card"] not in ("RC-GS",))
        _, state = run(state, "referee", chosen)
        assert state["centre"][-2]["card"] == top_card
    error = refusal(
        state, "referee", {"type": "play", "seat": "p2", "card": "BT-YX", "turned": False}
    )
    assert error.code == "hand-empty"
    events, state = run(state, "referee", {"type": "draw", "seat": "p2"})
    assert events == [{"type": "drawn", "seat": "p2", "card": None, "top_up": False}]


def test_hv_m1_a_reported_block_takes_the_steps_of_hv_t4_and_hv_t5():
    state = table_game()
    # hands are full and the centre has one card: the pile turn is due, p2 turns
    error = refusal(state, "referee", {"type": "blocked"})
    assert (error.code, error.status, error.rule) == ("card-required", 422, "HV-T5")
    assert "p2" in error.detail
    assert (
        refusal(state, "referee", {"type": "blocked", "card": "RC-GS"}).code == "card-not-available"
    )
    events, state = run(state, "referee", {"type": "blocked", "card": "BT-YX"})
    assert events == [
        {"type": "pile-turned", "seat": "p2", "card": "BT-YX", "turned": False, "rule": "HV-T5"}
    ]
    # a play changes the hands; the next block: p2 is short, so it is topped up first
    _, state = run(state, "referee", {"type": "play", "seat": "p2", "card": "BC-YX"})
    events, state = run(state, "referee", {"type": "blocked"})
    assert events == [{"type": "drawn", "seat": "p2", "card": None, "top_up": True}]
    error = refusal(state, "referee", {"type": "blocked", "card": "GC-BT"})
    assert error.code == "invalid-action" and error.rule == "HV-T4"
    events, state = run(state, "referee", {"type": "blocked"})  # 3 cards: bottom moves
    assert events == [{"type": "bottom-card-moved", "seat": None, "card": "RC-GS"}]


def test_hv_m1_deal_and_blocked_are_table_reports_only():
    state = position({"p1": ["RT-BS", "GC-BT"], "p2": ["RS-BT", "GS-BX"]})
    for action in ({"type": "deal", "card": "RT-BS"}, {"type": "blocked"}):
        error = refusal(state, "referee", action)
        assert (error.code, error.rule) == ("not-table-mode", "HV-M1")


# ----- views and events -----


def test_views_show_a_seat_its_hand_and_everyone_the_counts_never_other_hands():
    state = new_state(players=3)
    mine = view(state, "p2")
    assert mine["hand"] == state["hands"]["p2"] and mine["seat"] == "p2"
    assert mine["hand_counts"] == {"p1": 4, "p2": 4, "p3": 4}
    assert mine["pile_counts"] == {"p1": 19, "p2": 20, "p3": 20}
    assert mine["central_pile"] == 1 and mine["box"] == 0
    assert mine["top"]["card"] == state["centre"][-1]["card"]
    text = json.dumps(mine)
    others = state["hands"]["p1"] + state["hands"]["p3"] + state["piles"]["p2"]
    assert not [c for c in others if c in text]
    assert "hands" not in mine and "seed" not in mine
    assert view(state, "referee")["hands"] == state["hands"]
    public = view(state, None)
    assert "hand" not in public and "hands" not in public


def test_dealt_and_drawn_events_show_cards_to_their_seat_only_and_pile_order_to_nobody():
    state = new_state()
    dealt = halves.new_game("halves", {}, SEED)[1]
    assert view_event(state, dealt, "p1") == {
        "type": "dealt",
        "seat": "p1",
        "count": 36,
        "hand": dealt["cards"][:4],
    }
    assert view_event(state, dealt, "referee")["hand"] == dealt["cards"][:4]
    assert view_event(state, dealt, "p2") == {"type": "dealt", "seat": "p1", "count": 36}
    drawn = {"type": "drawn", "seat": "p1", "card": "RC-GS", "top_up": False}
    assert view_event(state, drawn, "p2") == {"type": "drawn", "seat": "p1", "top_up": False}
    assert view_event(state, drawn, "p1") == drawn
    created = view_event(state, halves.new_game("halves", {}, SEED)[0], "referee")
    assert "seed" not in created and created["seed_commitment"]


def test_the_catalog_lists_halves_and_its_options():
    entry_ = halves.CATALOG["halves"]
    assert entry_["players"] == list(range(2, 15))
    assert {o["name"]: o["default"] for o in entry_["options"]} == {
        "players": 2,
        "dealing": "server",
        "first_seat": "p1",
        "match": "per_half",
        "allow_turning": True,
        "deck": None,
        "idle_seconds": 120,
    }


def test_malformed_actions_are_422_with_a_rule():
    state = position({"p1": ["RT-BS", "GC-BT"], "p2": ["RS-BT", "GS-BX"]})
    for action in (
        "play",
        {"type": "fly"},
        {"type": "draw", "card": "RT-BS"},
        {"type": "play", "card": "RT-BS", "based_on": "RC-GS", "turned": "yes"},
        {"type": "draw", "turned": True},
    ):
        error = refusal(state, "p1", action)
        assert error.status == 422 and error.rule, action


def test_fold_is_pure_and_entries_read_codes_as_laid():
    state = new_state()
    before = json.dumps(state, sort_keys=True)
    halves.fold(
        state, {"type": "drawn", "seat": "p1", "card": state["piles"]["p1"][0], "top_up": False}
    )
    assert json.dumps(state, sort_keys=True) == before
    assert entry("GS-RC") == {"card": "RC-GS", "turned": True}


# ----- HV-T1: the third reading, match any_half -----


def test_hv_t1_any_half_each_half_matches_either_half_of_the_top():
    top = ("RC", "GS")
    # BS-YC: BS shares the symbol S with GS, YC the symbol C with RC: crossed over
    assert matches(top, ("BS", "YC"), "any_half") and matches(top, ("YC", "BS"), "any_half")
    assert not matches(top, ("BS", "YC"), "per_half")
    assert not matches(top, ("BS", "YC"), "whole_card")
    assert (
        judge(top, ("BS", "YC"), "any_half")["halves"]
        == [{"by": "symbol", "colour": False, "symbol": True}] * 2
    )
    # GX-YT: GX shares the colour G with GS, YT shares nothing with either half
    assert not matches(top, ("GX", "YT"), "any_half")
    assert judge(top, ("GX", "YT"), "any_half")["halves"][1] == {
        "by": None,
        "colour": False,
        "symbol": False,
    }
    verdict = check_play("RC-GS", "BS-YC", match="any_half")
    assert (verdict["matches"], verdict["matches_turned"]) == (True, True)


def test_hv_t1_any_half_in_play_and_in_the_catalog():
    hands = {"p1": ["BS-YC", "GX-YT"], "p2": ["RX-BT"]}
    play = {"type": "play", "card": "BS-YC", "based_on": "RC-GS"}
    strict = position(hands, allow_turning=False)
    assert refusal(strict, "p1", play).code == "no-match"
    events, _ = run(position(hands, allow_turning=False, match="any_half"), "p1", play)
    assert events[0] == {
        "type": "played",
        "seat": "p1",
        "card": "BS-YC",
        "turned": False,
        "based_on": "RC-GS",
    }
    choices = {o["name"]: o.get("choices") for o in halves.CATALOG["halves"]["options"]}
    assert choices["match"] == ["per_half", "whole_card", "any_half"]
    assert halves.normalise_options({"match": "any_half"})["match"] == "any_half"
