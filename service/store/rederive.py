"""Re-derive an imported game from its engine (issue 18, item 1): trust nothing.

An export records every event AND, for every accepted action, who acted and what
they sent (``actions``: ``[{"seq": the first event it appended, "actor", "action"}]``,
kept in the log since migration 0005). :func:`rederive` replays the game through the
engine, not through the document:

* the setup: ``game-created`` and what follows it must be exactly
  ``new_game(game, options, seed)`` (seats, options, deal); a game started from a
  position (``game-created`` carries ``"from_position": true``) must be exactly
  ``start_from_position(game, options, seed, position)`` with the ``position`` of its
  ``position-set`` event;
* every later event must be one the engine produces: the events of ``apply(state,
  actor, action)`` for the action recorded at that seq (a seat's own report in table
  mode is such an action too: what the engine accepts from that seat), or, for an
  idle seat's event (``turn-timed-out``, ``seat-timed-out``), exactly
  ``idle_events(state, since, at)`` with the event's own ``since`` and ``at``;
* an event no action and no timeout produces, a field the engine did not write
  (unknown fields included), an action the engine refuses or one recorded where no
  action starts: :class:`ImportRefused`, naming the field as a JSON path
  (``events.12.result.winners.0``, ``actions.3.action``).

Refusals carry the engine's own refusal (a :class:`~service.messages.Message`) or a
sentence of ours, never a Python exception's text. Pure: no I/O; ``pause`` is called
every :data:`PAUSE_EVERY` events so that the caller can let other work run.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any, overload

from service.games import RuleViolation
from service.messages import Message

# the events of an idle seat, re-derived by the engine's idle_events
IDLE_EVENTS = ("turn-timed-out", "seat-timed-out")
# events between two calls of ``pause``
PAUSE_EVERY = 100
_ACTION_FIELDS = {"seq", "actor", "action"}


class ImportRefused(ValueError):
    """The document does not replay (422 ``import-mismatch``): ``detail`` says what,
    ``field`` where (a JSON path into the document)."""

    def __init__(self, detail: Message, field: str):
        super().__init__(detail)
        self.detail = detail
        self.field = field


def expect(condition: bool, field: str, detail: Message) -> None:
    """:class:`ImportRefused` (``detail`` at ``field``) unless ``condition``."""
    if not condition:
        raise ImportRefused(detail, field)


@overload
def canonical(value: Mapping[str, Any]) -> dict[str, Any]: ...
@overload
def canonical(value: list[Any] | tuple[Any, ...] | str | float | None) -> Any: ...
def canonical(value: Any) -> Any:
    """``value`` with every object's keys sorted, as it reads back from a JSON column."""
    return json.loads(json.dumps(value, sort_keys=True))


def canonical_event(event: dict[str, Any]) -> dict[str, Any]:
    """An event as the store reads it back: type, seat (None when absent), payload."""
    return {
        "type": event["type"],
        "seat": event.get("seat"),
        **canonical({k: v for k, v in event.items() if k not in ("type", "seat")}),
    }


def first_difference(expected: Any, actual: Any, path: str) -> str | None:
    """The JSON path of the first place where ``actual`` differs from ``expected``
    (a member only one of them has, a value, a list's length); None when equal."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            if key not in expected or key not in actual:
                return f"{path}.{key}"
            found = first_difference(expected[key], actual[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for index, (a, b) in enumerate(zip(expected, actual)):
            found = first_difference(a, b, f"{path}.{index}")
            if found:
                return found
        return None
    if type(expected) is not type(actual) and not _same_number(expected, actual):
        return path
    return None if expected == actual else path


def _same_number(a: Any, b: Any) -> bool:
    """1 and 1.0 are the same JSON number; True and 1 are not the same value."""
    numbers = (int, float)
    return (
        isinstance(a, numbers)
        and isinstance(b, numbers)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
    )


def check_actions(actions: Any, events: int) -> dict[int, dict[str, Any]]:
    """``actions`` by seq, checked: a list of ``{"seq", "actor", "action"}`` (nothing
    else), seqs increasing within the log, ``actor`` a string, ``action`` an object."""
    expect(isinstance(actions, list), "actions", Message("actions is a list"))
    by_seq: dict[int, dict[str, Any]] = {}
    last = 0
    for index, entry in enumerate(actions):
        where = f"actions.{index}"
        expect(isinstance(entry, dict), where, Message("an action is an object"))
        unknown = sorted(set(entry) - _ACTION_FIELDS)
        expect(
            not unknown,
            f"{where}.{unknown[0] if unknown else ''}",
            Message("an action records seq, actor and action only"),
        )
        seq = entry.get("seq")
        expect(
            type(seq) is int and last < seq <= events,
            f"{where}.seq",
            Message(
                "an action's seq is the seq of the first event it appended, in increasing order"
            ),
        )
        expect(
            isinstance(entry.get("actor"), str),
            f"{where}.actor",
            Message("an action's actor is a seat or referee"),
        )
        expect(
            isinstance(entry.get("action"), dict),
            f"{where}.action",
            Message("an action is an object"),
        )
        by_seq[seq] = {"index": index, "actor": entry["actor"], "action": entry["action"]}
        last = seq
    return by_seq


def setup_events(
    module: ModuleType,
    game: str,
    options: dict[str, Any],
    seed: str,
    events: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """The setup the engine makes: ``start_from_position`` for a game-created with
    ``from_position`` (the position of the log's ``position-set`` event), else
    ``new_game``. :class:`ImportRefused` when the engine refuses them."""
    created = events[0]
    try:
        if created.get("from_position") is True:
            expect(
                hasattr(module, "start_from_position"),
                "events.0.from_position",
                Message("this game cannot start from a position here"),
            )
            index = next((i for i, e in enumerate(events) if e["type"] == "position-set"), None)
            if index is None:
                raise ImportRefused(
                    Message("a game started from a position has a position-set event"), "events"
                )
            position = events[index].get("position")
            expect(
                isinstance(position, dict),
                f"events.{index}.position",
                Message("a position is an object"),
            )
            made = module.start_from_position(game, options, seed, copy.deepcopy(position))
        else:
            made = module.new_game(game, copy.deepcopy(options), seed)
        return [canonical_event(e) for e in made]
    except RuleViolation as violation:
        field = violation.extra.get("field")
        raise ImportRefused(
            Message("the engine refuses the setup: %(error)s", error=violation.detail),
            _setup_field(events, field),
        ) from violation
    except ImportRefused:
        raise
    except Exception as error:  # noqa: BLE001 - never the exception's text
        raise ImportRefused(
            Message("the engine cannot set up a game from these options"), "options"
        ) from error


def _setup_field(events: list[dict[str, Any]], field: str | None) -> str:
    """Where a refused setup points: the position's field (``events.1.position.
    hands.blue.2``), else the options."""
    index = next((i for i, e in enumerate(events) if e["type"] == "position-set"), None)
    if field is None or index is None:
        return "options"
    return f"events.{index}.position." + field.replace("[", ".").replace("]", "")


def _compare(
    expected: list[dict[str, Any]], events: list[dict[str, Any]], start: int, why: Message
) -> None:
    """``events[start:]`` begin with ``expected``, field by field."""
    for offset, event in enumerate(expected):
        index = start + offset
        expect(
            index < len(events),
            f"events.{index}",
            Message(
                "the log ends where the engine makes event %(seq)s (%(type)s)",
                seq=index + 1,
                type=event["type"],
            ),
        )
        difference = first_difference(event, events[index], f"events.{index}")
        expect(difference is None, difference or "", why)


@overload
def _fold(
    module: ModuleType, state: dict[str, Any], events: list[dict[str, Any]], start: int
) -> dict[str, Any]: ...
@overload
def _fold(
    module: ModuleType, state: None, events: list[dict[str, Any]], start: int
) -> dict[str, Any] | None: ...
def _fold(
    module: ModuleType, state: dict[str, Any] | None, events: list[dict[str, Any]], start: int
) -> dict[str, Any] | None:
    """``state`` after ``events`` (the log's from ``start``; from None, no events: None);
    :class:`ImportRefused` naming the first that does not fold."""
    for offset, event in enumerate(events):
        try:
            state = module.fold(state, event)
        except Exception as error:  # noqa: BLE001 - never the exception's text
            raise ImportRefused(
                Message(
                    "event %(seq)s (%(type)s) does not replay",
                    seq=start + offset + 1,
                    type=event["type"],
                ),
                f"events.{start + offset}",
            ) from error
    return state


def rederive(
    module: ModuleType,
    game: str,
    options: dict[str, Any],
    seed: str,
    events: list[dict[str, Any]],
    actions: dict[int, dict[str, Any]],
    pause: Callable[[], None] = lambda: None,
) -> tuple[dict[str, Any], int]:
    """The state the engine derives from the setup, ``actions`` and idle timeouts,
    checking that it produces exactly ``events`` (module docstring), and how many idle
    timeouts it recorded (each advanced the game's version by one, as an action does).
    ``actions``: :func:`check_actions`' result; every one must be used."""
    setup = setup_events(module, game, options, seed, events)
    _compare(
        setup,
        events,
        0,
        Message("the setup is not what the engine makes from the options and the seed"),
    )
    initial = _fold(module, None, setup, 0)
    assert initial is not None  # the setup begins with game-created (the engine contract)
    state = initial
    index, paused, timeouts = len(setup), len(setup), 0
    while index < len(events):
        entry = actions.pop(index + 1, None)
        if entry is not None:
            produced = _apply(module, state, entry)
            why = Message(
                "event %(seq)s is not what the engine makes of the action recorded at it",
                seq=index + 1,
            )
        else:
            expect(
                events[index]["type"] in IDLE_EVENTS,
                f"events.{index}",
                Message(
                    "event %(seq)s (%(type)s) follows from no recorded action",
                    seq=index + 1,
                    type=events[index]["type"],
                ),
            )
            produced = _idle(module, state, events[index], index)
            timeouts += 1
            why = Message(
                "event %(seq)s is not what the engine makes of the idle time it records",
                seq=index + 1,
            )
        _compare(produced, events, index, why)
        state = _fold(module, state, produced, index)
        index += len(produced)
        if index - paused >= PAUSE_EVERY:
            pause()
            paused = index
    expect(
        not actions,
        f"actions.{min(e['index'] for e in actions.values())}.seq" if actions else "actions",
        Message("an action is recorded where no action's events begin"),
    )
    return canonical(state), timeouts


def _copy(value: Any) -> Any:
    """A copy of plain JSON data (a JSON round trip: several times cheaper than
    ``copy.deepcopy``), so that the engine's apply cannot change what is folded."""
    return json.loads(json.dumps(value))


def _apply(
    module: ModuleType, state: dict[str, Any], entry: dict[str, Any]
) -> list[dict[str, Any]]:
    """The events the engine makes of a recorded action (refused: ImportRefused)."""
    where = f"actions.{entry['index']}"
    try:
        produced = module.apply(_copy(state), entry["actor"], _copy(entry["action"]))
    except RuleViolation as violation:
        raise ImportRefused(
            Message("the engine refuses the action: %(error)s", error=violation.detail),
            where + ".action",
        ) from violation
    except Exception as error:  # noqa: BLE001 - never the exception's text
        raise ImportRefused(
            Message("the engine cannot apply the action"), where + ".action"
        ) from error
    expect(bool(produced), where, Message("the action appends no event"))
    return [canonical_event(e) for e in produced]


def _idle(
    module: ModuleType, state: dict[str, Any], event: dict[str, Any], index: int
) -> list[dict[str, Any]]:
    """The events the engine's ``idle_events`` makes of the event's since and at."""
    numbers = (int, float)
    since, at = event.get("since"), event.get("at")
    expect(
        hasattr(module, "idle_events"),
        f"events.{index}.type",
        Message("this game has no idle timeouts"),
    )
    for name, value in (("since", since), ("at", at)):
        expect(
            isinstance(value, numbers) and not isinstance(value, bool),
            f"events.{index}.{name}",
            Message("a time in epoch seconds"),
        )
    try:
        produced = module.idle_events(_copy(state), since, at)
    except Exception as error:  # noqa: BLE001 - never the exception's text
        raise ImportRefused(
            Message("the engine cannot time the seat out here"), f"events.{index}"
        ) from error
    expect(
        bool(produced),
        f"events.{index}",
        Message("no timeout applies at event %(seq)s", seq=index + 1),
    )
    return [canonical_event(e) for e in produced]
