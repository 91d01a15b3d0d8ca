"""Database engines for the game store: SQLite (default) and PostgreSQL.

SQLite needs care to behave like a real transactional database:

* the connection runs in WAL mode (readers never block the writer), with a
  ``busy_timeout`` and foreign keys on (``connect`` event);
* pysqlite's own transaction handling is switched off (``isolation_level = None``)
  and SQLAlchemy's ``begin`` event emits ``BEGIN`` itself (the SQLAlchemy recipe
  "Serializable isolation / Savepoints / Transactional DDL"), so every SELECT runs
  inside the transaction and DDL is transactional (Alembic migrations roll back whole);
* a write transaction starts with ``BEGIN IMMEDIATE`` (execution option
  ``sqlite_begin="IMMEDIATE"``, see :func:`writer`): it takes the database write lock up
  front, waiting up to ``busy_timeout`` for it, instead of failing at its first write
  with "database is locked" when a reader tries to upgrade.

* writers are serialised before ``BEGIN IMMEDIATE`` by a :class:`WriterLock`: a lock
  inside the process and a blocking ``flock`` on ``<database>-writer.lock`` across
  processes (every gunicorn worker; in a gevent worker, tried every 0.2 ms without
  yielding for up to 20 ms, then between cooperative sleeps: see :func:`_flock`).
  SQLite's own busy handler waits for a held write lock by sleeping and polling (its
  back-off sleeps up to 100 ms, which made the slow tail); a writer waiting on the
  file lock takes it as soon as it is released (under gevent: at its next try). The
  busy timeout stays for writers outside the store (a migration, ``sqlite3`` by hand).

:func:`is_conflict` tells the errors that a retry can cure (deadlock, serialization
failure, lock time-out, "database is locked", unique violation on an event's seq, a
dropped connection) from real faults.

PostgreSQL pool: no ``pool_pre_ping`` (a ``SELECT 1`` round trip on every checkout,
i.e. twice per action). A connection that the server dropped (restart, idle
time-out) fails at its first statement instead; SQLAlchemy then invalidates the whole
pool and :func:`is_conflict` makes the unit of work retry on a fresh connection
(see :mod:`service.store.uow` for why a retry never gives a second effect).
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any

from gevent import monkey
from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import (
    DBAPIError,
    IntegrityError,
    InterfaceError,
    OperationalError,
    PendingRollbackError,
)
from sqlalchemy.exc import TimeoutError as SQLAlchemyTimeoutError

from service import jsontext

BUSY_TIMEOUT_MS = 10_000  # how long an SQLite writer waits for the write lock

# PostgreSQL SQLSTATEs worth a retry: serialization failure, deadlock, lock not available.
# serialization failure, deadlock, lock not available; division_by_zero is the
# version guard of an optimistic write (statements._Statements._combine): the game
# moved on between the read and the write
_PG_RETRY_STATES = {"40001", "40P01", "55P03", "22012"}
# the connection is gone (class 08) or the server ended it (admin_shutdown,
# crash_shutdown, cannot_connect_now: a pg_terminate_backend, a restart)
_PG_LOST_STATES = {"57P01", "57P02", "57P03"}
_SQLITE_RETRY_TEXT = ("database is locked", "database is busy", "database table is locked")


def _is_memory(url: URL) -> bool:
    return url.database in (None, "", ":memory:") or url.query.get("mode") == "memory"


def make_engine(url: str | URL, **kwargs: Any) -> Engine:
    """An :class:`Engine` for ``url`` with the store's connection settings.

    SQLite: WAL (file databases), ``busy_timeout``, ``foreign_keys=ON`` (once per
    connection, not per transaction), SQLAlchemy-controlled ``BEGIN`` (``BEGIN
    IMMEDIATE`` on :func:`writer` engines, none on :func:`single_statements` engines).
    PostgreSQL (and others): the default pool, no pre-ping (see the module docstring).
    """
    url = make_url(url)
    # JSON columns (event payloads, replies) written and read by orjson
    kwargs.setdefault("json_serializer", jsontext.column_text)
    kwargs.setdefault("json_deserializer", jsontext.loads)
    if url.get_backend_name() != "sqlite":
        if url.get_driver_name() == "psycopg":
            # no server-side prepared statements: a pipeline aborted by an error (a
            # unique violation between two writers) loses a PREPARE that psycopg still
            # believes made, and the next use of that statement fails ("prepared
            # statement _pg3_N does not exist")
            kwargs["connect_args"] = {"prepare_threshold": None, **kwargs.get("connect_args", {})}
        engine = create_engine(url, **kwargs)
        event.listen(engine, "after_cursor_execute", _sync_pipeline)
        return engine
    connect_args = {"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False}
    engine = create_engine(url, connect_args=connect_args, **kwargs)
    wal = not _is_memory(url)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves (see _on_begin)
        cursor = dbapi_connection.cursor()
        try:
            if wal:
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            cursor.execute("PRAGMA foreign_keys=ON")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
        if mode is not None:
            connection.exec_driver_sql(f"BEGIN {mode}")

    return engine


class WriterLock:
    """Serialises the write transactions of one SQLite database file: a
    :class:`threading.Lock` within the process (a greenlet-aware one under gevent,
    which patches threading before the store is built), then an exclusive ``flock``
    on ``path`` across processes, held from before ``BEGIN IMMEDIATE`` until after
    ``COMMIT``/``ROLLBACK``. The file is opened once per process (a forked child opens
    its own: an inherited descriptor would share the parent's lock). The kernel
    releases the lock of a process that dies."""

    def __init__(self, path: str | None):
        self.path = path
        self._local = threading.Lock()
        self._file: tuple[int, int] | None = None  # (pid, descriptor)

    def _descriptor(self) -> int | None:
        if self.path is None:
            return None
        pid = os.getpid()  # a forked worker opens its own descriptor
        if self._file is None or self._file[0] != pid:
            self._file = (pid, os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        return self._file[1]

    @contextmanager
    def held(self) -> Iterator[None]:
        """The lock, for the block."""
        with self._local:
            descriptor = self._descriptor()
            if descriptor is not None:
                _flock(descriptor)
            try:
                yield
            finally:
                if descriptor is not None:
                    fcntl.flock(descriptor, fcntl.LOCK_UN)


# Under gevent a writer first waits for the lock without yielding, trying it every
# POLL_SECONDS for up to BLOCKING_WAIT_SECONDS (the worker serves nothing else
# meanwhile; another worker's write holds it for well under a millisecond). Only a
# longer hold (a big import, a holder the kernel has set aside) is waited for with
# cooperative sleeps. A cooperative wait holds the worker's own lock (WriterLock._local)
# across each sleep, and the sleeper resumes only after the worker's other ready
# greenlets: with 16 busy games on 4 workers its writers queued behind it, and an
# action's p99 in the server was 145-166 ms (p50 under 1 ms), 6-10 ms with this wait
# (issue 23, docs/operations.md).
BLOCKING_WAIT_SECONDS = 0.02
POLL_SECONDS = 0.0002
_blocking_sleep = monkey.get_original("time", "sleep")


def _flock(descriptor: int) -> None:
    """An exclusive ``flock``. A blocking one stops a gevent worker whole (the call
    never yields) for as long as another worker writes, a big import for seconds: under
    gevent the lock is tried without blocking, again every :data:`POLL_SECONDS` for
    up to :data:`BLOCKING_WAIT_SECONDS` without yielding, and after that after a
    cooperative sleep (1 ms, doubling up to 8 ms), so that the worker's other
    connections are served meanwhile."""
    if not _cooperative():
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        return
    deadline = time.perf_counter() + BLOCKING_WAIT_SECONDS
    wait = 0.001
    while not _try_flock(descriptor):
        if time.perf_counter() < deadline:
            _blocking_sleep(POLL_SECONDS)  # the worker waits whole: no other greenlet runs
        else:
            time.sleep(wait)  # gevent's sleep: the hub serves others meanwhile
            wait = min(wait * 2, 0.008)


def _try_flock(descriptor: int) -> bool:
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _cooperative() -> bool:
    """True when gevent has patched this process (a gunicorn gevent worker)."""
    return bool(monkey.is_module_patched("time"))


def writer_lock(engine: Engine) -> WriterLock | None:
    """The :class:`WriterLock` of an SQLite engine (a file database:
    ``<database>-writer.lock`` next to it; in memory: within the process only); None
    for other databases (they lock rows: ``SELECT ... FOR UPDATE``)."""
    if engine.dialect.name != "sqlite":
        return None
    url, database = engine.url, engine.url.database
    if database is None or _is_memory(url):
        return WriterLock(None)
    return WriterLock(f"{os.path.abspath(database)}-writer.lock")


def held(lock: WriterLock | None) -> AbstractContextManager[None]:
    """``lock.held()``, or nothing to hold."""
    return lock.held() if lock is not None else nullcontext()


def _sync_pipeline(
    _connection: Any,
    _cursor: Any,
    _statement: str,
    _parameters: Any,
    context: Any,
    _executemany: bool,
) -> None:
    """In pipeline mode (:func:`service.store.uow.pipelined`), a statement executed with
    ``pipeline_sync`` has its result fetched now (with everything queued before it),
    before SQLAlchemy reads the cursor; its errors are SQLAlchemy's as usual."""
    pipeline = context.execution_options.get("pipeline_sync")
    if pipeline is not None:
        pipeline.sync()


def writer(engine: Engine) -> Engine:
    """The same engine (same pool) whose transactions start as writers:
    ``BEGIN IMMEDIATE`` on SQLite; no difference elsewhere (rows are locked with
    ``SELECT ... FOR UPDATE`` there)."""
    if engine.dialect.name == "sqlite":
        return engine.execution_options(sqlite_begin="IMMEDIATE")
    return engine


def single_statements(engine: Engine) -> Engine:
    """The same engine (same pool) for work that is ONE statement, which is atomic by
    itself: no ``BEGIN`` ... ``COMMIT`` around it (PostgreSQL: autocommit, two round
    trips fewer; SQLite: no ``BEGIN``, the statement is its own transaction)."""
    if engine.dialect.name == "sqlite":
        return engine.execution_options(sqlite_begin=None)
    return engine.execution_options(isolation_level="AUTOCOMMIT")


def is_conflict(error: BaseException) -> bool:
    """True when ``error`` is transient: a concurrency conflict or a dropped
    connection, which a retry may cure.

    PostgreSQL: serialization failure, deadlock, lock not available, the version guard
    of an optimistic write (division by zero, see statements), or a unique violation
    (two writers raced for one event seq or one idempotency key).
    SQLite: "database is locked"/"busy", or a UNIQUE constraint failure.
    Any backend: the connection was lost (SQLAlchemy invalidated it and the pool; on
    PostgreSQL also SQLSTATE class 08 and 57P01-57P03, which psycopg's pipeline mode
    reports without SQLAlchemy seeing a disconnect).
    """
    if not isinstance(error, DBAPIError):
        return False
    if error.connection_invalidated:
        return True
    if isinstance(error, IntegrityError):
        text = str(error.orig).lower()
        return "unique" in text or "duplicate key" in text
    state = getattr(error.orig, "sqlstate", None) or getattr(error.orig, "pgcode", None)
    if state in _PG_RETRY_STATES or state in _PG_LOST_STATES or (state or "")[:2] == "08":
        return True
    if isinstance(error, OperationalError):
        text = str(error.orig).lower()
        return any(fragment in text for fragment in _SQLITE_RETRY_TEXT)
    return False


def is_outage(error: BaseException) -> bool:
    """True when ``error`` says the database cannot be used now (it is stopped,
    unreachable, out of connections or disk, or a connection broke in a way no retry
    cured): the request gets 503 ``unavailable`` with ``Retry-After``, never a 500.
    Errors of a statement itself (a constraint, a syntax error) are not outages."""
    if isinstance(error, (InterfaceError, SQLAlchemyTimeoutError, PendingRollbackError)):
        return True
    if not isinstance(error, OperationalError):
        return False
    if type(error.orig).__module__.startswith("sqlite3"):  # also a missing table...
        text = str(error.orig).lower()
        return any(fragment in text for fragment in _SQLITE_OUTAGE_TEXT)
    return True  # psycopg: could not connect, connection lost, server shutting down


_SQLITE_OUTAGE_TEXT = (
    *_SQLITE_RETRY_TEXT,
    "unable to open",
    "disk i/o",
    "readonly",
    "disk is full",
    "database or disk is full",
)
