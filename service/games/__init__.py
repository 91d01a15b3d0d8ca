"""Pure rule engines, one package per game. No Flask, no SQLAlchemy, no I/O.

Every game module exposes the same contract over plain JSON-able data
(dicts, lists, str, int, bool, None), so the store can snapshot state as JSON::

    CATALOG: dict[str, dict]          # game name -> title, seats, options with defaults
    new_game(game: str, options: dict, seed: str) -> list[dict]
        # validates/normalises options (RuleViolation "invalid-option" otherwise);
        # returns the setup events: the first ("game-created") carries the options,
        # seats and seed, and fold(None, it) is the initial state; then deals...
        # ``seed`` is a hex string of >= 256 bits; all randomness derives from it
        # (service.games.rng). Folding every event from None reproduces the state.
    apply(state: dict, actor: str, action: dict) -> list[dict]
        # actor: a seat name or "referee". Returns the events the action causes
        # (never mutates state); raises RuleViolation(code, detail) when refused.
    fold(state: dict | None, event: dict) -> dict
        # the state after one event: events are the record, state is derived.
    view(state: dict, viewer: str | None) -> dict
        # what a seat ("blue"), the referee ("referee") or the public (None) may see.
    view_event(state: dict, event: dict, viewer: str | None) -> dict | None
        # the same filter applied to one event of the log.
    legal_actions(state: dict, viewer: str) -> list[dict]
        # complete action bodies that ``apply`` accepts for that viewer now.

and, for positions (G-P1) and idle seats (G-T1)::

    start_from_position(game: str, options: dict, seed: str, position: dict) -> list[dict]
        # G-P1: the setup events of a game started at ``position`` (the game's own
        # notation, always with "game"): [game-created {..., "from_position": true},
        # position-set {"position": <the position as stated, normalised>, ...}, ...].
        # What the position leaves out (a deck's or pile's order, unplaced cards) is
        # dealt from the seed, deterministically; in server and in table dealing.
        # A position no play can reach: RuleViolation("invalid-position", Message(...),
        # 422, rule=<the rule broken, "G-P1" for conservation>, extra={"field":
        # "<dotted path in the position, e.g. hands.blue[2]>"}). fold(None, ...) over
        # the events gives a state from which play goes on exactly as from a deal.
    position(state: dict, viewer: str | None) -> dict
        # G-P1: the position in the same notation as ``viewer`` may see it (a seat:
        # other seats' hidden cards as counts, G-M1; the referee of a table game, or
        # anyone once the game is over: everything); always with "game" (the
        # discriminator). Posted back through start_from_position, the referee's
        # position of a table game or of a finished game gives a game whose view
        # equals the original's.
    idle_events(state: dict, since: float, now: float) -> list[dict]
        # G-T1: ``since`` = epoch seconds of the game's last recorded event, ``now`` =
        # those of the request. [] unless option ``idle_seconds`` (int >= 1 or None,
        # in every game's CATALOG options) is set, the game runs, now - since >=
        # idle_seconds and G-T1 applies; else the events it triggers, the first
        # carrying {"at": now, "since": since}: ``turn-timed-out`` {seat, at, since}
        # then what a skipped turn or a pass does (turn-based games), or
        # ``seat-timed-out`` {seat, at, since} per idle seat treated as stuck, then
        # what being stuck derives (real-time games). Pure: fold replays it exactly
        # (no clock is read by an engine). The store calls it at the first request
        # after the deadline (service.store.idle) and records what it returns once.

``view(state, viewer)`` always carries ``"from_position": bool`` (G-P1: a game started
from a stated position says so for ever). The store and API use the three functions
when an engine has them (``getattr``): without ``start_from_position`` a position is
refused (422 ``invalid-position``), without ``position`` ``GET .../position`` is 404
``position-unavailable``, without ``idle_events`` no deadline applies.

An event is ``{"type": str, "seat": str | None, ...payload}``.

Real-time games (Halves, Solitaire Frenzy) set ``REALTIME = True`` in their module:
there is no turn order, so an action needs no whole-game version (``If-Match`` and
``expected_version`` are optional; strict when given); a racing action names what it
aimed at (``based_on``) and the engine refuses it as stale. Turn-based engines leave
``REALTIME`` unset and an action without a version is 428.

One vocabulary across games (DESIGN.md):

* The end of a game is ONE event, ``game-ended`` ``{"result": RESULT}``, and the view
  of a finished game has the same ``"result": RESULT`` (``None`` while it runs)::

      RESULT = {"winners": [seat, ...],     # every member of a winning side; [] = draw;
                                            # several = a shared win
                "scores": {seat: number},   # every seat; a team's figure repeated
                "reason": str,              # why it ended: "set-complete", "grid-full",
                                            # "sequences", "stalemate", "no-legal-play",
                                            # "out", "last-seat", "rounds-played"...
                <game_key>: {...}}          # detail of that game under its own key:
                                            # "two_way", "sequence", "halves",
                                            # "solitaire_frenzy"
* The same idea has the same event name in every game, a past-tense phrase:
  ``game-created``, ``dealt``, ``drawn``, ``placed``, ``played``, ``discarded``,
  ``turn-started``, ``turn-skipped``, ``seat-retired``, ``round-ended``,
  ``game-ended``... An action type is the imperative (``play``, ``draw``).

  ===================  ============================  ==================================
  idea                 2-Way Cards                   Sequence, Sequence Numbers
  ===================  ============================  ==================================
  starting hand        ``dealt`` {tiles}             ``dealt`` {cards} (table mode: one
                       (was ``deal``)                per reported card; was
                                                     ``cards-dealt``, and ``card-drawn``
                                                     for a reported deal card)
  a draw               ``drawn`` {tiles}             ``drawn`` {card}
                       (was ``draw``)                (was ``card-drawn``)
  onto the grid/board  ``placed`` {tile, cell}       ``placed`` {side, card, cell}
                       (was ``place``)               (was ``chip-placed``)
  back to bag/pile     ``discarded`` {tiles}         (part of ``placed``,
                       (was ``discard``)             ``chip-removed``...)
  the end              ``game-ended`` {result}       ``game-ended`` {result}
                       (was ``game-ended`` {reason,  (was ``game-finished`` {winner,
                       scores, winner, result,       reason, sequences, seed})
                       completer})
  ===================  ============================  ==================================

  Unchanged, already past tense and game-specific: ``declared``,
  ``declaration-rejected``, ``turn-skipped`` (2-Way Cards); ``turn-started``,
  ``sequence-completed``, ``chip-removed``, ``dead-card-exchanged``, ``draw-lost``,
  ``deck-reshuffled``, ``passed``, ``penalty``, ``penalty-discarded`` (Sequence).
  Halves and Solitaire Frenzy use ``dealt``, ``drawn``, ``played``,
  ``seat-retired``, ``round-ended``, ``game-ended``. Games stored under the old
  names are rewritten by migration 0003.
* The same mistake has the same code in every game: ``game-over``, ``not-your-turn``,
  ``not-in-hand``, ``space-occupied``, ``stale-top-card``, ``referee-only``,
  ``invalid-action`` (422, malformed), ``invalid-option`` (422)...
* Every refusal names the rule it applies: ``RuleViolation(code, detail, status,
  rule="SQ-T3")`` (G-R1); the problem carries ``"rule"`` beside ``"code"``, and the
  members of ``extra=`` (e.g. the current ``top`` of a ``stale-top-card``). Every
  sentence (refusal details, check verdicts) is a ``Message`` (service.messages), so
  that it reaches the player in any of the six languages (service.i18n); every code
  has its entry in seeds/problems.yaml and every rule ID its entry in seeds/rules/.
"""

from __future__ import annotations

import functools
import importlib
from types import ModuleType
from typing import Any


class RuleViolation(Exception):
    """An action or input the rules refuse.

    ``code`` is a stable machine code (``not-your-turn``, ``space-occupied``...),
    ``detail`` a sentence for people worded as a :class:`service.messages.Message`
    (``Message("%(card)s is not in %(seat)s's hand", card=..., seat=...)``: the engine
    stays free of languages, the API translates it into the request's), ``status`` the
    HTTP status the API uses
    (409 for a legal-looking action refused by the current state, 422 for a
    malformed one), ``rule`` the rule ID it applies (``"TW-D3"``; G-R1), ``extra``
    more members for the problem (``{"top": ...}`` beside a ``stale-top-card``), each
    of which must be as public to the actor as the detail is.
    """

    def __init__(
        self,
        code: str,
        detail: str,
        status: int = 409,
        rule: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.status = status
        self.rule = rule
        self.extra = extra or {}


# G-T1: option idle_seconds is a whole number of seconds from 1 to this (a week), or
# null (off); every game refuses more (docs/rulings.md)
IDLE_SECONDS_MAX = 7 * 24 * 3600


ENGINE_MODULES = {
    "two-way": "service.games.two_way",
    "sequence": "service.games.sequence",
    "sequence-numbers": "service.games.sequence",
    "halves": "service.games.halves",
    "solitaire-frenzy": "service.games.solitaire_frenzy",
}


@functools.cache
def engine(game: str) -> ModuleType:
    """The engine module for a game name (``two-way``...). Raises KeyError (and
    ImportError for a game registered before its engine is written). Remembered: an
    action asks three times, and ``importlib.import_module`` takes its import lock."""
    return importlib.import_module(ENGINE_MODULES[game])


def is_realtime(game: str) -> bool:
    """True for a game without turn order (its module sets ``REALTIME = True``)."""
    return bool(getattr(engine(game), "REALTIME", False))
