"""Cards, boards and decks of Sequence and Sequence Numbers (SQ-C1..C3, SN-C0..C2).

The reference data in ``seeds/`` is read once at import; everything else is pure."""

from __future__ import annotations

import json
from collections import Counter
from service.data import data_dir
from typing import Any, TypeGuard

from service.cards import DECK, CardError, parse_card
from service.games import RuleViolation
from service.games.arith import ProblemError, answer, canonical_problem
from service.messages import Message

SIZE = 10
FREE = "FREE"
SIDES = ("green", "blue", "red")
LAST = SIZE - 1
CORNERS = frozenset({(0, 0), (0, LAST), (LAST, 0), (LAST, LAST)})
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # row, column, diagonal, anti-diagonal
LENGTH = 5  # SQ-S1
TWO_EYED = frozenset({"JD", "JC"})  # SQ-C2/SQ-T2 wild
ONE_EYED = frozenset({"JS", "JH"})  # SQ-C2/SQ-T3 remove a chip
PLUS, MINUS = "PLUS", "MINUS"  # SN-C2
CLASSIC, NUMBERS = "sequence", "sequence-numbers"
_SEEDS = data_dir("seeds")

Cell = tuple[int, int]


def _read_seed(name: str) -> Any:
    return json.loads((_SEEDS / name).read_text(encoding="utf-8"))


def _classic_board(raw: list[list[str]]) -> list[list[str]]:
    """Publisher's layout ("XX" corners, "T" tens) -> canonical labels, FREE corners."""
    return [[FREE if code == "XX" else parse_card(code) for code in row] for row in raw]


CLASSIC_BOARD: tuple[tuple[str, ...], ...] = tuple(
    tuple(row) for row in _classic_board(_read_seed("sequence-board.json"))
)
CLASSIC_DECK: tuple[str, ...] = DECK + DECK  # SQ-C2: 104 cards, no jokers
NUMBERS_BOARD: tuple[tuple[int | str, ...], ...] = tuple(
    tuple(row) for row in _read_seed("sequence-numbers-board.json")["grid"]
)
NUMBERS_DECK: tuple[str, ...] = tuple(_read_seed("sequence-numbers-deck.json")["cards"])

CLASSIC_HAND = {2: 7, 3: 6, 4: 6, 6: 5, 8: 4, 9: 4, 10: 3, 12: 3}  # SQ-P2
NUMBERS_PLAYERS = (2, 3, 4, 6)  # SN-P1 (5 players cannot form 2 or 3 equal teams)
MAX_CUSTOM_DECK = 400
STALEMATE_HARD_LIMIT = 4  # SQ-E1 (c): decks without a sequence, x stalemate_decks
MAX_NUMBER = 10**9


def _board_data(board: Any) -> list[list[Any]]:
    return [list(row) for row in board]


class InputError(RuleViolation):
    """Malformed input (422) naming the offending ``field`` (``chips.green.3``...) and
    the rule it breaks (G-R1)."""

    def __init__(self, code: str, detail: Message, field: str, rule: str):
        super().__init__(code, detail, 422, rule=rule)
        self.field = field


def _invalid_option(detail: Message, rule: str) -> RuleViolation:
    return RuleViolation("invalid-option", detail, 422, rule=rule)


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_card_for(game: str, raw: Any, field: str = "card") -> str:
    """Canonical card of ``game`` from input (``th`` -> ``10H``, ``6×7`` -> ``6 x 7``,
    ``plus`` -> ``PLUS``). Raises InputError ``invalid-card`` (422; SQ-C2 / SN-C1)."""
    card_rule = "SQ-C2" if game == CLASSIC else "SN-C1"
    if raw is None:
        raise InputError(
            "invalid-card",
            Message("the action needs %(field)s", field=repr(field)),
            field,
            card_rule,
        )
    if game == CLASSIC:
        try:
            card = parse_card(raw)
        except CardError as exc:
            raise InputError("invalid-card", exc.message, field, card_rule) from exc
        if card == "JK":
            raise InputError(
                "invalid-card", Message("Sequence has no jokers (SQ-C2)"), field, card_rule
            )
        return card
    if isinstance(raw, str) and raw.strip().upper() in (PLUS, MINUS):
        return raw.strip().upper()
    try:
        return canonical_problem(raw)
    except ProblemError as exc:
        raise InputError("invalid-card", exc.message, field, card_rule) from exc


def card_class(game: str, card: str) -> str:
    """``"wild"`` (SQ-T2, SN-C2), ``"remover"`` (SQ-T3, SN-C2) or ``"face"``."""
    if card in TWO_EYED or card == PLUS:
        return "wild"
    if card in ONE_EYED or card == MINUS:
        return "remover"
    return "face"


def label_of(game: str, card: str) -> str | int:
    """The board label a face card covers: the card (SQ-C1) or its answer (SN-C1)."""
    return card if game == CLASSIC else answer(card)


def spaces_index(board: list[list[Any]]) -> dict[Any, list[Cell]]:
    """label -> its cells in reading order (corners left out)."""
    index: dict[Any, list[Cell]] = {}
    for r, row in enumerate(board):
        for c, label in enumerate(row):
            if label != FREE:
                index.setdefault(label, []).append((r, c))
    return index


def _validate_board(raw: Any) -> list[list[int | str]]:
    """A custom Sequence Numbers board (SN-C0/C1), normalised; invalid-option otherwise."""
    if not (
        isinstance(raw, list)
        and len(raw) == SIZE
        and all(isinstance(row, list) and len(row) == SIZE for row in raw)
    ):
        raise _invalid_option(Message("board must be 10 rows of 10 spaces (SN-C0)"), "SN-C0")
    grid: list[list[int | str]] = []
    for r, row in enumerate(raw):
        out: list[int | str] = []
        for c, value in enumerate(row):
            if (r, c) in CORNERS:
                if value not in (None, FREE, "XX"):
                    raise _invalid_option(
                        Message(
                            "board[%(row)s][%(col)s] is a corner: it must be FREE (SN-C1: 4 "
                            "free corners)",
                            row=r,
                            col=c,
                        ),
                        "SN-C0",
                    )
                out.append(FREE)
            elif _is_int(value) and abs(value) <= MAX_NUMBER:
                out.append(value)
            else:
                raise _invalid_option(
                    Message(
                        "board[%(row)s][%(col)s] must be an integer, not %(value)s",
                        row=r,
                        col=c,
                        value=repr(value),
                    ),
                    "SN-C0",
                )
        grid.append(out)
    counts = Counter(v for row in grid for v in row if v != FREE)
    wrong = sorted(n for n, k in counts.items() if k != 2)
    if wrong:
        raise _invalid_option(
            Message(
                "every number must be on exactly two spaces (SN-C1); not so for %(numbers)s",
                numbers=wrong[:5],
            ),
            "SN-C1",
        )
    return grid


def _validate_deck(raw: Any, board: list[list[Any]]) -> list[str]:
    """A Sequence Numbers deck, canonical; every problem's answer on the board."""
    if not isinstance(raw, list) or not raw or len(raw) > MAX_CUSTOM_DECK:
        raise _invalid_option(
            Message("deck must be a list of 1 to %(most)s cards", most=MAX_CUSTOM_DECK), "SN-C0"
        )
    on_board = spaces_index(board)
    cards = []
    for i, value in enumerate(raw):
        try:
            card = parse_card_for(NUMBERS, value, f"deck.{i}")
        except InputError as exc:
            raise _invalid_option(
                Message("deck[%(index)s]: %(error)s", index=i, error=exc.detail), "SN-C1"
            ) from exc
        if card_class(NUMBERS, card) == "face" and label_of(NUMBERS, card) not in on_board:
            raise _invalid_option(
                Message(
                    "deck[%(index)s] %(card)s: its answer %(answer)s is not on the board (SN-C1)",
                    index=i,
                    card=repr(card),
                    answer=label_of(NUMBERS, card),
                ),
                "SN-C1",
            )
        cards.append(card)
    return cards
