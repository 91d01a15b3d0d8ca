"""Solitaire Frenzy pictures (RULES.md §5): the shared foundations by suit (SF-F1),
each pile as its top card with its size, then each seat's public layout (13-pile top,
columns, waste top; SF-P1) and the running totals. Every viewer sees the same (the
view holds no face-down card).
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
        svg.text(x + COL_W / 2, y + 12, SUIT_SYMBOLS[suit], 22,
                 fill="#c0392b" if suit in "HD" else "#1d1d1d")
        for j, pile in enumerate(by_suit[suit]):
            py = y + 28 + j * (CARD_H + 18)
            draw_card(svg, x + (COL_W - CARD_W) / 2, py, CARD_W, CARD_H, pile["top"],
                      class_="foundation", data_pile=pile["id"])
            svg.text(x + COL_W / 2, py + CARD_H + 8, f"\u00d7{pile['size']}", 12, fill="#555")
    tallest = max((len(v) for v in by_suit.values()), default=0)
    return 36 + max(tallest, 1) * (CARD_H + 18)


def _layouts(svg: Svg, y: float, players: dict[str, dict], totals: dict) -> None:
    for i, (seat, layout) in enumerate(players.items()):
        row_y = y + i * 56
        label = f"{seat} ({totals.get(seat, 0)})"
        svg.text(4, row_y + 24, label, 13, text_anchor="start", font_weight="bold",
                 fill="#222" if layout.get("active", True) else "#999")
        cards = [layout.get("pile_top")] + [col[-1] if col else None
                                            for col in layout.get("columns", [])]
        cards.append(layout.get("waste_top"))
        for j, card in enumerate(cards if "columns" in layout else []):
            if card is not None:
                draw_card(svg, 96 + j * 50, row_y + 2, 46, 48, card, size=14)


def _piles(view: dict) -> list[dict]:
    return [{"id": p["id"], "suit": p["suit"], "top": p["top"], "size": len(p["cards"])}
            for p in view.get("foundations", [])]


def draw(view: dict, game: str) -> Svg:
    """The foundations by suit, then every seat's public layout and total."""
    piles, players = _piles(view), view.get("players", {})
    tallest = max((sum(1 for p in piles if p["suit"] == s) for s in SUITS), default=0)
    top = 56 + (20 if view.get("from_position") else 0)
    height = top + 36 + max(tallest, 1) * (CARD_H + 18) + 56 * len(players) + 8
    svg = Svg(WIDTH, height, f"Solitaire Frenzy ({view.get('seat', 'referee')})")
    svg.text(4, 18, status_line(view), 16, text_anchor="start", font_weight="bold")
    svg.text(4, 40, Message("Round %(round)s of %(rounds)s", round=view.get("round"),
                            rounds=view.get("rounds")) if not view.get("result")
             else scores_line(view["result"]["scores"]), 14, text_anchor="start")
    if view.get("from_position"):  # G-P1: never shown as a fresh, seed-committed deal
        svg.text(4, 60, Message("started from a stated position"), 13,
                 text_anchor="start", font_style="italic", fill="#555")
    used = _foundations(svg, top, piles)
    _layouts(svg, top + used, players, view.get("totals", {}))
    return svg


def draw_foundations(piles: list[list[str]]) -> Svg:
    """A stateless picture of a foundation set: each pile (cards from the Ace up, as
    checked by the API against SF-F1) by suit, as its top card and size."""
    shown = [{"id": i, "suit": pile[-1][-1], "top": pile[-1], "size": len(pile)}
             for i, pile in enumerate(piles)]
    tallest = max((sum(1 for p in shown if p["suit"] == s) for s in SUITS), default=0)
    svg = Svg(WIDTH, 56 + 36 + max(tallest, 1) * (CARD_H + 18), "Solitaire Frenzy")
    svg.text(4, 18, Message("%(count)s foundation piles", count=len(piles)), 16,
             text_anchor="start", font_weight="bold")
    _foundations(svg, 56, shown)
    return svg
