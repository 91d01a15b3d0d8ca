"""SQLite actions run their optimistic attempt on the driver (service/store/driver.py):
its statements must read and write exactly what SQLAlchemy's Connection does, and any
driver error must fall back to the locked path, nothing half-written. A request's reads
(the game, a page of its log, a token's owner) run on the driver too: the same rows as
SQLAlchemy's, its errors raised as SQLAlchemy's, the connection given back as lent."""

from __future__ import annotations

import os
import sqlite3
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import select

from service.store import GameStore, IdempotencyRequest, Refused
from service.store.models import Event, Game, IdempotencyKey
from service.store.driver import DriverConnection
from service.store.statements import _INSERT_KEY
from service.store.uow import lock_game
from service.store.values import hash_token
from tests.conftest import migrate

SEED = "0f" * 32


@pytest.fixture()
def sqlite_store(new_database, counter_engine):
    """A store on a fresh SQLite database (whose optimistic attempt has a fallback of
    its own: the locked SQLAlchemy path)."""
    url = new_database("sqlite")
    migrate(url)
    store = GameStore(url)
    yield store
    store.dispose()


@contextmanager
def _driver(store):
    """The driver connection an action's optimistic attempt runs on: SQLite's own,
    PostgreSQL's under a pipelined SQLAlchemy connection."""
    if store.uow.engine.dialect.name == "sqlite":
        with store.uow.driver() as driver:
            yield driver
        return
    with store.uow.pipelined() as connection:
        driver = store.uow.by_driver(connection)
        assert isinstance(driver, DriverConnection)
        yield driver


@contextmanager
def _every_pooled(engine):
    """Every connection resting in ``engine``'s pool, lent out for the block."""
    lent = [engine.raw_connection() for _ in range(engine.pool.checkedin())]
    try:
        yield lent
    finally:
        for pooled in lent:
            pooled.close()


def _render(outcome):
    if isinstance(outcome, Refused):
        return outcome.status, {"code": outcome.code, "detail": "refused"}
    return 200, {"version": outcome.game.version, "seqs": [e.seq for e in outcome.events]}


def _game(store) -> str:
    status, body = store.create("counter", {}, SEED)
    assert status == 201
    return body["id"]


def _key(game_id: str, key: str, body: str = "h1") -> IdempotencyRequest:
    return IdempotencyRequest(game_id, "north", key, body)


def test_the_driver_reads_the_game_and_key_as_sqlalchemy_does(store):
    game_id = _game(store)
    # a refusal recorded under a key: a JSON body and a datetime in the key's record
    (status, _), _ = store.act(game_id, "north", {"type": "nope"}, 1, _render, _key(game_id, "k"))
    assert status == 422
    args = (game_id, ("north", "k"), False, None)
    with _driver(store) as driver:
        by_driver = lock_game(driver, *args)
    with store.uow.connection(write=False) as connection:
        by_sqlalchemy = lock_game(connection, *args)
    assert by_driver._asdict() == by_sqlalchemy._asdict()
    assert by_driver.key_response_body == {"code": "unknown-action", "detail": "refused"}
    assert isinstance(by_driver.key_created_at, datetime)
    assert by_driver.options["target"] == 10 and by_driver.version == 1 and by_driver.token_ok


def test_the_driver_writes_what_sqlalchemy_reads_back(store, monkeypatch):
    from service.store import driver

    real, statements = driver.DriverConnection.execute, []

    def counted(self, statement, params=None, execution_options=None):
        statements.append(statement)
        return real(self, statement, params, execution_options)

    monkeypatch.setattr(driver.DriverConnection, "execute", counted)
    game_id = _game(store)
    (status, reply), _ = store.act(
        game_id, "north", {"type": "tick"}, 1, _render, _key(game_id, "a")
    )
    assert (status, reply) == (200, {"version": 2, "seqs": [5]})
    assert len(statements) == (4 if store.uow.engine.dialect.name == "sqlite" else 2)
    with store.uow.transaction(write=False) as session:
        game = session.execute(select(Game).where(Game.id == game_id)).scalar_one()
        event = session.execute(
            select(Event).where(Event.game_id == game_id, Event.seq == 5)
        ).scalar_one()
        key = session.execute(
            select(IdempotencyKey).where(IdempotencyKey.game_id == game_id)
        ).scalar_one()
    assert (game.version, game.last_seq, game.snapshot["status"]) == (2, 5, "active")
    assert (event.type, event.seat, event.actor, event.action) == (
        "ticked",
        "north",
        "north",
        {"type": "tick"},
    )
    now = datetime.now(timezone.utc)
    for moment in (game.updated_at, event.created_at, key.created_at):
        assert abs(moment.replace(tzinfo=timezone.utc) - now) < timedelta(seconds=30)
    assert (key.version, key.first_seq, key.last_seq, key.response_body) == (2, 5, 5, None)
    assert store.replay(game_id).matches
    # the same key again: replayed from the record the driver wrote
    again, replayed = store.act(game_id, "north", {"type": "tick"}, 1, _render, _key(game_id, "a"))
    assert (again, replayed) == ((200, {"version": 2, "seqs": [5]}), True)
    assert game_id not in store._contended  # the optimistic attempt landed


def test_a_driver_error_mid_write_falls_back_whole(sqlite_store, monkeypatch):
    """The key's INSERT fails on the driver after the events and the game's UPDATE ran:
    they are rolled back, and the locked SQLAlchemy path does the action once."""
    from service.store import driver

    store = sqlite_store
    game_id = _game(store)
    real, failed = driver.DriverConnection.execute, []

    def failing(self, statement, params=None, execution_options=None):
        if statement is _INSERT_KEY and not failed:
            failed.append(1)
            raise sqlite3.OperationalError("disk I/O error")
        return real(self, statement, params, execution_options)

    monkeypatch.setattr(driver.DriverConnection, "execute", failing)
    (status, reply), _ = store.act(
        game_id, "north", {"type": "tick"}, 1, _render, _key(game_id, "b")
    )
    assert failed and (status, reply) == (200, {"version": 2, "seqs": [5]})
    with store.uow.transaction(write=False) as session:
        seqs = session.execute(select(Event.seq).where(Event.game_id == game_id)).scalars()
        assert list(seqs) == [1, 2, 3, 4, 5]
        assert session.execute(select(IdempotencyKey.version)).scalars().all() == [2]
    assert store.replay(game_id).matches


# ----- a request's reads on the driver (UnitOfWork.read_by_driver) ----------------------


def test_a_requests_reads_on_the_driver_match_sqlalchemys(store):
    """The game row, a page of the log (every form: bounded or not, with a limit or
    not) and a token's owner read by the driver are what SQLAlchemy's Connection
    reads from the same statements."""
    from service.store.statements import _ACTOR, _PAGES

    status, body = store.create("counter", {}, SEED)
    game_id, token = body["id"], body["seats"]["north"]["token"]
    for version in (1, 2, 3):
        (status, _), _ = store.act(game_id, "north", {"type": "tick"}, version, _render)
        assert status == 200
    by_driver, by_sqlalchemy = store.uow.read_by_driver, store.uow.read_one
    read = lambda c: store._read(c, game_id)  # noqa: E731
    assert by_driver(read) == by_sqlalchemy(read)
    assert by_driver(read).version == 4
    for (bounded, limited), statement in _PAGES.items():
        params = {"game_id": game_id, "after": 2, "upto": 6, "limit": 3 if limited else None}

        def rows_of(connection, statement=statement, params=params):
            return [tuple(row) for row in connection.execute(statement, params)]

        rows = by_driver(rows_of)
        assert rows == by_sqlalchemy(rows_of)
        assert [r[0] for r in rows] == [3, 4, 5, 6, 7][: 3 if limited else 4 if bounded else 5]
    owner = by_driver(lambda c: c.execute(_ACTOR, {"token_hash": hash_token(token)}).first())
    assert (owner.game_id, owner.seat) == (game_id, "north")
    assert store.authenticate(game_id, token) == "north"
    assert [e.seq for e in store.page(game_id, 5, 10).events] == [6, 7]


def test_a_driver_read_error_is_sqlalchemys_and_the_connection_goes_back_as_lent(store):
    """A driver error in a read is raised as SQLAlchemy's DBAPIError (so the retries
    judge it as any other), and the connection goes back to the pool as it was lent:
    on PostgreSQL not in autocommit, also after a read that raised GameNotFound."""
    from sqlalchemy import literal_column
    from sqlalchemy.exc import DBAPIError

    from service.store import GameNotFound

    broken = select(literal_column("no_such_column")).select_from(Game.__table__)
    with pytest.raises(DBAPIError):
        store.uow.read_by_driver(lambda c: c.execute(broken).first())
    with pytest.raises(GameNotFound):
        store.read("no-such-game")
    with _every_pooled(store.uow.engine) as lent:
        assert lent
        if store.uow.engine.dialect.name == "postgresql":
            assert [p.driver_connection.autocommit for p in lent] == [False] * len(lent)


@pytest.mark.skipif(
    not os.environ.get("TEST_DATABASE_URL"),
    reason="prepared statements are PostgreSQL's (TEST_DATABASE_URL)",
)
def test_postgresql_runs_the_drivers_statements_prepared_outside_pipelines_only(
    new_database, counter_engine
):
    """A statement of a driver connection (autocommit, no pipeline) is prepared on the
    server the first time it runs there and reused after (one prepared statement for
    two reads); the connection goes back to the pool with psycopg's prepare_threshold
    None again, so that nothing is prepared inside a pipeline (the locked path: an
    aborted pipeline would lose the PREPARE), and the locked path still acts."""
    url = new_database("postgresql")
    migrate(url)
    store = GameStore(url)
    try:
        game_id = _game(store)

        def read_twice_and_look(connection):
            for _ in range(2):
                assert store._read(connection, game_id).version == 1
            listed = connection._connection.execute("SELECT statement FROM pg_prepared_statements")
            return [row[0] for row in listed]

        (prepared,) = store.uow.read_by_driver(read_twice_and_look)
        assert "FROM games" in prepared and "$1" in prepared
        with _every_pooled(store.uow.engine) as lent:
            thresholds = [pooled.driver_connection.prepare_threshold for pooled in lent]
            assert thresholds == [None] * len(lent)
        store._note_contended(game_id)  # the locked path: a pipelined transaction
        for version in (1, 2):
            (status, body), _ = store.act(game_id, "north", {"type": "tick"}, version, _render)
            assert (status, body["version"]) == (200, version + 1)
    finally:
        store.dispose()


@pytest.mark.skipif(
    not os.environ.get("TEST_DATABASE_URL"),
    reason="the shared cursor is PostgreSQL's (TEST_DATABASE_URL)",
)
def test_postgresql_runs_a_driver_connections_statements_on_one_cursor(
    new_database, counter_engine
):
    """Outside a pipeline a driver connection runs its statements on one psycopg
    cursor: each result is read before the next statement, and a result read after
    it raises instead of giving the next statement's rows."""
    url = new_database("postgresql")
    migrate(url)
    store = GameStore(url)
    try:
        game_id = _game(store)
        with store.uow.driver() as connection:
            first = lock_game(connection, game_id, lock=False)
            again = connection.execute(select(Game.id, Game.version).where(Game.id == game_id))
            assert tuple(again.first()) == (game_id, first.version)
            stale = connection.execute(select(Game.version).where(Game.id == game_id))
            connection.execute(select(Game.id).where(Game.id == "no-such-game"))
            with pytest.raises(RuntimeError):
                stale.first()
            with pytest.raises(RuntimeError):
                list(stale)
    finally:
        store.dispose()
