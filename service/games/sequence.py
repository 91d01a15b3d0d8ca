"""Sequence (RULES.md §2) and Sequence Numbers (§3): one pure engine for both games.

Pure: plain JSON-able data in and out; no Flask, no SQLAlchemy, no I/O except reading
the reference data in ``seeds/`` once at import. The two games differ only by data:

============  =====================================  ==================================
              ``sequence``                           ``sequence-numbers``
============  =====================================  ==================================
board         ``seeds/sequence-board.json``          ``seeds/sequence-numbers-board.json``
              (publisher's layout, see below)        or a custom board (option)
deck          two 52-card decks (SQ-C2)              ``seeds/sequence-numbers-deck.json``
                                                     or a custom deck (option)
card -> label the card itself (``7H``)               the problem's answer (``6 x 7`` -> 42)
wild          JD, JC (two-eyed Jacks, SQ-T2)         PLUS (SN-C2)
remover       JS, JH (one-eyed Jacks, SQ-T3)         MINUS (SN-C2)
players       2 3 4 6 8 9 10 12 (SQ-P1/P2)           2 3 4 6 (SN-P1)
win           2 sides: 2 sequences; 3: 1 (SQ-S3)     2-3 players: 1; 4-6: 2 (SN-S1)
============  =====================================  ==================================

Board data: ``seeds/sequence-board.json`` is kept byte-for-byte as the publisher's
layout (row 0 at the top, ``"XX"`` free corners, ``"T"`` for ten); the engine
converts it at load time to canonical labels (``"10S"``) and ``"FREE"`` corners, and
states, views and events only ever use the canonical form.

Seats are ``p1..pN`` in seat (= turn) order; seat ``i`` plays for side
``SIDES[i % sides]`` (``green``, ``blue``, ``red``), so team members sit alternately
(SQ-P1). A cell is ``[row, col]`` with row 0 at the top.

Dealing modes (option ``dealing``):

* ``server``: the service shuffles (``service.games.rng``, label ``deck``; the n-th
  reshuffle uses label ``reshuffle-n``), deals, and draws for the seats: a play's
  draw is part of the play action, recorded as its own ``drawn`` event.
* ``table``: the cards are physical. The deck is known only as a multiset; the
  referee (or the seat itself) reports every card dealt or drawn with a ``draw``
  action carrying ``"card"`` (recorded as ``dealt`` ``{"cards": [card]}`` during the
  deal, ``drawn`` after it). Play continues while a seat still owes its draw
  (SQ-T5 lost draw). G-M2: a report is checked against what can still be true, and
  only against what its sender can know: the referee's report against the deck
  (``card-not-in-deck`` when no copy is left there); a seat's own report against
  its own hand and the discard piles (``card-not-in-deck`` only when the seat can
  see every copy of the card there, or the deck is empty and no discard pile holds
  one). A seat's report of a card of which no copy is left in the deck (another
  hand holds them: someone misreported) is therefore accepted, so that nothing the
  seat receives depends on the other hands (G-M1); it is recorded as a conflict
  that only the referee sees (the event's ``conflict``, the view's ``conflicts``),
  and the deck count still goes down by one.

Events (``{"type", "seat", ...}``): ``game-created``, ``dealt`` ``{cards}``,
``turn-started``, ``placed`` ``{side, card, cell}``, ``chip-removed`` ``{side,
card, cell, removed}``, ``sequence-completed`` ``{side, cells}``,
``dead-card-exchanged`` ``{card}``, ``drawn`` ``{card, conflict?}``, ``draw-lost``,
``deck-reshuffled`` ``{number, cards}``, ``passed``, ``penalty`` ``{side, offender,
seats}``, ``penalty-discarded`` ``{card}``, ``game-ended`` ``{result}`` (RESULT of
service/games/__init__.py: ``winners`` every seat of the winning side, ``scores``
each seat's side's sequences, ``reason`` ``sequences`` | ``stalemate`` |
``no-legal-play``, ``"sequence": {"winning_side": side | None, "sequences": {side:
n}}``).

Actions (``apply``): ``play`` ``{"card", "cell", "sequence"?}``, ``remove-chip``
``{"card", "cell"}``, ``exchange-dead-card`` ``{"card"}``, ``draw`` ``{"card"}``
(table mode), ``pass`` (only when the seat can neither play, remove a chip, make an
owed draw nor exchange a dead card), ``penalty`` ``{"side", "offender"?}`` (referee
only) and ``penalty-discard`` ``{"card"}``. In table mode the referee sends any
seat's action with ``"seat"``; ``expected_version`` is ignored.

Rulings (RULES.md is silent; documented here and in the tests):

* Jacks, PLUS and MINUS are never dead cards (SQ-T4 speaks of a card's two spaces).
* Playing onto a free corner is ``space-occupied``: a corner already counts as every
  side's chip.
* One placement may complete several sequences (different lines, or both halves of
  a 9-long line through its middle); each is reported (SQ-S4, SQ-S5).
* SQ-T5 in table mode: a seat that played owes one draw. It loses it (``draw-lost``)
  when the NEXT seat in turn order has played after it and reported its own
  post-play draw ("before the next player has played and drawn"), or when it plays
  again still owing it. A later seat's draw (p3's, while p2 has not drawn) costs p1
  nothing. Lost draws are never made up.
* SQ-T6: the referee names the side; every member holding a card then owes one
  ``penalty-discard`` of a card of their choice onto their discard pile, with no
  replacement. A member who owes one may not play, remove, exchange or pass until
  it is made. A side of one player cannot be penalised (``not-a-team``), and a
  side still owing discards cannot be penalised again (``penalty-pending``).
* SQ-T8/SQ-T4, passing. A seat may ``pass`` (a pass draws nothing) only when it
  has no legal play or removal (``must-play``), does not still owe the draw for its
  last play in table mode while a card is left to draw (``draw-first``: it reports
  that draw first), AND cannot exchange a dead card (``must-exchange``): it holds
  none, has already exchanged one this turn, or no replacement can be drawn (the
  deck and every discard pile are empty). A seat holding a dead card therefore
  exchanges it before passing.
* SQ-E1, termination (every game ends). (b) A whole round of counted passes in a
  row ends the game (``no-legal-play``): a pass counts unless its seat exchanged a
  dead card in that turn, and every play, removal, exchange, draw or penalty
  discard starts the count again. Each seat of the round could then neither play,
  remove, exchange nor make an owed draw, and nothing has changed since: no seat
  can act any more. The end is decided on the public record alone (no hand is
  looked at, G-M1). (c) At a reshuffle (SQ-T7), as a ``stalemate``, when no new
  sequence was completed during the last ``stalemate_decks`` (default 2) whole
  decks AND the board has no open space (every non-corner space holds a chip, so
  only one-eyed Jacks / MINUS can change anything), or, whatever the board, after
  ``4 * stalemate_decks`` consecutive whole decks without a new sequence. The
  sheets' own end (a side reaching its sequences, SQ-S3 / SN-S1) is ``sequences``.
  The case "deck and discard piles empty" never arises: a hand holds at most its
  hand size and the deck more cards than the hands dealt, so the deck or a discard
  pile always holds a card.
* SQ-E1 outcome of (b) and (c), option ``stalemate``: ``draw`` (default): no side
  reached its target, so none wins (``winners`` []), each side's sequences are
  reported; ``most_sequences``: the side with more sequences wins, equal counts
  draw.
* Seeds: the seed is revealed (in the view and the ``game-created`` event) only
  when the game is over; before that everyone, the referee included, sees only
  ``seed_commitment`` (SHA-256). The referee sees every hand but never the deck
  order.
* G-R1, the rule each refusal names: its own where the rules have one (SQ-T1 a
  play, SQ-T3 a removal, SQ-T4 a dead card, SQ-T5 a draw owed, SQ-T6 a penalty,
  SQ-T8 a pass, SQ-S4/SQ-S5 a named sequence); a malformed action or an action out
  of turn SQ-P1 (play in seat order); the deal SQ-P2; cards SQ-C2 / SN-C1; spaces
  SQ-C1; who may act G-M1 (server dealing) or G-M2 (table dealing, reports); the
  game over SQ-E1.
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from service.cards import DECK, CardError, parse_card
from service.data import data_dir
from service.games import RuleViolation
from service.games.arith import ProblemError, answer, canonical_problem
from service.games.rng import commitment, shuffle
from service.messages import Message

# ===== data: boards, decks, cards -> spaces (SQ-C1..C3, SN-C0..C2) =====

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
    tuple(row) for row in _classic_board(_read_seed("sequence-board.json")))
CLASSIC_DECK: tuple[str, ...] = DECK + DECK  # SQ-C2: 104 cards, no jokers
NUMBERS_BOARD: tuple[tuple[int | str, ...], ...] = tuple(
    tuple(row) for row in _read_seed("sequence-numbers-board.json")["grid"])
NUMBERS_DECK: tuple[str, ...] = tuple(_read_seed("sequence-numbers-deck.json")["cards"])

CLASSIC_HAND = {2: 7, 3: 6, 4: 6, 6: 5, 8: 4, 9: 4, 10: 3, 12: 3}  # SQ-P2
NUMBERS_PLAYERS = (2, 3, 4, 6)  # SN-P1 (5 players cannot form 2 or 3 equal teams)
MAX_CUSTOM_DECK = 400
STALEMATE_HARD_LIMIT = 4  # SQ-E1 (c): decks without a sequence, x stalemate_decks
MAX_NUMBER = 10 ** 9


def _board_data(board: Any) -> list[list[Any]]:
    return [list(row) for row in board]


def _option(name: str, type_: str, default: Any, description: str,
            choices: list | None = None) -> dict:
    entry = {"name": name, "type": type_, "default": default, "description": description}
    if choices is not None:
        entry["choices"] = choices
    return entry


_COMMON_OPTIONS = [
    _option("sides", "integer", None, "2 or 3 sides (SQ-P1/SN-P1); null: 2 when the "
            "players split into 2 equal teams, else 3; players <= 3 in Sequence "
            "Numbers play individually", [2, 3]),
    _option("dealing", "string", "server", "server: the service shuffles, deals and "
            "draws; table: physical cards, the referee reports every card dealt or "
            "drawn", ["server", "table"]),
    _option("sequences_to_win", "integer", None, "null: as the rules say (SQ-S3 / SN-S1)",
            [1, 2, 3, 4]),
    _option("first_seat", "string", "p1", "the seat that plays first (p1..pN)"),
    _option("stalemate_decks", "integer", 2, "SQ-E1 ruling: when the deck runs out, the "
            "game ends as a stalemate if this many whole decks in a row brought no new "
            "sequence and the board has no open space (every non-corner space holds a "
            "chip), or in any case after 4 times this many such decks",
            list(range(1, 11))),
    _option("stalemate", "string", "draw", "SQ-E1 ruling: a game ended by a stalemate or "
            "by a round of passes is a draw (no side reached its target); "
            "most_sequences: the side with more sequences wins it (equal counts draw)",
            ["draw", "most_sequences"]),
]

CATALOG: dict[str, dict] = {
    CLASSIC: {
        "title": "Sequence",
        "rules": "RULES.md §2 (SQ-*)",
        "players": sorted(CLASSIC_HAND),
        "options": [
            _option("players", "integer", 2, "player count (SQ-P2)", sorted(CLASSIC_HAND)),
            *_COMMON_OPTIONS,
        ],
    },
    NUMBERS: {
        "title": "Sequence Numbers",
        "rules": "RULES.md §3 (SN-*)",
        "players": list(NUMBERS_PLAYERS),
        "options": [
            _option("players", "integer", 2, "player count (SN-P1)", list(NUMBERS_PLAYERS)),
            *_COMMON_OPTIONS,
            _option("board", "array", None, "custom board: 10 rows of 10, the 4 corners "
                    "FREE (or null), every other space an integer, each number on exactly "
                    "two spaces; null: the shipped default (SN-C0)"),
            _option("deck", "array", None, "custom deck: problem cards 'a + b', 'a - b', "
                    "'a x b', 'a / b' whose answers are on the board, plus PLUS and MINUS "
                    "cards; null: the shipped default (SN-C0)"),
        ],
    },
}


class InputError(RuleViolation):
    """Malformed input (422) naming the offending ``field`` (``chips.green.3``...) and
    the rule it breaks (G-R1)."""

    def __init__(self, code: str, detail: Message, field: str, rule: str):
        super().__init__(code, detail, 422, rule=rule)
        self.field = field


def _invalid_option(detail: Message, rule: str) -> RuleViolation:
    return RuleViolation("invalid-option", detail, 422, rule=rule)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_card_for(game: str, raw: Any, field: str = "card") -> str:
    """Canonical card of ``game`` from input (``th`` -> ``10H``, ``6×7`` -> ``6 x 7``,
    ``plus`` -> ``PLUS``). Raises InputError ``invalid-card`` (422; SQ-C2 / SN-C1)."""
    card_rule = "SQ-C2" if game == CLASSIC else "SN-C1"
    if raw is None:
        raise InputError("invalid-card", Message("the action needs %(field)s",
                                                 field=repr(field)), field, card_rule)
    if game == CLASSIC:
        try:
            card = parse_card(raw)
        except CardError as exc:
            raise InputError("invalid-card", exc.message, field, card_rule) from exc
        if card == "JK":
            raise InputError("invalid-card", Message("Sequence has no jokers (SQ-C2)"), field,
                             card_rule)
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
    if not (isinstance(raw, list) and len(raw) == SIZE
            and all(isinstance(row, list) and len(row) == SIZE for row in raw)):
        raise _invalid_option(Message("board must be 10 rows of 10 spaces (SN-C0)"), "SN-C0")
    grid: list[list[int | str]] = []
    for r, row in enumerate(raw):
        out: list[int | str] = []
        for c, value in enumerate(row):
            if (r, c) in CORNERS:
                if value not in (None, FREE, "XX"):
                    raise _invalid_option(Message(
                        "board[%(row)s][%(col)s] is a corner: it must be FREE (SN-C1: 4 "
                        "free corners)", row=r, col=c), "SN-C0")
                out.append(FREE)
            elif _is_int(value) and abs(value) <= MAX_NUMBER:
                out.append(value)
            else:
                raise _invalid_option(Message("board[%(row)s][%(col)s] must be an integer, "
                                              "not %(value)s", row=r, col=c,
                                              value=repr(value)), "SN-C0")
        grid.append(out)
    counts = Counter(v for row in grid for v in row if v != FREE)
    wrong = sorted(n for n, k in counts.items() if k != 2)
    if wrong:
        raise _invalid_option(Message("every number must be on exactly two spaces (SN-C1); "
                                      "not so for %(numbers)s", numbers=wrong[:5]), "SN-C1")
    return grid


def _validate_deck(raw: Any, board: list[list[Any]]) -> list[str]:
    """A Sequence Numbers deck, canonical; every problem's answer on the board."""
    if not isinstance(raw, list) or not raw or len(raw) > MAX_CUSTOM_DECK:
        raise _invalid_option(Message("deck must be a list of 1 to %(most)s cards",
                                      most=MAX_CUSTOM_DECK), "SN-C0")
    on_board = spaces_index(board)
    cards = []
    for i, value in enumerate(raw):
        try:
            card = parse_card_for(NUMBERS, value, f"deck.{i}")
        except InputError as exc:
            raise _invalid_option(Message("deck[%(index)s]: %(error)s", index=i,
                                          error=exc.detail), "SN-C1") from exc
        if card_class(NUMBERS, card) == "face" and label_of(NUMBERS, card) not in on_board:
            raise _invalid_option(Message("deck[%(index)s] %(card)s: its answer %(answer)s is "
                                          "not on the board (SN-C1)", index=i,
                                          card=repr(card), answer=label_of(NUMBERS, card)),
                                  "SN-C1")
        cards.append(card)
    return cards


# ===== lines: sequences and their detection (SQ-S1, SQ-S2, SQ-S4, SQ-S5) =====


def _in_board(r: int, c: int) -> bool:
    return 0 <= r < SIZE and 0 <= c < SIZE


def _counts_for(board: list[list[Any]], chips: list[list[str | None]], cell: Cell,
                side: str) -> bool:
    """The space holds ``side``'s chip or is a free corner (SQ-S1)."""
    r, c = cell
    return chips[r][c] == side or board[r][c] == FREE


def _run_through(board: list[list[Any]], chips: list[list[str | None]], cell: Cell,
                 side: str, d: tuple[int, int]) -> list[Cell]:
    """The maximal run of ``side``/free spaces through ``cell`` along ``d``, in
    reading order (its top-most, then left-most, end first)."""
    dr, dc = d
    r, c = cell
    while _in_board(r - dr, c - dc) and _counts_for(board, chips, (r - dr, c - dc), side):
        r, c = r - dr, c - dc
    run = []
    while _in_board(r, c) and _counts_for(board, chips, (r, c), side):
        run.append((r, c))
        r, c = r + dr, c + dc
    return run


def _compatible(window: set[Cell], others: Iterable[set[Cell]]) -> bool:
    """SQ-S4: a side's two sequences share at most one space."""
    return all(len(window & other) <= 1 for other in others)


def _is_window(cells: list[Cell]) -> bool:
    """Five distinct spaces, contiguous, in one straight line (sorted, a window's
    cells are in reading order: the step is one of DIRECTIONS)."""
    if len(cells) != LENGTH:
        return False
    cells = sorted(cells)
    dr, dc = cells[1][0] - cells[0][0], cells[1][1] - cells[0][1]
    return (dr, dc) in DIRECTIONS and all(
        cells[i] == (cells[0][0] + i * dr, cells[0][1] + i * dc) for i in range(LENGTH))


def new_sequences(board: list[list[Any]], chips: list[list[str | None]],
                  sequences: list[dict], cell: Cell, side: str,
                  named: list[Cell] | None = None) -> list[list[Cell]]:
    """The sequences a chip of ``side`` just placed on ``cell`` completes.

    ``chips`` already holds the new chip; ``sequences`` are the completed ones
    (``{"side", "cells"}``). Only the four lines through ``cell`` are looked at.
    SQ-S1: 5 in a line of the side's chips or free corners; SQ-S4: at most one
    space shared with each of the side's sequences (so 9 in a row is two
    sequences); SQ-S5: ``named`` (5 cells) is taken first when given, then in each
    line the first window in reading order containing ``cell``. Raises
    RuleViolation ``invalid-sequence`` (409) when ``named`` is not such a window.
    """
    held = [{tuple(x) for x in s["cells"]} for s in sequences if s["side"] == side]
    chosen: list[list[Cell]] = []
    if named is not None:
        window = (_is_window(named) and cell in named
                  and all(_counts_for(board, chips, x, side) for x in named))
        if not (window and _compatible(set(named), held)):
            raise RuleViolation("invalid-sequence", Message(
                "the named sequence is not 5 spaces in a line holding this chip, the side's "
                "chips or free corners, sharing at most one space with another of its "
                "sequences (SQ-S1, SQ-S4, SQ-S5)"), rule="SQ-S4" if window else "SQ-S5")
        chosen.append(sorted(named))
        held.append(set(named))
    for d in DIRECTIONS:
        run = _run_through(board, chips, cell, side, d)
        if len(run) < LENGTH:
            continue
        at = run.index(cell)
        for start in range(max(0, at - LENGTH + 1), min(at, len(run) - LENGTH) + 1):
            window = run[start:start + LENGTH]
            if _compatible(set(window), held):
                chosen.append(window)
                held.append(set(window))
    return chosen


def _lines() -> list[list[Cell]]:
    """Every row, column and diagonal with at least 5 spaces, each in reading order."""
    lines: list[list[Cell]] = []
    for d in DIRECTIONS:
        dr, dc = d
        for r in range(SIZE):
            for c in range(SIZE):
                if _in_board(r - dr, c - dc):
                    continue  # not the start of its line
                line = []
                rr, cc = r, c
                while _in_board(rr, cc):
                    line.append((rr, cc))
                    rr, cc = rr + dr, cc + dc
                if len(line) >= LENGTH:
                    lines.append(line)
    return lines


LINES: tuple[tuple[Cell, ...], ...] = tuple(tuple(line) for line in _lines())


def scan_sequences(board: list[list[Any]], chips: list[list[str | None]],
                   sequences: list[dict], side: str) -> list[list[Cell]]:
    """Every further sequence of ``side`` on the whole board (a full rescan).

    Lines are independent (two lines share at most one space), so per line the
    windows are taken greedily in reading order when compatible (SQ-S4) with the
    given ``sequences`` of the side and those already taken: the most sequences.
    """
    held = [{tuple(x) for x in s["cells"]} for s in sequences if s["side"] == side]
    found: list[list[Cell]] = []
    for line in LINES:
        for start in range(len(line) - LENGTH + 1):
            window = list(line[start:start + LENGTH])
            if any(chips[r][c] != side and board[r][c] != FREE for r, c in window):
                continue
            if all(board[r][c] == FREE for r, c in window):
                continue
            if _compatible(set(window), held):
                found.append(window)
                held.append(set(window))
    return found


def _locked_cells(sequences: list[dict]) -> set[Cell]:
    """SQ-S2/SN-S2: every space of a completed sequence."""
    return {tuple(x) for s in sequences for x in s["cells"]}


# ===== stateless checks (the validation endpoints) =====


def _cell(raw: Any, field: str) -> Cell:
    if not (isinstance(raw, list | tuple) and len(raw) == 2 and all(_is_int(x) for x in raw)):
        raise InputError("invalid-cell", Message("%(field)s: a cell is [row, col], not "
                                                 "%(value)s", field=field, value=repr(raw)),
                         field, "SQ-C1")
    r, c = raw
    if not _in_board(r, c):
        raise InputError("invalid-cell", Message("%(field)s: %(cell)s is off the 10 x 10 "
                                                 "board", field=field, cell=repr(raw)),
                         field, "SQ-C1")
    return (r, c)


def _board_from_input(game: str, board: Any) -> list[list[Any]]:
    if board is None:
        return _board_data(CLASSIC_BOARD if game == CLASSIC else NUMBERS_BOARD)
    if game == CLASSIC:
        raise InputError("invalid-board", Message("Sequence has one board (SQ-C1)"), "board",
                         "SQ-C1")
    try:
        return _validate_board(board)
    except RuleViolation as exc:
        raise InputError("invalid-board", exc.detail, "board", "SN-C0") from exc


def _position(game: str, chips_in: Any, sequences_in: Any, board_in: Any = None
              ) -> tuple[list[list[Any]], list[list[str | None]], list[dict]]:
    """Validate a board position: ``chips`` {side: [cell...]}, ``sequences``
    [{"side", "cells"}] (the completed, locked ones). Raises InputError naming
    the field: unknown side, bad or repeated cell, chip on a corner, a sequence
    that is not 5 in a line of its side (SQ-S1) or shares more than one space
    with another of its side (SQ-S4)."""
    board = _board_from_input(game, board_in)
    chips: list[list[str | None]] = [[None] * SIZE for _ in range(SIZE)]
    if not isinstance(chips_in, dict):
        raise InputError("invalid-chips", Message("chips: {side: [[row, col], ...]}"),
                         "chips", "SQ-C3")
    for side, cells in chips_in.items():
        if side not in SIDES:
            raise InputError("invalid-side", Message(
                "%(field)s: unknown side %(side)s (one of %(sides)s)", field="chips",
                side=repr(side), sides=", ".join(SIDES)), f"chips.{side}", "SQ-C3")
        if not isinstance(cells, list):
            raise InputError("invalid-chips", Message("a side's chips are a list of cells"),
                             f"chips.{side}", "SQ-C3")
        for i, raw in enumerate(cells):
            field = f"chips.{side}.{i}"
            r, c = _cell(raw, field)
            if (r, c) in CORNERS:
                raise InputError("invalid-cell", Message(
                    "%(field)s: %(cell)s is a free corner, it holds no chip (SQ-C1)",
                    field=field, cell=[r, c]), field, "SQ-C1")
            if chips[r][c] is not None:
                raise InputError("invalid-cell", Message(
                    "%(field)s: %(cell)s already holds a %(side)s chip", field=field,
                    cell=[r, c], side=chips[r][c]), field, "SQ-C1")
            chips[r][c] = side
    sequences = _sequences_from_input(sequences_in, board, chips)
    return board, chips, sequences


def _sequences_from_input(raw: Any, board: list[list[Any]],
                          chips: list[list[str | None]]) -> list[dict]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InputError("invalid-sequence", Message("sequences: a list of {side, cells}"),
                         "sequences", "SQ-S1")
    out: list[dict] = []
    for i, item in enumerate(raw):
        field = f"sequences.{i}"
        if not (isinstance(item, dict) and set(item) == {"side", "cells"}):
            raise InputError("invalid-sequence", Message("%(field)s: {side, cells}",
                                                         field=field), field, "SQ-S1")
        side = item["side"]
        if side not in SIDES:
            where = f"{field}.side"
            raise InputError("invalid-side", Message(
                "%(field)s: unknown side %(side)s (one of %(sides)s)", field=where,
                side=repr(side), sides=", ".join(SIDES)), where, "SQ-C3")
        if not isinstance(item["cells"], list):
            where = f"{field}.cells"
            raise InputError("invalid-sequence", Message("%(field)s: 5 cells", field=where),
                             where, "SQ-S1")
        cells = [_cell(x, f"{field}.cells.{j}") for j, x in enumerate(item["cells"])]
        if not _is_window(cells) or len(set(cells)) != LENGTH:
            raise InputError("invalid-sequence", Message(
                "%(field)s: not 5 spaces in a straight line (SQ-S1)", field=field),
                f"{field}.cells", "SQ-S1")
        if not all(_counts_for(board, chips, x, side) for x in cells):
            raise InputError("invalid-sequence", Message(
                "%(field)s: a space does not hold a %(side)s chip or a free corner (SQ-S1)",
                field=field, side=side), f"{field}.cells", "SQ-S1")
        held = [{tuple(x) for x in s["cells"]} for s in out if s["side"] == side]
        if not _compatible(set(cells), held):
            raise InputError("invalid-sequence", Message(
                "%(field)s: shares more than one space with another %(side)s sequence "
                "(SQ-S4)", field=field, side=side), f"{field}.cells", "SQ-S4")
        out.append({"side": side, "cells": [list(x) for x in sorted(cells)]})
    return out


def check_board(game: str, chips: Any, sequences: Any = None, board: Any = None) -> dict:
    """Completed sequences per side of a position (SQ-S1, SQ-S2, SQ-S4; SN-S2).

    In: ``chips`` {side: [[r, c]...]}, ``sequences`` the locked ones (kept as given),
    ``board`` a custom Sequence Numbers board or None. Out: ``{"sequences": {side:
    [{"cells", "locked"}]}, "counts": {side: n}}`` for every side named in ``chips``;
    the locked ones first, then every further one found (a full rescan, greedy in
    reading order per line). Raises InputError (422) naming the field.
    """
    grid, chip_grid, locked = _position(game, chips, sequences, board)
    out: dict[str, list[dict]] = {}
    for side in chips:
        mine = [{"cells": s["cells"], "locked": True} for s in locked if s["side"] == side]
        found = scan_sequences(grid, chip_grid, locked, side)
        out[side] = mine + [{"cells": [list(x) for x in w], "locked": False} for w in found]
    return {"sequences": out, "counts": {side: len(v) for side, v in out.items()}}


def _target_refusal(game: str, board: list[list[Any]], chips: list[list[str | None]],
                    locked: set[Cell], side: str, card: str, cell: Cell
                    ) -> tuple[str, Message, str] | None:
    """Why ``card`` may not be used on ``cell`` by ``side`` (code, detail, rule), or
    None.

    SQ-T1/SN-C1 a face card on an open space showing its card/answer; SQ-T2/SN-C2 a
    wild on any open space; SQ-T3/SN-C2 a remover on an opponent's chip that is not
    in a completed sequence (SQ-S2/SN-S2)."""
    r, c = cell
    kind = card_class(game, card)
    classic = game == CLASSIC
    if kind == "remover":
        owner = chips[r][c]
        remover = "SQ-T3" if classic else "SN-C2"
        if owner is None:
            return "no-chip", Message("%(cell)s holds no chip to remove", cell=[r, c]), remover
        if owner == side:
            return "own-chip", Message("%(cell)s holds your side's chip", cell=[r, c]), remover
        if cell in locked:
            return ("chip-locked", Message("%(cell)s is part of a completed sequence (SQ-S2)",
                                           cell=[r, c]), "SQ-S2" if classic else "SN-S2")
        return None
    if board[r][c] == FREE:
        return ("space-occupied", Message("%(cell)s is a free corner: it already counts as "
                                          "every side's chip", cell=[r, c]), "SQ-C1")
    if chips[r][c] is not None:
        return ("space-occupied", Message("%(cell)s already holds a %(side)s chip",
                                          cell=[r, c], side=chips[r][c]), "SQ-T1")
    if kind == "face" and board[r][c] != label_of(game, card):
        return ("card-not-on-space", Message("%(card)s is not played on %(cell)s, which "
                                             "shows %(label)s", card=card, cell=[r, c],
                                             label=board[r][c]),
                "SQ-T1" if classic else "SN-C1")
    return None


def check_move(game: str, chips: Any, sequences: Any, side: Any, card: Any, cell: Any,
               board: Any = None, sequence: Any = None) -> dict:
    """Would ``side`` playing ``card`` on ``cell`` be legal, and what would it complete?

    Out: ``{"legal", "code", "detail", "rule", "action", "sequences": [{"side",
    "cells"}]}``; ``action`` is ``remove-chip`` for a remover (JS/JH, MINUS), else
    ``play``; ``code`` null when legal, else ``space-occupied``,
    ``card-not-on-space``, ``no-chip``, ``own-chip``, ``chip-locked`` or
    ``invalid-sequence``, and ``rule`` the rule it applies (G-R1; null when legal).
    Raises InputError (422) naming the field for malformed input.
    """
    grid, chip_grid, locked = _position(game, chips, sequences, board)
    if side not in SIDES:
        raise InputError("invalid-side", Message(
            "%(field)s: unknown side %(side)s (one of %(sides)s)", field="side",
            side=repr(side), sides=", ".join(SIDES)), "side", "SQ-C3")
    canonical = parse_card_for(game, card, "card")
    target = _cell(cell, "cell")
    named = None if sequence is None else _named_sequence(sequence)
    if card_class(game, canonical) == "face" and not any(
            label_of(game, canonical) in row for row in grid):  # a face's label is never FREE
        raise InputError("invalid-card", Message(
            "%(card)s: no space of the board shows %(label)s (SN-C1)", card=canonical,
            label=label_of(game, canonical)), "card", "SN-C1")
    action = "remove-chip" if card_class(game, canonical) == "remover" else "play"
    verdict = {"legal": False, "code": None, "detail": None, "rule": None,
               "action": action, "card": canonical, "sequences": []}
    refusal = _target_refusal(game, grid, chip_grid, _locked_cells(locked), side,
                              canonical, target)
    if refusal:
        verdict["code"], verdict["detail"], verdict["rule"] = refusal
        return verdict
    if action == "play":
        chip_grid[target[0]][target[1]] = side
        try:
            made = new_sequences(grid, chip_grid, locked, target, side, named)
        except RuleViolation as exc:
            verdict["code"], verdict["detail"], verdict["rule"] = exc.code, exc.detail, exc.rule
            return verdict
        verdict["sequences"] = [{"side": side, "cells": [list(x) for x in w]} for w in made]
    verdict["legal"] = True
    return verdict


def _named_sequence(raw: Any) -> list[Cell]:
    """The SQ-S5 ``sequence`` of an action: 5 distinct cells (422 otherwise)."""
    if not isinstance(raw, list) or len(raw) != LENGTH:
        raise InputError("invalid-sequence", Message(
            "sequence: 5 cells [[row, col], ...] (SQ-S5)"), "sequence", "SQ-S5")
    cells = [_cell(x, f"sequence.{i}") for i, x in enumerate(raw)]
    if len(set(cells)) != LENGTH:
        raise InputError("invalid-sequence", Message("sequence: 5 different cells (SQ-S5)"),
                         "sequence", "SQ-S5")
    return cells


# ===== setup: options, seats, the created state (SQ-P1, SQ-P2, SN-P1, SN-P2) =====


def _players(game: str, options: dict) -> int:
    players = options.get("players", 2)
    allowed = sorted(CLASSIC_HAND) if game == CLASSIC else list(NUMBERS_PLAYERS)
    if not _is_int(players) or players not in allowed:
        rule = "SQ-P2" if game == CLASSIC else "SN-P1"
        if players == 5:
            raise _invalid_option(Message("players must be one of %(allowed)s (5 players "
                                          "cannot form 2 or 3 equal teams) (%(rule)s)",
                                          allowed=allowed, rule=rule), rule)
        raise _invalid_option(Message("players must be one of %(allowed)s (%(rule)s)",
                                      allowed=allowed, rule=rule), rule)
    return players


def allowed_sides(game: str, players: int) -> list[int]:
    """Side counts a player count may form (SQ-P1; SN-P1: up to 3 play alone)."""
    if game == NUMBERS and players <= 3:
        return [players]
    return [s for s in (2, 3) if players % s == 0 and (game == CLASSIC or players > s)]


def hand_size(game: str, players: int) -> int:
    """Cards dealt to each seat: SQ-P2 table, or SN-P2 (5 for 2-3, 4 for 4-6)."""
    if game == CLASSIC:
        return CLASSIC_HAND[players]
    return 5 if players <= 3 else 4


def sequences_needed(game: str, players: int, sides: int) -> int:
    """SQ-S3: 2 sides need 2, 3 sides need 1; SN-S1: 2-3 players 1, 4-6 players 2."""
    if game == CLASSIC:
        return 2 if sides == 2 else 1
    return 1 if players <= 3 else 2


# G-R1: the rule an option applies (its invalid-option refusal names it)
_OPTION_RULES = {"sides": "SQ-P1", "dealing": "G-M1", "sequences_to_win": "SQ-S3",
                 "first_seat": "G-O1", "stalemate_decks": "SQ-E1", "stalemate": "SQ-E1"}


def _choice(options: dict, name: str, allowed: list, default: Any) -> Any:
    value = options.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or value not in allowed:
        raise _invalid_option(Message("%(name)s must be one of %(allowed)s, not %(value)s",
                                      name=name, allowed=allowed, value=repr(value)),
                              _OPTION_RULES[name])
    return value


def normalise_options(game: str, options: Any) -> dict:
    """Validated options with every default filled in (RuleViolation invalid-option,
    422, otherwise): players, sides, dealing, sequences_to_win, first_seat,
    stalemate_decks, stalemate, and for Sequence Numbers board and deck (null =
    default)."""
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise _invalid_option(Message("options must be an object"), "G-O1")
    known = {o["name"] for o in CATALOG[game]["options"]}
    unknown = sorted(set(options) - known)
    if unknown:
        raise _invalid_option(Message("unknown option %(name)s (known: %(known)s)",
                                      name=repr(unknown[0]), known=sorted(known)), "G-O1")
    players = _players(game, options)
    sides_ok = allowed_sides(game, players)
    sides = _choice(options, "sides", sides_ok, sides_ok[0])
    out = {
        "players": players,
        "sides": sides,
        "dealing": _choice(options, "dealing", ["server", "table"], "server"),
        "sequences_to_win": _choice(options, "sequences_to_win", [1, 2, 3, 4],
                                    sequences_needed(game, players, sides)),
        "first_seat": _choice(options, "first_seat",
                              [f"p{i}" for i in range(1, players + 1)], "p1"),
        "stalemate_decks": _choice(options, "stalemate_decks", list(range(1, 11)), 2),
        "stalemate": _choice(options, "stalemate", ["draw", "most_sequences"], "draw"),
    }
    if game == NUMBERS:
        board = None if options.get("board") is None else _validate_board(options["board"])
        grid = board or _board_data(NUMBERS_BOARD)
        raw_deck = options.get("deck")
        deck = None if raw_deck is None else _validate_deck(raw_deck, grid)
        if deck is None and board is not None:
            _validate_deck(list(NUMBERS_DECK), grid)
        out["board"], out["deck"] = board, deck
        if len(deck or NUMBERS_DECK) <= players * hand_size(game, players):
            raise _invalid_option(Message("the deck must hold more cards than the hands "
                                          "dealt"), "SN-C0")
    return out


def _setup(game: str, options: dict) -> dict:
    """The created event's payload (minus the seed) from normalised options."""
    players, sides = options["players"], options["sides"]
    seats = [f"p{i}" for i in range(1, players + 1)]
    side_of = {seat: SIDES[i % sides] for i, seat in enumerate(seats)}
    teams = {side: [s for s in seats if side_of[s] == side] for side in SIDES[:sides]}
    if game == CLASSIC:
        board, deck = _board_data(CLASSIC_BOARD), list(CLASSIC_DECK)
    else:
        board = options["board"] or _board_data(NUMBERS_BOARD)
        deck = list(options["deck"] or NUMBERS_DECK)
    return {"options": options, "seats": seats, "sides": side_of, "teams": teams,
            "hand_size": hand_size(game, players),
            "sequences_to_win": options["sequences_to_win"], "board": board, "deck": deck}


def new_game(game: str, options: Any, seed: str) -> list[dict]:
    """The setup events of a new game of ``sequence`` or ``sequence-numbers``.

    ``game-created`` (options, seats p1..pN, sides, teams, board, deck, seed) first;
    in server mode then one ``dealt`` per seat (each takes the next hand-size
    cards from the top of the shuffled deck) and ``turn-started`` for the first
    seat; in table mode the referee reports the deal with ``draw`` actions.
    Raises RuleViolation ``invalid-option`` (422).
    """
    if game not in CATALOG:
        raise _invalid_option(Message("unknown game %(game)s", game=repr(game)), "G-O1")
    normal = normalise_options(game, options)
    created = {"type": "game-created", "seat": None, "game": game,
               **_setup(game, normal), "seed": seed}
    events = [created]
    state = fold(None, created)
    if normal["dealing"] == "server":
        for seat in state["seats"]:
            cards = state["deck"][:state["hand_size"]]
            state = _emit(events, state, {"type": "dealt", "seat": seat, "cards": cards})
        _emit(events, state, {"type": "turn-started", "seat": normal["first_seat"]})
    return events


# ===== fold: events -> state =====


def _created_state(event: dict) -> dict:
    options = event["options"]
    seats = list(event["seats"])
    deck = list(event["deck"])
    table = options["dealing"] == "table"
    return {
        "game": event["game"], "options": options, "seed": event["seed"],
        "status": "active", "phase": "deal", "result": None,
        "seats": seats, "sides": dict(event["sides"]),
        "teams": {k: list(v) for k, v in event["teams"].items()},
        "hand_size": event["hand_size"], "sequences_to_win": event["sequences_to_win"],
        "board": [list(row) for row in event["board"]],
        "chips": [[None] * SIZE for _ in range(SIZE)], "sequences": [],
        "deck": sorted(deck) if table else shuffle(deck, event["seed"], "deck"),
        "hands": {s: [] for s in seats}, "discards": {s: [] for s in seats},
        "turn": None, "turn_number": 0, "exchanged": False,
        "plays": 0, "pending_draws": {}, "replacement_due": None,
        "lost_draws": {s: 0 for s in seats}, "penalty_due": [],
        "passes": 0, "reshuffles": 0, "barren": 0, "mark": 0,
        # table mode (G-M2): the game's cards {card: copies}, and the seats' reports
        # of a card no copy of which was left in the deck [{seat, card, deck}]
        "deck_cards": dict(Counter(deck)) if table else None, "conflicts": [],
    }


def _copy(state: dict, *keys: str) -> dict:
    """A shallow copy of ``state`` with fresh containers for ``keys`` (one level,
    or rows for ``chips``): fold never mutates its input."""
    out = dict(state)
    for key in keys:
        value = state[key]
        if key == "chips":
            out[key] = [row[:] for row in value]
        elif isinstance(value, dict):
            out[key] = {k: (v[:] if isinstance(v, list) else v) for k, v in value.items()}
        else:
            out[key] = value[:]
    return out


def _take(state: dict, event: dict, card: str) -> None:
    """Remove a drawn card from the deck: the top (server) or by value (table; a
    conflicting report, G-M2, removes nothing from the multiset and is recorded:
    ``deck_count`` then counts one card fewer until the next reshuffle)."""
    if state["options"]["dealing"] == "server":
        if not state["deck"] or state["deck"][0] != card:
            raise ValueError(f"event draws {card!r} but the deck top is not it")
        del state["deck"][0]
    elif event.get("conflict"):
        state["conflicts"].append({"seat": event["seat"], "card": card,
                                   "deck": state["reshuffles"]})
    else:
        state["deck"].remove(card)


def deck_count(state: dict) -> int:
    """The cards left in the draw deck: the deck multiset less the cards drawn under
    a conflicting report since the last reshuffle (G-M2; 0 conflicts in server mode)."""
    overdrawn = sum(1 for c in state["conflicts"] if c["deck"] == state["reshuffles"])
    return len(state["deck"]) - overdrawn


def _to_discard(state: dict, seat: str, card: str) -> None:
    state["hands"][seat].remove(card)
    state["discards"][seat].append(card)


def _fold_dealt(s: dict, e: dict) -> dict:
    s = _copy(s, "deck", "hands", "conflicts")
    for card in e["cards"]:
        _take(s, e, card)
    s["hands"][e["seat"]].extend(e["cards"])
    return s


def _fold_drawn(s: dict, e: dict) -> dict:
    s = _copy(s, "deck", "hands", "pending_draws", "conflicts")
    seat = e["seat"]
    _take(s, e, e["card"])
    s["hands"][seat].append(e["card"])
    if s["replacement_due"] == seat:
        s["replacement_due"] = None
    else:
        s["pending_draws"].pop(seat, None)
    s["passes"] = 0
    return s


def _fold_turn(s: dict, e: dict) -> dict:
    return {**s, "phase": "play", "turn": e["seat"], "turn_number": s["turn_number"] + 1,
            "exchanged": False}


def _after_play(s: dict, seat: str) -> None:
    s["plays"] += 1
    s["passes"] = 0
    if s["options"]["dealing"] == "table":
        s["pending_draws"][seat] = s["plays"]


def _fold_placed(s: dict, e: dict) -> dict:
    s = _copy(s, "chips", "hands", "discards", "pending_draws")
    r, c = e["cell"]
    s["chips"][r][c] = e["side"]
    _to_discard(s, e["seat"], e["card"])
    _after_play(s, e["seat"])
    return s


def _fold_removed(s: dict, e: dict) -> dict:
    s = _copy(s, "chips", "hands", "discards", "pending_draws")
    r, c = e["cell"]
    s["chips"][r][c] = None
    _to_discard(s, e["seat"], e["card"])
    _after_play(s, e["seat"])
    return s


def _fold_sequence(s: dict, e: dict) -> dict:
    s = _copy(s, "sequences")
    s["sequences"].append({"side": e["side"], "cells": [list(x) for x in e["cells"]]})
    return s


def _fold_exchanged(s: dict, e: dict) -> dict:
    s = _copy(s, "hands", "discards")
    _to_discard(s, e["seat"], e["card"])
    s["exchanged"] = True
    s["passes"] = 0
    if s["options"]["dealing"] == "table":
        s["replacement_due"] = e["seat"]
    return s


def _fold_lost(s: dict, e: dict) -> dict:
    s = _copy(s, "pending_draws", "lost_draws")
    s["pending_draws"].pop(e["seat"], None)
    s["lost_draws"][e["seat"]] += 1
    return s


def _fold_reshuffled(s: dict, e: dict) -> dict:
    s = _copy(s, "discards")
    cards = [card for seat in s["seats"] for card in s["discards"][seat]]
    s["discards"] = {seat: [] for seat in s["seats"]}
    if s["options"]["dealing"] == "server":
        s["deck"] = shuffle(cards, s["seed"], f"reshuffle-{e['number']}")
    else:  # the deck is empty; cards still listed were drawn under conflicts (G-M2)
        s["deck"] = sorted(cards)
    total = len(s["sequences"])
    s["barren"] = s["barren"] + 1 if total == s["mark"] else 0
    s["mark"] = total
    s["reshuffles"] = e["number"]
    return s


def _fold_passed(s: dict, e: dict) -> dict:
    """SQ-E1 (b): a pass counts towards a round of passes unless its seat exchanged a
    dead card in that turn (the exchange started the count again)."""
    return {**s, "passes": 0 if s["exchanged"] else s["passes"] + 1}


def _fold_penalty(s: dict, e: dict) -> dict:
    return {**s, "penalty_due": s["penalty_due"] + list(e["seats"])}


def _fold_penalty_discard(s: dict, e: dict) -> dict:
    s = _copy(s, "hands", "discards", "penalty_due")
    _to_discard(s, e["seat"], e["card"])
    s["penalty_due"].remove(e["seat"])
    s["passes"] = 0
    return s


def _fold_ended(s: dict, e: dict) -> dict:
    return {**s, "status": "finished", "turn": None, "result": json.loads(json.dumps(e["result"]))}


_FOLDS = {
    "dealt": _fold_dealt, "drawn": _fold_drawn, "turn-started": _fold_turn,
    "placed": _fold_placed, "chip-removed": _fold_removed,
    "sequence-completed": _fold_sequence, "dead-card-exchanged": _fold_exchanged,
    "draw-lost": _fold_lost, "deck-reshuffled": _fold_reshuffled, "passed": _fold_passed,
    "penalty": _fold_penalty, "penalty-discarded": _fold_penalty_discard,
    "game-ended": _fold_ended,
}


def fold(state: dict | None, event: dict) -> dict:
    """The state after ``event`` (never mutates ``state``); ``fold(None, created)``
    is the initial state. Raises ValueError for an event that does not fit."""
    if event["type"] == "game-created":
        return _created_state(event)
    if state is None:
        raise ValueError("the first event must be game-created")
    return _FOLDS[event["type"]](state, event)


def _emit(events: list[dict], state: dict, event: dict) -> dict:
    events.append(event)
    return fold(state, event)


# ===== turns: apply and its rules (SQ-T1..T7, SQ-S3, SN-S1, SQ-E1) =====

_ACTION_KEYS = {
    "play": {"card", "cell", "sequence"},
    "remove-chip": {"card", "cell"},
    "exchange-dead-card": {"card"},
    "draw": {"card"},
    "pass": set(),
    "penalty": {"side", "offender"},
    "penalty-discard": {"card"},
}
_ACTION_RULES = {"play": "SQ-T1", "remove-chip": "SQ-T3", "exchange-dead-card": "SQ-T4",
                 "draw": "SQ-T5", "pass": "SQ-T8", "penalty": "SQ-T6",
                 "penalty-discard": "SQ-T6"}
_ALWAYS = {"type", "seat", "expected_version"}


def _malformed(detail: Message, code: str = "invalid-action", rule: str = "SQ-P1"
               ) -> RuleViolation:
    return RuleViolation(code, detail, 422, rule=rule)


def _refuse(code: str, detail: Message, rule: str) -> RuleViolation:
    return RuleViolation(code, detail, 409, rule=rule)


def _mode_rule(state: dict) -> str:
    """G-M1 (server dealing) or G-M2 (table dealing): who may act, and how."""
    return "G-M2" if state["options"]["dealing"] == "table" else "G-M1"


def _acting_seat(state: dict, actor: str, action: dict, kind: str) -> str | None:
    """The seat an action is for (None for the referee's penalty). 403 when a seat
    acts for another, a seat sends a referee action, or the referee acts for a seat
    in server mode."""
    named = action.get("seat")
    if actor == "referee":
        if kind == "penalty":
            return None
        if state["options"]["dealing"] != "table":
            raise RuleViolation("referee-not-allowed", Message(
                "in server mode the referee only records penalties (SQ-T6); seats make "
                "their own moves"), 403, rule="G-M1")
        if named is None:
            raise _malformed(Message('the referee names the seat it acts for: "seat"'),
                             "seat-required", "G-M2")
        if named not in state["seats"]:
            raise _malformed(Message("unknown seat %(seat)s", seat=repr(named)),
                             "invalid-seat", "G-M2")
        return named
    if actor not in state["seats"]:
        raise RuleViolation("unknown-actor", Message("%(actor)s is not a seat of this game",
                                                     actor=repr(actor)), 403,
                            rule=_mode_rule(state))
    if kind == "penalty":
        raise RuleViolation("referee-only", Message("only the referee records a penalty "
                                                    "(SQ-T6)"), 403, rule="SQ-T6")
    if named is not None and named != actor:
        raise RuleViolation("not-your-seat", Message("%(seat)s may not act for %(other)s",
                                                     seat=actor, other=repr(named)), 403,
                            rule=_mode_rule(state))
    return actor


def _on_turn(state: dict, seat: str) -> None:
    """Refuse unless ``seat`` may make a turn move now (409)."""
    if state["phase"] != "play":
        raise _refuse("deal-not-finished", Message("the deal is not finished: report it "
                                                   "with draws"), "SQ-P2")
    if seat in state["penalty_due"]:
        raise _refuse("penalty-due", Message("%(seat)s must first discard a card for the "
                                             "table-talk penalty (SQ-T6)", seat=seat),
                      "SQ-T6")
    if state["turn"] != seat:
        raise _refuse("not-your-turn", Message("it is %(seat)s's turn", seat=state["turn"]),
                      "SQ-P1")
    if state["replacement_due"] == seat:
        raise _refuse("draw-first", Message("report the replacement for the dead card first "
                                            "(SQ-T4)"), "SQ-T4")


def _in_hand(state: dict, seat: str, card: str, rule: str) -> None:
    if card not in state["hands"][seat]:
        raise _refuse("card-not-in-hand", Message("%(card)s is not in %(seat)s's hand",
                                                  card=card, seat=seat), rule)


def _side_count(state: dict, side: str) -> int:
    return sum(1 for s in state["sequences"] if s["side"] == side)


def _counts(state: dict) -> dict[str, int]:
    return {side: _side_count(state, side) for side in state["teams"]}


def _finish(events: list[dict], state: dict, reason: str, side: str | None = None) -> dict:
    """Emit ``game-ended`` ``{"result": RESULT}``. ``side`` reached its sequences
    (SQ-S3/SN-S1); without it (SQ-E1 ruling) the game is a draw, or with option
    ``stalemate`` most_sequences the side with more sequences wins (equal: a draw).
    RESULT: ``winners`` every seat of the winning side, ``scores`` each seat's side's
    sequences, ``reason``, ``"sequence": {"winning_side", "sequences": {side: n}}``."""
    counts = _counts(state)
    if side is None and state["options"]["stalemate"] == "most_sequences":
        best = max(counts.values())
        leaders = [s for s, n in counts.items() if n == best]
        side = leaders[0] if len(leaders) == 1 else None
    result = {"winners": list(state["teams"][side]) if side else [],
              "scores": {seat: counts[state["sides"][seat]] for seat in state["seats"]},
              "reason": reason,
              "sequence": {"winning_side": side, "sequences": counts}}
    return _emit(events, state, {"type": "game-ended", "seat": None, "result": result})


def board_closed(state: dict) -> bool:
    """SQ-E1 (c): no open space: every non-corner space holds a chip, so no face card
    or wild can be placed and only a remover (one-eyed Jack, MINUS) changes anything."""
    return all(chip is not None or label == FREE
               for labels, chips in zip(state["board"], state["chips"])
               for label, chip in zip(labels, chips))


def is_stalemate(state: dict, barren: int) -> bool:
    """SQ-E1 (c), judged at a reshuffle after ``barren`` consecutive whole decks without
    a new sequence: ``stalemate_decks`` of them on a closed board (no open space), or
    ``4 * stalemate_decks`` of them whatever the board (every game ends)."""
    decks = state["options"]["stalemate_decks"]
    return barren >= STALEMATE_HARD_LIMIT * decks or (barren >= decks and board_closed(state))


def _reshuffle(events: list[dict], state: dict) -> dict:
    """SQ-T7: the deck ran out: the discard piles become the new deck, unless SQ-E1 (c)
    ends the game as a stalemate (``is_stalemate``)."""
    total = len(state["sequences"])
    barren = state["barren"] + 1 if total == state["mark"] else 0
    if is_stalemate(state, barren):
        return _finish(events, state, "stalemate")
    count = sum(len(p) for p in state["discards"].values())
    return _emit(events, state, {"type": "deck-reshuffled", "seat": None,
                                 "number": state["reshuffles"] + 1, "cards": count})


def _server_draw(events: list[dict], state: dict, seat: str) -> dict:
    """Server mode: the seat draws the top card (reshuffling first if needed; a
    discard pile always holds a card then: see SQ-E1 in the module docstring)."""
    if not state["deck"]:
        state = _reshuffle(events, state)
        if state["status"] != "active":
            return state
    return _emit(events, state, {"type": "drawn", "seat": seat, "card": state["deck"][0]})


def _next_seat(state: dict, seat: str) -> str:
    seats = state["seats"]
    return seats[(seats.index(seat) + 1) % len(seats)]


def _start_turn(events: list[dict], state: dict, seat: str) -> dict:
    return _emit(events, state, {"type": "turn-started", "seat": seat})


def _lose_stale_draw(events: list[dict], state: dict, seat: str) -> dict:
    """SQ-T5 (table mode): a seat that plays again still owing its last draw loses it."""
    if seat in state["pending_draws"]:
        state = _emit(events, state, {"type": "draw-lost", "seat": seat})
    return state


def _end_turn(events: list[dict], state: dict, seat: str) -> dict:
    """After a play or removal: win check (SQ-S3/SN-S1), the draw (server mode,
    SQ-T1, SQ-T3), the next seat's turn."""
    side = state["sides"][seat]
    if _side_count(state, side) >= state["sequences_to_win"]:
        return _finish(events, state, "sequences", side)
    if state["options"]["dealing"] == "server":
        state = _server_draw(events, state, seat)
        if state["status"] != "active":
            return state
    return _start_turn(events, state, _next_seat(state, seat))


def _do_play(state: dict, seat: str, action: dict) -> list[dict]:
    """SQ-T1 (face card on a space showing it), SQ-T2/SN-C2 (wild on any open
    space); sequences SQ-S1/S4/S5; win SQ-S3/SN-S1; then the draw."""
    game = state["game"]
    card = parse_card_for(game, action.get("card"))
    cell = _cell(action.get("cell"), "cell")
    named = None if action.get("sequence") is None else _named_sequence(action["sequence"])
    _on_turn(state, seat)
    _in_hand(state, seat, card, "SQ-T1")
    if card_class(game, card) == "remover":
        raise _refuse("card-cannot-place", Message("%(card)s removes a chip: use "
                                                   "remove-chip (SQ-T3, SN-C2)", card=card),
                      "SQ-T3")
    side = state["sides"][seat]
    refusal = _target_refusal(game, state["board"], state["chips"], set(), side, card, cell)
    if refusal:
        raise _refuse(*refusal)
    events: list[dict] = []
    state = _lose_stale_draw(events, state, seat)
    state = _emit(events, state, {"type": "placed", "seat": seat, "side": side,
                                  "card": card, "cell": list(cell)})
    for window in new_sequences(state["board"], state["chips"], state["sequences"], cell,
                                side, named):
        state = _emit(events, state, {"type": "sequence-completed", "seat": seat,
                                      "side": side, "cells": [list(x) for x in window]})
    _end_turn(events, state, seat)
    return events


def _do_remove(state: dict, seat: str, action: dict) -> list[dict]:
    """SQ-T3/SN-C2: a remover takes an opponent's chip off (not one in a completed
    sequence, SQ-S2); that ends the turn, so the seat cannot place there now; the
    seat still draws (server mode: drawn now; table mode: it owes the draw)."""
    game = state["game"]
    card = parse_card_for(game, action.get("card"))
    cell = _cell(action.get("cell"), "cell")
    _on_turn(state, seat)
    _in_hand(state, seat, card, "SQ-T3")
    if card_class(game, card) != "remover":
        raise _refuse("card-cannot-remove", Message(
            "%(card)s does not remove chips: only one-eyed Jacks JS/JH (SQ-T3) and MINUS "
            "(SN-C2) do", card=card), "SQ-T3")
    side = state["sides"][seat]
    refusal = _target_refusal(game, state["board"], state["chips"],
                              _locked_cells(state["sequences"]), side, card, cell)
    if refusal:
        raise _refuse(*refusal)
    events: list[dict] = []
    state = _lose_stale_draw(events, state, seat)
    r, c = cell
    state = _emit(events, state, {"type": "chip-removed", "seat": seat, "side": side,
                                  "card": card, "cell": [r, c],
                                  "removed": state["chips"][r][c]})
    _end_turn(events, state, seat)
    return events


def is_dead(state: dict, card: str) -> bool:
    """SQ-T4: a face card whose two spaces are both covered (Jacks/PLUS/MINUS never)."""
    if card_class(state["game"], card) != "face":
        return False
    label = label_of(state["game"], card)
    board, chips = state["board"], state["chips"]
    return all(chips[r][c] is not None for r, c in _cells_of(board, label))


def _cards_to_draw(state: dict) -> bool:
    """A card can still be drawn: the deck, or a discard pile to reshuffle (SQ-T7)."""
    return deck_count(state) > 0 or any(state["discards"].values())


def can_exchange(state: dict, seat: str, this_turn: bool = True) -> bool:
    """SQ-T4: ``seat`` holds a dead card and a replacement can be drawn (the deck or a
    discard pile holds a card); with ``this_turn`` also: it has not exchanged one yet
    this turn (without it: at the start of its next turn)."""
    if this_turn and state["exchanged"]:
        return False
    return _cards_to_draw(state) and any(is_dead(state, card)
                                         for card in state["hands"][seat])


def _cells_of(board: list[list[Any]], label: Any) -> Iterator[Cell]:
    for r, row in enumerate(board):
        for c, value in enumerate(row):
            if value == label:
                yield (r, c)


def _do_exchange(state: dict, seat: str, action: dict) -> list[dict]:
    """SQ-T4: once per turn, before playing, discard a dead card and draw another
    (server mode: drawn now; table mode: the replacement is reported with draw)."""
    card = parse_card_for(state["game"], action.get("card"))
    _on_turn(state, seat)
    if state["exchanged"]:
        raise _refuse("already-exchanged", Message("one dead card per turn (SQ-T4)"),
                      "SQ-T4")
    _in_hand(state, seat, card, "SQ-T4")
    if not is_dead(state, card):
        raise _refuse("not-dead", Message("%(card)s still has an open space (SQ-T4)",
                                          card=card), "SQ-T4")
    events: list[dict] = []
    state = _emit(events, state, {"type": "dead-card-exchanged", "seat": seat, "card": card})
    if state["options"]["dealing"] == "server":
        _server_draw(events, state, seat)
    return events


def _discarded_cards(state: dict) -> list[str]:
    return [card for seat in state["seats"] for card in state["discards"][seat]]


def _draw_candidates(state: dict) -> list[str]:
    """G-M2, what can still be drawn as the referee knows it: the deck, or the discard
    piles when the deck is empty (they are reshuffled into it first, SQ-T7)."""
    return state["deck"] if deck_count(state) else _discarded_cards(state)


def _seat_draw_candidates(state: dict, seat: str) -> list[str]:
    """G-M2, what ``seat`` cannot rule out for its own draw from what it can see (its
    hand and the discard piles, never another hand): with cards in the deck, every
    card of the game of which it does not see every copy; with the deck empty, the
    discard piles (reshuffled first, SQ-T7). Sorted, each card once."""
    if not deck_count(state):
        return sorted(set(_discarded_cards(state)))
    seen = Counter(state["hands"][seat]) + Counter(_discarded_cards(state))
    return sorted(card for card, copies in state["deck_cards"].items() if seen[card] < copies)


def _check_report(state: dict, seat: str, card: str, by_referee: bool) -> dict:
    """G-M2: refuse a table-mode report of ``card`` that its sender can know to be
    impossible; ``{"conflict": True}`` when no copy of it is left in the deck (a
    seat's report only: the referee's is refused then), else ``{}``."""
    if by_referee and card not in _draw_candidates(state):
        raise _refuse("card-not-in-deck", Message("no %(card)s is left in the deck",
                                                  card=card), "G-M2")
    if not by_referee and card not in _seat_draw_candidates(state, seat):
        why = (Message("every %(card)s is in %(seat)s's hand or on a discard pile", card=card,
                       seat=seat) if deck_count(state)
               else Message("the deck is empty and no discard pile holds %(card)s",
                            card=card))
        raise _refuse("card-not-in-deck", why, "G-M2")
    conflict = deck_count(state) > 0 and card not in state["deck"]
    return {"conflict": True} if conflict else {}


def _do_draw(state: dict, seat: str, action: dict, by_referee: bool) -> list[dict]:
    """Table mode: a reported card dealt (deal phase, SQ-P2) or drawn after a play
    (SQ-T1) or as a dead card's replacement (SQ-T4); a post-play draw makes the
    previous seat lose a draw it still owes for an earlier play (SQ-T5). The card is
    checked against what the sender can know (G-M2, ``_check_report``)."""
    if state["options"]["dealing"] != "table":
        raise _refuse("not-table-mode", Message("in server mode the draw is part of the "
                                                "play (SQ-T5: it cannot be missed)"), "G-M1")
    if "card" not in action:
        raise _malformed(Message('a table-mode draw reports the card drawn: "card"'),
                         rule="G-M2")
    card = parse_card_for(state["game"], action["card"])
    events: list[dict] = []
    if state["phase"] == "deal":
        if len(state["hands"][seat]) >= state["hand_size"]:
            raise _refuse("hand-full", Message("%(seat)s has been dealt %(count)s cards",
                                               seat=seat, count=state["hand_size"]), "SQ-P2")
        conflict = _check_report(state, seat, card, by_referee)
        state = _emit(events, state, {"type": "dealt", "seat": seat, "cards": [card],
                                      **conflict})
        if all(len(h) == state["hand_size"] for h in state["hands"].values()):
            _emit(events, state, {"type": "turn-started", "seat":
                                  state["options"]["first_seat"]})
        return events
    replacement = state["replacement_due"] == seat
    if not replacement and seat not in state["pending_draws"]:
        raise _refuse("draw-not-due", Message("%(seat)s has no draw to make", seat=seat),
                      "SQ-T5")
    conflict = _check_report(state, seat, card, by_referee)
    if not deck_count(state):
        state = _reshuffle(events, state)
        if state["status"] != "active":
            return events
    mine = None if replacement else state["pending_draws"][seat]
    state = _emit(events, state, {"type": "drawn", "seat": seat, "card": card, **conflict})
    if mine is not None:
        _lose_previous_draw(events, state, seat, mine)
    return events


def _lose_previous_draw(events: list[dict], state: dict, seat: str, mine: int) -> dict:
    """SQ-T5: ``seat`` has played (play number ``mine``) and drawn, so the seat just
    before it in turn order loses a draw it still owes for an earlier play. A draw
    owed by any other seat is not affected (it is lost later, when that seat's own
    next seat has played and drawn, or when it plays again)."""
    seats = state["seats"]
    previous = seats[seats.index(seat) - 1]
    since = state["pending_draws"].get(previous)
    if since is not None and since < mine:
        state = _emit(events, state, {"type": "draw-lost", "seat": previous})
    return state


def _owes_draw(state: dict, seat: str) -> bool:
    """Table mode: ``seat`` still owes a draw (SQ-T5, SQ-T4) and a card is left for it."""
    owes = seat in state["pending_draws"] or state["replacement_due"] == seat
    return owes and _cards_to_draw(state)


def _do_pass(state: dict, seat: str, action: dict) -> list[dict]:
    """SQ-T8: a seat passes only when it can neither play, remove a chip
    (``must-play``), make the draw it owes (table mode, ``draw-first``) nor exchange
    a dead card (SQ-T4, ``must-exchange``); SQ-E1 (b): a whole round of counted
    passes in a row (``_fold_passed``) ends the game (``no-legal-play``)."""
    _on_turn(state, seat)
    if _plays(state, seat):
        raise _refuse("must-play", Message("%(seat)s has a legal play", seat=seat), "SQ-T8")
    if _owes_draw(state, seat):
        raise _refuse("draw-first", Message("%(seat)s still owes the draw for its last "
                                            "play: report it before passing (SQ-T5, SQ-T8)",
                                            seat=seat), "SQ-T8")
    if can_exchange(state, seat):
        raise _refuse("must-exchange", Message("%(seat)s holds a dead card: exchange it "
                                               "before passing (SQ-T4, SQ-T8)", seat=seat),
                      "SQ-T8")
    events: list[dict] = []
    state = _emit(events, state, {"type": "passed", "seat": seat})
    if state["passes"] >= len(state["seats"]):
        _finish(events, state, "no-legal-play")
    else:
        _start_turn(events, state, _next_seat(state, seat))
    return events


def _do_penalty(state: dict, seat: str | None, action: dict) -> list[dict]:
    """SQ-T6 (referee): every member of the side that talked discards a card of
    their choice (each then sends penalty-discard)."""
    side = action.get("side")
    if state["phase"] != "play":
        raise _refuse("deal-not-finished", Message("no penalty before the deal is finished"),
                      "SQ-T6")
    if side not in state["teams"]:
        raise _malformed(Message("side must be one of %(sides)s", sides=list(state["teams"])),
                         "invalid-side", "SQ-T6")
    offender = action.get("offender")
    if offender is not None and offender not in state["teams"][side]:
        raise _malformed(Message("offender must be a seat of %(side)s", side=side),
                         "invalid-seat", "SQ-T6")
    members = state["teams"][side]
    if len(members) < 2:
        raise _refuse("not-a-team", Message("%(side)s is one player: there is no teammate "
                                            "to warn", side=side), "SQ-T6")
    if any(m in state["penalty_due"] for m in members):
        raise _refuse("penalty-pending", Message("%(side)s still owes the last penalty's "
                                                 "discards", side=side), "SQ-T6")
    owing = [m for m in members if state["hands"][m]]
    if not owing:
        raise _refuse("nothing-to-discard", Message("no member of %(side)s holds a card",
                                                    side=side), "SQ-T6")
    return [{"type": "penalty", "seat": None, "side": side, "offender": offender,
             "seats": owing}]


def _do_penalty_discard(state: dict, seat: str, action: dict) -> list[dict]:
    """SQ-T6: the penalised member discards a card of their choice, no replacement."""
    card = parse_card_for(state["game"], action.get("card"))
    if seat not in state["penalty_due"]:
        raise _refuse("no-penalty-due", Message("%(seat)s owes no penalty discard",
                                                seat=seat), "SQ-T6")
    _in_hand(state, seat, card, "SQ-T6")
    return [{"type": "penalty-discarded", "seat": seat, "card": card}]


_HANDLERS = {
    "play": _do_play, "remove-chip": _do_remove, "exchange-dead-card": _do_exchange,
    "pass": _do_pass, "penalty": _do_penalty, "penalty-discard": _do_penalty_discard,
}


def apply(state: dict, actor: str, action: Any) -> list[dict]:
    """The events ``action`` by ``actor`` (a seat ``p1``.. or ``"referee"``) causes.

    Never mutates ``state``. Raises RuleViolation: 422 for a malformed action
    (``invalid-action``, ``invalid-card``, ``invalid-cell``, ``invalid-sequence``...),
    403 for acting for another seat or referee misuse, 409 for what the state
    refuses (``game-over``, ``not-your-turn``, ``card-not-in-hand``,
    ``space-occupied``, ``card-not-on-space``, ``no-chip``, ``own-chip``,
    ``chip-locked``, ``not-dead``, ``already-exchanged``, ``must-play``,
    ``must-exchange``, ``draw-first``, ``card-not-in-deck``...). Each names its rule
    (G-R1; see the module docstring).
    """
    if not isinstance(action, dict):
        raise _malformed(Message("an action is a JSON object with a 'type'"))
    kind = action.get("type")
    if kind not in _ACTION_KEYS:
        raise _malformed(Message("unknown action type %(type)s (one of %(types)s)",
                                 type=repr(kind), types=", ".join(sorted(_ACTION_KEYS))))
    always = _ALWAYS - {"seat"} if kind == "penalty" else _ALWAYS  # the referee's own act
    extra = sorted(set(action) - always - _ACTION_KEYS[kind])
    if extra:
        raise _malformed(Message("unknown field %(field)s in a %(type)s action",
                                 field=repr(extra[0]), type=kind), rule=_ACTION_RULES[kind])
    if state["status"] != "active":
        raise _refuse("game-over", Message("the game is over"), "SQ-E1")
    seat = _acting_seat(state, actor, action, kind)
    if kind == "draw":
        return _do_draw(state, seat, action, actor == "referee")
    return _HANDLERS[kind](state, seat, action)


# ===== legal actions =====


def _plays(state: dict, seat: str) -> list[dict]:
    """Every play and removal body ``seat`` could make with its hand now."""
    game, board, chips = state["game"], state["board"], state["chips"]
    side = state["sides"][seat]
    index = None
    locked = None
    out: list[dict] = []
    for card in dict.fromkeys(state["hands"][seat]):
        kind = card_class(game, card)
        if kind == "remover":
            if locked is None:
                locked = _locked_cells(state["sequences"])
            out += [{"type": "remove-chip", "card": card, "cell": [r, c]}
                    for r in range(SIZE) for c in range(SIZE)
                    if chips[r][c] not in (None, side) and (r, c) not in locked]
        elif kind == "wild":
            out += [{"type": "play", "card": card, "cell": [r, c]}
                    for r in range(SIZE) for c in range(SIZE)
                    if chips[r][c] is None and board[r][c] != FREE]
        else:
            if index is None:
                index = spaces_index(board)
            out += [{"type": "play", "card": card, "cell": [r, c]}
                    for r, c in index.get(label_of(game, card), ()) if chips[r][c] is None]
    return out


def _draws(state: dict, seat: str, by_referee: bool) -> list[dict]:
    """Table mode: a draw body per card the sender cannot rule out (G-M2): the
    referee's from the deck, a seat's from what it can see (``_seat_draw_candidates``)."""
    cards = (sorted(set(_draw_candidates(state))) if by_referee
             else _seat_draw_candidates(state, seat))
    return [{"type": "draw", "card": card} for card in cards]


def _seat_actions(state: dict, seat: str, by_referee: bool = False) -> list[dict]:
    hand = state["hands"][seat]
    if state["phase"] == "deal":
        return _draws(state, seat, by_referee) if len(hand) < state["hand_size"] else []
    out: list[dict] = []
    if state["replacement_due"] == seat or seat in state["pending_draws"]:
        out += _draws(state, seat, by_referee)
    if seat in state["penalty_due"]:
        return out + [{"type": "penalty-discard", "card": card} for card in dict.fromkeys(hand)]
    if state["turn"] != seat or state["replacement_due"] == seat:
        return out
    if not state["exchanged"]:
        out += [{"type": "exchange-dead-card", "card": card}
                for card in dict.fromkeys(hand) if is_dead(state, card)]
    plays = _plays(state, seat)
    if plays or _owes_draw(state, seat) or can_exchange(state, seat):
        return out + plays
    return out + [{"type": "pass"}]


def _penalties(state: dict) -> list[dict]:
    if state["phase"] != "play":
        return []
    return [{"type": "penalty", "side": side} for side, members in state["teams"].items()
            if len(members) > 1 and not any(m in state["penalty_due"] for m in members)
            and any(state["hands"][m] for m in members)]


def legal_actions(state: dict, viewer: str | None) -> list[dict]:
    """Complete action bodies ``apply(state, viewer, body)`` accepts now.

    A seat: its own moves, its table-mode draws judged on what it can see (G-M2).
    The referee: penalties (SQ-T6), and in table mode every seat's moves with
    ``"seat"`` added. Anyone else, or a finished game: none.
    """
    if state["status"] != "active":
        return []
    if viewer == "referee":
        out = _penalties(state)
        if state["options"]["dealing"] == "table":
            for seat in state["seats"]:
                out += [{**a, "seat": seat} for a in _seat_actions(state, seat, True)]
        return out
    if viewer in state["seats"]:
        return _seat_actions(state, viewer)
    return []


# ===== views: what each viewer may see =====


def view(state: dict, viewer: str | None) -> dict:
    """The state as ``viewer`` may see it (a seat ``p1``.., ``"referee"``, None).

    Everyone: board, chips, sequences, counts, discard piles (face up), turn, hand
    and deck counts, pending draws, penalties, result (RESULT once finished, else
    None). A seat: its own hand only (not a teammate's). The referee: every hand and
    (table mode) ``conflicts``, the seats' reports of a card of which no copy was left
    in the deck (G-M2: ``[{"seat", "card", "deck": reshuffles before it}]``). Nobody:
    the deck order; the seed only once the game is over (before that its SHA-256
    commitment).
    """
    out = {
        "game": state["game"], "status": state["status"], "phase": state["phase"],
        "options": state["options"], "seats": list(state["seats"]),
        "sides": dict(state["sides"]), "teams": {k: list(v) for k, v in state["teams"].items()},
        "hand_size": state["hand_size"], "sequences_to_win": state["sequences_to_win"],
        "board": [list(row) for row in state["board"]],
        "chips": [list(row) for row in state["chips"]],
        "sequences": [{"side": s["side"], "cells": [list(x) for x in s["cells"]]}
                      for s in state["sequences"]],
        "sequence_counts": _counts(state),
        "turn": state["turn"], "turn_number": state["turn_number"],
        "exchanged": state["exchanged"],
        "hand_counts": {s: len(h) for s, h in state["hands"].items()},
        "deck_count": deck_count(state),
        "discards": {s: list(p) for s, p in state["discards"].items()},
        "pending_draws": sorted(state["pending_draws"]),
        "replacement_due": state["replacement_due"],
        "penalty_due": list(state["penalty_due"]),
        "lost_draws": dict(state["lost_draws"]), "reshuffles": state["reshuffles"],
        "result": json.loads(json.dumps(state["result"])),
        "seed_commitment": commitment(state["seed"]),
    }
    if state["status"] == "finished":
        out["seed"] = state["seed"]
    if viewer == "referee":
        out["hands"] = {s: list(h) for s, h in state["hands"].items()}
        out["conflicts"] = [dict(c) for c in state["conflicts"]]
    elif viewer in state["seats"]:
        out["seat"] = viewer
        out["hand"] = list(state["hands"][viewer])
    return out


def view_event(state: dict, event: dict, viewer: str | None) -> dict | None:
    """One log event as ``viewer`` may see it: dealt and drawn cards only to their
    seat and the referee (others see the count), a report's ``conflict`` (G-M2) only
    to the referee; the seed in ``game-created`` only once the game is over
    (``seed_commitment`` before)."""
    kind = event["type"]
    if kind == "game-created":
        out = {k: v for k, v in event.items() if k != "seed"}
        out["seed_commitment"] = commitment(event["seed"])
        if state["status"] == "finished":
            out["seed"] = event["seed"]
        return out
    if kind in ("dealt", "drawn") and viewer not in (event["seat"], "referee"):
        count = len(event["cards"]) if kind == "dealt" else 1
        return {"type": kind, "seat": event["seat"], "count": count}
    if viewer == "referee":
        return json.loads(json.dumps(event))
    return {k: json.loads(json.dumps(v)) for k, v in event.items() if k != "conflict"}
