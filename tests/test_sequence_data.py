"""Sequence and Sequence Numbers reference data (SQ-C1, SQ-C2, SN-C0, SN-C1, SN-C2)
and the problem-card parser."""

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

from service.cards import DECK
from service.games import RuleViolation
from service.games import sequence as sq
from service.games.arith import ProblemError, answer, canonical_problem, evaluate, parse_problem

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds"
RANKS_UP = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "Q", "K", "A"]


def spiral_inwards(size=10):
    """Clockwise inwards from (0, 0), ring by ring (independent of the generator)."""
    cells, seen = [], set()
    r, c, dr, dc = 0, 0, 0, 1
    for _ in range(size * size):
        cells.append((r, c))
        seen.add((r, c))
        nr, nc = r + dr, c + dc
        if not (0 <= nr < size and 0 <= nc < size) or (nr, nc) in seen:
            dr, dc = dc, -dr
            nr, nc = r + dr, c + dc
        r, c = nr, nc
    return cells


def test_sq_c1_board_file_is_the_publishers_layout_verbatim():
    raw = json.loads((SEEDS / "sequence-board.json").read_text())
    assert raw[0] == ["XX", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "XX"]
    assert raw[9] == ["XX", "AD", "KD", "QD", "TD", "9D", "8D", "7D", "6D", "XX"]
    assert len(raw) == 10 and all(len(row) == 10 for row in raw)
    assert [raw[0][0], raw[0][9], raw[9][0], raw[9][9]] == ["XX"] * 4
    assert raw[1][8] == "TH"  # the publisher writes tens as T


def test_sq_c1_every_non_jack_card_appears_exactly_twice():
    raw = json.loads((SEEDS / "sequence-board.json").read_text())
    counts = Counter(code for row in raw for code in row if code != "XX")
    non_jacks = {c.replace("10", "T") for c in DECK if not c.startswith("J")}
    assert set(counts) == non_jacks
    assert set(counts.values()) == {2}
    assert not any(code.startswith("J") for code in counts)


def test_sq_c1_spiral_spells_the_suits_twice():
    """Clockwise inwards from the space right of the top-left corner, skipping the
    corners: 2S..AS, 2D..AD, AC..2C, AH..2H, and the same again."""
    raw = json.loads((SEEDS / "sequence-board.json").read_text())
    walk = [raw[r][c] for r, c in spiral_inwards() if raw[r][c] != "XX"]
    once = (
        [r + "S" for r in RANKS_UP]
        + [r + "D" for r in RANKS_UP]
        + [r + "C" for r in reversed(RANKS_UP)]
        + [r + "H" for r in reversed(RANKS_UP)]
    )
    assert walk == once * 2
    assert spiral_inwards()[1] == (0, 1) and raw[0][1] == "2S"


def test_sq_c1_engine_board_is_canonical_with_free_corners():
    board = sq.CLASSIC_BOARD
    assert board[1][8] == "10H" and board[5][0] == "10C"
    assert {board[r][c] for r, c in sq.CORNERS} == {sq.FREE}
    index = sq.spaces_index([list(r) for r in board])
    assert index["7H"] == [(4, 8), (5, 3)]
    assert len(index) == 48 and all(len(v) == 2 for v in index.values())


def test_sq_c2_deck_is_two_52_card_decks_without_jokers():
    counts = Counter(sq.CLASSIC_DECK)
    assert len(sq.CLASSIC_DECK) == 104 and set(counts.values()) == {2}
    assert "JK" not in counts and len(counts) == 52
    assert sq.TWO_EYED == {"JD", "JC"} and sq.ONE_EYED == {"JS", "JH"}
    assert [sq.card_class("sequence", c) for c in ("JD", "JC", "JS", "JH", "7H")] == [
        "wild",
        "wild",
        "remover",
        "remover",
        "face",
    ]


def test_sn_c0_default_board_10x10_four_free_corners_48_numbers_twice():
    data = json.loads((SEEDS / "sequence-numbers-board.json").read_text())
    grid = data["grid"]
    assert "SN-C0" in data["about"]
    assert len(grid) == 10 and all(len(row) == 10 for row in grid)
    assert [grid[r][c] for r, c in sorted(sq.CORNERS)] == ["FREE"] * 4
    numbers = Counter(v for row in grid for v in row if v != "FREE")
    assert len(numbers) == 48 and set(numbers.values()) == {2}
    assert all(isinstance(n, int) for n in numbers)


def test_sn_c0_sn_c1_default_deck_96_add_and_subtract_problems_plus_2_plus_2_minus():
    """SN-C0: 96 problems answering every board number twice (each reachable), 2 PLUS,
    2 MINUS; SN-C1: the published game is add & subtract, so each number has one
    addition and one subtraction card and no other operation."""
    data = json.loads((SEEDS / "sequence-numbers-deck.json").read_text())
    cards = data["cards"]
    assert len(cards) == 100
    assert Counter(c for c in cards if c in ("PLUS", "MINUS")) == {"PLUS": 2, "MINUS": 2}
    problems = [c for c in cards if c not in ("PLUS", "MINUS")]
    assert len(problems) == 96
    grid = json.loads((SEEDS / "sequence-numbers-board.json").read_text())["grid"]
    board_numbers = Counter(v for row in grid for v in row if v != "FREE")
    assert Counter(answer(p) for p in problems) == board_numbers
    assert all(canonical_problem(p) == p for p in problems)
    assert Counter(parse_problem(p)[1] for p in problems) == {"+": 48, "-": 48}
    for number in board_numbers:
        ops = sorted(parse_problem(p)[1] for p in problems if answer(p) == number)
        assert ops == ["+", "-"], number


def test_sn_c0_generator_reproduces_the_shipped_files(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("gen", SEEDS / "make_sequence_numbers.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    monkeypatch.setattr(gen, "BOARD_OUT", tmp_path / "board.json")
    monkeypatch.setattr(gen, "DECK_OUT", tmp_path / "deck.json")
    gen.main()
    assert (tmp_path / "board.json").read_text() == (
        SEEDS / "sequence-numbers-board.json"
    ).read_text()
    assert (tmp_path / "deck.json").read_text() == (
        SEEDS / "sequence-numbers-deck.json"
    ).read_text()


def test_sn_c0_each_default_card_maps_to_two_spaces():
    index = sq.spaces_index([list(r) for r in sq.NUMBERS_BOARD])
    for card in sq.NUMBERS_DECK:
        if sq.card_class("sequence-numbers", card) == "face":
            assert len(index[sq.label_of("sequence-numbers", card)]) == 2


@pytest.mark.parametrize(
    "text, parsed, value",
    [
        ("6 x 7", (6, "x", 7), 42),
        ("6×7", (6, "x", 7), 42),
        ("6*7", (6, "x", 7), 42),
        ("6 X 7", (6, "x", 7), 42),
        ("84 / 2", (84, "/", 2), 42),
        ("84÷2", (84, "/", 2), 42),
        ("84 : 2", (84, "/", 2), 42),
        ("50 - 8", (50, "-", 8), 42),
        ("50 − 8", (50, "-", 8), 42),
        ("40+2", (40, "+", 2), 42),
        ("3 - 5", (3, "-", 5), -2),
        ("3 - -5", (3, "-", -5), 8),
        ("  0 + 1 ", (0, "+", 1), 1),
    ],
)
def test_sn_c1_parser_reads_the_four_operations(text, parsed, value):
    assert parse_problem(text) == parsed
    assert answer(text) == value == evaluate(*parsed)


@pytest.mark.parametrize(
    "text",
    [
        "7 / 2",
        "1 / 0",
        "6 x 7 x 8",
        "6 x",
        "x 7",
        "__import__('os')",
        "6 ** 7",
        "6 // 2",
        "1e3 + 1",
        "1.5 + 1",
        "1234567890 + 1",
        "",
        "(6) x 7",
        None,
        42,
    ],
)
def test_sn_c1_parser_refuses_everything_else_and_never_evals(text):
    with pytest.raises(ProblemError):
        parse_problem(text)


def test_sn_c1_canonical_spelling():
    assert canonical_problem("84÷2") == "84 / 2"
    assert canonical_problem("6*7") == "6 x 7"
    assert sq.parse_card_for("sequence-numbers", "plus") == "PLUS"
    assert sq.parse_card_for("sequence-numbers", " Minus ") == "MINUS"
    assert sq.parse_card_for("sequence", "th") == "10H"


def test_sn_c2_plus_wild_minus_remover():
    assert sq.card_class("sequence-numbers", "PLUS") == "wild"
    assert sq.card_class("sequence-numbers", "MINUS") == "remover"
    assert sq.card_class("sequence-numbers", "6 x 7") == "face"
    assert sq.label_of("sequence-numbers", "6 x 7") == 42


def custom_board(shift=100):
    grid = [[None] * 10 for _ in range(10)]
    cells = [(r, c) for r in range(10) for c in range(10) if (r, c) not in sq.CORNERS]
    for i, (r, c) in enumerate(cells):
        grid[r][c] = shift + i % 48
    return grid


def test_sn_c0_custom_board_and_deck_accepted():
    board = custom_board()
    deck = [f"{n} + 0" for n in range(100, 148)] * 2 + ["plus", "MINUS"]
    options = sq.normalise_options("sequence-numbers", {"board": board, "deck": deck})
    assert options["board"][0][0] == "FREE" and options["board"][0][1] == 100
    assert options["deck"][-2:] == ["PLUS", "MINUS"] and options["deck"][0] == "100 + 0"


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda b: b[0].__setitem__(0, 7), "corner"),
        (lambda b: b[3].__setitem__(3, b[3][4]), "exactly two"),
        (lambda b: b[3].__setitem__(3, "x"), "integer"),
        (lambda b: b[3].__setitem__(3, True), "integer"),
        (lambda b: b.pop(), "10 rows"),
        (lambda b: b[2].append(1), "10 rows"),
    ],
)
def test_sn_c0_invalid_custom_board_is_invalid_option(mutate, message):
    board = custom_board()
    mutate(board)
    with pytest.raises(RuleViolation) as info:
        sq.normalise_options("sequence-numbers", {"board": board, "deck": ["100 + 0"] * 40})
    assert info.value.code == "invalid-option" and info.value.status == 422
    assert message in info.value.detail


@pytest.mark.parametrize(
    "deck, message",
    [
        (["6 x 7"] * 20, "not on the board"),  # default deck vs custom board: 42 missing
        (["100 + 0", "7 / 2"] * 20, "exact division"),
        (["100 + 0", "JOKER"] * 20, "not a problem"),
        ([], "list of 1"),
        ("100 + 0", "list of 1"),
        (["100 + 0"] * 5, "more cards than the hands"),
    ],
)
def test_sn_c0_invalid_custom_deck_is_invalid_option(deck, message):
    with pytest.raises(RuleViolation) as info:
        sq.normalise_options("sequence-numbers", {"board": custom_board(), "deck": deck})
    assert info.value.code == "invalid-option" and info.value.status == 422
    assert message in info.value.detail


def test_sn_c0_custom_board_with_the_default_deck_must_answer_every_card():
    with pytest.raises(RuleViolation) as info:
        sq.normalise_options("sequence-numbers", {"board": custom_board()})
    assert "not on the board" in info.value.detail
    board = custom_board(shift=1)  # 1..48 again, another layout: the default deck fits
    assert sq.normalise_options("sequence-numbers", {"board": board})["deck"] is None
