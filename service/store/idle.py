"""Idle seats at the store (G-T1): the deadline checked at the next request.

The service has no timer. A game whose options set ``idle_seconds`` has a deadline:
``since + idle_seconds``, ``since`` being the epoch seconds of its last recorded event
(``games.updated_at``). The first request after it that reads or writes the game (the
view, events, legal actions, position, picture, an action before it is applied, a
stream's heartbeat) asks the engine's ``idle_events(state, since=since, now=now)``
(``now``: the request's epoch seconds, to the millisecond). Events it returns are
appended like an action's (version + 1, the feed notified) under the game's row lock,
after asking again on the locked row, so two requests never write them twice; the
events carry ``at`` and ``since``, so a replay of the log folds the same state
without reading any clock.

Only :func:`due` runs on every read: in process, no statement (the engine's check
of a game whose deadline has passed is cheap, and nothing is written unless it
returns events).
"""

from __future__ import annotations

from datetime import datetime, timezone
from types import ModuleType
from typing import Any

# GameStore.now()'s precision: the store's clock is read to the millisecond, and a
# deadline (``since + idle_seconds``) may fall between two of its readings
CLOCK_DIGITS = 3
CLOCK_STEP = 10.0**-CLOCK_DIGITS


def epoch(moment: datetime) -> float:
    """A timestamp column's value as epoch seconds (SQLite returns naive datetimes of
    timezone-aware columns: read them as UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def moment(seconds: float) -> datetime:
    """Epoch seconds as an aware UTC datetime (what ``games.updated_at`` stores)."""
    return datetime.fromtimestamp(seconds, timezone.utc)


def idle_seconds(state: dict[str, Any]) -> int | float | None:
    """The game's option ``idle_seconds`` (None: G-T1 off)."""
    value = (state.get("options") or {}).get("idle_seconds")
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def passed(options: dict[str, Any] | None, status: str, since: float, now: float) -> bool:
    """The cheap half of :func:`due`, from the game row's columns alone (no snapshot
    decoded): option ``idle_seconds`` set, the game active, the deadline passed."""
    limit = idle_seconds({"options": options or {}})
    return limit is not None and status == "active" and now - since >= limit


def due(
    module: ModuleType, state: dict[str, Any], since: float, now: float
) -> list[dict[str, Any]]:
    """The events G-T1 triggers at ``now`` for a game in ``state`` whose last event was
    recorded at ``since`` (epoch seconds): [] unless the engine has ``idle_events``,
    the game runs, its option ``idle_seconds`` is set and ``now - since`` reached it;
    then what the engine returns (it may still be [])."""
    hook = getattr(module, "idle_events", None)
    limit = idle_seconds(state)
    if hook is None or limit is None or state.get("status") != "active":
        return []
    if now - since < limit:
        return []
    return list(hook(state, since=since, now=now))


def restarts_clock(module: ModuleType, events: list[dict[str, Any]]) -> bool:
    """Whether the events of an accepted action start the idle clock again (the game's
    ``updated_at`` moves to the action's moment): yes unless the engine's
    ``restarts_idle_clock(events)`` says no. G-T1 counts the time every other seat has
    had no productive move; Solitaire Frenzy's turning alone is none (SF-E1), so a
    stuck seat that keeps turning does not hold off an idle seat's deadline."""
    hook = getattr(module, "restarts_idle_clock", None)
    return hook is None or bool(hook(events))


def deadline(state: dict[str, Any], since: float) -> float | None:
    """Epoch seconds when the game's idle deadline passes (None: G-T1 off, or the
    game is over)."""
    limit = idle_seconds(state)
    if limit is None or state.get("status") != "active":
        return None
    return since + limit
