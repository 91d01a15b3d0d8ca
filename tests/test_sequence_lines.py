"""Sequence detection (SQ-S1, SQ-S2, SQ-S4, SQ-S5) and the pure position checks."""

import pytest

from service.games import RuleViolation
from service.games import sequence as sq

BOARD = [list(row) for row in sq.CLASSIC_BOARD]


def grid(**sides):
    """A chips grid from ``green=[(r, c)...]``, ``blue=[...]``."""
    chips = [[None] * 10 for _ in range(10)]
    for side, cells in sides.items():
        for r, c in cells:
            chips[r][c] = side
    return chips


def place(chips, cell, side, sequences=(), named=None):
    """Put the chip and ask what it completes."""
    chips[cell[0]][cell[1]] = side
    return sq.new_sequences(BOARD, chips, list(sequences), cell, side, named)


def row(r, cols):
    return [(r, c) for c in cols]


# ----- SQ-S1: five in a line, free corners count for everyone -----


def test_sq_s1_row_with_a_free_corner_needs_four_chips():
    chips = grid(green=row(0, [1, 2, 3]))
    assert place(chips, (0, 4), "green") == [[(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)]]


def test_sq_s1_column_diagonal_and_anti_diagonal():
    chips = grid(green=[(r, 3) for r in (2, 3, 5, 6)])
    assert place(chips, (4, 3), "green") == [[(r, 3) for r in range(2, 7)]]
    chips = grid(blue=[(2, 1), (3, 2), (5, 4), (6, 5)])
    assert place(chips, (4, 3), "blue") == [[(i + 2, i + 1) for i in range(5)]]
    chips = grid(blue=[(1, 1), (2, 2), (4, 4)])  # with the (0, 0) corner
    assert place(chips, (3, 3), "blue") == [[(i, i) for i in range(5)]]
    chips = grid(red=[(1, 8), (2, 7), (3, 6)])  # (0, 9) is a free corner
    assert place(chips, (4, 5), "red") == [[(0, 9), (1, 8), (2, 7), (3, 6), (4, 5)]]


def test_sq_s1_four_chips_a_gap_or_an_opponent_chip_is_no_sequence():
    assert place(grid(green=row(5, [0, 1, 2])), (5, 3), "green") == []
    assert place(grid(green=row(5, [0, 1, 3, 4])), (5, 5), "green") == []
    assert place(grid(green=row(5, [0, 1, 3, 4]), blue=[(5, 2)]), (5, 5), "green") == []


def test_sq_s1_several_sides_use_the_same_corner():
    chips = grid(green=row(0, [1, 2, 3]), blue=[(1, 0), (2, 0), (3, 0)])
    green = place(chips, (0, 4), "green")
    blue = place(chips, (4, 0), "blue")
    assert green == [[(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)]]
    assert blue == [[(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)]]


def test_sq_s1_one_chip_may_complete_two_lines():
    chips = grid(green=row(5, [1, 2, 3, 4]) + [(r, 5) for r in (6, 7, 8, 9)])
    assert len(place(chips, (5, 5), "green")) == 2


# ----- SQ-S4: two sequences of a side share at most one space -----


@pytest.mark.parametrize("length, expected", [(5, 1), (6, 1), (7, 1), (8, 1), (9, 2), (10, 2)])
def test_sq_s4_nine_in_a_row_is_two_sequences_six_to_eight_one(length, expected):
    chips = grid(green=row(5, range(length)))
    found = sq.scan_sequences(BOARD, chips, [], "green")
    assert len(found) == expected
    if expected == 2:
        assert len(set(found[0]) & set(found[1])) <= 1


def test_sq_s4_extending_a_locked_sequence_to_nine_makes_the_second():
    locked = [{"side": "green", "cells": [[5, c] for c in range(5)]}]
    chips = grid(green=row(5, range(5)) + row(5, [5, 6]))
    assert place(chips, (5, 7), "green", locked) == []  # 8 in a row: still one
    assert place(chips, (5, 8), "green", locked) == [row(5, range(4, 9))]


def test_sq_s4_a_window_sharing_two_spaces_is_refused():
    locked = [{"side": "green", "cells": [[5, c] for c in range(1, 6)]}]
    chips = grid(green=row(5, range(1, 6)))
    assert place(chips, (5, 6), "green", locked) == []  # 2-6 shares 4, 6-10 off board
    assert place(chips, (5, 0), "green", locked) == []  # 0-4 shares 4


def test_sq_s4_another_sides_sequence_does_not_count():
    locked = [{"side": "blue", "cells": [[0, c] for c in range(5)]}]
    chips = grid(green=row(1, [0, 1, 2, 3]))
    assert place(chips, (1, 4), "green", locked) == [row(1, range(5))]


def test_sq_s4_crossing_sequences_share_one_space():
    locked = [{"side": "green", "cells": [[5, c] for c in range(5)]}]
    chips = grid(green=row(5, range(5)) + [(r, 2) for r in (3, 4, 6)])
    assert place(chips, (7, 2), "green", locked) == [[(r, 2) for r in range(3, 8)]]


# ----- SQ-S5: which five lock -----


def test_sq_s5_default_is_the_first_window_in_reading_order_with_the_new_chip():
    chips = grid(green=row(5, [0, 1, 3, 4, 5]))
    assert place(chips, (5, 2), "green") == [row(5, range(5))]


def test_sq_s5_the_action_may_name_the_five():
    chips = grid(green=row(5, [0, 1, 3, 4, 5]))
    assert place(chips, (5, 2), "green", named=row(5, range(1, 6))) == [row(5, range(1, 6))]


def test_sq_s5_the_middle_of_nine_completes_both_halves():
    chips = grid(green=row(5, [0, 1, 2, 3, 5, 6, 7, 8]))
    assert place(chips, (5, 4), "green") == [row(5, range(5)), row(5, range(4, 9))]


def test_sq_s5_anti_diagonal_reading_order_is_top_first():
    cells = [(r, 8 - r) for r in range(0, 8)]  # (0,8) .. (7,1)
    chips = grid(green=[c for c in cells if c != (3, 5)])
    found = place(chips, (3, 5), "green")
    assert found == [[(0, 8), (1, 7), (2, 6), (3, 5), (4, 4)]]


@pytest.mark.parametrize(
    "named",
    [
        row(5, [2, 3, 4, 5, 6]),  # holds an empty space
        row(5, [1, 2, 3, 4, 6]),  # not contiguous
        [(5, 1), (5, 2), (6, 3), (5, 4), (5, 5)],  # not one line
        row(6, range(5)),  # another line, not holding the new chip
    ],
)
def test_sq_s5_a_named_window_that_is_not_a_sequence_is_refused(named):
    chips = grid(green=row(5, [0, 1, 3, 4, 5]) + row(6, range(5)))
    with pytest.raises(RuleViolation) as info:
        place(chips, (5, 2), "green", named=named)
    assert info.value.code == "invalid-sequence" and info.value.status == 409


# ----- stateless checks: check_board / check_move -----


def test_sq_s2_check_board_keeps_locked_and_finds_the_rest():
    result = sq.check_board(
        "sequence",
        {"green": [[5, c] for c in range(9)], "blue": []},
        [{"side": "green", "cells": [[5, c] for c in range(1, 6)]}],
    )
    cells = [s["cells"] for s in result["sequences"]["green"]]
    assert result["sequences"]["green"][0]["locked"] is True
    assert cells == [[[5, c] for c in range(1, 6)]]  # 0-4 and 4-8 both share 4 with 1-5
    assert result["counts"] == {"green": 1, "blue": 0}


def test_sq_s2_check_move_removal_of_a_locked_chip_is_chip_locked():
    chips = {"green": [[5, c] for c in range(5)], "blue": [[6, 0]]}
    locked = [{"side": "green", "cells": [[5, c] for c in range(5)]}]
    verdict = sq.check_move("sequence", chips, locked, "blue", "JS", [5, 2])
    assert verdict["legal"] is False and verdict["code"] == "chip-locked"
    assert verdict["action"] == "remove-chip"
    assert sq.check_move("sequence", chips, [], "blue", "JS", [5, 2])["legal"] is True


@pytest.mark.parametrize(
    "side, card, cell, code",
    [
        ("green", "5S", [0, 4], None),
        ("green", "5S", [8, 3], None),  # either of its two spaces (SQ-T1)
        ("green", "5S", [0, 5], "card-not-on-space"),
        ("green", "2S", [0, 1], "space-occupied"),
        ("green", "JD", [0, 0], "space-occupied"),  # a free corner
        ("green", "JC", [3, 3], None),  # two-eyed: any open space (SQ-T2)
        ("green", "JC", [0, 1], "space-occupied"),
        ("green", "JH", [6, 6], None),  # one-eyed: an opponent's chip (SQ-T3)
        ("green", "JH", [0, 1], "own-chip"),
        ("green", "JH", [3, 3], "no-chip"),
        ("green", "JH", [9, 9], "no-chip"),
    ],
)
def test_sq_t1_t2_t3_check_move_codes(side, card, cell, code):
    chips = {"green": [[0, 1], [0, 2], [0, 3]], "blue": [[6, 6]]}
    verdict = sq.check_move("sequence", chips, [], side, card, cell)
    assert verdict["code"] == code and verdict["legal"] is (code is None)


def test_sq_s5_check_move_reports_what_a_placement_completes():
    chips = {"green": [[0, 1], [0, 2], [0, 3]]}
    verdict = sq.check_move("sequence", chips, [], "green", "5s", [0, 4])
    assert verdict["card"] == "5S"
    assert verdict["sequences"] == [
        {"side": "green", "cells": [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]]}
    ]


@pytest.mark.parametrize(
    "chips, sequences, field",
    [
        ({"purple": []}, [], "chips.purple"),
        ({"green": [[0, 10]]}, [], "chips.green.0"),
        ({"green": [[0, 0]]}, [], "chips.green.0"),  # a corner holds no chip
        ({"green": [[1, 1]], "blue": [[1, 1]]}, [], "chips.blue.0"),  # two chips on a space
        ({"green": [[1, True]]}, [], "chips.green.0"),
        ({"green": [[1, 1]]}, [{"side": "green", "cells": [[1, 1]] * 5}], "sequences.0.cells"),
        (
            {"green": [[1, c] for c in range(5)]},
            [{"side": "blue", "cells": [[1, c] for c in range(5)]}],
            "sequences.0.cells",
        ),
        (
            {"green": [[1, c] for c in range(9)]},
            [
                {"side": "green", "cells": [[1, c] for c in range(5)]},
                {"side": "green", "cells": [[1, c] for c in range(3, 8)]},
            ],
            "sequences.1.cells",
        ),
        ({"green": []}, [{"side": "pink", "cells": []}], "sequences.0.side"),
    ],
)
def test_malformed_positions_name_the_field(chips, sequences, field):
    with pytest.raises(sq.InputError) as info:
        sq.check_board("sequence", chips, sequences)
    assert info.value.field == field and info.value.status == 422


def test_sn_c1_check_move_on_the_answer_space_and_a_custom_board():
    index = sq.spaces_index([list(r) for r in sq.NUMBERS_BOARD])
    r, c = index[42][0]
    assert sq.check_move("sequence-numbers", {}, [], "green", "6×7", [r, c])["legal"] is True
    verdict = sq.check_move("sequence-numbers", {}, [], "green", "6 x 7", [0, 1])
    assert verdict["code"] == "card-not-on-space" and verdict["card"] == "6 x 7"
    board = [[None] * 10 for _ in range(10)]
    cells = [(i, j) for i in range(10) for j in range(10) if (i, j) not in sq.CORNERS]
    for k, (i, j) in enumerate(cells):
        board[i][j] = 500 + k % 48
    assert (
        sq.check_move("sequence-numbers", {}, [], "green", "1000 / 2", [0, 1], board=board)["legal"]
        is True
    )
    with pytest.raises(sq.InputError) as info:
        sq.check_move("sequence-numbers", {}, [], "green", "6 x 7", [0, 1], board=board)
    assert info.value.field == "card"


def test_sn_c2_check_move_plus_wild_minus_remover():
    chips = {"green": [[4, 4]], "blue": [[5, 5]]}
    assert sq.check_move("sequence-numbers", chips, [], "green", "PLUS", [3, 3])["legal"]
    verdict = sq.check_move("sequence-numbers", chips, [], "green", "minus", [5, 5])
    assert verdict["legal"] and verdict["action"] == "remove-chip"
    assert (
        sq.check_move("sequence-numbers", chips, [], "green", "MINUS", [4, 4])["code"] == "own-chip"
    )
