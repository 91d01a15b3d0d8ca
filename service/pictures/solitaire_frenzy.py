"""Solitaire Frenzy pictures (RULES.md §5): the shared foundations by suit (SF-F1),
each pile as its top card with its size, then each seat's public layout, labelled in
the request's language (13-pile top and size, waste top and size, hand size, the four
columns; SF-P1) and the running totals. Every viewer sees the same (the view holds no
face-down card). The viewBox is 400 units wide and every font size is in its units, so
the text scales with the picture: at a phone's 390 px the smallest text is ~12 px.
"""

from __future__ import annotations

from service.messages import Message
from service.pictures import SUIT_SYMBOLS, Svg, draw_card, scores_line, status_line

SUITS = "SHDC"
COL_W, CARD_W, CARD_H = 100, 52, 70
WIDTH = 4 * COL_W


def _foundations(svg: Svg, y: float, piles: list[dict]) -> float:
    """Four columns, one per suit, each pile ``{"top", "size", "id"}`` a card with its
    size; returns the height used."""
    by_suit = {suit: [p for p in piles if p["suit"] == suit] for suit in SUITS}
    for i, suit in enumerate(SUITS):
        x = i * COL_W
        svg.text(
            x + COL_W / 2,
            y + 12,
            SUIT_SYMBOLS[suit],
            22,
            fill="#c0392b" if suit in "HD" else "#1d1d1d",
        )
        for j, pile in enumerate(by_suit[suit]):
            py = y + 28 + j * (CARD_H + 18)
            draw_card(
                svg,
                x + (COL_W - CARD_W) / 2,
                py,
                CARD_W,
                CARD_H,
                pile["top"],
                class_="foundation",
                data_pile=pile["id"],
            )
            svg.text(x + COL_W / 2, py + CARD_H + 8, f"\u00d7{pile['size']}", 12, fill="#555")
    tallest = max((len(v) for v in by_suit.values()), default=0)
    return 36 + max(tallest, 1) * (CARD_H + 18)


SEAT_H = 132  # a seat's block: its heading, the 13-pile/waste/hand row, the columns row
SMALL_W, SMALL_H = 38, 48


def _labelled(
    svg: Svg,
    x: float,
    y: float,
    card: str | None,
    name: Message,
    count: int | None,
    back: bool = False,
) -> None:
    """A card (its face, a back, or an empty slot) with its name and count to its right."""
    if card is not None or back:
        draw_card(svg, x, y, SMALL_W, SMALL_H, card, size=14)
    else:
        svg.add(
            "rect",
            x=x + 1,
            y=y + 1,
            width=SMALL_W - 2,
            height=SMALL_H - 2,
            rx=4,
            fill="none",
            stroke="#bbb",
            stroke_dasharray="4 3",
        )
    svg.text(x + SMALL_W + 5, y + 16, name, 12, text_anchor="start", fill="#333")
    if count is not None:
        svg.text(
            x + SMALL_W + 5,
            y + 34,
            str(count),
            12,
            text_anchor="start",
            font_weight="bold",
            fill="#333",
        )


def _seat(svg: Svg, y: float, seat: str, layout: dict, total: int) -> None:
    """One seat (SF-P1), labelled: its 13-pile top and size, waste top and size, hand
    size, then its four columns (exposed card, and the column's length)."""
    svg.text(
        4,
        y + 12,
        f"{seat} ({total})",
        14,
        text_anchor="start",
        font_weight="bold",
        fill="#222" if layout.get("active", True) else "#999",
    )
    if "columns" not in layout:  # retired, or a table game's score sheet
        return
    row = y + 24
    _labelled(svg, 4, row, layout.get("pile_top"), Message("13-pile"), layout.get("pile_size"))
    _labelled(svg, 134, row, layout.get("waste_top"), Message("waste"), layout.get("waste_size"))
    _labelled(
        svg,
        264,
        row,
        None,
        Message("hand"),
        layout.get("hand_size"),
        back=bool(layout.get("hand_size")),
    )
    row += SMALL_H + 8
    svg.text(4, row + 24, Message("columns"), 12, text_anchor="start", fill="#333")
    for i, column in enumerate(layout["columns"]):
        x = 76 + i * 80
        if column:
            draw_card(svg, x, row, SMALL_W, SMALL_H, column[-1], size=14)
            if len(column) > 1:
                svg.text(
                    x + SMALL_W + 4,
                    row + 24,
                    f"\u00d7{len(column)}",
                    12,
                    text_anchor="start",
                    fill="#555",
                )
        else:
            svg.add(
                "rect",
                x=x + 1,
                y=row + 1,
                width=SMALL_W - 2,
                height=SMALL_H - 2,
                rx=4,
                fill="none",
                stroke="#bbb",
                stroke_dasharray="4 3",
            )


def _layouts(svg: Svg, y: float, players: dict[str, dict], totals: dict) -> None:
    for i, (seat, layout) in enumerate(players.items()):
        _seat(svg, y + i * SEAT_H, seat, layout, totals.get(seat, 0))


def _piles(view: dict) -> list[dict]:
    return [
        {"id": p["id"], "suit": p["suit"], "top": p["top"], "size": len(p["cards"])}
        for p in view.get("foundations", [])
    ]


def draw(view: dict, game: str) -> Svg:
    """The foundations by suit, then every seat's public layout and total."""
    piles, players = _piles(view), view.get("players", {})
    tallest = max((sum(1 for p in piles if p["suit"] == s) for s in SUITS), default=0)
    top = 56 + (20 if view.get("from_position") else 0)
    height = top + 36 + max(tallest, 1) * (CARD_H + 18) + SEAT_H * len(players) + 8
    svg = Svg(WIDTH, height, f"Solitaire Frenzy ({view.get('seat', 'referee')})")
    svg.text(4, 18, status_line(view), 16, text_anchor="start", font_weight="bold")
    svg.text(
        4,
        40,
        Message("Round %(round)s of %(rounds)s", round=view.get("round"), rounds=view.get("rounds"))
        if not view.get("result")
        else scores_line(view["result"]["scores"]),
        14,
        text_anchor="start",
    )
    if view.get("from_position"):  # G-P1: never shown as a fresh, seed-committed deal
        svg.text(
            4,
            60,
            Message("started from a stated position"),
            13,
            text_anchor="start",
            font_style="italic",
            fill="#555",
        )
    used = _foundations(svg, top, piles)
    _layouts(svg, top + used, players, view.get("totals", {}))
    return svg


def draw_foundations(piles: list[list[str]]) -> Svg:
    """A stateless picture of a foundation set: each pile (cards from the Ace up, as
    checked by the API against SF-F1) by suit, as its top card and size."""
    shown = [
        {"id": i, "suit": pile[-1][-1], "top": pile[-1], "size": len(pile)}
        for i, pile in enumerate(piles)
    ]
    tallest = max((sum(1 for p in shown if p["suit"] == s) for s in SUITS), default=0)
    svg = Svg(WIDTH, 56 + 36 + max(tallest, 1) * (CARD_H + 18), "Solitaire Frenzy")
    svg.text(
        4,
        18,
        Message("%(count)s foundation piles", count=len(piles)),
        16,
        text_anchor="start",
        font_weight="bold",
    )
    _foundations(svg, 56, shown)
    return svg
