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
``deck-reshuffled`` ``{number, cards}``, ``passed`` ``{timed_out?}``, ``penalty``
``{side, offender, seats}``, ``penalty-discarded`` ``{card}``, ``turn-timed-out``
``{at, since}`` (G-T1, ``idle_events``), ``position-set`` ``{position, phase, hands,
deck}`` (G-P1, ``start_from_position``; ``game-created`` then carries
``from_position: true``), ``game-ended`` ``{result}`` (RESULT of
service/games/__init__.py: ``winners`` every seat of the winning side, ``scores``
each seat's side's sequences, ``reason`` ``sequences`` | ``stalemate`` |
``no-legal-play`` | ``idle``, ``"sequence": {"winning_side": side | None,
"sequences": {side: n}}``).

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
  decks AND the board is closed (RULES.md: no space can take a new chip of a side
  that could still build a sequence there, ``board_closed``; removals are not
  foreseen), or, while it is open, after ``4 * stalemate_decks`` consecutive whole
  decks without a new sequence. The
  sheets' own end (a side reaching its sequences, SQ-S3 / SN-S1) is ``sequences``.
  The case "deck and discard piles empty" never arises: a hand holds at most its
  hand size and the deck more cards than the hands dealt, so the deck or a discard
  pile always holds a card.
* G-T1, idle seats (option ``idle_seconds``, default 300 in server dealing, null in
  table dealing): a seat on turn that long loses the turn (``turn-timed-out``, then a
  ``passed`` with ``timed_out``). The lost turn is a pass and counts towards SQ-E1
  (b)'s round of passes, so a game every seat has left ends; when a seat of that
  round timed out its reason is ``idle`` (an end like (b): ``stalemate`` decides the
  winner).
* SQ-E1 outcome of (b) and (c), option ``stalemate``: ``draw`` (default): no side
  reached its target, so none wins (``winners`` []), each side's sequences are
  reported; ``most_sequences``: the side with more sequences wins, equal counts
  draw.
* Seeds: the seed is revealed (in the view and the ``game-created`` event) only
  when the game is over; before that everyone, the referee included, sees only
  ``seed_commitment`` (SHA-256). The referee sees every hand but never the deck
  order.
* G-R1, the rule each refusal names is the rule it applies, Sequence Numbers' own
  where it has one (SN-*): the table ``seeds/refusals/sequence.yaml`` lists every
  code with its rules and when; ``game-over`` cites the rule that ended that game
  (SQ-S3 / SN-S1, SQ-E1, G-T1), an action type the game does not have G-R1, a dead
  card exchange of a Jack (PLUS, MINUS) SQ-C2 (SN-C2): it shows on no space.
"""

from __future__ import annotations

from service.games.sequence.cards import (
    CLASSIC,
    CLASSIC_BOARD,
    CLASSIC_DECK,
    CLASSIC_HAND,
    CORNERS,
    DIRECTIONS,
    FREE,
    LENGTH,
    MINUS,
    NUMBERS,
    NUMBERS_BOARD,
    NUMBERS_DECK,
    NUMBERS_PLAYERS,
    ONE_EYED,
    PLUS,
    SIDES,
    SIZE,
    STALEMATE_HARD_LIMIT,
    TWO_EYED,
    Cell,
    InputError,
    card_class,
    label_of,
    parse_card_for,
    spaces_index,
)
from service.games.sequence.checks import check_board, check_move
from service.games.sequence.fold import deck_count, fold
from service.games.sequence.lines import LINES, new_sequences, scan_sequences
from service.games.sequence.moves import apply, idle_events, restarts_idle_clock
from service.games.sequence.options import (
    CATALOG,
    allowed_sides,
    hand_size,
    new_game,
    normalise_options,
    sequences_needed,
)
from service.games.sequence.positions import position, start_from_position
from service.games.sequence.state import SequenceState
from service.games.sequence.turn import board_closed, can_exchange, is_dead, is_stalemate
from service.games.sequence.views import legal_actions, view, view_event

__all__ = [
    "CATALOG",
    "CLASSIC",
    "CLASSIC_BOARD",
    "CLASSIC_DECK",
    "CLASSIC_HAND",
    "CORNERS",
    "DIRECTIONS",
    "FREE",
    "LENGTH",
    "LINES",
    "MINUS",
    "NUMBERS",
    "NUMBERS_BOARD",
    "NUMBERS_DECK",
    "NUMBERS_PLAYERS",
    "ONE_EYED",
    "PLUS",
    "SIDES",
    "SIZE",
    "STALEMATE_HARD_LIMIT",
    "TWO_EYED",
    "Cell",
    "InputError",
    "SequenceState",
    "allowed_sides",
    "apply",
    "board_closed",
    "can_exchange",
    "card_class",
    "check_board",
    "check_move",
    "deck_count",
    "fold",
    "hand_size",
    "idle_events",
    "restarts_idle_clock",
    "is_dead",
    "is_stalemate",
    "label_of",
    "legal_actions",
    "new_game",
    "new_sequences",
    "normalise_options",
    "parse_card_for",
    "position",
    "scan_sequences",
    "sequences_needed",
    "spaces_index",
    "start_from_position",
    "view",
    "view_event",
]
