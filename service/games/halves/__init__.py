"""Halves (RULES.md §4, HV-*): the real-time two-halves matching race. Pure engine.

The package, by the game's concepts: ``cards`` (notation and matching), ``options``
(the catalog and the deck), ``fold`` (events -> state, state queries), ``race`` (the
deal, blocks, pile turns, the end), ``actions`` (``apply`` and its refusals),
``views`` (views and legal actions); ``state`` declares the state's shape.

Plain JSON-able data in and out; no Flask, no SQLAlchemy, no I/O except reading
``seeds/halves-deck.json`` once at import.

Cards (HV-C1). A half is a colour and a symbol, written colour letter then symbol
letter: colours ``R`` red, ``G`` green, ``B`` blue, ``Y`` yellow; symbols ``C``
circle, ``S`` square, ``T`` triangle, ``X`` cross (``RC`` = red circle). A card is two
halves joined by ``-``, first half first: ``RC-GS``. Input is case-insensitive, takes
``-``, ``/`` or nothing between the halves and either letter order inside a half
(``cr/sg``); output is always ``RC-GS``. The default deck (``seeds/halves-deck.json``,
made by ``seeds/make_halves_deck.py``) is the 72 cards whose halves differ in colour
and symbol, each written in its upright orientation (the half of the earlier colour
first). A custom deck (option ``deck``) lists its cards upright.

Orientation (HV-T1 ruling). A card lies with one half first: the "laid" halves.
A code as written IS an orientation, and ``turned: true`` swaps it: ``{"card":
"RC-GS", "turned": true}`` and ``{"card": "GS-RC"}`` lay the same card the same way.
The service never turns a card by itself. Events and views name a card by its
upright code plus ``turned`` (relative to upright) and show the laid ``halves``.

Matching (HV-T1). Each half of the laid card is judged against the same half of the
top card: option ``match: "per_half"`` (default) takes colour OR symbol per half
(one half may match by colour, the other by symbol); ``"whole_card"`` wants both
halves by colour or both by symbol; ``"any_half"`` lets each half match either half
of the top, by colour or by symbol (turning then changes nothing).
``allow_turning: false`` refuses a card laid other than upright.

Seats ``p1``..``pN`` (HV-P1: 2 to 14, at least 5 cards each). Dealing (option
``dealing``):

* ``server`` (G-M1): the deck is shuffled from the seed (``service.games.rng``,
  label ``deal``) and dealt in equal blocks (``dealt``: a seat's cards, top first;
  the first 4 go to its hand, the rest is its face-down pile); the leftovers stay in
  the box and never count. ``first_seat`` (G-O1) turns its pile's top card onto the
  centre (``pile-turned``, HV-P2). Seats ``play`` and ``draw``; the service detects a
  block itself (HV-T4, HV-T5). The referee may only ``retire`` a seat (HV-T6).
* ``table`` (G-M2, HV-M1): physical cards. The referee reports the deal (``deal``
  with the starting card), every draw (``draw`` with ``seat``; the card stays
  unknown), every play in the order it reached the pile (``play`` with ``seat``),
  a block (``blocked``; with ``card`` when a pile turn is due) and retirements. Seats
  report nothing (403): the race is decided at the table. The service checks each
  report against the counts and the public cards (a card already in the centre
  cannot be played again: G-M2) and applies the same rules.

Actions: ``play`` ``{"card", "turned"?, "based_on"}`` (HV-T1, HV-T3: ``based_on``
names the top card aimed at; optional only in a referee's table report),
``draw`` (HV-T2), ``retire`` ``{"seat"}`` (referee, HV-T6), and in table mode
``deal`` ``{"card", "turned"?}`` and ``blocked`` ``{"card"?, "turned"?}``.

Events (the shared vocabulary of :mod:`service.games`, plus two of Halves):
``game-created``, ``dealt`` ``{seat, cards | count}``, ``pile-turned`` ``{seat, card,
turned, rule}`` (a seat's pile top turned face up onto the centre: the start, HV-P2,
or a block's pile turn, HV-T5), ``drawn`` ``{seat, card, top_up}`` (``card`` null in
table mode; ``top_up`` true for HV-T4's automatic draws), ``played`` ``{seat, card,
turned, based_on}``, ``bottom-card-moved`` ``{card}`` (HV-T4), ``seat-retired``
``{seat, cards}``, ``game-ended`` ``{result}``; ``position-set`` ``{position, placed}``
(G-P1, :mod:`.positions`) and ``seat-timed-out`` ``{seat, at, since, rule}`` (G-T1,
:func:`.race.idle_events`).

Blocked (HV-T4, HV-T5), in server mode after every action, in the same transaction
(so in the same ``apply``): while no hand card of an active seat matches the top (in
either orientation when turning is allowed): top up every active hand below 4 from
its own pile; if that does not help, move the bottom card of the centre to the top,
while bottom moves can help; else the next seat in the pile-turn rotation turns its
pile's top card onto the centre; when every pile is empty the game ends.
Ruling: bottom moves "cannot help" once the moves in a row since the hands last
changed (bottom moves and pile turns) reach N-1, N = the cards in the centre: by
then every card of the centre has been the top for the same hands. A play or a draw
changes the hands and starts the count again; a retirement does not (the hands left
are the ones that failed). Ruling: the pile-turn rotation (the seat after
``first_seat`` first, then round) carries on from one block to the next.

Results (HV-E1, HV-T5, HV-T6): ``reason`` ``out`` (a seat has one card left),
``no-legal-play`` (every pile empty and nothing helps: fewest hand cards win, equal
counts share) or ``last-seat``; ``scores`` = cards left per seat (pile + hand; fewer
is better; a retired seat's count when it retired); detail under ``halves``.
"""

from __future__ import annotations

from service.games.halves.actions import REFEREE, apply
from service.games.halves.cards import (
    ANY_HALF,
    COLOURS,
    DEFAULT_DECK,
    MATCHES,
    MAX_DECK,
    PER_HALF,
    SEEDS,
    SYMBOLS,
    WHOLE_CARD,
    CardCodeError,
    card_code,
    check_play,
    halves_of,
    judge,
    laid,
    matches,
    parse_card,
)
from service.games.halves.fold import (
    HAND,
    active_seats,
    can_play,
    cards_left,
    fold,
    someone_can_play,
    top,
)
from service.games.halves.options import CATALOG, GAME, MIN_CARDS, PLAYERS, normalise_options
from service.games.halves.positions import position, start_from_position
from service.games.halves.race import (
    bottom_moves_can_help,
    idle_events,
    new_game,
    next_pile_turner,
    resolve_block,
)
from service.games.halves.state import HalvesState
from service.games.halves.views import legal_actions, view, view_event

REALTIME = True

__all__ = [
    "ANY_HALF",
    "CATALOG",
    "COLOURS",
    "DEFAULT_DECK",
    "GAME",
    "HAND",
    "MATCHES",
    "MAX_DECK",
    "MIN_CARDS",
    "PER_HALF",
    "PLAYERS",
    "REALTIME",
    "REFEREE",
    "SEEDS",
    "SYMBOLS",
    "WHOLE_CARD",
    "CardCodeError",
    "HalvesState",
    "active_seats",
    "apply",
    "bottom_moves_can_help",
    "can_play",
    "card_code",
    "cards_left",
    "check_play",
    "fold",
    "halves_of",
    "idle_events",
    "judge",
    "laid",
    "legal_actions",
    "matches",
    "new_game",
    "next_pile_turner",
    "normalise_options",
    "parse_card",
    "position",
    "resolve_block",
    "someone_can_play",
    "start_from_position",
    "top",
    "view",
    "view_event",
]
