"""Solitaire Frenzy (RULES.md §5, SF-*; Nertz/Pounce): the shared-foundation race.

Pure: plain JSON-able data in and out; no Flask, no SQLAlchemy, no I/O. The card rules
(what goes on a foundation or a column) are shared with the stateless check endpoint
(:func:`check_play`).

The package, along the game's concepts: ``cards`` (notation, the foundation and column
rules), ``state`` (the state's TypedDicts), ``deal`` (options, SF-P1 deal),
``foundations`` (the shared board, SF-F1/T1), ``hand`` (turning, SF-H1), ``tableau``
(13-pile, columns, waste plays; SF-P2, SF-R1..R4, SF-O1), ``rounds`` (SF-E1 "nobody can
move", scoring, the end), ``referee`` (SF-E3, SF-M1), ``race`` (``apply``), ``fold``,
``positions`` and ``layouts`` (G-P1: reading a stated position, and back), ``idle``
(G-T1), ``views`` (views, legal actions, the stateless check).

Seats are ``p1``..``pN`` (2 to 6, SF-P0), each with its own 52-card deck (no jokers): a
card is named by its code (``"7H"``) and its owner is the seat, so ``"7H"`` of ``p1``
and ``"7H"`` of ``p2`` are different cards. A real-time game (``REALTIME``): no turn
order; a foundation play names the pile top it aimed at (``based_on``, SF-T1).

Layout of a seat (SF-P1), in the state (``layouts[seat]``; ``None`` once retired):
``pile`` (the 13-pile, top LAST, only the top face up), ``columns`` (4 lists, first
laid first, the exposed card LAST), ``hand`` (face down, the next card to turn FIRST),
``waste`` (turned cards, top LAST; only the top is seen, SF-H1), and the SF-E1 record
``pass`` / ``reach`` (below). Foundations (SF-F1): ``[{"id", "suit", "cards": [{"card",
"seat"}, ...]}]``, ids 1, 2, 3... per round in the order the Aces were played.

Dealing (option ``dealing``):

* ``server``: each round the service shuffles every active seat's deck (rng label
  ``round-R-SEAT``) and deals it: 13-pile, 4 columns, 35 in hand. Every card is
  refereed.
* ``table`` (SF-M1): physical cards; nobody reports single cards. The referee records
  each round's result per seat (``record-round``); the service checks what it can and
  keeps the score sheet.

Actions (``apply``; complete bodies in ``legal_actions``). Every seat action names the
``round`` it is meant for: one naming a round that has ended is refused ``round-over``
(SF-E1), so a late play can never land in the next round's deal.

* ``turn`` ``{"round"}``: the next 3 hand cards onto the waste; with an empty hand the
  waste is picked up unshuffled first (SF-H1).
* ``play`` ``{"round", "card", "to": "foundation", "pile": id, "based_on": top}``, or
  ``"based_on": "new"`` (no ``pile``) for an Ace starting a pile (SF-F1, SF-F2, SF-T1);
  ``{"round", "card", "to": "column", "column": 0-3}`` onto that column's exposed card
  (SF-R1). The card is the 13-pile top (SF-P2), the waste top (SF-H1) or a column's
  exposed card (SF-R3; to another column only as a whole one-card column, SF-R2).
  A play into an empty column is a refill; a one-card column onto another is a move.
* ``move`` ``{"round", "from_column", "to_column"}``: a whole column onto another
  column's exposed card (SF-R2); never into an empty column.
* ``refill`` ``{"round", "card", "column"}``: an empty column takes the 13-pile top or
  the waste top (SF-R4).
* ``retire`` ``{"seat"}`` (referee): the seat left the table (SF-E3).
* ``record-round`` ``{"round", "results": {seat: {"board", "pile", "out"}},
  "board_total"?, "foundation_piles"?}`` (referee, table mode, SF-M1).

Events (the record; ``seat`` is the seat concerned or null): ``game-created``,
``round-started`` ``{"round", "seats"}``, ``dealt`` ``{"round", "pile_top",
"pile_size", "columns", "hand_size"}`` (only what is face up; the hidden order comes from
the seed), ``turned`` ``{"top", "count", "recycled"}``, ``played`` ``{"card", "from":
"pile"|"waste"|"column", "from_column"?, "to": "foundation"|"column", "pile"?,
"based_on"?, "column"?, "exposed"?}`` (``exposed``: the card the play turned face up on
the 13-pile or the waste, null when none), ``column-moved`` ``{"from_column",
"to_column", "cards"}``, ``refilled`` ``{"card", "from", "column", "exposed"?}``,
``seat-retired`` ``{"pile"}``, ``round-ended`` ``{"round", "reason": "out" | "stuck" |
"last-seat", "out", "board", "pile", "scores", "totals"}``, ``game-ended``
``{"result"}``. Every event is public: none carries a face-down card.

SF-E1, "nobody can move", decided without revealing anyone's hidden order. After every
action the engine asks, for each active seat, whether it has a productive move:
a play of its 13-pile top, waste top or a column's exposed card, a whole-column move,
a refill, or a card that turning the hand would bring to the top of the waste (turning
alone is never productive). Which cards turning reaches depends on the hand's hidden
order, and the end of a round is public: deciding it from the order would tell every
seat something about another seat's face-down cards (G-M1). So the engine counts as
"reachable" only what the table can know:

* ``reach``: once a seat has turned through its whole cycle (from a fresh deal or a
  pick-up of the waste to the last hand card) without playing from the waste, the tops
  it showed are exactly the cards turning can ever reach (the cycle repeats unchanged
  until a waste card leaves it); ``pass`` collects them while the pass is under way.
  A waste play or refill changes the cycle: both are forgotten until the next pass.
* while ``reach`` is unknown, every card of the seat not face up (13-pile below the top,
  hand, waste below the top) counts as reachable: that set is public (the seat's 52
  cards minus those face up or on the board), its order is not.

Ruling: a seat whose unseen cards could be productive therefore holds the round open
until it has turned through its hand once, as a player at the table goes through their
hand before saying they are stuck; nobody declares anything. The decision is a function
of public information only (tested: states differing only in hidden cards give every
seat byte-identical answers), and every round ends: each productive move raises a
bounded measure (cards on the board, cards out of pile/hand/waste, fewer non-empty
columns), so only turning can go on, and a seat that turns completes its pass.

Rulings (RULES.md is silent; also in the README):

* Every seat action names its ``round`` (required): the next round is dealt in the
  transaction that ends the previous one, and a late action must not land in it.
* A card that is not face up is refused with one detail whatever its hidden place
  (13-pile, hand or waste): the refusal must not tell where it is.
* ``based_on`` that never was that pile's top is ``not-pile-top``; one that was but has
  been covered since is ``stale-top-card`` naming the new top (SF-T1).
* Going out (SF-E1) is playing the last 13-pile card anywhere: to the board, onto a
  column or into an empty column.
* SF-O1 strict: a waste play (to the board, a column or a refill) is refused while the
  seat could play its 13-pile top anywhere or a column's exposed card to the board;
  turning is always allowed.
* SF-E3: a retired seat's board cards stay and count for it, its 13-pile penalty is
  taken as it stood when it left; it has no score in later rounds and cannot win (as
  HV-T6). When fewer than two seats remain, the round ends and the game ends
  (``last-seat``): the remaining seat wins.
* G-O1: ``first_seat`` is accepted like in every game (the seat that calls "¡Vamos!");
  everyone starts at the same time, so it changes nothing in play.
* Views: every seat sees the same thing (its own face-down cards are hidden from it
  too): foundations with owners, every seat's 13-pile top and size, columns, waste top,
  waste and hand sizes, own cards on the board, ``can_move`` (the SF-E1 verdict for
  that seat, from public information). The referee sees the same. The seed is shown once
  the game is over.
"""

from __future__ import annotations

from service.games.solitaire_frenzy.cards import (
    COLUMN,
    COLUMNS,
    FOUNDATION,
    GAME,
    NEW,
    PILE_SIZE,
    PLAYERS,
    REALTIME,
    REFEREE,
    TURN_SIZE,
    Refusal,
    ace,
    builds_on,
    column_refusal,
    foundation_refusal,
    next_card,
)
from service.games.solitaire_frenzy.deal import CATALOG, deal, normalise_options
from service.games.solitaire_frenzy.fold import fold, fold_all
from service.games.solitaire_frenzy.foundations import board_counts
from service.games.solitaire_frenzy.hand import hidden_cards
from service.games.solitaire_frenzy.idle import idle_events, restarts_idle_clock
from service.games.solitaire_frenzy.layouts import position
from service.games.solitaire_frenzy.race import apply
from service.games.solitaire_frenzy.rounds import (
    can_move,
    new_game,
    start_from_position,
)
from service.games.solitaire_frenzy.state import FrenzyState, Layout
from service.games.solitaire_frenzy.views import (
    check_play,
    legal_actions,
    view,
    view_event,
)

__all__ = [
    "CATALOG",
    "COLUMN",
    "COLUMNS",
    "FOUNDATION",
    "GAME",
    "NEW",
    "PILE_SIZE",
    "PLAYERS",
    "REALTIME",
    "REFEREE",
    "TURN_SIZE",
    "FrenzyState",
    "Layout",
    "Refusal",
    "ace",
    "apply",
    "board_counts",
    "builds_on",
    "can_move",
    "check_play",
    "column_refusal",
    "deal",
    "fold",
    "fold_all",
    "foundation_refusal",
    "hidden_cards",
    "idle_events",
    "restarts_idle_clock",
    "legal_actions",
    "new_game",
    "next_card",
    "normalise_options",
    "position",
    "start_from_position",
    "view",
    "view_event",
]
