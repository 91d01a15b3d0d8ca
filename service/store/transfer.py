"""Export a game's whole record as one JSON document, and import one (issues 11 and 18).

The document (``FORMAT``, ``format_version`` 1)::

    {"format": "card-referee/game-export", "format_version": 1, "id": <the game's id>,
     "game", "options", "status", "version", "seed_commitment",
     "seed": <64 hex digits, only once the game is finished, or in the archive>,
     "exported_at": <ISO 8601>,
     "imported": null | {"at": <ISO 8601>, "verified": bool},
     "actions": [{"seq", "actor", "action"}, ...]  (with the seed only),
     "from_position": <true when the game started from a stated position (G-P1)>,
     "events": [{"seq": 1, "type": "game-created", "seat": null, ...}, ...],
     "view": <the referee's view of the game as it is>,
     "signature": <HMAC-SHA256, 64 hex digits>}

Generic over the engine contract, so every game the service knows exports and imports
alike.

Rulings (what an export may show, and how an import checks it):

* A finished game exports its events as they are, with the seed and the actions
  (who acted, what they sent): everything is public once a game is over.
* An unfinished game's export (``GET .../export``, the referee's) never carries the
  seed (the deck order follows from it), the actions, nor anything else the referee
  may not see yet: each event keeps only the fields the engine's referee filter
  (``view_event(state, event, "referee")``) shows unchanged; an event hidden from the
  referee altogether keeps only seq, type and seat.
* The operator's archive (the purge's ``--export-dir``, :func:`write_export`) is the
  whole record, seed and actions included whatever the status. Keep it as private as
  the database.
* Every export is signed (:mod:`service.store.signing`): HMAC-SHA256 over the
  canonical document (every member but ``signature``; keys sorted, no spaces, UTF-8)
  with ``CARD_REFEREE_SECRET``, or when that is unset with the key migration 0005 drew
  into the database. A document whose signature holds came from this service.
* Import with a seed (a finished game, or an archive): the seed must match
  ``seed_commitment`` and game-created, and the whole game is re-derived from the
  engine (:mod:`service.store.rederive`): the setup from the options and the seed,
  every later event from the action recorded at it (or an idle seat's timeout), the
  ``version`` from the number of actions and idle timeouts (1 + one per each), and the
  status and referee view must be what they fold to. The copy keeps the seed.
* Import without a seed (an unfinished game's export): its deal cannot be
  re-derived, so only this service's own signed export imports so. game-created
  (seats, options) must be what ``new_game`` makes, every event must fold, and the
  status and referee view must match (their seed and commitment aside): the copy gets
  a NEW secret seed for the cards still to come (nobody, the importer included, knows
  or chooses them). In server dealing only 2-Way Cards logs every card it deals; the
  other games' exports hide the cards dealt (Halves, Sequence, Sequence Numbers: the
  first deal does not fold; Solitaire Frenzy: its fold deals from the new seed, so the
  view or a later event differs): that import is refused saying so, naming the first
  event or field, and only the archive re-imports it. A game dealt at the table logs
  the cards the referee reports, and re-imports. (A copy made so cannot be re-derived
  later either: its past was dealt from a seed it never had.)
* A document without a valid signature (hand-made, altered, or another
  deployment's) imports only with an API key (the API's decision; see
  :class:`Unverified`); the copy is marked ``"verified": false`` for ever: a copy of
  an unverified copy is unverified whatever signs it.
* An import is a new game: new id, new tokens (seat tokens and referee token are never
  exported), the exported ``version``, and ``imported`` ``{"at": now, "verified"}``
  in its view, log and export; the log restarts at seq 1 as exported.
* At most :data:`MAX_IMPORT_EVENTS` events per import.

A document that does not replay is :class:`ImportRefused` (422) naming the first thing
that does not: a missing or malformed field, an event that does not fold (its seq), a
setup that does not follow from the seed, an event the engine does not make, a status
or view that differs (its path).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from service.games.rng import commitment, new_seed
from service.messages import Message
from service.store.models import utcnow
from service.store.records import REFEREE, GameStore, Reply
from service.store.rederive import (
    ImportRefused,
    canonical,
    check_actions,
    expect,
    first_difference,
    rederive,
    setup_events,
)
from service.store.signing import sign, signing_key
from service.store.values import _engine_for

FORMAT = "card-referee/game-export"
FORMAT_VERSION = 1
MAX_IMPORT_EVENTS = 20_000  # events per import (the body is MAX_IMPORT_BYTES at most)
_HIDDEN_FROM_EXPORT = ("seed",)  # never in an unfinished game's export, whatever the engine
_SEED = re.compile(r"[0-9a-f]{64}")

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "MAX_IMPORT_EVENTS",
    "Checked",
    "ImportRefused",
    "Unverified",
    "check_import",
    "export_game",
    "import_game",
    "write_export",
]


class Unverified(PermissionError):
    """The document is not signed by this service and the caller may not import an
    unverified copy (the API answers 403 ``import-unsigned``)."""


# ----- export --------------------------------------------------------------------


def export_game(
    store: GameStore, game_id: str, archive: bool = False, secret: str | None = None
) -> dict[str, Any]:
    """The signed export document of the game (see the module docstring); ``archive``:
    the operator's whole record, seed and actions included even for an unfinished
    game; ``secret``: ``CARD_REFEREE_SECRET`` (None: the database's key).
    :class:`service.store.GameNotFound`."""
    record, stored = store.events(game_id)
    module = record.engine
    whole = archive or record.finished
    events: list[dict[str, Any]] = []
    for entry in stored:
        event = entry.event if whole else _referee_fields(module, record.state, entry.event)
        events.append({"seq": entry.seq, **event})
    document: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "id": record.id,
        "game": record.game,
        "options": record.options,
        "status": record.status,
        "version": record.version,
        "seed_commitment": record.seed_commitment,
    }
    if whole:
        document["seed"] = record.seed
        document["actions"] = store.actions(game_id)
    # G-P1: a game started from a stated position says so for ever (its first event too)
    document["from_position"] = bool(stored and stored[0].event.get("from_position"))
    document["exported_at"] = utcnow().isoformat()
    document["imported"] = record.imported
    document["events"] = events
    document["view"] = module.view(record.state, REFEREE)
    document["signature"] = sign(canonical(document), signing_key(store, secret))
    return document


def _referee_fields(
    module: ModuleType, state: dict[str, Any], event: dict[str, Any]
) -> dict[str, Any]:
    """The fields of ``event`` the referee's filter shows unchanged (type and seat
    always; never the seed)."""
    shown = module.view_event(state, event, REFEREE) or {}
    return {
        key: value
        for key, value in event.items()
        if key in ("type", "seat")
        or (key not in _HIDDEN_FROM_EXPORT and key in shown and shown[key] == value)
    }


def write_export(
    store: GameStore,
    game_id: str,
    directory: str | os.PathLike[str],
    secret: str | None = None,
) -> Path:
    """Write the game's archive (:func:`export_game` with ``archive``: the seed
    included) to ``directory/<id>.json``, readable by its owner only (the directory is
    created if needed; the file is written under a temporary name, then renamed: a
    file there is whole). The purge's ``--export-dir``."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{game_id}.json"
    partial = folder / f".{game_id}.json.partial"
    text = json.dumps(
        export_game(store, game_id, archive=True, secret=secret),
        separators=(",", ":"),
        ensure_ascii=False,
    )
    with os.fdopen(
        os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8"
    ) as out:
        out.write(text)
    partial.replace(target)
    return target


# ----- import --------------------------------------------------------------------


@dataclass(frozen=True)
class Checked:
    """A document that re-derives: what :meth:`GameStore.insert` stores."""

    game: str
    options: dict[str, Any]
    seed: str
    events: list[dict[str, Any]]
    state: dict[str, Any]
    version: int
    actions: dict[int, tuple[str, dict[str, Any]]]
    imported: dict[str, Any]


def import_game(
    store: GameStore,
    document: dict[str, Any],
    *,
    signed: bool,
    allow_unverified: bool,
    pause: Callable[[], None] = lambda: None,
    offload: Callable[..., Any] = lambda fn, *args: fn(*args),
) -> Reply:
    """Re-create an exported game under a new id with new tokens, once it re-derives
    (:func:`check_import`): the reply of :meth:`GameStore.create` (201). ``signed``:
    the document's signature holds; ``allow_unverified``: the caller may import an
    unsigned one (an API key), else :class:`Unverified`. ``offload(fn, *args)`` runs
    the pure checks (the API: off the worker's event loop); ``pause`` is called between
    batches of rows written. :class:`ImportRefused` (422) naming what does not replay;
    :class:`service.store.UnknownGame`."""
    checked: Checked = offload(check_import, document, signed)
    if not signed and not allow_unverified:
        raise Unverified()
    return store.insert(
        checked.game,
        checked.options,
        checked.seed,
        checked.events,
        checked.state,
        checked.version,
        actions=checked.actions,
        imported=checked.imported,
        pause=pause,
        offload=offload,
    )


def check_import(
    document: dict[str, Any], signed: bool, pause: Callable[[], None] = lambda: None
) -> Checked:
    """Every check of an import (module docstring); pure (the engine's functions only).
    :class:`ImportRefused`; :class:`service.store.UnknownGame`."""
    expect(
        document.get("format") == FORMAT,
        "format",
        Message("format is not %(format)s", format=repr(FORMAT)),
    )
    expect(
        document.get("format_version") == FORMAT_VERSION,
        "format_version",
        Message(
            "format_version %(given)s is not %(version)s",
            given=repr(document.get("format_version")),
            version=FORMAT_VERSION,
        ),
    )
    module = _engine_for(document["game"])
    events = _events(document["events"], pause)
    seeded = document.get("seed") is not None
    seed = _seed(document, events, signed)
    events[0]["seed"] = seed
    actions: dict[int, tuple[str, dict[str, Any]]] = {}
    if seeded:
        recorded = check_actions(document.get("actions", []), len(events))
        actions = {
            seq: (entry["actor"], canonical(entry["action"])) for seq, entry in recorded.items()
        }
        state, timeouts = rederive(
            module, document["game"], document["options"], seed, events, recorded, pause
        )
        version = 1 + len(actions) + timeouts
        expect(
            document["version"] == version,
            "version",
            Message(
                "the version is 1 plus one per action and one per idle timeout: %(version)s",
                version=version,
            ),
        )
    else:
        expect(
            "actions" not in document,
            "actions",
            Message("an export without its seed carries no actions"),
        )
        state = _replay(module, document, seed, events, pause)
    _same_outcome(module, document, state, seeded)
    return Checked(
        document["game"],
        document["options"],
        seed,
        events,
        state,
        document["version"],
        actions,
        {"at": utcnow().isoformat(), "verified": _verified(document, signed)},
    )


def _verified(document: dict[str, Any], signed: bool) -> bool:
    """Signed here, and not a copy of an unverified copy (unverified is for ever)."""
    earlier = document.get("imported")
    expect(
        earlier is None
        or (
            isinstance(earlier, dict)
            and set(earlier) == {"at", "verified"}
            and isinstance(earlier["verified"], bool)
            and isinstance(earlier["at"], str)
        ),
        "imported",
        Message('imported is null or {"at", "verified"}'),
    )
    return signed and (earlier is None or earlier["verified"])


def _same_outcome(
    module: ModuleType, document: dict[str, Any], state: dict[str, Any], seeded: bool
) -> None:
    """The replayed status and referee view are the exported ones."""
    expect(
        state["status"] == document["status"],
        "status",
        Message(
            "the events replay to status %(replayed)s, not %(status)s",
            replayed=repr(state["status"]),
            status=repr(document["status"]),
        ),
    )
    view = canonical(module.view(state, REFEREE))
    exported = canonical(document["view"])
    if not seeded:  # the new seed's, by design
        for key in ("seed", "seed_commitment"):
            view.pop(key, None)
            exported.pop(key, None)
    difference = first_difference(exported, view, "view")
    if seeded:
        why = Message("the events replay to another %(field)s", field=difference)
    else:  # the deal and the draws the export hides came from the new seed
        why = Message(
            "without the game's seed the events replay to another %(field)s: an "
            "unfinished game dealt by the server re-imports from its export in 2-Way "
            "Cards only, in the other games from the operator's archive",
            field=difference,
        )
    expect(difference is None, difference or "view", why)


def _events(exported: list[Any], pause: Callable[[], None]) -> list[dict[str, Any]]:
    """The events without their seq, checked: seq 1, 2, 3 ..., a string type, the
    first one game-created."""
    expect(
        len(exported) <= MAX_IMPORT_EVENTS,
        "events",
        Message("at most %(count)s events per import", count=MAX_IMPORT_EVENTS),
    )
    events = []
    for index, event in enumerate(exported):
        where = f"events.{index}"
        expect(isinstance(event, dict), where, Message("an event is an object"))
        expect(
            type(event.get("seq")) is int and event["seq"] == index + 1,
            where + ".seq",
            Message(
                "event %(seq)s is missing: the events run 1, 2, 3 ... without gaps", seq=index + 1
            ),
        )
        expect(
            isinstance(event.get("type"), str),
            where + ".type",
            Message("event %(seq)s has no type", seq=index + 1),
        )
        expect(
            event.get("seat") is None or isinstance(event["seat"], str),
            where + ".seat",
            Message("event %(seq)s: seat is a string or null", seq=index + 1),
        )
        # parsed JSON already (no tuples; key order does not matter to the checks)
        events.append(
            {
                "type": event["type"],
                "seat": event.get("seat"),
                **{k: v for k, v in event.items() if k not in ("seq", "type", "seat")},
            }
        )
        if index % 500 == 499:
            pause()
    expect(
        bool(events) and events[0]["type"] == "game-created",
        "events.0.type",
        Message("the first event is game-created"),
    )
    seats = events[0].get("seats")
    expect(
        isinstance(seats, list) and len(seats) > 0,
        "events.0.seats",
        Message("game-created names the seats"),
    )
    return events


def _seed(document: dict[str, Any], events: list[dict[str, Any]], signed: bool) -> str:
    """The exported seed (checked against its commitment and game-created), or for an
    unfinished game's signed export, which has none, a fresh one."""
    seed = document.get("seed")
    if seed is None:
        expect(
            document["status"] != "finished",
            "seed",
            Message("a finished game's export carries its seed"),
        )
        expect(
            "seed" not in events[0],
            "events.0.seed",
            Message("game-created names a seed the export does not"),
        )
        expect(
            signed,
            "seed",
            Message(
                "without its seed, the deal cannot be re-derived: "
                "only this service's own signed export of an "
                "unfinished game imports without one"
            ),
        )
        return new_seed()
    if not isinstance(seed, str) or _SEED.fullmatch(seed) is None:
        raise ImportRefused(Message("the seed is 64 lowercase hex digits"), "seed")
    expect(
        commitment(seed) == document.get("seed_commitment"),
        "seed_commitment",
        Message("the seed does not match seed_commitment"),
    )
    expect(
        events[0].get("seed") == seed, "events.0.seed", Message("game-created names another seed")
    )
    return seed


def _replay(
    module: ModuleType,
    document: dict[str, Any],
    seed: str,
    events: list[dict[str, Any]],
    pause: Callable[[], None],
) -> dict[str, Any]:
    """A seedless (signed) export: game-created as ``new_game`` makes it (its members
    that follow from the seed aside: those that differ between two seeds), then every
    event folded."""
    created = setup_events(module, document["game"], document["options"], seed, events)[0]
    other = setup_events(module, document["game"], document["options"], new_seed(), events)[0]
    expect(
        set(events[0]) == set(created),
        "events.0",
        Message("game-created is not what the engine makes of the options"),
    )
    for key in sorted(created):
        if created[key] == other[key]:
            difference = first_difference(created[key], events[0][key], f"events.0.{key}")
            expect(
                difference is None,
                difference or "",
                Message("game-created is not what the engine makes of the options"),
            )
    state: dict[str, Any] | None = None
    for index, event in enumerate(events):
        try:
            state = module.fold(state, event)
        except Exception as error:  # noqa: BLE001 - never the exception's text
            raise ImportRefused(
                Message(
                    "event %(seq)s (%(type)s) does not replay without the game's seed: an "
                    "unfinished game dealt by the server re-imports from its export in 2-Way "
                    "Cards only, in the other games from the operator's archive",
                    seq=index + 1,
                    type=event["type"],
                ),
                f"events.{index}",
            ) from error
        if index % 100 == 99:
            pause()
    assert state is not None  # the events begin with game-created (see _events)
    return canonical(state)
