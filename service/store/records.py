"""The game store: games, their event record, bearer tokens and idempotent actions.

Generic over the engine contract of :mod:`service.games`: the store calls
``engine(game).new_game / fold / apply`` and keeps

* the events (append-only, ``seq`` = 1, 2, 3 ... per game) as the record, and
* the snapshot (the state folded from every event) with a ``version`` bumped by 1 per
  accepted action, so an action folds onto the snapshot instead of replaying the log.

HTTP does not live here: :meth:`GameStore.act` takes a ``render`` callback that turns
the outcome (:class:`Applied` or :class:`Refused`) into the reply ``(status, body)``,
inside the transaction, so the idempotency record stores exactly what the client got.

Tokens are ``secrets.token_urlsafe(32)``; only their SHA-256 hex digests are stored.
"""
from __future__ import annotations

import copy
import hashlib
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from types import ModuleType
from typing import Any, Union

from sqlalchemy import func, select
from sqlalchemy.orm import Session, attributes

from service.games import RuleViolation, engine
from service.games.rng import commitment, new_seed
from service.store.db import make_engine
from service.store.models import DONE, Event, Game, IdempotencyKey, Seat, utcnow
from service.store.uow import Unavailable, UnitOfWork, lock_game

REFEREE = "referee"
# events.seq is an INTEGER column: 32-bit on PostgreSQL (SQLAlchemy binds ``seq > :after``
# as ::INTEGER there), so no seq exceeds this; larger bounds are clamped to it.
MAX_SEQ = 2**31 - 1

Reply = tuple[int, dict[str, Any]]


# ----- errors ---------------------------------------------------------------------


class StoreError(Exception):
    """Base of the store's refusals (the API maps each to a problem)."""


class UnknownGame(StoreError):
    """``game`` names no engine the service has (422)."""


class GameNotFound(StoreError):
    """No such game, or the caller's token belongs to another game (404)."""


class Unauthenticated(StoreError):
    """No token, a malformed one, or one that opens no game (401)."""


class KeyReused(StoreError):
    """The idempotency key was used with another request body (422)."""


class KeyInFlight(StoreError):
    """A request with this idempotency key may still be running (409): only a claim
    left in flight by the previous release (see :meth:`GameStore._lookup`)."""


__all__ = ["Applied", "EventPage", "GameNotFound", "GameRecord", "GameStore",
           "IdempotencyRequest", "KeyInFlight", "KeyReused", "REFEREE", "Refused",
           "ReplayReport", "Reply", "StoreError", "Unauthenticated", "Unavailable",
           "UnknownGame", "hash_token", "request_hash"]


# ----- values ---------------------------------------------------------------------


def hash_token(token: str) -> str:
    """SHA-256 hex digest of a bearer token (what the database keeps)."""
    return hashlib.sha256(token.encode()).hexdigest()


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
    def of(cls, row: Game) -> GameRecord:
        return cls(id=row.id, game=row.game, options=row.options, status=row.status,
                   version=row.version, state=row.snapshot, seed=row.seed)


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
    """An action was refused; nothing was written. ``extra`` goes into the problem."""

    status: int
    code: str
    detail: str
    extra: dict[str, Any] = field(default_factory=dict)


Outcome = Union[Applied, Refused]


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
        raise UnknownGame(f"unknown game {game!r}") from error


def _fold_all(module: ModuleType, state: dict | None, events: list[dict]) -> dict:
    for event in events:
        state = module.fold(state, event)
    return state


def _event_row(game_id: str, seq: int, event: dict[str, Any]) -> Event:
    payload = {k: v for k, v in event.items() if k not in ("type", "seat")}
    return Event(game_id=game_id, seq=seq, type=event["type"], seat=event.get("seat"),
                 payload=payload, created_at=utcnow())


def _event_of(row: Event) -> dict[str, Any]:
    return {"type": row.type, "seat": row.seat, **row.payload}


def _json_copy(value: Any) -> Any:
    """``value`` as it will read back from a JSON column (lists, not tuples...)."""
    return json.loads(json.dumps(value))


# ----- the store ------------------------------------------------------------------


class GameStore:
    """Durable games over one database URL (SQLite file or PostgreSQL)."""

    def __init__(self, url: str, *, attempts: int = 6, in_flight_seconds: float = 60.0,
                 **engine_kwargs: Any):
        self.uow = UnitOfWork(make_engine(url, **engine_kwargs), attempts=attempts)
        self.in_flight = timedelta(seconds=in_flight_seconds)

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.uow.engine.dispose()

    # ----- create ---------------------------------------------------------------

    def create(self, game: str, options: dict[str, Any], seed: str | None = None) -> Reply:
        """Create a game: ``(201, {"id", "game", "version", "status", "seats": {seat:
        {"token"}}, "referee_token", "seed_commitment"})``.

        Ruling: creation takes no idempotency key. Replaying the first reply would mean
        keeping its tokens in plaintext, and tokens are stored as SHA-256 only; a retried
        create makes another game and leaves the first unused, with no effect on any game.

        Raises :class:`UnknownGame`, :class:`RuleViolation` (the engine refused the
        options; nothing stored), :class:`Unavailable`.
        """
        module = _engine_for(game)
        seed = seed or new_seed()
        events = module.new_game(game, options, seed)
        state = _fold_all(module, None, events)
        return self.uow.run(lambda s: self._insert_game(s, game, options, seed, events, state))

    @staticmethod
    def _insert_game(session: Session, game: str, options: dict[str, Any], seed: str,
                     events: list[dict], state: dict[str, Any]) -> Reply:
        game_id = secrets.token_urlsafe(16)
        tokens = {seat: secrets.token_urlsafe(32) for seat in state["seats"]}
        referee_token = secrets.token_urlsafe(32)
        now = utcnow()
        session.add(Game(id=game_id, game=game, options=state.get("options", options),
                         status=state["status"], version=1, snapshot=_json_copy(state),
                         seed=seed, referee_token_hash=hash_token(referee_token),
                         created_at=now, updated_at=now))
        session.flush()
        session.add_all(Seat(game_id=game_id, seat=seat, token_hash=hash_token(token))
                        for seat, token in tokens.items())
        session.add_all(_event_row(game_id, seq, event) for seq, event in enumerate(events, 1))
        return 201, {
            "id": game_id, "game": game, "version": 1, "status": state["status"],
            "seats": {seat: {"token": token} for seat, token in tokens.items()},
            "referee_token": referee_token, "seed_commitment": commitment(seed),
        }

    # ----- authentication and reads ---------------------------------------------

    def authenticate(self, game_id: str, token: str | None) -> str:
        """The actor (a seat name or ``"referee"``) that ``token`` opens in game
        ``game_id``. :class:`Unauthenticated` when the token opens no game at all;
        :class:`GameNotFound` when it opens another game (or ``game_id`` is unknown):
        a caller learns nothing about games that are not theirs."""
        if not token:
            raise Unauthenticated("a bearer token is required")
        return self.uow.run(lambda s: self._actor(s, game_id, hash_token(token)), write=False)

    @staticmethod
    def _actor(session: Session, game_id: str, token_hash: str) -> str:
        seat = session.execute(select(Seat.game_id, Seat.seat)
                               .where(Seat.token_hash == token_hash)).first()
        if seat is not None:
            if seat.game_id != game_id:
                raise GameNotFound(game_id)
            return seat.seat
        owner = session.execute(select(Game.id)
                                .where(Game.referee_token_hash == token_hash)).scalar()
        if owner is None:
            raise Unauthenticated("the token opens no game")
        if owner != game_id:
            raise GameNotFound(game_id)
        return REFEREE

    def read(self, game_id: str) -> GameRecord:
        """The game as it is now. :class:`GameNotFound`."""
        def fn(session: Session) -> GameRecord:
            row = session.get(Game, game_id)
            if row is None:
                raise GameNotFound(game_id)
            return GameRecord.of(row)
        return self.uow.run(fn, write=False)

    def events(self, game_id: str, after: int = 0,
               limit: int | None = None) -> tuple[GameRecord, list[StoredEvent]]:
        """The game and its events with ``seq > after`` (in order, at most ``limit``),
        read in one transaction. :class:`GameNotFound`."""
        page = self.page(game_id, after, limit)
        return page.game, page.events

    def page(self, game_id: str, after: int = 0, limit: int | None = None) -> EventPage:
        """One page of the log: the game, its events with ``seq > after`` (in order, at
        most ``limit``) and ``last_seq`` (see :class:`EventPage`), read in one
        transaction. :class:`GameNotFound`."""
        def fn(session: Session) -> EventPage:
            row = session.get(Game, game_id)
            if row is None:
                raise GameNotFound(game_id)
            # read before the page: an event appended between the two statements (READ
            # COMMITTED) is then after last_seq, never skipped
            log_end = session.execute(select(func.max(Event.seq))
                                      .where(Event.game_id == game_id)).scalar() or 0
            bound = min(max(after, 0), MAX_SEQ)  # the same rows, in the column's range
            statement = (select(Event).where(Event.game_id == game_id, Event.seq > bound)
                         .order_by(Event.seq))
            if limit is not None:
                statement = statement.limit(min(max(limit, 0), MAX_SEQ))
            events = [StoredEvent(e.seq, _event_of(e)) for e in session.scalars(statement)]
            # empty page: log_end <= after (min() only matters for limit=0)
            last_seq = events[-1].seq if events else min(after, log_end)
            return EventPage(GameRecord.of(row), events, last_seq)
        return self.uow.run(fn, write=False)

    # ----- actions --------------------------------------------------------------

    def act(self, game_id: str, actor: str, action: dict[str, Any], expected_version: int,
            render: Callable[[Outcome], Reply],
            idempotency: IdempotencyRequest | None = None) -> tuple[Reply, bool]:
        """Apply one action of ``actor`` if the game is still at ``expected_version``.

        In ONE transaction: lock the game row; with an idempotency key, look it up
        (same key and body done before: return its stored reply, ``replayed``; another
        body: :class:`KeyReused`); check the version (stale ->
        ``Refused(412, "version-mismatch", version=current)``), ``apply`` on the snapshot
        (RuleViolation -> ``Refused(status, code)``, nothing written), fold the events,
        append them with consecutive ``seq``, bump the version by 1, store the reply
        under the idempotency key, commit. Returns ``(reply, replayed)``.

        The key's scope is the game, so the row lock serialises every request with one
        key: a second request with the key waits for the lock, then finds the first
        one's reply and replays it. Nothing is committed before the action's own
        commit, so a request that fails (5xx, 503 after the retries) leaves no trace
        and its key stays free. Raises :class:`GameNotFound`, :class:`KeyReused`,
        :class:`KeyInFlight` (only for a claim left by a previous release, see
        :meth:`_lookup`), :class:`Unavailable`.
        """
        return self.uow.run(lambda s: self._act(
            s, game_id, actor, action, expected_version, render, idempotency))

    def _act(self, session: Session, game_id: str, actor: str, action: dict[str, Any],
             expected_version: int, render: Callable[[Outcome], Reply],
             idempotency: IdempotencyRequest | None) -> tuple[Reply, bool]:
        row = lock_game(session, game_id)
        if row is None:
            raise GameNotFound(game_id)
        claimed = None
        if idempotency is not None:
            claimed = self._lookup(session, idempotency)
            if claimed is not None and claimed.state == DONE:
                return (claimed.status_code, claimed.response_body), True
        outcome = self._decide(session, row, actor, action, expected_version)
        reply = render(outcome)
        if idempotency is not None:
            self._record(session, idempotency, reply, claimed)
        return reply, False

    def _decide(self, session: Session, row: Game, actor: str, action: dict[str, Any],
                expected_version: int) -> Outcome:
        if row.version != expected_version:
            return Refused(412, "version-mismatch",
                           f"the game is at version {row.version}, not {expected_version}",
                           {"version": row.version})
        module = engine(row.game)
        state = row.snapshot
        try:
            new_events = module.apply(copy.deepcopy(state), actor, copy.deepcopy(action))
        except RuleViolation as violation:
            return Refused(violation.status, violation.code, violation.detail)
        state = _json_copy(_fold_all(module, state, new_events))
        last = session.execute(select(func.max(Event.seq))
                               .where(Event.game_id == row.id)).scalar() or 0
        stored = [StoredEvent(last + i, _json_copy(e)) for i, e in enumerate(new_events, 1)]
        session.add_all(_event_row(row.id, e.seq, e.event) for e in stored)
        row.snapshot = state
        attributes.flag_modified(row, "snapshot")
        row.status = state["status"]
        row.version += 1
        row.updated_at = utcnow()
        session.flush()
        return Applied(GameRecord.of(row), stored)

    # ----- idempotency ----------------------------------------------------------
    #
    # Ruling (one transaction per action): the key is looked up and its reply stored in
    # the action's own transaction, after the game row is locked. A record is therefore
    # only ever committed "done", with its reply. The state "in-flight" comes from the
    # previous release, which claimed a key in a transaction of its own before acting:
    # while such a claim is younger than ``in_flight_seconds`` its request may still be
    # running on an old worker (a rolling upgrade), so the key answers 409; an older one
    # is abandoned (its worker died) and the action takes it over.

    def _lookup(self, session: Session,
                request: IdempotencyRequest) -> IdempotencyKey | None:
        """The key's record (done, or an abandoned claim to take over), or None.
        :class:`KeyReused` for another body, :class:`KeyInFlight` for a live claim."""
        row = session.execute(select(IdempotencyKey).where(
            IdempotencyKey.scope == request.scope, IdempotencyKey.actor == request.actor,
            IdempotencyKey.key == request.key)).scalar_one_or_none()
        if row is None:
            return None
        if row.request_hash != request.request_hash:
            raise KeyReused(request.key)
        if row.state != DONE and _aware(row.updated_at) + self.in_flight > utcnow():
            raise KeyInFlight(request.key)
        return row

    @staticmethod
    def _record(session: Session, request: IdempotencyRequest, reply: Reply,
                claimed: IdempotencyKey | None) -> None:
        """Store ``reply`` under the key, done (taking over an abandoned claim)."""
        now = utcnow()
        if claimed is not None:
            claimed.state, claimed.status_code, claimed.response_body = DONE, reply[0], reply[1]
            claimed.updated_at = now
            return
        session.add(IdempotencyKey(
            scope=request.scope, actor=request.actor, key=request.key,
            game_id=request.scope, request_hash=request.request_hash, state=DONE,
            status_code=reply[0], response_body=reply[1], created_at=now, updated_at=now))

    # ----- integrity ------------------------------------------------------------

    def replay(self, game_id: str) -> ReplayReport:
        """Fold every stored event of the game from ``None`` and compare the result
        with the stored snapshot (and check that seqs run 1, 2, 3 ... without gaps).
        :class:`GameNotFound`."""
        record, stored = self.events(game_id)
        module = record.engine
        replayed = _json_copy(_fold_all(module, None, [e.event for e in stored]))
        return ReplayReport(
            game_id=game_id, events=len(stored),
            seqs_consecutive=[e.seq for e in stored] == list(range(1, len(stored) + 1)),
            matches=replayed == record.state, replayed=replayed, snapshot=record.state)

    def game_ids(self) -> list[str]:
        """Every game id, oldest first (for integrity sweeps)."""
        return self.uow.run(lambda s: list(s.scalars(
            select(Game.id).order_by(Game.created_at, Game.id))), write=False)


def _aware(moment: Any) -> Any:
    """SQLite returns naive datetimes for timezone-aware columns: read them as UTC."""
    from datetime import timezone
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
