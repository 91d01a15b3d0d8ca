"""The store's constants, its refusals (the API maps each to a problem) and the values
its methods take and give: game records, events, outcomes of an action, idempotency
requests, replay reports; and the helpers that fold and canonicalise events."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import ModuleType
from typing import Any, Union, Unpack, overload

from sqlalchemy import Row

from service import jsontext
from service.games import engine
from service.games.rng import commitment
from service.store import idle

REFEREE = "referee"
# Refusals of a request's precondition (a stale version: 412; none named: 428) are not
# recorded under its Idempotency-Key: the client retries with the version it now
# knows, and with the same key (the retry is the same intent, not another request).
UNRECORDED = frozenset({412, 428})
# the PostgreSQL NOTIFY channel of committed actions; payload "<game id>:<last_seq>"
FEED_CHANNEL = "card_referee_events"
# events.seq is an INTEGER column: 32-bit on PostgreSQL (SQLAlchemy binds ``seq > :after``
# as ::INTEGER there), so no seq exceeds this; larger bounds are clamped to it.
MAX_SEQ = 2**31 - 1
_INSERT_BATCH = 100  # events per INSERT of a new game's log (an import's may be long)

Reply = tuple[int, dict[str, Any]]
# a row of a statement whose columns are read by name (``row.version``)
AnyRow = Row[Unpack[tuple[Any, ...]]]


# ----- errors ---------------------------------------------------------------------


class StoreError(Exception):
    """Base of the store's refusals (the API maps each to a problem)."""


class UnknownGame(StoreError):
    """``game`` (the exception's argument) names no engine the service has (422)."""


class GameNotFound(StoreError):
    """No such game, or the caller's token belongs to another game (404)."""


class Unauthenticated(StoreError):
    """No token, a malformed one, or one that opens no game (401)."""


class SeatNotFound(StoreError):
    """The game has no seat of that name (404)."""


class KeyReused(StoreError):
    """The idempotency key was used with another request body (422)."""


class GameMoved(Exception):
    """An action's guarded write found its game no longer at the version it read
    (SQLite; PostgreSQL reports it as SQLSTATE 22012, see statements): the action is
    worked out again with the game locked. Never leaves the store."""


class KeyInFlight(StoreError):
    """A request with this idempotency key may still be running (409): only a claim
    left in flight by the previous release (see :meth:`GameStore._check_key`)."""


# ----- values ---------------------------------------------------------------------


def hash_token(token: str) -> str:
    """SHA-256 hex digest of a bearer token (what the database keeps)."""
    return hashlib.sha256(token.encode()).hexdigest()


def token_check(token: str, actor: str) -> tuple[str, str | None]:
    """What a read of the game checks ``token`` against (the check folded into the
    read: ``GameStore.act``'s and ``GameStore.read``'s ``token``): its SHA-256 hex and
    the seat it must open, None for the referee."""
    return hash_token(token), None if actor == REFEREE else actor


def request_hash(payload: Any) -> str:
    """SHA-256 of the canonical JSON of ``payload`` (sorted keys, no spaces)."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class GameRecord:
    """A game row as read in one transaction (``state`` is the snapshot)."""

    id: str
    game: str
    options: dict[str, Any]
    status: str
    version: int
    state: dict[str, Any]
    seed: str
    last_seq: int = 0  # the seq of the game's last event
    updated: float = 0.0  # epoch seconds of its last recorded event (games.updated_at)
    names: dict[str, str] = field(default_factory=dict)  # seats' display names
    rematch_of: str | None = None  # the game this one is a rematch of
    rematch: str | None = None  # this game's rematch
    # None: refereed here; {"at": ISO 8601, "verified": bool}: an imported copy
    imported: dict[str, Any] | None = None

    @property
    def seed_commitment(self) -> str:
        """SHA-256 of the seed, published from the start (service.games.rng.commitment)."""
        return commitment(self.seed)

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    @property
    def engine(self) -> ModuleType:
        return engine(self.game)

    @classmethod
    def of(cls, game_id: str, row: AnyRow) -> GameRecord:
        """From a row of :data:`_READ` (the snapshot decoded)."""
        return cls(
            id=game_id,
            game=row.game,
            options=row.options,
            status=row.status,
            version=row.version,
            state=row.snapshot,
            seed=row.seed,
            last_seq=row.last_seq,
            updated=idle.epoch(row.updated_at),
            names=row.names or {},
            rematch_of=row.rematch_of,
            rematch=row.rematch,
            imported=row.imported,
        )


@dataclass(frozen=True)
class StoredEvent:
    """One event of the record: ``seq`` and the event ``{"type", "seat", ...}``."""

    seq: int
    event: dict[str, Any]


@dataclass(frozen=True)
class EventPage:
    """:meth:`GameStore.page`: ``events`` with ``seq > after`` and ``last_seq``, the
    ``after`` of the next page: the seq of the page's last event, or, for an empty
    page, the log's last seq (never more than the log holds, so paging by
    ``last_seq`` neither skips nor repeats an event)."""

    game: GameRecord
    events: list[StoredEvent]
    last_seq: int


@dataclass(frozen=True)
class Applied:
    """An action was accepted: the new game record and the events it appended."""

    game: GameRecord
    events: list[StoredEvent]


@dataclass(frozen=True)
class Refused:
    """An action was refused; nothing was written. ``extra`` goes into the problem;
    ``game`` names the game's engine (for metrics)."""

    status: int
    code: str
    detail: str  # a Message wherever the store or the engine words it
    extra: dict[str, Any] = field(default_factory=dict)
    game: str | None = None


Outcome = Union[Applied, Refused]


@dataclass(frozen=True)
class _Accepted:
    """An idempotency record of an accepted action: the version it produced and the
    seqs of the events it appended (the reply is rebuilt from them)."""

    version: int
    first_seq: int
    last_seq: int


@dataclass(frozen=True)
class IdempotencyRequest:
    """An ``Idempotency-Key`` in its scope (the game id) for one caller (a seat or the
    referee), with the hash of the request it came with."""

    scope: str
    actor: str
    key: str
    request_hash: str


@dataclass(frozen=True)
class ReplayReport:
    """:meth:`GameStore.replay`: every stored event folded from ``None``."""

    game_id: str
    events: int
    seqs_consecutive: bool
    matches: bool
    replayed: dict[str, Any]
    snapshot: dict[str, Any]

    @property
    def ok(self) -> bool:
        return self.matches and self.seqs_consecutive


# ----- helpers --------------------------------------------------------------------


def _engine_for(game: str) -> ModuleType:
    try:
        return engine(game)
    except (KeyError, ImportError) as error:
        raise UnknownGame(game) from error


@overload
def _fold_all(
    module: ModuleType, state: dict[str, Any], events: Iterable[dict[str, Any]]
) -> dict[str, Any]: ...
@overload
def _fold_all(
    module: ModuleType, state: None, events: Iterable[dict[str, Any]]
) -> dict[str, Any] | None: ...
def _fold_all(
    module: ModuleType, state: dict[str, Any] | None, events: Iterable[dict[str, Any]]
) -> dict[str, Any] | None:
    """``state`` after ``events`` (the engine's ``fold``; from None, no events: None)."""
    for event in events:
        state = module.fold(state, event)
    return state


def _event_params(
    game_id: str,
    seq: int,
    event: dict[str, Any],
    now: datetime,
    actor: str | None = None,
    action: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``events`` row of ``event`` (its payload: every field but type and seat);
    on the first event of an accepted action, ``actor`` and ``action`` (what an
    import re-derives the events from)."""
    payload = {k: v for k, v in event.items() if k not in ("type", "seat")}
    return {
        "game_id": game_id,
        "seq": seq,
        "type": event["type"],
        "seat": event.get("seat"),
        "payload": payload,
        "actor": actor,
        "action": action,
        "created_at": now,
    }


def _event_of(row: AnyRow) -> dict[str, Any]:
    """An ``events`` row as the event ``{"type", "seat", ...payload}`` (canonical)."""
    return {"type": row.type, "seat": row.seat, **_canonical(row.payload)}


def _canonical_event(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` as :func:`_event_of` reads it back: type, seat, then the payload."""
    return {
        "type": event["type"],
        "seat": event.get("seat"),
        **_canonical({k: v for k, v in event.items() if k not in ("type", "seat")}),
    }


@overload
def _canonical(value: Mapping[str, Any]) -> dict[str, Any]: ...
@overload
def _canonical(value: list[Any] | tuple[Any, ...] | str | float | None) -> Any: ...
def _canonical(value: Any) -> Any:
    """``value`` as it reads back from a JSON column (lists, not tuples...), every
    object's keys sorted: the same whatever order a backend returns them in
    (PostgreSQL's JSONB reorders keys), so what is rendered from it is too."""
    return jsontext.canonical(value)
