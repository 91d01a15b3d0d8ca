"""apply: the moves of a turn and their rules (SQ-T1..T8, SQ-S3, SN-S1, SQ-E1)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.games import RuleViolation
from service.games.sequence.cards import CLASSIC, card_class, parse_card_for
from service.games.sequence.checks import _cell, _named_sequence, _target_refusal
from service.games.sequence.draws import _do_draw, _owes_draw
from service.games.sequence.fold import _emit
from service.games.sequence.lines import _locked_cells, new_sequences
from service.games.sequence.state import Action, Event, SequenceState
from service.games.sequence.turn import (
    _ACTION_KEYS,
    _ACTION_RULES,
    _ALWAYS,
    _end_turn,
    _finish,
    _in_hand,
    _lose_stale_draw,
    _malformed,
    _mode_rule,
    _next_seat,
    _on_turn,
    _plays,
    _refuse,
    _server_draw,
    _start_turn,
    can_exchange,
    is_dead,
)
from service.messages import Message


def _acting_seat(state: SequenceState, actor: str, action: Action, kind: str) -> str | None:
    """The seat an action is for (None for the referee's penalty). 403 when a seat
    acts for another, a seat sends a referee action, or the referee acts for a seat
    in server mode."""
    named = action.get("seat")
    if actor == "referee":
        if kind == "penalty":
            return None
        if state["options"]["dealing"] != "table":
            raise RuleViolation(
                "referee-not-allowed",
                Message(
                    "in server mode the referee only records penalties (SQ-T6); seats make "
                    "their own moves"
                ),
                403,
                rule="G-M1",
            )
        if named is None:
            raise _malformed(
                Message('the referee names the seat it acts for: "seat"'), "seat-required", "G-M2"
            )
        if not isinstance(named, str) or named not in state["seats"]:
            raise _malformed(
                Message("unknown seat %(seat)s", seat=repr(named)), "invalid-seat", "G-M2"
            )
        return named
    if actor not in state["seats"]:
        raise RuleViolation(
            "unknown-actor",
            Message("%(actor)s is not a seat of this game", actor=repr(actor)),
            403,
            rule=_mode_rule(state),
        )
    if kind == "penalty":
        raise RuleViolation(
            "referee-only", Message("only the referee records a penalty (SQ-T6)"), 403, rule="SQ-T6"
        )
    if named is not None and named != actor:
        raise RuleViolation(
            "not-your-seat",
            Message("%(seat)s may not act for %(other)s", seat=actor, other=repr(named)),
            403,
            rule=_mode_rule(state),
        )
    return actor


def _remover_rule(game: str) -> str:
    """One-eyed Jacks (SQ-T3) or MINUS (SN-C2)."""
    return "SQ-T3" if game == CLASSIC else "SN-C2"


def end_rule(state: SequenceState) -> str:
    """G-R1: the rule that ended a finished game (its ``game-over`` refusals cite it): a
    side's sequences SQ-S3 / SN-S1, a round of passes with a lost turn G-T1, otherwise
    SQ-E1 (a stalemate, a round of passes)."""
    result = state["result"]
    reason = result["reason"] if result else None
    if reason == "sequences":
        return "SQ-S3" if state["game"] == CLASSIC else "SN-S1"
    return "G-T1" if reason == "idle" else "SQ-E1"


def _do_play(state: SequenceState, seat: str, action: Action) -> list[Event]:
    """SQ-T1 (face card on a space showing it), SQ-T2/SN-C2 (wild on any open
    space); sequences SQ-S1/S4/S5; win SQ-S3/SN-S1; then the draw."""
    game = state["game"]
    card = parse_card_for(game, action.get("card"))
    cell = _cell(action.get("cell"), "cell")
    named = None if action.get("sequence") is None else _named_sequence(action["sequence"])
    _on_turn(state, seat)
    _in_hand(state, seat, card, "SQ-T1")
    if card_class(game, card) == "remover":
        raise _refuse(
            "card-cannot-place",
            Message("%(card)s removes a chip: use remove-chip (SQ-T3, SN-C2)", card=card),
            _remover_rule(game),
        )
    side = state["sides"][seat]
    refusal = _target_refusal(game, state["board"], state["chips"], set(), side, card, cell)
    if refusal:
        raise _refuse(*refusal)
    events: list[Event] = []
    state = _lose_stale_draw(events, state, seat)
    state = _emit(
        events,
        state,
        {"type": "placed", "seat": seat, "side": side, "card": card, "cell": list(cell)},
    )
    for window in new_sequences(
        state["board"], state["chips"], state["sequences"], cell, side, named
    ):
        state = _emit(
            events,
            state,
            {
                "type": "sequence-completed",
                "seat": seat,
                "side": side,
                "cells": [list(x) for x in window],
            },
        )
    _end_turn(events, state, seat)
    return events


def _do_remove(state: SequenceState, seat: str, action: Action) -> list[Event]:
    """SQ-T3/SN-C2: a remover takes an opponent's chip off (not one in a completed
    sequence, SQ-S2); that ends the turn, so the seat cannot place there now; the
    seat still draws (server mode: drawn now; table mode: it owes the draw)."""
    game = state["game"]
    card = parse_card_for(game, action.get("card"))
    cell = _cell(action.get("cell"), "cell")
    _on_turn(state, seat)
    _in_hand(state, seat, card, _remover_rule(game))
    if card_class(game, card) != "remover":
        raise _refuse(
            "card-cannot-remove",
            Message(
                "%(card)s does not remove chips: only one-eyed Jacks JS/JH (SQ-T3) and MINUS "
                "(SN-C2) do",
                card=card,
            ),
            _remover_rule(game),
        )
    side = state["sides"][seat]
    refusal = _target_refusal(
        game, state["board"], state["chips"], _locked_cells(state["sequences"]), side, card, cell
    )
    if refusal:
        raise _refuse(*refusal)
    events: list[Event] = []
    state = _lose_stale_draw(events, state, seat)
    r, c = cell
    state = _emit(
        events,
        state,
        {
            "type": "chip-removed",
            "seat": seat,
            "side": side,
            "card": card,
            "cell": [r, c],
            "removed": state["chips"][r][c],
        },
    )
    _end_turn(events, state, seat)
    return events


def _do_exchange(state: SequenceState, seat: str, action: Action) -> list[Event]:
    """SQ-T4: once per turn, before playing, discard a dead card and draw another
    (server mode: drawn now; table mode: the replacement is reported with draw)."""
    card = parse_card_for(state["game"], action.get("card"))
    _on_turn(state, seat)
    if state["exchanged"]:
        raise _refuse("already-exchanged", Message("one dead card per turn (SQ-T4)"), "SQ-T4")
    _in_hand(state, seat, card, "SQ-T4")
    if card_class(state["game"], card) != "face":  # Jacks, PLUS, MINUS: on no space
        raise _refuse(
            "not-dead",
            Message(
                "%(card)s shows on no space of the board, so it is never a dead card", card=card
            ),
            "SQ-C2" if state["game"] == CLASSIC else "SN-C2",
        )
    if not is_dead(state, card):
        raise _refuse(
            "not-dead", Message("%(card)s still has an open space (SQ-T4)", card=card), "SQ-T4"
        )
    events: list[Event] = []
    state = _emit(events, state, {"type": "dead-card-exchanged", "seat": seat, "card": card})
    if state["options"]["dealing"] == "server":
        _server_draw(events, state, seat)
    return events


def _do_pass(state: SequenceState, seat: str, action: Action) -> list[Event]:
    """SQ-T8: a seat passes only when it can neither play, remove a chip
    (``must-play``), make the draw it owes (table mode, ``draw-first``) nor exchange
    a dead card (SQ-T4, ``must-exchange``); SQ-E1 (b): a whole round of counted
    passes in a row (``_fold_passed``) ends the game (``no-legal-play``)."""
    _on_turn(state, seat)
    if _plays(state, seat):
        raise _refuse("must-play", Message("%(seat)s has a legal play", seat=seat), "SQ-T8")
    if _owes_draw(state, seat):
        raise _refuse(
            "draw-first",
            Message(
                "%(seat)s still owes the draw for its last "
                "play: report it before passing (SQ-T5, SQ-T8)",
                seat=seat,
            ),
            "SQ-T8",
        )
    if can_exchange(state, seat):
        raise _refuse(
            "must-exchange",
            Message(
                "%(seat)s holds a dead card: exchange it before passing (SQ-T4, SQ-T8)", seat=seat
            ),
            "SQ-T8",
        )
    events: list[Event] = []
    _passed(events, state, seat)
    return events


def _passed(
    events: list[Event], state: SequenceState, seat: str, timed_out: bool = False
) -> SequenceState:
    """Record a pass (SQ-T8, or a lost turn, G-T1), then the next seat's turn, or the end
    after a whole round of counted passes (SQ-E1 b: ``no-legal-play``; ``idle`` when a
    seat of that round timed out, G-T1)."""
    event: Event = {"type": "passed", "seat": seat, **({"timed_out": True} if timed_out else {})}
    state = _emit(events, state, event)
    if state["passes"] >= len(state["seats"]):
        return _finish(events, state, "idle" if state.get("timeouts") else "no-legal-play")
    return _start_turn(events, state, _next_seat(state, seat))


def restarts_idle_clock(events: list[Event]) -> bool:
    """G-T1: "a seat on turn for ``idle_seconds`` loses that turn": the clock runs from
    the turn's start (``turn-started``) or the game's end, not from a dead card's
    exchange or a table-talk discard within the turn (SQ-T4, SQ-T6).

    >>> restarts_idle_clock([{"type": "dead-card-exchanged", "seat": "p1"}])
    False
    """
    return any(event["type"] in ("turn-started", "game-ended") for event in events)


def idle_events(state: SequenceState, since: float, now: float) -> list[Event]:
    """G-T1: the events of a seat that held the turn for ``idle_seconds`` (option; None:
    never): ``turn-timed-out`` ``{"seat", "at": now, "since": since}``, then a pass and
    what it brings (the next turn, or the end of SQ-E1 b). ``since``: epoch seconds of
    the turn's start (the last event that restarted the clock,
    :func:`restarts_idle_clock`); ``now``: of the current request. [] while the game is
    not running, during a table deal, or before the deadline."""
    seconds = state["options"].get("idle_seconds")
    if seconds is None or state["status"] != "active" or state["turn"] is None:
        return []
    if now - since < seconds:
        return []
    seat = state["turn"]
    events: list[Event] = []
    state = _emit(
        events, state, {"type": "turn-timed-out", "seat": seat, "at": now, "since": since}
    )
    _passed(events, state, seat, timed_out=True)
    return events


def _do_penalty(state: SequenceState, seat: str | None, action: Action) -> list[Event]:
    """SQ-T6 (referee): every member of the side that talked discards a card of
    their choice (each then sends penalty-discard)."""
    side = action.get("side")
    if state["phase"] != "play":
        raise _refuse(
            "deal-not-finished", Message("no penalty before the deal is finished"), "SQ-T6"
        )
    if side not in state["teams"]:
        raise _malformed(
            Message("side must be one of %(sides)s", sides=list(state["teams"])),
            "invalid-side",
            "SQ-T6",
        )
    offender = action.get("offender")
    if offender is not None and offender not in state["teams"][side]:
        raise _malformed(
            Message("offender must be a seat of %(side)s", side=side), "invalid-seat", "SQ-T6"
        )
    members = state["teams"][side]
    if len(members) < 2:
        raise _refuse(
            "not-a-team",
            Message("%(side)s is one player: there is no teammate to warn", side=side),
            "SQ-T6",
        )
    if any(m in state["penalty_due"] for m in members):
        raise _refuse(
            "penalty-pending",
            Message("%(side)s still owes the last penalty's discards", side=side),
            "SQ-T6",
        )
    owing = [m for m in members if state["hands"][m]]
    if not owing:
        raise _refuse(
            "nothing-to-discard", Message("no member of %(side)s holds a card", side=side), "SQ-T6"
        )
    return [{"type": "penalty", "seat": None, "side": side, "offender": offender, "seats": owing}]


def _do_penalty_discard(state: SequenceState, seat: str, action: Action) -> list[Event]:
    """SQ-T6: the penalised member discards a card of their choice, no replacement."""
    card = parse_card_for(state["game"], action.get("card"))
    if seat not in state["penalty_due"]:
        raise _refuse(
            "no-penalty-due", Message("%(seat)s owes no penalty discard", seat=seat), "SQ-T6"
        )
    _in_hand(state, seat, card, "SQ-T6")
    return [{"type": "penalty-discarded", "seat": seat, "card": card}]


_HANDLERS: dict[str, Callable[[SequenceState, str, Action], list[Event]]] = {
    "play": _do_play,
    "remove-chip": _do_remove,
    "exchange-dead-card": _do_exchange,
    "pass": _do_pass,
    "penalty": _do_penalty,
    "penalty-discard": _do_penalty_discard,
}


def apply(state: SequenceState, actor: str, action: Any) -> list[Event]:
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
        raise _malformed(Message("an action is a JSON object with a 'type'"), rule="G-R1")
    kind = action.get("type")
    if kind not in _ACTION_KEYS:  # not an action of the game at all (G-R1 ruling)
        raise _malformed(
            Message(
                "unknown action type %(type)s (one of %(types)s)",
                type=repr(kind),
                types=", ".join(sorted(_ACTION_KEYS)),
            ),
            rule="G-R1",
        )
    always = _ALWAYS - {"seat"} if kind == "penalty" else _ALWAYS  # the referee's own act
    extra = sorted(set(action) - always - _ACTION_KEYS[kind])
    if extra:
        raise _malformed(
            Message(
                "unknown field %(field)s in a %(type)s action", field=repr(extra[0]), type=kind
            ),
            rule=_remover_rule(state["game"]) if kind == "remove-chip" else _ACTION_RULES[kind],
        )
    if state["status"] != "active":
        raise _refuse("game-over", Message("the game is over"), end_rule(state))
    seat = _acting_seat(state, actor, action, kind)
    if seat is None:  # the referee's own act: a penalty (SQ-T6)
        return _do_penalty(state, seat, action)
    if kind == "draw":
        return _do_draw(state, seat, action, actor == "referee")
    return _HANDLERS[kind](state, seat, action)
