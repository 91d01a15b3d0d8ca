"""The game store: games, their event record, bearer tokens and idempotent actions.

Generic over the engine contract of :mod:`service.games`: the store calls
``engine(game).new_game / fold / apply`` and keeps

* the events (append-only, ``seq`` = 1, 2, 3 ... per game) as the record, and
* the snapshot (the state folded from every event) with a ``version`` bumped by 1 per
  accepted action, so an action folds onto the snapshot instead of replaying the log.

HTTP does not live here: :meth:`GameStore.act` takes a ``render`` callback that turns
the outcome (:class:`Applied` or :class:`Refused`) into the reply ``(status, body)``.
An idempotency record keeps as little as gives the same reply again: a refusal's
rendered body (small), or for an accepted action the version it produced and the seqs
of the events it appended; a replay folds the log up to them and renders that outcome
again, byte for byte the first reply (events and state are put in one canonical key
order, see :func:`_canonical`, so the rendering does not depend on how a backend
returns JSON). Records expire after ``idempotency_ttl`` (then the key is free again).
A refusal of the request's precondition (412 stale version, 428 none) is not recorded
(:data:`UNRECORDED`): a retry with the current version and the same key is acted on.

An action is ONE transaction: the statement that locks the game row (and reads the
idempotency record of the request's key), then the writes: the events after the row's
``last_seq``, the new snapshot, version and ``last_seq``, the reply under the key (one
statement on PostgreSQL, three on SQLite). The token lookup before it is one statement
without a transaction around it. On PostgreSQL the transaction runs in psycopg's
pipeline mode (:func:`service.store.uow.pipelined`): BEGIN travels with the lock, the
writes with COMMIT, so an action is three round trips, the token lookup included. The
statement that advances the game on PostgreSQL also sends
``pg_notify(FEED_CHANNEL, "<game id>:<last_seq>")``: a notification is
delivered at commit only, to the event feed of every worker and host
(:mod:`service.store.feed`).

A game may start from a stated position (G-P1, :meth:`GameStore.create` with
``position``: the engine's ``start_from_position`` makes the setup events). Idle seats
(G-T1, :mod:`service.store.idle`): a request that reads a game goes through
:meth:`GameStore.current` / ``page(catch_up=True)``, and an action's transaction
records what a passed idle deadline triggers before judging the action.

Tokens are ``secrets.token_urlsafe(32)``; only their SHA-256 hex digests are stored.

:class:`GameStore` is here with its creation, reads and integrity checks; its action
path (actions, idempotency, G-T1) is in :mod:`service.store.actions`, its tokens and
seating in :mod:`service.store.tokens`, its values in :mod:`service.store.values` and
its SQL in :mod:`service.store.statements`.
"""

from __future__ import annotations

import copy
import secrets
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, insert, select

from service import jsontext
from service.games import RuleViolation
from service.games.rng import commitment, new_seed
from service.messages import Message
from service.store.actions import Actions
from service.store.db import make_engine
from service.store.driver import Executor
from service.store.seating import Seating
from service.store.statements import (
    _EVENT_COLUMNS,
    _EVENTS,
    _GAMES,
    _LAST_SEQS,
    _PAGES,
    _READ,
    _SEATS,
    _SERVICE_KEYS,
    _Statements,
)
from service.store.tokens import Credentials
from service.store.uow import _READ_CHECKED, Unavailable, UnitOfWork
from service.store.models import utcnow
from service.store.values import (
    _INSERT_BATCH,
    FEED_CHANNEL,
    MAX_SEQ,
    REFEREE,
    Applied,
    EventPage,
    GameNotFound,
    GameRecord,
    IdempotencyRequest,
    KeyInFlight,
    KeyReused,
    Refused,
    ReplayReport,
    Reply,
    SeatNotFound,
    StoredEvent,
    StoreError,
    Unauthenticated,
    UnknownGame,
    _canonical,
    _canonical_event,
    _engine_for,
    _event_of,
    _event_params,
    _fold_all,
    hash_token,
    request_hash,
)

# the store's names, importable from here (its values live in values.py)
__all__ = [
    "FEED_CHANNEL",
    "Applied",
    "EventPage",
    "GameNotFound",
    "GameRecord",
    "GameStore",
    "IdempotencyRequest",
    "KeyInFlight",
    "KeyReused",
    "REFEREE",
    "Refused",
    "ReplayReport",
    "Reply",
    "SeatNotFound",
    "StoreError",
    "Unauthenticated",
    "Unavailable",
    "UnknownGame",
    "hash_token",
    "request_hash",
]


# ----- the store ------------------------------------------------------------------


class GameStore(Credentials, Actions):
    """Durable games over one database URL (SQLite file or PostgreSQL)."""

    def __init__(
        self,
        url: str,
        *,
        attempts: int = 6,
        in_flight_seconds: float = 60.0,
        idempotency_ttl_seconds: float = 24 * 3600,
        **engine_kwargs: Any,
    ):
        self.uow = UnitOfWork(make_engine(url, **engine_kwargs), attempts=attempts)
        self.in_flight = timedelta(seconds=in_flight_seconds)
        self.idempotency_ttl = timedelta(seconds=idempotency_ttl_seconds)
        self._sql = _Statements(self.uow.engine.dialect.name)
        self._remembered = {}  # tokens (Credentials.authenticate)
        self._contended = {}  # games whose optimistic writes lost lately (Actions.act)
        self.clock: Callable[[], float] = time.time  # G-T1's "now" (tests set another)

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.uow.engine.dispose()

    # ----- create ---------------------------------------------------------------

    def create(
        self,
        game: str,
        options: dict[str, Any],
        seed: str | None = None,
        position: dict[str, Any] | None = None,
        seating: Seating | None = None,
    ) -> Reply:
        """Create a game: ``(201, {"id", "game", "version", "status", "seats": {seat:
        {"token"}}, "referee_token", "seed_commitment"})``; ``seating``: display names,
        invitations instead of seat tokens, the game it is a rematch of
        (:mod:`service.store.seating`).

        ``position`` (G-P1): start from a stated position instead of a fresh deal, the
        setup events being the engine's ``start_from_position(game, options, seed,
        position)`` (what the position leaves out is dealt from the seed). An engine
        without it: RuleViolation ``invalid-position`` (422).

        Ruling: creation takes no idempotency key. Replaying the first reply would mean
        keeping its tokens in plaintext, and tokens are stored as SHA-256 only; a retried
        create makes another game and leaves the first unused, with no effect on any game.

        Raises :class:`UnknownGame`, :class:`RuleViolation` (the engine refused the
        options; nothing stored), :class:`Unavailable`.
        """
        module = _engine_for(game)
        seed = seed or new_seed()
        if position is None:
            setup = module.new_game(game, options, seed)
        else:
            start = getattr(module, "start_from_position", None)
            if start is None:
                raise RuleViolation(
                    "invalid-position",
                    Message("%(game)s cannot start from a stated position yet.", game=game),
                    422,
                    rule="G-P1",
                    extra={"field": "position"},
                )
            setup = start(game, options, seed, copy.deepcopy(position))
        events = [_canonical_event(e) for e in setup]
        state = _fold_all(module, None, events)
        assert state is not None  # the setup begins with game-created (the engine contract)
        return self.insert(game, options, seed, events, state, seating=seating)

    def insert(
        self,
        game: str,
        options: dict[str, Any],
        seed: str,
        events: list[dict[str, Any]],
        state: dict[str, Any],
        version: int = 1,
        *,
        actions: dict[int, tuple[str, dict[str, Any]]] | None = None,
        imported: dict[str, Any] | None = None,
        pause: Callable[[], None] | None = None,
        offload: Callable[..., Any] | None = None,
        seating: Seating | None = None,
    ) -> Reply:
        """Store a game under a new id with new tokens: its ``events`` (seq 1, 2...,
        already folded into ``state``) at ``version``; the reply of :meth:`create`.
        (:mod:`service.store.transfer` imports exported games through it:
        ``actions`` ``{seq: (actor, action)}`` recorded on those events, ``imported``
        the copy's mark; ``seating``: names, invitations, a rematch's link; for a big
        import, ``offload(fn, *args)`` runs the rows'
        preparation (pure) off the event loop and ``pause`` is called between batches
        of rows written, so that the worker's other connections are served.)"""
        game_id, now = secrets.token_urlsafe(16), utcnow()
        rows: list[tuple[Any, ...]] = (offload or (lambda fn, *args: fn(*args)))(
            self._event_rows, game_id, events, now, actions or {}
        )
        return self.uow.run(
            lambda c: self._insert_game(
                c, game_id, now, game, options, seed, rows, state, version, imported, pause, seating
            ),
            core=True,
        )

    def _event_rows(
        self,
        game_id: str,
        events: list[dict[str, Any]],
        now: datetime,
        actions: dict[int, tuple[str, dict[str, Any]]],
    ) -> list[tuple[Any, ...]]:
        """The ``events`` rows of a new game as the driver takes them (every value
        through its column type's bind processor, in :data:`_EVENT_COLUMNS` order)."""
        dialect = self.uow.engine.dialect
        processors = [
            _EVENTS.c[name].type.dialect_impl(dialect).bind_processor(dialect)
            for name in _EVENT_COLUMNS
        ]
        rows = []
        for seq, event in enumerate(events, 1):
            params = _event_params(game_id, seq, event, now, *actions.get(seq, ()))
            rows.append(
                tuple(
                    params[name] if process is None else process(params[name])
                    for name, process in zip(_EVENT_COLUMNS, processors)
                )
            )
        return rows

    def _insert_game(
        self,
        connection: Connection,
        game_id: str,
        now: datetime,
        game: str,
        options: dict[str, Any],
        seed: str,
        rows: Sequence[tuple[Any, ...]],
        state: dict[str, Any],
        version: int,
        imported: dict[str, Any] | None = None,
        pause: Callable[[], None] | None = None,
        seating: Seating | None = None,
    ) -> Reply:
        tokens = {seat: secrets.token_urlsafe(32) for seat in state["seats"]}
        referee_token = secrets.token_urlsafe(32)
        connection.execute(
            self._sql.insert_game,
            {
                "id": game_id,
                "game": game,
                "options": state.get("options", options),
                "status": state["status"],
                "version": version,
                "snapshot_text": jsontext.canonical_text(state),
                "last_seq": len(rows),
                "seed": seed,
                "referee_token_hash": hash_token(referee_token),
                "created_at": now,
                "updated_at": now,
                "imported": imported,
                "names": seating.names if seating and seating.names else None,
                "rematch_of": seating.rematch_of if seating else None,
            },
        )
        connection.execute(
            insert(_SEATS),
            [
                {"game_id": game_id, "seat": seat, "token_hash": hash_token(token)}
                for seat, token in tokens.items()
            ],
        )
        for start in range(0, len(rows), _INSERT_BATCH):
            if start and pause is not None:
                pause()
            self._sql.insert_events(connection, rows[start : start + _INSERT_BATCH])
        seats: dict[str, dict[str, Any]] = {
            seat: {"token": token} for seat, token in tokens.items()
        }
        if seating is not None:
            seats = seating.seat(connection, game_id, seats, now)
        return 201, {
            "id": game_id,
            "game": game,
            "version": version,
            "status": state["status"],
            "seats": seats,
            "referee_token": referee_token,
            "seed_commitment": commitment(seed),
        }

    # ----- reads ----------------------------------------------------------------

    def read(self, game_id: str, token: tuple[str, str | None] | None = None) -> GameRecord:
        """The game as it is now. :class:`GameNotFound`.

        ``token`` (:func:`~service.store.values.token_check`: a bearer token's SHA-256
        hex and the seat it opens, None for the referee): the same statement checks
        that it still opens this game as that actor (a token answered from memory,
        ``authenticate(..., remembered=True)``); one that does not (re-issued, or the
        game is gone) raises :class:`Unauthenticated` and is forgotten."""
        return self.uow.read_by_driver(lambda c: self._read(c, game_id, token))

    def current(self, game_id: str, token: tuple[str, str | None] | None = None) -> GameRecord:
        """The game as a request that reads it sees it: :meth:`read` (``token``
        checked), then :meth:`catch_up` (G-T1). :class:`GameNotFound`,
        :class:`Unauthenticated`, :class:`Unavailable`."""
        return self.catch_up(self.read(game_id, token))

    def _read(
        self, connection: Executor, game_id: str, token: tuple[str, str | None] | None = None
    ) -> GameRecord:
        if token is None:
            row = connection.execute(_READ, {"game_id": game_id}).first()
            if row is None:
                raise GameNotFound(game_id)
            return GameRecord.of(game_id, row)
        params = {"game_id": game_id, "token_hash": token[0], "token_seat": token[1]}
        row = connection.execute(_READ_CHECKED, params).first()
        if row is None or not row.token_ok:
            raise self.stale_token(token[0])
        return GameRecord.of(game_id, row)

    def events(
        self, game_id: str, after: int = 0, limit: int | None = None
    ) -> tuple[GameRecord, list[StoredEvent]]:
        """The game and its events with ``seq > after`` (in order, at most ``limit``),
        every stored one, also past the game row's ``last_seq`` (for integrity checks:
        :meth:`replay`). :class:`GameNotFound`."""
        page = self._page(game_id, after, limit, bounded=False)
        return page.game, page.events

    def actions(self, game_id: str) -> list[dict[str, Any]]:
        """The actions recorded in the game's log, in order: ``{"seq": the first event
        it appended, "actor": a seat or "referee", "action": {...}}`` (an action of a
        release before migration 0005 was not recorded)."""
        statement = (
            select(_EVENTS.c.seq, _EVENTS.c.actor, _EVENTS.c.action)
            .where(_EVENTS.c.game_id == game_id, _EVENTS.c.actor.is_not(None))
            .order_by(_EVENTS.c.seq)
        )
        return self.uow.read_one(
            lambda c: [
                {"seq": row.seq, "actor": row.actor, "action": _canonical(row.action)}
                for row in c.execute(statement)
            ]
        )

    def service_key(self, name: str) -> str:
        """The secret ``name`` of ``service_keys`` (drawn by migration 0005; drawn here
        if the row was deleted: the first writer's value wins and every worker and
        host reads it)."""
        query = select(_SERVICE_KEYS.c.value).where(_SERVICE_KEYS.c.name == name)
        value = self.uow.read_one(lambda c: c.execute(query).scalar())
        if value is None:

            def draw(connection: Connection) -> str:
                found = connection.execute(query).scalar()
                if found is None:
                    found = secrets.token_hex(32)
                    connection.execute(
                        insert(_SERVICE_KEYS).values(name=name, value=found, created_at=utcnow())
                    )
                return found

            value = self.uow.run(draw, core=True)
        return value

    def page(
        self, game_id: str, after: int = 0, limit: int | None = None, catch_up: bool = False
    ) -> EventPage:
        """One page of the log: the game, its events with ``seq > after`` up to the
        game row's ``last_seq`` (in order, at most ``limit``) and ``last_seq`` (see
        :class:`EventPage`). :class:`GameNotFound`.

        Two statements without a transaction around them (the event feed reads a page
        per stream wake-up: no BEGIN/COMMIT round trips): the game row first, then the
        events up to ITS ``last_seq``, so the page never holds an event newer than the
        state the viewer filter applies (an event committed in between is left for
        the next page, never skipped: it is after ``last_seq``).

        ``catch_up``: a request's read (G-T1, :meth:`catch_up`): when that records
        events, the page is read again."""
        page = self._page(game_id, after, limit, bounded=True)
        if catch_up and self.catch_up(page.game) is not page.game:
            page = self._page(game_id, after, limit, bounded=True)
        return page

    def _page(self, game_id: str, after: int, limit: int | None, bounded: bool) -> EventPage:
        def fn(connection: Executor) -> EventPage:
            record = self._read(connection, game_id)
            params = {
                "game_id": game_id,
                "after": min(max(after, 0), MAX_SEQ),  # the same rows, in the column's range
                "upto": record.last_seq,
                "limit": None if limit is None else min(max(limit, 0), MAX_SEQ),
            }
            statement = _PAGES[bounded, limit is not None]
            rows = connection.execute(statement, params)
            events = [StoredEvent(e.seq, _event_of(e)) for e in rows]
            # empty page: log_end <= after (min() only matters for limit=0)
            last_seq = events[-1].seq if events else min(after, record.last_seq)
            return EventPage(record, events, last_seq)

        return self.uow.read_by_driver(fn)

    def last_seqs(self, game_ids: list[str]) -> dict[str, tuple[int, int]]:
        """``{game id: (last_seq, credentials)}`` of those of ``game_ids`` that exist,
        in one statement (the event feed's poll; ``credentials`` counts the game's
        token re-issues, see :meth:`reissue_token`)."""
        return self.uow.read_one(
            lambda c: {
                row.id: (row.last_seq, row.credentials)
                for row in c.execute(_LAST_SEQS, {"ids": game_ids})
            }
        )

    # ----- integrity ------------------------------------------------------------

    def replay(self, game_id: str) -> ReplayReport:
        """Fold every stored event of the game from ``None`` and compare the result
        with the stored snapshot; check that seqs run 1, 2, 3 ... without gaps up to
        the game row's ``last_seq``. :class:`GameNotFound`."""
        record, stored = self.events(game_id)
        module = record.engine
        replayed = _canonical(_fold_all(module, None, [e.event for e in stored]))
        return ReplayReport(
            game_id=game_id,
            events=len(stored),
            seqs_consecutive=[e.seq for e in stored] == list(range(1, record.last_seq + 1)),
            matches=replayed == record.state,
            replayed=replayed,
            snapshot=record.state,
        )

    def game_ids(self) -> list[str]:
        """Every game id, oldest first (for integrity sweeps)."""
        return self.uow.read_one(
            lambda c: list(
                c.scalars(select(_GAMES.c.id).order_by(_GAMES.c.created_at, _GAMES.c.id))
            )
        )
