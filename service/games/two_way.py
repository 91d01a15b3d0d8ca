"""2-Way Cards (RULES.md §1): sequence classification, grid scan and game flow.

Pure: plain data in, plain data out; no Flask, no SQLAlchemy, no I/O.
"""
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

from service.cards import DECK, JOKER, RANKS, SUITS
from service.messages import Message

LINE_LENGTHS = range(3, 7)
HIGH_POINTS = {3: 5, 4: 7, 5: 10, 6: 12}  # TW-S1, TW-S2, TW-S3
LOW_POINTS = {3: 3, 4: 4, 5: 6, 6: 8}  # TW-S4, TW-S5, TW-S6
GRID_SIZE = 7  # TW-C1
# Reading-order directions (TW-D1): horizontal, vertical, diagonal, anti-diagonal.
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))

# card code -> (rank index 0..12 with A=0, suit letter); JK -> None
_PARSED: dict[str, tuple[int, str] | None] = {
    card: (RANKS.index(card[:-1]), card[-1]) for card in DECK}
_PARSED[JOKER] = None

Parsed = tuple[tuple[int, str] | None, ...]
_Verdict = tuple[str | None, str | None, int, tuple[str, ...], tuple[str, ...]]


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
    "mixed-ranks-and-suits": ("TW-S4", Message(
        "the cards (jokers aside) share neither one suit nor one rank: no kind of sequence "
        "fits")),
    "not-consecutive": ("TW-S1", Message(
        "one suit, but the ranks do not follow each other in one direction along the "
        "line: not a run")),
    "identical-adjacent": ("TW-S5", Message(
        "one rank, but two identical cards (same rank and suit) lie next to each other")),
    "duplicate-card": ("TW-S4", Message("one suit, but a card appears twice: not a suit "
                                        "set")),
}


def explain_reasons(reasons: list[str], length: int) -> list[dict]:
    """``[{"code", "rule", "detail"}]`` for the ``reasons`` of an invalid line of
    ``length`` cards (:func:`classify_line`): the rule each applies and a sentence."""
    out = []
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


def classify_line(cards: list[str]) -> dict:
    """Judge 3..6 canonical card codes in line order (TW-S1..TW-S10).

    Returns ``{"valid": bool, "kind": "run"|"same-rank"|"suit-set"|None,
    "tier": "high"|"low"|None, "points": int, "length": n, "cards": [...],
    "assignment": [...], "reasons": [...]}``. ``assignment`` is the line with every
    joker replaced by the card it stands for in the best-scoring reading (TW-S8,
    TW-S9); for an invalid line it is the input, ``points`` is 0, ``kind``/``tier``
    are None and ``reasons`` uses the vocabulary documented above.

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
    return {"valid": kind is not None, "kind": kind, "tier": tier, "points": points,
            "length": len(line), "cards": list(line), "assignment": list(assignment),
            "reasons": list(reasons)}


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


def scan_grid(grid: list[list[str | None]]) -> list[dict]:
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
    """
    _check_grid(grid)
    found: list[dict] = []
    for r in range(GRID_SIZE):
        for c in range(GRID_SIZE):
            if grid[r][c] is not None:
                for dr, dc in DIRECTIONS:
                    _scan_from(grid, r, c, dr, dc, found)
    return found


def _scan_from(grid: list[list[str | None]], r: int, c: int, dr: int, dc: int,
               found: list[dict]) -> None:
    """Append the valid lines starting at [r, c] in direction (dr, dc), shortest first.

    Stops at an empty space, an edge, 6 cards, or once the cards (jokers aside) share
    neither a suit nor a rank: then no longer line from here can be valid.
    """
    cells: list[list[int]] = []
    cards: list[str] = []
    suits: set[str] = set()
    ranks: set[int] = set()
    while len(cards) < max(LINE_LENGTHS) and 0 <= r < GRID_SIZE and 0 <= c < GRID_SIZE:
        card = grid[r][c]
        if card is None:
            return
        parsed = _PARSED[card]
        if parsed is not None:
            ranks.add(parsed[0])
            suits.add(parsed[1])
            if len(ranks) > 1 and len(suits) > 1:
                return
        cells.append([r, c])
        cards.append(card)
        if len(cards) >= 3:
            kind, tier, points, assignment, _ = _judge(tuple(cards))
            if kind is not None:
                found.append({"cells": [list(x) for x in cells], "cards": list(cards),
                              "kind": kind, "tier": tier, "points": points,
                              "assignment": list(assignment)})
        r, c = r + dr, c + dc


# ===== game flow: setup, turns, declarations, end, views (TW-C, TW-T, TW-D, TW-E) =====
#
# Contract: service/games/__init__.py. State, events and views are plain JSON data.
#
# State (what fold() builds; the store snapshots it as JSON):
#   {"game": "two-way", "status": "active"|"finished", "seats": ["blue", "green"],
#    "options": {dealing, variant, easy_extra_threes, win_condition, first_seat},
#    "custom_manifest": bool, "manifest": [{"blue": code, "green": code}] * 108,
#    "seed": str, "slots": {"3": 1, ...} (TW-D3: length -> sequences one may hold),
#    "bag": [tile ids, sorted], "hands": {seat: [tile ids, in draw order]},
#    "grid": 7 x 7 of tile id | None, "bases": {seat: [removed sequence, ...]},
#    "scores": {seat: int}, "pending_skips": {seat: 0|1}, "dealt": [seats dealt],
#    "turn": seat, "turn_number": int, "phase": "deal"|"place"|"draw"|"discard"|"over",
#    "placed": placements made this turn, "draws": draws made so far (rng label),
#    "result": RESULT (service/games/__init__.py) once finished, else None}
# A tile id is the tile's index in the manifest (0..107).
#
# Events ({"type", "seat", ...}; "by" names the actor: the seat itself or "referee"):
#   game-created {game, options, seats, custom_manifest, manifest, seed}   (seat None;
#                the manifest is the game's: see game_manifest for server games)
#   dealt {tiles}        TW-T1 the 5 starting tiles of a seat
#   placed {tile, cell}  TW-T2
#   drawn {tiles}        TW-T2 (up to 7 in hand: 4, or 3 after a one-placement turn)
#   discarded {tiles}    TW-T2, ends the turn (down to 5 in hand: normally 2)
#   declared {cells, tiles, cards, kind, tier, points, length, assignment}   TW-D4
#   declaration-rejected {cells, tiles, cards, reasons}                      TW-D5
#   turn-skipped {}      TW-T5
#   game-ended {result}  TW-E1..TW-E3 (seat None, no "by"): RESULT with reason
#                        "set-complete" | "grid-full", scores of both seats and
#                        "two_way": {"completer": the seat that held every length,
#                        or None}
#
# Rulings of this region (RULES.md is silent; each is repeated at its code):
# - TW-T4: a placement is due while fewer than 2 were made this turn AND an empty space
#   exists; when a declaration empties spaces before the draw, placements are due again.
# - TW-T2/TW-T4 hand size: the draw brings the hand UP TO 7 and the discard DOWN TO 5
#   (TW-T2's "hand = 7", "hand = 5"): a draw takes min(4, 7 - hand, bag) tiles (4 after
#   two placements, 3 after a TW-T4 turn with one placement), a discard max(0, hand - 5)
#   (normally 2), so every turn ends with 5 in hand. In table mode the referee's draw
#   must name exactly that many tiles (else wrong-tile-count). The bag never runs low
#   in practice: 49 grid + at most 30 in unfinished bases + 10 in hands leaves 19.
# - TW-D5/TW-T5: a pending missed turn is yes/no per seat (pending_skips 0 or 1): the
#   sheet says the player "will miss their next turn", one turn. A further incorrect
#   declaration before the skip is served (i.e. later in the same turn) is still
#   recorded (declaration-rejected) but owes no second turn. After a discard, each
#   next seat with a pending missed turn has it skipped (one turn-skipped event),
#   alternating, until a seat without one is to play: when both owe a turn, each
#   misses exactly one and the discarder's opponent plays next.
# - TW-D1: declaration cells may be listed in any order: distinct cells in one row,
#   column or diagonal, contiguous, are sorted along the line and the cards judged in
#   that order (cells already in line order, either direction, are kept as given;
#   otherwise reading order, top-left end first). Repeated cells or a gap stay
#   "not-a-line" (422).
# - TW-T3/TW-D3/TW-D5 (RULES.md): any number of declarations per turn; the only limit
#   on lengths is a length already held (length-already-held, 409, nothing recorded).
#   A wrong declaration uses up no length: the seat may declare that length again in
#   the same turn. With easy_extra_threes several correct 3-lines in one turn are
#   accepted while a 3-slot is free.
# - TW-D3: easy_extra_threes requires variant easy (refused as invalid-option else).
# - TW-E1: the game ends at once on the declaration that fills the last slot.
# - TW-E3 (RULES.md): by default (win_condition first_complete) the completer of the
#   set wins outright whatever the points; a grid-full end (TW-E2) is decided by the
#   scores, equal scores a draw (winners []). win_condition score: the scores decide
#   every end.
# - G-O1: the option is first_seat; first_player (its older name) is still accepted.
# - G-R1, the rule each refusal names: a malformed body the rule of the action it
#   attempts (place TW-T2, cells TW-D1, a draw's or discard's tile count TW-T2/TW-T4,
#   tile ids TW-C2); a request out of turn or phase TW-T2 (TW-T1 while dealing); the
#   game over TW-E1; who may act G-M1 (server dealing: the seats act, the service
#   deals and draws) or G-M2 (table dealing: the referee reports deals and draws).
# - Modes: in table mode the referee reports every draw (and the deal); seats may
#   place, declare and discard themselves, or the referee may act for the seat to
#   move. In server mode the referee may not act.
# - TW-C2/TW-C3: a server game without tile_manifest re-pairs the shipped manifest
#   secretly from its seed (game_manifest); the shipped pairing is public.
# - Public view (viewer None): no faces at all (a face shown to the public would be a
#   face of the other colour for one seat): occupancy, counts, scores, bases without
#   cards. The seed is shown only once the game is finished, to everyone, the referee
#   included (with it the future draws of a server game could be computed).
# - legal_actions lists correct declarations only (an incorrect one is accepted by
#   apply() and penalised, TW-D5, but never suggested), each in scan_grid's reading
#   order; for the referee in table mode the draw/deal is one valid example (the
#   lowest ids in the bag).

import json  # noqa: E402
from functools import lru_cache  # noqa: E402
from itertools import combinations  # noqa: E402

from service.cards import DECK, JOKER, CardError, parse_card  # noqa: E402
from service.data import seed_file  # noqa: E402
from service.games import RuleViolation  # noqa: E402
from service.messages import Message  # noqa: E402
from service.games.rng import Stream, commitment, shuffle  # noqa: E402

GAME = "two-way"
SEATS = ("blue", "green")
REFEREE = "referee"
TILE_COUNT = 108  # TW-C2, TW-E4
HAND_SIZE = 5  # TW-T1; TW-T2: the discard brings the hand down to it
PLACEMENTS = 2  # TW-T2
DRAW_COUNT = 4  # TW-T2, TW-E4 (not two)
DRAWN_HAND = 7  # TW-T2: the draw brings the hand up to it
MANIFEST_PATH = seed_file("two-way-tiles.json")
_FACE_COUNTS = {**{card: 2 for card in DECK}, JOKER: 4}  # TW-C2: per colour

# TW-D3: (variant, easy_extra_threes) -> {length: removed sequences of it one may hold}
SLOTS = {
    ("standard", False): {"3": 1, "4": 1, "5": 1, "6": 1},
    ("easy", False): {"3": 1, "4": 1, "5": 1},
    ("easy", True): {"3": 3, "4": 1, "5": 1},
}

OPTIONS = [
    {"name": "dealing", "type": "string", "default": "server", "choices": ["server", "table"],
     "description": "server: the service deals and draws from the game's seed and keeps "
                    "hands and bag secret; table: a referee reports the tiles drawn at a "
                    "physical table (by manifest id)."},
    {"name": "variant", "type": "string", "default": "standard",
     "choices": ["standard", "easy"],
     "description": "TW-D3: standard needs sequences of 3, 4, 5 and 6; easy of 3, 4 and 5."},
    {"name": "easy_extra_threes", "type": "boolean", "default": False,
     "description": "TW-D3, variant easy only: hold three sequences of 3, one of 4, one "
                    "of 5."},
    {"name": "win_condition", "type": "string", "default": "first_complete",
     "choices": ["first_complete", "score"],
     "description": "TW-E3: first_complete: the first player to hold every required "
                    "length wins outright, whatever the points (the scores decide only "
                    "a full grid, TW-E2); score: the higher score wins every end, even "
                    "against the player who completed the set."},
    {"name": "first_seat", "type": "string", "default": "blue", "choices": list(SEATS),
     "description": "G-O1, TW-T1: the seat that plays first (also accepted under its "
                    "older name first_player)."},
    {"name": "tile_manifest", "type": "array", "default": None,
     "description": "TW-C2: 108 tiles [{\"blue\": card, \"green\": card}, ...] copying a "
                    "physical set (tile id = index); each colour's faces are two 52-card "
                    "decks plus 4 jokers, no tile shows one card on both faces. A custom "
                    "manifest is always used as given. Default (none given): table "
                    "dealing uses the shipped pairing seeds/two-way-tiles.json as it is; "
                    "server dealing re-pairs the shipped faces secretly from the game's "
                    "seed (the shipped pairing is public: a seat could otherwise read the "
                    "other colour of every tile it sees), revealed with the seed."},
]

CATALOG = {GAME: {"title": "2-Way Cards", "rules": "RULES.md §1", "seats": list(SEATS),
                  "players": [2], "options": OPTIONS}}


# ----- setup: options, manifest, new_game (TW-C2, TW-T1, TW-D3) -----

# G-R1: the rule an option applies (an invalid-option refusal names it)
_OPTION_RULES = {"dealing": "G-M1", "variant": "TW-D3", "easy_extra_threes": "TW-D3",
                 "win_condition": "TW-E3", "first_seat": "G-O1", "first_player": "G-O1",
                 "tile_manifest": "TW-C2"}
FIRST_PLAYER = "first_player"  # G-O1: the older name of first_seat, still accepted


def _invalid(name: str, detail: Message) -> RuleViolation:
    return RuleViolation("invalid-option", Message("option %(name)s: %(detail)s",
                                                   name=repr(name), detail=detail), 422,
                         rule=_OPTION_RULES.get(name, "G-O1"))


def _choice(options: dict, spec: dict) -> object:
    """The option's value (default when absent), checked against its type/choices."""
    value = options.get(spec["name"], spec["default"])
    if spec["type"] == "boolean" and not isinstance(value, bool):
        raise _invalid(spec["name"], Message("must be true or false"))
    if "choices" in spec and value not in spec["choices"]:
        raise _invalid(spec["name"], Message("must be one of %(choices)s",
                                             choices=", ".join(spec["choices"])))
    return value


@lru_cache(maxsize=1)
def _shipped_tiles() -> tuple[tuple[str, str], ...]:
    """seeds/two-way-tiles.json as (blue, green) pairs, read once (immutable)."""
    with MANIFEST_PATH.open(encoding="utf-8") as handle:
        return tuple((t["blue"], t["green"]) for t in json.load(handle)["tiles"])


def default_manifest() -> list[dict]:
    """The shipped manifest (seeds/two-way-tiles.json): a fresh list of 108 tiles."""
    return [{"blue": blue, "green": green} for blue, green in _shipped_tiles()]


def pair_faces(blue: list[str], green_pool: list[str], seed: str, label: str) -> list[dict]:
    """Tiles pairing ``blue[i]`` with a green face drawn from ``green_pool`` (TW-C2).

    The pool is shuffled with ``service.games.rng.shuffle(pool, seed, label)``; then each
    tile whose two faces are equal swaps its green face with the first later tile
    (wrapping) where the swap leaves both tiles with different faces. Deterministic.
    seeds/make_two_way_tiles.py builds the default manifest with it.
    """
    green = shuffle(green_pool, seed, label)
    n = len(blue)
    for i in range(n):
        if green[i] != blue[i]:
            continue
        for step in range(1, n):
            j = (i + step) % n
            if green[j] != blue[i] and green[i] != blue[j]:
                green[i], green[j] = green[j], green[i]
                break
    return [{"blue": b, "green": g} for b, g in zip(blue, green)]


def game_manifest(dealing: str, seed: str) -> list[dict]:
    """The manifest of a game without a custom ``tile_manifest``.

    Ruling (TW-C2, TW-C3): a table game uses the shipped default manifest as it is. A
    server game re-pairs it secretly from the game's seed (``pair_faces`` with label
    ``manifest``; blue faces keep their ids): the shipped pairing is public, and with
    it a seat could read the other colour of every tile it sees, which the physical
    game's unpublished pairing does not allow. The pairing is revealed with the seed.
    """
    tiles = default_manifest()
    if dealing != "server":
        return tiles
    return pair_faces([t["blue"] for t in tiles], [t["green"] for t in tiles], seed, "manifest")


def validate_manifest(manifest: object) -> list[dict]:
    """TW-C2: the canonical manifest, or RuleViolation invalid-option (422).

    108 tiles ``{"blue": code, "green": code}``; each colour's faces are exactly two
    52-card decks plus 4 jokers; no tile shows the same card on both faces.
    """
    if not isinstance(manifest, list) or len(manifest) != TILE_COUNT:
        raise _invalid("tile_manifest", Message("must be a list of %(count)s tiles",
                                                count=TILE_COUNT))
    tiles = []
    for i, tile in enumerate(manifest):
        if not isinstance(tile, dict) or set(tile) != set(SEATS):
            raise _invalid("tile_manifest", Message(
                'tile %(index)s must be {"blue": card, "green": card}', index=i))
        try:
            faces = {seat: parse_card(tile[seat]) for seat in SEATS}
        except CardError as error:
            raise _invalid("tile_manifest", Message("tile %(index)s: %(error)s", index=i,
                                                    error=error.message)) from None
        if faces["blue"] == faces["green"]:
            raise _invalid("tile_manifest", Message("tile %(index)s shows %(card)s on both "
                                                    "faces", index=i, card=faces["blue"]))
        tiles.append(faces)
    for seat in SEATS:
        counts: dict[str, int] = {}
        for tile in tiles:
            counts[tile[seat]] = counts.get(tile[seat], 0) + 1
        if counts != _FACE_COUNTS:
            wrong = sorted(c for c in set(counts) | set(_FACE_COUNTS)
                           if counts.get(c, 0) != _FACE_COUNTS.get(c, 0))
            raise _invalid("tile_manifest", Message(
                "the %(seat)s faces are not two decks plus 4 jokers (wrong counts: "
                "%(cards)s)", seat=seat, cards=", ".join(wrong[:6])))
    return tiles


def normalise_options(options: object) -> tuple[dict, list[dict] | None]:
    """(options with defaults, the custom manifest or None) or RuleViolation
    invalid-option (422).

    G-O1: ``first_player`` is read as ``first_seat`` (naming both with different
    seats is refused); the options returned name it ``first_seat``.
    """
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise RuleViolation("invalid-option", Message("options must be an object"), 422,
                            rule="G-O1")
    known = {spec["name"] for spec in OPTIONS}
    for name in options:
        if name not in known | {FIRST_PLAYER}:
            raise _invalid(name, Message("unknown option (known: %(known)s)",
                                         known=", ".join(sorted(known))))
    if FIRST_PLAYER in options:
        older = options[FIRST_PLAYER]
        if options.get("first_seat", older) != older:
            raise _invalid("first_seat", Message("first_seat and first_player (its older "
                                                 "name) name different seats"))
        options = {**{k: v for k, v in options.items() if k != FIRST_PLAYER},
                   "first_seat": older}
    chosen = {spec["name"]: _choice(options, spec) for spec in OPTIONS
              if spec["name"] != "tile_manifest"}
    if chosen["easy_extra_threes"] and chosen["variant"] != "easy":
        # Ruling (TW-D3): the extra 3-slots are a rule of the easy variant only.
        raise _invalid("easy_extra_threes", Message("requires variant easy"))
    custom = options.get("tile_manifest")
    return chosen, None if custom is None else validate_manifest(custom)


def new_game(game: str, options: dict, seed: str) -> list[dict]:
    """TW-T1 setup events: ``game-created`` (fold(None, it) is the initial state), then
    in server mode one ``dealt`` of 5 tiles per seat (first player first) drawn with the
    seed; in table mode the referee reports the deals (``draw`` actions with 5 ids).

    Raises RuleViolation ``invalid-option`` (422) naming a bad option, or
    ``unknown-game`` (422).
    """
    if game != GAME:
        raise RuleViolation("unknown-game", Message("this engine plays %(engine)s, not "
                                                    "%(game)s", engine=repr(GAME),
                                                    game=repr(game)), 422, rule="G-O1")
    if not isinstance(seed, str) or not seed:
        raise ValueError("seed must be a non-empty string")
    chosen, manifest = normalise_options(options)
    custom = manifest is not None
    if not custom:
        manifest = game_manifest(chosen["dealing"], seed)
    created = {"type": "game-created", "seat": None, "game": GAME, "options": chosen,
               "seats": list(SEATS), "custom_manifest": custom, "manifest": manifest,
               "seed": seed}
    events = [created]
    if chosen["dealing"] == "server":
        state = fold(None, created)
        first = chosen["first_seat"]
        for seat in (first, _other(first)):
            deal = {"type": "dealt", "seat": seat, "by": None,
                    "tiles": _server_draw(state, HAND_SIZE)}
            events.append(deal)
            state = fold(state, deal)
    return events


# ----- fold: events -> state -----

def _other(seat: str) -> str:
    return SEATS[1 - SEATS.index(seat)]


def _initial_state(event: dict) -> dict:
    options = event["options"]
    return {
        "game": GAME, "status": "active", "seats": list(event["seats"]),
        "options": dict(options), "custom_manifest": event["custom_manifest"],
        "manifest": [dict(t) for t in event["manifest"]], "seed": event["seed"],
        "slots": dict(SLOTS[(options["variant"], options["easy_extra_threes"])]),
        "bag": list(range(TILE_COUNT)), "hands": {s: [] for s in SEATS},
        "grid": [[None] * GRID_SIZE for _ in range(GRID_SIZE)],
        "bases": {s: [] for s in SEATS}, "scores": {s: 0 for s in SEATS},
        "pending_skips": {s: 0 for s in SEATS}, "dealt": [],
        "turn": options["first_seat"], "turn_number": 0, "phase": "deal",
        "placed": 0, "draws": 0, "result": None,
    }


def _empty_cells(state: dict) -> list[list[int]]:
    return [[r, c] for r in range(GRID_SIZE) for c in range(GRID_SIZE)
            if state["grid"][r][c] is None]


def _placement_phase(state: dict) -> str:
    """TW-T2/TW-T4: "place" while a placement is due, else "draw".

    Ruling (TW-T4): a placement is due while fewer than 2 were made this turn and an
    empty space exists (so 0 or 1 placement when the grid is (nearly) full).
    """
    if state["placed"] < PLACEMENTS and _empty_cells(state):
        return "place"
    return "draw"


def _start_turn(state: dict, seat: str) -> None:
    state["turn"] = seat
    state["turn_number"] += 1
    state["placed"] = 0
    state["phase"] = _placement_phase(state)


def _fold_deal(state: dict, event: dict) -> None:
    _fold_draw(state, event)
    state["dealt"].append(event["seat"])
    if len(state["dealt"]) == len(SEATS):
        _start_turn(state, state["options"]["first_seat"])
    else:
        state["phase"] = "deal"


def _fold_place(state: dict, event: dict) -> None:
    state["hands"][event["seat"]].remove(event["tile"])
    r, c = event["cell"]
    state["grid"][r][c] = event["tile"]
    state["placed"] += 1
    state["phase"] = _placement_phase(state)


def _fold_draw(state: dict, event: dict) -> None:
    for tile in event["tiles"]:
        state["bag"].remove(tile)
    state["hands"][event["seat"]].extend(event["tiles"])
    state["draws"] += 1
    state["phase"] = "discard"


def _fold_discard(state: dict, event: dict) -> None:
    for tile in event["tiles"]:
        state["hands"][event["seat"]].remove(tile)
    state["bag"] = sorted(state["bag"] + event["tiles"])
    _start_turn(state, _other(event["seat"]))


def _fold_declared(state: dict, event: dict) -> None:
    for r, c in event["cells"]:
        state["grid"][r][c] = None
    entry = {k: event[k] for k in ("cells", "tiles", "cards", "kind", "tier", "points",
                                   "length", "assignment")}
    state["bases"][event["seat"]].append(json.loads(json.dumps(entry)))
    state["scores"][event["seat"]] += event["points"]
    if state["phase"] in ("place", "draw"):
        state["phase"] = _placement_phase(state)


def _fold_rejected(state: dict, event: dict) -> None:
    # TW-T5: one missed turn at most, however many wrong declarations; TW-T3: the
    # length is not used up (nothing else changes).
    state["pending_skips"][event["seat"]] = 1


def _fold_skipped(state: dict, event: dict) -> None:
    state["pending_skips"][event["seat"]] = 0
    _start_turn(state, _other(event["seat"]))


def _fold_ended(state: dict, event: dict) -> None:
    state["status"] = "finished"
    state["phase"] = "over"
    state["result"] = json.loads(json.dumps(event["result"]))


_FOLDERS = {
    "dealt": _fold_deal, "placed": _fold_place, "drawn": _fold_draw,
    "discarded": _fold_discard, "declared": _fold_declared,
    "declaration-rejected": _fold_rejected, "turn-skipped": _fold_skipped,
    "game-ended": _fold_ended,
}


def fold(state: dict | None, event: dict) -> dict:
    """The state after one event (pure: ``state`` is not modified).

    ``fold(None, game_created)`` is the initial state; any other event needs a state.
    Events come from :func:`new_game`/:func:`apply` and are trusted (ValueError for an
    unknown type).
    """
    kind = event.get("type")
    if kind == "game-created":
        if state is not None:
            raise ValueError("game-created starts a game: fold it onto None")
        return _initial_state(json.loads(json.dumps(event)))
    if state is None or kind not in _FOLDERS:
        raise ValueError(f"cannot fold event {kind!r} onto {'no state' if state is None else 'a state'}")
    new = _fold_copy(state)
    _FOLDERS[kind](new, event)
    return new


def _fold_copy(state: dict) -> dict:
    """A copy of ``state`` for a folder to change: fresh containers for what the
    folders mutate in place (hands, bases, grid, bag, dealt, scores, pending_skips);
    the rest (manifest, options, slots, base entries...) is shared, as no folder
    changes it (a JSON round trip of the whole state, manifest included, took
    ~100 us per event; this ~2 us)."""
    new = dict(state)
    new["hands"] = {seat: list(tiles) for seat, tiles in state["hands"].items()}
    new["bases"] = {seat: list(entries) for seat, entries in state["bases"].items()}
    new["grid"] = [list(row) for row in state["grid"]]
    for key in ("bag", "dealt"):
        new[key] = list(state[key])
    for key in ("scores", "pending_skips"):
        new[key] = dict(state[key])
    return new


# ----- apply: actions -> events (TW-T, TW-D, TW-E) -----

_FIELDS = {  # action type -> body fields besides type/seat/expected_version
    "place": {"tile", "cell"}, "draw": {"tiles"}, "discard": {"tiles"}, "declare": {"cells"},
}


_ACTION_RULES = {"place": "TW-T2", "draw": "TW-T2", "discard": "TW-T2", "declare": "TW-D1"}


def _bad(detail: Message, code: str = "invalid-action", rule: str = "TW-T2"
         ) -> RuleViolation:
    """A malformed request (422) naming the rule of what it attempts (G-R1)."""
    return RuleViolation(code, detail, 422, rule=rule)


def _mode_rule(state: dict) -> str:
    """G-M1 (server dealing) or G-M2 (table dealing): who may act, and how."""
    return "G-M2" if state["options"]["dealing"] == "table" else "G-M1"


def _check_body(action: object) -> str:
    """The action's type, or 422 invalid-action for a malformed body."""
    if not isinstance(action, dict):
        raise _bad(Message("an action is a JSON object with a 'type'"))
    kind = action.get("type")
    if kind not in _FIELDS:
        raise _bad(Message("unknown action type %(type)s (one of %(types)s)",
                           type=repr(kind), types=", ".join(_FIELDS)))
    for key in action:
        if key not in _FIELDS[kind] | {"type", "seat", "expected_version"}:
            raise _bad(Message("unknown field %(field)s in a %(type)s action",
                               field=repr(key), type=kind), rule=_ACTION_RULES[kind])
    for key in _FIELDS[kind] - {"tiles"} if kind == "draw" else _FIELDS[kind]:
        if key not in action:
            raise _bad(Message("a %(type)s action needs %(field)s", type=kind,
                               field=repr(key)), rule=_ACTION_RULES[kind])
    return kind


def _acting_seat(state: dict, actor: str, action: dict, kind: str) -> str:
    """The seat the action is for; 403 for a seat acting for another or referee misuse.

    Modes: in server mode the referee may not act; in table mode the referee acts for
    the seat named in the body and alone reports draws.
    """
    if actor in SEATS:
        if action.get("seat", actor) != actor:
            raise RuleViolation("not-your-seat", Message("%(seat)s cannot act for another "
                                                         "seat", seat=actor), 403,
                                rule=_mode_rule(state))
        if kind == "draw" and state["options"]["dealing"] == "table":
            raise RuleViolation("referee-reports-draws",
                                Message("in table mode the referee reports the tiles "
                                        "drawn"), 403, rule="G-M2")
        return actor
    if state["options"]["dealing"] != "table":
        raise RuleViolation("referee-cannot-act",
                            Message("in server mode the seats act; the referee only "
                                    "watches"), 403, rule="G-M1")
    seat = action.get("seat")
    if seat not in SEATS:
        raise _bad(Message("a referee action names the seat it is for: 'seat': 'blue' or "
                           "'green'"), rule="G-M2")
    return seat


def _cell(value: object, field: str = "cell") -> list[int]:
    """[row, col] (TW-C1) or 422: invalid-action for a bad shape, off-grid outside 0..6;
    ``field`` names the body field in the refusal."""
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in value)):
        raise _bad(Message("%(field)s: a space is [row, col] with integers", field=field),
                   rule="TW-C1")
    r, c = value
    if not (0 <= r < GRID_SIZE and 0 <= c < GRID_SIZE):
        raise _bad(Message("%(field)s: [%(row)s, %(col)s] is off the 7 x 7 grid (rows and "
                           "columns 0..6)", field=field, row=r, col=c), "off-grid", "TW-C1")
    return [r, c]


def _tile_id(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < TILE_COUNT:
        raise _bad(Message("a referee names tiles by manifest id 0..%(last)s, not "
                           "%(value)s", last=TILE_COUNT - 1, value=repr(value)),
                   "invalid-tile", "TW-C2")
    return value


def _hand_tiles(state: dict, seat: str, names: list, by_referee: bool) -> list[int]:
    """Tile ids of the named hand tiles: ids from the referee; own-colour faces from a
    seat, the earliest-drawn tile first when two show the same face. 409
    tile-not-in-hand, 422 for a bad name."""
    hand = state["hands"][seat]
    taken: list[int] = []
    for name in names:
        if by_referee:
            tile = _tile_id(name)
            if tile in taken:
                raise _bad(Message("tile %(tile)s named twice", tile=tile))
            if tile not in hand:
                raise RuleViolation("tile-not-in-hand", Message(
                    "tile %(tile)s is not in %(seat)s's hand", tile=tile, seat=seat),
                    rule="TW-T2")
        else:
            try:
                face = parse_card(name)
            except CardError as error:
                raise _bad(error.message, "invalid-card") from None
            tile = next((t for t in hand if t not in taken
                         and state["manifest"][t][seat] == face), None)
            if tile is None:
                raise RuleViolation("tile-not-in-hand", Message(
                    "no (more) %(card)s in %(seat)s's hand", card=face, seat=seat),
                    rule="TW-T2")
        taken.append(tile)
    return taken


def _tile_names(action: dict) -> list:
    """The body's 'tiles' list (422 invalid-action if it is not a list)."""
    names = action.get("tiles")
    if not isinstance(names, list):
        raise _bad(Message("'tiles' must be a list of tiles"))
    return names


def _tile_list(action: dict, count: int) -> list:
    """The body's 'tiles': a list of exactly ``count`` (422 wrong-tile-count)."""
    names = _tile_names(action)
    if len(names) != count:
        raise _bad(Message("this %(type)s takes exactly %(count)s tiles, not %(given)s",
                           type=action["type"], count=count, given=len(names)),
                   "wrong-tile-count")
    return names


def _require_phase(state: dict, *phases: str) -> None:
    if state["phase"] not in phases:
        raise RuleViolation("wrong-phase", Message(
            "the turn is in its %(phase)s phase; this action needs %(phases)s (TW-T2)",
            phase=state["phase"], phases=" | ".join(phases)), rule="TW-T2")


def _server_draw(state: dict, count: int) -> list[int]:
    """``count`` tiles picked uniformly from the sorted bag with the seed's stream
    ``draw:<n>`` (n = draws so far), so draws replay from the seed."""
    bag = list(state["bag"])
    stream = Stream(state["seed"], f"draw:{state['draws']}")
    return [bag.pop(stream.randbelow(len(bag))) for _ in range(min(count, len(bag)))]


def _reported_draw(state: dict, action: dict, count: int) -> list[int]:
    """Table mode: the referee's tile ids, checked against the bag (409 tile-not-in-bag)."""
    tiles = [_tile_id(t) for t in _tile_list(action, count)]
    if len(set(tiles)) != len(tiles):
        raise _bad(Message("a tile is named twice"), rule="G-M2")
    for tile in tiles:
        if tile not in state["bag"]:
            raise RuleViolation("tile-not-in-bag", Message("tile %(tile)s is not in the bag",
                                                           tile=tile), rule="G-M2")
    return tiles


def _apply_deal(state: dict, seat: str, action: dict, actor: str) -> list[dict]:
    """TW-T1 in table mode: the referee reports a seat's 5 starting tiles."""
    if actor == REFEREE and action["type"] == "draw":
        if seat in state["dealt"]:
            raise RuleViolation("already-dealt", Message(
                "%(seat)s already holds the starting tiles", seat=seat), rule="TW-T1")
        count = min(HAND_SIZE, len(state["bag"]))
        tiles = _reported_draw(state, action, count)
        return [{"type": "dealt", "seat": seat, "by": actor, "tiles": tiles}]
    raise RuleViolation("wrong-phase", Message(
        "the starting tiles are being dealt (TW-T1): the referee reports each seat's 5 "
        "tiles first"), rule="TW-T1")


def _apply_place(state: dict, seat: str, action: dict, actor: str) -> list[dict]:
    """TW-T2/TW-T4: put one hand tile on an empty space."""
    cell = _cell(action["cell"])
    _require_phase(state, "place")
    tile = _hand_tiles(state, seat, [action["tile"]], actor == REFEREE)[0]
    if state["grid"][cell[0]][cell[1]] is not None:
        raise RuleViolation("space-occupied", Message("space %(cell)s is occupied",
                                                      cell=cell), rule="TW-T2")
    return [{"type": "placed", "seat": seat, "by": actor, "tile": tile, "cell": cell}]


def _draw_count(state: dict, seat: str) -> int:
    """TW-T2/TW-T4: the tiles a draw takes: up to 7 in hand, at most 4 (TW-E4).

    Ruling: ``min(4, 7 - hand, bag)``: 4 after two placements, 3 after a TW-T4 turn
    with one placement; all the bag holds when it holds fewer.
    """
    room = max(0, DRAWN_HAND - len(state["hands"][seat]))
    return min(DRAW_COUNT, room, len(state["bag"]))


def _apply_draw(state: dict, seat: str, action: dict, actor: str) -> list[dict]:
    """TW-T2: draw after placing, up to 7 in hand (``_draw_count``). In table mode the
    referee names exactly that many tiles (422 wrong-tile-count)."""
    count = _draw_count(state, seat)
    if state["options"]["dealing"] == "server":
        if "tiles" in action:
            raise _bad(Message('in server mode the service draws: send {"type": "draw"}'),
                       rule="G-M1")
        _require_phase(state, "draw")
        tiles = _server_draw(state, count)
    else:
        _tile_names(action)
        _require_phase(state, "draw")
        tiles = _reported_draw(state, action, count)
    return [{"type": "drawn", "seat": seat, "by": actor, "tiles": tiles}]


def _discard_count(state: dict, seat: str) -> int:
    """TW-T2/TW-T4: the tiles a discard returns: down to 5 in hand.

    Ruling: ``max(0, hand - 5)``: normally 2 (7 in hand after the draw), also after a
    TW-T4 turn with one placement (the draw took 3); fewer only when the bag ran low.
    """
    return max(0, len(state["hands"][seat]) - HAND_SIZE)


def _apply_discard(state: dict, seat: str, action: dict, actor: str) -> list[dict]:
    """TW-T2: discard down to 5 (normally 2) into the bag, ending the turn; then TW-E2
    (grid full at the end of a turn ends the game) or TW-T5 (each pending missed turn
    skipped, one turn-skipped event each; a seat owes at most one, TW-D5)."""
    _tile_names(action)
    _require_phase(state, "discard")
    names = _tile_list(action, _discard_count(state, seat))
    tiles = _hand_tiles(state, seat, names, actor == REFEREE)
    event = {"type": "discarded", "seat": seat, "by": actor, "tiles": tiles}
    events = [event]
    after = fold(state, event)
    if not _empty_cells(after):
        events.append(_end_event(after, "grid-full", None))
        return events
    while after["pending_skips"][after["turn"]] > 0:
        skip = {"type": "turn-skipped", "seat": after["turn"], "by": None}
        events.append(skip)
        after = fold(after, skip)
    return events


def _line_cells(state: dict, value: object) -> list[list[int]]:
    """TW-D1/TW-D3/TW-D5: the declared cells in order along their line, or the request
    error refusing them.

    Ruling (TW-D1): the cells may be given in any order. Sorted in reading order (row,
    then column) they must be distinct and each one step from the last in one of the
    four directions; cells already in line order (either direction) are kept as given,
    any other order becomes reading order. 422 invalid-action/off-grid for a bad cell,
    length-not-allowed, not-a-line (repeated cell, gap, bend).
    """
    if not isinstance(value, list):
        raise _bad(Message("'cells' must be a list of [row, col]"), rule="TW-D1")
    allowed = sorted(int(n) for n in state["slots"])
    if len(value) not in allowed:
        raise _bad(Message("a declaration has %(allowed)s cells, not %(given)s (TW-D1, "
                           "TW-D3)", allowed=", ".join(map(str, allowed)), given=len(value)),
                   "length-not-allowed", "TW-D3" if len(value) in LINE_LENGTHS else "TW-D1")
    cells = [_cell(v, "cells") for v in value]
    ordered = sorted(cells)
    steps = {(b[0] - a[0], b[1] - a[1]) for a, b in pairwise(ordered)}
    if len(steps) != 1 or steps.pop() not in DIRECTIONS:
        raise _bad(Message("the cells must be distinct neighbours in one straight line "
                           "(row, column or diagonal), in any order (TW-D1)"),
                   "not-a-line", "TW-D1")
    return cells if cells == ordered[::-1] else ordered


def _apply_declare(state: dict, seat: str, action: dict, actor: str) -> list[dict]:
    """TW-T3/TW-D1..TW-D5: remove a sequence, judged on the declarer's faces.

    Malformed (request error, nothing recorded): not a line, off-grid, wrong length
    (422), empty space, a length already held (TW-D3), not the turn / dealing (409).
    Correct: ``declared`` (and ``game-ended`` when the set is complete, TW-E1).
    Incorrect: ``declaration-rejected`` (tiles stay; the seat owes one missed turn,
    however many it got wrong, TW-T5; the length stays free, TW-T3). Any number of
    declarations per turn (TW-T3): several correct 3-lines with easy_extra_threes
    while a 3-slot is free (TW-D3).
    """
    cells = _line_cells(state, action["cells"])
    _require_phase(state, "place", "draw", "discard")
    tiles = []
    for r, c in cells:
        if state["grid"][r][c] is None:
            raise RuleViolation("empty-cell", Message("space [%(row)s, %(col)s] is empty "
                                                      "(TW-D1)", row=r, col=c), rule="TW-D1")
        tiles.append(state["grid"][r][c])
    length = len(cells)
    if _held(state, seat, length) >= state["slots"][str(length)]:
        raise RuleViolation("length-already-held", Message(
            "%(seat)s already holds the sequences of %(length)s allowed (TW-D3)", seat=seat,
            length=length), rule="TW-D3")
    cards = [state["manifest"][t][seat] for t in tiles]
    verdict = classify_line(cards)
    base = {"seat": seat, "by": actor, "cells": cells, "tiles": tiles, "cards": cards}
    if not verdict["valid"]:
        return [{"type": "declaration-rejected", **base, "reasons": verdict["reasons"]}]
    event = {"type": "declared", **base, "kind": verdict["kind"], "tier": verdict["tier"],
             "points": verdict["points"], "length": length,
             "assignment": verdict["assignment"]}
    after = fold(state, event)
    if all(_held(after, seat, int(n)) >= held for n, held in after["slots"].items()):
        return [event, _end_event(after, "set-complete", seat)]
    return [event]


def _held(state: dict, seat: str, length: int) -> int:
    return sum(entry["length"] == length for entry in state["bases"][seat])


def _end_event(state: dict, reason: str, completer: str | None) -> dict:
    """TW-E1..TW-E3: the ``game-ended`` event ``{"result": RESULT}`` for ``state``
    (scores already counted).

    TW-E3: with win_condition first_complete (default) the completer of the set wins
    outright, whatever the points; otherwise (a full grid, TW-E2, or win_condition
    score) the higher score wins and equal scores draw (``winners`` []). RESULT's
    detail is ``"two_way": {"completer": seat | None}``.
    """
    scores = dict(state["scores"])
    blue, green = (scores[s] for s in SEATS)
    if completer is not None and state["options"]["win_condition"] == "first_complete":
        winners = [completer]
    else:
        winners = [] if blue == green else [SEATS[0] if blue > green else SEATS[1]]
    result = {"winners": winners, "scores": scores, "reason": reason,
              "two_way": {"completer": completer}}
    return {"type": "game-ended", "seat": None, "result": result}


_APPLIERS = {"place": _apply_place, "draw": _apply_draw, "discard": _apply_discard,
             "declare": _apply_declare}


def apply(state: dict, actor: str, action: dict) -> list[dict]:
    """The events ``action`` by ``actor`` ("blue", "green" or "referee") causes.

    Never modifies ``state``. Raises RuleViolation: 422 for a malformed body
    (invalid-action, invalid-card, invalid-tile, off-grid, not-a-line,
    length-not-allowed, wrong-tile-count), 403 for acting for another seat
    (not-your-seat), referee misuse (referee-cannot-act in server mode) or a seat
    drawing in table mode (referee-reports-draws), 409 for what the state refuses
    (game-over, not-your-turn, wrong-phase, space-occupied, tile-not-in-hand,
    tile-not-in-bag, empty-cell, length-already-held, already-dealt). Each names its
    rule (G-R1: see the rulings above).
    ``expected_version`` in the body is ignored (the store checks it).
    """
    if actor not in (*SEATS, REFEREE):
        raise RuleViolation("unknown-actor", Message("%(actor)s is not blue, green or "
                                                     "referee", actor=repr(actor)), 403,
                            rule="G-M1")
    kind = _check_body(action)
    if state["status"] != "active":
        raise RuleViolation("game-over", Message("the game is over"), rule="TW-E1")
    seat = _acting_seat(state, actor, action, kind)
    if state["phase"] == "deal":
        return _apply_deal(state, seat, action, actor)
    if seat != state["turn"]:
        raise RuleViolation("not-your-turn", Message("it is %(seat)s's turn",
                                                     seat=state["turn"]), rule="TW-T2")
    return _APPLIERS[kind](state, seat, action, actor)


# ----- legal actions -----

def _face_grid(state: dict, colour: str) -> list[list[str | None]]:
    return [[None if t is None else state["manifest"][t][colour] for t in row]
            for row in state["grid"]]


def _declarations(state: dict, seat: str) -> list[dict]:
    """Every correct declaration now open to ``seat`` (scan_grid on its faces, lengths
    with a free slot, TW-D3)."""
    free = {int(n) for n, allowed in state["slots"].items()
            if _held(state, seat, int(n)) < allowed}
    return [{"type": "declare", "cells": line["cells"]}
            for line in scan_grid(_face_grid(state, seat)) if len(line["cells"]) in free]


def _unique_names(state: dict, seat: str, by_referee: bool) -> list:
    """Hand tiles as an actor names them: ids (referee) or distinct faces (seat)."""
    hand = state["hands"][seat]
    if by_referee:
        return list(hand)
    return list(dict.fromkeys(state["manifest"][t][seat] for t in hand))


def _discard_choices(state: dict, seat: str, by_referee: bool) -> list[list]:
    hand = state["hands"][seat]
    names = hand if by_referee else [state["manifest"][t][seat] for t in hand]
    count = _discard_count(state, seat)
    seen: set[tuple] = set()
    out = []
    for combo in combinations(names, count):
        key = tuple(sorted(map(str, combo)))
        if key not in seen:
            seen.add(key)
            out.append(list(combo))
    return out


def _turn_actions(state: dict, seat: str, by_referee: bool) -> list[dict]:
    phase = state["phase"]
    actions: list[dict] = []
    if phase == "place":
        actions = [{"type": "place", "tile": name, "cell": cell}
                   for name in _unique_names(state, seat, by_referee)
                   for cell in _empty_cells(state)]
    elif phase == "draw" and state["options"]["dealing"] == "server":
        actions = [{"type": "draw"}]
    elif phase == "draw" and by_referee:
        actions = [{"type": "draw",
                    "tiles": state["bag"][:_draw_count(state, seat)]}]
    elif phase == "discard":
        actions = [{"type": "discard", "tiles": pair}
                   for pair in _discard_choices(state, seat, by_referee)]
    return actions + _declarations(state, seat)


def legal_actions(state: dict, viewer: str | None) -> list[dict]:
    """Complete action bodies :func:`apply` accepts from ``viewer`` now.

    A seat: on its turn, every placement (distinct own face x empty space), the draw
    (server mode), every discard (distinct by faces), every correct declaration
    (TW-T3); else []. The referee (table mode only): the same for the seat to move,
    naming tiles by id, each with "seat"; a draw (or, while dealing, a deal per seat
    not yet dealt) is given as one valid example: the lowest ids in the bag.
    """
    if state["status"] != "active":
        return []
    table = state["options"]["dealing"] == "table"
    if viewer == REFEREE and table:
        if state["phase"] == "deal":
            count = min(HAND_SIZE, len(state["bag"]))
            return [{"type": "draw", "seat": s, "tiles": state["bag"][:count]}
                    for s in SEATS if s not in state["dealt"]]
        seat = state["turn"]
        return [{**a, "seat": seat} for a in _turn_actions(state, seat, True)]
    if viewer in SEATS and viewer == state["turn"] and state["phase"] != "deal":
        return _turn_actions(state, viewer, False)
    return []


# ----- views (TW-C3) -----

def _both(state: dict, tile: int) -> dict:
    faces = state["manifest"][tile]
    return {"tile": tile, "blue": faces["blue"], "green": faces["green"]}


def _show(state: dict, tile: int, viewer: str | None) -> object:
    """One tile as ``viewer`` sees it: its face in a seat's colour (TW-C3), both faces
    and the id for the referee."""
    if viewer == REFEREE:
        return _both(state, tile)
    return state["manifest"][tile][viewer]


def _base_entry(state: dict, owner: str, entry: dict, viewer: str | None) -> dict:
    shown = {k: entry[k] for k in ("cells", "kind", "tier", "points", "length")}
    if viewer == REFEREE:
        shown.update(tiles=[_both(state, t) for t in entry["tiles"]],
                     cards=entry["cards"], assignment=entry["assignment"])
    elif viewer in SEATS:
        shown["cards"] = [_show(state, t, viewer) for t in entry["tiles"]]
        if viewer == owner:
            shown["assignment"] = entry["assignment"]
    return shown


def _slots_view(state: dict) -> dict:
    return {s: {n: {"allowed": allowed, "held": _held(state, s, int(n))}
                for n, allowed in state["slots"].items()} for s in SEATS}


def view(state: dict, viewer: str | None) -> dict:
    """What ``viewer`` may see (TW-C3).

    Always: game, status, seats, options, turn, turn_number, phase, placements_left,
    discards_due, pending_skips ({seat: 0|1}, TW-D5), slots ({seat: {length:
    {allowed, held}}}), scores, result (RESULT once finished, else None: see
    service/games/__init__.py), bag_count, hand_counts, seed_commitment, seed (None
    until the game is finished, for the referee too).
    A seat ("blue"/"green"): "grid" (7 x 7 of face | None), "hands" {seat: [faces]}
    and "bases" {seat: [{cells, cards, kind, tier, points, length}]}, every face in the
    viewer's colour; the own base adds "assignment". Never a face of the other colour,
    a tile id, the manifest or the bag's content.
    The referee: tiles as {"tile": id, "blue", "green"} in grid, hands, bag and bases.
    The public (None, or any other viewer): no faces: "grid" of booleans (occupied),
    bases without cards.
    """
    if viewer not in (*SEATS, REFEREE):
        viewer = None
    finished = state["status"] == "finished"
    placements = 0
    if state["phase"] == "place":
        placements = min(PLACEMENTS - state["placed"], len(_empty_cells(state)))
    shown = {
        "game": GAME, "viewer": viewer, "status": state["status"],
        "seats": list(state["seats"]), "options": dict(state["options"]),
        "custom_manifest": state["custom_manifest"], "turn": state["turn"],
        "turn_number": state["turn_number"], "phase": state["phase"],
        "placements_left": placements,
        "discards_due": _discard_count(state, state["turn"]) if state["phase"] == "discard" else 0,
        "pending_skips": dict(state["pending_skips"]),
        "slots": _slots_view(state), "scores": dict(state["scores"]),
        "result": json.loads(json.dumps(state["result"])), "bag_count": len(state["bag"]),
        "hand_counts": {s: len(state["hands"][s]) for s in SEATS},
        "seed_commitment": commitment(state["seed"]),
        "seed": state["seed"] if finished else None,
    }
    if viewer is None:
        shown["grid"] = [[t is not None for t in row] for row in state["grid"]]
    else:
        shown["grid"] = [[None if t is None else _show(state, t, viewer) for t in row]
                         for row in state["grid"]]
        shown["hands"] = {s: [_show(state, t, viewer) for t in state["hands"][s]]
                          for s in SEATS}
    shown["bases"] = {s: [_base_entry(state, s, e, viewer) for e in state["bases"][s]]
                      for s in SEATS}
    if viewer == REFEREE:
        shown["bag"] = [_both(state, t) for t in state["bag"]]
        shown["dealt"] = list(state["dealt"])
    return shown


def view_event(state: dict, event: dict, viewer: str | None) -> dict | None:
    """One logged event as ``viewer`` may see it (the filter of :func:`view`).

    ``state`` is the game's current state (for the manifest and the status). The
    referee sees the event whole (but the seed until the game is finished), plus "faces" ({"tile", "blue", "green"} per tile).
    A seat sees tiles as faces of its own colour under "card"/"cards" (a draw shows
    the drawer its faces and the opponent the backs, which are the opponent's own
    colour), never ids; game-created without manifest and (while the game is active)
    seed; a declaration's assignment and a rejection's reasons only to the declarer.
    The public sees no faces: a tile count instead. Never returns None (every event
    is visible in some form).
    """
    if viewer not in (*SEATS, REFEREE):
        viewer = None
    kind = event["type"]
    if viewer == REFEREE:
        shown = json.loads(json.dumps(event))
        if kind == "game-created" and state["status"] != "finished":
            del shown["seed"]  # the draws to come would follow from it
        tiles = event.get("tiles", [event["tile"]] if "tile" in event else None)
        if tiles is not None and kind != "game-created":
            shown["faces"] = [_both(state, t) for t in tiles]
        return shown
    shown = {k: v for k, v in event.items() if k not in ("tile", "tiles", "manifest", "seed",
                                                          "cards", "assignment", "reasons")}
    shown = json.loads(json.dumps(shown))
    if kind == "game-created" and state["status"] == "finished":
        shown["seed"] = event["seed"]
    if "tile" in event:
        if viewer is not None:
            shown["card"] = _show(state, event["tile"], viewer)
    if "tiles" in event and kind != "game-created":
        if viewer is None:
            shown["count"] = len(event["tiles"])
        else:
            shown["cards"] = [_show(state, t, viewer) for t in event["tiles"]]
    if viewer is not None and viewer == event.get("seat"):
        for key in ("assignment", "reasons"):
            if key in event:
                shown[key] = json.loads(json.dumps(event[key]))
    return shown
