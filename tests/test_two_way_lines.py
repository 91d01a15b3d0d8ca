"""2-Way Cards line classification and grid scan (RULES.md TW-S1..TW-S10, TW-D1)."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.cards import DECK, JOKER, RANKS, SUITS
from service.games.two_way import HIGH_POINTS, LOW_POINTS, classify_line, scan_grid


def judge(line: str) -> dict:
    return classify_line(line.split())


def verdict(line: str) -> tuple:
    result = judge(line)
    return result["kind"], result["tier"], result["points"]


def empty_grid() -> list[list[str | None]]:
    return [[None] * 7 for _ in range(7)]


# ---------------------------------------------------------------- the brief's table
@pytest.mark.parametrize(
    "line, kind, tier, points",
    [
        ("5H 6H 7H", "run", "high", 5),
        ("KS AS 2S 3S", "run", "high", 7),
        ("3D 2D AD KD", "run", "high", 7),
        ("AS 2S 3S 4S 5S 6S", "run", "high", 12),
        ("7H 7S 7D", "same-rank", "high", 5),
        ("7H 7S 7H", "same-rank", "low", 3),
        ("7H 7H 7S", None, None, 0),
        ("2H 9H KH 5H", "suit-set", "low", 4),
        ("QS JK 10S", "run", "high", 5),
        ("KH KS KD KC KH", "same-rank", "high", 10),
        ("QH QH JK", None, None, 0),
        ("4C 4H 4C 4H 4C", "same-rank", "low", 6),
    ],
)
def test_reference_examples(line, kind, tier, points):
    result = judge(line)
    assert (result["kind"], result["tier"], result["points"]) == (kind, tier, points)
    assert result["valid"] is (kind is not None)
    assert result["length"] == len(line.split())
    assert result["cards"] == line.split()


def test_points_table_high_and_low():
    assert HIGH_POINTS == {3: 5, 4: 7, 5: 10, 6: 12}
    assert LOW_POINTS == {3: 3, 4: 4, 5: 6, 6: 8}


def test_valid_line_result_shape():
    assert judge("KS AS 2S 3S") == {
        "valid": True,
        "kind": "run",
        "tier": "high",
        "points": 7,
        "length": 4,
        "cards": ["KS", "AS", "2S", "3S"],
        "assignment": ["KS", "AS", "2S", "3S"],
        "reasons": [],
    }


def test_invalid_line_result_shape():
    assert judge("7H 7H 7S") == {
        "valid": False,
        "kind": None,
        "tier": None,
        "points": 0,
        "length": 3,
        "cards": ["7H", "7H", "7S"],
        "assignment": ["7H", "7H", "7S"],
        "reasons": ["identical-adjacent"],
    }


# ---------------------------------------------------------------- TW-S1 runs
@pytest.mark.parametrize(
    "line, points",
    [
        ("5H 6H 7H", 5),
        ("7H 6H 5H", 5),
        ("8C 9C 10C JC", 7),
        ("KD QD JD 10D 9D", 10),
        ("9S 10S JS QS KS AS", 12),
    ],
)
def test_tw_s1_run_ascending_or_descending_is_high(line, points):
    assert verdict(line) == ("run", "high", points)


def test_tw_s1_run_must_be_strictly_monotonic_along_the_line():
    # the same three hearts out of order are only a suit set
    assert verdict("5H 7H 6H") == ("suit-set", "low", 3)
    assert verdict("6H 5H 7H") == ("suit-set", "low", 3)


@pytest.mark.parametrize("line", ["5H 6S 7H", "5H 6S 7D", "7D 6S 5H", "5H 6S 7D 8C"])
def test_tw_s1_ruling_a_mixed_suit_run_is_no_sequence(line):
    """TW-S1 ruling: the overview's "same or a different suit" summarises every kind;
    the scoring table's runs are one suit, so consecutive ranks in mixed suits are
    invalid, with the reason mixed-ranks-and-suits (no suit, no rank in common)."""
    result = judge(line)
    assert not result["valid"] and result["points"] == 0
    assert result["reasons"] == ["mixed-ranks-and-suits"]


def test_tw_s1_ruling_ranks_must_be_consecutive():
    """TW-S1: "2H 5H 9H" is one suit but not consecutive: a suit set, low tier."""
    assert verdict("2H 5H 9H") == ("suit-set", "low", 3)


def test_tw_s1_gap_is_not_a_run():
    assert verdict("5H 6H 8H") == ("suit-set", "low", 3)


# ---------------------------------------------------------------- TW-S2 / TW-S3
@pytest.mark.parametrize(
    "line, points", [("7H 7S 7D", 5), ("QC QH QS", 5), ("2S 2H 2D 2C", 7), ("2C 2D 2H 2S", 7)]
)
def test_tw_s2_same_rank_three_or_four_all_suits_different_is_high(line, points):
    assert verdict(line) == ("same-rank", "high", points)


@pytest.mark.parametrize(
    "line, points",
    [
        ("KH KS KD KC KH", 10),
        ("KH KS KH KD KC", 10),
        ("9S 9H 9D 9C 9S 9H", 12),
        ("9S 9H 9S 9D 9S 9C", 12),
    ],
)
def test_tw_s3_same_rank_five_or_six_every_suit_present_is_high(line, points):
    assert verdict(line) == ("same-rank", "high", points)


def test_tw_s3_every_suit_present_but_identical_adjacent_is_invalid():
    result = judge("KH KH KS KD KC")
    assert not result["valid"]
    assert result["reasons"] == ["identical-adjacent"]


# ---------------------------------------------------------------- TW-S4 suit sets
@pytest.mark.parametrize(
    "line, points",
    [("2H 9H KH", 3), ("2H 9H KH 5H", 4), ("AC 3C 9C 5C 7C", 6), ("AD 3D 9D 5D 7D QD", 8)],
)
def test_tw_s4_suit_set_any_order_is_low(line, points):
    assert verdict(line) == ("suit-set", "low", points)


def test_tw_s4_suit_set_cards_must_all_differ():
    result = judge("2H 9H 2H")
    assert not result["valid"]
    assert result["reasons"] == ["not-consecutive", "duplicate-card"]


# ---------------------------------------------------------------- TW-S5 / TW-S6
@pytest.mark.parametrize(
    "line, points", [("7H 7S 7H", 3), ("7H 7S 7H 7D", 4), ("7H 7S 7D 7H", 4), ("AC AS AC AS", 4)]
)
def test_tw_s5_same_rank_three_or_four_with_repeated_suit_is_low(line, points):
    assert verdict(line) == ("same-rank", "low", points)


@pytest.mark.parametrize(
    "line, points",
    [
        ("4C 4H 4C 4H 4C", 6),
        ("4C 4H 4C 4H 4C 4H", 8),
        ("4C 4H 4D 4H 4C", 6),
        ("4S 4H 4D 4S 4H 4D", 8),
    ],
)
def test_tw_s6_same_rank_five_or_six_with_absent_suit_is_low(line, points):
    assert verdict(line) == ("same-rank", "low", points)


@pytest.mark.parametrize("line", ["7H 7S 7S", "7H 7S 7S 7D", "4C 4H 4H 4C 4D", "4C 4H 4D 4C 4D 4D"])
def test_tw_s5_s6_identical_adjacent_is_invalid(line):
    result = judge(line)
    assert not result["valid"]
    assert result["points"] == 0
    assert result["reasons"] == ["identical-adjacent"]


# ---------------------------------------------------------------- TW-S7 aces
@pytest.mark.parametrize(
    "line, points",
    [
        ("AS 2S 3S", 5),  # low
        ("QH KH AH", 5),  # high
        ("AH KH QH", 5),  # high, descending
        ("KS AS 2S", 5),  # joining the ends
        ("KS AS 2S 3S", 7),
        ("3D 2D AD KD", 7),
        ("QH KH AH 2H", 7),
        ("JC QC KC AC 2C 3C", 12),
        ("2C AC KC QC JC 10C", 12),
    ],
)
def test_tw_s7_aces_low_high_or_joining_the_ends(line, points):
    assert verdict(line) == ("run", "high", points)


@pytest.mark.parametrize("line", ["QS KS AS KS", "AS 2S AS", "KS AS KS"])
def test_tw_s7_run_never_uses_the_same_rank_twice(line):
    result = judge(line)
    assert result["kind"] != "run"
    assert not result["valid"]
    assert "not-consecutive" in result["reasons"]


def test_tw_s7_ace_is_not_between_king_and_two_without_it():
    # K-2 is not consecutive: the ace must be in the line to join the ends
    assert verdict("QS KS 2S") == ("suit-set", "low", 3)


# ---------------------------------------------------------------- TW-S8 jokers
def test_tw_s8_joker_fills_a_run_and_is_reported():
    result = judge("QS JK 10S")
    assert result["assignment"] == ["QS", "JS", "10S"]
    assert result["cards"] == ["QS", "JK", "10S"]


def test_tw_s8_joker_wraps_through_the_ace():
    assert judge("KD JK 2D")["assignment"] == ["KD", "AD", "2D"]


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_tw_s8_all_joker_line_is_valid_high(n):
    result = classify_line([JOKER] * n)
    assert (result["valid"], result["tier"], result["points"]) == (True, "high", HIGH_POINTS[n])
    assert JOKER not in result["assignment"]


def test_tw_s8_jokers_make_same_rank_suits_all_different():
    result = judge("7H JK 7S")
    assert verdict("7H JK 7S") == ("same-rank", "high", 5)
    assert result["assignment"] == ["7H", "7D", "7S"]


def test_tw_s8_best_assignment_wins_over_a_greedy_one():
    # filling each joker with the first suit unlike its neighbours gives 7H 7S 7H 7S 7H
    # (low, 6); the best reading brings in every suit (high, 10)
    result = judge("7H JK JK JK 7H")
    assert (result["kind"], result["tier"], result["points"]) == ("same-rank", "high", 10)
    assert set(s[-1] for s in result["assignment"]) == set(SUITS)
    assert classify_line(result["assignment"])["points"] == 10


def test_tw_s8_joker_completes_every_suit_in_five():
    result = judge("KH KS JK KD KH")
    assert verdict("KH KS JK KD KH") == ("same-rank", "high", 10)
    assert result["assignment"] == ["KH", "KS", "KC", "KD", "KH"]


def test_tw_s8_joker_cannot_cure_identical_neighbours():
    result = judge("QH QH JK")
    assert not result["valid"]
    assert result["assignment"] == ["QH", "QH", "JK"]
    assert result["reasons"] == ["not-consecutive", "identical-adjacent", "duplicate-card"]


def test_tw_s8_joker_between_repeats_gives_low_same_rank():
    result = judge("7H JK 7H")
    assert verdict("7H JK 7H") == ("same-rank", "low", 3)
    assert result["assignment"][1] not in ("7H", JOKER)


def test_tw_s8_joker_in_a_suit_set_is_a_missing_card():
    result = judge("2H 9H JK KH")
    assert verdict("2H 9H JK KH") == ("suit-set", "low", 4)
    assert result["assignment"] == ["2H", "9H", "AH", "KH"]


def test_tw_s8_tie_ruling_ascending_run_first():
    # one real card: ascending from it first (documented ruling)
    assert judge("KS JK JK")["assignment"] == ["KS", "AS", "2S"]
    assert judge("JK JK 5C")["assignment"] == ["3C", "4C", "5C"]
    assert judge("JK JK JK")["assignment"] == ["AS", "2S", "3S"]


# ---------------------------------------------------------------- TW-S9 best kind
def test_tw_s9_run_scores_above_suit_set():
    result = judge("4D 5D 6D 7D")
    assert (result["kind"], result["points"]) == ("run", 7)


def test_tw_s9_jokers_prefer_run_over_suit_set():
    assert verdict("2H JK 4H") == ("run", "high", 5)
    assert verdict("2H JK JK 5H 6H") == ("run", "high", 10)


def test_tw_s9_jokers_prefer_high_same_rank_over_low():
    assert verdict("9C JK JK JK 9C 9S") == ("same-rank", "high", 12)


# ---------------------------------------------------------------- TW-S10 adjacency
def test_tw_s10_identical_cards_may_not_be_next_to_one_another():
    assert not judge("7H 7H 7S")["valid"]
    assert not judge("7S 7H 7H")["valid"]
    assert not judge("4C 4H 4C 4C 4H")["valid"]


def test_tw_s10_identical_cards_apart_are_allowed():
    assert verdict("7H 7S 7H") == ("same-rank", "low", 3)
    assert verdict("4C 4H 4C 4H 4C") == ("same-rank", "low", 6)


# ---------------------------------------------------------------- errors / reasons
@pytest.mark.parametrize("cards", [[], ["AS"], ["AS", "2S"], ["AS"] * 7])
def test_wrong_length_raises(cards):
    with pytest.raises(ValueError, match="3 to 6"):
        classify_line(cards)


@pytest.mark.parametrize("bad", ["TH", "th", "ZZ", "1H", None])
def test_non_canonical_code_raises(bad):
    with pytest.raises(ValueError, match="canonical"):
        classify_line(["AS", bad, "3S"])


def test_reasons_mixed_ranks_and_suits():
    assert judge("2H 9S KD")["reasons"] == ["mixed-ranks-and-suits"]
    assert judge("2H JK KD JK")["reasons"] == ["mixed-ranks-and-suits"]


def test_reasons_one_suit_not_a_run_nor_a_set():
    assert judge("2H 3H 2H 5H")["reasons"] == ["not-consecutive", "duplicate-card"]


# ---------------------------------------------------------------- TW-D1 grid scan
def test_tw_d1_horizontal_line_found_with_cells_in_reading_order():
    grid = empty_grid()
    grid[3][2:5] = ["7H", "6H", "5H"]
    assert scan_grid(grid) == [
        {
            "cells": [[3, 2], [3, 3], [3, 4]],
            "cards": ["7H", "6H", "5H"],
            "kind": "run",
            "tier": "high",
            "points": 5,
            "assignment": ["7H", "6H", "5H"],
        }
    ]


def test_tw_d1_vertical_and_both_diagonals():
    grid = empty_grid()
    for i, card in enumerate(["9S", "9H", "9D"]):
        grid[i][0] = card  # vertical, column 0
    for i, card in enumerate(["2C", "3C", "4C"]):
        grid[2 + i][2 + i] = card  # diagonal down-right
    for i, card in enumerate(["KD", "QD", "JD"]):
        grid[i][6 - i] = card  # anti-diagonal: the upper end first
    lines = scan_grid(grid)
    assert [line["cells"] for line in lines] == [
        [[0, 0], [1, 0], [2, 0]],
        [[0, 6], [1, 5], [2, 4]],
        [[2, 2], [3, 3], [4, 4]],
    ]
    assert lines[1]["cards"] == ["KD", "QD", "JD"]
    assert all(line["kind"] in ("run", "same-rank") for line in lines)


def test_tw_d1_never_across_an_empty_space():
    grid = empty_grid()
    grid[0] = ["5H", "6H", None, "7H", "8H", "9H", None]
    assert [line["cards"] for line in scan_grid(grid)] == [["7H", "8H", "9H"]]


def test_tw_d1_no_wrap_past_an_edge():
    grid = empty_grid()
    grid[0][5:7] = ["5H", "6H"]
    grid[1][0] = "7H"
    assert scan_grid(grid) == []


def test_tw_d1_every_sub_segment_of_a_long_line_once():
    grid = empty_grid()
    grid[6] = ["AH", "2H", "3H", "4H", "5H", "6H", "7H"]
    lines = scan_grid(grid)
    # lengths 3..6 inside a 7-line: 5 + 4 + 3 + 2 segments, none of 7 cards
    assert len(lines) == 14
    assert sorted(len(line["cells"]) for line in lines) == [3] * 5 + [4] * 4 + [5] * 3 + [6] * 2
    assert len({tuple(map(tuple, line["cells"])) for line in lines}) == 14
    assert lines[0]["cells"] == [[6, 0], [6, 1], [6, 2]]
    assert lines[1]["cells"] == [[6, 0], [6, 1], [6, 2], [6, 3]]


def test_tw_d1_invalid_lines_are_left_out_but_valid_sub_lines_kept():
    grid = empty_grid()
    grid[0][:4] = ["5H", "6H", "7H", "9S"]
    assert [line["cards"] for line in scan_grid(grid)] == [["5H", "6H", "7H"]]


def test_tw_d1_judged_on_the_cards_with_jokers():
    grid = empty_grid()
    grid[1][1:4] = ["QS", "JK", "10S"]
    (line,) = scan_grid(grid)
    assert line["assignment"] == ["QS", "JS", "10S"] and line["points"] == 5


def test_tw_d1_a_scan_answers_in_lists_of_its_own():
    """The scan remembers the lines it has judged (a game's grid changes by a card or
    two between scans): what one caller does with its answer never reaches the next."""
    grid = empty_grid()
    grid[2][1:5] = ["JK", "8D", "9D", "10D"]
    first = scan_grid(grid)
    expected = copy.deepcopy(first)
    assert [line["assignment"] for line in first] == [
        ["7D", "8D", "9D"],
        ["7D", "8D", "9D", "10D"],
        ["8D", "9D", "10D"],
    ]
    for line in first:
        line["cells"][0][0] = 9
        line["cells"].append([9, 9])
        line["cards"][0] = "KS"
        line["assignment"].clear()
    assert scan_grid(grid) == expected


def test_tw_d1_a_line_changed_by_one_card_is_judged_again():
    grid = empty_grid()
    grid[4][0:3] = ["5C", "6C", "7C"]
    assert [line["cards"] for line in scan_grid(grid)] == [["5C", "6C", "7C"]]
    grid[4][1] = "6H"  # one card placed differently: the row is no longer a run
    assert scan_grid(grid) == []
    grid[4][1] = "JK"
    assert [line["assignment"] for line in scan_grid(grid)] == [["5C", "6C", "7C"]]


@pytest.mark.parametrize(
    "grid",
    [
        [[None] * 7] * 6,
        [[None] * 7] * 6 + [[None] * 6],
        [[None] * 7] * 6 + [[None] * 6 + ["th"]],
        [[None] * 7] * 6 + [[None] * 6 + ["ZZ"]],
    ],
)
def test_scan_refuses_a_malformed_grid(grid):
    with pytest.raises(ValueError):
        scan_grid(grid)


# ---------------------------------------------------------------- properties
SUIT_POOLS = [[r + s for r in RANKS] + [JOKER] for s in SUITS]
RANK_POOLS = [[r + s for s in SUITS] + [JOKER] for r in RANKS]
ANY_POOL = list(DECK) + [JOKER]


@st.composite
def lines(draw, min_size=3, max_size=6):
    """Lines drawn mostly from one suit or one rank so that many are valid."""
    pool = draw(st.sampled_from(SUIT_POOLS + RANK_POOLS + [ANY_POOL]))
    return draw(st.lists(st.sampled_from(pool), min_size=min_size, max_size=max_size))


@settings(max_examples=150, deadline=None)
@given(lines())
def test_property_reversing_a_line_keeps_its_verdict(cards):
    forward, backward = classify_line(cards), classify_line(cards[::-1])
    for key in ("valid", "kind", "tier", "points"):
        assert forward[key] == backward[key]


@settings(max_examples=150, deadline=None)
@given(lines(), st.data())
def test_property_a_joker_never_hurts_a_valid_line(cards, data):
    before = classify_line(cards)
    if not before["valid"]:
        return
    i = data.draw(st.integers(0, len(cards) - 1))
    after = classify_line(cards[:i] + [JOKER] + cards[i + 1 :])
    assert after["valid"]
    assert after["points"] >= before["points"]


@settings(max_examples=150, deadline=None)
@given(lines())
def test_property_assignment_is_a_joker_free_reading_worth_the_same(cards):
    result = classify_line(cards)
    if not result["valid"]:
        assert result["assignment"] == cards and result["points"] == 0
        return
    assignment = result["assignment"]
    assert JOKER not in assignment
    assert all(a == c for a, c in zip(assignment, cards) if c != JOKER)
    again = classify_line(assignment)
    assert (again["kind"], again["tier"], again["points"]) == (
        result["kind"],
        result["tier"],
        result["points"],
    )


def brute_force_lines(grid) -> dict[tuple, dict]:
    """Every straight run of 3..6 occupied cells, each read once, judged by
    classify_line; keyed by the cells in reading order."""
    found = {}
    for r in range(7):
        for c in range(7):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1)):
                for n in range(3, 7):
                    cells = [(r + dr * i, c + dc * i) for i in range(n)]
                    if not all(0 <= y < 7 and 0 <= x < 7 and grid[y][x] for y, x in cells):
                        continue
                    cells.sort()
                    cards = [grid[y][x] for y, x in cells]
                    result = classify_line(cards)
                    if result["valid"]:
                        found[tuple(cells)] = result
    return found


@st.composite
def grids(draw):
    pool = draw(st.sampled_from([ANY_POOL, SUIT_POOLS[1] + RANK_POOLS[6], ANY_POOL + [JOKER] * 8]))
    fill = draw(st.sampled_from([0.4, 0.8, 1.0]))
    return [
        [draw(st.sampled_from(pool)) if draw(st.floats(0, 1)) < fill else None for _ in range(7)]
        for _ in range(7)
    ]


@settings(max_examples=40, deadline=None)
@given(grids())
def test_property_tw_d1_scan_equals_brute_force(grid):
    expected = brute_force_lines(grid)
    lines_found = scan_grid(grid)
    keys = [tuple(map(tuple, line["cells"])) for line in lines_found]
    assert len(keys) == len(set(keys))
    assert set(keys) == set(expected)
    for key, line in zip(keys, lines_found):
        want = expected[key]
        assert line["cards"] == want["cards"]
        assert (line["kind"], line["tier"], line["points"], line["assignment"]) == (
            want["kind"],
            want["tier"],
            want["points"],
            want["assignment"],
        )
    # documented order: first cell, then direction, then length
    directions = {(0, 1): 0, (1, 0): 1, (1, 1): 2, (1, -1): 3}
    order = [(k[0], directions[(k[1][0] - k[0][0], k[1][1] - k[0][1])], len(k)) for k in keys]
    assert order == sorted(order)


# a grid of one colour's faces with empty spaces: mostly one suit or nearby ranks, so
# that lines are common
_faces = st.sampled_from(["AH", "2H", "3H", "4H", "5H", "6H", "7H", "7S", "7D", "7C", "JK", "KD"])
_grids = st.lists(
    st.lists(st.one_of(st.none(), _faces, _faces, _faces), min_size=7, max_size=7),
    min_size=7,
    max_size=7,
)


@settings(max_examples=150, deadline=None)
@given(_grids)
def test_tw_d1_the_scan_finds_every_segment_a_brute_force_finds(grid):
    """TW-D1: every contiguous segment of 3..6 occupied spaces in the 4 directions that
    judge() scores is listed, once, in reading order, direction, then length; nothing
    else (the scan's early stops and precomputed rays prune nothing valid)."""
    from service.games.two_way.lines import DIRECTIONS, _judge

    expected = []
    for r in range(7):
        for c in range(7):
            for dr, dc in DIRECTIONS:
                for length in range(3, 7):
                    cells = [[r + dr * i, c + dc * i] for i in range(length)]
                    if not all(0 <= y < 7 and 0 <= x < 7 for y, x in cells):
                        continue
                    cards = [grid[y][x] for y, x in cells]
                    if None in cards or _judge(tuple(cards))[0] is None:
                        continue
                    expected.append((cells, cards))
    assert [(line["cells"], line["cards"]) for line in scan_grid(grid)] == expected
