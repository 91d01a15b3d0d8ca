"""Play complete games against a running Card Referee over HTTP (a load and soak client).

    python -m service.play --url http://127.0.0.1:8000 --game two-way --games 20 \\
        [--seed N] [--wrong-rate 0.1] [--players N] [--options JSON] \\
        [--position FILE] [--idle-seconds N]

Games: two-way, sequence, sequence-numbers, halves, solitaire-frenzy.

Each game is created with ``POST /v1/games`` and played to its end through the public
API only, each seat acting with its own bearer token:

* the seat to move is the ``turn`` of the latest view (the referee's view at the
  start; after an action the acting seat's view, which shows the same ``turn``); when
  that seat has nothing to do, every seat's ``legal-actions`` is asked in turn, then
  the referee's (``"dealing": "table"``: the referee reports the deal and the draws);
* the seat's ``GET /v1/games/{id}/legal-actions`` gives complete bodies; a correct
  declaration (2-Way Cards, TW-D) is always preferred, otherwise one body is picked at
  random;
* 2-Way Cards only: with probability ``--wrong-rate`` per step (when no correct
  declaration is open) the seat instead declares a WRONG line: a straight contiguous
  line of 3..6 occupied spaces of its own view of the grid, whose length slot is
  still free and which is not among the legal declarations. The service records a
  ``declaration-rejected`` event and the seat's next turn is skipped (TW-D5, TW-T5);
* one client plays every seat, so it never waits for a turn and never polls: the
  next seat comes from the reply to the last action, and ``GET /v1/games/{id}`` is
  read once, at the end (the revealed seed);
* every action is POSTed with ``expected_version`` and an ``Idempotency-Key``; a
  dropped connection or a 503 is retried with the same key (so never applied twice);
* table mode: the referee reports every card drawn (what is really in the deck); a
  seat's own ``draw`` bodies, which list every card the seat cannot rule out (G-M2),
  are left aside.
* each game is followed on the referee's event stream (``GET /v1/games/{id}/stream``,
  :class:`EventStream`) instead of asking for it: the game's first view comes from
  the stream's opening ``view`` event, and at the end of the game every acknowledged
  action's events must have been streamed (an error otherwise, after waiting up to
  ``STREAM_TIMEOUT``), so a run also checks the live feed of every game it plays and
  measures its delivery (``--no-follow``: without streams). Streams the server ends
  (after a bounded time) are opened again with ``Last-Event-ID``.

Sequence and Sequence Numbers (``--game sequence|sequence-numbers --players N``,
seats ``p1``..``pN``) are played the same way (random legal bodies; they have no
declarations, so ``--wrong-rate`` does not apply).

Real-time games (the catalog says ``realtime``: Halves, Solitaire Frenzy) are raced
(:class:`Racer`): one thread per seat, each with its own connection and token, loops
``legal-actions`` -> one random body -> POST (no version: the body's ``based_on``
names what it aimed at), all seats at once, until the game is over; each seat
follows its own event stream, and a seat with nothing to do waits for the next event
it may see (a new top card, a foundation card, the end) instead of polling, then asks
its legal actions again; Solitaire Frenzy seats turn their hand only when
nothing else is legal (``FALLBACK_ONLY``), as players do. ``--at-once K`` races K
games side by side. The
summary counts play POSTs, accepted plays, stale refusals (``stale-*``, lost races),
other refusals by code, the events of accepted actions (e.g. Halves' block moves
``bottom-card-moved`` and ``pile-turned``) and winners. In table dealing the seats
report nothing (the referee does), so those games are played as above; Solitaire
Frenzy's referee records each round (``record-round``: one seat at random goes out,
the others' figures at random within the rules), which legal actions do not list.

At the end a summary is printed: games, turns, actions, declarations (valid/wrong),
penalties (missed turns), winners, errors (any unexpected non-2xx, unfinished game,
seed that does not match its commitment, event not streamed), actions/s, and the
events streamed with the slowest delivery (reply to stream). The exit status is 1 when
errors > 0. ``--seed`` makes a run reproducible: the client's choices come from
``random.Random(seed)`` and each game's seed (64 hex digits) is drawn from it too.

``--position FILE`` starts every game from the position in FILE (G-P1: JSON in the
game's notation, e.g. what ``GET /v1/games/{id}/position`` gave the referee; its
``game`` is the game played, ``--game`` may be left out). ``--idle-seconds N`` sets
the games' option ``idle_seconds`` (G-T1: a seat idle that long loses its turn or is
treated as stuck, so a game whose seat stops acting still ends).

The core (:class:`Player`) takes any :class:`Transport`, so tests drive it in process.
"""

from __future__ import annotations

import time  # noqa: F401  (tests patch service.play.time.sleep)

from service.play.cli import _position, main, parse_args
from service.play.constants import (
    FALLBACK_ONLY,
    GAMES,
    GRID_DIRECTIONS,
    MAX_ACTIONS_PER_GAME,
    RECONNECT_SECONDS,
    REFEREE_ONLY,
    RETRIES,
    STREAM_TIMEOUT,
    THROTTLED,
    TWO_WAY,
)
from service.play.player import GameRun, Player, Unexpected
from service.play.racer import Racer, RaceStats, _close, is_realtime, race_choice
from service.play.stats import Stats, free_lengths, grid_lines, winner_of, wrong_declarations
from service.play.stream import EventStream, Message, sse_messages
from service.play.transport import HTTPStream, HTTPTransport, Reply, StreamBody, Transport, _seconds

__all__ = [
    "EventStream",
    "FALLBACK_ONLY",
    "GAMES",
    "GRID_DIRECTIONS",
    "GameRun",
    "HTTPStream",
    "HTTPTransport",
    "MAX_ACTIONS_PER_GAME",
    "Message",
    "Player",
    "RECONNECT_SECONDS",
    "REFEREE_ONLY",
    "RETRIES",
    "RaceStats",
    "Racer",
    "Reply",
    "STREAM_TIMEOUT",
    "Stats",
    "StreamBody",
    "THROTTLED",
    "TWO_WAY",
    "Transport",
    "Unexpected",
    "_close",
    "_position",
    "_seconds",
    "free_lengths",
    "grid_lines",
    "is_realtime",
    "main",
    "parse_args",
    "race_choice",
    "sse_messages",
    "winner_of",
    "wrong_declarations",
]
