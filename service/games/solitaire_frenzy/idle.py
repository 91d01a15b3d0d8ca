"""Idle seats in Solitaire Frenzy (RULES.md G-T1, SF-E1): a seat that never acts must
not hold a round open for ever."""

from __future__ import annotations

from service.games.solitaire_frenzy.fold import emit
from service.games.solitaire_frenzy.foundations import board_needs
from service.games.solitaire_frenzy.rounds import can_move, settle
from service.games.solitaire_frenzy.state import Event, FrenzyState


def restarts_idle_clock(events: list[Event]) -> bool:
    """G-T1/SF-E1: whether an accepted action's ``events`` start the idle clock again.
    Turning (``turned``) alone is not a productive move (SF-E1): a seat that keeps
    turning through a hand that holds nothing to play does not hold off the deadline
    of a seat that has a move and never makes it. Any other event does.

    >>> restarts_idle_clock([{"type": "turned", "seat": "p2"}])
    False
    """
    return any(event["type"] != "turned" for event in events)


def idle_events(state: FrenzyState, since: float, now: float) -> list[Event]:
    """G-T1: the events the idle deadline triggers at ``now`` (epoch seconds of the
    current request), the idle clock having started at ``since``.

    [] unless option ``idle_seconds`` is set, the game runs in server dealing and
    ``now - since >= idle_seconds`` (``since``: the last event that restarted the
    clock, :func:`restarts_idle_clock`). Then nobody has moved for ``idle_seconds``, so
    every active seat that still has a productive move, or has not turned through its
    hand (SF-E1, judged from what the table has seen), is idle while every other seat
    has had none: one ``seat-timed-out`` ``{seat, at: now, since}`` each, and from then
    on that seat counts as having no move until it acts again; what that derives
    follows in the same list (nobody able to move ends the round ``stuck``, SF-E1, and
    the next round is dealt, or the game ends). Folding the events is exact on replay:
    the times are in them, the engine reads no clock.
    """
    limit = state["options"].get("idle_seconds")
    if (
        limit is None
        or state["status"] != "active"
        or now - since < limit
        or state["options"]["dealing"] != "server"
    ):
        return []
    needs = board_needs(state)
    idle = [seat for seat in state["active"] if can_move(state, seat, needs)]
    events: list[Event] = []
    for seat in idle:
        state = emit(
            events, state, {"type": "seat-timed-out", "seat": seat, "at": now, "since": since}
        )
    if events:
        settle(events, state)
    return events
