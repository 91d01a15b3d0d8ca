"""Idle seats in Solitaire Frenzy (RULES.md G-T1, SF-E1): a seat that never acts must
not hold a round open for ever."""

from __future__ import annotations

from service.games.solitaire_frenzy.fold import emit
from service.games.solitaire_frenzy.foundations import board_needs
from service.games.solitaire_frenzy.rounds import can_move, settle
from service.games.solitaire_frenzy.state import Event, FrenzyState


def idle_events(state: FrenzyState, since: float, now: float) -> list[Event]:
    """G-T1: the events the idle deadline triggers at ``now`` (epoch seconds of the
    current request), the game's last recorded event being at ``since``.

    [] unless option ``idle_seconds`` is set, the game runs in server dealing and
    ``now - since >= idle_seconds``. Then nobody has acted for ``idle_seconds``, so
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
