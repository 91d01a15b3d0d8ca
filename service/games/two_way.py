"""2-Way Cards (RULES.md §1): sequence classification, grid scan and game flow.

Pure: plain data in, plain data out; no Flask, no SQLAlchemy, no I/O.
"""
from __future__ import annotations

# ===== lines: classification and grid scan (TW-S1..TW-S10, TW-D1) =====


def classify_line(cards: list[str]) -> dict:
    """Judge 3..6 canonical card codes in line order (TW-S1..TW-S10).

    Returns ``{"valid", "kind", "tier", "points", "length", "cards", "assignment",
    "reasons"}`` (see the module's tests for examples).
    """
    raise NotImplementedError  # being written


# ===== game flow: setup, turns, declarations, end, views (TW-C, TW-T, TW-D, TW-E) =====
