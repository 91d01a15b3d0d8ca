"""2-Way Cards lines (RULES.md TW-S1..TW-S10, TW-D1): sequence classification and
the grid scan. Pure: plain data in, plain data out."""

from __future__ import annotations

# ===== lines: classification and grid scan (TW-S1..TW-S10, TW-D1) =====
#
# Reasons vocabulary (``classify_line(...)["reasons"]``, empty for a valid line). A
# reason is reported only for a kind whose basic shape the non-joker cards have, in
# the order run, same rank, suit set:
#   mixed-ranks-and-suits  the cards (jokers aside) share neither one suit nor one
#                          rank, so no kind can apply (reported alone).
#   not-consecutive        one suit, but the ranks are not consecutive (cyclically,
#                          TW-S7) in one direction along the line: no run (TW-S1).
#   identical-adjacent     one rank, but two identical cards (same rank and suit) are
#                          next to each other (TW-S3, TW-S5, TW-S6, TW-S10).
#   duplicate-card         one suit, but a card appears twice: no suit set (TW-S4).
# ("suits-not-all-different"/"no-suit-missing" only decide the tier of a same-rank
# line, never its validity, so they are not reasons.)
from functools import lru_cache
from itertools import pairwise
from operator import itemgetter
from typing import Any, TypedDict, cast

from service.cards import DECK, JOKER, RANKS, SUITS
from service.games.two_way.state import Cell
from service.messages import Message

LINE_LENGTHS = range(3, 7)
HIGH_POINTS = {3: 5, 4: 7, 5: 10, 6: 12}  # TW-S1, TW-S2, TW-S3
LOW_POINTS = {3: 3, 4: 4, 5: 6, 6: 8}  # TW-S4, TW-S5, TW-S6
GRID_SIZE = 7  # TW-C1
# Reading-order directions (TW-D1): horizontal, vertical, diagonal, anti-diagonal.
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))

# card code -> (rank index 0..12 with A=0, suit letter); JK -> None
_PARSED: dict[str, tuple[int, str] | None] = {
    card: (RANKS.index(card[:-1]), card[-1]) for card in DECK
}
_PARSED[JOKER] = None

Parsed = tuple[tuple[int, str] | None, ...]
# _judge: (kind, tier, points, assignment, reasons) of a valid line, or of an invalid
# one (no kind nor tier, 0 points, the cards as given, the reasons)
_Valid = tuple[str, str, int, tuple[str, ...], tuple[()]]
_Invalid = tuple[None, None, int, tuple[str, ...], tuple[str, ...]]
_Verdict = _Valid | _Invalid


class Explained(TypedDict):
    """A reason of an invalid line for people (:func:`explain_reasons`, G-R1)."""

    code: str
    rule: str
    detail: Message


class GridLine(TypedDict):
    """A valid line :func:`scan_grid` finds: its cells and cards in reading order."""

    cells: list[Cell]
    cards: list[str]
    kind: str  # "run" | "same-rank" | "suit-set"
    tier: str  # "high" | "low"
    points: int
    assignment: list[str]


def _solve_run(parsed: Parsed) -> list[str] | None:
    """TW-S1/TW-S7/TW-S8: the run's cards (jokers filled) or None.

    Ranks are consecutive modulo 13 (aces low, high or joining K-A-2); with n <= 6 no
    rank can repeat. Ruling (ties, only with <= 1 non-joker): ascending along the line
    before descending; an all-joker line is A-2-3... of spades.
    """
    suits = {p[1] for p in parsed if p}
    if len(suits) > 1:
        return None
    suit_ = suits.pop() if suits else SUITS[0]
    known = [(i, p[0]) for i, p in enumerate(parsed) if p]
    for step in (1, -1):
        start = (known[0][1] - step * known[0][0]) % 13 if known else 0
        for i, r in known:
            if (start + step * i) % 13 != r:
                break
        else:
            return [RANKS[(start + step * i) % 13] + suit_ for i in range(len(parsed))]
    return None


def _is_high_same_rank(suits: list[str], n: int) -> bool:
    """TW-S2 (n 3/4: every suit different) / TW-S3 (n 5/6: every suit present)."""
    return len(set(suits)) == (n if n <= 4 else 4)


def _fill_suits(suits: list[str | None], i: int, missing: set[str]) -> bool:
    """Depth-first fill of the joker suits from position ``i`` (in place).

    Tries suits in S, H, D, C order, never equal to a neighbour (TW-S10); succeeds
    only when every suit in ``missing`` ends up present. Returns True on success.
    """
    n = len(suits)
    while i < n and suits[i] is not None:
        i += 1
    if i == n:
        return not missing - set(suits)
    jokers_left = sum(s is None for s in suits[i:])
    for s in SUITS:
        if (i and suits[i - 1] == s) or (i + 1 < n and suits[i + 1] == s):
            continue
        suits[i] = s
        still = missing - {s}
        if len(still) <= jokers_left - 1 and _fill_suits(suits, i + 1, still):
            return True
    suits[i] = None
    return False


def _solve_same_rank(parsed: Parsed) -> tuple[list[str], bool] | None:
    """TW-S2/S3/S5/S6/S8/S10: (cards with jokers filled, is_high) or None.

    Every same-rank kind forbids identical adjacent cards; the tier is high when the
    suits are all different (n 3/4) or all present (n 5/6), else low. Jokers take the
    rank of the others and suits chosen depth-first in S, H, D, C order, position by
    position, preferring an assignment that reaches the high tier (deterministic).
    """
    ranks = {p[0] for p in parsed if p}
    if len(ranks) > 1:
        return None
    rank_ = RANKS[ranks.pop() if ranks else 0]
    n = len(parsed)
    suits: list[str | None] = [p[1] if p else None for p in parsed]
    if any(a is not None and a == b for a, b in pairwise(suits)):
        return None
    fixed = [s for s in suits if s is not None]
    filled = list(suits)
    if n <= 4 and len(set(fixed)) == len(fixed):
        spare = iter(s for s in SUITS if s not in fixed)
        filled = [s if s is not None else next(spare) for s in suits]
    elif not (n >= 5 and _fill_suits(filled, 0, set(SUITS) - set(fixed))):
        filled = list(suits)
        _fill_suits(filled, 0, set())  # low tier: any suits, no identical neighbours
    final = [s for s in filled if s is not None]
    return [rank_ + s for s in final], _is_high_same_rank(final, n)


def _solve_suit_set(parsed: Parsed) -> list[str] | None:
    """TW-S4/TW-S8: the suit set's cards or None. Jokers take the lowest unused ranks
    of the suit (ace first), in line order (deterministic)."""
    suits = {p[1] for p in parsed if p}
    used = [p[0] for p in parsed if p]
    if len(suits) > 1 or len(set(used)) != len(used):
        return None
    suit_ = suits.pop() if suits else SUITS[0]
    if len(used) == len(parsed):  # no joker
        return [RANKS[r] + suit_ for r in used]
    spare = iter(r for r in range(13) if r not in used)
    return [RANKS[p[0] if p else next(spare)] + suit_ for p in parsed]


# reason -> (rule, sentence) for people (G-R1): what the check answers beside each code.
# mixed-ranks-and-suits names TW-S4, the loosest kind (one suit, any order); a
# same-rank line with identical neighbours is refused by the low-tier rule of its
# length (TW-S5 for 3 or 4 cards, TW-S6 for 5 or 6), the most lenient one that could
# have taken it (the high tier, TW-S2/TW-S3, wants more).
_EXPLAINED = {
    "mixed-ranks-and-suits": (
        "TW-S4",
        Message(
            "the cards (jokers aside) share neither one suit nor one rank: no kind of sequence fits"
        ),
    ),
    "not-consecutive": (
        "TW-S1",
        Message(
            "one suit, but the ranks do not follow each other in one direction along the "
            "line: not a run"
        ),
    ),
    "identical-adjacent": (
        "TW-S5",
        Message("one rank, but two identical cards (same rank and suit) lie next to each other"),
    ),
    "duplicate-card": ("TW-S4", Message("one suit, but a card appears twice: not a suit set")),
}


def explain_reasons(reasons: list[str], length: int) -> list[Explained]:
    """``[{"code", "rule", "detail"}]`` for the ``reasons`` of an invalid line of
    ``length`` cards (:func:`classify_line`): the rule each applies and a sentence."""
    out: list[Explained] = []
    for reason in reasons:
        rule, detail = _EXPLAINED[reason]
        if reason == "identical-adjacent" and length >= 5:
            rule = "TW-S6"
        out.append({"code": reason, "rule": rule, "detail": detail})
    return out


def _reasons(one_suit: bool, one_rank: bool) -> tuple[str, ...]:
    """Why an invalid line is invalid (vocabulary at the top of this region), given
    whether its non-joker cards share one suit and whether they share one rank."""
    if not (one_suit or one_rank):
        return ("mixed-ranks-and-suits",)
    reasons = []
    if one_suit:
        reasons.append("not-consecutive")
    if one_rank:
        reasons.append("identical-adjacent")
    if one_suit:
        reasons.append("duplicate-card")
    return tuple(reasons)


@lru_cache(maxsize=65536)
def _judge(cards: tuple[str, ...]) -> _Verdict:
    """(kind, tier, points, assignment, reasons) of a canonical line (cached).

    TW-S9: the kinds are tried best first. A run is high tier and a same-rank line
    may be; ties can only arise with at most one non-joker card, and then the order
    run > same-rank > suit-set decides (Ruling).
    """
    parsed = tuple(map(_PARSED.__getitem__, cards))
    n = len(cards)
    one_suit = len({p[1] for p in parsed if p}) <= 1
    one_rank = len({p[0] for p in parsed if p}) <= 1
    run = _solve_run(parsed) if one_suit else None
    if run is not None:
        return "run", "high", HIGH_POINTS[n], tuple(run), ()
    same = _solve_same_rank(parsed) if one_rank else None
    if same is not None and same[1]:
        return "same-rank", "high", HIGH_POINTS[n], tuple(same[0]), ()
    if same is not None:
        return "same-rank", "low", LOW_POINTS[n], tuple(same[0]), ()
    suit_set = _solve_suit_set(parsed) if one_suit else None
    if suit_set is not None:
        return "suit-set", "low", LOW_POINTS[n], tuple(suit_set), ()
    return None, None, 0, cards, _reasons(one_suit, one_rank)


def kind_rule(verdict: dict[str, Any]) -> str | None:
    """The rule ID of a valid :func:`classify_line` verdict's kind (G-R1): TW-S1 run,
    TW-S2/TW-S3 high and TW-S5/TW-S6 low same-rank lines of 3-4 and 5-6 cards, TW-S4
    suit set; None for an invalid line (its reasons name theirs, :func:`explain_reasons`).

    >>> kind_rule(classify_line(["5H", "6H", "7H"]))
    'TW-S1'
    """
    if not verdict["valid"]:
        return None
    if verdict["kind"] == "run":
        return "TW-S1"
    if verdict["kind"] == "suit-set":
        return "TW-S4"
    long = verdict["length"] >= 5
    if verdict["tier"] == "high":
        return "TW-S3" if long else "TW-S2"
    return "TW-S6" if long else "TW-S5"


def classify_line(cards: list[str]) -> dict[str, Any]:
    """Judge 3..6 canonical card codes in line order (TW-S1..TW-S10).

    Returns ``{"valid": bool, "kind": "run"|"same-rank"|"suit-set"|None,
    "tier": "high"|"low"|None, "points": int, "length": n, "cards": [...],
    "assignment": [...], "reasons": [...]}``. ``assignment`` is the line with every
    joker replaced by the card it stands for in the best-scoring reading (TW-S8,
    TW-S9); for an invalid line it is the input, ``points`` is 0, ``kind``/``tier``
    are None and ``reasons`` uses the vocabulary documented above. A plain JSON object:
    the API replaces ``reasons`` by their explanations (:func:`explain_reasons`).

    Examples: ``KS AS 2S 3S`` run high 7 (TW-S7); ``7H 7S 7H`` same-rank low 3;
    ``7H 7H 7S`` invalid ``identical-adjacent`` (TW-S10); ``QS JK 10S`` run high 5 as
    ``QS JS 10S``. Raises ValueError for a length outside 3..6 or a code that is not
    canonical (``service.cards.parse_card`` makes it canonical).
    """
    line = tuple(cards)
    if len(line) not in LINE_LENGTHS:
        raise ValueError(f"a line has 3 to 6 cards, not {len(line)}")
    for card in line:
        if card not in _PARSED:
            raise ValueError(f"not a canonical card code: {card!r}")
    kind, tier, points, assignment, reasons = _judge(line)
    return {
        "valid": kind is not None,
        "kind": kind,
        "tier": tier,
        "points": points,
        "length": len(line),
        "cards": list(line),
        "assignment": list(assignment),
        "reasons": list(reasons),
    }


def _check_grid(grid: list[list[str | None]]) -> None:
    """Raise ValueError unless ``grid`` is 7 x 7 of canonical codes or None (TW-C1)."""
    if not isinstance(grid, list) or len(grid) != GRID_SIZE:
        raise ValueError(f"the grid has {GRID_SIZE} rows")
    for r, row in enumerate(grid):
        if not isinstance(row, list) or len(row) != GRID_SIZE:
            raise ValueError(f"row {r} does not have {GRID_SIZE} cells")
        for c, card in enumerate(row):
            if card is not None and card not in _PARSED:
                raise ValueError(f"cell [{r}, {c}] is not a canonical card code: {card!r}")


def scan_grid(grid: list[list[str | None]]) -> list[GridLine]:
    """Every valid line of 3..6 occupied spaces on a 7 x 7 grid of one colour's faces.

    ``grid[row][col]`` is a canonical card code or None (empty space). TW-D1: lines run
    horizontally, vertically or along either diagonal, never across an empty space nor
    past an edge; every contiguous sub-segment of a longer line is a line of its own.
    Each line is listed once, its cells in reading order (row, then column: the end
    nearer the top-left first, the upper end for an anti-diagonal) and its cards in that
    order; reading the other way never changes the verdict (TW-S1 runs either way).

    Returns ``[{"cells": [[r, c], ...], "cards": [...], "kind", "tier", "points",
    "assignment"}, ...]`` ordered by first cell in reading order, then direction
    (horizontal, vertical, diagonal down-right, anti-diagonal down-left), then length
    ascending. Raises ValueError for a grid that is not 7 x 7 of codes/None.

    Example: a grid whose top row is ``7H 8H 9H`` and otherwise empty has one line,
    ``{"cells": [[0, 0], [0, 1], [0, 2]], "cards": ["7H", "8H", "9H"], "kind": "run",
    "tier": "high", "points": 5, "assignment": ["7H", "8H", "9H"]}``.
    """
    _check_grid(grid)
    spaces = [card for row in grid for card in row]
    found = []
    for direction, cells, take in _GRID_LINES:
        for start, cards, verdict in _segments(take(spaces)):
            length = len(cards)
            found.append(
                (cells[start], direction, length, cells[start : start + length], cards, verdict)
            )
    found.sort()  # by first cell, direction, length: never equal, so nothing else compared
    return [
        {
            "cells": [[r, c] for r, c in cells],
            "cards": list(cards),
            "kind": kind,
            "tier": tier,
            "points": points,
            "assignment": list(assignment),
        }
        for _, _, _, cells, cards, (kind, tier, points, assignment, _) in found
    ]


def _grid_lines() -> tuple[tuple[int, tuple[tuple[int, int], ...], itemgetter[Any]], ...]:
    """Every whole line of the grid long enough for a sequence (TW-D1): a row, a
    column or a diagonal of at least 3 spaces, as (its direction's index in
    :data:`DIRECTIONS`, its cells in reading order, a getter of its spaces from the
    grid flattened row by row)."""
    lines = []
    for index, (dr, dc) in enumerate(DIRECTIONS):
        for r in range(GRID_SIZE):
            for c in range(GRID_SIZE):
                if 0 <= r - dr < GRID_SIZE and 0 <= c - dc < GRID_SIZE:
                    continue  # not the line's first space
                cells = []
                y, x = r, c
                while 0 <= y < GRID_SIZE and 0 <= x < GRID_SIZE:
                    cells.append((y, x))
                    y, x = y + dr, x + dc
                if len(cells) >= min(LINE_LENGTHS):
                    take = itemgetter(*(y * GRID_SIZE + x for y, x in cells))
                    lines.append((index, tuple(cells), take))
    return tuple(lines)


# the grid's 32 whole lines, worked out once (the grid scan is the stateless hot path)
_GRID_LINES = _grid_lines()


# two neighbours no line can hold: an empty space, or two cards of different suits
# and different ranks (jokers go with anything)
_APART = frozenset(
    [(a, b) for a in [None, *_PARSED] for b in [None, *_PARSED] if a is None or b is None]
    + [
        (a, b)
        for a, pa in _PARSED.items()
        for b, pb in _PARSED.items()
        if pa and pb and pa[0] != pb[0] and pa[1] != pb[1]
    ]
)


@lru_cache(maxsize=4096)
def _segments(
    spaces: tuple[str | None, ...],
) -> tuple[tuple[int, tuple[str, ...], _Valid], ...]:
    """(start, cards, verdict) of every valid segment of a whole line's ``spaces``,
    by start then length (cached: a game's grid changes by a card or two between two
    scans, so most of its lines come back unchanged; 4,096 lines, about 1.3 MB, hold
    128 full grids).

    From each start the segment grows until an empty space, 6 cards, or cards (jokers
    aside) that share neither a suit nor a rank: then no longer one from there can be
    valid.
    """
    found = []
    shortest, longest = LINE_LENGTHS[0], LINE_LENGTHS[-1]
    for start in range(len(spaces) - shortest + 1):
        if (spaces[start], spaces[start + 1]) in _APART or (
            spaces[start + 1],
            spaces[start + 2],
        ) in _APART:
            continue  # the usual case: no line of 3 from here
        suits: set[str] = set()
        ranks: set[int] = set()
        for end, card in enumerate(spaces[start : start + longest], start):
            if card is None:
                break
            parsed = _PARSED[card]
            if parsed is not None:
                ranks.add(parsed[0])
                suits.add(parsed[1])
                if len(ranks) > 1 and len(suits) > 1:
                    break
            if end - start + 1 >= shortest:
                cards = cast("tuple[str, ...]", spaces[start : end + 1])  # no empty space
                verdict = _judge(cards)
                if verdict[0] is not None:
                    found.append((start, cards, verdict))
    return tuple(found)
