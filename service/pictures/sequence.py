"""Sequence and Sequence Numbers pictures (RULES.md §2, §3): the 10 x 10 board with
its cards or numbers, the free corners, the chips by side and the completed (locked)
sequences (SQ-S1, SQ-S2), then the hands the view holds (a seat: its own only).

Every space carries ``data-cell="row,col"`` for a page to click on.
"""

from __future__ import annotations

from typing import Any

from service.games.sequence import CORNERS, FREE, SIZE, check_board
from service.games.sequence.checks import _board_from_input
from service.messages import Message
from service.pictures import SIDE_COLOURS, Svg, card_label, draw_card, scores_line, status_line

CELL = 46
TOP = 56
TITLES = {"sequence": "Sequence", "sequence-numbers": "Sequence Numbers"}


def _centre(cell: list[int]) -> tuple[float, float]:
    return cell[1] * CELL + CELL / 2, TOP + cell[0] * CELL + CELL / 2


def _space(svg: Svg, row: int, col: int, label: Any, chip: str | None) -> None:
    x, y = col * CELL, TOP + row * CELL
    corner = (row, col) in CORNERS or label == FREE or label is None
    # the space itself takes the clicks; its label and chip let them through
    svg.add(
        "rect",
        x=x + 1,
        y=y + 1,
        width=CELL - 2,
        height=CELL - 2,
        rx=3,
        fill="#f6d365" if corner else "#ffffff",
        stroke="#bbb",
        data_cell=f"{row},{col}",
        class_="cell",
    )
    text, ink = ("\u2605", "#8a6d00") if corner else card_label(str(label))
    svg.text(
        x + CELL / 2, y + CELL / 2, text, 15 if not corner else 22, fill=ink, pointer_events="none"
    )
    if chip is not None:
        svg.add(
            "circle",
            cx=x + CELL / 2,
            cy=y + CELL / 2,
            r=CELL * 0.36,
            fill=SIDE_COLOURS.get(chip, "#666"),
            fill_opacity=0.8,
            stroke="#222",
            class_=f"chip chip-{chip}",
            pointer_events="none",
        )


def _sequence(svg: Svg, side: str, cells: list[list[int]], locked: bool) -> None:
    start, end = _centre(cells[0]), _centre(cells[-1])
    svg.add(
        "line",
        x1=start[0],
        y1=start[1],
        x2=end[0],
        y2=end[1],
        stroke=SIDE_COLOURS.get(side, "#222"),
        stroke_width=8,
        stroke_linecap="round",
        stroke_opacity=0.9,
        stroke_dasharray=None if locked else "8 6",
        class_="sequence locked" if locked else "sequence",
    )


def _board(svg: Svg, board: list[list[Any]], chips: list[list[str | None]]) -> None:
    for row in range(SIZE):
        for col in range(SIZE):
            _space(svg, row, col, board[row][col], chips[row][col])


def _hands(svg: Svg, y: float, hands: dict[str, list[str]]) -> None:
    for i, (seat, cards) in enumerate(hands.items()):
        row_y = y + i * 44
        svg.text(4, row_y + 20, seat, 14, text_anchor="start", font_weight="bold")
        for j, card in enumerate(cards):
            draw_card(svg, 40 + j * 58, row_y + 2, 56, 38, card, size=13)


def draw(view: dict, game: str) -> Svg:
    """The board as ``view`` shows it, its locked sequences, and the hands it holds
    (``hand`` for a seat, ``hands`` for the referee); a game started from a stated
    position says so (G-P1)."""
    hands = view.get("hands") or ({view["seat"]: view["hand"]} if "hand" in view else {})
    svg = Svg(
        SIZE * CELL,
        TOP + SIZE * CELL + 44 * len(hands) + 6,
        f"{TITLES.get(game, game)} ({view.get('seat', 'referee')})",
    )
    svg.text(4, 18, status_line(view), 16, text_anchor="start", font_weight="bold")
    svg.text(4, 40, scores_line(view.get("sequence_counts", {})), 14, text_anchor="start")
    if view.get("from_position"):  # G-P1: never shown as a fresh, seed-committed deal
        svg.text(
            SIZE * CELL - 4,
            40,
            Message("Started from a stated position"),
            13,
            text_anchor="end",
            font_style="italic",
            class_="from-position",
        )
    _board(svg, view["board"], view["chips"])
    for entry in view.get("sequences", []):
        _sequence(svg, entry["side"], entry["cells"], True)
    _hands(svg, TOP + SIZE * CELL + 4, hands)
    return svg


def draw_position(game: str, body: dict) -> Svg:
    """A stateless picture of a posted position (``chips``, ``sequences``, for
    Sequence Numbers an optional ``board``): the locked sequences solid, every further
    completed sequence :func:`check_board` finds dashed. Raises InputError (422)."""
    checked = check_board(game, body["chips"], body["sequences"], body.get("board"))
    board = _board_from_input(game, body.get("board"))  # the engine's own reading
    chips: list[list[str | None]] = [[None] * SIZE for _ in range(SIZE)]
    for side, cells in body["chips"].items():
        for row, col in cells:
            chips[row][col] = side
    svg = Svg(SIZE * CELL, TOP + SIZE * CELL, TITLES[game])
    svg.text(4, 18, TITLES[game], 16, text_anchor="start", font_weight="bold")
    svg.text(
        4,
        40,
        Message("Sequences: %(counts)s", counts=scores_line(checked["counts"])),
        14,
        text_anchor="start",
    )
    _board(svg, board, chips)
    for side, found in checked["sequences"].items():
        for entry in found:
            _sequence(svg, side, entry["cells"], entry["locked"])
    return svg
