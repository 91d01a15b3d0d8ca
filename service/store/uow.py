"""The unit of work: one database transaction, retried on concurrency conflicts.

``UnitOfWork.run(fn, write=True)`` calls ``fn(session)`` inside one transaction and
commits (``core=True``: ``fn(connection)``, a plain Core connection without the ORM
session's bookkeeping: the store's per-action path; ``read_one(fn)``: reads with no
transaction around them, each statement atomic by itself); when the database reports a
transient conflict
(see :func:`service.store.db.is_conflict`) it rolls back and calls ``fn`` again with a
fresh transaction, up to ``attempts`` times with a short jittered back-off, then raises
:class:`Unavailable` (the API answers 503, never 500). ``fn`` must therefore do all its
work through the session and keep no effects outside it.

A dropped connection is retried too. If it dropped during COMMIT, the first attempt
may have committed: a retried action then meets the advanced version (412) or, with
an idempotency key, its stored reply (replayed), never a second effect on the game;
a retried create makes another game (creation is not idempotent anyway, see
:meth:`service.store.records.GameStore.create`).

Write transactions start as writers (``BEGIN IMMEDIATE`` on SQLite, see
:func:`service.store.db.writer`, after taking the database's
:class:`~service.store.db.WriterLock`); a game row is locked with ``SELECT ... FOR UPDATE``
(:func:`lock_game`), so one game changes in one transaction at a time, across threads,
gunicorn workers and hosts sharing one PostgreSQL.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, overload

from sqlalchemy import Connection, Engine, String, Text, and_, bindparam, cast, exists, or_, select
from sqlalchemy.exc import DBAPIError, IntegrityError, PendingRollbackError
from sqlalchemy.exc import TimeoutError as SQLAlchemyTimeoutError
from sqlalchemy.orm import Session, sessionmaker

from service.store.db import held, is_conflict, is_outage, single_statements, writer, writer_lock
from service.store.driver import DriverConnection, driver_connection
from service.store.statements import _GAMES, _KEYS, _READ, _SEATS
from service.store.values import AnyRow

if TYPE_CHECKING:
    import psycopg

T = TypeVar("T")
S = TypeVar("S", Session, Connection, DriverConnection)

DEFAULT_ATTEMPTS = 6


class Unavailable(Exception):
    """The database stayed in conflict (or locked) through every retry, or cannot be
    used at all (``outage``: stopped, unreachable, the connection lost on every
    attempt): answer 503 with ``Retry-After``."""

    def __init__(self, detail: str, outage: bool = False):
        super().__init__(detail)
        self.outage = outage


class UnitOfWork:
    """Transactions over one engine: ``run(fn)`` with retries, or ``transaction()``."""

    def __init__(self, engine: Engine, attempts: int = DEFAULT_ATTEMPTS, backoff: float = 0.01):
        self.engine = engine
        self.attempts = attempts
        self.backoff = backoff
        self._writer = writer(engine)
        self._single = single_statements(engine)
        self._readers = sessionmaker(engine, expire_on_commit=False)
        self._writers = sessionmaker(self._writer, expire_on_commit=False)
        self.lock = writer_lock(engine)  # SQLite: writers queue on it (db.WriterLock)
        self._compiled: dict[Any, Any] = {}  # DriverConnection's statements

    @contextmanager
    def transaction(self, write: bool = True) -> Iterator[Session]:
        """One transaction: commits when the block ends, rolls back on an exception."""
        factory = self._writers if write else self._readers
        with held(self.lock if write else None), factory() as session, session.begin():
            yield session

    @contextmanager
    def connection(self, write: bool = True) -> Iterator[Connection]:
        """One transaction on a Core connection: commits when the block ends, rolls
        back on an exception."""
        with (
            held(self.lock if write else None),
            (self._writer if write else self.engine).begin() as connection,
        ):
            yield connection

    @contextmanager
    def _single_statement(self, write: bool = False) -> Iterator[Connection]:
        with self._single.connect() as connection:
            yield connection

    def driver(self) -> AbstractContextManager[DriverConnection]:
        """A connection of the pool that runs the statements by the driver itself
        (:func:`service.store.driver.driver_connection`), no transaction open."""
        return driver_connection(self.engine, self._compiled)

    def by_driver(self, connection: Connection) -> Connection | DriverConnection:
        """PostgreSQL in pipeline mode (``connection`` of :meth:`pipelined`): the DBAPI
        connection under it running the action path's statements by the driver itself
        (:mod:`service.store.driver`); their errors arrive as psycopg's, which
        :func:`pipelined` rolls back and raises as SQLAlchemy's. Otherwise
        ``connection`` itself."""
        pipeline = connection.info.get("pipeline")
        if pipeline is None:
            return connection
        raw = connection.connection.driver_connection
        return DriverConnection(raw, self.engine.dialect, self._compiled, pipeline)

    @contextmanager
    def pipelined(self, write: bool = True) -> Iterator[Connection]:
        """One write transaction on a Core connection in as few round trips as the
        work allows: on PostgreSQL in psycopg's pipeline mode (see :func:`pipelined`);
        elsewhere :meth:`connection`."""
        if self.engine.dialect.name != "postgresql" or not pipeline_supported():
            with self.connection(write) as connection:
                yield connection
            return
        with self._single.connect() as connection, pipelined(connection):
            yield connection

    @overload
    def run(
        self, fn: Callable[[Session], T], write: bool = True, core: Literal[False] = False
    ) -> T: ...
    @overload
    def run(
        self, fn: Callable[[Connection], T], write: bool = True, *, core: Literal[True]
    ) -> T: ...
    def run(self, fn: Callable[[Any], T], write: bool = True, core: bool = False) -> T:
        """``fn(session)`` (``core``: ``fn(connection)``) in a transaction, retried on
        conflicts; :class:`Unavailable` when every attempt conflicted. Other exceptions
        propagate (after rollback)."""
        if core:
            return self._retry(fn, self.connection, write)
        return self._retry(fn, self.transaction, write)

    def run_pipelined(self, fn: Callable[[Connection], T]) -> T:
        """``fn(connection)`` in a write transaction of :meth:`pipelined`, retried like
        :meth:`run`. ``fn`` reads results only through :func:`synced` statements (the
        game's lock): the results of the others arrive at COMMIT (and so their
        errors, a unique violation among them)."""
        return self._retry(fn, self.pipelined, True)

    def read_one(self, fn: Callable[[Connection], T]) -> T:
        """``fn(connection)`` that runs read statements, each atomic by itself, without
        a transaction around them (see :func:`single_statements`): ONE statement, or
        several whose reader copes with commits between them (GameStore.page); retried
        like :meth:`run`."""
        return self._retry(fn, self._single_statement, False)

    def read_by_driver(self, fn: Callable[[DriverConnection], T]) -> T:
        """:meth:`read_one` with the statements run by the driver itself
        (:func:`service.store.driver.driver_connection`): for the reads a request
        makes on its way. ``fn`` runs statements built once (a module's constant: the
        driver keeps each one's compiled form), and reads results by ``first()`` or
        iteration."""
        return self._retry(fn, lambda write: self.driver(), False)

    def _retry(
        self,
        fn: Callable[[S], T],
        begin: Callable[[bool], AbstractContextManager[S]],
        write: bool,
    ) -> T:
        for attempt in range(self.attempts):
            try:
                with begin(write) as session:
                    return fn(session)
            except DBAPIError as error:
                if not is_conflict(error):
                    if is_outage(error):  # e.g. the server is stopped: no retry cures it
                        raise Unavailable(str(error.orig), outage=True) from error
                    raise
                if attempt + 1 == self.attempts:
                    raise Unavailable(str(error.orig), outage=_lost(error)) from error
                time.sleep(self.backoff * (2**attempt) * (0.5 + random.random()))
            except (SQLAlchemyTimeoutError, PendingRollbackError) as error:  # pool, state
                raise Unavailable(str(error), outage=True) from error
        raise Unavailable("no attempt made")  # attempts == 0


def _lost(error: DBAPIError) -> bool:
    """The retries ended on a lost connection (not on a conflict between writers)."""
    return (
        bool(error.connection_invalidated)
        or not isinstance(error, IntegrityError)
        and (getattr(error.orig, "sqlstate", None) or "")[:2] in ("08", "57")
    )


def pipeline_supported() -> bool:
    """psycopg's pipeline mode is available (libpq 14 or later)."""
    import psycopg

    return psycopg.Pipeline.is_supported()


@contextmanager
def pipelined(connection: Connection) -> Iterator[None]:
    """A PostgreSQL transaction on ``connection`` (an AUTOCOMMIT one: BEGIN and COMMIT
    are sent here, so that psycopg does not send its BEGIN alone) in pipeline mode:
    BEGIN and the statements up to the first :func:`synced` one travel in one round
    trip, the rest and COMMIT in a second one (the pipeline's last sync). On an
    exception the transaction is rolled back; an error the last sync reports (a
    unique violation, a lost connection) is raised as SQLAlchemy's
    :class:`~sqlalchemy.exc.DBAPIError` (so :func:`~service.store.db.is_conflict`
    judges it as any other)."""
    import psycopg

    from service.store import waits

    raw = connection.connection.driver_connection
    if not isinstance(raw, psycopg.Connection):  # pipeline mode is psycopg's
        raise TypeError("pipeline mode needs a psycopg connection")
    try:
        # the block locks the game's row (the locked path, an idle catch-up): its waits
        # for PostgreSQL keep the worker, briefly, instead of yielding (waits.py)
        with waits.holding_lock(), raw.pipeline() as pipeline:
            connection.info["pipeline"] = pipeline
            raw.execute("BEGIN")  # by psycopg: SQLAlchemy does not track it (AUTOCOMMIT)
            yield
            raw.execute("COMMIT")
    except psycopg.Error as error:  # from the pipeline's last sync: not wrapped yet
        _roll_back(connection, raw)
        lost = raw.closed or raw.broken
        raise DBAPIError.instance(
            "COMMIT", None, error, psycopg.Error, connection_invalidated=lost
        ) from error
    except BaseException:
        _roll_back(connection, raw)
        raise
    finally:
        # an invalidated connection's info is already gone (the pool clears it), and
        # touching it would raise PendingRollbackError instead of the error at hand
        if not connection.invalidated:
            connection.info.pop("pipeline", None)


def _roll_back(connection: Connection, raw: psycopg.Connection[Any]) -> None:
    import psycopg

    if raw.closed or raw.broken:
        connection.invalidate()
        return
    if raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        try:
            raw.execute("ROLLBACK")
        except psycopg.Error:
            connection.invalidate()


def synced(connection: Connection | Session | DriverConnection) -> dict[str, Any]:
    """Execution options making a statement's result available at once inside
    :func:`pipelined` (the pipeline is synced after it: one round trip for it and
    everything queued before it); none elsewhere."""
    info = connection.info if isinstance(connection, (Connection, DriverConnection)) else {}
    pipeline = info.get("pipeline")
    return {} if pipeline is None else {"pipeline_sync": pipeline}


# built once: SQLAlchemy caches its compiled form
# does the acting token still open the game as the actor it was taken for (a token
# remembered by GameStore.authenticate(..., remembered=True); a re-issue replaces it)
_TOKEN_HASH, _TOKEN_SEAT = (
    bindparam("token_hash", type_=String),
    bindparam("token_seat", type_=String),
)
_TOKEN_OK = or_(
    _TOKEN_HASH.is_(None),  # no token to check (the store's own callers, tests)
    and_(_TOKEN_SEAT.is_(None), _GAMES.c.referee_token_hash == _TOKEN_HASH),
    exists().where(
        _SEATS.c.game_id == _GAMES.c.id,
        _SEATS.c.seat == _TOKEN_SEAT,
        _SEATS.c.token_hash == _TOKEN_HASH,
    ),
).label("token_ok")
# _PEEK reads without the row lock (optimistic writes), _LOCK locks the row
_PEEK = (
    select(
        _GAMES.c.game,
        _GAMES.c.options,
        _GAMES.c.status,
        _GAMES.c.version,
        cast(_GAMES.c.snapshot, Text).label("snapshot"),
        _GAMES.c.last_seq,
        _GAMES.c.seed,
        _GAMES.c.updated_at,
        _KEYS.c.id.label("key_id"),
        _KEYS.c.request_hash.label("key_request_hash"),
        _KEYS.c.state.label("key_state"),
        _KEYS.c.status_code.label("key_status_code"),
        _KEYS.c.response_body.label("key_response_body"),
        _KEYS.c.version.label("key_version"),
        _KEYS.c.first_seq.label("key_first_seq"),
        _KEYS.c.last_seq.label("key_last_seq"),
        _KEYS.c.created_at.label("key_created_at"),
        _TOKEN_OK,
    )
    .select_from(
        _GAMES.outerjoin(
            _KEYS,
            and_(
                _KEYS.c.game_id == _GAMES.c.id,
                _KEYS.c.actor == bindparam("actor"),
                _KEYS.c.key == bindparam("key"),
            ),
        )
    )
    .where(_GAMES.c.id == bindparam("game_id"))
)
_LOCK = _PEEK.with_for_update(of=_GAMES)
# a request's read of the game with its token checked in the same statement
# (GameStore.read's ``token``)
_READ_CHECKED = _READ.add_columns(_TOKEN_OK)


class LockedGame(Protocol):
    """The game row as :func:`lock_game` reads it, or as the caller derived it after
    recording idle events (the idempotency record's id as it was)."""

    @property
    def game(self) -> str: ...
    @property
    def options(self) -> dict[str, Any]: ...
    @property
    def status(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def snapshot(self) -> str: ...  # the JSON text
    @property
    def last_seq(self) -> int: ...
    @property
    def seed(self) -> str: ...
    @property
    def updated_at(self) -> datetime: ...
    @property
    def key_id(self) -> int | None: ...


def lock_game(
    connection: Connection | Session | DriverConnection,
    game_id: str,
    key: tuple[str, str] | None = None,
    lock: bool = True,
    token: tuple[str, str | None] | None = None,
) -> AnyRow | None:
    """The game row, locked until the transaction ends (``FOR UPDATE OF games`` on
    PostgreSQL; on SQLite the ``BEGIN IMMEDIATE`` of the write transaction already
    holds the lock): ``game``, ``options``, ``status``, ``version``, ``snapshot`` (as
    its JSON text), ``last_seq``, ``seed``, ``updated_at``, and the idempotency record of ``key``
    (actor, key) in this game in the same statement: ``key_id``, ``key_request_hash``,
    ``key_state``, ``key_status_code``, ``key_response_body``, ``key_version``,
    ``key_first_seq``, ``key_last_seq``, ``key_created_at``, all None when there is no
    such record (or no key). ``None`` if there is no such game.

    PostgreSQL, READ COMMITTED: a statement that waited for the lock returns the
    game row as the lock holder committed it, but the joined key record as it was
    when the statement began. If the holder recorded this very key, the caller does
    not see it and acts again; its INSERT of the key then violates the key's unique
    constraint, a conflict: the transaction is rolled back and retried, and the retry
    sees the record (a unique index, never the lock, is what allows one record per
    key).

    ``lock`` False (an optimistic attempt, ``Actions._act_unlocked``): the same read
    without the row lock; the caller's write must be conditioned on the ``version``
    read.

    ``token`` (its SHA-256 hex, the seat it opens or None for the referee): the row's
    ``token_ok`` says whether it still opens this game as that actor (the token check
    folded into this read); without ``token``, ``token_ok`` is true."""
    actor, name = key if key is not None else (None, None)
    token_hash, token_seat = token if token is not None else (None, None)
    return connection.execute(
        _LOCK if lock else _PEEK,
        {
            "game_id": game_id,
            "actor": actor,
            "key": name,
            "token_hash": token_hash,
            "token_seat": token_seat,
        },
        execution_options=synced(connection),
    ).first()
