"""Generate the default Halves deck, ``seeds/halves-deck.json`` (RULES.md HV-C1).

The publisher does not list the 72 cards. The sheet says each card is split into two
halves and "the halves show different colours and symbols"; RULES.md HV-C1 takes that
as: 4 colours x 4 symbols, a half is one (colour, symbol), a card is two halves that
differ in BOTH colour and symbol, every such card once: 16 halves x 9 partners / 2 =
72 cards, the sheet's count.

Notation (what people type, and what the service answers): a half is its colour
letter then its symbol letter, ``RC`` = red circle; a card is its two halves joined
by ``-``, first half first: ``RC-GS`` = red circle / green square.

* colours: ``R`` red, ``G`` green, ``B`` blue, ``Y`` yellow
* symbols: ``C`` circle, ``S`` square, ``T`` triangle, ``X`` cross

The letters of colours and symbols are all different, so a code can never be read two
ways. Each card is written once, in its upright orientation: the half of the earlier
colour (R, G, B, Y order) first. The list is ordered by first half, then second half.

Run from the repository root: ``.venv/bin/python seeds/make_halves_deck.py``.
"""
from __future__ import annotations

import json
from itertools import combinations, product
from pathlib import Path

OUT = Path(__file__).resolve().parent / "halves-deck.json"
COLOURS = {"R": "red", "G": "green", "B": "blue", "Y": "yellow"}
SYMBOLS = {"C": "circle", "S": "square", "T": "triangle", "X": "cross"}


def deck() -> list[str]:
    """The 72 cards, upright, in order: every pair of halves differing in colour and
    symbol (HV-C1)."""
    halves = [c + s for c, s in product(COLOURS, SYMBOLS)]  # colour-major order
    return [f"{a}-{b}" for a, b in combinations(halves, 2) if a[0] != b[0] and a[1] != b[1]]


def document() -> dict:
    return {"colours": COLOURS, "symbols": SYMBOLS, "cards": deck()}


def main() -> None:
    OUT.write_text(json.dumps(document(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(deck())} cards)")


if __name__ == "__main__":
    main()
