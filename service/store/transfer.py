"""Export a game's whole record as one JSON document, and import one (issue 11, item 3).

The document (``FORMAT``, ``format_version`` 1)::

    {"format": "card-referee/game-export", "format_version": 1, "id": <the game's id>,
     "game", "options", "status", "version", "seed_commitment",
     "seed": <64 hex digits, only once the game is finished>,
     "from_position": <true when the game started from a stated position (G-P1)>,
     "events": [{"seq": 1, "type": "game-created", "seat": null, ...}, ...],
     "view": <the referee's view of the game as it is>}

Generic over the engine contract (``new_game``/``fold``/``view``/``view_event``), so
every game the service knows exports and imports alike.

Rulings (what an export may show, and how an import checks it):

* A finished game exports its events as they are, with the seed: everything is public
  once a game is over.
* An unfinished game's export (``GET .../export``, the referee's) never carries the
  seed (the deck order follows from it) nor anything else the referee may not see
  yet: each event keeps only the fields the engine's referee filter
  (``view_event(state, event, "referee")``) shows unchanged; an event hidden from the
  referee altogether keeps only seq, type and seat (and then does not replay).
* The operator's archive (the purge's ``--export-dir``, :func:`write_export`) is the
  whole record, seed included whatever the status: it is the operator's copy of the
  database row, so that an abandoned game re-imports exactly. Keep it as private as
  the database.
* Import with a seed (a finished game, or an archive): the seed must match
  ``seed_commitment`` and game-created, the setup events (the deal) must be exactly
  what ``new_game`` makes from the options and the seed (so only the game's true seed
  passes: nobody can slip in a seed of their choosing), and folding every event must
  give the exported status and referee view. The copy keeps the seed.
* Import without a seed (an unfinished game's export): the events carry every card
  dealt and drawn so far, which is all a fold needs where draws are recorded by
  value (2-Way Cards): the copy gets a NEW secret seed for the cards still to come
  (nobody, the importer included, knows or chooses them), every event is folded, and
  the status and the referee view must match (their ``seed``/``seed_commitment``
  aside: the new seed's). An engine whose fold checks each draw against the seed's
  deck order (Sequence with server dealing) cannot replay it without the seed: that
  import is refused naming the first draw, and only the archive re-imports it.
* An import is a new game: new id, new tokens (seat tokens and referee token are never
  exported), the exported ``version``; the log restarts at seq 1 as exported.

A document that does not replay is :class:`ImportRefused` (422) naming the first thing
that does not: a missing or malformed field, an event that does not fold (its seq), a
setup that does not follow from the seed, a status or view that differs (its path).
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from service.games import RuleViolation
from service.games.rng import commitment, new_seed
from service.messages import Message
from service.store.models import utcnow
from service.store.records import REFEREE, GameStore, Reply
from service.store.statements import _canonical, _canonical_event, _engine_for

FORMAT = "card-referee/game-export"
FORMAT_VERSION = 1
_HIDDEN_FROM_EXPORT = ("seed",)  # never in an unfinished game's export, whatever the engine
_SEED = re.compile(r"[0-9a-f]{64}")


class ImportRefused(ValueError):
    """The document does not replay (422): ``detail`` says what, ``field`` where."""

    def __init__(self, detail: Message, field: str):
        super().__init__(detail)
        self.detail = detail
        self.field = field


# ----- export --------------------------------------------------------------------


def export_game(store: GameStore, game_id: str, archive: bool = False) -> dict[str, Any]:
    """The export document of the game (see the module docstring); ``archive``: the
    operator's whole record, seed included even for an unfinished game.
    :class:`service.store.GameNotFound`."""
    record, stored = store.events(game_id)
    module = record.engine
    whole = archive or record.finished
    events = []
    for entry in stored:
        event = entry.event if whole else _referee_fields(module, record.state, entry.event)
        events.append({"seq": entry.seq, **event})
    document = {"format": FORMAT, "format_version": FORMAT_VERSION, "id": record.id,
                "game": record.game, "options": record.options, "status": record.status,
                "version": record.version, "seed_commitment": record.seed_commitment}
    if whole:
        document["seed"] = record.seed
    # G-P1: a game started from a stated position says so for ever (its first event too)
    document["from_position"] = bool(stored and stored[0].event.get("from_position"))
    document["exported_at"] = utcnow().isoformat()
    document["events"] = events
    document["view"] = module.view(record.state, REFEREE)
    return document


def _referee_fields(module: Any, state: dict, event: dict) -> dict:
    """The fields of ``event`` the referee's filter shows unchanged (type and seat
    always; never the seed)."""
    shown = module.view_event(state, event, REFEREE) or {}
    return {key: value for key, value in event.items()
            if key in ("type", "seat") or (key not in _HIDDEN_FROM_EXPORT
                                           and key in shown and shown[key] == value)}


def write_export(store: GameStore, game_id: str, directory: str | os.PathLike) -> Path:
    """Write the game's archive (:func:`export_game` with ``archive``: the seed
    included) to ``directory/<id>.json``, readable by its owner only (the directory is
    created if needed; the file is written under a temporary name, then renamed: a
    file there is whole). The purge's ``--export-dir``."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{game_id}.json"
    partial = folder / f".{game_id}.json.partial"
    text = json.dumps(export_game(store, game_id, archive=True), separators=(",", ":"),
                      ensure_ascii=False)
    with os.fdopen(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w",
                   encoding="utf-8") as out:
        out.write(text)
    partial.replace(target)
    return target


# ----- import --------------------------------------------------------------------


def import_game(store: GameStore, document: dict[str, Any]) -> Reply:
    """Re-create an exported game under a new id with new tokens, after checking that
    its events replay to its status and view (module docstring): the reply of
    :meth:`GameStore.create` (201). :class:`ImportRefused` (422) naming what does not
    replay; :class:`service.store.UnknownGame`."""
    _expect(document.get("format") == FORMAT, "format",
            Message("format is not %(format)s", format=repr(FORMAT)))
    _expect(document.get("format_version") == FORMAT_VERSION, "format_version",
            Message("format_version %(given)s is not %(version)s",
                    given=repr(document.get("format_version")), version=FORMAT_VERSION))
    module = _engine_for(document["game"])
    events = _events(document["events"])
    seeded = document.get("seed") is not None
    seed = _seed(document, events)
    events[0]["seed"] = seed
    if seeded:
        _check_setup(module, document, seed, events)
    else:  # the options (and a stated position) must still be ones the engine accepts
        _new_game(module, document, seed, events)
    state = _replay(module, events)
    _expect(state["status"] == document["status"], "status",
            Message("the events replay to status %(replayed)s, not %(status)s",
                    replayed=repr(state["status"]), status=repr(document["status"])))
    view = _canonical(module.view(state, REFEREE))
    exported = _canonical(document["view"])
    if not seeded:  # the new seed's, by design
        for key in ("seed", "seed_commitment"):
            view.pop(key, None)
            exported.pop(key, None)
    difference = _first_difference(exported, view, "view")
    _expect(difference is None, difference or "view",
            Message("the events replay to another %(field)s", field=difference))
    return store.insert(document["game"], document["options"], seed, events, state,
                        document["version"])


def _expect(condition: bool, field: str, detail: Message) -> None:
    if not condition:
        raise ImportRefused(detail, field)


def _events(exported: list[dict]) -> list[dict]:
    """The events without their seq, checked: seq 1, 2, 3 ..., a string type, the
    first one game-created."""
    events = []
    for index, event in enumerate(exported):
        where = f"events.{index}"
        _expect(type(event.get("seq")) is int and event["seq"] == index + 1, where + ".seq",
                Message("event %(seq)s is missing: the events run 1, 2, 3 ... without gaps",
                        seq=index + 1))
        _expect(isinstance(event.get("type"), str), where + ".type",
                Message("event %(seq)s has no type", seq=index + 1))
        _expect(event.get("seat") is None or isinstance(event["seat"], str),
                where + ".seat", Message("event %(seq)s: seat is a string or null",
                                         seq=index + 1))
        events.append(_canonical_event({k: v for k, v in event.items() if k != "seq"}))
    _expect(bool(events) and events[0]["type"] == "game-created", "events.0.type",
            Message("the first event is game-created"))
    return events


def _seed(document: dict, events: list[dict]) -> str:
    """The exported seed (checked against its commitment and game-created), or for an
    unfinished game's export, which has none, a fresh one."""
    seed = document.get("seed")
    if seed is None:
        _expect(document["status"] != "finished", "seed",
                Message("a finished game's export carries its seed"))
        _expect("seed" not in events[0], "events.0.seed",
                Message("game-created names a seed the export does not"))
        return new_seed()
    _expect(isinstance(seed, str) and _SEED.fullmatch(seed) is not None, "seed",
            Message("the seed is 64 lowercase hex digits"))
    _expect(commitment(seed) == document.get("seed_commitment"), "seed_commitment",
            Message("the seed does not match seed_commitment"))
    _expect(events[0].get("seed") == seed, "events.0.seed",
            Message("game-created names another seed"))
    return seed


def _new_game(module: Any, document: dict, seed: str, events: list[dict]) -> list[dict]:
    """The setup events the options and the seed make: ``new_game``'s, or for a game
    that started from a stated position (G-P1: game-created says ``from_position``)
    ``start_from_position``'s from the position its second event (position-set) states."""
    game, options = document["game"], document["options"]
    try:
        if not events[0].get("from_position"):
            return [_canonical_event(e) for e in module.new_game(game, options, seed)]
        stated = events[1].get("position") if len(events) > 1 else None
        _expect(isinstance(stated, dict) and hasattr(module, "start_from_position"),
                "events.1.position", Message("a game started from a position states it in "
                                             "its second event"))
        return [_canonical_event(e)
                for e in module.start_from_position(game, options, seed, stated)]
    except RuleViolation as violation:
        if violation.code == "invalid-option":
            raise ImportRefused(Message("options: %(error)s", error=violation.detail),
                                "options") from violation
        raise ImportRefused(Message("the stated position: %(error)s",
                                    error=violation.detail), "events.1.position") from violation


def _check_setup(module: Any, document: dict, seed: str, events: list[dict]) -> None:
    """The setup events (game-created and the deal) are what the seed makes."""
    setup = _new_game(module, document, seed, events)
    for index, expected in enumerate(setup):
        _expect(index < len(events) and events[index] == expected, f"events.{index}",
                Message("event %(seq)s (%(type)s) is not what the options and the seed "
                        "deal", seq=index + 1, type=expected["type"]))


def _replay(module: Any, events: list[dict]) -> dict:
    state = None
    for seq, event in enumerate(events, 1):
        try:
            state = module.fold(state, event)
        except Exception as error:  # noqa: BLE001 - any failure of a fold is a bad event
            why = f"{type(error).__name__}: {error}"
            raise ImportRefused(Message("event %(seq)s (%(type)s) does not replay: "
                                        "%(error)s", seq=seq, type=event["type"], error=why),
                                f"events.{seq - 1}") from error
    return _canonical(state)


def _first_difference(expected: Any, actual: Any, path: str) -> str | None:
    """The path of the first place where ``actual`` differs from ``expected``."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            if key not in expected or key not in actual:
                return f"{path}.{key}"
            found = _first_difference(expected[key], actual[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for index, (a, b) in enumerate(zip(expected, actual)):
            found = _first_difference(a, b, f"{path}.{index}")
            if found:
                return found
        return None
    return None if expected == actual else path
