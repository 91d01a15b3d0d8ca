"""2-Way Cards pictures (RULES.md §1): the 7 x 7 grid in the viewer's colour, the
declared lines (bases, TW-D1) and the hands, from the engine's view (TW-C3).

A seat sees its own colour's faces only (the view holds nothing else); the referee
sees both faces of each tile (blue above, green below); the public sees tiles face
down. Every cell carries ``data-cell="row,col"`` for a page to click on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.games.two_way import GRID_SIZE, scan_grid
from service.messages import Message
from service.pictures import SIDE_COLOURS, Svg, card_label, draw_card, scores_line, status_line

CELL = 56
TOP = 56  # header height
TINTS = {"blue": "#e3ecfb", "green": "#e2f3e8", None: "#ffffff"}
# a cell as a view shows it (service.games.two_way.views): a face (a seat's view), a
# tile's both faces {"tile", "blue", "green"} (the referee's), whether it is occupied
# (the public's); None: empty
Shown = str | dict[str, Any] | bool | None


def _centre(cell: list[int]) -> tuple[float, float]:
    return cell[1] * CELL + CELL / 2, TOP + cell[0] * CELL + CELL / 2


def _tile(svg: Svg, row: int, col: int, tile: Shown, colour: str | None) -> None:
    x, y = col * CELL, TOP + row * CELL
    cell = f"{row},{col}"
    if tile is None or tile is False:
        svg.add(
            "rect",
            x=x + 2,
            y=y + 2,
            width=CELL - 4,
            height=CELL - 4,
            rx=4,
            fill="#efece2",
            stroke="#d6d0bf",
            data_cell=cell,
            class_="cell",
        )
    elif tile is True:
        draw_card(svg, x + 2, y + 2, CELL - 4, CELL - 4, None, data_cell=cell, class_="cell")
    elif isinstance(tile, dict):  # the referee: both faces
        group = draw_card(svg, x + 2, y + 2, CELL - 4, CELL - 4, "", data_cell=cell, class_="cell")
        for face, dy in (("blue", CELL * 0.3), ("green", CELL * 0.7)):
            text, ink = card_label(tile[face])
            svg.text(
                x + CELL / 2,
                y + dy,
                text,
                15,
                group,
                fill=ink,
                font_weight="bold",
                stroke=SIDE_COLOURS[face],
                stroke_width=0.3,
            )
    else:
        draw_card(
            svg,
            x + 2,
            y + 2,
            CELL - 4,
            CELL - 4,
            tile,
            fill=TINTS[colour],
            data_cell=cell,
            class_="cell",
        )


def _line(
    svg: Svg, cells: list[list[int]], colour: str, width: float, dashed: bool = False
) -> None:
    points = " ".join("{:g},{:g}".format(*_centre(cell)) for cell in cells)
    svg.add(
        "polyline",
        points=points,
        fill="none",
        stroke=colour,
        stroke_width=width,
        stroke_opacity=0.6,
        stroke_linecap="round",
        stroke_dasharray="6 6" if dashed else None,
        class_="line",
    )


def _grid(svg: Svg, grid: Sequence[Sequence[Shown]], colour: str | None) -> None:
    for row in range(GRID_SIZE):
        for col in range(GRID_SIZE):
            _tile(svg, row, col, grid[row][col], colour)


def _hand(
    svg: Svg, y: float, seat: str, tiles: list[str | dict[str, Any]], colour: str | None
) -> None:
    svg.text(
        4,
        y + 20,
        seat,
        14,
        text_anchor="start",
        fill=SIDE_COLOURS.get(seat, "#333"),
        font_weight="bold",
    )
    for i, tile in enumerate(tiles):
        face = (
            tile
            if isinstance(tile, str)
            else (f"{tile['blue']}/{tile['green']}" if isinstance(tile, dict) else None)
        )
        draw_card(
            svg,
            60 + i * 46,
            y + 2,
            44,
            36,
            face,
            fill=TINTS[colour],
            size=13 if isinstance(tile, str) else 9,
        )


def draw(view: dict[str, Any], game: str) -> Svg:
    """The grid as ``view`` shows it, each seat's declared lines in its colour, then
    the hands the view holds (TW-C3); a game started from a position says so (G-P1)."""
    viewer = view.get("viewer")
    colour = viewer if viewer in ("blue", "green") else None
    hands = view.get("hands", {})
    svg = Svg(
        GRID_SIZE * CELL,
        TOP + GRID_SIZE * CELL + 44 * len(hands) + 8,
        f"2-Way Cards ({viewer or 'public'})",
    )
    svg.text(4, 18, status_line(view), 16, text_anchor="start", font_weight="bold")
    svg.text(4, 40, scores_line(view.get("scores", {})), 14, text_anchor="start")
    if view.get("from_position"):  # G-P1: never shown as a fresh deal
        svg.text(
            GRID_SIZE * CELL - 4,
            40,
            Message("started from a stated position"),
            12,
            text_anchor="end",
            font_style="italic",
            class_="from-position",
        )
    _grid(svg, view["grid"], colour)
    for seat, bases in view.get("bases", {}).items():
        for base in bases:
            _line(svg, base["cells"], SIDE_COLOURS.get(seat, "#333"), 10)
    for i, (seat, tiles) in enumerate(hands.items()):
        _hand(svg, TOP + GRID_SIZE * CELL + 4 + i * 44, seat, tiles, colour)
    return svg


def draw_grid(grid: list[list[str | None]], colour: str) -> Svg:
    """A stateless picture: one colour's faces on the grid and every declarable line
    (:func:`service.games.two_way.scan_grid`, TW-D1) dashed over it."""
    svg = Svg(GRID_SIZE * CELL, TOP + GRID_SIZE * CELL, f"2-Way Cards grid ({colour})")
    lines = scan_grid(grid)
    svg.text(4, 18, colour, 16, text_anchor="start", font_weight="bold", fill=SIDE_COLOURS[colour])
    svg.text(
        4, 40, Message("%(count)s declarable lines", count=len(lines)), 14, text_anchor="start"
    )
    _grid(svg, grid, colour)
    for line in lines:
        _line(svg, line["cells"], SIDE_COLOURS[colour], 6, dashed=True)
    return svg
