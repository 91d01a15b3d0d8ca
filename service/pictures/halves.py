"""Halves pictures (RULES.md §4): cards drawn as their two halves, each by colour
(red, green, blue, yellow) and symbol (circle, square, triangle, cross); the top card
as it lies (HV-T1) and the hands the view holds (a seat: its own, server mode; the
referee: every hand). Each hand card that goes on the top is framed (green as held,
orange turned round) under the game's or the request's HV-T1 reading.
"""

from __future__ import annotations

from typing import Any
from xml.etree.ElementTree import Element

from service.games.halves import PER_HALF, check_play, halves_of
from service.messages import Message
from service.pictures import Svg, scores_line, status_line

COLOURS = {"R": "#d63c3c", "G": "#2f9e55", "B": "#2f6fd6", "Y": "#e8b923"}
WIDTH = 420
CARD_W, CARD_H = 80, 48


def _symbol(svg: Svg, group: Element, cx: float, cy: float, symbol: str) -> None:
    r, style = 11, {"fill": "#ffffff", "stroke": "#222", "stroke_width": 1}
    if symbol == "C":
        svg.add("circle", group, cx=cx, cy=cy, r=r, **style)
    elif symbol == "S":
        svg.add("rect", group, x=cx - r, y=cy - r, width=2 * r, height=2 * r, **style)
    elif symbol == "T":
        svg.add(
            "polygon",
            group,
            points=f"{cx:g},{cy - r:g} {cx + r:g},{cy + r:g} {cx - r:g},{cy + r:g}",
            **style,
        )
    else:  # X: a cross
        svg.add(
            "path",
            group,
            d=f"M{cx - r:g} {cy - r:g} L{cx + r:g} {cy + r:g} "
            f"M{cx + r:g} {cy - r:g} L{cx - r:g} {cy + r:g}",
            stroke="#ffffff",
            stroke_width=6,
        )


def draw_card(
    svg: Svg,
    x: float,
    y: float,
    code: str,
    parent: Element | None = None,
    scale: float = 1.0,
    mark: str | None = None,
) -> Element:
    """A Halves card lying as ``code`` says (first half left), ``mark`` a border
    colour (e.g. it goes on the top)."""
    group = svg.group(
        parent,
        class_="halves-card",
        data_card=code,
        transform=f"translate({x:g},{y:g}) scale({scale:g})",
    )
    for i, half in enumerate(halves_of(code)):
        svg.add(
            "rect",
            group,
            x=i * CARD_W / 2,
            y=0,
            width=CARD_W / 2,
            height=CARD_H,
            fill=COLOURS[half[0]],
            stroke="#222",
            stroke_width=1,
        )
        _symbol(svg, group, i * CARD_W / 2 + CARD_W / 4, CARD_H / 2 - 6, half[1])
    svg.text(CARD_W / 2, CARD_H + 9, code, 11, group, fill="#222")
    if mark:
        svg.add(
            "rect",
            group,
            x=-3,
            y=-3,
            width=CARD_W + 6,
            height=CARD_H + 6,
            rx=4,
            fill="none",
            stroke=mark,
            stroke_width=3,
            class_="mark",
        )
    return group


def _hand(svg: Svg, y: float, seat: str, cards: list[str], marks: list[str | None]) -> None:
    if seat:  # a stateless picture's hand belongs to nobody: no label
        svg.text(4, y + 24, seat, 14, text_anchor="start", font_weight="bold")
    for i, card in enumerate(cards):
        row, col = divmod(i, 4)
        draw_card(svg, 40 + col * 92, y + 4 + row * 70, card, mark=marks[i])


def _rows(cards: list[str]) -> int:
    return max(1, -(-len(cards) // 4))


def draw(view: dict[str, Any], game: str) -> Svg:
    """The top card as it lies, the pile counts and the hands ``view`` holds, each
    hand card that goes on the top framed under the game's ``match`` (HV-T1); a game
    started from a stated position says so (G-P1)."""
    hands = view.get("hands") or ({view["seat"]: view["hand"]} if "hand" in view else {})
    stated = bool(view.get("from_position"))
    y = 168 if stated else 150
    height = y + sum(70 * _rows(cards) + 10 for cards in hands.values())
    svg = Svg(WIDTH, height, f"Halves ({view.get('seat', 'referee')})")
    svg.text(4, 18, status_line(view), 16, text_anchor="start", font_weight="bold")
    svg.text(4, 40, scores_line(view.get("hand_counts", {})), 14, text_anchor="start")
    if stated:  # G-P1: never shown as a fresh deal
        svg.text(
            WIDTH / 2,
            160,
            Message("Started from a stated position"),
            12,
            fill="#666",
            class_="from-position",
        )
    top = view.get("top")
    if top:
        draw_card(svg, WIDTH / 2 - CARD_W * 0.75, 56, "-".join(top["halves"]), scale=1.5)
    else:
        svg.text(WIDTH / 2, 95, Message("No top card yet"), 14, fill="#666")
    options = view.get("options") or {}
    for seat, cards in hands.items():
        marks: list[str | None] = (
            _marks(
                "-".join(top["halves"]),
                cards,
                options.get("match", PER_HALF),
                options.get("allow_turning", True),
            )
            if top
            else [None] * len(cards)
        )
        _hand(svg, y, seat, cards, marks)
        y += 70 * _rows(cards) + 10
    return svg


def _marks(top: str, cards: list[str], match: str, turning: bool = True) -> list[str | None]:
    """HV-T1 under ``match`` (per_half, whole_card, any_half): green for a card that
    goes on ``top`` as held, orange for one that goes turned round (when turning is
    allowed; never under any_half, where turning changes nothing), else None."""
    marks = []
    for card in cards:
        verdict = check_play(top, card, False, match)
        marks.append(
            "#1f9d3a"
            if verdict["matches"]
            else "#e67e22"
            if turning and verdict["matches_turned"]
            else None
        )
    return marks


def draw_play(top: str, hand: list[str], match: str = PER_HALF) -> Svg:
    """A stateless picture: ``top`` as it lies and ``hand``, each card that goes on
    it framed green (as held) or orange (turned round), others unframed (HV-T1,
    under the reading ``match``)."""
    marks = _marks(top, hand, match)
    svg = Svg(WIDTH, 150 + 70 * _rows(hand) + 10, "Halves")
    svg.text(
        4,
        18,
        Message(
            "%(count)s of %(total)s cards go on the top",
            count=sum(1 for mark in marks if mark),
            total=len(hand),
        ),
        15,
        text_anchor="start",
        font_weight="bold",
    )
    draw_card(svg, WIDTH / 2 - CARD_W * 0.75, 40, top, scale=1.5)
    _hand(svg, 150, "", hand, marks)
    return svg
