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
"""

from __future__ import annotations

import copy
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from types import ModuleType, SimpleNamespace
from typing import Any

from sqlalchemy import Connection, insert, select

from service.games import RuleViolation, engine
from service.games.rng import commitment, new_seed
from service.messages import Message
from service.store import idle
from service.store.db import make_engine
from service.store.models import DONE, utcnow
from service.store.seating import Seating
from service.store.uow import Unavailable, UnitOfWork, lock_game, synced  # noqa: F401
from service.store.values import (  # noqa: F401 - the store's names, importable from here
    REFEREE,
    UNRECORDED,
    FEED_CHANNEL,
    MAX_SEQ,
    _INSERT_BATCH,
    Reply,
    StoreError,
    UnknownGame,
    GameNotFound,
    Unauthenticated,
    SeatNotFound,
    KeyReused,
    KeyInFlight,
    hash_token,
    request_hash,
    GameRecord,
    StoredEvent,
    EventPage,
    Applied,
    Refused,
    Outcome,
    _Accepted,
    IdempotencyRequest,
    ReplayReport,
    _engine_for,
    _fold_all,
    _event_params,
    _event_of,
    _canonical_event,
    _canonical,
)
from service.store.tokens import Credentials
from service.store.statements import (  # noqa: F401 - the store's SQL
    _json_text,
    _ACTOR,
    _READ,
    _TAKE_OVER,
    _KEY_RECORD,
    _LAST_SEQS,
    _EVENT_COLUMNS,
    _KEY_COLUMNS,
    _Statements,
    _GAMES,
    _SEATS,
    _EVENTS,
    _KEYS,
    _INVITATIONS,
    _SERVICE_KEYS,
)


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


class GameStore(Credentials):
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
        return self.insert(
            game, options, seed, events, _fold_all(module, None, events), seating=seating
        )

    def insert(
        self,
        game: str,
        options: dict[str, Any],
        seed: str,
        events: list[dict],
        state: dict[str, Any],
        version: int = 1,
        *,
        actions: dict[int, tuple[str, dict]] | None = None,
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
        rows = (offload or (lambda fn, *args: fn(*args)))(
            self._event_rows, game_id, events, now, actions or {}
        )
        return self.uow.run(
            lambda c: self._insert_game(
                c, game_id, now, game, options, seed, rows, state, version, imported, pause, seating
            ),
            core=True,
        )

    def _event_rows(
        self, game_id: str, events: list[dict], now: Any, actions: dict[int, tuple[str, dict]]
    ) -> list[tuple]:
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
        now: Any,
        game: str,
        options: dict[str, Any],
        seed: str,
        rows: list[tuple],
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
                "snapshot_text": json.dumps(state, sort_keys=True),
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

    def read(self, game_id: str) -> GameRecord:
        """The game as it is now. :class:`GameNotFound`."""
        return self.uow.read_one(lambda c: self._read(c, game_id))

    def current(self, game_id: str) -> GameRecord:
        """The game as a request that reads it sees it: :meth:`read`, then
        :meth:`catch_up` (G-T1). :class:`GameNotFound`, :class:`Unavailable`."""
        return self.catch_up(self.read(game_id))

    def catch_up(self, record: GameRecord) -> GameRecord:
        """G-T1 at this moment (``self.clock()``): ``record`` itself unless the game's
        idle deadline has passed and the engine's ``idle_events`` returns events
        (:mod:`service.store.idle`; checked in process, no statement); then, in one
        transaction under the game's row lock, the same question asked again of the
        locked row (another request may have recorded them, or acted, meanwhile), the
        events appended as an action's are (version + 1, ``updated_at`` = the moment
        used, the feed notified), and the game as it is after them."""
        now = self.now()
        if not idle.due(record.engine, record.state, record.updated, now):
            return record
        caught = self.uow.run_pipelined(lambda c: self._catch_up(c, record.id, now))
        return caught if caught is not None else self.read(record.id)

    def _catch_up(self, connection: Connection, game_id: str, now: float) -> GameRecord | None:
        row = lock_game(connection, game_id)
        if row is None:
            raise GameNotFound(game_id)
        timed_out = self._idle(game_id, row, now)
        if timed_out is None:
            return None
        applied, snapshot = timed_out
        self._sql.writes(
            connection,
            [_event_params(game_id, e.seq, e.event, idle.moment(now)) for e in applied.events],
            _advance_params(applied.game, snapshot, idle.moment(now)),
            None,
            {},
        )
        return applied.game

    def now(self) -> float:
        """The moment of a request in epoch seconds, to the millisecond (``clock``)."""
        return round(self.clock(), 3)

    @staticmethod
    def _idle(game_id: str, row: Any, now: float) -> tuple[Applied, str] | None:
        """The G-T1 events due on the locked ``row`` at ``now``, folded (the outcome and
        its snapshot text, as :meth:`_decide` gives them), or None."""
        since = idle.epoch(row.updated_at)
        if not idle.passed(row.options, row.status, since, now):
            return None
        module = engine(row.game)
        events = idle.due(module, json.loads(row.snapshot), since, now)
        return _applied(game_id, row, module, events, now) if events else None

    @staticmethod
    def _read(connection: Connection, game_id: str) -> GameRecord:
        row = connection.execute(_READ, {"game_id": game_id}).first()
        if row is None:
            raise GameNotFound(game_id)
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
        def fn(connection: Connection) -> EventPage:
            record = self._read(connection, game_id)
            bound = min(max(after, 0), MAX_SEQ)  # the same rows, in the column's range
            statement = (
                select(_EVENTS.c.seq, _EVENTS.c.type, _EVENTS.c.seat, _EVENTS.c.payload)
                .where(_EVENTS.c.game_id == game_id, _EVENTS.c.seq > bound)
                .order_by(_EVENTS.c.seq)
            )
            if bounded:
                statement = statement.where(_EVENTS.c.seq <= record.last_seq)
            if limit is not None:
                statement = statement.limit(min(max(limit, 0), MAX_SEQ))
            events = [StoredEvent(e.seq, _event_of(e)) for e in connection.execute(statement)]
            # empty page: log_end <= after (min() only matters for limit=0)
            last_seq = events[-1].seq if events else min(after, record.last_seq)
            return EventPage(record, events, last_seq)

        return self.uow.read_one(fn)

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

    # ----- actions --------------------------------------------------------------

    def act(
        self,
        game_id: str,
        actor: str,
        action: dict[str, Any],
        expected_version: int | None,
        render: Callable[[Outcome], Reply],
        idempotency: IdempotencyRequest | None = None,
    ) -> tuple[Reply, bool]:
        """Apply one action of ``actor`` if the game is still at ``expected_version``.

        In ONE transaction: lock the game row; with an idempotency key, look it up
        (same key and body done before and not expired: replay it, ``replayed``;
        another body: :class:`KeyReused`); check the version (stale ->
        ``Refused(412, "version-mismatch", version=current)``; None -> ``Refused(428)``
        unless the game is real-time, where the version is optional), ``apply`` on the snapshot
        (RuleViolation -> ``Refused(status, code)``, nothing written), fold the events,
        append them with consecutive ``seq`` after the row's ``last_seq``, store the
        snapshot, bump the version by 1, record the key (a refusal: its reply as
        ``render`` gives it, rendered in the transaction; an accepted action: the new
        version and its events' seqs), commit. An accepted action is rendered after
        the commit; a replayed one is rebuilt from the log (the state folded up to its
        last event, the events it appended) and rendered again: the same reply.
        Returns ``(reply, replayed)``.

        The key's scope is the game, so the row lock serialises every request with one
        key: a second request with the key waits for the lock, then finds the first
        one's record and replays it. Nothing is committed before the action's own
        commit, so a request that fails (5xx, 503 after the retries) leaves no trace
        and its key stays free. Raises :class:`GameNotFound`, :class:`KeyReused`,
        :class:`KeyInFlight` (only for a claim left by an earlier release, see
        :meth:`_check_key`), :class:`Unavailable`.
        """
        now = self.now()
        result, replayed = self.uow.run_pipelined(
            lambda c: self._act(
                c, game_id, actor, action, expected_version, render, idempotency, now
            )
        )
        if isinstance(result, _Accepted):
            result = self._rebuild(game_id, result)
        if isinstance(result, Applied):
            result = render(result)
        return result, replayed

    def _act(
        self,
        connection: Connection,
        game_id: str,
        actor: str,
        action: dict[str, Any],
        expected_version: int | None,
        render: Callable[[Outcome], Reply],
        idempotency: IdempotencyRequest | None,
        now: float,
    ) -> tuple[Reply | Applied | _Accepted, bool]:
        key = None if idempotency is None else (idempotency.actor, idempotency.key)
        row = lock_game(connection, game_id, key)  # and the key's record, if any
        if row is None:
            raise GameNotFound(game_id)
        if idempotency is not None and self._check_key(row, idempotency):
            if row.key_response_body is not None:  # a refusal (or an earlier release's)
                return (row.key_status_code, row.key_response_body), True
            return _Accepted(row.key_version, row.key_first_seq, row.key_last_seq), True
        # G-T1: what the idle deadline triggers is recorded first (the same transaction),
        # and the action is judged on the game after it
        timed_out = self._idle(game_id, row, now)
        if timed_out is not None:
            row = _moved(row, *timed_out)
        outcome, snapshot = self._decide(game_id, row, actor, action, expected_version)
        if isinstance(outcome, Refused) and outcome.status in UNRECORDED:
            if idempotency is not None and row.key_id is None:
                # a record committed while this statement waited for the row lock is
                # not in ``row`` (see lock_game); unrecorded, no unique conflict
                # would show it: look again
                fresh = connection.execute(
                    _KEY_RECORD,
                    {"game_id": game_id, "actor": idempotency.actor, "key": idempotency.key},
                    execution_options=synced(connection),
                ).first()
                if fresh is not None and self._check_key(fresh, idempotency):
                    if fresh.key_response_body is not None:
                        return (fresh.key_status_code, fresh.key_response_body), True
                    return _Accepted(
                        fresh.key_version, fresh.key_first_seq, fresh.key_last_seq
                    ), True
            idempotency = None  # the request's precondition failed: its key stays free
        reply = render(outcome) if isinstance(outcome, Refused) else None
        self._write(
            connection,
            game_id,
            outcome,
            snapshot,
            reply,
            idempotency,
            row.key_id,
            timed_out,
            (actor, _canonical(action)),
        )
        return (outcome if reply is None else reply), False

    @staticmethod
    def _decide(
        game_id: str, row: Any, actor: str, action: dict[str, Any], expected_version: int | None
    ) -> tuple[Outcome, str | None]:
        """The outcome, and for an accepted action the new snapshot's JSON text;
        nothing is written yet."""
        module = engine(row.game)
        if expected_version is None and not getattr(module, "REALTIME", False):
            return Refused(
                428,
                "version-required",
                Message("Name the version the action is based on: If-Match or expected_version."),
                game=row.game,
            ), None
        if expected_version is not None and row.version != expected_version:
            return Refused(
                412,
                "version-mismatch",
                Message(
                    "the game is at version %(version)s, not %(expected)s",
                    version=row.version,
                    expected=expected_version,
                ),
                {"version": row.version},
                game=row.game,
            ), None
        # apply gets a copy of its own (decoding the stored text again is several times
        # cheaper than a deep copy): whatever it does, the fold starts from the snapshot
        try:
            new_events = module.apply(json.loads(row.snapshot), actor, copy.deepcopy(action))
        except RuleViolation as violation:
            extra = {**violation.extra, **({"rule": violation.rule} if violation.rule else {})}
            return Refused(
                violation.status, violation.code, violation.detail, extra, game=row.game
            ), None
        return _applied(game_id, row, module, new_events, idle.epoch(utcnow()))

    def _write(
        self,
        connection: Connection,
        game_id: str,
        outcome: Outcome,
        snapshot: str | None,
        reply: Reply | None,
        idempotency: IdempotencyRequest | None,
        claimed: int | None,
        timed_out: tuple[Applied, str] | None = None,
        acted: tuple[str, dict] | None = None,
    ) -> None:
        """Append the events and advance the game (an accepted action, its first event
        recording ``acted``, the actor and the action; before them the events of
        ``timed_out``, G-T1, which advance the game even when the action is refused),
        and record the key: a refusal's ``reply``, or the accepted action's version and
        event seqs (taking over the expired or abandoned record ``claimed``)."""
        now = utcnow()
        events, game = [], None
        record = {
            "status_code": reply[0] if reply else 200,
            "response_body": reply[1] if reply else None,
            "version": None,
            "first_seq": None,
            "last_seq": None,
        }
        if timed_out is not None:
            at = idle.moment(timed_out[0].game.updated)
            events = [_event_params(game_id, e.seq, e.event, at) for e in timed_out[0].events]
            game = _advance_params(timed_out[0].game, timed_out[1], at)
        if isinstance(outcome, Applied):
            new = outcome.game
            own = [
                _event_params(game_id, e.seq, e.event, now, *(acted if i == 0 and acted else ()))
                for i, e in enumerate(outcome.events)
            ]
            events += own
            game = _advance_params(new, snapshot, now)
            record.update(
                version=new.version, first_seq=new.last_seq - len(own) + 1, last_seq=new.last_seq
            )
        key, key_params = None, {}
        if idempotency is not None and claimed is not None:
            key = "take-over"
            key_params = {
                "key_id": claimed,
                "new_request_hash": idempotency.request_hash,
                "new_status_code": record["status_code"],
                "new_body": record["response_body"],
                "new_version": record["version"],
                "new_first_seq": record["first_seq"],
                "new_last_seq": record["last_seq"],
                "now": now,
            }
        elif idempotency is not None:
            key = "insert"
            key_params = {
                "game_id": game_id,
                "actor": idempotency.actor,
                "key": idempotency.key,
                "request_hash": idempotency.request_hash,
                "state": DONE,
                "created_at": now,
                **record,
            }
        self._sql.writes(connection, events, game, key, key_params)

    def _rebuild(self, game_id: str, accepted: _Accepted) -> Applied:
        """The :class:`Applied` outcome of an accepted action, rebuilt from the log:
        the state folded from every event up to its ``last_seq`` (what the action
        left), its own events, its version."""
        record, upto = self.events(game_id, 0, accepted.last_seq)  # seqs run 1, 2, 3...
        state = _canonical(_fold_all(record.engine, None, [e.event for e in upto]))
        return Applied(
            replace(
                record,
                version=accepted.version,
                status=state["status"],
                state=state,
                last_seq=accepted.last_seq,
            ),
            [e for e in upto if e.seq >= accepted.first_seq],
        )

    # ----- idempotency ----------------------------------------------------------
    #
    # Ruling (one transaction per action): the key is looked up (in the statement that
    # locks the game row, see lock_game) and recorded in the action's own transaction.
    # A record is therefore only ever committed "done". The state "in-flight" comes
    # from the first release, which claimed a key in a transaction of its own before
    # acting: while such a claim is younger than ``in_flight_seconds`` its request may
    # still be running on an old worker (being stopped for the upgrade), so the key
    # answers 409; an older one is abandoned (its worker died) and the action takes it
    # over. A record older than ``idempotency_ttl`` has expired: the key is free again
    # and its record is taken over by the new request.

    def _check_key(self, row: Any, request: IdempotencyRequest) -> bool:
        """True when the key's record holds this request's reply (replay it).
        :class:`KeyReused` when the record is of another request, :class:`KeyInFlight`
        when it is a live claim of an earlier release; False when there is no record,
        or it expired or was abandoned (act, and take it over)."""
        if row.key_id is None:
            return False
        created = _aware(row.key_created_at)
        if created + self.idempotency_ttl <= utcnow():
            return False
        if row.key_request_hash != request.request_hash:
            raise KeyReused(request.key)
        if row.key_state == DONE:
            return True
        if created + self.in_flight > utcnow():
            raise KeyInFlight(request.key)
        return False

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


def _applied(
    game_id: str, row: Any, module: ModuleType, new_events: list[dict], updated: float
) -> tuple[Applied, str]:
    """``new_events`` appended to the game of ``row`` (a locked row): the outcome (the
    game after them at version + 1, the events with their seqs) and the new snapshot's
    JSON text. The events as the log will give them back, folded as a replay folds
    them."""
    stored = [
        StoredEvent(row.last_seq + i, _canonical_event(e)) for i, e in enumerate(new_events, 1)
    ]
    snapshot = json.dumps(
        _fold_all(module, json.loads(row.snapshot), [e.event for e in stored]), sort_keys=True
    )
    state = json.loads(snapshot)  # exactly what a replay rebuilds
    record = GameRecord(
        id=game_id,
        game=row.game,
        options=row.options,
        status=state["status"],
        version=row.version + 1,
        state=state,
        seed=row.seed,
        last_seq=stored[-1].seq if stored else row.last_seq,
        updated=updated,
    )
    return Applied(record, stored), snapshot


def _moved(row: Any, applied: Applied, snapshot: str) -> Any:
    """The locked ``row`` as it reads after ``applied`` (its snapshot text, version,
    status, last seq and update time; the idempotency columns as they were)."""
    new = applied.game
    return SimpleNamespace(
        **{
            **row._asdict(),
            "snapshot": snapshot,
            "status": new.status,
            "version": new.version,
            "last_seq": new.last_seq,
            "updated_at": idle.moment(new.updated),
        }
    )


def _advance_params(new: GameRecord, snapshot: str, at: datetime) -> dict[str, Any]:
    """The parameters of the statement that advances the game row to ``new``."""
    return {
        "target_game": new.id,
        "snapshot_text": snapshot,
        "new_status": new.status,
        "new_version": new.version,
        "new_last_seq": new.last_seq,
        "now": at,
    }


def _aware(moment: Any) -> Any:
    """SQLite returns naive datetimes for timezone-aware columns: read them as UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
