"""2-Way Cards (RULES.md §1), the engine package: the contract of service/games/__init__.py.

Modules, along the game's concepts: ``lines`` (sequence classification, grid scan:
TW-S, TW-D1), ``tiles`` (constants, manifest: TW-C2), ``options`` (catalog, option
checks), ``state`` (the state's TypedDicts, the events), ``flow`` (fold, turn
helpers: TW-T, TW-E), ``deal`` (new_game, server draws: TW-T1), ``requests`` (body
checks), ``turns`` (apply: TW-T, TW-D), ``views`` (view, view_event, legal_actions:
TW-C3). Pure: plain data in, plain data out; no Flask, no SQLAlchemy, no I/O.
"""
# Rulings of this engine (RULES.md is silent; each is repeated at its code):
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

from __future__ import annotations

from service.games.two_way.deal import new_game
from service.games.two_way.flow import fold
from service.games.two_way.lines import (
    DIRECTIONS,
    GRID_SIZE,
    HIGH_POINTS,
    LINE_LENGTHS,
    LOW_POINTS,
    classify_line,
    explain_reasons,
    kind_rule,
    scan_grid,
)
from service.games.two_way.notation import pair_name, parse_pair, position
from service.games.two_way.options import (
    CATALOG,
    OPTIONS,
    SLOTS,
    normalise_options,
    validate_manifest,
)
from service.games.two_way.positions import start_from_position
from service.games.two_way.state import TwoWayState
from service.games.two_way.tiles import (
    GAME,
    HAND_SIZE,
    REFEREE,
    SEATS,
    TILE_COUNT,
    default_manifest,
    game_manifest,
    manifest_of,
    manifest_text,
    pair_faces,
)
from service.games.two_way.turns import apply, idle_events, restarts_idle_clock
from service.games.two_way.views import legal_actions, view, view_event

__all__ = [
    "CATALOG",
    "DIRECTIONS",
    "GAME",
    "GRID_SIZE",
    "HAND_SIZE",
    "HIGH_POINTS",
    "LINE_LENGTHS",
    "LOW_POINTS",
    "OPTIONS",
    "REFEREE",
    "SEATS",
    "SLOTS",
    "TILE_COUNT",
    "TwoWayState",
    "apply",
    "classify_line",
    "kind_rule",
    "default_manifest",
    "explain_reasons",
    "fold",
    "game_manifest",
    "idle_events",
    "restarts_idle_clock",
    "legal_actions",
    "manifest_of",
    "manifest_text",
    "new_game",
    "normalise_options",
    "pair_faces",
    "pair_name",
    "parse_pair",
    "position",
    "scan_grid",
    "start_from_position",
    "validate_manifest",
    "view",
    "view_event",
]
